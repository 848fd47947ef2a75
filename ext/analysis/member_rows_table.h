// An eponymous-only virtual table whose rows are computed per member on every core
// (analysis/member_batches.h), a batch of members at a time: the module shared by
// rocpd_op_launches, rocpd_queue_steps and rocpd_comm_classes. Pushdown: db = (BINARY; only that
// member is read, SQLite re-checks); every other constraint is SQLite's, so the table answers like
// a plain table with the same rows.
//
// `Def` provides: kTableName, kSchema (the CREATE TABLE statement, db first), a Rows type with
// size(), and
//   static Rows compute(const canonical::Member&, sqlite3*, const members::InterruptWatch&);
//   static void column(const Rows&, size_t row, const MemberRef&, sqlite3_context*, int col);
//   static int64_t rowid(const Rows&, size_t row, const MemberRef&);
// and optionally `static void prepare(Registry&, const std::vector<MemberPtr>&, InterruptWatch&)`, run
// on the connection's thread before each batch (MemberBatches::Prepare), kBatchPerCore (members per
// core in a batch after the first, default 2: more for tables whose rows are small), and kOrder, the order its rows come in (members in natural order, each member's rows
// in the order of the listed columns; its db column declared COLLATE rocpd_natural): an ORDER BY
// that is a prefix of it is consumed (SQLite does not sort the rows again).
// A table with hidden arguments or gpu pushdown declares them in kPlan (PlanColumns; default: db
// only) and takes the decoded Selection as a last argument of compute and column.
#pragma once
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "common/vtab_util.h"
#include "analysis/member_read.h"
#include "analysis/step_ranges.h"
#include "analysis/member_batches.h"

namespace rocpd::analysis {

// Rowids of tables without a natural one: the member's ordinal above the row's index in the member.
inline int64_t member_row_id(const MemberRef& member, size_t row, const char* table) {
  constexpr int kIndexBits = 40;
  if (member.ordinal < 0 || member.ordinal >= (int64_t{1} << (62 - kIndexBits)) || row >= (size_t{1} << kIndexBits))
    throw Error(fmt::format("{}: row {} of member ordinal {} cannot be numbered in rowids", table, row, member.ordinal));
  return (member.ordinal << kIndexBits) | static_cast<int64_t>(row);
}

// A column of a table's row order (MemberRowsTable's kOrder).
struct OrderColumn {
  int column;
  bool desc;
};

template <class Def>
class MemberRowsTable {
 public:
  static void register_module(sqlite3* db) {
    static const sqlite3_module module = make_module();
    int rc = sqlite3_create_module(db, Def::kTableName, &module, nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", Def::kTableName, sqlite3_errmsg(db)), rc);
  }

 private:
  using Rows = typename Def::Rows;

  using Table = ConnVtab;

  struct Cursor : sqlite3_vtab_cursor {
    Selection sel;
    std::unique_ptr<MemberBatches<Rows>> batches;
    size_t member = 0, row = 0;
    bool eof = true;

    // Moves to the next existing row from (member, row), computing batches as needed.
    void settle() {
      for (;;) {
        while (member < batches->size() && row >= batches->rows(member).size()) {
          ++member;
          row = 0;
        }
        if (member < batches->size()) {
          eof = false;
          return;
        }
        member = row = 0;
        if (!batches->next_batch()) {
          eof = true;
          return;
        }
      }
    }
  };

  static int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
    return connect_direct_only(db, Def::kSchema, out, err);
  }


  static int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
    return guard(vtab, [&] {
      if constexpr (requires { Def::kOrder; }) {
        const auto& order = Def::kOrder;
        bool consumed = info->nOrderBy > 0 && static_cast<size_t>(info->nOrderBy) <= std::size(order);
        for (int i = 0; consumed && i < info->nOrderBy; ++i)
          consumed = info->aOrderBy[i].iColumn == order[static_cast<size_t>(i)].column &&
                     static_cast<bool>(info->aOrderBy[i].desc) == order[static_cast<size_t>(i)].desc;
        if (consumed) info->orderByConsumed = 1;
      }
      if constexpr (requires { Def::kPlan; }) return plan(info, Def::kPlan, 1e7);
      else return plan(info, PlanColumns{.db = 0}, 1e7);
    });
  }

  static int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      c->sel = decode(Def::kTableName, idx_str, argc, argv);
      // A table of steps without a pattern takes the connection's (rocpd_step_pattern()).
      if constexpr (requires { Def::kPlan.pattern; })
        if (Def::kPlan.pattern >= 0 && !c->sel.pattern)
          c->sel.pattern = default_step_pattern(static_cast<Table*>(cur->pVtab)->conn);
      const Selection& sel = c->sel;
      sqlite3* conn = static_cast<Table*>(cur->pVtab)->conn;
      typename MemberBatches<Rows>::Compute compute;
      if constexpr (requires { Def::kPlan; })
        compute = [&sel](const canonical::Member& m, sqlite3* db, const members::InterruptWatch& watch) {
          return Def::compute(m, db, watch, sel);
        };
      else compute = &Def::compute;
      typename MemberBatches<Rows>::Prepare prepare;
      if constexpr (requires { &Def::prepare; }) prepare = &Def::prepare;
      size_t per_core = 2;
      if constexpr (requires { Def::kBatchPerCore; }) per_core = Def::kBatchPerCore;
      c->batches = std::make_unique<MemberBatches<Rows>>(conn, Def::kTableName, compute, prepare, per_core);
      c->batches->start(sel.nothing ? std::vector<MemberRef>{} : query_members(conn, sel.db));
      c->member = c->row = 0;
      c->settle();
      return SQLITE_OK;
    });
  }

  static int next(sqlite3_vtab_cursor* cur) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      ++c->row;
      c->settle();
      return SQLITE_OK;
    });
  }

  static int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

  static int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      const MemberRef& m = c->batches->member(c->member);
      if (col == 0) sqlite3_result_text(ctx, m.db.data(), static_cast<int>(m.db.size()), SQLITE_TRANSIENT);
      else if constexpr (requires { Def::kPlan; }) Def::column(c->batches->rows(c->member), c->row, m, c->sel, ctx, col);
      else Def::column(c->batches->rows(c->member), c->row, m, ctx, col);
      return SQLITE_OK;
    });
  }

  static int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      *out = Def::rowid(c->batches->rows(c->member), c->row, c->batches->member(c->member));
      return SQLITE_OK;
    });
  }

  static sqlite3_module make_module() {
    return read_only_module<Cursor>(connect, best_index, filter, next, eof, column, rowid);
  }
};

}  // namespace rocpd::analysis
