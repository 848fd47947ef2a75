// Recognises the trace format of one schema: the first format adapter that claims its catalog
// probes it (ext/formats/adapters.cpp).
#pragma once
#include <optional>
#include <string>

#include "canonical/member.h"

namespace rocpd::members {

// Returns the format of `schema` on `db`; std::nullopt when the schema holds no trace at all;
// throws Error naming `label` when it looks like a trace but cannot be read (unknown version,
// missing tables, several processes in one rocpd file...).
std::optional<canonical::FormatInfo> probe_format(sqlite3* db, const std::string& schema, const std::string& label);

}  // namespace rocpd::members
