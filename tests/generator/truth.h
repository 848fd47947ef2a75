// Ground truth: the numbers a correct reader must find in the generated files, computed from the
// canonical workload in memory (never by querying the files).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "workload.h"

namespace rocpd_gen {

struct NameTotals {
  std::string name;
  std::string kind;  // "kernel" | "copy" for ops; empty for API calls and markers
  int64_t calls = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
};

struct GpuTruth {
  int gpu = 0;
  int64_t ops = 0;
  int64_t sum_ns = 0;
  int64_t busy_ns = 0;         // length of the union of the op intervals [start, end)
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  int64_t busy_intervals = 0;  // connected components of that union (empty ops add nothing)
};

struct FileTruth {
  // Identity: the only fields that differ between formats of one workload.
  std::string file;
  std::string db;
  std::string format;  // "rpd" | "rocpd"
  int schema_version = 0;
  std::optional<std::string> uuid;  // rocpd only: the process UUID with dashes (the guid)

  std::string hostname;
  std::vector<int64_t> pids;  // one per session
  int64_t first_ns = 0;       // over ops, API calls and markers
  int64_t last_ns = 0;
  int64_t ops = 0;
  int64_t apis = 0;     // API calls, markers excluded
  int64_t markers = 0;  // marker ranges and marks
  int64_t kernels = 0;
  int64_t copies = 0;
  int64_t ops_sum_ns = 0;
  int64_t apis_sum_ns = 0;
  std::vector<GpuTruth> gpus;       // gpus with at least one op, ascending
  std::vector<NameTotals> top;      // ops by (name, kind); copies named by rpd opType
  std::vector<NameTotals> api_top;  // API calls by name
  std::vector<NameTotals> marker_top;  // markers by message
  // Keys that only options add (docs/generator.md), written after marker_top in this order:
  // (key, JSON value).
  std::vector<std::pair<std::string, std::string>> extra;
};

// Totals of the processes (sessions) written into one file.
FileTruth compute_truth(std::span<const ProcessTrace> sessions);

struct JobTruthHeader {
  uint64_t seed = 0;
  std::string format;  // the --format argument
  int procs = 0;
};

// The truth.json document (stable key order, one file per line group; see docs/generator.md).
std::string truth_json(const JobTruthHeader& header, std::span<const FileTruth> files);

// Length and component count of the union of half-open intervals (sorted in place).
struct UnionLength {
  int64_t length = 0;
  int64_t components = 0;
};
UnionLength interval_union(std::vector<std::pair<int64_t, int64_t>>& intervals);

}  // namespace rocpd_gen
