// Load-time check shared by the capabilities that create or read TEMP objects (defined in
// sqlite_util.cpp).
#pragma once
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd {

// Throws Error naming temp.<name> when the connection already holds a TEMP object of that name
// that is not the extension's own (a virtual table `USING <name>`): the extension's views and
// internal SQL read temp.<name>, which must never be a user's object. `made_by` says what of ours
// has that name.
void refuse_temp_clash(sqlite3* db, std::string_view name, std::string_view made_by);

}  // namespace rocpd
