// An eponymous-only virtual table whose rows are computed for the whole job at once (a row depends
// on other members: collectives matched across ranks, paths crossing members): the module shared by
// rocpd_critical_path, rocpd_what_if and rocpd_steps. Per-member tables use MemberRowsTable.
//
// HOW IT WORKS: the hidden arguments are the columns from Def::kFirstArg on (kArgCount of them).
// xBestIndex passes the first usable `argument = value` of each to xFilter (argvIndex in argument
// order, omitted from SQLite's checks) and sets bit k of idxNum for argument k; a plan in which an
// argument's constraint is unusable is refused (SQLITE_CONSTRAINT), since a plan without the
// argument of a table-valued call would change its meaning. xFilter hands the arguments to
// Def::compute (a null value for each one not given), which computes every row. Every other
// constraint is SQLite's, so the table answers like a plain table with the same rows.
//
// `Def` provides kTableName, kSchema (the CREATE TABLE statement), kFirstArg, kArgCount, kCost and
// kRows (the plan's estimates), a Scan type holding one xFilter's rows, and
//   static void compute(sqlite3* conn, std::span<sqlite3_value* const> args, Scan& scan);
//   static size_t size(const Scan&);
//   static void column(const Scan&, size_t row, sqlite3_context*, int col);
//   static int64_t rowid(const Scan&, size_t row);
#pragma once
#include <fmt/format.h>

#include <array>
#include <memory>
#include <span>

#include "common/sqlite_util.h"
#include "common/vtab_util.h"

namespace rocpd::analysis {

template <class Def>
class JobTable {
 public:
  static void register_module(sqlite3* db) {
    static const sqlite3_module module = make_module();
    int rc = sqlite3_create_module(db, Def::kTableName, &module, nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", Def::kTableName, sqlite3_errmsg(db)), rc);
  }

 private:
  using Scan = typename Def::Scan;
  static constexpr int kArgs = Def::kArgCount;

  using Table = ConnVtab;
  struct Cursor : sqlite3_vtab_cursor {
    std::unique_ptr<Scan> scan;
    size_t row = 0;
  };

  static int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
    return connect_direct_only(db, Def::kSchema, out, err);
  }


  static int best_index(sqlite3_vtab*, sqlite3_index_info* info) {
    std::array<int, kArgs + 1> slot;  // +1: a table without arguments
    slot.fill(-1);
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.iColumn < Def::kFirstArg || c.iColumn >= Def::kFirstArg + kArgs || c.op != SQLITE_INDEX_CONSTRAINT_EQ)
        continue;
      if (!c.usable) return SQLITE_CONSTRAINT;
      const int arg = c.iColumn - Def::kFirstArg;
      if (slot[static_cast<size_t>(arg)] < 0) slot[static_cast<size_t>(arg)] = i;
    }
    int bits = 0, n = 0;
    for (int arg = 0; arg < kArgs; ++arg) {
      const int i = slot[static_cast<size_t>(arg)];
      if (i < 0) continue;
      bits |= 1 << arg;
      info->aConstraintUsage[i].argvIndex = ++n;
      info->aConstraintUsage[i].omit = 1;
    }
    info->idxNum = bits;
    info->estimatedCost = Def::kCost;
    info->estimatedRows = Def::kRows;
    return SQLITE_OK;
  }

  static int filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      std::array<sqlite3_value*, kArgs + 1> args{};
      for (int arg = 0, n = 0; arg < kArgs; ++arg)
        if (idx_num & (1 << arg)) {
          if (n >= argc) throw Error(fmt::format("{}: inconsistent query plan", Def::kTableName));
          args[static_cast<size_t>(arg)] = argv[n++];
        }
      c->scan = std::make_unique<Scan>();
      c->row = 0;
      Def::compute(static_cast<Table*>(cur->pVtab)->conn, std::span<sqlite3_value* const>(args.data(), kArgs), *c->scan);
      return SQLITE_OK;
    });
  }

  static int next(sqlite3_vtab_cursor* cur) {
    ++static_cast<Cursor*>(cur)->row;
    return SQLITE_OK;
  }

  static int eof(sqlite3_vtab_cursor* cur) {
    auto* c = static_cast<Cursor*>(cur);
    return !c->scan || c->row >= Def::size(*c->scan);
  }

  static int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      Def::column(*c->scan, c->row, ctx, col);
      return SQLITE_OK;
    });
  }

  static int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      *out = Def::rowid(*c->scan, c->row);
      return SQLITE_OK;
    });
  }

  static sqlite3_module make_module() {
    return read_only_module<Cursor>(connect, best_index, filter, next, eof, column, rowid);
  }
};

}  // namespace rocpd::analysis
