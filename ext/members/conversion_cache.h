// The conversion cache (docs/formats.md, "The conversion cache"): a member converted from a file
// that is no database (a Kineto JSON trace) is kept in $XDG_CACHE_HOME/rocpd_ext (else
// $HOME/.cache/rocpd_ext), so that the next open of the unchanged file reads the stored database
// instead of converting again.
//
// An entry is named <kind>-v<format version>-<hash of the canonical path>-<hash of the file's size,
// mtime (ns), inode, the CRC-32 of its first 64 KiB and last 4 KiB, and the converter's identity
// (nsys: the program's resolved path, size and mtime)>-<hash of the entry's own bytes>.db, and
// records inside (table rocpd_ext_cache_entry) what it converts: the source's canonical path, size,
// mtime, inode, head and tail CRC, the converter and its version. Before use an entry is checked:
// its bytes must hash to its name and its record must describe the source as it is now; a damaged or
// foreign entry is converted again (and replaced). It appears under that name only once complete
// (converted under a private name, recorded, hashed, synced, then hard-linked to it: two processes
// converting the same file both succeed, the first link wins, nothing is torn).
// A member never reads an entry by its name: it reads a hard link of its own, a pin named
// rocpd-pin-<token>-XXXXXXXX.db (.sqlite while nsys writes it: the process's group of files, common/temp_file.h, removed with the
// member, or by the next process's sweep when its owner died). Evicting or clearing an entry only
// removes its name: readers keep their pins, and the space comes back when the last one goes.
// A symbolic link or another user's file at an entry's name is never read, written through or
// replaced: it is reported (sqlite3_log, the member's conversion label) and skipped.
// The directory is bounded (ROCPD_CACHE_SIZE, default 4 GiB): the least recently used entries
// (modification time, set again at every use) go first. ROCPD_CACHE=0 turns the cache off. Any
// trouble writing the cache (a full disk) means going on without it (a temporary database).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "members/member_convert.h"

namespace rocpd::members {

// What cached_conversion gave.
struct CacheOutcome {
  std::shared_ptr<ConvertedTrace> trace;  // null: not cached (see `why`); convert as before
  bool hit = false;                       // read from the cache, nothing converted
  bool stored = false;                    // converted now and stored in the cache
  std::string why;                        // why it was not stored ("ROCPD_CACHE=0", a refused directory)
};

// What converts: part of an entry's key.
struct Converter {
  std::string_view kind;           // "kineto", "nsys": the entry name's first word
  int version = 0;                 // of the tables the conversion writes
  std::string identity = {};       // the converting program, when it is not ours ("" for Kineto)
  std::string_view suffix = ".db";  // of the file convert() writes (nsys export wants ".sqlite")
};

// The cached conversion of `source` by `converter`, or a new conversion made by `convert(db_path)`
// (which writes the database at db_path) and stored. Errors of `convert` are thrown as they are,
// but for a failure to write the cache (disk full: then the outcome says why, with no trace, and
// the caller converts into a temporary database); those of the cache itself are not thrown (the
// outcome says why), but for a ROCPD_CACHE_SIZE that is no size (cache_size_limit).
CacheOutcome cached_conversion(const std::string& source, const Converter& converter,
                               const std::function<void(const std::string& db_path)>& convert);

// rocpd_members.conversion of a member had through `outcome`: "cached", "converted, cached", or
// "converted, not cached: <why>" (then converted into a temporary database).
std::string conversion_label(const CacheOutcome& outcome);

// The cache directory, created 0700 when missing; "" when the cache is off or the directory is
// refused (a symbolic link, another user's, writable by others), with the reason in `why`.
std::string cache_directory(std::string* why);

// The size bound: ROCPD_CACHE_SIZE (bytes, or with a K, M, G or T suffix, powers of 1024), default
// 4 GiB. Throws Error naming the variable when its value is not a size.
uint64_t cache_size_limit();

// rocpd_cache_clear(): removes every entry (and pins whose process is gone), and a symbolic link
// at an entry's name (the link, never what it names); says what it left and why.
struct CacheCleared {
  std::string directory;  // "" when there is no usable cache directory (then `why` says why)
  std::string why;
  int64_t entries = 0, bytes = 0;
  struct Left {
    std::string name, why;
  };
  std::vector<Left> not_removed;  // names of entries left in the directory
};
CacheCleared clear_cache();

}  // namespace rocpd::members
