// Converts a PyTorch profiler (Kineto) Chrome-trace JSON file, plain or gzip-compressed, into the
// kineto_* tables of schema/kineto.sql in an SQLite database, which the kineto adapter
// (kineto.cpp) then maps onto the canonical tables like any member's tables.
//
// One streaming pass: a RapidJSON SAX reader over a zlib stream, rows inserted as events arrive
// (no document of traceEvents is ever built), then a linking pass in SQL (launch links, flows,
// counters; kineto_link.cpp). Memory is bounded whatever the file's size: fixed buffers, tokens
// and argument objects capped, a bounded string cache. Times are integer ns computed from the
// numbers' text (kineto_decimal.h). Every malformed input is an Error naming the file.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "common/sqlite_util.h"

namespace rocpd::formats::kineto {

struct ImportLimits {
  size_t max_token_bytes = size_t{16} << 20;  // longest string or number (a key, a name)
  size_t max_args_bytes = size_t{16} << 20;   // an event's args object, as compact JSON
  int max_depth = 100;                        // nesting of objects and arrays
};

struct ImportStats {
  int64_t events = 0;  // elements of traceEvents
  int64_t ops = 0, calls = 0, flows = 0, counters = 0;
  uint64_t json_bytes = 0;  // uncompressed bytes parsed
};

// The converter's format version: bump it when the tables written change, so that conversions
// cached by an older version are converted again (members/conversion_cache.h).
inline constexpr int kImportVersion = 1;

// How far an import is, for progress lines: updated on the calling thread, between its calls of `stop`.
struct ImportProgress {
  uint64_t file_bytes = 0;   // bytes of the file read (compressed bytes for .gz)
  int64_t file_size = -1;    // the file's size
  int64_t rows = 0;          // events stored (ops, calls, flows)
  bool linking = false;      // the file is read; the launch links and flows are resolved (kineto_link.h)
};

// Imports `json_path` into `db`, which must hold no kineto table yet (the tables are created
// here, inside one transaction that commits at the end). `label` prefixes every error (e.g.
// "rocpd_open: 'x.json'"). `stop` is polled often (about every 256 KiB of JSON and during the
// linking SQL); when it returns true the import ends with an Error of code SQLITE_INTERRUPT.
// On any error the transaction is rolled back. `progress`, when given, is kept up to date.
ImportStats import_trace(const std::string& json_path, sqlite3* db, const std::string& label,
                         const std::function<bool()>& stop, const ImportLimits& limits = {},
                         ImportProgress* progress = nullptr);

// Whether `path` names a JSON trace by its name: *.json, *.json.gz (PyTorch writes
// *.pt.trace.json and *.pt.trace.json.gz), case-insensitively.
bool is_json_trace_name(const std::string& path);

}  // namespace rocpd::formats::kineto
