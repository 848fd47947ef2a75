// What one Nsight Systems export holds (nsys_probe.cpp): its export metadata, the columns of its
// event tables, the processes, host, session start, devices and rank. Used by nsys.cpp only (and
// the unit tests of the rank rules).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "formats/nsys/nsys.h"

namespace rocpd::formats {

// Whether the catalog is an nsys export's: its export metadata table (META_DATA_EXPORT since
// 2023, EXPORT_META_DATA before) or StringIds, with one of the event tables read.
bool nsys_claims(const Catalog& names);

canonical::FormatInfo probe_nsys(sqlite3* db, const std::string& schema, const Catalog& names, const std::string& label);

// A rank variable's value as recorded in META_DATA_CAPTURE (`NAME="value"`, the launched process's
// environment): the integer, or nullopt when `text` is not `NAME="<integer>"` for that name.
std::optional<int64_t> nsys_env_value(const std::string& text, const std::string& name);

// The rank a per-rank job's file name gives (`nsys profile -o report_%q{RANK}`): the integer after
// "rank" (rank3, rank_3, RANK-3) anywhere in the file's stem, else the integer that ends the stem
// after a separator (report_3, trace.3, job-3) unless it is the pid of one of the report's
// processes (`%p`, `%h_%p`). nsys's own numbering (report1, report2) has no separator: no rank.
// A report rocpd_open exported itself is read by the report's name (kSourceParameter), also found in
// a temporary export's own name (rocpd-nsys-XXXXXX.<report>.sqlite).
std::optional<int64_t> nsys_rank_from_file_name(const std::string& path, const std::set<int64_t>& pids);

}  // namespace rocpd::formats
