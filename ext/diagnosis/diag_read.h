// Shared by the diagnosis tables: query plans (db, gpu and the hidden arguments), column readers
// with exact error texts, and the launch calls of a member read in one pass.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/sqlite_util.h"
#include "intervals/ops_window.h"

namespace rocpd::diagnosis {

using intervals::GpuKey;
using intervals::MemberRef;

// Constraint codes in idxStr, one per xFilter argument: D db =, G gpu =, and the hidden
// arguments T (threshold_ns), L (lo), H (hi).
struct PlanColumns {
  int db = -1, gpu = -1, threshold = -1, lo = -1, hi = -1;
};
int plan(sqlite3_index_info* info, const PlanColumns& cols, double full_cost);

struct Selection {
  std::optional<std::string> db;
  std::optional<int64_t> gpu;
  std::optional<int64_t> threshold, lo, hi;  // hidden arguments (NULL leaves them unset)
  bool nothing = false;                      // contradictory or NULL constraints
};
Selection decode(const char* table, const char* idx_str, int argc, sqlite3_value** argv);

// Any SQL value of a result column, kept as rocpd_ops returned it (integers without allocation).
GpuKey value_key(sqlite3_stmt* s, int col);
// An integer time (or nullopt for NULL); anything else is an error naming the table and member.
std::optional<int64_t> time_column(sqlite3_stmt* s, int col, const char* table, const std::string& db, const char* what);

// (pid, correlation_id) of an op or a call; pid NULL is its own value.
struct CallKey {
  int64_t pid = 0, corr = 0;
  bool pid_null = false;
  bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
  size_t operator()(const CallKey& k) const noexcept {
    uint64_t x = static_cast<uint64_t>(k.pid) * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(k.corr) ^ (k.pid_null ? 0x5555 : 0);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<size_t>(x ^ (x >> 32));
  }
};
// Reads the key columns (pid, correlation_id) of a row; nullopt when correlation_id is NULL or
// not an integer (such an op has no launch).
std::optional<CallKey> call_key(sqlite3_stmt* s, int pid_col, int corr_col);

struct LaunchCall {
  int64_t start = 0, end = 0;
  int64_t tid = 0;
  bool tid_null = false;
  bool end_null = false;
  int64_t api_id = 0;
};
// The API calls of member `db` whose (pid, correlation_id) is in `wanted`: the launch of each op.
// When several calls share a key, the one with the earliest start (then the smallest api_id)
// is the launch. Calls whose start is NULL are not launches.
std::unordered_map<CallKey, LaunchCall, CallKeyHash> read_launches(sqlite3* conn, const std::string& db,
                                                                    const std::unordered_set<CallKey, CallKeyHash>& wanted,
                                                                    bool with_thread, const char* table);

}  // namespace rocpd::diagnosis
