// The one interface every trace format family implements: recognise a schema, probe it, and map
// it onto the canonical tables as SQL sources (ext/canonical/source_sql.h). The federation core (the
// registry, the virtual tables, the profile) never branches on formats: a new format is a new
// adapter file here, listed in adapters.cpp, plus its generator support and tests.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "canonical/canonical_tables.h"
#include "canonical/member.h"
#include "canonical/source_sql.h"

namespace rocpd::formats {

// The tables and views of one schema.
using Catalog = std::set<std::string>;

class FormatAdapter {
 public:
  virtual ~FormatAdapter() = default;
  // rocpd_members.format: "rpd", "rocpd", ...
  virtual const char* name() const = 0;
  // Whether the catalog is this format's (nothing read but names; never throws).
  virtual bool claims(const Catalog& catalog) const = 0;
  // Reads what the member needs (metadata, versions, column checks). Throws Error naming `label`
  // when the schema is this format's but cannot be read correctly (unknown version, missing
  // tables or columns, keys that could repeat).
  virtual canonical::FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& catalog,
                           const std::string& label) const = 0;
  // The SQL sources of canonical table `table` for member `m` (empty when the format has none).
  // `profile` may be null; `db` (the member's connection), when given, lets the adapter resolve
  // string ids to literals first (see SourceSql::predicates).
  virtual std::vector<canonical::SourceSql> sources(canonical::TableKind table, const canonical::Member& m, const canonical::Profile* profile,
                                         sqlite3* db) const = 0;
  // Whether reading the `used` columns of `table` is exact only with the member's profile (rpd:
  // an op's pid comes from the session that wrote it).
  virtual bool needs_profile(canonical::TableKind /*table*/, uint64_t /*used*/) const { return false; }
  // API call ids carry their writing session above bit 32 (rpd): the profile maps sessions to pids.
  virtual bool session_ids() const { return false; }
  // Whether an op's pid is cheap enough to read in the profile pass.
  virtual bool cheap_op_pid() const { return true; }
};

// Every adapter, in the order they are asked to claim a catalog.
const std::vector<const FormatAdapter*>& format_adapters();

}  // namespace rocpd::formats
