#include "export/pftrace_writer.h"

#include "export/utf8.h"

namespace rocpd::exporter {

namespace {

// Field numbers of Perfetto's protos (google/perfetto, protos/perfetto/trace/):
// trace.proto: Trace.packet = 1.
constexpr uint32_t kTracePacket = 1;
// trace_packet.proto: TracePacket.timestamp = 8 (ns, the default clock), track_event = 11,
// trusted_packet_sequence_id = 10, sequence_flags = 13 (SEQ_INCREMENTAL_STATE_CLEARED = 1),
// track_descriptor = 60.
constexpr uint32_t kPacketTimestamp = 8, kPacketTrackEvent = 11, kPacketSequenceId = 10, kPacketSequenceFlags = 13,
                   kPacketTrackDescriptor = 60;
constexpr uint64_t kSeqIncrementalStateCleared = 1;
// track_event/track_descriptor.proto: TrackDescriptor.uuid = 1, name = 2, process = 3,
// thread = 4, parent_uuid = 5, counter = 8, child_ordering = 11 (EXPLICIT = 3),
// sibling_order_rank = 12.
constexpr uint32_t kTrackUuid = 1, kTrackName = 2, kTrackProcess = 3, kTrackThread = 4, kTrackParent = 5,
                   kTrackCounter = 8, kTrackChildOrdering = 11, kTrackSiblingRank = 12;
constexpr uint64_t kChildOrderingExplicit = 3;
// track_event/process_descriptor.proto: ProcessDescriptor.pid = 1, process_name = 6.
constexpr uint32_t kProcessPid = 1, kProcessName = 6;
// track_event/thread_descriptor.proto: ThreadDescriptor.pid = 1, tid = 2, thread_name = 5.
constexpr uint32_t kThreadPid = 1, kThreadTid = 2, kThreadName = 5;
// track_event/track_event.proto: TrackEvent.debug_annotations = 4, type = 9 (TYPE_SLICE_BEGIN = 1,
// TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4), track_uuid = 11, categories = 22,
// name = 23, double_counter_value = 44, flow_ids = 47 (fixed64), terminating_flow_ids = 48 (fixed64).
constexpr uint32_t kEventAnnotations = 4, kEventType = 9, kEventTrack = 11, kEventCategories = 22, kEventName = 23,
                   kEventDoubleCounter = 44, kEventFlowIds = 47, kEventTerminatingFlowIds = 48;
constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4;
// track_event/debug_annotation.proto: DebugAnnotation.name = 10, int_value = 4, string_value = 6.
constexpr uint32_t kAnnotationName = 10, kAnnotationInt = 4, kAnnotationString = 6;

// Track uuids: pids and tids are unique in the file (trace_export.cpp) but a main thread's tid
// equals its pid, so processes, threads and counters take separate ranges.
constexpr uint64_t kProcessUuids = uint64_t{1} << 40, kThreadUuids = uint64_t{2} << 40,
                   kCounterUuids = uint64_t{3} << 40;
uint64_t process_uuid(int64_t pid) { return kProcessUuids + static_cast<uint64_t>(pid); }
uint64_t thread_uuid(int64_t tid) { return kThreadUuids + static_cast<uint64_t>(tid); }

}  // namespace

void PftraceWriter::text(ProtoBuf& m, uint32_t field, std::string_view s) {
  const auto* u = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = ascii_prefix(u, s.size());
  while (i < s.size()) {
    const size_t k = utf8_len(u, i, s.size());
    if (!k) break;
    i += k;
  }
  if (i == s.size()) return m.bytes(field, s);  // valid: the usual case, no copy
  std::string clean(s.substr(0, i));
  while (i < s.size()) {
    if (const size_t k = utf8_len(u, i, s.size())) {
      clean.append(s.substr(i, k));
      i += k;
    } else {
      clean.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  m.bytes(field, clean);
}

void PftraceWriter::emit() {
  // The trusted sequence id: TrackEvents outside a sequence are dropped by trace processor.
  packet_.u64(kPacketSequenceId, 1);
  if (packets_ == 0) packet_.u64(kPacketSequenceFlags, kSeqIncrementalStateCleared);
  const std::string_view p = packet_.view();
  char* h = out_.reserve(11);
  *h = static_cast<char>((kTracePacket << 3) | kLengthDelimited);
  out_.advance(static_cast<size_t>(put_varint(h + 1, p.size()) - h));
  out_.write(p.data(), p.size());
  ++packets_;
}

void PftraceWriter::process(int64_t pid, std::string_view name, int64_t) {
  // Processes keep the order they appear in (the descriptors' order); their threads follow the
  // exporter's sort index (below).
  nested_.clear();
  nested_.i64(kProcessPid, pid);
  text(nested_, kProcessName, name);
  event_.clear();
  event_.u64(kTrackUuid, process_uuid(pid));
  event_.message(kTrackProcess, nested_);
  event_.u64(kTrackChildOrdering, kChildOrderingExplicit);
  packet_.clear();
  packet_.message(kPacketTrackDescriptor, event_);
  emit();
}

void PftraceWriter::thread(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) {
  nested_.clear();
  nested_.i64(kThreadPid, pid);
  nested_.i64(kThreadTid, tid);
  text(nested_, kThreadName, name);
  event_.clear();
  event_.u64(kTrackUuid, thread_uuid(tid));
  event_.u64(kTrackParent, process_uuid(pid));
  event_.message(kTrackThread, nested_);
  event_.i64(kTrackSiblingRank, static_cast<int32_t>(sort_index));
  packet_.clear();
  packet_.message(kPacketTrackDescriptor, event_);
  emit();
}

void PftraceWriter::slice(int64_t, int64_t tid, std::string_view cat, std::string_view name, int64_t ts_ns,
                          int64_t dur_ns, const EventArgs& args) {
  const uint64_t track = thread_uuid(tid);
  event_.clear();
  event_.u64(kEventType, dur_ns > 0 ? kSliceBegin : kInstant);
  event_.u64(kEventTrack, track);
  text(event_, kEventCategories, cat);
  text(event_, kEventName, name);
  auto annotation = [&](std::string_view key, auto&& value) {
    nested_.clear();
    nested_.bytes(kAnnotationName, key);
    value(nested_);
    event_.message(kEventAnnotations, nested_);
  };
  if (args.correlation_id) annotation("correlation_id", [&](ProtoBuf& m) { m.i64(kAnnotationInt, *args.correlation_id); });
  if (args.op_id) annotation("op_id", [&](ProtoBuf& m) { m.i64(kAnnotationInt, *args.op_id); });
  if (args.text) annotation("args", [&](ProtoBuf& m) { text(m, kAnnotationString, *args.text); });
  if (args.recorded_dur) annotation("recorded_dur_ns", [&](ProtoBuf& m) { m.i64(kAnnotationInt, *args.recorded_dur); });
  for (const uint64_t id : args.flows_out) event_.fixed64(kEventFlowIds, id);
  if (args.flow_in) event_.fixed64(kEventTerminatingFlowIds, args.flow_in);
  packet_.clear();
  packet_.u64(kPacketTimestamp, static_cast<uint64_t>(ts_ns));
  packet_.message(kPacketTrackEvent, event_);
  emit();
  if (dur_ns > 0) {
    // The end right after its begin: trace processor sorts packets by time, and an END closes
    // the innermost open slice of its track.
    event_.clear();
    event_.u64(kEventType, kSliceEnd);
    event_.u64(kEventTrack, track);
    packet_.clear();
    packet_.u64(kPacketTimestamp, static_cast<uint64_t>(ts_ns + dur_ns));
    packet_.message(kPacketTrackEvent, event_);
    emit();
  }
}

void PftraceWriter::counter(int64_t pid, std::string_view name, std::string_view, int64_t ts_ns, double value) {
  auto [it, fresh] = counters_.try_emplace({pid, std::string(name)}, kCounterUuids + counters_.size());
  if (fresh) {
    event_.clear();
    event_.u64(kTrackUuid, it->second);
    event_.u64(kTrackParent, process_uuid(pid));
    text(event_, kTrackName, name);
    nested_.clear();
    event_.message(kTrackCounter, nested_);  // an empty CounterDescriptor: a plain counter track
    packet_.clear();
    packet_.message(kPacketTrackDescriptor, event_);
    emit();
  }
  event_.clear();
  event_.u64(kEventType, kCounter);
  event_.u64(kEventTrack, it->second);
  event_.dbl(kEventDoubleCounter, value);
  packet_.clear();
  packet_.u64(kPacketTimestamp, static_cast<uint64_t>(ts_ns));
  packet_.message(kPacketTrackEvent, event_);
  emit();
}

}  // namespace rocpd::exporter
