#include "federation/member_prefetch.h"

#include <fmt/format.h>

#include <cstring>

#include "federation/member_files.h"

namespace rocpd::federation {

namespace {
constexpr size_t kRowsPerBatch = 4096;
constexpr size_t kQueuedBatches = 8;  // bounds memory: a few MB at most
}  // namespace

Prefetcher::Prefetcher(Registry* registry, const CanonicalTable& table, uint64_t used,
                       std::vector<PushedConstraint> pushed, const std::vector<sqlite3_value*>& values,
                       std::vector<PrefetchItem> items)
    : registry_(registry), table_(table), used_(used), pushed_(std::move(pushed)), values_(values),
      items_(std::move(items)) {
  worker_ = std::thread([this] { run(); });
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

std::unique_ptr<Batch> Prefetcher::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !queue_.empty() || done_; });
  if (!queue_.empty()) {
    auto batch = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all();
    return batch;
  }
  if (!error_.empty()) throw Error(error_, error_code_);
  return nullptr;
}

bool Prefetcher::push(std::unique_ptr<Batch> batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kQueuedBatches || stop_; });
  if (stop_) return false;
  queue_.push_back(std::move(batch));
  changed_.notify_all();
  return true;
}

void Prefetcher::read_item(size_t index) {
  const PrefetchItem& item = items_[index];
  auto lease = registry_->acquire(item.member);
  const auto sources = sources_for(table_.kind, *item.member, item.profile.get(),
                                   uses_kind(table_.kind, used_, pushed_) ? lease.db() : nullptr);
  const auto query = build_member_query(sources.at(item.source), used_, pushed_, item.ranged, &values_);
  auto label = [&] { return fmt::format("{}: member {} ({})", table_.name, item.member->alias, item.member->path); };
  Stmt stmt;
  try {
    stmt = prepare(lease.db(), query.sql);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", label(), e.what()), e.code());
  }
  for (size_t i = 0; i < values_.size(); ++i) sqlite3_bind_value(stmt.get(), static_cast<int>(i + 1), values_[i]);
  if (item.ranged) {
    sqlite3_bind_int64(stmt.get(), query.rowid_param, item.lo);
    sqlite3_bind_int64(stmt.get(), query.rowid_param + 1, item.hi);
  }
  auto columns = std::make_shared<const std::vector<int>>(query.select_index);
  const size_t width = static_cast<size_t>(sqlite3_column_count(stmt.get()));
  auto fresh = [&] {
    auto b = std::make_unique<Batch>();
    b->item = index;
    b->columns = columns;
    b->width = width;
    b->cells.reserve(kRowsPerBatch * width);
    return b;
  };
  auto batch = fresh();
  for (;;) {
    const int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW)
      throw Error(fmt::format("{}: {}{}", label(), sqlite3_errmsg(lease.db()), zstd_reason(item.member->path)), rc);
    for (size_t c = 0; c < width; ++c) {
      Cell cell;
      cell.type = sqlite3_column_type(stmt.get(), static_cast<int>(c));
      if (cell.type == SQLITE_INTEGER) {
        cell.i = sqlite3_column_int64(stmt.get(), static_cast<int>(c));
      } else if (cell.type == SQLITE_FLOAT) {
        cell.d = sqlite3_column_double(stmt.get(), static_cast<int>(c));
      } else if (cell.type == SQLITE_TEXT || cell.type == SQLITE_BLOB) {
        const void* p = cell.type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_column_text(stmt.get(), static_cast<int>(c)))
                                                 : sqlite3_column_blob(stmt.get(), static_cast<int>(c));
        cell.length = static_cast<uint32_t>(sqlite3_column_bytes(stmt.get(), static_cast<int>(c)));
        cell.offset = static_cast<uint32_t>(batch->arena.size());
        if (cell.length) batch->arena.append(static_cast<const char*>(p), cell.length);
      }
      batch->cells.push_back(cell);
    }
    // Keep offsets within 32 bits and batches small: cut early on long texts.
    if (++batch->rows == kRowsPerBatch || batch->arena.size() > (16u << 20)) {
      if (!push(std::move(batch))) return;
      batch = fresh();
    }
  }
  stmt.reset();
  batch->last_of_item = true;
  push(std::move(batch));
}

void Prefetcher::run() noexcept {
  try {
    for (size_t i = 0; i < items_.size(); ++i) {
      {
        std::lock_guard lock(mutex_);
        if (stop_) break;
      }
      read_item(i);
    }
  } catch (const Error& e) {
    std::lock_guard lock(mutex_);
    error_ = e.what();
    error_code_ = e.code();
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    error_ = e.what();
    error_code_ = SQLITE_ERROR;
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = "rocpd: unknown error in a prefetch thread";
    error_code_ = SQLITE_ERROR;
  }
  std::lock_guard lock(mutex_);
  done_ = true;
  changed_.notify_all();
}

}  // namespace rocpd::federation
