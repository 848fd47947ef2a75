// One traceEvents element as the SAX reader collects it, and the statements that store it in
// the kineto tables (schema/kineto.sql). Only the fields the tables keep are collected; the
// args object is kept whole as compact JSON text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <functional>
#include <unordered_map>

#include "common/sqlite_util.h"
#include "formats/kineto/kineto_link.h"

namespace rocpd::formats::kineto {

// A scalar as written: nothing, an integer, text, or another JSON type (named for errors).
struct Scalar {
  enum Kind : uint8_t { None, Int, Text, Other } kind = None;
  int64_t i = 0;
  std::string text;        // Text: the string; Other: the JSON type's name
  void clear() {
    kind = None;
    text.clear();
  }
};

// An integer field of args: absent, an integer, or something else (named for errors).
struct ArgInt {
  bool present = false, ok = false;
  int64_t v = 0;
  const char* got = "";  // the JSON type found when !ok
};

// args.grid / args.block: three integers.
struct ArgDims {
  bool present = false, ok = true;
  int count = 0;
  int64_t v[3] = {0, 0, 0};
};

struct Event {
  int64_t index = 0;         // position in traceEvents
  std::string ph, cat, name, bp;  // valid when has_*
  bool has_ph = false, has_cat = false, has_name = false, has_bp = false;
  Scalar pid, tid, id;
  bool has_ts = false, has_dur = false;
  int64_t ts = 0, dur = 0;   // ns as written (before the base time is added)
  bool has_args = false;
  std::string args;          // compact JSON of the args object (valid when has_args)
  ArgInt correlation, external_id, external_id_old, device, stream, registers, shared_memory, bytes, size, sort_index;
  ArgDims grid, block;
  Scalar arg_name, arg_labels;  // M events: args.name, args.labels
  // Only flags are reset between events (strings keep their capacity and stale text): read the
  // text fields through these.
  void clear();
  std::string_view cat_text() const { return has_cat ? std::string_view(cat) : std::string_view(); }
  std::string_view name_text() const { return has_name ? std::string_view(name) : std::string_view(); }
  std::string_view bp_text() const { return has_bp ? std::string_view(bp) : std::string_view(); }
};

// Interned strings (kineto_strings). The cache is bounded: when it is full it starts over, so
// the same text may get a second id (readers compare the text, never the ids).
class StringTable {
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

 public:
  explicit StringTable(sqlite3* db);
  int64_t id(std::string_view text);

 private:
  sqlite3* db_;
  Stmt insert_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> cache_;
  size_t cache_bytes_ = 0;
};

// The insert statements of every table.
class RowWriter {
 public:
  RowWriter(sqlite3* db, const std::string& label);
  // Stores `e` with `base_ns` added to its times. Returns which table took it.
  enum class Table { Ops, Calls, Ranges, CounterEvents, Flows, Labels, Other };
  Table write(const Event& e, int64_t base_ns);
  void metadata(const std::string& tag, const Scalar& value);
  void metadata_int(const std::string& tag, int64_t value);
  void metadata_text(const std::string& tag, std::string_view value);
  const ProcessCalls& processes() const { return processes_; }

 private:
  [[noreturn]] void fail(const Event& e, const std::string& what) const;
  int64_t time(const Event& e, int64_t base_ns, int64_t t, const char* field) const;
  void bind_scalar(sqlite3_stmt* s, int col, const Scalar& v);
  void bind_opt(sqlite3_stmt* s, int col, const ArgInt& v);
  void bind_text(sqlite3_stmt* s, int col, std::string_view v);
  void run(sqlite3_stmt* s);
  int64_t name_id(const Event& e);
  int64_t cat_id(const Event& e);
  Table write_op(const Event& e, int64_t base_ns, const char* kind);
  Table write_call(const Event& e, int64_t base_ns, const char* domain, bool launches);
  // Adds the row just inserted to `list` (ops or launching calls written without a correlation,
  // which the link then looks up from their flows without scanning every row).
  void pending(sqlite3_stmt* list);

  sqlite3* db_;
  std::string label_;
  StringTable strings_;
  Stmt ops_, calls_, ranges_, counter_events_, flows_, labels_, other_, metadata_;
  Stmt uncorrelated_ops_, uncorrelated_calls_;  // temp tables created by kineto_link's prepare_link
  ProcessCalls processes_;
};

}  // namespace rocpd::formats::kineto
