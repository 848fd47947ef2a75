// rocpd_members: one row per member (attached schema holding a trace, or opened file).
// Columns after `hostname` need a pass over the member (its profile, cached); a query that
// does not use them (idxNum bit 0 clear) lists even 1000 members without reading them.
// `db = x` and `db IN (...)` (BINARY) pick the members named, through the member list's index,
// checking only their files: idxStr has one letter per argv, `e` (=) or `i` (an IN list handed
// over whole), and those constraints are omitted (applied exactly).
// A hand-written sqlite3_module (federation core): it is the member list the analysis templates
// read (analysis/query_members.h), and takes `db IN (...)` whole, which they do not.
#include "federation/rocpd_members.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string_view>

#include "common/vtab_util.h"
#include "federation/db_pick.h"

#include "members/interrupt.h"
#include "members/progress.h"
#include "members/member_probe.h"
#include "formats/adapter.h"

namespace rocpd::federation {

namespace {

enum Col {
  kDb, kPath, kFormat, kVersion, kUuid, kHostname, kSource, kClockOffset, kVersionText,
  kPids, kFirst, kLast, kOps, kApis, kBadOps, kRank, kClockResidual, kNotes, kUtcAnchor, kGpuNames, kConversion,
  kGpuProperties
};
constexpr int kFirstProfiledColumn = kPids;
// Columns kPids..kBadOps need the member's profile.
constexpr uint64_t kProfiledColumns = ((uint64_t{1} << (kBadOps + 1)) - 1) & ~((uint64_t{1} << kPids) - 1);

struct MembersVtab : sqlite3_vtab {
  std::shared_ptr<members::Registry> registry;
};

struct Row {
  canonical::MemberPtr member;
  std::shared_ptr<const canonical::Profile> profile;
};

struct MembersCursor : sqlite3_vtab_cursor {
  std::vector<Row> rows;
  size_t pos = 0;
};

int x_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    const int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, path TEXT, format TEXT, schema_version INTEGER, uuid TEXT, hostname TEXT, "
        "source TEXT, clock_offset INTEGER, version TEXT, pids TEXT, first_ns INTEGER, last_ns INTEGER, "
        "ops INTEGER, apis INTEGER, bad_ops INTEGER, rank INTEGER, clock_residual_ns INTEGER, notes TEXT, "
        "utc_anchor_ns INTEGER, gpu_names TEXT, conversion TEXT, gpu_properties TEXT)");
    if (rc != SQLITE_OK) return rc;
    auto* v = new MembersVtab{};
    v->registry = *static_cast<std::shared_ptr<members::Registry>*>(aux);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *out = v;
    return SQLITE_OK;
  });
}

int x_best_index(sqlite3_vtab* vt, sqlite3_index_info* info) {
  return guard(vt, [&] {
    info->idxNum = (info->colUsed & kProfiledColumns) ? 1 : 0;
    std::string picks;
    double rows = 1000;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (!c.usable || c.iColumn != kDb || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      const char* coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, "BINARY") != 0) continue;  // compared by SQLite alone
      info->aConstraintUsage[i].argvIndex = static_cast<int>(picks.size()) + 1;
      info->aConstraintUsage[i].omit = 1;
      const bool in_list = sqlite3_vtab_in(info, i, -1) != 0;
      if (in_list) sqlite3_vtab_in(info, i, 1);
      picks += in_list ? 'i' : 'e';
      rows = std::min(rows, in_list ? 10.0 : 1.0);
    }
    if (!picks.empty()) {
      info->idxStr = sqlite3_mprintf("%s", picks.c_str());
      if (!info->idxStr) throw std::bad_alloc();
      info->needToFreeIdxStr = 1;
    }
    info->estimatedRows = static_cast<sqlite3_int64>(rows);
    info->estimatedCost = info->idxNum ? 1000.0 * rows : rows;
    return SQLITE_OK;
  });
}

// The members `db` constraints pick (`kinds`: the plan's letters, one per argv), each checked
// against its file, in the list's order; all of them (all checked) without such a constraint.
std::vector<canonical::MemberPtr> picked(members::Registry& reg, std::string_view kinds, int argc, sqlite3_value** argv) {
  if (kinds.empty()) return reg.members();
  if (static_cast<int>(kinds.size()) != argc) throw Error("rocpd_members: plan and arguments disagree");
  const auto list = reg.member_list(/*check_files=*/false);
  std::vector<size_t> pick;
  for (int i = 0; i < argc; ++i) {
    std::vector<size_t> named = picked_members(*list, argv[i], kinds[static_cast<size_t>(i)] == 'i');
    if (i > 0) {
      std::vector<size_t> both;
      std::set_intersection(pick.begin(), pick.end(), named.begin(), named.end(), std::back_inserter(both));
      named = std::move(both);
    }
    pick = std::move(named);
  }
  std::vector<canonical::MemberPtr> out;
  out.reserve(pick.size());
  for (size_t i : pick) out.push_back(reg.fresh(list->members[i]));
  return out;
}

int x_filter(sqlite3_vtab_cursor* c, int idx_num, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<MembersCursor*>(c);
  auto& reg = *static_cast<MembersVtab*>(c->pVtab)->registry;
  return guard(c->pVtab, [&] {
    cur->rows.clear();
    cur->pos = 0;
    members::InterruptWatch watch(reg.host());
    const auto members = picked(reg, idx_str ? idx_str : "", argc, argv);
    if (reg.progress)
      watch.report_progress([&] {
        members::ProgressCounts c;
        c.what = "rocpd_members";
        c.members_done = cur->rows.size();
        c.members_total = members.size();
        c.detail = "profiling";
        return members::progress_line(c);
      });
    if (idx_num) reg.profile_all(members, watch);  // every core; the loop below finds them cached
    for (auto& m : members) {
      watch.check();
      cur->rows.push_back({m, idx_num ? reg.profile(m, &watch) : nullptr});
    }
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  ++static_cast<MembersCursor*>(c)->pos;
  return SQLITE_OK;
}

int x_eof(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<MembersCursor*>(c);
  return cur->pos >= cur->rows.size();
}

void result_text(sqlite3_context* ctx, const std::string& s) {
  if (s.empty()) sqlite3_result_null(ctx);
  else sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

void result_opt(sqlite3_context* ctx, const std::optional<int64_t>& v) {
  if (v) sqlite3_result_int64(ctx, *v);
}

std::optional<int64_t> shifted(const std::optional<int64_t>& v, int64_t offset) {
  if (!v) return v;
  int64_t r = 0;
  if (__builtin_add_overflow(*v, offset, &r)) return offset > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

void column_value(sqlite3_context* ctx, const canonical::Member& m, const canonical::Profile* p, int col);

// {"0":"NVIDIA H100 80GB HBM3",...}: the device names by gpu number ('' when none are known).
std::string gpu_names_json(const std::map<int64_t, std::string>& names) {
  if (names.empty()) return {};
  std::string out = "{";
  for (const auto& [gpu, name] : names) {
    if (out.size() > 1) out += ',';
    out += fmt::format("\"{}\":\"", gpu);
    for (const unsigned char c : name) {
      if (c == '"' || c == '\\') out += fmt::format("\\{}", static_cast<char>(c));
      else if (c < 0x20) out += fmt::format("\\u{:04x}", c);
      else out += static_cast<char>(c);
    }
    out += '"';
  }
  return out + "}";
}

// {"0":{"compute_units":104,...},...}: each gpu's properties, objects already ('' when none).
std::string gpu_properties_json(const std::map<int64_t, std::string>& props) {
  if (props.empty()) return {};
  std::string out = "{";
  for (const auto& [gpu, json] : props) out += fmt::format("{}\"{}\":{}", out.size() > 1 ? "," : "", gpu, json);
  return out + "}";
}

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<MembersCursor*>(c);
  const Row& row = cur->rows[cur->pos];
  const canonical::Member& m = *row.member;
  const canonical::Profile* p = row.profile.get();
  if (col >= kFirstProfiledColumn && col <= kBadOps && !p) return SQLITE_OK;
  guard(ctx, [&] { column_value(ctx, m, p, col); });
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  // The member's ordinal: stable while it is a member, whatever else is attached or opened.
  auto* cur = static_cast<MembersCursor*>(c);
  *rowid = static_cast<sqlite3_int64>(cur->rows[cur->pos].member->ordinal);
  return SQLITE_OK;
}

void column_value(sqlite3_context* ctx, const canonical::Member& m, const canonical::Profile* p, int col) {
  switch (col) {
    case kDb: result_text(ctx, m.alias); break;
    case kPath: result_text(ctx, m.path); break;
    case kFormat: sqlite3_result_text(ctx, m.info.adapter->name(), -1, SQLITE_STATIC); break;
    case kVersion: sqlite3_result_int(ctx, m.info.schema_version); break;
    case kUuid: result_text(ctx, m.info.uuid); break;
    case kHostname: result_text(ctx, m.info.hostname); break;
    case kSource: sqlite3_result_text(ctx, m.attached ? "attached" : "opened", -1, SQLITE_STATIC); break;
    case kClockOffset: sqlite3_result_int64(ctx, m.clock_offset.load()); break;
    case kVersionText: result_text(ctx, m.info.version_text); break;
    case kPids: result_text(ctx, fmt::format("[{}]", fmt::join(p->pids, ","))); break;
    // On the job's clock: the member's offset added (saturating, as SQLite's own overflow would not).
    case kFirst: result_opt(ctx, shifted(p->first_ns, m.clock_offset.load())); break;
    case kLast: result_opt(ctx, shifted(p->last_ns, m.clock_offset.load())); break;
    case kOps: sqlite3_result_int64(ctx, p->ops); break;
    case kApis: sqlite3_result_int64(ctx, p->apis); break;
    case kBadOps: sqlite3_result_int64(ctx, p->bad_ops); break;
    case kRank: result_opt(ctx, m.info.rank); break;
    case kClockResidual:
      if (const int64_t r = m.clock_residual_ns.load(); r != canonical::kNoClockResidual) sqlite3_result_int64(ctx, r);
      break;
    // What the member's schema lacks, one line each (NULL when nothing).
    case kNotes: result_text(ctx, fmt::format("{}", fmt::join(m.info.notes, "\n"))); break;
    case kUtcAnchor: result_opt(ctx, m.info.utc_anchor_ns); break;
    case kGpuNames: result_text(ctx, gpu_names_json(m.info.gpu_names)); break;
    case kConversion: result_text(ctx, m.conversion); break;
    case kGpuProperties: result_text(ctx, gpu_properties_json(m.info.gpu_properties)); break;
    default: break;
  }
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xCreate = x_connect;  // eponymous, and created as temp.rocpd_members for the extension's own SQL
  m.xConnect = x_connect;
  m.xBestIndex = x_best_index;
  m.xDisconnect = vtab_disconnect<MembersVtab>;
  m.xDestroy = vtab_disconnect<MembersVtab>;
  m.xOpen = vtab_open<MembersCursor>;
  m.xClose = vtab_close<MembersCursor>;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

int register_rocpd_members(sqlite3* db, const std::shared_ptr<members::Registry>& registry) {
  return sqlite3_create_module_v2(db, "rocpd_members", &kModule, new std::shared_ptr<members::Registry>(registry),
                                  [](void* p) { delete static_cast<std::shared_ptr<members::Registry>*>(p); });
}

}  // namespace rocpd::federation
