#include "members/registry.h"
#include "members/member_pool.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "common/natural_order.h"
#include "common/read_transaction.h"
#include "members/json_sniff.h"
#include "members/member_convert.h"
#include "members/nsys_report.h"
#include "members/member_files.h"
#include "members/member_open.h"
#include "members/member_file_probe.h"
#include "members/parallel_probe.h"
#include "members/member_probe.h"
#include "members/read_ahead.h"
#include "formats/adapter.h"
#include "members/member_profile.h"
#include "members/member_sql.h"

namespace rocpd::members {

namespace {
// A converted member's connection names the file the user opened (member_open.h).
std::string source_of(const canonical::Member& m) { return m.db_path.empty() ? std::string() : m.path; }

std::string label_of(const canonical::Member& m) {
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
    progress_ = std::move(o.progress_);
    o.registry_ = nullptr;
    o.db_ = nullptr;
  }
  return *this;
}

void Registry::Lease::release() {
  progress_ = ProgressGuard();  // before the connection goes back to the pool or is closed
  // A pooled connection goes back without a transaction of a task's (its lock would hold off
  // writers of the member's file while idle).
  if (db_ && !own_ && member_ && !member_->attached && !sqlite3_get_autocommit(db_))
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  if (own_) {
    own_.reset();
  } else if (registry_ && member_ && !member_->attached) {
    std::lock_guard lock(registry_->mutex_);
    // An idle pooled connection keeps its schema, not the pages it read: hundreds of pooled
    // members would otherwise hold their files' pages twice (the system caches them too).
    if (member_->leases == 1 && member_->conn) sqlite3_db_release_memory(member_->conn.get());
    --member_->leases;
    if (member_->retired && member_->leases == 0) member_->conn.reset();  // no longer counted in the pool
    registry_->trim_pool(registry_->max_open_connections);
  }
  registry_ = nullptr;
  member_.reset();
  db_ = nullptr;
}

uint32_t Registry::take_ordinal() {
  if (!free_ordinals_.empty()) {
    const uint32_t o = *free_ordinals_.begin();
    free_ordinals_.erase(free_ordinals_.begin());
    return o;
  }
  if (next_ordinal_ >= kMaxMembers)
    throw Error(fmt::format("rocpd: at most {} members can be federated at once", kMaxMembers));
  return next_ordinal_++;
}

void Registry::give_back_ordinal(uint32_t ordinal) { free_ordinals_.insert(ordinal); }

std::vector<canonical::MemberPtr> Registry::members_named(const std::vector<std::string>& aliases, const char* who) {
  // Only the named members' files are checked (fresh): a scan asks for a few members at a time, and
  // a stat of every opened member on each call made a scan of N members cost N^2 stats.
  const auto list = member_list(false);
  std::vector<canonical::MemberPtr> out;
  out.reserve(aliases.size());
  for (const auto& alias : aliases) {
    auto it = list->index.find(alias);
    if (it == list->index.end()) throw Error(fmt::format("{}: member {} is gone", who, alias));
    out.push_back(fresh(list->members[it->second]));
  }
  return out;
}

namespace {
// A file's identity: two names of one file (hard links, bind mounts) are one member.
using FileId = std::pair<uint64_t, uint64_t>;  // device, inode
std::optional<FileId> file_id(const std::string& path) {
  const canonical::FileStamp stamp = file_stamp(path);
  if (!stamp.exists()) return std::nullopt;
  return FileId{stamp.device, stamp.inode};
}
std::string same_file_reason(const canonical::Member& m) {
  return fmt::format("the same file as member {} ('{}'): one member per file, its rows would count twice", m.alias,
                     m.path);
}
}  // namespace

std::vector<Registry::SkippedSchema> Registry::skipped_schemas() const {
  std::lock_guard lock(mutex_);
  std::vector<SkippedSchema> out;
  for (const auto& [schema, entry] : attached_)
    if (!entry.duplicate_of.empty()) out.push_back({schema, {entry.file, entry.duplicate_of}});
  return out;
}

void Registry::opened_changed() {
  list_.reset();
  opened_ids_valid_ = false;
  opened_ids_.clear();
  mean_rows_valid_ = false;
}

std::vector<canonical::MemberPtr> Registry::members(bool check_files) { return member_list(check_files)->members; }

std::shared_ptr<const Registry::MemberList> Registry::member_list(bool check_files) {
  std::lock_guard lock(mutex_);
  std::set<std::string> seen;
  // A file replaced or rewritten since it was probed (another format, version or declared types)
  // is probed again; a file that is gone raises its error where it is read.
  // Without check_files, a member is taken to be the file it was probed as.
  std::vector<canonical::FileStamp> stamps;  // check_files: each opened member's file now
  if (check_files) {
    stamps.reserve(opened_.size());
    for (auto& m : opened_) {
      canonical::FileStamp stamp = file_stamp(m->path);
      if (stamp.exists() && stamp != m->probe_stamp) m = reprobe(m);
      stamps.push_back(stamp);
    }
  }
  // The opened members' files, made only when an attached schema has a file to compare.
  std::map<FileId, const canonical::Member*> stamped_ids;
  bool stamped_ids_made = false;
  auto opened_ids = [&]() -> const std::map<FileId, const canonical::Member*>& {
    if (check_files) {
      if (!stamped_ids_made)
        for (size_t i = 0; i < opened_.size(); ++i)
          if (stamps[i].exists()) stamped_ids.emplace(FileId{stamps[i].device, stamps[i].inode}, opened_[i].get());
      stamped_ids_made = true;
      return stamped_ids;
    }
    if (!opened_ids_valid_)
      for (const auto& m : opened_)
        if (m->probe_stamp.exists()) opened_ids_.emplace(FileId{m->probe_stamp.device, m->probe_stamp.inode}, m.get());
    opened_ids_valid_ = true;
    return opened_ids_;
  };
  std::map<FileId, const canonical::Member*> attached_ids;  // attached members' files, in schema order
  std::vector<canonical::MemberPtr> attached_members;
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
    auto [it, fresh] = attached_.try_emplace(schema);
    Attached& entry = it->second;
    if (fresh) entry.ordinal = take_ordinal();
    if (entry.cookie != cookie || entry.file != file || cookie == -1) probe_attached(entry, schema, file, cookie);
    // Attached after another name of a member's file (rocpd_open'ed, or attached before it): not
    // a member, listed in rocpd_skipped.
    std::string duplicate;
    if (entry.member && !file.empty())
      if (const auto id = file_id(file)) {
        const auto& opened = opened_ids();
        if (const auto at = opened.find(*id); at != opened.end()) {
          duplicate = same_file_reason(*at->second);
        } else {
          const auto [first_at, first] = attached_ids.emplace(*id, entry.member.get());
          if (!first) duplicate = same_file_reason(*first_at->second);
        }
      }
    if (duplicate != entry.duplicate_of && !duplicate.empty())
      sqlite3_log(SQLITE_NOTICE, "rocpd: schema %s ('%s') is not a member: %s", schema.c_str(), file.c_str(),
                  duplicate.c_str());
    entry.duplicate_of = duplicate;
    if (entry.member && duplicate.empty()) attached_members.push_back(entry.member);
  }
  forget_detached(seen);
  // The same members as last time: last time's list (opened_changed() drops it when opened_ changes).
  if (list_ && attached_members == list_attached_) return list_;
  return make_list(std::move(attached_members));
}

// An attached schema seen for the first time or changed since its last probe.
void Registry::probe_attached(Attached& entry, const std::string& schema, const std::string& file, int64_t cookie) {
  // The cookie is remembered only once the probe succeeded: a schema that cannot be read
  // raises its error on every query, not just the first.
  entry.cookie = -1;
  entry.member.reset();
  entry.file = file;
  mean_rows_valid_ = false;
  const std::string label = fmt::format("schema {} ({})", schema, file.empty() ? "in memory" : file);
  if (auto info = probe_format(host_, schema, label)) {
    auto m = std::make_shared<canonical::Member>();
    m->alias = schema;
    m->ordinal = entry.ordinal;
    m->path = file;
    m->attached = true;
    m->schema = schema;
    m->info = std::move(*info);
    shape_sources(*m);
    if (auto off = attached_offsets_.find(schema); off != attached_offsets_.end()) m->clock_offset = off->second;
    entry.member = std::move(m);
  }
  entry.cookie = cookie;
}

// Schemas detached since the last list: their ordinals and clock offsets are given back.
void Registry::forget_detached(const std::set<std::string>& seen) {
  for (auto it = attached_.begin(); it != attached_.end();) {
    if (seen.count(it->first)) {
      ++it;
      continue;
    }
    give_back_ordinal(it->second.ordinal);
    attached_offsets_.erase(it->first);
    it = attached_.erase(it);
    mean_rows_valid_ = false;
  }
}

// The list of members in natural order of names (rank2 before rank10), however they were attached
// or opened; kept until the members change.
std::shared_ptr<const Registry::MemberList> Registry::make_list(std::vector<canonical::MemberPtr> attached) {
  mean_rows_valid_ = false;
  std::vector<canonical::MemberPtr> out = attached;
  out.insert(out.end(), opened_.begin(), opened_.end());
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return natural_less(out[a]->alias, out[b]->alias); });
  auto made = std::make_shared<MemberList>();
  made->members.reserve(out.size());
  for (size_t i : order) made->members.push_back(out[i]);
  made->index.reserve(out.size());
  made->names.reserve(out.size());
  for (size_t i = 0; i < made->members.size(); ++i) {
    made->index.emplace(made->members[i]->alias, i);
    made->names.emplace_back(made->members[i]->alias);
  }
  known_members_ = out.size();
  list_attached_ = std::move(attached);
  list_ = std::move(made);
  return list_;
}

canonical::MemberPtr Registry::fresh(const canonical::MemberPtr& m) {
  if (m->attached) return m;
  std::lock_guard lock(mutex_);
  const canonical::FileStamp stamp = file_stamp(m->path);
  if (!stamp.exists() || stamp == m->probe_stamp) return m;
  for (auto& o : opened_) {
    if (o.get() != m.get()) continue;
    o = reprobe(o);
    return o;
  }
  // Closed or already re-probed since the caller's list was made: the registry's current one.
  for (auto& o : opened_)
    if (o->alias == m->alias) return o;
  return m;
}

int64_t Registry::clock_offset(const std::string& alias) {
  for (const auto& m : members())
    if (m->alias == alias) return m->clock_offset.load();
  throw Error(fmt::format("rocpd_clock_offset: no member is named '{}'", alias));
}

void Registry::set_clock_offset(const std::string& alias, int64_t offset) {
  for (const auto& m : members()) {  // members() takes the lock itself
    if (m->alias != alias) continue;
    m->clock_offset = offset;
    if (m->attached) {
      std::lock_guard lock(mutex_);
      attached_offsets_[m->schema] = offset;
    }
    return;
  }
  throw Error(fmt::format("rocpd_clock_offset: no member is named '{}'", alias));
}

size_t Registry::known_members() const {
  std::lock_guard lock(mutex_);
  return known_members_ ? known_members_ : opened_.size();
}

double Registry::mean_rows(bool ops) const {
  std::lock_guard lock(mutex_);
  // Asked by every plan of every statement: worked out again only when a member or a profile
  // changed, not by walking 10,000 members each time.
  if (!mean_rows_valid_) {
    double total_ops = 0, total_apis = 0;
    size_t n = 0;
    auto add = [&](const canonical::MemberPtr& m) {
      if (!m || !m->profile) return;
      total_ops += static_cast<double>(m->profile->ops);
      total_apis += static_cast<double>(m->profile->apis);
      ++n;
    };
    for (const auto& m : opened_) add(m);
    for (const auto& [schema, entry] : attached_) add(entry.member);
    mean_ops_ = n ? total_ops / static_cast<double>(n) : 0.0;
    mean_apis_ = n ? total_apis / static_cast<double>(n) : 0.0;
    mean_rows_valid_ = true;
  }
  return ops ? mean_ops_ : mean_apis_;
}

size_t default_pool_bound() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1024;
  return std::clamp<size_t>(static_cast<size_t>(limit.rlim_cur / 4), 16, 1024);
}

Db Registry::connect(const canonical::Member& m, const std::string& who) {
  try {
    Db db = open_member_db(m.db_file(), m.vfs, who, source_of(m));
    limit_page_cache(db.get());
    return db;
  } catch (const OutOfDescriptors&) {
    trim_pool(0);  // every idle pooled connection gives its descriptor back
    Db db = open_member_db(m.db_file(), m.vfs, who, source_of(m));
    limit_page_cache(db.get());
    return db;
  }
}

Registry::Lease Registry::acquire(const canonical::MemberPtr& m, InterruptWatch* watch, bool host_thread) {
  Lease lease;
  lease.registry_ = this;
  lease.member_ = m;
  if (m->attached) {
    lease.db_ = host_;  // the host's own interrupt flag stops statements on it
    return lease;
  }
  {
    std::lock_guard lock(mutex_);
    const auto stamp = file_stamp(m->path);
    if (!stamp.exists()) {
      const int why = errno;
      throw Error(fmt::format("{}: the file is gone (removed or renamed since rocpd_open opened it: {}); "
                              "rocpd_close('{}') forgets the member",
                              label_of(*m), std::strerror(why), m->alias),
                  SQLITE_CANTOPEN);
    }
    // A full pool keeps the members it holds and this one is read on a connection of the
    // lease's own: a pass over more members than the pool holds (every member of a large job,
    // pass after pass) then finds the pooled ones open each time, where evicting the least
    // recently used would reopen every member on every pass. A member missed again within as
    // many leases as the pool holds is in use now, not in a long pass: it takes the least
    // recently used one's place.
    bool full = false;
    if (!m->conn && open_connections_ >= max_open_connections) {
      const uint64_t now = ++clock_;
      full = m->last_miss == 0 || now - m->last_miss > max_open_connections || close_idle(1) == 0;
      m->last_miss = now;
    }
    if ((m->conn && m->leases > 0) || m->retired || full) {
      lease.own_ = connect(*m, label_of(*m));
      lease.db_ = lease.own_.get();
    } else {
      // A file that changed since its connection was opened (rewritten, truncated and restored)
      // gets a fresh connection: SQLite's cached schema of the old file would not recover.
      if (m->conn && stamp != m->conn_stamp) {
        m->conn.reset();
        --open_connections_;
      }
      if (!m->conn) {
        m->conn = connect(*m, label_of(*m));
        m->conn_stamp = stamp;
        ++open_connections_;
      }
      ++m->leases;
      m->last_use = ++clock_;
      lease.db_ = m->conn.get();
      trim_pool(max_open_connections);
    }
  }
  lease.progress_ = ProgressGuard(lease.db_, watch, host_thread);
  return lease;
}

void Registry::trim_pool(size_t limit) {
  if (open_connections_ <= limit) return;
  // Past the bound, the pool drops to a quarter under it, so that the scan of every member
  // (thousands) runs once per many leases, not on each one. Every open connection in use: the
  // bound is exceeded until one is released.
  close_idle(open_connections_ - (limit - limit / 4));
}

size_t Registry::close_idle(size_t count) {
  // Least recently used idle connections first.
  std::vector<canonical::Member*> idle;
  for (const auto& m : opened_)
    if (m->conn && m->leases == 0) idle.push_back(m.get());
  const size_t closing = std::min(count, idle.size());
  std::partial_sort(idle.begin(), idle.begin() + static_cast<std::ptrdiff_t>(closing), idle.end(),
                    [](const canonical::Member* a, const canonical::Member* b) { return a->last_use < b->last_use; });
  for (size_t i = 0; i < closing; ++i) {
    idle[i]->conn.reset();
    --open_connections_;
  }
  return closing;
}

std::shared_ptr<const canonical::Profile> Registry::profile(const canonical::MemberPtr& m, InterruptWatch* watch) {
  std::lock_guard lock(mutex_);
  const canonical::FileStamp stamp = file_stamp(m->path);
  // In-memory members have no stamp: recompute, since they may change at any time.
  if (m->profile && stamp.exists() && stamp == m->profile_stamp) return m->profile;
  auto lease = acquire(m, watch);
  m->profile = compute_profile(lease.db(), *m, watch);
  m->profile_stamp = stamp;
  mean_rows_valid_ = false;
  return m->profile;
}

namespace {
// Connection -> its registry. Registries are owned by their connection's modules; this only
// finds them.
std::mutex registries_mutex;
std::map<sqlite3*, std::weak_ptr<Registry>>& registries() {
  static auto* map = new std::map<sqlite3*, std::weak_ptr<Registry>>();  // never destroyed: used at exit
  return *map;
}
}  // namespace

Registry::~Registry() {
  std::lock_guard lock(registries_mutex);
  auto it = registries().find(host_);
  if (it != registries().end() && it->second.expired()) registries().erase(it);
}

std::shared_ptr<Registry> Registry::of(sqlite3* host) {
  std::lock_guard lock(registries_mutex);
  auto it = registries().find(host);
  return it == registries().end() ? nullptr : it->second.lock();
}

bool Registry::loaded_on(sqlite3* host) {
  const auto registry = of(host);
  return registry && registry->loaded_;
}

void Registry::remember(const std::shared_ptr<Registry>& registry) {
  std::lock_guard lock(registries_mutex);
  registries()[registry->host()] = registry;
}

bool Registry::profile_stale(const canonical::MemberPtr& m) {
  std::lock_guard lock(mutex_);
  const canonical::FileStamp stamp = file_stamp(m->path);
  return !(m->profile && stamp.exists() && stamp == m->profile_stamp);
}

canonical::FileStamp Registry::stamp(const canonical::MemberPtr& m) const { return file_stamp(m->path); }

void Registry::stash(const canonical::MemberPtr& m, const std::string& tag, const canonical::FileStamp& stamp,
                     int64_t clock_offset, std::shared_ptr<void> value) {
  if (m->attached || !stamp.exists()) return;
  std::lock_guard lock(mutex_);
  m->stash[tag] = {stamp, clock_offset, std::move(value)};
}

std::shared_ptr<void> Registry::take_stash(const canonical::MemberPtr& m, const std::string& tag) {
  canonical::Member::Stashed taken;
  {
    std::lock_guard lock(mutex_);
    const auto it = m->stash.find(tag);
    if (it == m->stash.end()) return nullptr;
    taken = std::move(it->second);
    m->stash.erase(it);
  }
  const canonical::FileStamp now = file_stamp(m->path);
  if (!now.exists() || !(now == taken.stamp) || m->clock_offset.load() != taken.clock_offset) return nullptr;
  return taken.value;
}

Registry::ToVisit Registry::take_stashes(const std::vector<canonical::MemberPtr>& members, const std::string& tag,
                                         const std::function<void(size_t, std::shared_ptr<void>)>& taken) {
  ToVisit out;
  for (size_t i = 0; i < members.size(); ++i) {
    if (auto value = take_stash(members[i], tag)) {
      taken(i, std::move(value));
      continue;
    }
    out.members.push_back(members[i]);
    out.index.push_back(i);
  }
  return out;
}

std::shared_ptr<const canonical::Profile> Registry::profile_on(const canonical::MemberPtr& m, sqlite3* db, InterruptWatch& watch,
                                                               uint64_t ops_columns) {
  if (!m->info.adapter->needs_profile(canonical::TableKind::Ops, ops_columns)) return nullptr;
  canonical::FileStamp stamp;
  {
    std::lock_guard lock(mutex_);
    stamp = file_stamp(m->path);
    if (m->profile && stamp.exists() && stamp == m->profile_stamp) return m->profile;
  }
  auto computed = compute_profile(db, *m, &watch);
  std::lock_guard lock(mutex_);
  m->profile = computed;
  m->profile_stamp = stamp;
  mean_rows_valid_ = false;
  return computed;
}

std::shared_ptr<const canonical::Profile> Registry::profile_off_host(const canonical::MemberPtr& m, InterruptWatch& watch, sqlite3* shadow) {
  if (m->attached && !shadow) throw Error("profile_off_host: an attached member needs its shadow connection");
  const auto stamp = file_stamp(m->path);
  std::shared_ptr<const canonical::Profile> computed;
  if (shadow) {
    ProgressGuard guard(shadow, &watch, false);
    computed = compute_profile(shadow, *m, &watch);
  } else {
    auto lease = acquire(m, &watch, false);
    computed = compute_profile(lease.db(), *m, &watch);
  }
  std::lock_guard lock(mutex_);
  m->profile = computed;
  m->profile_stamp = stamp;
  mean_rows_valid_ = false;
  return computed;
}

bool Registry::in_user_transaction(const canonical::Member& m) const {
  if (!m.attached) return false;
  const int txn = sqlite3_txn_state(host_, m.schema.c_str());
  return txn == SQLITE_TXN_WRITE || (txn == SQLITE_TXN_READ && !sqlite3_get_autocommit(host_));
}

Db Registry::shadow(const canonical::Member& m) {
  if (!m.attached) return {};
  const char* schema = m.schema.c_str();
  const char* file = sqlite3_db_filename(host_, schema);
  if (!file || !*file) return {};
  // Inside the user's transaction the host reads a snapshot of its own (or its own changes): only
  // the host sees that. Outside one, every read of the host starts from the latest commit, as
  // the private connection does.
  if (in_user_transaction(m)) return {};
  std::string vfs;
  sqlite3_vfs* used = nullptr;
  if (sqlite3_file_control(host_, schema, SQLITE_FCNTL_VFS_POINTER, &used) == SQLITE_OK && used &&
      used != sqlite3_vfs_find(nullptr))
    vfs = used->zName;
  try {
    Db db = open_member_db_as(file, vfs, m.schema, label_of(m));
    limit_page_cache(db.get());
    return db;
  } catch (const Error&) {
    return {};  // the host's own connection reads it instead
  }
}

void Registry::profile_all(const std::vector<canonical::MemberPtr>& members, InterruptWatch& watch) {
  std::vector<canonical::MemberPtr> stale;
  std::vector<canonical::FileStamp> stamps;
  {
    std::lock_guard lock(mutex_);
    for (const auto& m : members) {
      const canonical::FileStamp stamp = file_stamp(m->path);
      if (m->profile && stamp.exists() && stamp == m->profile_stamp) continue;
      stale.push_back(m);
      stamps.push_back(stamp);
    }
  }
  if (stale.size() < 2) return;  // profile() computes a single one as well
  std::vector<std::shared_ptr<const canonical::Profile>> computed(stale.size());
  // Without the registry lock: the pool's leases take it briefly, the passes run side by side.
  MemberPool(*this, watch).run(stale, [&](size_t i, sqlite3* db, size_t) {
    computed[i] = compute_profile(db, *stale[i], &watch);
  });
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < stale.size(); ++i) {
    stale[i]->profile = computed[i];
    stale[i]->profile_stamp = stamps[i];
  }
  mean_rows_valid_ = false;
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

canonical::MemberPtr Registry::open_file(const std::string& path, const std::string& alias, InterruptWatch* watch,
                             const std::string& who, const canonical::FileStamp* stamped) {
  canonical::MemberPtr m = new_opened_member(path);
  m->alias = alias;
  if (exported_nsys_report(path)) {
    ConvertedMember converted = export_nsys_report(path, who, watch, progress);  // opted in: nsys exports it
    m->db_path = converted.trace->path();
    m->converted = std::move(converted.trace);
    m->conversion = std::move(converted.conversion);
  } else if (converted_json_trace(path)) {
    // `[]` converts without error into a member of nothing: refused by name.
    if (const JsonSniff sniff = sniff_json_trace_file(path); sniff.empty_array)
      throw Error(fmt::format("{}: {}: not a Chrome-trace JSON (PyTorch profiler) file", who, sniff.why), SQLITE_NOTADB);
    ConvertedMember converted = convert_json_trace(path, who, watch, progress);
    m->db_path = converted.trace->path();
    m->converted = std::move(converted.trace);
    m->conversion = std::move(converted.conversion);
  } else {
    read_in_place(*m, who);
  }
  // Taken before the file is read: a change after it shows as one more change (probed again).
  const canonical::FileStamp stamp = stamped ? *stamped : file_stamp(path);
  Db db = connect(*m, who);
  return probe_member(std::move(m), std::move(db), stamp, watch, /*host_thread=*/true, who);
}

canonical::MemberPtr Registry::reprobe(const canonical::MemberPtr& old) {
  const std::string who = fmt::format("member {} ({}), changed on disk since rocpd_open opened it", old->alias,
                                      old->path);
  const std::string forget = fmt::format("; rocpd_close('{}') forgets the member", old->alias);
  canonical::MemberPtr fresh;
  // A hostile new file's metadata may be a view that never ends: the probe stops on interrupt.
  InterruptWatch watch(host_);
  try {
    try {
      fresh = open_file(old->path, old->alias, &watch, who);
    } catch (const OutOfDescriptors&) {
      trim_pool(0);
      fresh = open_file(old->path, old->alias, &watch, who);
    }
  } catch (const Error& e) {
    if (e.code() == SQLITE_INTERRUPT) throw;
    throw Error(e.what() + forget, e.code());
  }
  if (!fresh)
    throw Error(fmt::format("{}: holds no rpd or rocpd trace any more{}", who, forget));
  fresh->ordinal = old->ordinal;  // the same member: its rowids keep their ordinal
  fresh->clock_offset = old->clock_offset.load();
  // The old description may still be read by a running statement: its connection leaves the pool
  // now and closes with its last lease.
  old->retired = true;
  if (old->conn) {
    --open_connections_;
    if (old->leases == 0) old->conn.reset();
  }
  ++open_connections_;  // the new probe's connection
  trim_pool(max_open_connections);
  opened_changed();  // the caller puts `fresh` in `old`'s place
  return fresh;
}

namespace {
// How many files the probing threads may run ahead of Registry::open's loop: each result waiting
// holds a connection (a descriptor) beside the pool's. The read-ahead runs further (128 files).
constexpr size_t kProbeWindow = 32;
constexpr const char* kNoTrace = "holds no rpd or rocpd trace (no rocpd_op, rocpd_metadata or rocpd_metadata_<uuid> table)";
}  // namespace

int Registry::open(const std::string& pattern, InterruptWatch* watch) {
  std::lock_guard lock(mutex_);
  const PatternFiles found = expand_pattern(pattern, [watch] {
    if (watch) watch->check();
  });
  // Attached files too: a file is one member however it came, under whatever name (compared by
  // device and inode: hard links, bind mounts).
  std::set<std::string> known;
  std::map<FileId, std::string> known_ids;  // -> what it is already: "member x ('path')"
  CanonicalPaths canonical;
  for (const auto& m : members()) {
    if (m->path.empty()) continue;
    known.insert(canonical.of(m->path));
    if (const auto id = file_id(m->path)) known_ids.emplace(*id, same_file_reason(*m));
  }
  std::vector<canonical::MemberPtr> added;
  std::vector<SkippedFile> skipped = found.skipped;
  std::set<std::string> taken;
  size_t kept = 0, already = 0;
  const size_t threads = open_threads();
  FileReadAhead ahead(found.files);  // the heads of the next files, while these are probed
  // Probing threads, ahead of this loop; it takes their results in pattern order (parallel_probe.h).
  std::optional<ParallelProbe> probes;
  if (threads > 1 && found.files.size() > 1) {
    probes.emplace(found.files, threads, kProbeWindow);
    if (!probes->running()) probes.reset();
  }
  try {
    for (size_t index = 0; index < found.files.size(); ++index) {
      const std::string& file = found.files[index];
      ahead.reached(index);
      if (watch) watch->check();
      if (!known.insert(canonical.of(file)).second) {  // already a member: never count it twice
        ++already;
        continue;
      }
      std::optional<ProbedFile> probed;
      if (probes) probed = probes->take(index, watch);
      const canonical::FileStamp stamp = probed ? probed->stamp : file_stamp(file);
      const auto id = stamp.exists() ? std::optional<FileId>(FileId{stamp.device, stamp.inode}) : std::nullopt;
      if (id)
        if (auto it = known_ids.find(*id); it != known_ids.end()) {  // another name of a member's file
          skipped.push_back({file, it->second});
          ++already;
          continue;
        }
      const std::string alias = unique_alias(member_name(file, found.base), taken);
      const std::string who = fmt::format("rocpd_open: '{}'", file);
      canonical::MemberPtr m;
      try {
        if (probed && !probed->on_host) {
          if (probed->error) std::rethrow_exception(probed->error);  // the first error in pattern order
          m = std::move(probed->member);
          if (m) m->alias = alias;
        } else {
          m = open_file(file, alias, watch, who, &stamp);
        }
      } catch (const OutOfDescriptors&) {
        // The probing connections kept so far, and those of the probes ahead, hold descriptors
        // too: let them go, then retry, and probe the rest on this thread.
        probes.reset();
        for (auto& a : added) a->conn.reset();
        kept = 0;
        trim_pool(0);
        m = open_file(file, alias, watch, who, &stamp);
      }
      if (!m) {
        // An SQLite file without a trace in a directory or glob (notes, a tool's cache): not ours.
        if (found.single) throw Error(fmt::format("{}: {}", who, kNoTrace));
        skipped.push_back({file, "an SQLite database that holds no rpd or rocpd trace"});
        taken.erase(alias);
        continue;
      }
      m->ordinal = take_ordinal();
      if (id) known_ids.emplace(*id, same_file_reason(*m));
      // Keep the probing connection only while the pool has room.
      if (open_connections_ + kept >= max_open_connections) {
        m->conn.reset();
        if (probes) probes->keep_no_connections();
      } else {
        ++kept;
      }
      added.push_back(std::move(m));
    }
    if (added.empty() && already == 0 && !skipped.empty())
      throw Error(fmt::format("rocpd_open: '{}' holds no trace file: skipped {}", pattern, skipped_list(skipped)));
  } catch (...) {
    for (const auto& m : added) give_back_ordinal(m->ordinal);
    throw;
  }
  open_connections_ += kept;
  for (auto& m : added) opened_.push_back(std::move(m));
  if (!added.empty()) opened_changed();
  // What was passed over is a notice (sqlite3_log, for hosts that log) and a table (rocpd_skipped).
  for (const auto& s : skipped)
    sqlite3_log(SQLITE_NOTICE, "rocpd_open('%s'): skipped '%s': %s", pattern.c_str(), s.path.c_str(), s.reason.c_str());
  last_skipped = {pattern, std::move(skipped)};
  return static_cast<int>(added.size());
}

int Registry::close(const std::string& alias) {
  std::lock_guard lock(mutex_);
  for (auto it = opened_.begin(); it != opened_.end(); ++it) {
    if ((*it)->alias != alias) continue;
    if ((*it)->leases > 0) throw Error(fmt::format("rocpd_close: member {} is being read by a running query", alias));
    if ((*it)->conn) --open_connections_;
    give_back_ordinal((*it)->ordinal);
    opened_.erase(it);
    opened_changed();  // the list held the member (a converted member's temporary database) alive
    return 1;
  }
  throw Error(fmt::format("rocpd_close: no member opened by rocpd_open is named '{}'", alias));
}

int Registry::close_all() {
  std::lock_guard lock(mutex_);
  for (const auto& m : opened_)
    if (m->leases > 0) throw Error(fmt::format("rocpd_close: member {} is being read by a running query", m->alias));
  const int n = static_cast<int>(opened_.size());
  for (const auto& m : opened_) give_back_ordinal(m->ordinal);
  opened_.clear();
  opened_changed();
  open_connections_ = 0;
  return n;
}

}  // namespace rocpd::members
