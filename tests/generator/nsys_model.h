// How the canonical workload appears in an Nsight Systems export (pure functions, no SQLite): the
// CUDA names of the calls, the ids nsys packs, the memsets an nsys file adds (--memsets), and the
// ground truth of such a file. write_nsys.cpp writes these rows; the truth sums the same values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "truth.h"
#include "workload.h"

namespace rocpd_gen {

// A call as CUPTI records it: its function name (with the version suffix CUDA exports it under)
// and its event class (0 runtime, 1 driver).
struct CudaCall {
  std::string_view name;
  int event_class;
};
CudaCall cuda_call(HostApi api);
// The call's name as nsys stats (and the extension) show it: a six-character `_v` suffix cut.
std::string_view cuda_display_name(std::string_view recorded);

// Serialized GlobalIds: hardware id 1 in bits 48.., pid in bits 24..47, tid in bits 0..23.
int64_t global_pid(int64_t pid);
int64_t global_tid(int64_t pid, uint32_t tid);
// CUDA stream of a workload queue (streams are per gpu, as queues are).
int64_t cuda_stream(int queue);
// Registers per thread nsys records for pool kernel k.
int64_t registers_per_thread(size_t kernel);

// A cudaMemsetAsync and the memset it issued (--memsets N: N per process, added to the workload's
// ops in nsys files only). Its call gets correlation id calls.size() + 1 + index.
struct Memset {
  int64_t start = 0, end = 0;            // the memset on the gpu
  int64_t call_start = 0, call_end = 0;  // the call on the main thread
  int64_t bytes = 0;
  uint16_t gpu = 0, queue = 0;
  int mem_kind = 2;                      // ENUM_CUDA_MEM_KIND: 2 device, 4 managed
};
std::vector<Memset> nsys_memsets(const ProcessTrace& trace, int count);

// The CUPTI synchronization record a call leaves (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION syncType: 1
// event, 2 stream wait event, 3 stream, 4 context synchronize; 0: none) and the name the extension
// gives it (PyTorch's profiler's: 'Event Sync', 'Stream Wait Event', 'Stream Sync', 'Context Sync').
int nsys_sync_type(HostApi api);
std::string_view nsys_sync_name(int sync_type);

// How each NVTX marker call is written: a registered string (textId) or inline text.
bool nvtx_registered(const ProcessTrace& trace, size_t call_index);

// The truth of an nsys file written from `traces` with `memsets` per process: the generic keys
// with the CUDA call names and the memsets folded in, plus the nsys keys (docs/generator.md).
void nsys_truth(FileTruth& truth, std::span<const ProcessTrace> traces, int memsets);

}  // namespace rocpd_gen
