// A member is one trace database federated by the extension: a schema of the host connection
// (main or ATTACHed) or a file opened by rocpd_open() on a private read-only connection.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/sqlite_util.h"
#include "canonical/canonical_tables.h"

namespace rocpd::formats {
class FormatAdapter;  // ext/formats/adapter.h: one per format family
}

namespace rocpd::canonical {

// What a format adapter keeps about one member beyond FormatInfo (its own subclass).
struct FormatDetails {
  virtual ~FormatDetails() = default;
};

// What probing a schema found out about the trace it holds (cheap: catalog + metadata only).
struct FormatInfo {
  const formats::FormatAdapter* adapter = nullptr;  // the format family that reads it
  int schema_version = 0;                           // the major version
  std::string version_text;    // as written by the tracer, e.g. "3" or "3.0.0"
  std::string uuid;            // rocpd: the process UUID (with dashes); rpd: empty
  std::string hostname;        // empty when the format does not record it
  std::optional<int64_t> rank; // the trace's rank in a distributed job, when the format records it (Kineto)
  // UTC of the member's clock: utc = time + utc_anchor_ns, when the trace records it (nsys's
  // session start). rocpd_align('utc') aligns members on it.
  std::optional<int64_t> utc_anchor_ns;
  // Device names by the gpu number rocpd_ops reports, when the trace records them.
  std::map<int64_t, std::string> gpu_names;
  // What the trace records about each device beyond its name, by gpu number: a JSON object with
  // the keys of docs/federation.md (compute_units, memory_bytes, compute_capability, arch, chip,
  // warp_size, mem_bytes_s, clock_mhz), only those recorded. Device peaks are matched on them.
  std::map<int64_t, std::string> gpu_properties;
  // What the schema lacks and which columns are therefore NULL (rocpd_members.notes).
  std::vector<std::string> notes;
  // Some column the canonical tables read is declared with another type affinity than the formats
  // use (e.g. times declared TEXT): its values are converted as a plain table would store them,
  // and no constraint is compared inside this member (it would compare the raw values).
  bool loose_types = false;
  std::shared_ptr<const FormatDetails> details;  // the adapter's own
};

// Rowid ranges of one source table with the bounds of their rows' times, so that a time
// window query reads only the blocks that can hold matching rows (a block range index).
// A zone whose rows hold a time that is not a number (text or a blob in a hostile file) is
// `unbounded`: such a value compares above every number, so no time window can rule it out.
struct Zone {
  int64_t first_rowid = 0, last_rowid = 0;
  int64_t min_start = INT64_MAX, max_start = INT64_MIN, min_end = INT64_MAX, max_end = INT64_MIN;
  bool unbounded = false;
};

// What one full pass over a member's op and API tables found (computed lazily, cached).
struct Profile {
  std::vector<int64_t> pids;
  std::map<int64_t, int64_t> session_pid;  // rpd: (id >> 32) -> pid of that session
  bool session_pid_exact = true;           // false when a session holds several pids
  std::optional<int64_t> first_ns, last_ns;
  int64_t ops = 0, apis = 0, bad_ops = 0;  // bad_ops: end < start
  // Rows whose end is not a number at or after their start (NULL, or maybe before it): the only
  // rows that a window's bounds on `end` miss while their start lies in the window.
  int64_t ops_unended = 0, apis_unended = 0;
  std::set<int64_t> gpus;
  bool gpu_unknown = false;                 // some op has no resolvable gpu
  std::optional<int64_t> ops_min_start, ops_max_start, ops_min_end, ops_max_end;
  bool ops_unbounded = false;               // some op time is not a number (see Zone)
  bool times_unbounded = false;             // some op or API time is not a number
  std::vector<std::vector<Zone>> op_zones;  // one list per op source (see member_sql.h)
};

// What a member's source tables of one canonical table allow, fixed once its format is known
// (the query planner consults it on every filter; building the SQL would cost far more).
struct SourceShape {
  uint64_t indexed = 0;     // canonical columns whose equality is a primary-key lookup
  uint64_t unpushable = 0;  // canonical columns never compared inside the member
};

// A member file as it was when looked at: a file replaced by another (renamed over it, same size
// and time or not) has another inode. A WAL-mode file's commits go to its -wal, not the file: the
// -wal's size, time and inode and the -shm's wal-index header (which changes with every commit and
// checkpoint restart, even when the -wal keeps its size) are part of the stamp.
struct FileStamp {
  int64_t size = -1;  // -1: the file could not be stat'ed
  int64_t mtime_ns = -1;
  uint64_t inode = 0, device = 0;
  int64_t wal_size = -1;  // -1: no -wal file
  int64_t wal_mtime_ns = -1;
  uint64_t wal_inode = 0;
  std::array<unsigned char, 48> wal_index{};  // the -shm's first header copy (zeros: none)
  bool exists() const { return size >= 0; }
  bool operator==(const FileStamp&) const = default;
};

inline constexpr int64_t kNoClockResidual = INT64_MIN;

// The URI parameter of a converted member's connection naming the file the user opened
// (members/member_open.h): a format's probe reads what that name says from it.
inline constexpr const char* kSourceParameter = "rocpd_source";

struct Member {
  std::string alias;    // the `db` column value
  // Stable number of the member while it is one (rowids of every federated table pack it);
  // the smallest number free when the member appeared.
  uint32_t ordinal = 0;
  std::string path;     // file path ('' for an in-memory main)
  // A member converted from a file that is no database (a Kineto JSON trace): the database read
  // instead of `path`, and what removes it once the member is gone (members/member_convert.h).
  std::string db_path;
  std::shared_ptr<void> converted;
  std::string conversion;  // how: rocpd_members.conversion (members/member_convert.h); "" for databases
  const std::string& db_file() const { return db_path.empty() ? path : db_path; }
  bool attached = true; // schema of the host connection, else a private connection
  std::string schema;   // schema name to qualify tables with ("main" for opened files)
  std::string vfs;      // opened files: VFS to open with (empty = default)
  FormatInfo info;
  // Per canonical table, one shape per source table of the member (see member_sql.h).
  std::array<std::vector<SourceShape>, kTableKinds> shapes;
  // Rowids pack the source index in this many bits (enough for the table with most sources).
  int source_bits = 0;
  // Added to every time column the member returns (rocpd_clock_offset, rocpd_align): members
  // from different hosts do not share a clock.
  std::atomic<int64_t> clock_offset{0};
  // The residual of the last rocpd_align('collectives') (ns), kNoClockResidual when none.
  std::atomic<int64_t> clock_residual_ns{kNoClockResidual};

  // Private connection of an opened member; managed by Registry's bounded pool.
  Db conn;
  FileStamp conn_stamp;   // the file when `conn` was opened
  FileStamp probe_stamp;  // the file when its format was probed: another file is probed again
  // Replaced by a new probe of its changed file: its connection is no longer pooled, and closes
  // with its last lease.
  bool retired = false;
  int leases = 0;
  uint64_t last_use = 0;
  uint64_t last_miss = 0;  // the registry's clock when a full pool last read it on a connection of its own

  std::shared_ptr<const Profile> profile;  // filled by members::Registry::profile()
  FileStamp profile_stamp;                 // the file as it was when profiled

  // What a pass read in its visit for a later pass, by tag (members::Registry::stash).
  struct Stashed {
    FileStamp stamp;           // the file before the read
    int64_t clock_offset = 0;  // the offset the read's times include
    std::shared_ptr<void> value;
  };
  std::map<std::string, Stashed> stash;
};

using MemberPtr = std::shared_ptr<Member>;

}  // namespace rocpd::canonical
