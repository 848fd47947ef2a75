#include "members/member_prefetch.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <pthread.h>

#include "members/fault_injection.h"
#include "members/member_columns.h"
#include "members/member_files.h"
#include "members/member_query.h"

namespace rocpd::members {

namespace {
constexpr size_t kRowsPerBatch = 4096;
// Per lane, a worker may read ahead up to a whole 100k-op member (so lanes overlap), bounded in
// bytes too so that long kernel names cannot make the queues large.
constexpr size_t kQueuedBatches = 32;
constexpr size_t kQueuedBytes = 24u << 20;
// Recycled batches kept per lane (a lane's queue turns over in batches consumed and refilled), and
// the largest batch kept (one cut early on long texts is let go).
constexpr size_t kSparesPerLane = 4;
constexpr size_t kSpareBytes = 4u << 20;
// How often the waiting host thread looks at the host's interrupt flag.
constexpr auto kInterruptPoll = std::chrono::milliseconds(10);

}  // namespace

Prefetcher::Prefetcher(Registry* registry, const canonical::CanonicalTable& table, uint64_t used,
                       std::span<const PushedConstraint> pushed, std::vector<PrefetchItem> items, InterruptWatch* watch,
                       bool by_columns)
    : registry_(registry), table_(table), used_(used), items_(std::move(items)), watch_(watch), by_columns_(by_columns) {
  for (const auto& c : pushed) {
    PushedConstraint copy = c;
    if (c.value) {
      values_.push_back(dup_value(c.value));
      copy.value = values_.back().get();
    }
    pushed_.push_back(copy);
  }
  // One reader per core: the consumer's per-row work is lighter than a member's, so the cores
  // are best spent reading (measured in bench/bench_federation.py).
  static const size_t cores = std::max(1u, std::thread::hardware_concurrency());  // reads /sys: once
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
  try {
    for (size_t w = 0; w < lanes_.size(); ++w) {
      // ROCPD_FAULT=thread_start (tests): every reader thread fails to start, as under a thread limit.
      if (fault_injected("thread_start")) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      workers_.emplace_back([this, w] { run(w); });
    }
  } catch (const std::system_error& e) {
    stop_and_join();
    throw ThreadStartFailure(e.what());
  }
}

Prefetcher::~Prefetcher() { stop_and_join(); }

void Prefetcher::stop_and_join() noexcept {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (auto& w : workers_)
    if (w.joinable()) w.join();
}

std::unique_ptr<Batch> Prefetcher::next() {
  std::unique_lock lock(mutex_);
  if (consumed_items_ >= items_.size()) return nullptr;
  Lane& lane = *lanes_[lane_of_[consumed_items_]];
  while (!changed_.wait_for(lock, kInterruptPoll, [&] { return !lane.queue.empty() || lane.done; })) {
    lock.unlock();
    const bool interrupted = watch_ && watch_->poll();  // sets the workers' stop flag too
    lock.lock();
    if (interrupted) InterruptWatch::raise();
  }
  if (!lane.queue.empty()) {
    auto batch = std::move(lane.queue.front());
    lane.queue.pop_front();
    lane.queued_bytes -= batch->block.bytes();
    if (batch->last_of_item) ++consumed_items_;
    changed_.notify_all();
    return batch;
  }
  if (!lane.error.empty()) {
    if (lane.error_code == SQLITE_INTERRUPT) InterruptWatch::raise();
    throw Error(lane.error, lane.error_code);
  }
  return nullptr;
}

void Prefetcher::recycle(std::unique_ptr<Batch> batch) {
  if (!batch || batch->block.bytes() > kSpareBytes) return;
  batch->block.cells.clear();
  batch->block.arena.clear();
  batch->block.rows = 0;
  batch->last_of_item = false;
  batch->columns.reset();
  std::lock_guard lock(mutex_);
  if (spares_.size() < kSparesPerLane * lanes_.size()) spares_.push_back(std::move(batch));
}

std::unique_ptr<Batch> Prefetcher::spare_or_new() {
  {
    std::lock_guard lock(mutex_);
    if (!spares_.empty()) {
      auto b = std::move(spares_.back());
      spares_.pop_back();
      return b;
    }
  }
  return std::make_unique<Batch>();
}

bool Prefetcher::push(size_t lane, std::unique_ptr<Batch> batch) {
  std::unique_lock lock(mutex_);
  Lane& l = *lanes_[lane];
  changed_.wait(lock, [&] {
    return stop_ || l.queue.empty() || (l.queue.size() < kQueuedBatches && l.queued_bytes < kQueuedBytes);
  });
  if (stop_) return false;
  l.queued_bytes += batch->block.bytes();
  l.queue.push_back(std::move(batch));
  changed_.notify_all();
  return true;
}

std::unique_ptr<Batch> Prefetcher::new_batch(size_t item, std::shared_ptr<const std::vector<int>> columns,
                                             size_t width) {
  auto b = spare_or_new();
  b->item = item;
  b->columns = std::move(columns);
  b->block.width = width;
  b->block.cells.reserve(kRowsPerBatch * width);
  return b;
}

void Prefetcher::read_item(size_t index, size_t lane) {
  const PrefetchItem& item = items_[index];
  if (by_columns_ && !item.ranged) return read_item_by_columns(index, lane);
  auto lease = registry_->acquire(item.member, watch_, /*host_thread=*/false);
  auto q = open_member_query(table_, *item.member, item.profile.get(), lease.db(), item.source, used_, pushed_,
                             item.ranged, item.lo, item.hi, /*duration_by_parts=*/true);
  DurationParts parts(lease.db());
  auto columns = std::make_shared<const std::vector<int>>(q.query.select_index);
  const size_t width = q.affinity.size();
  auto fresh = [&] { return new_batch(index, columns, width); };
  auto batch = fresh();
  for (;;) {
    const int rc = sqlite3_step(q.stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      if (rc == SQLITE_INTERRUPT) throw Error("interrupted", SQLITE_INTERRUPT);
      throw Error(fmt::format("{}: {}: {}{}", table_.name, member_label(*item.member), sqlite3_errmsg(lease.db()),
                              zstd_reason(item.member->path)),
                  rc);
    }
    if (q.duration_difference >= 0) batch->block.append(q.stmt.get(), q.affinity, q.duration_difference, parts);
    else batch->block.append(q.stmt.get(), q.affinity);
    // Keep batches small: cut early on long texts.
    if (batch->block.rows == kRowsPerBatch || batch->block.arena.size() > (16u << 20)) {
      if (!push(lane, std::move(batch))) return;
      batch = fresh();
    }
  }
  q.stmt.reset();
  batch->last_of_item = true;
  push(lane, std::move(batch));
}

void Prefetcher::read_item_by_columns(size_t index, size_t lane) {
  const PrefetchItem& item = items_[index];
  auto lease = registry_->acquire(item.member, watch_, /*host_thread=*/false);
  // The columns the plan reads (never db: the cursor answers it), each a cell after the rowid.
  std::vector<int> read;
  auto columns = std::make_shared<std::vector<int>>(table_.columns.size(), -1);
  for (int c = 0; c < static_cast<int>(table_.columns.size()) && c < 64; ++c) {
    if (c == table_.db_col || !(used_ & (uint64_t{1} << c))) continue;
    read.push_back(c);
    (*columns)[static_cast<size_t>(c)] = static_cast<int>(read.size());
  }
  // The hint: one text equality (the source predicate's column first: rpd's kind).
  std::optional<std::pair<int, std::string>> text_equals;
  for (int pass = 0; pass < 2 && !text_equals; ++pass)
    for (const PushedConstraint& c : pushed_) {
      const auto& column = table_.columns[static_cast<size_t>(c.column)];
      const bool predicate = column.name == std::string_view("kind") || column.name == std::string_view("domain");
      if (c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.collation != Collation::Binary || !column.text || !c.value ||
          sqlite3_value_type(c.value) != SQLITE_TEXT || (pass == 0 && !predicate))
        continue;
      text_equals.emplace(c.column, std::string(reinterpret_cast<const char*>(sqlite3_value_text(c.value)),
                                                static_cast<size_t>(sqlite3_value_bytes(c.value))));
      break;
    }
  // No integer bounds: a member's own values of some integer columns are not the canonical ones
  // (rpd's correlation ids of a second session, offset by 2^32), and a bound on the member's value
  // dropped rows (the differential tester, sessions/opened). SQLite applies every bound itself.
  const std::vector<IntBound> bounds;
  MemberColumns rows(*item.member, lease.db(), table_.kind, read, item.profile.get(), text_equals, bounds, nullptr,
                     false, static_cast<size_t>(item.source));
  const size_t width = read.size() + 1;
  std::vector<StoredValue> values(width);
  std::vector<int64_t> tokens(width, -1);
  // Per column, the text numbers this item has carried the bytes of: later rows leave them out.
  std::vector<std::vector<uint8_t>> sent(width);
  std::vector<uint8_t> left_out(width, 0);
  auto fresh = [&] { return new_batch(index, columns, width); };
  auto batch = fresh();
  while (rows.next()) {
    values[0].type = SQLITE_INTEGER;
    values[0].i = rows.own_rowid();
    for (size_t i = 0; i < read.size(); ++i) {
      rows.get(i, values[i + 1]);
      const int64_t token = rows.fixed(i) ? 0 : rows.name_token();  // a fixed text: its only number
      tokens[i + 1] = token;
      left_out[i + 1] = 0;
      if (token >= 0 && token < kTextNumbers && values[i + 1].type == SQLITE_TEXT) {
        auto& seen = sent[i + 1];
        const auto at = static_cast<size_t>(token);
        if (at >= seen.size()) seen.resize(std::max(at + 1, seen.size() * 2), 0);
        left_out[i + 1] = seen[at];
        seen[at] = 1;
      }
    }
    batch->block.append_values(values, tokens, left_out);
    if (batch->block.rows == kRowsPerBatch || batch->block.arena.size() > (16u << 20)) {
      if (!push(lane, std::move(batch))) return;
      batch = fresh();
    }
  }
  batch->last_of_item = true;
  push(lane, std::move(batch));
}

void Prefetcher::run(size_t lane) noexcept {
  pthread_setname_np(pthread_self(), "rocpd-prefetch");  // told apart from the host thread in perf and top
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
  } catch (const std::bad_alloc&) {
    fail("out of memory", SQLITE_NOMEM);
  } catch (const std::exception& e) {
    fail(e.what(), SQLITE_ERROR);
  } catch (...) {
    fail("rocpd: unknown error in a prefetch thread", SQLITE_ERROR);
  }
  std::lock_guard lock(mutex_);
  lanes_[lane]->done = true;
  changed_.notify_all();
}

}  // namespace rocpd::members
