// Registration of the critical path capability's SQL names (docs/critical_path.md), and the step
// pattern argument both tables take.
#pragma once
#include <string>

#include "common/sqlite_util.h"

namespace rocpd::critical_path {

inline constexpr const char* kDefaultStepPattern = "ProfilerStep#%";

// A step pattern argument: NULL keeps the default (false), text is taken (true), anything else is
// the error "<table>: step_pattern must be text (a LIKE pattern such as 'ProfilerStep#%')".
bool step_pattern_arg(sqlite3_value* v, const char* table, std::string& pattern);

void register_critical_path(sqlite3* db);
void register_what_if(sqlite3* db);

}  // namespace rocpd::critical_path
