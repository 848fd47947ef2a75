#include "export/json_writer.h"

#include <cstring>

#include "export/utf8.h"

namespace rocpd::exporter {

void JsonWriter::begin() { lit("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"); }

void JsonWriter::end(std::string_view other_data) {
  lit("\n],\"otherData\":");
  lit(other_data);
  lit("}\n");
}

namespace {

// Writers into space reserved beforehand (OutFile::reserve): one bounds check per event.
char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}
char* put_i64(char* p, int64_t v) { return std::to_chars(p, p + 24, v).ptr; }
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
// The three decimals of `frac` (< 1000) after a point, trailing zeros dropped; none for 0.
char* put_fraction(char* p, unsigned frac) {
  if (!frac) return p;
  p[0] = '.';
  p[1] = static_cast<char>('0' + frac / 100);
  std::memcpy(p + 2, kDigitPairs + 2 * (frac % 100), 2);
  p += 4;
  while (p[-1] == '0') --p;  // 1.500 -> 1.5
  return p;
}
// Nanoseconds as exact microseconds: 1234.567 (at most 25 bytes).
char* put_us(char* p, int64_t ns) {
  uint64_t mag = static_cast<uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    mag = 0 - mag;  // exact for INT64_MIN too
  }
  p = std::to_chars(p, p + 24, mag / 1000).ptr;
  return put_fraction(p, static_cast<unsigned>(mag % 1000));
}
bool plain(std::string_view s) {
  return json_plain_prefix(reinterpret_cast<const unsigned char*>(s.data()), s.size()) == s.size();
}
// An event whose strings need no escaping, at most this long, is written in one piece.
constexpr size_t kFixedPart = 320;
constexpr size_t kOnePiece = 64 * 1024;

}  // namespace

char* JsonWriter::put_track(char* p, TrackText& cache, int64_t pid, int64_t tid) {
  if (!cache.valid || cache.pid != pid || cache.tid != tid) {
    char* q = put(cache.text, ",\"pid\":");
    q = put_i64(q, pid);
    q = put(q, ",\"tid\":");
    q = put_i64(q, tid);
    cache.pid = pid;
    cache.tid = tid;
    cache.valid = true;
    cache.len = static_cast<size_t>(q - cache.text);
  }
  std::memcpy(p, cache.text, cache.len);
  return p + cache.len;
}

char* JsonWriter::put_ts(char* p, int64_t ns) {
  const uint64_t us = static_cast<uint64_t>(ns) / 1000;
  const uint64_t high = us / 10000;
  if (ns < 0 || high == 0) return put_us(p, ns);
  if (high != ts_high_) {
    ts_high_ = high;
    ts_high_len_ = static_cast<size_t>(std::to_chars(ts_high_text_, ts_high_text_ + 24, high).ptr - ts_high_text_);
  }
  std::memcpy(p, ts_high_text_, ts_high_len_);
  p += ts_high_len_;
  const unsigned low = static_cast<unsigned>(us % 10000);
  std::memcpy(p, kDigitPairs + 2 * (low / 100), 2);
  std::memcpy(p + 2, kDigitPairs + 2 * (low % 100), 2);
  return put_fraction(p + 4, static_cast<unsigned>(static_cast<uint64_t>(ns) % 1000));
}

void JsonWriter::us(int64_t ns) {
  char* p = out_.reserve(32);
  out_.advance(static_cast<size_t>(put_us(p, ns) - p));
}

void JsonWriter::str(std::string_view sv) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
  const size_t n = sv.size();
  out_.put('"');
  size_t run = 0;  // start of the pending run of bytes copied as they are
  size_t i = 0;
  while (i < n) {
    i += json_plain_prefix(s + i, n - i);
    if (i == n) break;
    const unsigned c = s[i];
    if (c >= 0x80) {
      if (const size_t k = utf8_len(s, i, n)) {
        i += k;
        continue;
      }
    }
    out_.write(sv.data() + run, i - run);
    if (c == '"') {
      lit("\\\"");
    } else if (c == '\\') {
      lit("\\\\");
    } else if (c >= 0x80) {
      lit("\\ufffd");
    } else if (c == '\n') {
      lit("\\n");
    } else if (c == '\t') {
      lit("\\t");
    } else {
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out_.write(esc, 6);
    }
    run = ++i;
  }
  out_.write(sv.data() + run, n - run);
  out_.put('"');
}

void JsonWriter::process(int64_t pid, std::string_view name, int64_t sort_index) {
  sep();
  lit("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
  i64(pid);
  lit(",\"args\":{\"name\":");
  str(name);
  lit("}}");
  sep();
  lit("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
  i64(pid);
  lit(",\"args\":{\"sort_index\":");
  i64(sort_index);
  lit("}}");
}

void JsonWriter::thread(int64_t pid, int64_t tid, std::string_view name, int64_t sort_index) {
  sep();
  lit("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":");
  i64(pid);
  lit(",\"tid\":");
  i64(tid);
  lit(",\"args\":{\"name\":");
  str(name);
  lit("}}");
  sep();
  lit("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":");
  i64(pid);
  lit(",\"tid\":");
  i64(tid);
  lit(",\"args\":{\"sort_index\":");
  i64(sort_index);
  lit("}}");
}

void JsonWriter::slice(int64_t pid, int64_t tid, std::string_view cat, std::string_view name, int64_t ts_ns,
                       int64_t dur_ns, const EventArgs& args) {
  const size_t text = args.text ? args.text->size() : 0;
  const size_t need = kFixedPart + cat.size() + name.size() + text;
  if (need <= kOnePiece && plain(cat) && plain(name) && (!args.text || plain(*args.text))) {
    char* const start = out_.reserve(need);
    char* p = start;
    if (events_++) p = put(p, ",\n");
    p = put(p, dur_ns > 0 ? "{\"ph\":\"X\"" : "{\"ph\":\"i\",\"s\":\"t\"");
    p = put_track(p, slice_track_, pid, tid);
    p = put(p, ",\"ts\":");
    p = put_ts(p, ts_ns);
    if (dur_ns > 0) {
      p = put(p, ",\"dur\":");
      p = put_us(p, dur_ns);
    }
    p = put(p, ",\"cat\":\"");
    p = put(p, cat);
    p = put(p, "\",\"name\":\"");
    p = put(p, name);
    p = put(p, "\",\"args\":{");
    bool comma = false;
    if (args.correlation_id) {
      p = put(p, "\"correlation_id\":");
      p = put_i64(p, *args.correlation_id);
      comma = true;
    }
    if (args.op_id) {
      p = put(p, comma ? ",\"op_id\":" : "\"op_id\":");
      p = put_i64(p, *args.op_id);
      comma = true;
    }
    if (args.text) {
      p = put(p, comma ? ",\"args\":\"" : "\"args\":\"");
      p = put(p, *args.text);
      *p++ = '"';
      comma = true;
    }
    if (args.recorded_dur) {
      p = put(p, comma ? ",\"recorded_dur_ns\":" : "\"recorded_dur_ns\":");
      p = put_i64(p, *args.recorded_dur);
    }
    p = put(p, "}}");
    out_.advance(static_cast<size_t>(p - start));
    return;
  }
  sep();
  if (dur_ns > 0) {
    lit("{\"ph\":\"X\",\"pid\":");
  } else {
    lit("{\"ph\":\"i\",\"s\":\"t\",\"pid\":");
  }
  i64(pid);
  lit(",\"tid\":");
  i64(tid);
  lit(",\"ts\":");
  us(ts_ns);
  if (dur_ns > 0) {
    lit(",\"dur\":");
    us(dur_ns);
  }
  lit(",\"cat\":");
  str(cat);
  lit(",\"name\":");
  str(name);
  lit(",\"args\":{");
  bool comma = false;
  if (args.correlation_id) {
    lit("\"correlation_id\":");
    i64(*args.correlation_id);
    comma = true;
  }
  if (args.op_id) {
    lit(comma ? ",\"op_id\":" : "\"op_id\":");
    i64(*args.op_id);
    comma = true;
  }
  if (args.text) {
    lit(comma ? ",\"args\":" : "\"args\":");
    str(*args.text);
    comma = true;
  }
  if (args.recorded_dur) {
    lit(comma ? ",\"recorded_dur_ns\":" : "\"recorded_dur_ns\":");
    i64(*args.recorded_dur);
  }
  lit("}}");
}

void JsonWriter::flow_begin(uint64_t id, int64_t pid, int64_t tid, int64_t from_ns) {
  char* const start = out_.reserve(kFixedPart);
  char* p = start;
  if (events_++) p = put(p, ",\n");
  p = put(p, "{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":");
  p = std::to_chars(p, p + 24, id).ptr;
  p = put_track(p, flow_from_, pid, tid);
  p = put(p, ",\"ts\":");
  p = put_ts(p, from_ns);
  *p++ = '}';
  out_.advance(static_cast<size_t>(p - start));
}

void JsonWriter::flow_end(uint64_t id, int64_t pid, int64_t tid, int64_t to_ns) {
  char* const start = out_.reserve(kFixedPart);
  char* p = start;
  if (events_++) p = put(p, ",\n");
  p = put(p, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":");
  p = std::to_chars(p, p + 24, id).ptr;
  p = put_track(p, flow_to_, pid, tid);
  p = put(p, ",\"ts\":");
  p = put_ts(p, to_ns);
  *p++ = '}';
  out_.advance(static_cast<size_t>(p - start));
}

void JsonWriter::counter(int64_t pid, std::string_view name, std::string_view series, int64_t ts_ns, double value) {
  sep();
  lit("{\"ph\":\"C\",\"pid\":");
  i64(pid);
  lit(",\"name\":");
  str(name);
  lit(",\"ts\":");
  us(ts_ns);
  lit(",\"args\":{");
  str(series);
  out_.put(':');
  char* p = out_.reserve(32);
  out_.advance(static_cast<size_t>(std::to_chars(p, p + 32, value).ptr - p));
  lit("}}");
}

}  // namespace rocpd::exporter
