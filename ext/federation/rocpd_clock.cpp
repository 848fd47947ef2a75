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
//   rocpd_align('collectives' [, max_residual_ns])
//                                        -> aligns every member from every collective instance
//                                           rocpd_collectives matched: the offset that makes the
//                                           median of its ends' differences from each instance's
//                                           median end 0; a member whose residual (the median
//                                           absolute difference after that) exceeds
//                                           max_residual_ns (default 100000) keeps its offset:
//                                           flagged in rocpd_members.clock_residual_ns, not aligned
//   rocpd_align('first')                 -> aligns the members' first timestamps
//   rocpd_align('utc')                   -> aligns the members that record their clock's UTC
//                                           (FormatInfo::utc_anchor_ns: nsys's session start)
//   rocpd_align('none')                  -> every offset back to 0
// rocpd_align returns how many members it aligned; the first member (in rocpd_members order)
// with a match keeps its offset and is the reference. All DIRECTONLY: a view or trigger stored in
// a database may not move the clocks.
#include "federation/rocpd_clock.h"
#include "common/like_pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "members/interrupt.h"

namespace rocpd::federation {

namespace {

members::Registry& registry_of(sqlite3_context* ctx) {
  return *static_cast<std::shared_ptr<members::Registry>*>(sqlite3_user_data(ctx))->get();
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
      // An offset set by hand has no residual.
      for (const auto& m : registry_of(ctx).members())
        if (m->alias == db) m->clock_residual_ns = canonical::kNoClockResidual;
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

// The median of `v` (reordered), the lower middle value's mean with the upper one for an even count.
__int128 median_of(std::vector<__int128>& v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const __int128 upper = v[mid];
  if (v.size() % 2) return upper;
  const __int128 lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  const __int128 sum = lower + upper;
  return sum >= 0 ? sum / 2 : -((-sum + 1) / 2);  // floor
}

// rocpd_align('collectives'): the members' ends of every matched collective instance; each
// member's correction a makes the median of (end + a - the instance's median end) over its
// collectives 0 (a few rounds: the instance medians move with the corrections); the first member
// with collectives keeps its offset. Returns how many members moved.
int64_t align_collectives(members::Registry& reg, sqlite3* host, const std::vector<canonical::MemberPtr>& members, int64_t max_residual) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < members.size(); ++i) index.emplace(members[i]->alias, i);
  struct Sample {
    size_t member, instance;
    int64_t end;
  };
  std::vector<Sample> samples;
  std::map<std::pair<std::string, int64_t>, size_t> instances;
  {
    Stmt stmt;
    try {
      stmt = prepare(host, "SELECT db, family, instance, \"end\" FROM rocpd_collectives WHERE participants > 1",
                     "rocpd_align('collectives')");
    } catch (const Error& e) {
      throw Error(fmt::format("rocpd_align('collectives') reads rocpd_collectives (docs/ranks.md): {}", e.what()));
    }
    while (step(stmt.get(), "rocpd_align('collectives')")) {
      auto it = index.find(std::string(column_text(stmt.get(), 0)));
      if (it == index.end() || sqlite3_column_type(stmt.get(), 3) != SQLITE_INTEGER) continue;
      const auto key = std::pair{std::string(column_text(stmt.get(), 1)), sqlite3_column_int64(stmt.get(), 2)};
      const size_t inst = instances.try_emplace(key, instances.size()).first->second;
      samples.push_back({it->second, inst, sqlite3_column_int64(stmt.get(), 3)});
    }
  }
  if (samples.empty())
    throw Error("rocpd_align('collectives'): no collective is matched across members (rocpd_collectives has no "
                "instance with two participants or more)");
  std::vector<std::vector<size_t>> by_instance(instances.size()), by_member(members.size());
  for (size_t s = 0; s < samples.size(); ++s) {
    by_instance[samples[s].instance].push_back(s);
    by_member[samples[s].member].push_back(s);
  }
  std::vector<__int128> correction(members.size(), 0), consensus(instances.size(), 0), values;
  auto settle_consensus = [&] {
    for (size_t i = 0; i < by_instance.size(); ++i) {
      values.clear();
      for (size_t s : by_instance[i]) values.push_back(samples[s].end + correction[samples[s].member]);
      consensus[i] = median_of(values);
    }
  };
  for (int round = 0; round < 20; ++round) {
    settle_consensus();
    bool moved = false;
    for (size_t m = 0; m < members.size(); ++m) {
      if (by_member[m].empty()) continue;
      values.clear();
      for (size_t s : by_member[m])
        values.push_back(consensus[samples[s].instance] - (samples[s].end + correction[m]));
      const __int128 step = median_of(values);
      if (step != 0) moved = true;
      correction[m] += step;
    }
    if (!moved) break;
  }
  settle_consensus();
  size_t ref = 0;
  while (by_member[ref].empty()) ++ref;
  const __int128 shift = correction[ref];
  int64_t aligned = 0;
  for (size_t m = 0; m < members.size(); ++m) {
    canonical::Member& member = *members[m];
    if (by_member[m].empty()) {
      member.clock_residual_ns = canonical::kNoClockResidual;
      continue;
    }
    values.clear();
    for (size_t s : by_member[m]) {
      const __int128 d = samples[s].end + correction[m] - consensus[samples[s].instance];
      values.push_back(d < 0 ? -d : d);
    }
    const __int128 residual = median_of(values);
    member.clock_residual_ns = residual > INT64_MAX ? INT64_MAX : static_cast<int64_t>(residual);
    if (residual > max_residual) continue;  // flagged: a constant offset does not explain its clock
    const __int128 offset = member.clock_offset.load() + correction[m] - shift;
    if (offset < INT64_MIN || offset > INT64_MAX)
      throw Error(fmt::format("rocpd_align('collectives'): the offset of member '{}' is more than an integer holds",
                              member.alias));
    reg.set_clock_offset(member.alias, static_cast<int64_t>(offset));
    ++aligned;
  }
  return aligned;
}

void align_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    members::Registry& reg = registry_of(ctx);
    sqlite3* host = sqlite3_context_db_handle(ctx);
    const std::string method =
        text_arg(argv[0], "rocpd_align", "the method ('collectives', 'collective', 'first' or 'none')");
    const auto members = reg.members();
    if (method == "collectives") {
      if (argc > 2) throw Error("rocpd_align('collectives') takes at most one more argument, max_residual_ns");
      int64_t max_residual = 100'000;
      if (argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
        if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) < 0)
          throw Error("rocpd_align('collectives', max_residual_ns): max_residual_ns must be an integer >= 0");
        max_residual = sqlite3_value_int64(argv[1]);
      }
      sqlite3_result_int64(ctx, align_collectives(reg, host, members, max_residual));
      return;
    }
    // Every other method sets offsets without a residual.
    for (const auto& m : members) m->clock_residual_ns = canonical::kNoClockResidual;
    if (method == "none") {
      for (const auto& m : members) reg.set_clock_offset(m->alias, 0);
      sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(members.size()));
      return;
    }
    std::map<std::string, int64_t> at;
    std::string what;
    if (method == "collective") {
      std::string pattern = "%AllReduce%";
      if (argc > 1) {
        auto given = like_pattern_arg(argv[1], "rocpd_align", "the kernel name pattern", "%AllReduce%");
        if (!given) throw Error("rocpd_align: the kernel name pattern must be text");
        pattern = std::move(*given);
      }
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
    } else if (method == "utc") {
      if (argc > 1) throw Error("rocpd_align('utc') takes no other argument");
      // On the job's clock a member's time t is UTC t + anchor - offset: the anchors' differences
      // are the offsets' (the reference keeps its own).
      for (const auto& m : members) {
        int64_t t = 0;
        if (m->info.utc_anchor_ns && __builtin_sub_overflow(m->clock_offset.load(), *m->info.utc_anchor_ns, &t))
          throw Error(fmt::format("rocpd_align('utc'): member '{}': its offset minus its UTC anchor is more than an "
                                  "integer holds",
                                  m->alias));
        if (m->info.utc_anchor_ns) at.emplace(m->alias, t);
      }
      what = "a recorded UTC clock anchor (utc_anchor_ns: an nsys export's session start)";
    } else if (method == "first") {
      if (argc > 1) throw Error("rocpd_align('first') takes no pattern");
      at = times(host, "SELECT db, first_ns FROM temp.rocpd_members", nullptr);
      what = "a timestamp";
    } else {
      throw Error(fmt::format("rocpd_align('{}'): unknown method; use 'collectives' [, max_residual_ns], "
                              "'collective' [, pattern], 'utc', 'first' or 'none'",
                              method));
    }
    // The reference: the first member (in member order) that has the event.
    const canonical::Member* ref = nullptr;
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
      const __int128 offset = static_cast<__int128>(m->clock_offset.load()) + target - it->second;
      if (offset < INT64_MIN || offset > INT64_MAX)
        throw Error(fmt::format("rocpd_align('{}'): the offset of member '{}' is more than an integer holds", method,
                                m->alias));
      reg.set_clock_offset(m->alias, static_cast<int64_t>(offset));
      ++aligned;
    }
    sqlite3_result_int64(ctx, aligned);
  });
}

}  // namespace

int register_rocpd_clock(sqlite3* db, const std::shared_ptr<members::Registry>& registry) {
  auto destroy = [](void* p) { delete static_cast<std::shared_ptr<members::Registry>*>(p); };
  int rc = SQLITE_OK;
  for (int argc : {1, 2})
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_clock_offset", argc, kFileFunction,
                                      new std::shared_ptr<members::Registry>(registry), clock_offset_fn, nullptr, nullptr,
                                      destroy);
  for (int argc : {1, 2, 3})
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_align", argc, kFileFunction, new std::shared_ptr<members::Registry>(registry),
                                      align_fn, nullptr, nullptr, destroy);
  return rc;
}

}  // namespace rocpd::federation
