// Warnings the extension logs (sqlite3_log) that a user of the command should see: trouble with
// the conversion cache (a full disk, a damaged or foreign entry), printed on stderr as one line each,
// escaped as every text reaching the terminal is.
#pragma once

namespace rocpd_cli {

// Installs the log callback; call before SQLite is first used.
void show_extension_warnings();

}  // namespace rocpd_cli
