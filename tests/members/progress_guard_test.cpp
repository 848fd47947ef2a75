// ProgressGuard under a SQLite built with SQLITE_OMIT_PROGRESS_CALLBACK (better-sqlite3, the Node
// binding of docs/bindings.md): the API table's progress_handler entry is null there, and the
// guard must install nothing rather than call address 0 (rocpd_open crashed so in Node).
#include <gtest/gtest.h>

#include "members/interrupt.h"

// The extension reaches SQLite through this table; each test points it at its own.
const sqlite3_api_routines* sqlite3_api = nullptr;

namespace rocpd::members {
namespace {

TEST(ProgressGuard, InstallsNothingWhenTheApiTableLacksProgressHandler) {
  sqlite3_api_routines table{};  // every entry null: no SQLite function may be called
  sqlite3_api = &table;
  InterruptWatch watch(nullptr);
  // Any non-null handle: with the entry missing the guard must not touch it.
  auto* member = reinterpret_cast<sqlite3*>(&table);
  {
    ProgressGuard guard(member, &watch, true);
    ProgressGuard moved(std::move(guard));
  }  // destructors: nothing to remove either
  sqlite3_api = nullptr;
  SUCCEED();
}

}  // namespace
}  // namespace rocpd::members
