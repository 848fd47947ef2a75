#include "members/mapped_reads.h"

namespace rocpd::federation {

namespace {
// The most of a member's file mapped at once (SQLite reads pages beyond it as before). SQLite
// itself also caps it (SQLITE_MAX_MMAP_SIZE, 2 GB in default builds).
constexpr const char* kMap = "PRAGMA mmap_size = 1073741824";
constexpr const char* kUnmap = "PRAGMA mmap_size = 0";
}  // namespace

MappedReads::MappedReads(const Member& m, sqlite3* db) {
  if (m.attached || !db) return;
  // A connection that cannot map (a VFS without xFetch: compressed members) reads as before; a
  // failed pragma only costs the speed.
  if (sqlite3_exec(db, kMap, nullptr, nullptr, nullptr) == SQLITE_OK) db_ = db;
}

MappedReads::~MappedReads() {
  // With no statement left open on the connection, SQLite unmaps the file here.
  if (db_) sqlite3_exec(db_, kUnmap, nullptr, nullptr, nullptr);
}

}  // namespace rocpd::federation
