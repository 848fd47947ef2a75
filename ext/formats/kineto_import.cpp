// The SAX side of the Kineto import: RapidJSON calls the handler below for every token of the
// file; it fills one Event at a time and hands it to RowWriter (kineto_rows.h), keeps the
// top-level keys as metadata, and refuses what it cannot store faithfully. kineto_link.cpp then
// links what the events' order could not.
#include "formats/kineto_import.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <stdexcept>

#include "formats/kineto_decimal.h"
#include "formats/kineto_json_stream.h"
#include "formats/kineto_link.h"
#include "formats/kineto_rows.h"

namespace rocpd::kineto {

namespace {

struct EmbeddedSql {
  const char* name;
  const char* sql;
};
const EmbeddedSql kSchema[] = {
#include "kineto_schema.inc"
};

constexpr size_t kMaxTopLevelKeys = 4096;

// Event keys the import reads (bits of Event::seen).
enum EventKey : uint8_t { kPh, kCat, kName, kPid, kTid, kTs, kDur, kId, kBp, kArgs, kOtherKey };
EventKey event_key(std::string_view k) {
  switch (k.size()) {
    case 2:
      if (k == "ph") return kPh;
      if (k == "ts") return kTs;
      if (k == "id") return kId;
      if (k == "bp") return kBp;
      break;
    case 3:
      if (k == "cat") return kCat;
      if (k == "pid") return kPid;
      if (k == "tid") return kTid;
      if (k == "dur") return kDur;
      break;
    case 4:
      if (k == "name") return kName;
      if (k == "args") return kArgs;
      break;
    default: break;
  }
  return kOtherKey;
}
const char* event_key_name(EventKey k) {
  static const char* names[] = {"ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "bp", "args", "?"};
  return names[k];
}

// args keys the import reads (bits of Event::seen_args).
enum ArgKey : uint8_t {
  kCorrelation, kExternalId, kDevice, kStream, kGrid, kBlock, kRegisters, kSharedMemory, kBytes, kArgName,
  kArgLabels, kSortIndex, kOtherArg
};
ArgKey arg_key(std::string_view k) {
  if (k == "correlation") return kCorrelation;
  if (k == "External id") return kExternalId;
  if (k == "device") return kDevice;
  if (k == "stream") return kStream;
  if (k == "grid") return kGrid;
  if (k == "block") return kBlock;
  if (k == "registers per thread") return kRegisters;
  if (k == "shared memory") return kSharedMemory;
  if (k == "bytes") return kBytes;
  if (k == "name") return kArgName;
  if (k == "labels") return kArgLabels;
  if (k == "sort_index") return kSortIndex;
  return kOtherArg;
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// What a value token is, for type errors.
enum class Token { Null, Bool, Number, String, Object, Array };
const char* token_name(Token t) {
  switch (t) {
    case Token::Null: return "null";
    case Token::Bool: return "a boolean";
    case Token::Number: return "a number";
    case Token::String: return "a string";
    case Token::Object: return "an object";
    case Token::Array: return "an array";
  }
  return "?";
}

class Handler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler> {
 public:
  Handler(RowWriter& rows, const std::string& label, const ImportLimits& limits)
      : rows_(rows), label_(label), limits_(limits), args_writer_(args_buf_), meta_writer_(meta_buf_) {}

  void set_stream(const JsonByteStream* s) { stream_ = s; }
  uint64_t last_token() const { return last_token_; }

  bool Null() { return scalar(Token::Null, {}); }
  bool Bool(bool b) { return scalar(Token::Bool, b ? "true" : "false"); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return scalar(Token::Number, {s, n}); }
  bool String(const char* s, rapidjson::SizeType n, bool) { return scalar(Token::String, {s, n}); }
  bool StartObject() { return open(Token::Object); }
  bool StartArray() { return open(Token::Array); }
  bool EndObject(rapidjson::SizeType) { return close(true); }
  bool EndArray(rapidjson::SizeType) { return close(false); }
  bool Key(const char* s, rapidjson::SizeType n, bool);

  // After a successful parse.
  void finish() const;
  int64_t events() const { return events_; }
  int64_t base_ns() const { return base_ns_; }
  bool late_base() const { return late_base_; }
  int64_t table_rows(RowWriter::Table t) const { return rows_by_table_[static_cast<size_t>(t)]; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_event(const std::string& what) const;
  void mark() { last_token_ = stream_ ? stream_->Tell() : 0; }
  bool scalar(Token t, std::string_view text);
  bool open(Token t);
  bool close(bool object);
  void event_value(Token t, std::string_view text);
  void arg_value(Token t, std::string_view text);
  void arg_container(Token t);
  void top_value(Token t, std::string_view text);
  static void write_token(JsonWriter& w, Token t, std::string_view text);
  void check_args_size() const;

  RowWriter& rows_;
  const std::string& label_;
  const ImportLimits& limits_;
  const JsonByteStream* stream_ = nullptr;
  uint64_t last_token_ = 0;

  int depth_ = 0;             // containers open
  bool root_object_ = false;  // the root is an object (else the JSON Array Format: a list of events)
  int events_at_ = -1;        // depth at which traceEvents' elements are (-1: not inside it)
  bool saw_events_ = false;
  int event_at_ = -1;         // depth of the current event's members (-1: none open)
  int args_at_ = -1;          // depth of its args' members
  int skip_at_ = -1;          // depth of a container being skipped (its own location)
  int meta_at_ = -1;          // depth of a top-level value being captured (its own location)
  EventKey key_ = kOtherKey;
  ArgKey arg_ = kOtherArg;
  ArgDims* dims_ = nullptr;   // args.grid / args.block being read
  std::string top_key_;
  std::set<std::string> top_keys_;

  Event event_;
  int64_t events_ = 0;
  int64_t base_ns_ = 0;
  bool has_base_ = false, late_base_ = false;
  int64_t rows_by_table_[7] = {0, 0, 0, 0, 0, 0, 0};

  rapidjson::StringBuffer args_buf_;
  JsonWriter args_writer_;
  rapidjson::StringBuffer meta_buf_;
  JsonWriter meta_writer_;
};

void Handler::fail(const std::string& what) const {
  throw Error(fmt::format("{}: {} (at byte {} of the JSON text)", label_, what, stream_ ? stream_->Tell() : 0));
}

void Handler::fail_event(const std::string& what) const {
  fail(fmt::format("traceEvents[{}]{}: {}", event_.index,
                   event_.has_name ? fmt::format(" ('{}')", event_.name.substr(0, 80)) : std::string(), what));
}

void Handler::write_token(JsonWriter& w, Token t, std::string_view text) {
  switch (t) {
    case Token::Null: w.Null(); break;
    case Token::Bool: w.Bool(text == "true"); break;
    // Not Writer::RawNumber: RapidJSON 1.1.0's writes the number as a quoted string.
    case Token::Number: w.RawValue(text.data(), text.size(), rapidjson::kNumberType); break;
    case Token::String: w.String(text.data(), static_cast<rapidjson::SizeType>(text.size())); break;
    default: break;
  }
}

void Handler::check_args_size() const {
  if (args_buf_.GetSize() > limits_.max_args_bytes)
    fail_event(fmt::format("args longer than {} bytes (the most accepted)", limits_.max_args_bytes));
}

bool Handler::Key(const char* s, rapidjson::SizeType n, bool) {
  mark();
  const std::string_view k(s, n);
  if (skip_at_ >= 0) return true;
  if (meta_at_ >= 0) {
    meta_writer_.Key(s, n);
    if (meta_buf_.GetSize() > limits_.max_args_bytes)
      fail(fmt::format("top-level value '{}' longer than {} bytes (the most accepted)", top_key_, limits_.max_args_bytes));
    return true;
  }
  if (args_at_ >= 0) {
    args_writer_.Key(s, n);
    check_args_size();
    if (depth_ == args_at_) {
      arg_ = arg_key(k);
      if (arg_ != kOtherArg) {
        const uint32_t bit = 1u << arg_;
        if (event_.seen_args & bit) fail_event(fmt::format("args key \"{}\" appears twice", k));
        event_.seen_args |= bit;
      }
    }
    return true;
  }
  if (depth_ == event_at_) {
    key_ = event_key(k);
    if (key_ != kOtherKey) {
      const uint32_t bit = 1u << key_;
      if (event_.seen & bit) fail_event(fmt::format("key \"{}\" appears twice", k));
      event_.seen |= bit;
    }
    return true;
  }
  if (depth_ == 1 && root_object_) {
    top_key_.assign(k);
    if (!top_keys_.insert(top_key_).second) fail(fmt::format("top-level key \"{}\" appears twice", top_key_.substr(0, 80)));
    if (top_keys_.size() > kMaxTopLevelKeys) fail(fmt::format("more than {} top-level keys", kMaxTopLevelKeys));
  }
  return true;
}

bool Handler::scalar(Token t, std::string_view text) {
  mark();
  if (skip_at_ >= 0) return true;
  if (meta_at_ >= 0) {
    write_token(meta_writer_, t, text);
    if (meta_buf_.GetSize() > limits_.max_args_bytes)
      fail(fmt::format("top-level value '{}' longer than {} bytes (the most accepted)", top_key_, limits_.max_args_bytes));
    return true;
  }
  if (args_at_ >= 0) {
    write_token(args_writer_, t, text);
    check_args_size();
    arg_value(t, text);
    return true;
  }
  if (depth_ == event_at_) {
    event_value(t, text);
    return true;
  }
  if (depth_ == events_at_) fail(fmt::format("traceEvents[{}] is {}, not an object", events_, token_name(t)));
  if (depth_ == 1 && root_object_) {
    top_value(t, text);
    return true;
  }
  if (depth_ == 0) fail(fmt::format("the JSON text is {}, not a trace object", token_name(t)));
  return true;
}

void Handler::event_value(Token t, std::string_view text) {
  auto need = [&](Token want) {
    if (t != want) fail_event(fmt::format("\"{}\" is {}, not {}", event_key_name(key_), token_name(t), token_name(want)));
  };
  auto time = [&](int64_t& out) {
    need(Token::Number);
    const NumberStatus st = micros_to_ns(text, out);
    if (st == NumberStatus::Overflow)
      fail_event(fmt::format("\"{}\" {} µs is past the int64 range of ns", event_key_name(key_), text.substr(0, 40)));
    if (st != NumberStatus::Ok) fail_event(fmt::format("\"{}\" {} is not a number", event_key_name(key_), text.substr(0, 40)));
  };
  auto id_like = [&](Scalar& out) {
    if (t == Token::Null) return;
    if (t == Token::String) {
      out.kind = Scalar::Text;
      out.text.assign(text);
      return;
    }
    need(Token::Number);
    const NumberStatus st = integer_value(text, out.i);
    if (st == NumberStatus::Overflow)
      fail_event(fmt::format("\"{}\" {} is past the int64 range", event_key_name(key_), text.substr(0, 40)));
    if (st != NumberStatus::Ok) fail_event(fmt::format("\"{}\" {} is not an integer", event_key_name(key_), text.substr(0, 40)));
    out.kind = Scalar::Int;
  };
  switch (key_) {
    case kPh: need(Token::String); event_.ph.assign(text); event_.has_ph = true; break;
    case kCat: need(Token::String); event_.cat.assign(text); event_.has_cat = true; break;
    case kName: need(Token::String); event_.name.assign(text); event_.has_name = true; break;
    case kBp: need(Token::String); event_.bp.assign(text); break;
    case kTs: time(event_.ts); event_.has_ts = true; break;
    case kDur: time(event_.dur); event_.has_dur = true; break;
    case kPid: id_like(event_.pid); break;
    case kTid: id_like(event_.tid); break;
    case kId: id_like(event_.id); break;
    case kArgs:
      if (t != Token::Null) fail_event(fmt::format("\"args\" is {}, not an object", token_name(t)));
      break;
    case kOtherKey: break;
  }
}

void Handler::arg_value(Token t, std::string_view text) {
  if (dims_ && depth_ == args_at_ + 1) {
    int64_t v = 0;
    if (t != Token::Number || integer_value(text, v) != NumberStatus::Ok || dims_->count >= 3) dims_->ok = false;
    else dims_->v[dims_->count++] = v;
    return;
  }
  if (depth_ != args_at_) return;
  auto integer = [&](ArgInt& a) {
    a.present = true;
    if (t != Token::Number) {
      a.got = token_name(t);
      return;
    }
    const NumberStatus st = integer_value(text, a.v);
    a.ok = st == NumberStatus::Ok;
    if (st == NumberStatus::Overflow) a.got = "a number past the int64 range";
    else if (!a.ok) a.got = "a number with a fraction";
  };
  auto scalar_of = [&](Scalar& s) {
    if (t == Token::String) {
      s.kind = Scalar::Text;
      s.text.assign(text);
    } else if (t == Token::Number && integer_value(text, s.i) == NumberStatus::Ok) {
      s.kind = Scalar::Int;
    } else if (t != Token::Null) {
      s.kind = Scalar::Text;
      s.text.assign(text);
    }
  };
  switch (arg_) {
    case kCorrelation: integer(event_.correlation); break;
    case kExternalId: integer(event_.external_id); break;
    case kDevice: integer(event_.device); break;
    case kStream: integer(event_.stream); break;
    case kRegisters: integer(event_.registers); break;
    case kSharedMemory: integer(event_.shared_memory); break;
    case kBytes: integer(event_.bytes); break;
    case kSortIndex: integer(event_.sort_index); break;
    case kGrid: event_.grid.present = true; event_.grid.ok = false; break;
    case kBlock: event_.block.present = true; event_.block.ok = false; break;
    case kArgName: scalar_of(event_.arg_name); break;
    case kArgLabels: scalar_of(event_.arg_labels); break;
    case kOtherArg: break;
  }
}

void Handler::arg_container(Token t) {
  auto wrong = [&](ArgInt& a) {
    a.present = true;
    a.got = token_name(t);
  };
  switch (arg_) {
    case kCorrelation: wrong(event_.correlation); break;
    case kExternalId: wrong(event_.external_id); break;
    case kDevice: wrong(event_.device); break;
    case kStream: wrong(event_.stream); break;
    case kRegisters: wrong(event_.registers); break;
    case kSharedMemory: wrong(event_.shared_memory); break;
    case kBytes: wrong(event_.bytes); break;
    case kSortIndex: wrong(event_.sort_index); break;
    case kGrid: event_.grid.present = true; event_.grid.ok = false; break;
    case kBlock: event_.block.present = true; event_.block.ok = false; break;
    case kArgName: case kArgLabels: case kOtherArg: break;
  }
}

void Handler::top_value(Token t, std::string_view text) {
  if (top_key_ == "traceEvents") fail(fmt::format("\"traceEvents\" is {}, not an array", token_name(t)));
  Scalar v;
  if (t == Token::String) {
    v.kind = Scalar::Text;
    v.text.assign(text);
  } else if (t == Token::Number) {
    if (integer_value(text, v.i) == NumberStatus::Ok) v.kind = Scalar::Int;
    else v.kind = Scalar::Text, v.text.assign(text);
  } else if (t == Token::Bool) {
    v.kind = Scalar::Int;
    v.i = text == "true";
  }
  if (top_key_ == "baseTimeNanoseconds") {
    if (t != Token::Number) fail(fmt::format("\"baseTimeNanoseconds\" is {}, not a number", token_name(t)));
    const NumberStatus st = integer_value(text, base_ns_);
    if (st == NumberStatus::Overflow) fail(fmt::format("\"baseTimeNanoseconds\" {} is past the int64 range", text.substr(0, 40)));
    if (st != NumberStatus::Ok) fail(fmt::format("\"baseTimeNanoseconds\" {} is not an integer", text.substr(0, 40)));
    has_base_ = true;
    late_base_ = saw_events_;
  }
  rows_.metadata(top_key_, v);
}

bool Handler::open(Token t) {
  mark();
  const int at = depth_;  // where this container is
  if (++depth_ > limits_.max_depth) fail(fmt::format("JSON nested deeper than {} levels", limits_.max_depth));
  if (skip_at_ >= 0) return true;
  if (meta_at_ >= 0) {
    t == Token::Object ? meta_writer_.StartObject() : meta_writer_.StartArray();
    return true;
  }
  if (args_at_ >= 0) {
    t == Token::Object ? args_writer_.StartObject() : args_writer_.StartArray();
    check_args_size();
    if (at == args_at_) {
      if ((arg_ == kGrid || arg_ == kBlock) && t == Token::Array) {
        dims_ = arg_ == kGrid ? &event_.grid : &event_.block;
        dims_->present = true;
      } else {
        arg_container(t);
      }
    } else if (dims_ && at == args_at_ + 1) {
      dims_->ok = false;
    }
    return true;
  }
  if (at == event_at_) {
    if (key_ == kArgs) {
      if (t != Token::Object) fail_event("\"args\" is an array, not an object");
      args_at_ = depth_;
      args_buf_.Clear();
      args_writer_.Reset(args_buf_);
      args_writer_.StartObject();
      event_.has_args = true;
    } else if (key_ != kOtherKey) {
      fail_event(fmt::format("\"{}\" is {}", event_key_name(key_), token_name(t)));
    } else {
      skip_at_ = at;
    }
    return true;
  }
  if (at == events_at_) {
    if (t != Token::Object) fail(fmt::format("traceEvents[{}] is an array, not an object", events_));
    event_.clear();
    event_.index = events_;
    event_at_ = depth_;
    key_ = kOtherKey;
    return true;
  }
  if (at == 0) {
    root_object_ = t == Token::Object;
    if (!root_object_) {  // Chrome's JSON Array Format: the root is the list of events
      events_at_ = depth_;
      saw_events_ = true;
    }
    return true;
  }
  if (at == 1 && root_object_) {
    if (top_key_ == "traceEvents") {
      if (t != Token::Array) fail("\"traceEvents\" is an object, not an array");
      if (saw_events_) fail("two traceEvents arrays");
      events_at_ = depth_;
      saw_events_ = true;
      return true;
    }
    if (top_key_ == "baseTimeNanoseconds") fail(fmt::format("\"baseTimeNanoseconds\" is {}, not a number", token_name(t)));
    meta_at_ = at;
    meta_buf_.Clear();
    meta_writer_.Reset(meta_buf_);
    t == Token::Object ? meta_writer_.StartObject() : meta_writer_.StartArray();
    return true;
  }
  skip_at_ = at;  // containers anywhere else are not read
  return true;
}

bool Handler::close(bool object) {
  mark();
  --depth_;
  if (skip_at_ >= 0) {
    if (depth_ == skip_at_) skip_at_ = -1;
    return true;
  }
  if (meta_at_ >= 0) {
    object ? meta_writer_.EndObject() : meta_writer_.EndArray();
    if (depth_ == meta_at_) {
      meta_at_ = -1;
      rows_.metadata_text(top_key_, std::string_view(meta_buf_.GetString(), meta_buf_.GetSize()));
    }
    return true;
  }
  if (args_at_ >= 0) {
    object ? args_writer_.EndObject() : args_writer_.EndArray();
    if (dims_ && depth_ == args_at_) dims_ = nullptr;
    if (depth_ == event_at_) {
      args_at_ = -1;
      event_.args.assign(args_buf_.GetString(), args_buf_.GetSize());
    }
    return true;
  }
  if (event_at_ >= 0 && depth_ == events_at_) {
    event_at_ = -1;
    const auto table = rows_.write(event_, base_ns_);
    ++rows_by_table_[static_cast<size_t>(table)];
    ++events_;
    return true;
  }
  if (events_at_ >= 0 && depth_ == events_at_ - 1) events_at_ = -1;
  return true;
}

void Handler::finish() const {
  if (!saw_events_) fail("no \"traceEvents\" array: not a Chrome-trace JSON (PyTorch profiler) file");
  (void)has_base_;
}

}  // namespace

bool is_json_trace_name(const std::string& path) {
  std::string lower;
  lower.reserve(path.size());
  for (char c : path) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends = [&](std::string_view s) { return lower.size() >= s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0; };
  return ends(".json") || ends(".json.gz");
}

bool sniff_json_trace(const std::string& path) {
  try {
    JsonByteStream in(path, nullptr);
    std::string head;
    while (head.size() < 65536 && in.Peek() != '\0') head += in.Take();
    const size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return false;
    if (head[first] == '[') return true;
    return head[first] == '{' &&
           (head.find("\"traceEvents\"") != std::string::npos || head.find("\"schemaVersion\"") != std::string::npos);
  } catch (const std::exception&) {
    return false;
  }
}

ImportStats import_trace(const std::string& json_path, sqlite3* db, const std::string& label,
                         const std::function<bool()>& stop, const ImportLimits& limits) {
  // The database is scratch until the import commits: no journal, no syncs (a failed import is
  // discarded by the caller, never repaired).
  exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768", label);
  struct Progress {
    sqlite3* db;
    ~Progress() { sqlite3_progress_handler(db, 0, nullptr, nullptr); }
  } progress{db};
  sqlite3_progress_handler(
      db, 20000,
      [](void* p) -> int {
        const auto& f = *static_cast<const std::function<bool()>*>(p);
        return f && f() ? 1 : 0;
      },
      const_cast<std::function<bool()>*>(&stop));
  auto interrupted = [&]() -> Error { return Error(fmt::format("{}: interrupted", label), SQLITE_INTERRUPT); };

  exec(db, "BEGIN", label);
  for (const auto& f : kSchema) exec(db, f.sql, label);
  RowWriter rows(db, label);
  Handler handler(rows, label, limits);

  bool token_too_long = false, stopped = false;
  const JsonByteStream* stream_ptr = nullptr;
  auto keep_going = [&]() {
    if (stop && stop()) {
      stopped = true;
      return false;
    }
    if (stream_ptr && stream_ptr->Tell() - handler.last_token() > limits.max_token_bytes) {
      token_too_long = true;
      return false;
    }
    return true;
  };
  std::unique_ptr<JsonByteStream> stream;
  try {
    stream = std::make_unique<JsonByteStream>(json_path, keep_going);
  } catch (const std::runtime_error& e) {
    throw Error(fmt::format("{}: {}", label, e.what()), SQLITE_CANTOPEN);
  }
  stream_ptr = stream.get();
  handler.set_stream(stream_ptr);
  if (stopped) throw interrupted();

  rapidjson::Reader reader;
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(*stream, handler);
  if (stopped) throw interrupted();
  if (token_too_long)
    throw Error(fmt::format("{}: a string or number longer than {} bytes near byte {} of the JSON text (the longest "
                            "accepted)",
                            label, limits.max_token_bytes, handler.last_token()));
  if (!stream->error().empty())
    throw Error(fmt::format("{}: {} (after {} bytes of JSON text)", label, stream->error(), stream->Tell()));
  if (result.IsError()) {
    const size_t at = result.Offset();
    std::string what = rapidjson::GetParseError_En(result.Code());
    if (stream->complete() && at >= stream->Tell())
      what = fmt::format("the JSON text ends early (truncated file?): {}", what);
    throw Error(fmt::format("{}: invalid JSON at byte {}: {}", label, at, what));
  }
  handler.finish();

  ImportStats stats;
  stats.events = handler.events();
  stats.ops = handler.table_rows(RowWriter::Table::Ops);
  stats.calls = handler.table_rows(RowWriter::Table::Calls);
  stats.flows = handler.table_rows(RowWriter::Table::Flows);
  stats.json_bytes = stream->Tell();
  LinkInput link;
  link.events = handler.events();
  link.late_base_ns = handler.late_base() ? handler.base_ns() : 0;
  try {
    stats.counters = link_trace(db, link, label);
  } catch (const Error& e) {
    if (stop && stop()) throw interrupted();
    throw;
  }
  if (stop && stop()) throw interrupted();
  exec(db, "COMMIT", label);
  return stats;
}

}  // namespace rocpd::kineto
