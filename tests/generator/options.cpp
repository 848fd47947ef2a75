#include "options.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "critical_shapes.h"

namespace rocpd_gen {
namespace {

int64_t parse_integer(std::string_view option, std::string_view text, int64_t lo, int64_t hi) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw UsageError(fmt::format("option {} expects an integer, got '{}'", option, text));
  if (value < lo || value > hi)
    throw UsageError(fmt::format("option {} must be between {} and {}, got {}", option, lo, hi, value));
  return value;
}

uint64_t parse_seed(std::string_view text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw UsageError(fmt::format("option --seed expects a non-negative integer, got '{}'", text));
  return value;
}

}  // namespace

std::string_view usage_text() {
  return "usage: rocpd_gen --out DIR --procs N --format rpd2|rpd3|rocpd|rocpd4|rocprofsys|mixed|nsys|kineto|vendors --ops N --seed S\n"
         "                 [--gpus G] [--queues Q] [--sessions K] [--apis-extra N] [--markers N]\n"
         "                 [--rocpd-version V] [--counters N] [--rpd-counters N] [--merge K] [--rpd-nodes N] [--host-skew NS]\n"
         "                 [--diagnosis 0|1|2] [--memsets N] [--nsys-schema 2021|2022|2023|2025|2026] [--kineto-version V]\n"
         "                 [--steps N [--step-collectives C] [--collective-jitter NS] [--straggler RANK:NS[:PCT]]]\n"
         "                 [--steps N --critical-path SHAPE [--loader RANK:NS] [--queue-depth N] [--gemm NS]]\n"
         "\n"
         "Writes N per-process GPU traces into DIR (created; existing files are never overwritten):\n"
         "rank<i>.rpd for rpd2/rpd3, rank<i>.db for rocpd/rocpd4/rocprofsys, rank<i>.sqlite for nsys,\n"
         "rank<i>.json for kineto; mixed uses [rpd2, rpd3, rocpd][i % 3], vendors [rpd2, rocpd, nsys, kineto][i % 4].\n"
         "DIR/truth.json holds the ground truth (counts, sums, per-gpu busy time).\n"
         "\n"
         "  --out DIR         output directory\n"
         "  --procs N         number of processes (files), 1..100000\n"
         "  --format F        rpd2 | rpd3 | rocpd | rocpd4 (schema 4.1.0) | rocprofsys | mixed | nsys | kineto | vendors\n"
         "  --ops N           GPU ops per process, 1..100000000\n"
         "  --seed S          workload seed; same seed and sizes give the same workload in every format\n"
         "  --gpus G          GPUs per process (default 4), 1..64\n"
         "  --queues Q        queues per GPU (default 2), 1..64\n"
         "  --sessions K      rank0's rpd or nsys file holds K sessions (processes; default 1), 1..64\n"
         "  --apis-extra N    API calls without ops per process (default ops/4)\n"
         "  --markers N       roctx markers per process (default ops/50)\n"
         "  --rocpd-version V rocpd layout: 3 (default) or 3.0.0 .. 3.0.5 as rocprofv3 writes it\n"
         "  --counters N      performance counters per kernel dispatch in rocpd files, 0..8\n"
         "  --rpd-counters N  counters per kernel op in rpd3 files (rocpd_counter), 0..8\n"
         "  --merge K         rocpd only: K consecutive processes per file merged<j>.db (rocpd merge)\n"
         "  --rpd-nodes N     ranks on N nodes (rank % N); rpd3 files encode pid/gpu with the strides\n"
         "  --host-skew NS    per-node clock offsets up to NS ns; every rank ends with one collective\n"
         "  --diagnosis 0|1   1: host stalls, event waits and helper-thread ranges, truth key \"diagnosis\"\n"
         "                    (2: also touching ops and host waits shorter than the kernel-wait threshold)\n"
         "  --memsets N       nsys files: N cudaMemsetAsync calls and memsets per process, 0..100000\n"
         "  --nsys-schema Y   nsys files: the export schema of Nsight Systems Y: 2021 (2021.5),\n"
         "                    2022 (2.9.1), 2023 (3.4.0), 2025 (3.20.3) or 2026 (3.25.0, default)\n"
         "  --kineto-version V  kineto files as PyTorch V's profiler writes them on CUDA: 1.8, 1.9, 1.10, 1.11,\n"
         "                    2.0, 2.1, 2.3, 2.4, or mtia (2.4 on MTIA devices); default: 2.x on ROCm\n"
         "  --steps N         N ProfilerStep#k ranges, each with collectives every rank issues in one order\n"
         "  --step-collectives C  collectives per step (default 4), 1..64\n"
         "  --collective-jitter NS  arrivals within NS ns of the schedule, ends within +-NS ns (default 1000)\n"
         "  --straggler RANK:NS[:PCT]  RANK starts its collectives NS ns late in PCT % of the steps, spread\n"
         "                    evenly (default 50: every odd step)\n"
         "  --critical-path S steps whose critical path is known by construction (cpu, gpu, sync, loader,\n"
         "                    queue, event, event_untraced, copy, hostbound)\n"
         "  --loader RANK:NS  loader shape: RANK's data loader takes NS ns per step (default rank 5, 3 ms)\n"
         "  --queue-depth N   queue shape: ops in flight before a launch blocks (default 8), 2..64\n"
         "  --gemm NS         queue, event, event_untraced, copy: a GEMM's duration (default 200000)\n"
         "  --help            this text\n";
}

Options parse_options(const std::vector<std::string_view>& args) {
  Options o;
  bool have_out = false, have_procs = false, have_format = false, have_ops = false, have_seed = false;
  bool have_step_option = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string_view name = args[i];
    std::string_view value;
    bool inline_value = false;
    if (name == "--help" || name == "-h") {
      o.help = true;
      return o;
    }
    if (!name.starts_with("--")) throw UsageError(fmt::format("unexpected argument '{}'", name));
    if (const size_t eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    static constexpr std::string_view kKnown[] = {"--out",    "--procs",  "--format",     "--ops",    "--seed",
                                                  "--gpus",   "--queues", "--sessions",   "--apis-extra",
                                                  "--markers", "--rocpd-version", "--counters", "--merge",
                                                  "--rpd-nodes", "--host-skew", "--diagnosis", "--rpd-counters",
                                                  "--steps", "--step-collectives", "--collective-jitter",
                                                  "--straggler", "--memsets", "--nsys-schema", "--critical-path", "--loader",
                                                  "--queue-depth", "--gemm",
                                                  "--kineto-version"};
    if (std::find(std::begin(kKnown), std::end(kKnown), name) == std::end(kKnown))
      throw UsageError(fmt::format("unknown option '{}'", name));
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError(fmt::format("option {} needs a value", name));
      value = args[++i];
    }
    if (name == "--out") {
      if (value.empty()) throw UsageError("option --out needs a non-empty directory");
      o.out = value;
      have_out = true;
    } else if (name == "--procs") {
      o.procs = static_cast<int>(parse_integer(name, value, 1, 100'000));
      have_procs = true;
    } else if (name == "--format") {
      if (value == "rpd2") o.format = Format::Rpd2;
      else if (value == "rpd3") o.format = Format::Rpd3;
      else if (value == "rocpd") o.format = Format::Rocpd;
      else if (value == "rocpd4") o.format = Format::Rocpd4;
      else if (value == "rocprofsys") o.format = Format::Rocprofsys;
      else if (value == "mixed") o.format = Format::Mixed;
      else if (value == "nsys") o.format = Format::Nsys;
      else if (value == "kineto") o.format = Format::Kineto;
      else if (value == "vendors") o.format = Format::Vendors;
      else
        throw UsageError(fmt::format(
            "option --format must be rpd2, rpd3, rocpd, rocpd4, rocprofsys, mixed, nsys, kineto or vendors, got '{}'",
            value));
      o.format_name = value;
      have_format = true;
    } else if (name == "--ops") {
      o.ops = parse_integer(name, value, 1, 100'000'000);
      have_ops = true;
    } else if (name == "--seed") {
      o.seed = parse_seed(value);
      have_seed = true;
    } else if (name == "--gpus") {
      o.gpus = static_cast<int>(parse_integer(name, value, 1, 64));
    } else if (name == "--queues") {
      o.queues = static_cast<int>(parse_integer(name, value, 1, 64));
    } else if (name == "--sessions") {
      o.sessions = static_cast<int>(parse_integer(name, value, 1, 64));
    } else if (name == "--apis-extra") {
      o.apis_extra = parse_integer(name, value, 0, 1'000'000'000);
    } else if (name == "--markers") {
      o.markers = parse_integer(name, value, 0, 1'000'000'000);
    } else if (name == "--rocpd-version") {
      static constexpr std::string_view kVersions[] = {"3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.0.4", "3.0.5"};
      const auto it = std::find(std::begin(kVersions), std::end(kVersions), value);
      if (value != "3" && it == std::end(kVersions))
        throw UsageError(fmt::format("option --rocpd-version must be 3 or 3.0.0 .. 3.0.5, got '{}'", value));
      o.rocpd_version = value;
      o.rocpd_patch = value == "3" ? -1 : static_cast<int>(it - std::begin(kVersions));
    } else if (name == "--counters") {
      o.counters = static_cast<int>(parse_integer(name, value, 0, 8));
    } else if (name == "--rpd-counters") {
      o.rpd_counters = static_cast<int>(parse_integer(name, value, 0, 8));
    } else if (name == "--merge") {
      o.merge = static_cast<int>(parse_integer(name, value, 1, 100'000));
    } else if (name == "--rpd-nodes") {
      o.rpd_nodes = static_cast<int>(parse_integer(name, value, 1, 1'000));
    } else if (name == "--host-skew") {
      o.host_skew = parse_integer(name, value, 0, 100'000'000'000);
    } else if (name == "--diagnosis") {
      const int64_t level = parse_integer(name, value, 0, 2);
      o.diagnosis = level >= 1;
      o.diagnosis_edges = level == 2;
    } else if (name == "--nsys-schema") {
      o.nsys_schema = static_cast<int>(parse_integer(name, value, 2021, 2026));
      if (o.nsys_schema == 2024)
        throw UsageError("option --nsys-schema must be 2021, 2022, 2023, 2025 or 2026 (a documented generation), got 2024");
    } else if (name == "--kineto-version") {
      static constexpr std::string_view kVersions[] = {"1.8", "1.9", "1.10", "1.11", "2.0", "2.1", "2.3", "2.4", "mtia"};
      if (std::find(std::begin(kVersions), std::end(kVersions), value) == std::end(kVersions))
        throw UsageError(fmt::format("option --kineto-version must be 1.8, 1.9, 1.10, 1.11, 2.0, 2.1, 2.3, 2.4 or mtia, "
                                     "got '{}'",
                                     value));
      o.kineto_version = std::string(value);
    } else if (name == "--memsets") {
      o.memsets = static_cast<int>(parse_integer(name, value, 0, 100'000));
    } else if (name == "--steps") {
      o.steps = static_cast<int>(parse_integer(name, value, 1, 10'000));
    } else if (name == "--step-collectives") {
      o.step_collectives = static_cast<int>(parse_integer(name, value, 1, 64));
      have_step_option = true;
    } else if (name == "--collective-jitter") {
      o.collective_jitter = parse_integer(name, value, 0, 20'000);
      have_step_option = true;
    } else if (name == "--straggler") {
      const size_t colon = value.find(':');
      if (colon == std::string_view::npos)
        throw UsageError(fmt::format("option --straggler expects RANK:NS[:PCT], got '{}'", value));
      o.straggler_rank = static_cast<int>(parse_integer(name, value.substr(0, colon), 0, 99'999));
      const std::string_view rest = value.substr(colon + 1);
      const size_t pct = rest.find(':');
      o.straggler_delay = parse_integer(name, rest.substr(0, pct), 0, 1'000'000'000);
      if (pct != std::string_view::npos)
        o.straggler_pct = static_cast<int>(parse_integer(name, rest.substr(pct + 1), 0, 100));
      have_step_option = true;
    } else if (name == "--critical-path") {
      if (!known_shape(value))
        throw UsageError(fmt::format("option --critical-path must be cpu, gpu, sync, loader, queue, event, "
                                     "event_untraced, copy or hostbound, got '{}'",
                                     value));
      o.critical_path = value;
    } else if (name == "--loader") {
      const size_t colon = value.find(':');
      if (colon == std::string_view::npos) throw UsageError(fmt::format("option --loader expects RANK:NS, got '{}'", value));
      o.loader_rank = static_cast<int>(parse_integer(name, value.substr(0, colon), 0, 99'999));
      // Longer than every other rank's loader (100 us): the slow rank is the last to arrive.
      o.loader_ns = parse_integer(name, value.substr(colon + 1), 100'001, 1'000'000'000);
    } else if (name == "--queue-depth") {
      o.queue_depth = static_cast<int>(parse_integer(name, value, 2, 64));
    } else if (name == "--gemm") {
      o.gemm_ns = parse_integer(name, value, 10'000, 1'000'000'000);
    }
  }
  if (!have_out) throw UsageError("missing required option --out");
  if (!have_procs) throw UsageError("missing required option --procs");
  if (!have_format) throw UsageError("missing required option --format");
  if (!have_ops) throw UsageError("missing required option --ops");
  if (!have_seed) throw UsageError("missing required option --seed");
  if (o.sessions > 1 && (o.format == Format::Rocpd || o.format == Format::Rocpd4 || o.format == Format::Rocprofsys))
    throw UsageError("option --sessions applies to rpd files only (rocpd files hold one process each)");
  const bool rocpd_files = o.format == Format::Rocpd || o.format == Format::Mixed;
  if (!o.rocpd_version.empty() && !rocpd_files)
    throw UsageError("option --rocpd-version applies to rocpd files only (--format rocpd or mixed)");
  if (o.counters > 0 && !rocpd_files)
    throw UsageError("option --counters applies to rocpd files only (--format rocpd or mixed)");
  if (o.rpd_counters > 0 && o.format != Format::Rpd3 && o.format != Format::Mixed)
    throw UsageError("option --rpd-counters applies to rpd3 files only (--format rpd3 or mixed)");
  if (o.merge > 0 && o.format != Format::Rocpd) throw UsageError("option --merge applies to --format rocpd only");
  if (o.rpd_nodes > 0 && o.format != Format::Rpd3 && o.format != Format::Mixed)
    throw UsageError("option --rpd-nodes applies to rpd3 files only (--format rpd3 or mixed)");
  if (o.nsys_schema != 2026 && o.format != Format::Nsys && o.format != Format::Vendors)
    throw UsageError("option --nsys-schema applies to nsys files only (--format nsys or vendors)");
  if (!o.kineto_version.empty() && o.format != Format::Kineto)
    throw UsageError("option --kineto-version applies to kineto files only (--format kineto)");
  if (o.memsets > 0 && o.format != Format::Nsys && o.format != Format::Vendors)
    throw UsageError("option --memsets applies to nsys files only (--format nsys or vendors)");
  // The diagnosis truth is computed from the workload's ops, which hold no memsets.
  if (o.memsets > 0 && o.diagnosis) throw UsageError("option --memsets cannot be combined with --diagnosis 1");
  if (have_step_option && o.steps == 0)
    throw UsageError("options --step-collectives, --collective-jitter and --straggler need --steps");
  if (o.steps > 0) {
    if (o.queues < 2) throw UsageError("option --steps needs --queues 2 or more (the last queue of gpu 0 runs the collectives)");
    if (o.ops < static_cast<int64_t>(o.steps) * (o.step_collectives + 1))
      throw UsageError(fmt::format("option --steps {} with {} collectives per step needs --ops {} or more", o.steps,
                                   o.step_collectives, static_cast<int64_t>(o.steps) * (o.step_collectives + 1)));
    if (o.sessions > 1) throw UsageError("option --steps does not combine with --sessions (one process per rank)");
    if (o.diagnosis) throw UsageError("option --steps does not combine with --diagnosis 1");
    if (o.straggler_rank >= o.procs)
      throw UsageError(fmt::format("option --straggler names rank {}, but there are {} ranks", o.straggler_rank, o.procs));
  }
  if (o.loader_rank >= 0 && o.critical_path != "loader") throw UsageError("option --loader needs --critical-path loader");
  if (o.queue_depth > 0 && o.critical_path != "queue") throw UsageError("option --queue-depth needs --critical-path queue");
  if (o.gemm_ns > 0 && o.critical_path != "queue" && o.critical_path != "event" && o.critical_path != "event_untraced" &&
      o.critical_path != "copy")
    throw UsageError("option --gemm needs --critical-path queue, event, event_untraced or copy");
  if (o.queue_depth <= 0) o.queue_depth = 8;
  if (o.gemm_ns <= 0) o.gemm_ns = 200'000;
  // Every launch after the first `depth` ones finds the queue full (critical_shapes.cpp).
  if (o.critical_path == "queue" && o.gemm_ns < o.queue_depth * int64_t{6'000})
    throw UsageError(fmt::format("option --gemm with --queue-depth {} must be at least {} (the launches must fill the "
                                 "queue before the first GEMM ends)",
                                 o.queue_depth, o.queue_depth * int64_t{6'000}));
  // ... and the GEMMs queued behind the last launch must end within the 4 ms optimizer step.
  if (o.critical_path == "queue" && o.queue_depth * (o.gemm_ns + 2'000) > 4'000'000)
    throw UsageError(fmt::format("option --gemm with --queue-depth {} must be at most {} (the GEMMs queued behind the "
                                 "last launch must end within the 4 ms optimizer step)",
                                 o.queue_depth, 4'000'000 / o.queue_depth - 2'000));
  if (o.critical_path == "queue" && o.ops / o.steps <= o.queue_depth)
    throw UsageError(fmt::format("option --critical-path queue with --queue-depth {} needs more than {} ops per step",
                                 o.queue_depth, o.queue_depth));
  if (!o.critical_path.empty()) {
    if (o.steps == 0) throw UsageError("option --critical-path needs --steps");
    if (have_step_option || o.host_skew > 0 || o.merge > 0 || o.rpd_nodes > 0 || o.memsets > 0 || o.counters > 0 ||
        o.rpd_counters > 0 || !o.rocpd_version.empty())
      throw UsageError("option --critical-path combines with --out, --procs, --format, --ops, --seed and --steps only");
    if (o.ops < static_cast<int64_t>(o.steps) * 2)
      throw UsageError(fmt::format("option --critical-path with --steps {} needs --ops {} or more", o.steps, o.steps * 2));
    if (o.critical_path == "loader") {
      if (o.loader_rank < 0) {
        o.loader_rank = std::min(5, o.procs - 1);
        o.loader_ns = 3'000'000;
      }
      if (o.loader_rank >= o.procs)
        throw UsageError(fmt::format("option --loader names rank {}, but there are {} ranks", o.loader_rank, o.procs));
    }
  }
  if (o.apis_extra < 0) o.apis_extra = o.ops / 4;
  if (o.markers < 0) o.markers = o.ops / 50;
  return o;
}

int rank_node(const Options& options, int rank) { return options.rpd_nodes > 0 ? rank % options.rpd_nodes : rank / 2; }

Format file_format(const Options& options, int rank) {
  if (options.format == Format::Vendors) {
    static constexpr Format kVendorCycle[] = {Format::Rpd2, Format::Rocpd, Format::Nsys, Format::Kineto};
    return kVendorCycle[rank % 4];
  }
  if (options.format != Format::Mixed) return options.format;
  static constexpr Format kCycle[] = {Format::Rpd2, Format::Rpd3, Format::Rocpd};
  return kCycle[rank % 3];
}

}  // namespace rocpd_gen
