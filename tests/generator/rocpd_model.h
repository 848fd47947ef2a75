// What rocprofv3's newer rocpd layouts record beyond ops and calls, derived from the canonical
// workload (pure functions, no SQLite): kernel resources, HIP event barriers, allocations, scratch,
// performance counters and SPM samples. The rocpd writer writes these rows and the ground truth
// sums the same values, so the truth never comes from reading files.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workload.h"

namespace rocpd_gen {

// The rocpd layout a file is written in (--rocpd-version, --counters).
struct RocpdFeatures {
  int patch = -1;        // -1: the generator's original schema-3 layout; else 3.0.<patch>
  std::string version;   // as given: "" / "3" / "3.0.x"
  int counters = 0;      // counters per kernel dispatch

  bool versioned() const { return patch >= 0; }      // .kd names, LDS = static + dynamic, allocations, scratch
  bool graphs() const { return patch >= 2; }         // graph_exec_id/graph_node_id, rocpd_graph_launch
  bool spm() const { return patch >= 3 && counters > 0; }  // SPM samples
  bool hip_events() const { return patch >= 4; }     // rocpd_hip_event
};

// Static resources of pool kernel k (rocpd_info_kernel_symbol).
struct KernelResources {
  int64_t kernarg_size, group_segment, private_segment, sgpr, arch_vgpr, accum_vgpr;
};
KernelResources kernel_resources(size_t kernel);

// rocpd_kernel_dispatch.group_segment_size of kernel op i: the launch's dynamic LDS, plus the
// kernel's static LDS in the versioned layouts (what the dispatch packet carries).
int64_t dispatch_group_segment(const ProcessTrace& trace, size_t op_index, const RocpdFeatures& features);

// One GPU barrier of hipEventRecord (RECORD) or hipStreamWaitEvent (WAIT): rocpd_hip_event.
struct HipEventBarrier {
  uint32_t call = 0;
  bool wait = false;
  uint16_t gpu = 0, queue = 0, source_queue = 0;  // source_queue == queue for RECORD
  uint64_t handle = 0;                            // the hipEvent_t
  int64_t start = 0, end = 0;
};
std::vector<HipEventBarrier> hip_event_barriers(const ProcessTrace& trace);

// Scratch (private segment) backing allocated at the first dispatch needing it on each queue.
struct ScratchAlloc {
  uint32_t op = 0;
  int64_t start = 0, end = 0;  // inside the launch call
  int64_t size = 0;
};
std::vector<ScratchAlloc> scratch_allocations(const ProcessTrace& trace);

// Performance counters: the first N of a fixed catalog of MI300X counters.
struct CounterInfo {
  std::string_view name, block, description;
  int dimensions;    // rows per dispatch (per-XCC values are reported separately; readers sum them)
  bool spm_support;
};
std::span<const CounterInfo> counter_catalog();
int64_t counter_id(int counter);  // rocpd_info_pmc.id
// Value of counter c, dimension d, for kernel op i (an integer, stored as REAL).
int64_t counter_value(const ProcessTrace& trace, size_t op_index, int counter, int dimension);
// The total of counter c over its dimensions for kernel op i: the one value an rpd file stores.
int64_t rpd_counter_value(const ProcessTrace& trace, size_t op_index, int counter);
// truth.json keys of --rpd-counters N: "counters" (rocpd_counter rows), "counter_sums".
std::vector<std::pair<std::string, std::string>> rpd_counter_truth(std::span<const ProcessTrace> processes, int counters);

// SPM: a few timestamps of the first kernel dispatches, one value per (sample, counter, position).
struct SpmSample {
  uint32_t op = 0;        // the dispatch
  int64_t timestamp = 0;
};
std::vector<SpmSample> spm_samples(const ProcessTrace& trace);
int spm_counter_count(const RocpdFeatures& features);  // the first min(2, N) counters
constexpr int kSpmPositions = 4;                        // (xcc, shader_engine) in {0,1} x {0,1}
int64_t spm_value(const ProcessTrace& trace, size_t sample_index, int counter, int position);

// The extra truth.json keys of a rocpd file (see docs/generator.md), as (key, JSON value) pairs.
std::vector<std::pair<std::string, std::string>> rocpd_truth(std::span<const ProcessTrace> processes,
                                                             const RocpdFeatures& features);

}  // namespace rocpd_gen
