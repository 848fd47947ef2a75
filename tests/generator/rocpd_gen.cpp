// rocpd_gen: writes a job of synthetic GPU traces (rpd schema 2/3, rocpd schema 3) plus the
// ground truth they were generated from. See docs/generator.md.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "options.h"
#include "truth.h"
#include "workload.h"
#include "write_rocpd.h"
#include "write_rpd.h"

namespace fs = std::filesystem;
using namespace rocpd_gen;

namespace {

struct FilePlan {
  int rank;
  Format format;
  fs::path path;
  std::string file_name;
};

std::vector<FilePlan> plan_files(const Options& o) {
  std::vector<FilePlan> plan;
  for (int rank = 0; rank < o.procs; ++rank) {
    const Format f = file_format(o, rank);
    const std::string name = fmt::format("rank{}.{}", rank, f == Format::Rocpd ? "db" : "rpd");
    plan.push_back({rank, f, fs::path(o.out) / name, name});
  }
  return plan;
}

// Generates, writes and summarises the file of one rank.
FileTruth produce_file(const Options& o, const WorkloadParams& params, const FilePlan& plan) {
  const int sessions = (plan.rank == 0 && plan.format != Format::Rocpd) ? o.sessions : 1;
  std::vector<ProcessTrace> traces;
  for (int s = 0; s < sessions; ++s) traces.push_back(generate_process(params, plan.rank, s));

  FileTruth truth = compute_truth(traces);
  truth.file = plan.file_name;
  truth.db = fmt::format("rank{}", plan.rank);
  if (plan.format == Format::Rocpd) {
    const RocpdIdentity identity = rocpd_identity(o.seed, traces.front());
    write_rocpd(plan.path, traces.front(), identity);
    truth.format = "rocpd";
    truth.schema_version = 3;
    truth.uuid = identity.guid;
  } else {
    const int version = plan.format == Format::Rpd2 ? 2 : 3;
    write_rpd(plan.path, version, traces);
    truth.format = "rpd";
    truth.schema_version = version;
  }
  return truth;
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

  // Files are independent: write them in parallel; each result lands in its own slot, so the
  // output does not depend on scheduling.
  std::vector<FileTruth> truths(plan.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string first_error;
  auto worker = [&] {
    for (size_t i = next++; i < plan.size() && !failed; i = next++) {
      try {
        truths[i] = produce_file(o, params, plan[i]);
      } catch (const std::exception& e) {
        std::lock_guard lock(error_mutex);
        if (!failed.exchange(true)) first_error = e.what();
      }
    }
  };
  const size_t thread_count = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<std::thread> threads;
  for (size_t t = 1; t < std::min(thread_count, plan.size()); ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (failed) {
    // Leave no half-written job behind: every file of the plan is new (checked above).
    for (const FilePlan& f : plan) fs::remove(f.path, ec);
    throw std::runtime_error(first_error);
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
