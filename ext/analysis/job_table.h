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
// and optionally
//   kArgBits: the idxNum bit of each argument (default 1 << k for argument k);
//   kDbColumn, kDbBit: `db =` (BINARY) on that column passed to compute after the arguments
//     (args[kArgCount], null when absent) and bit kDbBit set; not omitted: SQLite checks it again;
//   kCostByDb: the estimated cost when `db =` is passed (default kCost);
//   `static int used_bits(uint64_t col_used)`: idxNum bits for the columns the statement reads
//     (the figures worth computing); compute then takes idxNum before the Scan:
//     compute(conn, args, idx_num, scan);
//   `static void next(Scan&)` and `static bool eof(const Scan&)`: a Scan that steps its rows
//     itself (a statement stepped as SQLite asks for rows) instead of size() and the row index;
//   kCreatable: the module also creates tables (CREATE VIRTUAL TABLE ... USING it, as the
//     extension's temp instances of the summary tables), besides being eponymous.
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
  static constexpr bool kDb = requires { Def::kDbColumn; };
  static constexpr bool kSteps = requires(Scan& s) { Def::next(s); };

  static constexpr int arg_bit(int arg) {
    if constexpr (requires { Def::kArgBits; }) return Def::kArgBits[static_cast<size_t>(arg)];
    else return 1 << arg;
  }

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
    int db = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      if (c.iColumn >= Def::kFirstArg && c.iColumn < Def::kFirstArg + kArgs) {
        if (!c.usable) return SQLITE_CONSTRAINT;
        const int arg = c.iColumn - Def::kFirstArg;
        if (slot[static_cast<size_t>(arg)] < 0) slot[static_cast<size_t>(arg)] = i;
      } else if constexpr (kDb) {
        if (c.iColumn == Def::kDbColumn && c.usable && db < 0) {
          const char* coll = sqlite3_vtab_collation(info, i);
          if (!coll || sqlite3_stricmp(coll, "BINARY") == 0) db = i;
        }
      }
    }
    int bits = 0, n = 0;
    for (int arg = 0; arg < kArgs; ++arg) {
      const int i = slot[static_cast<size_t>(arg)];
      if (i < 0) continue;
      bits |= arg_bit(arg);
      info->aConstraintUsage[i].argvIndex = ++n;
      info->aConstraintUsage[i].omit = 1;
    }
    double cost = Def::kCost;
    if constexpr (kDb) {
      if (db >= 0) {
        info->aConstraintUsage[db].argvIndex = ++n;  // not omitted: SQLite checks it again
        bits |= Def::kDbBit;
        if constexpr (requires { Def::kCostByDb; }) cost = Def::kCostByDb;
      }
    }
    if constexpr (requires { Def::used_bits(info->colUsed); }) bits |= Def::used_bits(info->colUsed);
    info->idxNum = bits;
    info->estimatedCost = cost;
    info->estimatedRows = Def::kRows;
    return SQLITE_OK;
  }

  static int filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      std::array<sqlite3_value*, kArgs + 1> args{};  // kArgs: `db =` (kDbColumn)
      int n = 0;
      for (int arg = 0; arg < kArgs; ++arg)
        if (idx_num & arg_bit(arg)) {
          if (n >= argc) throw Error(fmt::format("{}: inconsistent query plan", Def::kTableName));
          args[static_cast<size_t>(arg)] = argv[n++];
        }
      if constexpr (kDb)
        if ((idx_num & Def::kDbBit) && n < argc) args[kArgs] = argv[n++];
      c->scan.reset();
      c->scan = std::make_unique<Scan>();
      c->row = 0;
      sqlite3* conn = static_cast<Table*>(cur->pVtab)->conn;
      const std::span<sqlite3_value* const> given(args.data(), kArgs + (kDb ? 1 : 0));
      if constexpr (requires { Def::compute(conn, given, idx_num, *c->scan); }) Def::compute(conn, given, idx_num, *c->scan);
      else Def::compute(conn, std::span<sqlite3_value* const>(args.data(), kArgs), *c->scan);
      return SQLITE_OK;
    });
  }

  static int next(sqlite3_vtab_cursor* cur) {
    auto* c = static_cast<Cursor*>(cur);
    if constexpr (kSteps) {
      return guard(cur->pVtab, [&] {
        Def::next(*c->scan);
        return SQLITE_OK;
      });
    } else {
      ++c->row;
      return SQLITE_OK;
    }
  }

  static int eof(sqlite3_vtab_cursor* cur) {
    auto* c = static_cast<Cursor*>(cur);
    if constexpr (kSteps) return !c->scan || Def::eof(*c->scan);
    else return !c->scan || c->row >= Def::size(*c->scan);
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
    sqlite3_module m = read_only_module<Cursor>(connect, best_index, filter, next, eof, column, rowid);
    if constexpr (requires { Def::kCreatable; }) {
      static_assert(Def::kCreatable);
      m.xCreate = connect;
      m.xDestroy = m.xDisconnect;
    }
    return m;
  }
};

}  // namespace rocpd::analysis
