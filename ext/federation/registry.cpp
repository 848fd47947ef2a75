#include "federation/registry.h"

#include <fmt/format.h>

#include <set>

#include "federation/member_files.h"
#include "federation/member_probe.h"
#include "federation/member_profile.h"

namespace rocpd::federation {

namespace {
// The VFS of the compression capability; used for *.zst members.
constexpr const char* kZstdVfs = "rocpd_zstd";

// Scans stream each member once: a small page cache per member connection keeps 64 pooled
// connections far below SQLite's default 2 MB each.
void limit_page_cache(sqlite3* db) { sqlite3_exec(db, "PRAGMA cache_size = -512", nullptr, nullptr, nullptr); }

std::string label_of(const Member& m) {
  return fmt::format("member {} ({})", m.alias, m.path.empty() ? "in memory" : m.path);
}
}  // namespace

Registry::Lease& Registry::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    release();
    registry_ = o.registry_;
    member_ = std::move(o.member_);
    own_ = std::move(o.own_);
    db_ = o.db_;
    o.registry_ = nullptr;
    o.db_ = nullptr;
  }
  return *this;
}

void Registry::Lease::release() {
  if (own_) {
    own_.reset();
  } else if (registry_ && member_ && !member_->attached) {
    std::lock_guard lock(registry_->mutex_);
    --member_->leases;
    registry_->trim_pool();
  }
  registry_ = nullptr;
  member_.reset();
  db_ = nullptr;
}

std::vector<MemberPtr> Registry::members() {
  std::lock_guard lock(mutex_);
  std::vector<MemberPtr> out;
  std::set<std::string> seen;
  auto list = prepare(host_, "SELECT name, file FROM pragma_database_list ORDER BY seq");
  std::vector<std::pair<std::string, std::string>> schemas;
  while (step(list.get())) schemas.emplace_back(column_text(list.get(), 0), column_text(list.get(), 1));
  list.reset();
  for (const auto& [schema, file] : schemas) {
    if (schema == "temp") continue;
    seen.insert(schema);
    auto cookie_stmt = prepare(host_, fmt::format("PRAGMA {}.schema_version", quote_id(schema)));
    const int64_t cookie = step(cookie_stmt.get()) ? sqlite3_column_int64(cookie_stmt.get(), 0) : -1;
    cookie_stmt.reset();
    auto& entry = attached_[schema];
    if (entry.cookie != cookie || entry.file != file || cookie == -1) {
      entry = Attached{file, cookie, nullptr};
      const std::string label = fmt::format("schema {} ({})", schema, file.empty() ? "in memory" : file);
      if (auto info = probe_format(host_, schema, label)) {
        auto m = std::make_shared<Member>();
        m->alias = schema;
        m->path = file;
        m->attached = true;
        m->schema = schema;
        m->info = std::move(*info);
        entry.member = std::move(m);
      }
    }
    if (entry.member) out.push_back(entry.member);
  }
  for (auto it = attached_.begin(); it != attached_.end();)
    it = seen.count(it->first) ? std::next(it) : attached_.erase(it);
  out.insert(out.end(), opened_.begin(), opened_.end());
  return out;
}

Db Registry::open_connection(const Member& m) const {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(m.path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                                 m.vfs.empty() ? nullptr : m.vfs.c_str());
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("{}: cannot open: {}{}", label_of(m), raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc),
                            zstd_reason(m.path)),
                rc);
  limit_page_cache(db.get());
  return db;
}

Registry::Lease Registry::acquire(const MemberPtr& m) {
  if (m->attached) return Lease(this, m, host_);
  std::lock_guard lock(mutex_);
  if (m->conn && m->leases > 0) return Lease(this, m, open_connection(*m));
  if (!m->conn) {
    m->conn = open_connection(*m);
    ++open_connections_;
  }
  ++m->leases;
  m->last_use = ++clock_;
  Lease lease(this, m, m->conn.get());
  trim_pool();
  return lease;
}

void Registry::trim_pool() {
  while (open_connections_ > max_open_connections) {
    Member* victim = nullptr;
    for (const auto& m : opened_)
      if (m->conn && m->leases == 0 && (!victim || m->last_use < victim->last_use)) victim = m.get();
    if (!victim) return;  // every open connection is in use: exceed the bound until one is released
    victim->conn.reset();
    --open_connections_;
  }
}

std::shared_ptr<const Profile> Registry::profile(const MemberPtr& m) {
  std::lock_guard lock(mutex_);
  const auto [size, mtime] = file_stamp(m->path);
  // In-memory members have no stamp: recompute, since they may change at any time.
  if (m->profile && size >= 0 && size == m->profile_size && mtime == m->profile_mtime_ns) return m->profile;
  auto lease = acquire(m);
  m->profile = compute_profile(lease.db(), *m);
  m->profile_size = size;
  m->profile_mtime_ns = mtime;
  return m->profile;
}

std::string Registry::unique_alias(const std::string& stem, std::set<std::string>& taken) const {
  for (const auto& m : opened_) taken.insert(m->alias);
  for (const auto& [schema, entry] : attached_) taken.insert(schema);
  taken.insert("main");
  taken.insert("temp");
  std::string alias = stem;
  for (int i = 2; taken.count(alias); ++i) alias = fmt::format("{}_{}", stem, i);
  taken.insert(alias);
  return alias;
}

MemberPtr Registry::open_file(const std::string& path, const std::string& alias) {
  auto m = std::make_shared<Member>();
  m->alias = alias;
  m->path = path;
  m->attached = false;
  m->schema = "main";
  if (is_zstd_path(path)) {
    if (!sqlite3_vfs_find(kZstdVfs))
      throw Error(fmt::format("rocpd_open: '{}': compressed members need the {} VFS, which is not registered", path,
                              kZstdVfs));
    m->vfs = kZstdVfs;
  } else {
    check_sqlite_file(path);
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                                 m->vfs.empty() ? nullptr : m->vfs.c_str());
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_open: '{}': {}{}", path, raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc),
                            zstd_reason(path)),
                rc);
  std::optional<FormatInfo> info;
  try {
    info = probe_format(db.get(), "main", fmt::format("rocpd_open: '{}'", path));
  } catch (const Error& e) {
    throw Error(e.what() + zstd_reason(path), e.code());
  }
  if (!info)
    throw Error(fmt::format("rocpd_open: '{}': holds no rpd or rocpd trace (no rocpd_op, rocpd_metadata or "
                            "rocpd_metadata_<uuid> table)",
                            path));
  m->info = std::move(*info);
  limit_page_cache(db.get());
  m->conn = std::move(db);
  return m;
}

int Registry::open(const std::string& pattern) {
  std::lock_guard lock(mutex_);
  const auto files = expand_pattern(pattern);
  std::set<std::string> known;
  for (const auto& m : members())  // attached files too: a file is one member however it came
    if (!m->path.empty()) known.insert(canonical_path(m->path));
  std::vector<MemberPtr> added;
  std::set<std::string> taken;
  size_t kept = 0;
  for (const auto& file : files) {
    if (!known.insert(canonical_path(file)).second) continue;  // already a member: never count it twice
    auto m = open_file(file, unique_alias(alias_stem(file), taken));
    // Keep the probing connection only while the pool has room.
    if (open_connections_ + kept >= max_open_connections) m->conn.reset();
    else ++kept;
    added.push_back(std::move(m));
  }
  open_connections_ += kept;
  for (auto& m : added) opened_.push_back(std::move(m));
  return static_cast<int>(added.size());
}

int Registry::close(const std::string& alias) {
  std::lock_guard lock(mutex_);
  for (auto it = opened_.begin(); it != opened_.end(); ++it) {
    if ((*it)->alias != alias) continue;
    if ((*it)->leases > 0) throw Error(fmt::format("rocpd_close: member {} is being read by a running query", alias));
    if ((*it)->conn) --open_connections_;
    opened_.erase(it);
    return 1;
  }
  throw Error(fmt::format("rocpd_close: no member opened by rocpd_open is named '{}'", alias));
}

int Registry::close_all() {
  std::lock_guard lock(mutex_);
  for (const auto& m : opened_)
    if (m->leases > 0) throw Error(fmt::format("rocpd_close: member {} is being read by a running query", m->alias));
  const int n = static_cast<int>(opened_.size());
  opened_.clear();
  open_connections_ = 0;
  return n;
}

}  // namespace rocpd::federation
