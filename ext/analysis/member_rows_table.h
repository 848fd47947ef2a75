// An eponymous-only virtual table whose rows are computed per member on every core
// (analysis/member_batches.h), a batch of members at a time: the template of every analysis table
// whose rows belong to one member each (rocpd_op_launches, rocpd_queue_steps, rocpd_comm_classes,
// rocpd_kernel_stacks, rocpd_idle_breakdown, ...). Tables whose rows depend on several members use
// JobTable (analysis/job_table.h).
//
// HOW IT WORKS: xBestIndex (plan(), member_read.h) passes `db =` (BINARY; only that member is
// read, SQLite re-checks), `gpu =` and the hidden arguments of kPlan to xFilter, one code letter
// each in idxStr; xFilter decodes them into a Selection, checks it (Def::check), lists the members
// it reads (query_members) and computes them a batch at a time; xNext moves through a member's rows,
// then to the next member, then to the next batch. Every other constraint is SQLite's, so the table
// answers like a plain table with the same rows.
//
// `Def` provides: kTableName, kSchema (the CREATE TABLE statement, db first), a Rows type with
// size(), and
//   static Rows compute(const canonical::Member&, sqlite3*, const members::InterruptWatch&);
//   (or `static Rows compute_visit(Registry&, const MemberPtr&, sqlite3*, InterruptWatch&, const Sel&)`
//   for a computation that uses the registry in its visit: a stash for a later pass)
//   static void column(const Rows&, size_t row, const MemberRef&, sqlite3_context*, int col);
//   static int64_t rowid(const Rows&, size_t row, const MemberRef&);
// and optionally
//   `static void prepare(Registry&, const std::vector<MemberPtr>&, InterruptWatch&)`, run on the
//     connection's thread before each batch (MemberBatches::Prepare);
//   kBatchPerCore: members per core in a batch after the first (default 2: more for tables whose
//     rows are small);
//   kOrder: the order its rows come in (members in natural order, each member's rows in the order
//     of the listed columns; its db column declared COLLATE rocpd_natural): an ORDER BY that is a
//     prefix of it is consumed (SQLite does not sort the rows again);
//   kPlan: the hidden arguments and gpu pushdown (PlanColumns; default: db only); compute and
//     column then take the decoded Selection as a last argument; a pattern argument left out is
//     the connection's step pattern, unless kPatternOptional (then it stays unset);
//   `static void check(const Selection&)`: throws for arguments out of range, before any member is
//     read;
//   kCost: the plan's estimated cost of a full scan (default 1e7);
//   RowState: state a scan keeps for its rowids (e.g. RowNumbering); rowid then takes it as a last
//     argument;
//   kWindow: the plan of the tables over the ops window (WindowColumns, analysis/ops_window.h)
//     instead of kPlan: the selection is then an OpsWindow;
//   Source: what computes the members' rows instead of MemberBatches, with MemberBatches' start,
//     next_batch, size, rows and member, constructed as Source(conn, selection) before the members
//     are listed (it may validate the arguments, and set the selection's `nothing`): the tables
//     that read the members' busy lists through the summary engine (BusyReader).
#pragma once
#include <fmt/format.h>

#include <memory>
#include <type_traits>
#include <vector>

#include "common/vtab_util.h"
#include "analysis/member_read.h"
#include "analysis/step_ranges.h"
#include "analysis/member_batches.h"
#include "analysis/ops_window.h"

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

  static constexpr bool kCustomSource = requires { typename Def::Source; };
  using Sel = std::conditional_t<requires { Def::kWindow; }, OpsWindow, Selection>;
  template <class D>
  static auto source_of(int) -> typename D::Source;
  template <class D>
  static auto source_of(...) -> MemberBatches<Rows>;
  using Source = decltype(source_of<Def>(0));

  struct NoRowState {};
  template <class D>
  static auto row_state_of(int) -> typename D::RowState;
  template <class D>
  static auto row_state_of(...) -> NoRowState;

  struct Cursor : sqlite3_vtab_cursor {
    Sel sel;
    std::unique_ptr<Source> batches;
    decltype(row_state_of<Def>(0)) row_state;
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
      double cost = 1e7;
      if constexpr (requires { Def::kCost; }) cost = Def::kCost;
      if constexpr (requires { Def::kWindow; }) return plan_constraints(info, Def::kWindow);
      else if constexpr (requires { Def::kPlan; }) return plan(info, Def::kPlan, cost);
      else return plan(info, PlanColumns{.db = 0}, cost);
    });
  }

  // A table whose pattern asks for more than its rows (kPatternOptional) has none unless given.
  static constexpr bool pattern_optional() {
    if constexpr (requires { Def::kPatternOptional; }) return Def::kPatternOptional;
    else return false;
  }

  static int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      sqlite3* conn = static_cast<Table*>(cur->pVtab)->conn;
      if constexpr (requires { Def::kWindow; }) c->sel = decode_constraints(Def::kTableName, idx_str, argc, argv);
      else c->sel = decode(Def::kTableName, idx_str, argc, argv);
      // A table of steps without a pattern takes the connection's (rocpd_step_pattern()).
      if constexpr (requires { Def::kPlan.pattern; })
        if (Def::kPlan.pattern >= 0 && !c->sel.pattern && !pattern_optional()) c->sel.pattern = default_step_pattern(conn);
      const Sel& sel = c->sel;
      if constexpr (requires { &Def::check; }) Def::check(sel);
      c->row_state = {};
      if constexpr (kCustomSource) {
        c->batches = std::make_unique<Source>(conn, c->sel);
      } else {
        typename MemberBatches<Rows>::ComputeVisit compute;
        if constexpr (requires { &Def::compute_visit; })
          compute = [&sel](members::Registry& r, const canonical::MemberPtr& m, sqlite3* db, members::InterruptWatch& watch) {
            return Def::compute_visit(r, m, db, watch, sel);
          };
        else if constexpr (requires { Def::kPlan; })
          compute = [&sel](members::Registry&, const canonical::MemberPtr& m, sqlite3* db, members::InterruptWatch& watch) {
            return Def::compute(*m, db, watch, sel);
          };
        else
          compute = [](members::Registry&, const canonical::MemberPtr& m, sqlite3* db, members::InterruptWatch& watch) {
            return Def::compute(*m, db, watch);
          };
        typename MemberBatches<Rows>::Prepare prepare;
        if constexpr (requires { &Def::prepare; }) prepare = &Def::prepare;
        size_t per_core = 2;
        if constexpr (requires { Def::kBatchPerCore; }) per_core = Def::kBatchPerCore;
        c->batches = std::make_unique<Source>(conn, Def::kTableName, compute, prepare, per_core);
      }
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
      else if constexpr (requires { Def::kPlan; } || requires { Def::kWindow; })
        Def::column(c->batches->rows(c->member), c->row, m, c->sel, ctx, col);
      else Def::column(c->batches->rows(c->member), c->row, m, ctx, col);
      return SQLITE_OK;
    });
  }

  static int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
    auto* c = static_cast<Cursor*>(cur);
    return guard(cur->pVtab, [&] {
      if constexpr (requires { typename Def::RowState; })
        *out = Def::rowid(c->batches->rows(c->member), c->row, c->batches->member(c->member), c->row_state);
      else *out = Def::rowid(c->batches->rows(c->member), c->row, c->batches->member(c->member));
      return SQLITE_OK;
    });
  }

  static sqlite3_module make_module() {
    return read_only_module<Cursor>(connect, best_index, filter, next, eof, column, rowid);
  }
};

}  // namespace rocpd::analysis
