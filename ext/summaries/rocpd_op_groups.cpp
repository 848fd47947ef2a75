// rocpd_op_groups(group_by [, of_kind [, of_gpu]]): the GPU ops of every member grouped by any of db, gpu,
// kind and name, with count, sum, mean, median, extremes, sample stddev, busy time (the union of
// the op intervals) and the first start / last end; what the summary views are plain SQL over
// (docs/summaries.md). Computed by the per-member engine (op_groups.h) on every core; a member
// holding values SQL would treat otherwise (text or real times...) sends the whole query through
// the same aggregates in SQL over temp.rocpd_ops, so the answer never depends on the path. The
// table itself (plan, rowids) is group_table.h's.
#include "summaries/group_table.h"
#include "summaries/register.h"

namespace rocpd::summaries {

using namespace analysis;

namespace {

constexpr KeyColumn kOpKeys[] = {
    {"db", &GroupSpec::by_db},
    {"gpu", &GroupSpec::by_gpu, &GroupKey::gpu},
    {"kind", &GroupSpec::by_kind, nullptr, &GroupKey::kind},
    {"name", &GroupSpec::by_name, nullptr, &GroupKey::name}};

constexpr GroupTableDef kOpGroups{
    .name = "rocpd_op_groups",
    .table = canonical::TableKind::Ops,
    .source = "temp.rocpd_ops",
    .schema = "CREATE TABLE x(db TEXT, gpu INTEGER, kind TEXT, name TEXT, instances INTEGER, total_ns, "
              "avg_ns REAL, med_ns, min_ns, max_ns, stddev_ns REAL, busy_ns INTEGER, "
              "first_start INTEGER, last_end INTEGER, timed INTEGER, group_by TEXT HIDDEN, of_kind TEXT HIDDEN, "
              "of_gpu INTEGER HIDDEN, durations TEXT HIDDEN, "
              "n_start INTEGER HIDDEN, min_start HIDDEN, max_start HIDDEN, n_end INTEGER HIDDEN, min_end HIDDEN, "
              "max_end HIDDEN, duration_values BLOB HIDDEN)",
    .usage = "use rocpd_op_groups(group_by [, of_kind [, of_gpu]]) with group_by a comma-separated list of db, gpu, "
             "kind, name "
             "(e.g. 'db,gpu' or 'name') and of_kind an op kind ('kernel', 'copy', ...)",
    .keys = kOpKeys,
    .of_kind = true,
    .busy = true,
};

}  // namespace

void register_rocpd_op_groups(sqlite3* db) { analysis::JobTable<GroupTable<kOpGroups>>::register_module(db); }

}  // namespace rocpd::summaries
