// rocpd_api_groups(group_by): the API calls (rocpd_apis) of every member grouped by any of db,
// pid, tid, domain and name, with count, sum, mean, median, extremes, sample stddev and the first
// start / last end: what `SELECT ... FROM rocpd_apis GROUP BY ...` is pushed down to
// (docs/pushdown.md). The same engine and table as rocpd_op_groups (group_table.h), with the SQL
// path over temp.rocpd_apis.
#include "summaries/group_table.h"
#include "summaries/register.h"

namespace rocpd::summaries {

using namespace analysis;

namespace {

constexpr KeyColumn kApiKeys[] = {
    {"db", &GroupSpec::by_db},
    {"pid", &GroupSpec::by_pid, &GroupKey::pid},
    {"tid", &GroupSpec::by_tid, &GroupKey::tid},
    {"domain", &GroupSpec::by_domain, nullptr, &GroupKey::domain},
    {"name", &GroupSpec::by_name, nullptr, &GroupKey::name}};

constexpr GroupTableDef kApiGroups{
    .name = "rocpd_api_groups",
    .table = canonical::TableKind::Apis,
    .source = "temp.rocpd_apis",
    .schema = "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, domain TEXT, name TEXT, instances INTEGER, "
              "total_ns, avg_ns REAL, med_ns, min_ns, max_ns, stddev_ns REAL, "
              "first_start INTEGER, last_end INTEGER, timed INTEGER, group_by TEXT HIDDEN, durations TEXT HIDDEN, "
              "n_start INTEGER HIDDEN, min_start HIDDEN, max_start HIDDEN, n_end INTEGER HIDDEN, min_end HIDDEN, "
              "max_end HIDDEN, duration_values BLOB HIDDEN)",
    .usage = "use rocpd_api_groups(group_by) with group_by a comma-separated list of db, pid, tid, domain, name "
             "(e.g. 'name' or 'db,tid')",
    .keys = kApiKeys,
};

}  // namespace

void register_rocpd_api_groups(sqlite3* db) { analysis::JobTable<GroupTable<kApiGroups>>::register_module(db); }

}  // namespace rocpd::summaries
