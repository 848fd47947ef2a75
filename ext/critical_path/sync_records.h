// What the formats record of a synchronisation beside the call itself: the `cuda_sync` rows of
// rocpd_apis (Nsight Systems' CUPTI_ACTIVITY_KIND_SYNCHRONIZATION records, the PyTorch profiler's
// `cuda_sync` events), whose args name the call that synchronised (`call`), the stream it
// synchronised or made wait (`stream`, on `device`) and, for an event, the stream the event was
// recorded on (`event_stream`) and the call that recorded it (`event_call`) where the format has
// them (docs/formats.md). The critical path uses them before its rules by name and timing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "critical_path/member_graph.h"

namespace rocpd::critical_path {

enum class SyncKind : uint8_t { StreamSync, EventSync, ContextSync, StreamWaitEvent, Other };

struct SyncRecord {
  SyncKind kind = SyncKind::Other;
  uint32_t call = kNone;        // the call that synchronised (index into Graph::cpu)
  uint32_t event_call = kNone;  // the call that recorded the event (kNone: not recorded)
  std::optional<int64_t> stream, device, event_stream;
};

// Reads the member's `cuda_sync` rows. `calls` maps a correlation id to the call holding it (the
// synchronize, event record and stream wait calls of the graph); rows naming no such call are
// left out.
std::vector<SyncRecord> read_sync_records(const canonical::Member& m, sqlite3* conn,
                                          const std::unordered_map<int64_t, uint32_t>& calls,
                                          const std::function<void()>& tick);

}  // namespace rocpd::critical_path
