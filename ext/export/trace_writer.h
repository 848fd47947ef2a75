// What the exporter hands a trace file format: tracks, slices, flows and counters in the order
// they are read. One implementation per format (json_writer.h, pftrace_writer.h), so the reading
// in trace_export.cpp never branches on the format.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rocpd::exporter {

// Arguments shown in the viewer's details panel, and the flows bound to the slice.
struct EventArgs {
  std::optional<int64_t> correlation_id;
  std::optional<int64_t> op_id;
  std::optional<std::string_view> text;  // API call arguments (rpd)
  // Flows carried by the slice itself (writers whose flows_on_slices() is true): the ids of the
  // arrows leaving it, and of the arrow ending at it (0: none).
  std::span<const uint64_t> flows_out;
  uint64_t flow_in = 0;
  // A zero-length op ending an arrow is written as a 1 ns slice (viewers bind arrows to slices,
  // not to instants): its recorded duration, 0, goes with it as "recorded_dur_ns".
  std::optional<int64_t> recorded_dur;
};

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;

  virtual void begin() = 0;
  // Tracks: every pid and tid is unique in the file; a thread's tid may equal its pid.
  virtual void process(int64_t pid, std::string_view name, int64_t sort_index) = 0;
  virtual void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) = 0;
  // A slice of `dur_ns` > 0, or an instant when dur_ns is 0, on thread track `tid`.
  virtual void slice(int64_t pid, int64_t tid, std::string_view cat, std::string_view name, int64_t ts_ns,
                     int64_t dur_ns, const EventArgs& args) = 0;
  // The two ends of flow arrow `id`, for writers that write arrows as events of their own (in
  // any order): its start in the slice enclosing (pid, tid, from_ns), its end at the slice
  // starting at (pid, tid, to_ns).
  virtual void flow_begin(uint64_t id, int64_t pid, int64_t tid, int64_t from_ns) = 0;
  virtual void flow_end(uint64_t id, int64_t pid, int64_t tid, int64_t to_ns) = 0;
  virtual void counter(int64_t pid, std::string_view name, std::string_view series, int64_t ts_ns,
                       double value) = 0;
  // Ends the file; `other_data` (a JSON object of counts) where the format has room for it.
  virtual void end(std::string_view other_data) = 0;

  // True: flows go in EventArgs of slices (ids known before the slice is written), flow_begin()
  // and flow_end() are ignored. False: those write them and the EventArgs flow fields are ignored.
  virtual bool flows_on_slices() const = 0;
  // What the SQL function returns: the number of events (JSON) or packets (protobuf) written.
  virtual uint64_t events() const = 0;
};

}  // namespace rocpd::exporter
