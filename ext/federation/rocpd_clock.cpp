// Clocks of several hosts (docs/federation.md, "Clocks"): every host stamps its traces with its own
// CLOCK_MONOTONIC/BOOTTIME, so members from different hosts are not on one clock. A member's clock
// offset (ns) is added to every time it returns; the offsets are set by hand or aligned on an
// event every rank shares.
//   rocpd_clock_offset(db)               -> the member's offset
//   rocpd_clock_offset(db, ns)           -> sets it, returns it
//   rocpd_align('collective' [, like [, 'first'|'last']])
//                                        -> aligns every member on the end of its first (or last)
//                                           kernel whose name is LIKE the pattern (default
//                                           '%AllReduce%'): a collective ends at the same instant
//                                           on every rank
//   rocpd_align('first')                 -> aligns the members' first timestamps
//   rocpd_align('none')                  -> every offset back to 0
// rocpd_align returns how many members it aligned; the first member (in rocpd_members order)
// with a match keeps its offset and is the reference. All DIRECTONLY: a view or trigger stored in
// a database may not move the clocks.
#include "federation/rocpd_clock.h"

#include <fmt/format.h>

#include <map>

#include "members/interrupt.h"

namespace rocpd::federation {

namespace {

Registry& registry_of(sqlite3_context* ctx) {
  return *static_cast<std::shared_ptr<Registry>*>(sqlite3_user_data(ctx))->get();
}

std::string text_arg(sqlite3_value* v, const char* fn, const char* what) {
  if (sqlite3_value_type(v) != SQLITE_TEXT) throw Error(fmt::format("{}: {} must be text", fn, what));
  return reinterpret_cast<const char*>(sqlite3_value_text(v));
}

void clock_offset_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    const std::string db = text_arg(argv[0], "rocpd_clock_offset", "db (a member name)");
    if (argc == 2) {
      if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
        throw Error("rocpd_clock_offset(db, ns): ns must be an integer number of nanoseconds");
      registry_of(ctx).set_clock_offset(db, sqlite3_value_int64(argv[1]));
    }
    sqlite3_result_int64(ctx, registry_of(ctx).clock_offset(db));
  });
}

// Per member, one time on the job's clock (the member's current offset included).
std::map<std::string, int64_t> times(sqlite3* host, const char* sql, const char* pattern) {
  Stmt stmt = prepare(host, sql, "rocpd_align");
  if (pattern) sqlite3_bind_text(stmt.get(), 1, pattern, -1, SQLITE_TRANSIENT);
  std::map<std::string, int64_t> out;
  while (step(stmt.get(), "rocpd_align"))
    if (sqlite3_column_type(stmt.get(), 1) == SQLITE_INTEGER)
      out.emplace(std::string(column_text(stmt.get(), 0)), sqlite3_column_int64(stmt.get(), 1));
  return out;
}

void align_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    Registry& reg = registry_of(ctx);
    sqlite3* host = sqlite3_context_db_handle(ctx);
    const std::string method = text_arg(argv[0], "rocpd_align", "the method ('collective', 'first' or 'none')");
    const auto members = reg.members();
    if (method == "none") {
      for (const auto& m : members) reg.set_clock_offset(m->alias, 0);
      sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(members.size()));
      return;
    }
    std::map<std::string, int64_t> at;
    std::string what;
    if (method == "collective") {
      const std::string pattern = argc > 1 ? text_arg(argv[1], "rocpd_align", "the kernel name pattern") : "%AllReduce%";
      const std::string which = argc > 2 ? text_arg(argv[2], "rocpd_align", "which kernel ('first' or 'last')") : "first";
      if (which != "first" && which != "last")
        throw Error(fmt::format("rocpd_align: which kernel must be 'first' or 'last', got '{}'", which));
      const std::string order = which == "first" ? "start, op_id" : "start DESC, op_id DESC";
      at = times(host,
                 fmt::format("SELECT db, \"end\" FROM (SELECT db, \"end\", row_number() OVER (PARTITION BY db ORDER BY "
                             "{}) AS n FROM temp.rocpd_ops WHERE kind = 'kernel' AND name LIKE ?1) WHERE n = 1",
                             order)
                     .c_str(),
                 pattern.c_str());
      what = fmt::format("a kernel whose name is LIKE '{}'", pattern);
    } else if (method == "first") {
      if (argc > 1) throw Error("rocpd_align('first') takes no pattern");
      at = times(host, "SELECT db, first_ns FROM temp.rocpd_members", nullptr);
      what = "a timestamp";
    } else {
      throw Error(fmt::format("rocpd_align('{}'): unknown method; use 'collective' [, pattern], 'first' or 'none'",
                              method));
    }
    // The reference: the first member (in member order) that has the event.
    const Member* ref = nullptr;
    for (const auto& m : members)
      if (at.count(m->alias)) {
        ref = m.get();
        break;
      }
    if (!ref) throw Error(fmt::format("rocpd_align('{}'): no member has {}", method, what));
    const int64_t target = at.at(ref->alias);
    int64_t aligned = 0;
    for (const auto& m : members) {
      auto it = at.find(m->alias);
      if (it == at.end()) continue;
      // The event is at it->second on the job's clock now; move the member by the difference.
      reg.set_clock_offset(m->alias, m->clock_offset.load() + (target - it->second));
      ++aligned;
    }
    sqlite3_result_int64(ctx, aligned);
  });
}

}  // namespace

int register_rocpd_clock(sqlite3* db, const std::shared_ptr<Registry>& registry) {
  auto destroy = [](void* p) { delete static_cast<std::shared_ptr<Registry>*>(p); };
  int rc = SQLITE_OK;
  for (int argc : {1, 2})
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_clock_offset", argc, kFileFunction,
                                      new std::shared_ptr<Registry>(registry), clock_offset_fn, nullptr, nullptr,
                                      destroy);
  for (int argc : {1, 2, 3})
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_align", argc, kFileFunction, new std::shared_ptr<Registry>(registry),
                                      align_fn, nullptr, nullptr, destroy);
  return rc;
}

}  // namespace rocpd::federation
