#include "critical_path/job_paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <span>
#include <map>
#include <set>
#include <tuple>

#include "members/interrupt.h"
#include "members/member_pool.h"
#include "analysis/ops_window.h"
#include "analysis/collective_match.h"

namespace rocpd::critical_path {

using namespace analysis;
namespace {

struct Participant {
  uint32_t member, row;
};

// The job's collectives matched across members as rocpd_collectives matches them
// (analysis/collective_match.h): per matched instance its participants, and for every collective the
// participant whose arrival binds its end (the last to start at or before that end; itself for a
// collective no other rank matched).
struct Matching {
  const std::vector<MemberPaths>* members = nullptr;
  std::vector<std::vector<Participant>> instances;
  std::vector<std::vector<int32_t>> instance_of;  // per member and collective: its instance, or -1
  std::vector<std::vector<Participant>> binding;  // per member and collective

  const MemberCollective& row(const Participant& p) const { return (*members)[p.member].collectives[p.row]; }
};

Matching match_job(const std::vector<MemberPaths>& per_member, const JobRuns& runs, sqlite3* conn, const char* table) {
  Matching mt;
  mt.members = &per_member;
  using Key = std::pair<int, int64_t>;
  auto key_of = [](const Cell& c) -> Key {
    if (c.type == SQLITE_FLOAT) return {c.type, std::bit_cast<int64_t>(c.d)};
    if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) return {c.type, static_cast<int64_t>(c.text)};
    return {c.type, c.type == SQLITE_INTEGER ? c.i : 0};
  };
  std::map<std::pair<uint32_t, std::string>, uint32_t> family_index;  // (run, family): runs never match
  std::map<std::tuple<uint32_t, Key, Key>, uint32_t> participants;  // (member, pid, gpu)
  std::vector<analysis::Collective> all;
  std::vector<Participant> where;
  mt.instance_of.resize(per_member.size());
  mt.binding.resize(per_member.size());
  for (uint32_t m = 0; m < per_member.size(); ++m) {
    const MemberPaths& pm = per_member[m];
    std::vector<uint32_t> families;
    for (const std::string& f : pm.families)
      families.push_back(
          family_index.try_emplace({runs.of_member[m], f}, static_cast<uint32_t>(family_index.size())).first->second);
    mt.instance_of[m].assign(pm.collectives.size(), -1);
    for (uint32_t r = 0; r < pm.collectives.size(); ++r) {
      const MemberCollective& c = pm.collectives[r];
      mt.binding[m].push_back({m, r});
      const auto p = participants.try_emplace({m, key_of(c.pid), key_of(c.gpu)}, static_cast<uint32_t>(participants.size()));
      all.push_back({p.first->second, families[c.family], c.start, c.end, c.rowid});
      where.push_back({m, r});
    }
  }
  members::InterruptWatch host(conn);
  const auto matched = analysis::match_collectives(
      all, table, [](const void* w) { static_cast<members::InterruptWatch*>(const_cast<void*>(w))->check(); }, &host);
  std::map<std::pair<uint32_t, int64_t>, uint32_t> index;  // (family, instance)
  for (size_t n = 0; n < matched.size(); ++n) {
    if (!matched[n].participants || *matched[n].participants < 2) continue;
    auto [it, added] = index.try_emplace({all[n].family, matched[n].instance}, static_cast<uint32_t>(mt.instances.size()));
    if (added) mt.instances.emplace_back();
    mt.instances[it->second].push_back(where[n]);
    mt.instance_of[where[n].member][where[n].row] = static_cast<int32_t>(it->second);
  }
  // Each row is bound to the participant of its instance that arrived last before the row ended:
  // the latest start at or before its end (ties: the row's own arrival, then the participant
  // listed first). Per instance, the participants sorted by (start, listing) once, and each row
  // looked up by binary search: a job of N ranks costs N log N per instance, not N^2.
  for (const auto& parts : mt.instances) {
    std::vector<std::pair<int64_t, uint32_t>> by_start(parts.size());  // (start, listing)
    for (uint32_t i = 0; i < parts.size(); ++i) by_start[i] = {mt.row(parts[i]).start, i};
    std::sort(by_start.begin(), by_start.end());
    std::vector<uint32_t> first_of_start(by_start.size());  // the first listed with that start
    for (size_t i = 0; i < by_start.size(); ++i)
      first_of_start[i] = i > 0 && by_start[i].first == by_start[i - 1].first ? first_of_start[i - 1] : by_start[i].second;
    for (const Participant& own : parts) {
      const MemberCollective& c = mt.row(own);
      Participant best = own;
      auto it = std::upper_bound(by_start.begin(), by_start.end(), std::pair<int64_t, uint32_t>{c.end, UINT32_MAX});
      if (it != by_start.begin()) {
        const size_t at = static_cast<size_t>(it - by_start.begin()) - 1;
        if (by_start[at].first > c.start) best = parts[first_of_start[at]];
      }
      mt.binding[own.member][own.row] = best;
    }
  }
  return mt;
}

// Reads every member into its MemberPaths on every core.
std::vector<MemberPaths> read_members(sqlite3* conn, const std::vector<MemberRef>& members, const GraphRequest& request,
                                      const PathsRequest& paths, const char* table) {
  std::vector<MemberPaths> out(members.size());
  if (members.empty()) return out;
  const analysis::MemberSet set = analysis::open_members(conn, members, table);
  members::InterruptWatch watch(conn);
  try {
    // An op's pid costs a lookup per op in some formats unless the member's profile gives it
    // (as ranks/job_collectives.cpp reads them): computed in the same visit.
    const uint64_t pid_bit = uint64_t{1} << canonical::kOpsPid;
    members::MemberPool pool(*set.registry, watch);
    // Freed arrays are kept for the next member of the core (no page faults for its arrays) only
    // when a core reads several: they would add to the peak memory of a large member read alone.
    std::optional<BigAllocReuse> reuse;
    if (set.members.size() > pool.lanes()) reuse.emplace();
    pool.run(set.members, [&](size_t i, sqlite3* db, size_t lane) {
      const bool host = lane == 0;
      const canonical::MemberPtr& m = set.members[i];
      const auto profile = set.registry->profile_on(m, db, watch, pid_bit);
      out[i] = member_paths(build_graph(*m, db, request, watch, host, profile.get(), table), paths, watch, host);
    });
  } catch (...) {
    members::InterruptWatch host(conn);
    if (host.poll()) members::InterruptWatch::raise();
    throw;
  }
  return out;
}

// The member steps of each job step: (member, index into its steps), by run and step number.
std::map<StepKey, std::vector<std::pair<uint32_t, uint32_t>>> job_steps(const std::vector<MemberPaths>& per_member,
                                                                        const JobRuns& runs) {
  std::map<StepKey, std::vector<std::pair<uint32_t, uint32_t>>> steps;
  for (uint32_t m = 0; m < per_member.size(); ++m)
    for (uint32_t s = 0; s < per_member[m].steps.size(); ++s)
      steps[{runs.of_member[m], per_member[m].steps[s].index}].push_back({m, s});
  return steps;
}

// The members' run labels (rocpd_runs, docs/diagnosis.md "Comparing runs").
JobRuns job_runs(sqlite3* conn, const std::vector<MemberRef>& members) {
  JobRuns out;
  std::map<std::string, std::string> label_of;
  // The view comes with the SQL views (sql/views); a connection without them labels no run.
  Stmt has = prepare(conn, "SELECT 1 FROM sqlite_temp_master WHERE type = 'view' AND name = 'rocpd_runs'",
                     "reading rocpd_runs");
  if (step(has.get(), "reading rocpd_runs")) {
    Stmt s = prepare(conn, "SELECT db, run FROM temp.rocpd_runs WHERE run IS NOT NULL", "reading rocpd_runs");
    while (step(s.get(), "reading rocpd_runs")) label_of[std::string(column_text(s.get(), 0))] = column_text(s.get(), 1);
  }
  std::set<std::string> labels;
  for (const auto& [db, run] : label_of) labels.insert(run);
  out.labels.assign(labels.begin(), labels.end());
  for (const MemberRef& m : members) {
    const auto it = label_of.find(m.db);
    out.of_member.push_back(it == label_of.end() ? 0
                                                 : 1 + static_cast<uint32_t>(std::lower_bound(out.labels.begin(),
                                                                                              out.labels.end(), it->second) -
                                                                             out.labels.begin()));
  }
  return out;
}

class PathWriter {
 public:
  PathWriter(std::vector<PathRow>& rows, StepKey step) : rows_(rows), step_(step), first_(rows.size()) {}
  // Segments come from the end of the step backward.
  void add(uint32_t member, const Attribution& what, int64_t start, int64_t end) {
    if (end <= start) return;
    if (rows_.size() > first_) {
      PathRow& last = rows_.back();
      if (last.member == member && last.what.key() == what.key() && last.start == end) {
        last.start = start;
        return;
      }
    }
    rows_.push_back({member, step_.first, step_.second, what, start, end});
  }
  void add(uint32_t member, Kind kind, uint32_t place, uint32_t name, int64_t start, int64_t end) {
    Attribution what;
    what.kind = kind;
    what.place = place;
    what.name = name;
    add(member, what, start, end);
  }
  void finish() { std::reverse(rows_.begin() + static_cast<std::ptrdiff_t>(first_), rows_.end()); }

 private:
  std::vector<PathRow>& rows_;
  StepKey step_;
  size_t first_;
};

}  // namespace

JobPaths job_critical_paths(sqlite3* conn, const std::string& pattern, const char* table) {
  JobPaths out;
  out.members = analysis::query_members(conn, std::nullopt);
  GraphRequest request;
  request.step_pattern = pattern;
  out.runs = job_runs(conn, out.members);
  out.per_member = read_members(conn, out.members, request, PathsRequest{}, table);
  const Matching mt = match_job(out.per_member, out.runs, conn, table);
  members::InterruptWatch host(conn);
  size_t budget = 16;
  for (const auto& pm : out.per_member) budget += pm.entries.size() + pm.arrival_entry.size();
  for (const auto& [k, steps] : job_steps(out.per_member, out.runs)) {
    host.check();
    int64_t start = INT64_MAX, end = INT64_MIN;
    std::pair<uint32_t, uint32_t> anchor{0, 0};
    for (const auto& [m, s] : steps) {
      const MemberStep& st = out.per_member[m].steps[s];
      out.inferred[k] += st.inferred;
      start = std::min(start, st.start);
      if (st.end > end) {
        end = st.end;
        anchor = {m, s};
      }
    }
    PathWriter writer(out.rows, k);
    uint32_t m = anchor.first;
    int32_t cur = out.per_member[m].step_entry[anchor.second];
    // Every entry is visited at most once per path; the budget only guards against a defect.
    for (size_t guard = 0; cur >= 0 && guard < budget; ++guard) {
      if ((guard & 0xffff) == 0xffff) host.check();
      const MemberPaths& pm = out.per_member[m];
      const Entry& en = pm.entries[static_cast<size_t>(cur)];
      const Attribution& at = pm.attributions[en.attribution];
      const int64_t from = pm.from(en);
      if (from == INT64_MIN) {
        writer.add(m, Kind::IdleGap, at.place, kNone, start, en.to);
        break;
      }
      writer.add(m, at, std::max(from, start), en.to);
      if (from <= start) break;
      if (en.next >= 0) {
        cur = en.next;
        continue;
      }
      // The end of a collective: it waited for its instance's last arrival.
      const auto row = static_cast<uint32_t>(-2 - en.next);
      const Participant b = mt.binding[m][row];
      const int64_t arrival = mt.row(b).start;
      writer.add(m, Kind::CollectiveWait, pm.collective_place[row], pm.collective_name[row], std::max(arrival, start),
                 from);
      if (arrival <= start) break;
      cur = out.per_member[b.member].arrival_entry[b.row];
      if (cur < 0) {  // its op was not read into the graph: nothing known before the arrival
        writer.add(m, Kind::IdleGap, pm.collective_place[row], kNone, start, arrival);
        break;
      }
      m = b.member;
    }
    writer.finish();
  }
  return out;
}

namespace {

// An instant of a job step's windows (one member step each) in the what-if sweep.
struct SweepItem {
  int64_t t;       // measured time
  int type;        // 0: an output, 1: a cut
  uint32_t window, index;
};

using StepWindows = std::vector<std::pair<uint32_t, uint32_t>>;  // (member, step) per window

// The predicted ends of every window of one step (`outputs`), given the windows' matrices: the
// predicted arrivals of the collectives and the windows' cuts are recomputed in time order.
void sweep_what_if(const std::vector<MemberPaths>& per_member, const Matching& mt, const StepWindows& steps,
                   const std::vector<SweepItem>& items, double factor,
                   std::map<std::pair<uint32_t, uint32_t>, int64_t>& arrival, std::vector<std::vector<int64_t>>& outputs,
                   std::vector<std::vector<int64_t>>& cuts, members::InterruptWatch& host) {
  // In time order every value depends on earlier ones only, but for paths of zero length between
  // items of one instant: sweep again until nothing changes.
  for (size_t sweep = 0; sweep < items.size() + 1; ++sweep) {
    host.check();
    bool changed = false;
    for (const SweepItem& it : items) {
      const auto [m, s] = steps[it.window];
      const StepMatrix& mx = per_member[m].matrices[s];
      int64_t value = kNeg;
      if (it.type == 1) {
        const uint32_t r = mx.inputs[it.index];
        const int32_t inst = mt.instance_of[m][r];
        const auto& own = per_member[m].collectives[r];
        const Participant b = mt.binding[m][r];
        int64_t work = own.end - mt.row(b).start;
        if (per_member[m].collective_scaled[r]) work = scaled_lag(work, factor);
        const Participant self{m, r};
        const std::span<const Participant> parts =
            inst >= 0 ? std::span<const Participant>(mt.instances[static_cast<size_t>(inst)]) : std::span(&self, 1);
        for (const Participant& p : parts) {
          const auto& pr = mt.row(p);
          if (pr.start > own.end) continue;
          auto a = arrival.find({p.member, p.row});
          const int64_t at = a == arrival.end() ? pr.start : a->second;
          value = std::max(value, saturated_add(at, work));
        }
        if (value != cuts[it.window][it.index]) {
          cuts[it.window][it.index] = value;
          changed = true;
        }
      } else {
        const size_t inputs = mx.inputs.size();
        value = mx.base[it.index];
        for (size_t i = 0; i < inputs; ++i) {
          const int64_t d = mx.d[it.index * inputs + i], c = cuts[it.window][i];
          if (d != kNeg && c != kNeg) value = std::max(value, saturated_add(c, d));
        }
        if (value != outputs[it.window][it.index]) {
          outputs[it.window][it.index] = value;
          changed = true;
        }
        if (it.index < mx.outputs.size()) arrival[{m, mx.outputs[it.index]}] = value;
      }
    }
    if (!changed) break;
  }
}

// One row of rocpd_what_if: job step k (its windows `steps`) measured, and predicted with the ops
// matching the pattern scaled by `factor`.
WhatIfRow what_if_step(const std::vector<MemberPaths>& per_member, const JobRuns& runs, const Matching& mt,
                       const StepKey& k, const StepWindows& steps, double factor, const std::string& name_pattern,
                       const char* table, members::InterruptWatch& host) {
  WhatIfRow row;
  row.run = k.first;
  if (const std::string* label = runs.label(k.first)) row.run_label = *label;
  row.step = k.second;
  row.start = INT64_MAX;
  row.measured_end = INT64_MIN;
  row.ranks = static_cast<int64_t>(steps.size());
  // Predicted arrivals of the collectives arriving inside a window, and the windows' cuts.
  std::map<std::pair<uint32_t, uint32_t>, int64_t> arrival;  // (member, row) -> predicted start
  std::vector<SweepItem> items;
  std::vector<std::vector<int64_t>> outputs(steps.size()), cuts(steps.size());
  for (uint32_t w = 0; w < steps.size(); ++w) {
    const auto [m, s] = steps[w];
    const MemberPaths& pm = per_member[m];
    const MemberStep& st = pm.steps[s];
    const StepMatrix& mx = pm.matrices[s];
    row.start = std::min(row.start, st.start);
    row.measured_end = std::max(row.measured_end, st.end);
    row.matches += mx.matches;
    row.inferred += st.inferred;
    const std::string& name = st.name == kNone ? std::string() : pm.names[st.name];
    if (w == 0 || name < row.name) row.name = name;
    outputs[w] = mx.base;
    cuts[w].assign(mx.inputs.size(), kNeg);
    const auto& rows = pm.collectives;
    for (uint32_t o = 0; o < mx.outputs.size(); ++o) {
      items.push_back({rows[mx.outputs[o]].start, 0, w, o});
      arrival[{m, mx.outputs[o]}] = rows[mx.outputs[o]].start;
    }
    items.push_back({st.end, 0, w, static_cast<uint32_t>(mx.outputs.size())});
    for (uint32_t i = 0; i < mx.inputs.size(); ++i) items.push_back({rows[mx.inputs[i]].end, 1, w, i});
  }
  std::sort(items.begin(), items.end(),
            [](const SweepItem& a, const SweepItem& b) {
              return std::tie(a.t, a.type, a.window, a.index) < std::tie(b.t, b.type, b.window, b.index);
            });
  sweep_what_if(per_member, mt, steps, items, factor, arrival, outputs, cuts, host);
  row.predicted_end = INT64_MIN;
  for (uint32_t w = 0; w < steps.size(); ++w) row.predicted_end = std::max(row.predicted_end, outputs[w].back());
  // Saturated sums (member_graph.h) reach kTimeLimit only when the factor made some path too long.
  if (row.predicted_end >= kTimeLimit)
    throw Error(fmt::format("{}: {}step {}: the predicted step end lies beyond 2^62 ns (146 years): factor {} makes "
                            "the ops, ranges or calls matching '{}' too long to predict",
                            table, row.run_label ? "run '" + *row.run_label + "' " : std::string(), row.step, factor,
                            name_pattern));
  return row;
}

}  // namespace

std::vector<WhatIfRow> job_what_if(sqlite3* conn, const std::string& step_pattern, const std::string& name_pattern,
                                   double factor, const char* table) {
  GraphRequest request;
  request.step_pattern = step_pattern;
  request.scale_pattern = name_pattern;
  PathsRequest paths;
  paths.walk = false;
  paths.matrices = true;
  paths.factor = factor;
  const std::vector<MemberRef> members = analysis::query_members(conn, std::nullopt);
  const JobRuns runs = job_runs(conn, members);
  const std::vector<MemberPaths> per_member = read_members(conn, members, request, paths, table);
  const Matching mt = match_job(per_member, runs, conn, table);
  members::InterruptWatch host(conn);
  std::vector<WhatIfRow> out;
  for (const auto& [k, steps] : job_steps(per_member, runs)) {
    host.check();
    out.push_back(what_if_step(per_member, runs, mt, k, steps, factor, name_pattern, table, host));
  }
  return out;
}

}  // namespace rocpd::critical_path
