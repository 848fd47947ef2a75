// Chrome trace-event JSON (the "JSON Object Format" that Perfetto UI, chrome://tracing and
// speedscope open), written straight into an OutFile: one event per line, no DOM.
#pragma once
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "export/out_file.h"
#include "export/trace_writer.h"

namespace rocpd::exporter {

class JsonWriter final : public TraceWriter {
 public:
  explicit JsonWriter(OutFile& out) : out_(out) {}

  void begin() override;
  // Metadata events "M": process_name, process_sort_index, thread_name, thread_sort_index.
  void process(int64_t pid, std::string_view name, int64_t sort_index) override;
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) override;
  // A complete event ("X") of `dur_ns` > 0, or an instant ("i", thread scope) when dur_ns is 0.
  void slice(int64_t pid, int64_t tid, std::string_view cat, std::string_view name, int64_t ts_ns, int64_t dur_ns,
             const EventArgs& args) override;
  // Flow events "s" and "f" (binding point "e") of one id.
  void flow_begin(uint64_t id, int64_t pid, int64_t tid, int64_t from_ns) override;
  void flow_end(uint64_t id, int64_t pid, int64_t tid, int64_t to_ns) override;
  void counter(int64_t pid, std::string_view name, std::string_view series, int64_t ts_ns, double value) override;
  // Closes the event array and writes `other_data` (a JSON object) as "otherData".
  void end(std::string_view other_data) override;

  bool flows_on_slices() const override { return false; }
  uint64_t events() const override { return events_; }

 private:
  void sep() {
    if (events_++) out_.write(",\n", 2);
  }
  void str(std::string_view s);  // a JSON string literal, invalid UTF-8 replaced by U+FFFD
  void i64(int64_t v) {
    char* p = out_.reserve(24);
    out_.advance(static_cast<size_t>(std::to_chars(p, p + 24, v).ptr - p));
  }
  void u64(uint64_t v) {
    char* p = out_.reserve(24);
    out_.advance(static_cast<size_t>(std::to_chars(p, p + 24, v).ptr - p));
  }
  void us(int64_t ns);  // nanoseconds as exact microseconds: 1234.567
  void lit(std::string_view s) { out_.write(s.data(), s.size()); }

  // `,"pid":P,"tid":T` of the last event written through it: events come in runs on one track,
  // so the numbers are formatted once per run.
  struct TrackText {
    int64_t pid = 0, tid = 0;
    bool valid = false;
    size_t len = 0;
    char text[64];
  };
  static char* put_track(char* p, TrackText& cache, int64_t pid, int64_t tid);
  // A timestamp as put_us writes it: the digits above the last four microsecond digits are those
  // of the previous timestamp (events come in time order per track), formatted once.
  char* put_ts(char* p, int64_t ns);

  OutFile& out_;
  uint64_t events_ = 0;
  TrackText slice_track_, flow_from_, flow_to_;
  uint64_t ts_high_ = UINT64_MAX;  // put_ts: the digits cached
  size_t ts_high_len_ = 0;
  char ts_high_text_[24];
};

}  // namespace rocpd::exporter
