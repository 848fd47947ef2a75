// The SAX side of the Kineto import: RapidJSON calls the handler below for every token of the
// file; on a thread of its own, it fills one Event at a time into batches (kineto_queue.h) that
// the host thread stores (RowWriter, kineto_rows.h), keeps the top-level keys as metadata, and
// refuses what it cannot store faithfully. kineto_link.cpp then links what the events' order
// could not. Parsing and storing take about the same time: side by side they take half.
#include "formats/kineto/kineto_import.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <new>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "formats/kineto/kineto_decimal.h"
#include "formats/kineto/kineto_json_stream.h"
#include "formats/kineto/kineto_link.h"
#include "formats/kineto/kineto_object_keys.h"
#include "formats/kineto/kineto_queue.h"
#include "formats/kineto/kineto_rows.h"

namespace rocpd::formats::kineto {

namespace {

struct EmbeddedSql {
  const char* name;
  const char* sql;
};
const EmbeddedSql kSchema[] = {
#include "kineto_schema.inc"
};

constexpr size_t kMaxTopLevelKeys = 4096;

// Event keys the import reads.
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

// args keys the import reads.
enum ArgKey : uint8_t {
  kCorrelation, kExternalId, kExternalIdOld, kDevice, kStream, kGrid, kBlock, kRegisters, kSharedMemory, kBytes,
  kSize, kArgName, kArgLabels, kSortIndex, kOtherArg
};
ArgKey arg_key(std::string_view k) {
  if (k == "correlation") return kCorrelation;
  if (k == "External id") return kExternalId;
  if (k == "external id") return kExternalIdOld;  // PyTorch 1.8-1.10 on GPU ops and runtime calls
  if (k == "size") return kSize;                   // MTIA's DMA requests: their bytes
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

// RapidJSON's allocator for every buffer of the parse: CrtAllocator's, but a failed allocation
// throws std::bad_alloc (reported as SQLITE_NOMEM) where CrtAllocator returns NULL, which
// RapidJSON's buffers then write through.
struct ThrowingAllocator {
  [[maybe_unused]] static constexpr bool kNeedFree = true;  // RapidJSON's Allocator concept
  void* Malloc(size_t size) {
    if (size == 0) return nullptr;
    void* p = std::malloc(size);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void* Realloc(void* original, size_t, size_t size) {
    if (size == 0) {
      std::free(original);
      return nullptr;
    }
    void* p = std::realloc(original, size);  // on failure `original` stays valid, and its owner frees it
    if (!p) throw std::bad_alloc();
    return p;
  }
  static void Free(void* p) { std::free(p); }
};
// The reader's own buffer holds the string or number being read, whole (and a counter per open
// container): capped, so that a string of 1 GB costs no more than the cap. Whitespace is never
// held, so any amount of it is read (it is valid JSON). The cap is twice the longest token
// accepted, which the handler checks exactly: the buffer grows by half, so a token within the
// limit never reaches the cap.
struct TokenTooLong {};
struct TokenAllocator : ThrowingAllocator {
  size_t cap = SIZE_MAX;
  void* Malloc(size_t size) {
    if (size > cap) throw TokenTooLong{};
    return ThrowingAllocator::Malloc(size);
  }
  void* Realloc(void* original, size_t old_size, size_t size) {
    if (size > cap) throw TokenTooLong{};
    return ThrowingAllocator::Realloc(original, old_size, size);
  }
};
using JsonBuffer = rapidjson::GenericStringBuffer<rapidjson::UTF8<>, ThrowingAllocator>;
// "7", "-12": an integer's canonical spelling (no sign but '-', no leading zero, within int64).
bool spells_integer(std::string_view s, int64_t& out) {
  const size_t digits_at = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() == digits_at || s.size() - digits_at > 19) return false;
  if (s[digits_at] == '0' && s.size() > digits_at + 1) return false;
  for (size_t i = digits_at; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return integer_value(s, out) == NumberStatus::Ok && !(out == 0 && digits_at == 1);
}

using JsonWriter = rapidjson::Writer<JsonBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, ThrowingAllocator>;
using JsonReader = rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, TokenAllocator>;

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
  Handler(ItemQueue& queue, const std::string& label, const ImportLimits& limits)
      : queue_(queue), label_(label), limits_(limits), keys_(limits.max_args_bytes), args_writer_(args_buf_),
        meta_writer_(meta_buf_) {}

  // The queue was cancelled: the parse ends (the host thread reports why).
  struct Cancelled {};

  void set_stream(const JsonByteStream* s) { stream_ = s; }
  uint64_t last_token() const { return last_token_; }

  bool Null() { return scalar(Token::Null, {}); }
  bool Bool(bool b) { return scalar(Token::Bool, b ? "true" : "false"); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return scalar(Token::Number, token(s, n, "a number")); }
  bool String(const char* s, rapidjson::SizeType n, bool) { return scalar(Token::String, token(s, n, "a string")); }
  bool StartObject() { return open(Token::Object); }
  bool StartArray() { return open(Token::Array); }
  bool EndObject(rapidjson::SizeType) { return close(true); }
  bool EndArray(rapidjson::SizeType) { return close(false); }
  bool Key(const char* s, rapidjson::SizeType n, bool);

  // After the parse: hands over the last batch.
  void flush();
  // After a successful parse.
  void finish() const;
  int64_t events() const { return events_; }
  int64_t fractional_times() const { return fractional_times_; }
  // The root is the JSON Array Format's list of events, open, with no event open in it.
  bool between_listed_events() const { return !root_object_ && saw_events_ && depth_ == 1; }
  int64_t base_ns() const { return base_ns_; }
  bool late_base() const { return late_base_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  [[noreturn]] void fail_event(const std::string& what) const;
  [[noreturn]] void repeated_key(std::string_view key, ObjectKeys::Add why) const;
  std::string_view token(const char* s, rapidjson::SizeType n, const char* what) const {
    if (n > limits_.max_token_bytes)
      fail(fmt::format("{} longer than {} bytes (the longest accepted)", what, limits_.max_token_bytes));
    return {s, n};
  }
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

  Item& begin_item();
  void commit_item(size_t bytes);

  ItemQueue& queue_;
  Batch* batch_ = nullptr;
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
  size_t top_keys_ = 0;
  ObjectKeys keys_;

  Event* ev_ = nullptr;  // the event being read, in its batch's slot
  int64_t events_ = 0;
  int64_t fractional_times_ = 0;  // ts written with a fraction or exponent (PyTorch 2.3 on: ns digits)
  int64_t base_ns_ = 0;
  bool has_base_ = false, late_base_ = false;

  JsonBuffer args_buf_;
  JsonWriter args_writer_;
  JsonBuffer meta_buf_;
  JsonWriter meta_writer_;
};

void Handler::fail(const std::string& what) const {
  throw Error(fmt::format("{}: {} (at byte {} of the JSON text)", label_, what, stream_ ? stream_->Tell() : 0));
}

void Handler::fail_event(const std::string& what) const {
  if (!ev_) fail(what);
  fail(fmt::format("traceEvents[{}]{}: {}", ev_->index,
                   ev_->has_name ? fmt::format(" ('{}')", ev_->name.substr(0, 80)) : std::string(), what));
}

Item& Handler::begin_item() {
  if (!batch_ && !(batch_ = queue_.take_empty())) throw Cancelled{};
  return batch_->items[batch_->used];
}

void Handler::commit_item(size_t bytes) {
  ++batch_->used;
  batch_->bytes += bytes;
  if (batch_->used == batch_->items.size() || batch_->bytes > ItemQueue::kBytesPerBatch) {
    queue_.push_full(batch_);
    batch_ = nullptr;
  }
}

void Handler::flush() {
  if (batch_ && batch_->used > 0) queue_.push_full(batch_);
  batch_ = nullptr;
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
  const std::string_view k = token(s, n, "a key");
  if (const auto added = keys_.add(k); added != ObjectKeys::Add::Ok) repeated_key(k, added);
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
    if (depth_ == args_at_) arg_ = arg_key(k);
    return true;
  }
  if (depth_ == event_at_) {
    key_ = event_key(k);
    return true;
  }
  if (depth_ == 1 && root_object_) {
    top_key_.assign(k);
    if (++top_keys_ > kMaxTopLevelKeys) fail(fmt::format("more than {} top-level keys", kMaxTopLevelKeys));
  }
  return true;
}

// One rule for every object of the file, wherever it is: a key given twice is refused (readers
// of JSON disagree on which value counts: Python's json keeps the last, SQLite's the first).
void Handler::repeated_key(std::string_view k, ObjectKeys::Add why) const {
  const std::string key = std::string(k.substr(0, 80));
  if (why == ObjectKeys::Add::TooMany)
    fail(fmt::format("objects whose keys hold more than {} bytes together (the most accepted)", limits_.max_args_bytes));
  if (depth_ == 1 && root_object_ && meta_at_ < 0 && skip_at_ < 0)
    fail(fmt::format("top-level key \"{}\" appears twice", key));
  if (meta_at_ >= 0)
    fail(fmt::format("top-level value '{}': key \"{}\" appears twice in one object", top_key_, key));
  if (ev_ && args_at_ >= 0 && depth_ == args_at_) fail_event(fmt::format("args key \"{}\" appears twice", key));
  if (ev_ && skip_at_ < 0 && args_at_ < 0 && depth_ == event_at_) fail_event(fmt::format("key \"{}\" appears twice", key));
  if (ev_) fail_event(fmt::format("key \"{}\" appears twice in one object", key));
  fail(fmt::format("key \"{}\" appears twice in one object", key));
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
    if (key_ == kTs && text.find_first_of(".eE") != std::string_view::npos) ++fractional_times_;
    const NumberStatus st = micros_to_ns(text, out);
    if (st == NumberStatus::Overflow)
      fail_event(fmt::format("\"{}\" {} µs is past the int64 range of ns", event_key_name(key_), text.substr(0, 40)));
    if (st != NumberStatus::Ok) fail_event(fmt::format("\"{}\" {} is not a number", event_key_name(key_), text.substr(0, 40)));
  };
  auto id_like = [&](Scalar& out) {
    if (t == Token::Null) return;
    if (t == Token::String) {
      // Text that spells an integer ("tid": "4093687616", PyTorch 1.8's threads) is that integer,
      // as the trace viewer's lookups (by text) and SQLite's INTEGER columns take it.
      if (!spells_integer(text, out.i)) {
        out.kind = Scalar::Text;
        out.text.assign(text);
        return;
      }
      out.kind = Scalar::Int;
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
    case kPh: need(Token::String); ev_->ph.assign(text); ev_->has_ph = true; break;
    case kCat: need(Token::String); ev_->cat.assign(text); ev_->has_cat = true; break;
    case kName: need(Token::String); ev_->name.assign(text); ev_->has_name = true; break;
    case kBp: need(Token::String); ev_->bp.assign(text); ev_->has_bp = true; break;
    case kTs: time(ev_->ts); ev_->has_ts = true; break;
    case kDur: time(ev_->dur); ev_->has_dur = true; break;
    case kPid: id_like(ev_->pid); break;
    case kTid: id_like(ev_->tid); break;
    case kId: id_like(ev_->id); break;
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
    case kCorrelation: integer(ev_->correlation); break;
    case kExternalId: integer(ev_->external_id); break;
    case kExternalIdOld: integer(ev_->external_id_old); break;
    case kSize: integer(ev_->size); break;
    case kDevice: integer(ev_->device); break;
    case kStream: integer(ev_->stream); break;
    case kRegisters: integer(ev_->registers); break;
    case kSharedMemory: integer(ev_->shared_memory); break;
    case kBytes: integer(ev_->bytes); break;
    case kSortIndex: integer(ev_->sort_index); break;
    case kGrid: ev_->grid.present = true; ev_->grid.ok = false; break;
    case kBlock: ev_->block.present = true; ev_->block.ok = false; break;
    case kArgName: scalar_of(ev_->arg_name); break;
    case kArgLabels: scalar_of(ev_->arg_labels); break;
    case kOtherArg: break;
  }
}

void Handler::arg_container(Token t) {
  auto wrong = [&](ArgInt& a) {
    a.present = true;
    a.got = token_name(t);
  };
  switch (arg_) {
    case kCorrelation: wrong(ev_->correlation); break;
    case kExternalId: wrong(ev_->external_id); break;
    case kExternalIdOld: wrong(ev_->external_id_old); break;
    case kSize: wrong(ev_->size); break;
    case kDevice: wrong(ev_->device); break;
    case kStream: wrong(ev_->stream); break;
    case kRegisters: wrong(ev_->registers); break;
    case kSharedMemory: wrong(ev_->shared_memory); break;
    case kBytes: wrong(ev_->bytes); break;
    case kSortIndex: wrong(ev_->sort_index); break;
    case kGrid: ev_->grid.present = true; ev_->grid.ok = false; break;
    case kBlock: ev_->block.present = true; ev_->block.ok = false; break;
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
  Item& it = begin_item();
  it.kind = Item::Metadata;
  it.tag = top_key_;
  it.value = std::move(v);
  commit_item(it.value.text.size());
}

bool Handler::open(Token t) {
  mark();
  const int at = depth_;  // where this container is
  if (++depth_ > limits_.max_depth) fail(fmt::format("JSON nested deeper than {} levels", limits_.max_depth));
  if (t == Token::Object) keys_.open();
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
        dims_ = arg_ == kGrid ? &ev_->grid : &ev_->block;
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
      ev_->has_args = true;
    } else if (key_ != kOtherKey) {
      fail_event(fmt::format("\"{}\" is {}", event_key_name(key_), token_name(t)));
    } else {
      skip_at_ = at;
    }
    return true;
  }
  if (at == events_at_) {
    if (t != Token::Object) fail(fmt::format("traceEvents[{}] is an array, not an object", events_));
    Item& it = begin_item();
    it.kind = Item::EventRow;
    ev_ = &it.event;
    ev_->clear();
    ev_->index = events_;
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
  if (object) keys_.close();
  if (skip_at_ >= 0) {
    if (depth_ == skip_at_) skip_at_ = -1;
    return true;
  }
  if (meta_at_ >= 0) {
    object ? meta_writer_.EndObject() : meta_writer_.EndArray();
    if (depth_ == meta_at_) {
      meta_at_ = -1;
      Item& it = begin_item();
      it.kind = Item::Metadata;
      it.tag = top_key_;
      it.value.kind = Scalar::Text;
      it.value.text.assign(meta_buf_.GetString(), meta_buf_.GetSize());
      commit_item(it.value.text.size());
    }
    return true;
  }
  if (args_at_ >= 0) {
    object ? args_writer_.EndObject() : args_writer_.EndArray();
    if (dims_ && depth_ == args_at_) dims_ = nullptr;
    if (depth_ == event_at_) {
      args_at_ = -1;
      ev_->args.assign(args_buf_.GetString(), args_buf_.GetSize());
    }
    return true;
  }
  if (event_at_ >= 0 && depth_ == events_at_) {
    event_at_ = -1;
    batch_->items[batch_->used].base_ns = base_ns_;
    const size_t bytes = (ev_->has_args ? ev_->args.size() : 0) + (ev_->has_name ? ev_->name.size() : 0);
    ev_ = nullptr;
    commit_item(bytes);
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

namespace {

// This thread's exception globals, claimed while memory is left. libstdc++ keeps them in
// thread-local storage, which glibc allocates on a thread's first throw when libstdc++ was loaded
// by dlopen (Python loads it with us) and, when that allocation fails, aborts the whole process
// ("cannot allocate memory for thread-local data: ABORT") instead of throwing. Claimed early, a
// later std::bad_alloc is thrown and reported (SQLITE_NOMEM).
void claim_exception_globals() {
  [[maybe_unused]] volatile int uncaught = std::uncaught_exceptions();  // stored: the call is pure
}

// The parsing thread: joined (and told to stop first) however the host thread leaves.
// Starting it may fail for want of memory (its stack is address space): SQLITE_NOMEM, as any
// allocation that fails.
class ParseThread {
 public:
  ParseThread(ItemQueue& queue, std::function<void()> body, const std::string& label)
      : queue_(queue), thread_(start(std::move(body), label)) {}
  ~ParseThread() { join(true); }
  ParseThread(const ParseThread&) = delete;
  ParseThread& operator=(const ParseThread&) = delete;
  void join(bool cancel = false) {
    if (cancel) queue_.cancel();
    if (thread_.joinable()) thread_.join();
  }

 private:
  static std::thread start(std::function<void()> body, const std::string& label) {
    try {
      return std::thread([body = std::move(body)] {
        claim_exception_globals();
        body();
      });
    } catch (const std::system_error& e) {
      throw Error(fmt::format("{}: cannot start the parsing thread: {}", label, e.what()), SQLITE_NOMEM);
    }
  }

  ItemQueue& queue_;
  std::thread thread_;
};

// The host thread's part: stores the parsed batches as they come (until the parser ends) and
// watches for interrupts meanwhile. Returns the rows written per table.
template <class StopNow, class Interrupted>
ImportStats store_batches(ItemQueue& queue, RowWriter& rows, const JsonByteStream& stream, ImportProgress* progress_out,
                          const StopNow& stop_now, const Interrupted& interrupted) {
  ImportStats stats;
  for (;;) {
    Batch* batch = nullptr;
    const auto got = queue.pop_full(std::chrono::milliseconds(50), batch);
    if (got == ItemQueue::Pop::End) break;
    if (got == ItemQueue::Pop::Batch) {
      for (size_t i = 0; i < batch->used; ++i) {
        const Item& it = batch->items[i];
        if (it.kind == Item::Metadata) {
          rows.metadata(it.tag, it.value);
          continue;
        }
        switch (rows.write(it.event, it.base_ns)) {
          case RowWriter::Table::Ops: ++stats.ops; break;
          case RowWriter::Table::Calls: ++stats.calls; break;
          case RowWriter::Table::Flows: ++stats.flows; break;
          default: break;
        }
      }
      queue.give_back(batch);
    }
    if (progress_out) {
      progress_out->file_bytes = stream.compressed_read();
      progress_out->file_size = stream.file_size();
      progress_out->rows = stats.ops + stats.calls + stats.flows;
    }
    if (stop_now()) throw interrupted();
  }
  return stats;
}

// The parser's verdict as an error naming the byte, unless the file is an unterminated JSON Array
// Format list that ends between two events (the trace event format allows it: a process that ended
// while writing; an event cut short is still refused).
void refuse_parse_error(const rapidjson::ParseResult& result, JsonByteStream& stream, const Handler& handler,
                        const std::string& label) {
  if (!stream.error().empty())
    throw Error(fmt::format("{}: {} (after {} bytes of JSON text)", label, stream.error(), stream.Tell()));
  const bool unterminated_list = result.IsError() && stream.complete() && result.Offset() >= stream.Tell() &&
                                 handler.between_listed_events() &&
                                 (result.Code() == rapidjson::kParseErrorArrayMissCommaOrSquareBracket ||
                                  result.Code() == rapidjson::kParseErrorValueInvalid);
  if (result.IsError() && !unterminated_list) {
    const size_t at = result.Offset();
    std::string what = rapidjson::GetParseError_En(result.Code());
    if (stream.complete() && at >= stream.Tell())
      what = fmt::format("the JSON text ends early (truncated file?): {}", what);
    throw Error(fmt::format("{}: invalid JSON at byte {}: {}", label, at, what));
  }
}

}  // namespace

ImportStats import_trace(const std::string& json_path, sqlite3* db, const std::string& label,
                         const std::function<bool()>& stop, const ImportLimits& limits,
                         ImportProgress* progress_out) {
  claim_exception_globals();
  // The database is scratch until the import commits: no journal, no syncs (a failed import is
  // discarded by the caller, never repaired).
  exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -32768; PRAGMA threads = 2", label);
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
  auto stop_now = [&] { return stop && stop(); };  // host thread only (members::InterruptWatch::poll)

  exec(db, "BEGIN", label);
  for (const auto& f : kSchema) exec(db, f.sql, label);
  prepare_link(db, label);
  RowWriter rows(db, label);
  ItemQueue queue;
  Handler handler(queue, label, limits);

  // Set by the parsing thread; the host learns of them after the join.
  bool token_too_long = false, cancelled = false;
  auto keep_going = [&]() {  // at every buffer refill
    if (queue.cancelled()) {
      cancelled = true;
      return false;
    }
    return true;
  };
  if (stop_now()) throw interrupted();
  std::unique_ptr<JsonByteStream> stream;
  try {
    stream = std::make_unique<JsonByteStream>(json_path, keep_going);
  } catch (const std::runtime_error& e) {
    throw Error(fmt::format("{}: {}", label, e.what()), SQLITE_CANTOPEN);
  }
  handler.set_stream(stream.get());

  rapidjson::ParseResult result;
  std::exception_ptr parse_error;
  ParseThread parser(queue, [&] {
    try {
      TokenAllocator reader_memory;
      reader_memory.cap = 2 * limits.max_token_bytes;
      JsonReader reader(&reader_memory);
      constexpr unsigned kFlags =
          rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag;
      result = reader.Parse<kFlags>(*stream, handler);
      handler.flush();
    } catch (const Handler::Cancelled&) {
    } catch (const TokenTooLong&) {
      token_too_long = true;
    } catch (...) {
      parse_error = std::current_exception();
    }
    queue.finish();
  }, label);

  const ImportStats counted = store_batches(queue, rows, *stream, progress_out, stop_now, interrupted);
  parser.join();
  if (parse_error) std::rethrow_exception(parse_error);
  if (cancelled) throw interrupted();
  if (token_too_long)
    throw Error(fmt::format("{}: a string or number longer than {} bytes after byte {} of the JSON text (the longest "
                            "accepted)",
                            label, limits.max_token_bytes, handler.last_token()));
  refuse_parse_error(result, *stream, handler, label);
  handler.finish();

  // Times in whole µs (PyTorch before 2.3): the adapter says so in rocpd_members.notes.
  rows.metadata_int("import.fractional_times", handler.fractional_times());
  ImportStats stats = counted;
  stats.events = handler.events();
  stats.json_bytes = stream->Tell();
  if (progress_out) progress_out->linking = true;
  LinkInput link;
  link.processes = &rows.processes();
  link.events = handler.events();
  link.late_base_ns = handler.late_base() ? handler.base_ns() : 0;
  try {
    stats.counters = link_trace(db, link, label);
  } catch (const Error&) {
    if (stop_now()) throw interrupted();
    throw;
  }
  if (stop_now()) throw interrupted();
  exec(db, "COMMIT", label);
  return stats;
}

}  // namespace rocpd::formats::kineto
