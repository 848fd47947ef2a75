// rocpd_gen: writes a job of synthetic GPU traces (rpd schema 2/3, rocpd schema 3) plus the
// ground truth they were generated from. See docs/generator.md.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "json_text.h"
#include "options.h"
#include "random.h"
#include "rocpd_model.h"
#include "truth.h"
#include "critical_shapes.h"
#include "diag_truth.h"
#include "step_schedule.h"
#include "workload.h"
#include "write_rocpd.h"
#include "write_rocpd4.h"
#include "write_rocprofsys.h"
#include "write_kineto.h"
#include "write_nsys.h"
#include "nsys_model.h"
#include "write_rpd.h"

namespace fs = std::filesystem;
using namespace rocpd_gen;

namespace {

struct FilePlan {
  std::vector<int> ranks;  // one, or the K ranks of a merged file
  Format format;
  fs::path path;
  std::string file_name;
  std::string db;
};

std::vector<FilePlan> plan_files(const Options& o) {
  std::vector<FilePlan> plan;
  if (o.merge > 0) {
    for (int first = 0, j = 0; first < o.procs; first += o.merge, ++j) {
      FilePlan p{{}, Format::Rocpd, {}, fmt::format("merged{}.db", j), fmt::format("merged{}", j)};
      for (int rank = first; rank < std::min(o.procs, first + o.merge); ++rank) p.ranks.push_back(rank);
      p.path = fs::path(o.out) / p.file_name;
      plan.push_back(std::move(p));
    }
    return plan;
  }
  for (int rank = 0; rank < o.procs; ++rank) {
    const Format f = file_format(o, rank);
    const char* ext = f == Format::Rpd2 || f == Format::Rpd3 ? "rpd"
                      : f == Format::Nsys                    ? "sqlite"
                      : f == Format::Kineto                  ? "json"
                                                             : "db";
    const std::string name = fmt::format("rank{}.{}", rank, ext);
    plan.push_back({{rank}, f, fs::path(o.out) / name, name, fmt::format("rank{}", rank)});
  }
  return plan;
}

int sessions_of(const Options& o, const FilePlan& plan, int rank) {
  return (rank == 0 && (plan.format == Format::Rpd2 || plan.format == Format::Rpd3 || plan.format == Format::Nsys))
             ? o.sessions
             : 1;
}

// The clock offset of a node's host: 0 for node 0, else within [-skew, skew] (deterministic).
int64_t node_clock_offset(const Options& o, int node) {
  if (o.host_skew == 0 || node == 0) return 0;
  const uint64_t span = static_cast<uint64_t>(o.host_skew) * 2 + 1;
  return static_cast<int64_t>(mix64(o.seed ^ (0x736b6577ULL + static_cast<uint64_t>(node))) % span) - o.host_skew;
}

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]";
}

// Generates, writes and summarises one file.
FileTruth produce_file(const Options& o, const WorkloadParams& params, const FilePlan& plan,
                       const StepInstances* step_instances) {
  std::vector<ProcessTrace> traces;
  const ShapeParams shape{o.critical_path, o.seed,        o.procs,       o.steps,
                          o.ops,           o.loader_rank, o.loader_ns,   o.queue_depth,
                          o.gemm_ns};
  for (int rank : plan.ranks)
    for (int s = 0; s < sessions_of(o, plan, rank); ++s) {
      traces.push_back(o.critical_path.empty() ? generate_process(params, rank, s) : shape_process(shape, rank));
      if (o.host_skew > 0) apply_clock_offset(traces.back(), node_clock_offset(o, traces.back().node));
    }

  FileTruth truth = compute_truth(traces);
  truth.file = plan.file_name;
  truth.db = plan.db;
  if (plan.format == Format::Rocpd) {
    std::vector<RocpdIdentity> identities;
    for (const ProcessTrace& t : traces) identities.push_back(rocpd_identity(o.seed, t));
    RocpdFeatures features;
    features.patch = o.rocpd_patch;
    features.version = o.rocpd_version;
    features.counters = o.counters;
    write_rocpd(plan.path, traces, identities, features);
    truth.format = "rocpd";
    truth.schema_version = 3;
    if (identities.size() == 1) truth.uuid = identities[0].guid;
    if (o.merge > 0) {
      std::vector<std::string> uuids, hostnames;
      for (size_t i = 0; i < traces.size(); ++i) {
        uuids.push_back(json_string(identities[i].guid));
        hostnames.push_back(json_string(traces[i].hostname));
      }
      truth.extra.emplace_back("uuids", json_list(uuids));
      truth.extra.emplace_back("hostnames", json_list(hostnames));
    }
    for (auto& kv : rocpd_truth(traces, features)) truth.extra.push_back(std::move(kv));
  } else if (plan.format == Format::Rocpd4) {
    const RocpdIdentity identity = rocpd_identity(o.seed, traces.front());
    write_rocpd4(plan.path, traces.front(), identity);
    truth.format = "rocpd";
    truth.schema_version = 4;
    truth.uuid = identity.guid;
    RocpdFeatures features;  // the truth keys of the versioned 3.0.x rows (no graphs, HIP events or counters)
    features.patch = 0;
    features.version = "4.1.0";
    for (auto& kv : rocpd_truth(traces, features)) truth.extra.push_back(std::move(kv));
  } else if (plan.format == Format::Nsys) {
    write_nsys(plan.path, traces, o.memsets, o.nsys_schema);
    nsys_truth(truth, traces, o.memsets);
    truth.format = "nsys";
    truth.schema_version = o.nsys_schema == 2022 ? 2 : 3;
  } else if (plan.format == Format::Kineto) {
    for (auto& kv : write_kineto(plan.path, traces, o.kineto_version)) truth.extra.push_back(std::move(kv));
    truth.format = "kineto";
    truth.schema_version = 1;  // the trace's schemaVersion
  } else if (plan.format == Format::Rocprofsys) {
    write_rocprofsys(plan.path, traces.front());
    truth.format = "rocpd";
    truth.schema_version = 3;
    truth.uuid = rocprofsys_upid(traces.front());
    truth.extra.emplace_back("writer", "\"rocprofiler-systems\"");
    RocpdFeatures features;  // kernel and allocation keys as for 3.0.x
    features.patch = 0;
    for (auto& kv : rocpd_truth(traces, features)) truth.extra.push_back(std::move(kv));
    truth.extra.emplace_back("metric_samples", std::to_string(traces.front().gpus * kRocprofsysMetricSamplesPerGpu));
  } else {
    const int version = plan.format == Format::Rpd2 ? 2 : 3;
    write_rpd(plan.path, version, traces, o.rpd_nodes > 0, o.rpd_counters);
    truth.format = "rpd";
    truth.schema_version = version;
    if (version == 3 && o.rpd_counters > 0)
      for (auto& kv : rpd_counter_truth(traces, o.rpd_counters)) truth.extra.push_back(std::move(kv));
  }
  if (o.rpd_nodes > 0 || o.host_skew > 0) {
    if (traces.size() == 1 || plan.ranks.size() == 1) {
      truth.extra.emplace_back("node", std::to_string(traces[0].node));
    } else {
      std::vector<std::string> nodes;
      for (const ProcessTrace& t : traces) nodes.push_back(std::to_string(t.node));
      truth.extra.emplace_back("nodes", json_list(nodes));
    }
  }
  if (o.host_skew > 0) {
    if (plan.ranks.size() == 1) {
      truth.extra.emplace_back("clock_offset_ns", std::to_string(traces[0].clock_offset));
    } else {
      std::vector<std::string> offsets;
      for (const ProcessTrace& t : traces) offsets.push_back(std::to_string(t.clock_offset));
      truth.extra.emplace_back("clock_offsets_ns", json_list(offsets));
    }
    if (params.final_collective) truth.extra.emplace_back("collective_end_true_ns", std::to_string(params.collective_end));
  }
  if (params.diagnosis) truth.extra.emplace_back("diagnosis", diagnosis_truth_json(traces));
  if (step_instances) truth.extra.emplace_back("steps", step_truth_json(params, *step_instances, plan.ranks));
  if (!o.critical_path.empty()) truth.extra.emplace_back("critical_path", shape_truth_json(shape, plan.ranks.front()));
  return truth;
}

// Runs body(i) for i in [0, n) on up to 8 threads; the first exception is rethrown as a message.
template <typename Body>
void parallel_for(size_t n, Body body) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string first_error;
  auto worker = [&] {
    for (size_t i = next++; i < n && !failed; i = next++) {
      try {
        body(i);
      } catch (const std::exception& e) {
        std::lock_guard lock(error_mutex);
        if (!failed.exchange(true)) first_error = e.what();
      }
    }
  };
  const size_t thread_count = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(thread_count, n); ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (failed) throw std::runtime_error(first_error);
}

int run(const Options& o) {
  const std::vector<FilePlan> plan = plan_files(o);
  const fs::path truth_path = fs::path(o.out) / "truth.json";
  // Refuse before writing anything, so a rerun into a used directory changes nothing.
  for (const FilePlan& f : plan)
    if (fs::exists(f.path)) throw std::runtime_error(fmt::format("refusing to overwrite existing file '{}'", f.path.string()));
  if (fs::exists(truth_path))
    throw std::runtime_error(fmt::format("refusing to overwrite existing file '{}'", truth_path.string()));
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec || !fs::is_directory(o.out))
    throw std::runtime_error(fmt::format("cannot create output directory '{}': {}", o.out, ec ? ec.message() : "not a directory"));

  WorkloadParams params;
  params.seed = o.seed;
  params.ops = o.ops;
  params.gpus = o.gpus;
  params.queues = o.queues;
  params.apis_extra = o.apis_extra;
  params.markers = o.markers;
  params.graphs = o.rocpd_patch >= 2;
  params.paired_frees = o.rocpd_patch >= 0 || o.format == Format::Rocpd4 || o.format == Format::Rocprofsys;
  params.nodes = o.rpd_nodes;
  // With --steps the scheduled collectives replace the final one (docs/generator.md).
  params.final_collective = o.host_skew > 0 && o.steps == 0;
  params.diagnosis = o.diagnosis;
  params.edge_cases = o.diagnosis_edges;
  params.steps = o.steps;
  params.step_collectives = o.steps > 0 ? o.step_collectives : 0;
  params.collective_jitter = o.collective_jitter;
  params.straggler_rank = o.straggler_rank;
  params.straggler_delay = o.straggler_delay;
  params.straggler_pct = o.straggler_pct;
  std::optional<StepInstances> step_instances;
  if (params.steps > 0 && o.critical_path.empty()) {
    // First pass: when each rank is ready for each collective, relative to its step's start;
    // then the job's schedule, which the second pass places every collective on.
    std::vector<StepProbe> probes(static_cast<size_t>(o.procs));
    parallel_for(probes.size(), [&](size_t rank) {
      ProcessTrace t = generate_process(params, static_cast<int>(rank), 0);
      probes[rank] = {std::move(t.step_ready_rel), std::move(t.step_host_rel), std::move(t.step_compute_end_rel)};
    });
    StepSchedule schedule = plan_step_schedule(params, probes);
    params.step_starts = std::move(schedule.step_starts);
    params.collective_ready = std::move(schedule.ready);
    params.collective_ends = std::move(schedule.ends);
    step_instances = rocpd_gen::step_instances(params, o.procs);
  }

  if (params.final_collective) {
    // First pass: when each process launches its final collective (true time). The collective
    // ends once the last one has arrived, at the same true time everywhere.
    std::vector<int64_t> arrivals(plan.size(), 0);
    parallel_for(plan.size(), [&](size_t i) {
      for (int rank : plan[i].ranks)
        for (int s = 0; s < sessions_of(o, plan[i], rank); ++s) {
          const ProcessTrace t = generate_process(params, rank, s);
          arrivals[i] = std::max(arrivals[i], t.ops[static_cast<size_t>(t.collective_op)].start);
        }
    });
    params.collective_end = *std::max_element(arrivals.begin(), arrivals.end()) + 50'000;
  }

  // Files are independent: write them in parallel; each result lands in its own slot, so the
  // output does not depend on scheduling.
  std::vector<FileTruth> truths(plan.size());
  try {
    parallel_for(plan.size(), [&](size_t i) {
      truths[i] = produce_file(o, params, plan[i], step_instances ? &*step_instances : nullptr);
    });
  } catch (const std::exception&) {
    // Leave no half-written job behind: every file of the plan is new (checked above).
    for (const FilePlan& f : plan) fs::remove(f.path, ec);
    throw;
  }

  std::ofstream out(truth_path, std::ios::binary);
  out << truth_json({o.seed, o.format_name, o.procs}, truths);
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", truth_path.string()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_options(std::vector<std::string_view>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "rocpd_gen: %s\n(run 'rocpd_gen --help' for usage)\n", e.what());
    return 2;
  }
  if (options.help) {
    std::fwrite(usage_text().data(), 1, usage_text().size(), stdout);
    return 0;
  }
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rocpd_gen: %s\n", e.what());
    return 1;
  }
}
