// The read-only SQLite VFS "rocpd_zstd": opens zstd-compressed databases in place.
//   ATTACH 'file:rank7.db.zst?vfs=rocpd_zstd&mode=ro' AS r7;
//   sqlite3_open_v2("rank7.db.zst", &db, SQLITE_OPEN_READONLY, "rocpd_zstd");
#pragma once
#include <cstdint>
#include <string>

namespace rocpd::compression {

inline constexpr const char* kZstdVfsName = "rocpd_zstd";

// Registers the VFS once per process (never as the default); later calls are no-ops. Returns a
// SQLite result code.
int register_zstd_vfs();

// Why the VFS last failed on this thread, naming the file ("rocpd_zstd: <path>: <what>"): an
// open SQLite reports as "unable to open database file", or a damaged frame it reports as
// "database disk image is malformed". Cleared when an open on this thread succeeds.
std::string last_vfs_error();

// Cap on the decompressed size of single-frame (non-seekable) .zst files, process-wide.
std::uint64_t plain_limit();
void set_plain_limit(std::uint64_t bytes);

// The memory budget shared by the decoded frames of every open .zst file (rocpd::zstd::FrameCache,
// process-wide); setting it evicts down to the new limit at once.
std::uint64_t cache_limit();
void set_cache_limit(std::uint64_t bytes);

}  // namespace rocpd::compression
