// The launch stacks of one member's GPU ops (docs/diagnosis.md, "Launches and ranges"): its kernels
// and copies, the API call that launched each, and the marker ranges enclosing that call on its
// thread, outermost first (diagnosis/stack_sweep.h). Computed on a leased member connection (any
// core): the ops, their launch calls and the ranges are read once each, each thread swept once.
// rocpd_kernel_stacks shows these rows; rocpd_sequence_groups and rocpd_op_counters build on them.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/big_alloc.h"
#include "common/chunked_vector.h"
#include "common/sqlite_util.h"
#include "members/interrupt.h"
#include "members/member_columns.h"
#include "analysis/strings.h"

namespace rocpd::diagnosis {

using analysis::Strings;
using analysis::kNoName;

using analysis::kNoName;
using analysis::Strings;
using analysis::TokenNames;

struct StackInfo {
  uint32_t stack = 0;  // id in stacks ("[]" is 0)
  uint32_t depth = 0;
  uint32_t top = kNoName, bottom = kNoName;  // names of the outermost / innermost range
  // The innermost range itself (its api_id and times), for occurrences of it (kernel sequences).
  int64_t bottom_id = 0, bottom_start = 0, bottom_end = 0;
};

// A value of a member row, compactly: integers and reals in place, text and blobs in the member's
// `texts` (hostile files only).
struct StackCell {
  int64_t bits = 0;
  int type = SQLITE_NULL;
  uint32_t text = 0;
  bool is_int() const { return type == SQLITE_INTEGER; }
};

struct OpRow {
  int64_t rowid = 0;
  StackCell op_id, corr, gpu, queue;
  int64_t start = 0, end = 0;
  bool has_start = false, has_end = false, copy = false;
  uint32_t name = kNoName;  // id in names
  int32_t call = -1;        // index into calls (a launch found), else -1
};

struct CallRow {
  StackCell pid, tid;
  StackInfo info;
};

// Everything one member contributes: its rows and the strings they point at.
struct MemberStacks {
  ChunkedVector<OpRow> rows;
  BigVector<CallRow> calls;
  std::vector<std::string> texts;
  Strings names, stacks;
  // Range names: raw text, its JSON string (or null), and whether it was NULL.
  Strings range_names;
  std::vector<std::string> range_json;
  uint32_t null_range_name = kNoName;

  size_t size() const { return rows.size(); }  // rows (MemberRowsTable's Rows)
  // Inline for integers and NULL (five per op row); text and blobs are copied into `texts`.
  StackCell cell(const StoredValue& v) {
    if (v.type == SQLITE_INTEGER) return {v.i, SQLITE_INTEGER, 0};
    if (v.type == SQLITE_NULL) return {};
    return other_cell(v);
  }
  StoredValue stored(const StackCell& c) const;
  void result(sqlite3_context* ctx, const StackCell& c) const;
  // The launch call's info of row r (depth 0 without a launch).
  const StackInfo& info(const OpRow& r) const;

 private:
  StackCell other_cell(const StoredValue& v);
};

struct StackOptions {
  std::optional<int64_t> gpu;  // only the ops of this gpu (`gpu =` pushed down)
  bool copies = true;          // ops of kind 'copy' too (else kernels only)
  bool places = true;          // the ops' gpu and queue (else NULL: not read, for callers that need neither)
  bool rowids = true;          // the ops' rowids in rocpd_ops (else 0: for callers that number rows themselves)
  bool stack_texts = true;     // each stack's JSON text (else every StackInfo::stack is "[]": callers that
                               // need only the ranges' names and the innermost range)
  // When set, only the ops whose op_id it accepts (a cheap pre-filter; callers re-check).
  std::function<bool(const StoredValue& op_id)> keep_op;
};

// The member's rows in rocpd_ops order, their launches and stacks. `table` names the SQL table in
// errors (a start or end that is not an integer names it and the member). `rows_read` (when
// given) counts the member rows read, for progress lines.
MemberStacks member_stacks(const canonical::Member& m, sqlite3* conn, const StackOptions& options,
                           const members::InterruptWatch& watch, const char* table,
                           std::atomic<int64_t>* rows_read = nullptr);

// SQLite's JSON text of a string (json_quote, json_group_array): '"' and '\' escaped with a
// backslash, \b \f \n \r \t, other bytes below 0x20 as \u00xx, every other byte as it is.
void append_json_string(std::string& out, std::string_view s);

}  // namespace rocpd::diagnosis
