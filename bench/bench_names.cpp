// names: a trace column of 1M kernel names with 500 distinct ones (the shape of real traces:
// few kernels, launched very often). Compares, in one run and on the same rows:
//   demangle_cached (process-wide bounded cache)  vs  uncached demangle (LLVM 19, guarded),
//   plain llvm::itaniumDemangle, and abi::__cxa_demangle (GCC's demangler);
// the same for kernel_short_name; the cache from 4 threads; and the SQL function over a table.
// Usage: bench_names [rows] [distinct]
#include <cxxabi.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "names/demangle.h"
#include "names/demangle_backend.h"
#include "names/name_cache.h"

namespace names = rocpd::names;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::string> corpus_names() {
  std::ifstream in(ROCPD_NAMES_CORPUS);
  if (!in) throw std::runtime_error("cannot open " ROCPD_NAMES_CORPUS);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') out.push_back(line.substr(0, line.find('\t')));
  }
  return out;
}

struct Result {
  std::string method;
  double seconds;
  std::size_t checksum;
};

template <class F>
Result measure(const std::string& method, const std::vector<const std::string*>& rows, F&& fn) {
  auto t0 = Clock::now();
  std::size_t checksum = 0;
  for (const std::string* name : rows) checksum += fn(*name);
  return {method, std::chrono::duration<double>(Clock::now() - t0).count(), checksum};
}

double sql_seconds(const std::vector<const std::string*>& rows, const char* expression, std::size_t* checksum) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_enable_load_extension(db, 1);
  char* err = nullptr;
  if (sqlite3_load_extension(db, ROCPD_EXT_PATH, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "cannot load %s: %s\n", ROCPD_EXT_PATH, err ? err : "?");
    std::exit(1);
  }
  sqlite3_exec(db, "CREATE TABLE ops(name TEXT)", nullptr, nullptr, nullptr);
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO ops VALUES (?)", -1, &insert, nullptr);
  for (const std::string* name : rows) {
    sqlite3_bind_text(insert, 1, name->data(), static_cast<int>(name->size()), SQLITE_STATIC);
    sqlite3_step(insert);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  std::string sql = std::string("SELECT sum(length(") + expression + ")) FROM ops";
  sqlite3_stmt* query = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &query, nullptr);
  auto t0 = Clock::now();
  if (sqlite3_step(query) != SQLITE_ROW) {
    std::fprintf(stderr, "%s: %s\n", sql.c_str(), sqlite3_errmsg(db));
    std::exit(1);
  }
  *checksum = static_cast<std::size_t>(sqlite3_column_int64(query, 0));
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  sqlite3_finalize(query);
  sqlite3_close(db);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n_rows = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const std::size_t n_distinct = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 500;

  // 500 distinct names from the test corpus (mangled, 20 bytes to 10 kB, with C++20 Tn
  // manglings and clone suffixes), drawn with a skew: a few kernels dominate, as in traces.
  std::vector<std::string> pool = corpus_names();
  std::mt19937_64 rng(2024);
  std::shuffle(pool.begin(), pool.end(), rng);
  if (pool.size() < n_distinct) throw std::runtime_error("corpus too small");
  pool.resize(n_distinct);
  std::vector<const std::string*> rows(n_rows);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t i = 0; i < n_rows; ++i) {
    rows[i] = &pool[std::min(n_distinct - 1, static_cast<std::size_t>(n_distinct * std::pow(u(rng), 3.0)))];
  }
  // Every distinct name appears at least once.
  for (std::size_t i = 0; i < n_distinct && i < n_rows; ++i) rows[i * (n_rows / n_distinct)] = &pool[i];
  std::size_t bytes = 0;
  for (const auto& p : pool) bytes += p.size();
  std::printf("bench_names: %zu rows, %zu distinct mangled names (avg %zu bytes), demangler %s, cache %zu entries\n\n",
              n_rows, n_distinct, bytes / n_distinct, names::demangler_backend(), names::kNameCacheCapacity);

  std::vector<Result> results;
  names::demangle_cache().clear();
  results.push_back(measure("demangle_cached (cold cache)", rows, [](const std::string& s) {
    return names::demangle_cached(s).size();
  }));
  results.push_back(measure("demangle uncached (LLVM 19, guarded)", rows, [](const std::string& s) {
    return names::demangle(s).size();
  }));
  results.push_back(measure("llvm::itaniumDemangle uncached", rows, [](const std::string& s) {
    auto r = names::detail::demangle_with_llvm_library(s);
    return r ? r->size() : s.size();
  }));
  results.push_back(measure("abi::__cxa_demangle uncached", rows, [](const std::string& s) {
    auto r = names::detail::demangle_with_cxa(s);
    return r ? r->size() : s.size();
  }));
  names::short_name_cache().clear();
  Result short_cached = measure("kernel_short_name_cached", rows, [](const std::string& s) {
    return names::kernel_short_name_cached(s).size();
  });
  Result short_uncached = measure("kernel_short_name uncached", rows, [](const std::string& s) {
    return names::kernel_short_name(s).size();
  });

  // Four threads share the process-wide cache (already warm).
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  std::vector<std::size_t> sums(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < rows.size(); i += 4) sums[t] += names::demangle_cached(*rows[i]).size();
    });
  }
  for (auto& th : threads) th.join();
  Result threaded{"demangle_cached, 4 threads (warm)", std::chrono::duration<double>(Clock::now() - t0).count(),
                  sums[0] + sums[1] + sums[2] + sums[3]};

  const double base = results[0].seconds;
  std::printf("%-40s %10s %12s %14s\n", "method", "seconds", "Mrows/s", "cached is x");
  auto row = [&](const Result& r, double reference) {
    std::printf("%-40s %10.3f %12.2f %14.1f\n", r.method.c_str(), r.seconds, n_rows / r.seconds / 1e6,
                r.seconds / reference);
  };
  for (const auto& r : results) row(r, base);
  row(threaded, base);
  std::printf("\n");
  row(short_cached, short_cached.seconds);
  row(short_uncached, short_cached.seconds);

  std::size_t sql_sum = 0, sql_raw = 0;
  double sql_demangle = sql_seconds(rows, "demangle(name)", &sql_sum);
  double sql_plain = sql_seconds(rows, "name", &sql_raw);
  std::printf("\nSQL over a table of %zu rows: SELECT sum(length(demangle(name))) %.3f s (%.2f Mrows/s); "
              "sum(length(name)) %.3f s\n",
              n_rows, sql_demangle, n_rows / sql_demangle / 1e6, sql_plain);

  // (llvm::itaniumDemangle keeps " (.kd)", so only the cached/uncached pairs must agree.)
  const bool consistent = results[0].checksum == results[1].checksum && threaded.checksum == results[0].checksum &&
                          short_cached.checksum == short_uncached.checksum && sql_sum == results[0].checksum;
  auto stats = names::demangle_cache().stats();
  std::printf("\ncache: %llu hits, %llu misses, %zu entries; outputs of cached and uncached runs %s\n",
              static_cast<unsigned long long>(stats.hits), static_cast<unsigned long long>(stats.misses), stats.size,
              consistent ? "identical" : "DIFFER");
  std::printf("speedup of the cache over uncached LLVM demangling: %.1fx (guarded, as demangle() runs it), "
              "%.1fx (plain llvm::itaniumDemangle); over __cxa_demangle: %.1fx (goal >= 5x)\n",
              results[1].seconds / base, results[2].seconds / base, results[3].seconds / base);
  return consistent ? 0 : 1;
}
