// Checks the entry point runs before it registers anything, and what it does after a failed load
// (defined in load_guard.cpp).
#pragma once
#include <string>

#include "common/sqlite_util.h"

namespace rocpd {

// When another copy of the library (another file: the installed one and a build's) already
// registered the extension on `db`, the error to refuse this load with; empty otherwise. A failed
// load is dlclose()d by SQLite, so a copy that registered anything before failing would leave
// SQLite calling unmapped code: the check must come first. `same_copy_started` says this copy
// already registered on `db` (an earlier load of its own that failed part-way), whose SQL names are
// then its own.
std::string other_copy_loaded(sqlite3* db, bool same_copy_started);

// Keeps this library mapped for the life of the process (dlopen RTLD_NODELETE): after a load that
// registered something and then failed, and for what outlives a connection (the rocpd_zstd VFS).
void pin_library();

// The file this library was loaded from ("" when unknown).
std::string library_path();

}  // namespace rocpd
