#include "federation/member_prefetch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "federation/member_files.h"

namespace rocpd::federation {

namespace {
constexpr size_t kRowsPerBatch = 4096;
// Per lane, a worker may read ahead up to a whole 100k-op member (so lanes overlap), bounded in
// bytes too so that long kernel names cannot make the queues large.
constexpr size_t kQueuedBatches = 32;
constexpr size_t kQueuedBytes = 24u << 20;

size_t bytes_of(const Batch& b) { return b.cells.size() * sizeof(Cell) + b.arena.size(); }
}  // namespace

Prefetcher::Prefetcher(Registry* registry, const CanonicalTable& table, uint64_t used,
                       std::vector<PushedConstraint> pushed, const std::vector<sqlite3_value*>& values,
                       std::vector<PrefetchItem> items)
    : registry_(registry), table_(table), used_(used), pushed_(std::move(pushed)), values_(values),
      items_(std::move(items)) {
  // One reader per core: the consumer's per-row work is lighter than a member's, so the cores
  // are best spent reading (measured in bench/bench_federation.py).
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  size_t members = 0;
  for (size_t i = 0; i < items_.size(); ++i)
    if (i == 0 || items_[i].member != items_[i - 1].member) ++members;
  const size_t lanes = std::max<size_t>(1, std::min(cores, members));
  for (size_t w = 0; w < lanes; ++w) lanes_.push_back(std::make_unique<Lane>());
  size_t member_index = 0;
  for (size_t i = 0; i < items_.size(); ++i) {
    if (i > 0 && items_[i].member != items_[i - 1].member) ++member_index;
    lane_of_.push_back(member_index % lanes);
  }
  for (size_t w = 0; w < lanes_.size(); ++w) workers_.emplace_back([this, w] { run(w); });
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_) w.join();
}

std::unique_ptr<Batch> Prefetcher::next() {
  std::unique_lock lock(mutex_);
  if (consumed_items_ >= items_.size()) return nullptr;
  Lane& lane = *lanes_[lane_of_[consumed_items_]];
  changed_.wait(lock, [&] { return !lane.queue.empty() || lane.done; });
  if (!lane.queue.empty()) {
    auto batch = std::move(lane.queue.front());
    lane.queue.pop_front();
    lane.queued_bytes -= bytes_of(*batch);
    if (batch->last_of_item) ++consumed_items_;
    changed_.notify_all();
    return batch;
  }
  if (!lane.error.empty()) throw Error(lane.error, lane.error_code);
  return nullptr;
}

bool Prefetcher::push(size_t lane, std::unique_ptr<Batch> batch) {
  std::unique_lock lock(mutex_);
  Lane& l = *lanes_[lane];
  changed_.wait(lock, [&] {
    return stop_ || l.queue.empty() || (l.queue.size() < kQueuedBatches && l.queued_bytes < kQueuedBytes);
  });
  if (stop_) return false;
  l.queued_bytes += bytes_of(*batch);
  l.queue.push_back(std::move(batch));
  changed_.notify_all();
  return true;
}

void Prefetcher::read_item(size_t index, size_t lane) {
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
      if (!push(lane, std::move(batch))) return;
      batch = fresh();
    }
  }
  stmt.reset();
  batch->last_of_item = true;
  push(lane, std::move(batch));
}

void Prefetcher::run(size_t lane) noexcept {
  auto fail = [&](std::string what, int code) {
    std::lock_guard lock(mutex_);
    lanes_[lane]->error = std::move(what);
    lanes_[lane]->error_code = code;
  };
  try {
    for (size_t i = 0; i < items_.size(); ++i) {
      if (lane_of_[i] != lane) continue;
      {
        std::lock_guard lock(mutex_);
        if (stop_) break;
      }
      read_item(i, lane);
    }
  } catch (const Error& e) {
    fail(e.what(), e.code());
  } catch (const std::exception& e) {
    fail(e.what(), SQLITE_ERROR);
  } catch (...) {
    fail("rocpd: unknown error in a prefetch thread", SQLITE_ERROR);
  }
  std::lock_guard lock(mutex_);
  lanes_[lane]->done = true;
  changed_.notify_all();
}

}  // namespace rocpd::federation
