#include "export/json_writer.h"

#include "export/utf8.h"

namespace rocpd::exporter {

void JsonWriter::begin() { lit("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"); }

void JsonWriter::end(std::string_view other_data) {
  lit("\n],\"otherData\":");
  lit(other_data);
  lit("}\n");
}

void JsonWriter::us(int64_t ns) {
  char* p = out_.reserve(32);
  char* const start = p;
  uint64_t mag = static_cast<uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    mag = 0 - mag;  // exact for INT64_MIN too
  }
  p = std::to_chars(p, p + 24, mag / 1000).ptr;
  const unsigned frac = static_cast<unsigned>(mag % 1000);
  if (frac) {
    p[0] = '.';
    p[1] = static_cast<char>('0' + frac / 100);
    p[2] = static_cast<char>('0' + frac / 10 % 10);
    p[3] = static_cast<char>('0' + frac % 10);
    p += 4;
    while (p[-1] == '0') --p;  // 1.500 -> 1.5
  }
  out_.advance(static_cast<size_t>(p - start));
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
  }
  lit("}}");
}

void JsonWriter::flow(uint64_t id, int64_t pid, int64_t tid, int64_t from_ns, int64_t to_pid, int64_t to_tid,
                      int64_t to_ns) {
  sep();
  lit("{\"ph\":\"s\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":");
  u64(id);
  lit(",\"pid\":");
  i64(pid);
  lit(",\"tid\":");
  i64(tid);
  lit(",\"ts\":");
  us(from_ns);
  lit("}");
  sep();
  lit("{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\",\"name\":\"launch\",\"id\":");
  u64(id);
  lit(",\"pid\":");
  i64(to_pid);
  lit(",\"tid\":");
  i64(to_tid);
  lit(",\"ts\":");
  us(to_ns);
  lit("}");
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
