// Perfetto's protobuf trace format (.pftrace): a Trace message written packet by packet into an
// OutFile (Trace { repeated TracePacket packet = 1 } is a concatenation of its packets), with
// TrackDescriptors for processes, threads, GPU queues and counters and TrackEvents for slices,
// instants, flows and counter values. Nothing is kept per event: memory holds one packet.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "export/out_file.h"
#include "export/proto_wire.h"
#include "export/trace_writer.h"

namespace rocpd::exporter {

class PftraceWriter final : public TraceWriter {
 public:
  explicit PftraceWriter(OutFile& out) : out_(out) {}

  void begin() override {}
  void process(int64_t pid, std::string_view name, int64_t sort_index) override;
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) override;
  // TYPE_SLICE_BEGIN and TYPE_SLICE_END packets (protobuf TrackEvents have no complete event),
  // or one TYPE_INSTANT packet when dur_ns is 0.
  void slice(int64_t pid, int64_t tid, std::string_view cat, std::string_view name, int64_t ts_ns, int64_t dur_ns,
             const EventArgs& args) override;
  void flow_begin(uint64_t, int64_t, int64_t, int64_t) override {}
  void flow_end(uint64_t, int64_t, int64_t, int64_t) override {}
  void counter(int64_t pid, std::string_view name, std::string_view series, int64_t ts_ns, double value) override;
  void end(std::string_view) override {}

  bool flows_on_slices() const override { return true; }
  uint64_t events() const override { return packets_; }

 private:
  // Writes packet_ (plus the sequence id) as one `packet` field of Trace.
  void emit();
  // `s` as a string field, invalid UTF-8 replaced by U+FFFD.
  static void text(ProtoBuf& m, uint32_t field, std::string_view s);

  OutFile& out_;
  uint64_t packets_ = 0;
  ProtoBuf packet_, event_, nested_;  // reused: no allocation per event
  std::map<std::pair<int64_t, std::string>, uint64_t> counters_;  // (pid, name) -> track uuid
};

}  // namespace rocpd::exporter
