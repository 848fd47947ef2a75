#include "options.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

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
  return "usage: rocpd_gen --out DIR --procs N --format rpd2|rpd3|rocpd|mixed --ops N --seed S\n"
         "                 [--gpus G] [--queues Q] [--sessions K] [--apis-extra N] [--markers N]\n"
         "\n"
         "Writes N per-process GPU traces into DIR (created; existing files are never overwritten):\n"
         "rank<i>.rpd for rpd2/rpd3, rank<i>.db for rocpd; mixed uses [rpd2, rpd3, rocpd][i % 3].\n"
         "DIR/truth.json holds the ground truth (counts, sums, per-gpu busy time).\n"
         "\n"
         "  --out DIR         output directory\n"
         "  --procs N         number of processes (files), 1..100000\n"
         "  --format F        rpd2 | rpd3 | rocpd | mixed\n"
         "  --ops N           GPU ops per process, 1..100000000\n"
         "  --seed S          workload seed; same seed and sizes give the same workload in every format\n"
         "  --gpus G          GPUs per process (default 4), 1..64\n"
         "  --queues Q        queues per GPU (default 2), 1..64\n"
         "  --sessions K      rank0's rpd file holds K sessions (default 1), 1..64; rpd formats only\n"
         "  --apis-extra N    API calls without ops per process (default ops/4)\n"
         "  --markers N       roctx markers per process (default ops/50)\n"
         "  --help            this text\n";
}

Options parse_options(const std::vector<std::string_view>& args) {
  Options o;
  bool have_out = false, have_procs = false, have_format = false, have_ops = false, have_seed = false;
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
                                                  "--markers"};
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
      else if (value == "mixed") o.format = Format::Mixed;
      else throw UsageError(fmt::format("option --format must be rpd2, rpd3, rocpd or mixed, got '{}'", value));
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
    }
  }
  if (!have_out) throw UsageError("missing required option --out");
  if (!have_procs) throw UsageError("missing required option --procs");
  if (!have_format) throw UsageError("missing required option --format");
  if (!have_ops) throw UsageError("missing required option --ops");
  if (!have_seed) throw UsageError("missing required option --seed");
  if (o.sessions > 1 && o.format == Format::Rocpd)
    throw UsageError("option --sessions applies to rpd files only (rocpd files hold one process each)");
  if (o.apis_extra < 0) o.apis_extra = o.ops / 4;
  if (o.markers < 0) o.markers = o.ops / 50;
  return o;
}

Format file_format(const Options& options, int rank) {
  if (options.format != Format::Mixed) return options.format;
  static constexpr Format kCycle[] = {Format::Rpd2, Format::Rpd3, Format::Rocpd};
  return kCycle[rank % 3];
}

}  // namespace rocpd_gen
