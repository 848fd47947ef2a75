// Benchmark of the compression capability, every figure a ratio against a baseline measured in
// the same run on the same data:
//  1. rocpd_compress: compression ratio and throughput (uncompressed MB/s) per level and frame size;
//  2. queries through the rocpd_zstd VFS against the same database uncompressed: a full scan, a
//     1 % time-window query by index (random access: few frames) and by scan, per frame size;
//  3. when federation is built in (rocpd_open/rocpd_ops): a federated full scan and a 1 % window
//     over M members, compressed vs uncompressed.
// Each timing is the median of 5 runs, each on a fresh connection (SQLite's page cache and the
// VFS frame cache start cold; the OS file cache is warm for both sides).
// Usage: bench_compress [--ops N] [--members M] [--gen path/to/rocpd_gen] [--ext path/to/librocpd_ext] [--dir D]
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Options {
  long ops = 400000;
  int members = 8;
  std::string gen;
  std::string ext = ROCPD_EXT_PATH;
  std::string dir = "bench_compress_data";
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "bench_compress: %s\n", msg.c_str());
  std::exit(1);
}

class Conn {
 public:
  explicit Conn(const std::string& path, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                const char* vfs = nullptr) {
    if (sqlite3_open_v2(path.c_str(), &db_, flags, vfs) != SQLITE_OK) die(path + ": " + sqlite3_errmsg(db_));
  }
  ~Conn() { sqlite3_close_v2(db_); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  sqlite3* get() const { return db_; }
  void exec(const std::string& sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string m = err ? err : "?";
      sqlite3_free(err);
      die(sql.substr(0, 80) + ": " + m);
    }
  }
  void load(const std::string& ext) const {
    sqlite3_enable_load_extension(db_, 1);
    char* err = nullptr;
    if (sqlite3_load_extension(db_, ext.c_str(), nullptr, &err) != SQLITE_OK) die(std::string("load: ") + (err ? err : "?"));
  }
  // Runs a query and folds every column of every row into a checksum (so both sides can be compared).
  double fold(const std::string& sql) const {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) die(sql + ": " + sqlite3_errmsg(db_));
    double acc = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      for (int c = 0; c < sqlite3_column_count(st); ++c) acc += sqlite3_column_double(st, c);
    if (rc != SQLITE_DONE) die(sql + ": " + sqlite3_errmsg(db_));
    sqlite3_finalize(st);
    return acc;
  }
  bool has_function(const std::string& probe) const {
    sqlite3_stmt* st = nullptr;
    bool ok = sqlite3_prepare_v2(db_, probe.c_str(), -1, &st, nullptr) == SQLITE_OK;
    sqlite3_finalize(st);
    return ok;
  }

 private:
  sqlite3* db_ = nullptr;
};

double seconds(const std::function<void()>& body) {
  auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median_of(int runs, const std::function<void()>& body) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) t.push_back(seconds(body));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// An rpd-like trace: interned kernel names, API calls with argument strings (pointers, grid
// sizes), ops with completion signals, and the api->op links: the mix real rpd files have.
void synthesize(const std::string& path, long ops, unsigned seed) {
  fs::remove(path);
  Conn c(path);
  c.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
         "CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);"
         "INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2');"
         "CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);"
         "CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INT, tid INT, start INT, end INT, apiName_id INT, args_id INT);"
         "CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INT, queueId INT, sequenceId INT, completionSignal TEXT,"
         " start INT, end INT, description_id INT, opType_id INT);"
         "CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INT, op_id INT);"
         "BEGIN;");
  std::mt19937_64 rng(seed);
  auto ins = [&](const char* sql) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(c.get(), sql, -1, &st, nullptr);
    return st;
  };
  sqlite3_stmt* s_str = ins("INSERT INTO rocpd_string VALUES (?, ?)");
  sqlite3_stmt* s_api = ins("INSERT INTO rocpd_api VALUES (?, ?, ?, ?, ?, ?, ?)");
  sqlite3_stmt* s_op = ins("INSERT INTO rocpd_op VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  sqlite3_stmt* s_link = ins("INSERT INTO rocpd_api_ops VALUES (?, ?, ?)");
  long next_string = 1;
  auto add_string = [&](const std::string& s) {
    sqlite3_bind_int64(s_str, 1, next_string);
    sqlite3_bind_text(s_str, 2, s.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_step(s_str);
    sqlite3_reset(s_str);
    return next_string++;
  };
  add_string("");
  const long launch = add_string("hipLaunchKernel"), memcpy_api = add_string("hipMemcpyAsync");
  const long kexec = add_string("KernelExecution"), h2d = add_string("CopyHostToDevice"), d2h = add_string("CopyDeviceToHost");
  std::vector<long> kernels;
  for (int k = 0; k < 400; ++k)
    kernels.push_back(add_string("_ZN2at6native29vectorized_elementwise_kernelILi" + std::to_string(k % 9) +
                                 "ENS0_13BinaryFunctorIfffNS0_15MulFunctorIfEEEESt5arrayIPcLm" + std::to_string(k) +
                                 "EEEEviT0_T1_"));
  long t = 1'700'000'000'000'000'000L / 1000;
  char buf[256];
  for (long i = 1; i <= ops; ++i) {
    t += 200 + static_cast<long>(rng() % 6000);
    const bool kernel = rng() % 10 < 8;
    const long name = kernels[rng() % kernels.size()];
    if (kernel)
      std::snprintf(buf, sizeof buf, "stream=0x%llx | kernel=%ld | gridDim={%d,1,1} | blockDim={256,1,1} | sharedMem=0",
                    0x7f3a2c000000ULL + (rng() % 4) * 0x1000, name, 1 << (rng() % 12));
    else
      std::snprintf(buf, sizeof buf, "dst=0x%llx | src=0x%llx | sizeBytes=%llu | kind=%d | stream=0x7f3a2c000000",
                    0x7f0000000000ULL + (rng() % 65536) * 4096, 0x7e0000000000ULL + (rng() % 65536) * 4096,
                    static_cast<unsigned long long>(4096 * (1 + rng() % 1024)), 1 + static_cast<int>(rng() % 2));
    const long args = add_string(buf);
    sqlite3_bind_int64(s_api, 1, i);
    sqlite3_bind_int64(s_api, 2, 4242);
    sqlite3_bind_int64(s_api, 3, 4242 + static_cast<long>(rng() % 4));
    sqlite3_bind_int64(s_api, 4, t);
    sqlite3_bind_int64(s_api, 5, t + 1000 + static_cast<long>(rng() % 8000));
    sqlite3_bind_int64(s_api, 6, kernel ? launch : memcpy_api);
    sqlite3_bind_int64(s_api, 7, args);
    sqlite3_step(s_api);
    sqlite3_reset(s_api);
    const long start = t + 5000 + static_cast<long>(rng() % 15000);
    std::snprintf(buf, sizeof buf, "0x7f%08llx", static_cast<unsigned long long>(rng() & 0xffffffff));
    sqlite3_bind_int64(s_op, 1, i);
    sqlite3_bind_int64(s_op, 2, 2);
    sqlite3_bind_int64(s_op, 3, static_cast<long>(rng() % 4));
    sqlite3_bind_int64(s_op, 4, i);
    sqlite3_bind_text(s_op, 5, buf, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s_op, 6, start);
    sqlite3_bind_int64(s_op, 7, start + 2000 + static_cast<long>(rng() % 200000));
    sqlite3_bind_int64(s_op, 8, kernel ? name : 1);
    sqlite3_bind_int64(s_op, 9, kernel ? kexec : (rng() % 2 ? h2d : d2h));
    sqlite3_step(s_op);
    sqlite3_reset(s_op);
    sqlite3_bind_int64(s_link, 1, i);
    sqlite3_bind_int64(s_link, 2, i);
    sqlite3_bind_int64(s_link, 3, i);
    sqlite3_step(s_link);
    sqlite3_reset(s_link);
  }
  for (auto* s : {s_str, s_api, s_op, s_link}) sqlite3_finalize(s);
  c.exec("COMMIT; CREATE INDEX rocpd_op_start ON rocpd_op(start);");
}

double mib(std::uintmax_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--ops") o.ops = std::atol(argv[i + 1]);
    else if (a == "--members") o.members = std::atoi(argv[i + 1]);
    else if (a == "--gen") o.gen = argv[i + 1];
    else if (a == "--ext") o.ext = argv[i + 1];
    else if (a == "--dir") o.dir = argv[i + 1];
    else die("unknown option " + a);
  }
  fs::create_directories(o.dir);
  const std::string src = o.dir + "/trace.db";
  synthesize(src, o.ops, 7);
  const auto src_bytes = fs::file_size(src);
  Conn boot(":memory:");
  boot.load(o.ext);
  std::printf("data: synthetic rpd-like trace, %ld ops + %ld API calls, %.1f MiB (%s)\n\n", o.ops, o.ops,
              mib(src_bytes), src.c_str());

  // 1. Compression ratio and throughput.
  std::printf("1. rocpd_compress (baseline: the uncompressed file; throughput in uncompressed MiB/s)\n");
  std::printf("%-7s %10s %12s %8s %10s\n", "level", "frame KiB", "compressed", "ratio", "MiB/s");
  struct Variant {
    int level, frame_kib;
  };
  const std::vector<Variant> variants = {{1, 256}, {3, 32}, {3, 64}, {3, 256}, {3, 1024}, {9, 256}, {19, 256}};
  for (const auto& v : variants) {
    const std::string dst = o.dir + "/trace_l" + std::to_string(v.level) + "_f" + std::to_string(v.frame_kib) + ".db.zst";
    fs::remove(dst);
    const double s = seconds([&] {
      boot.fold("SELECT rocpd_compress('" + src + "', '" + dst + "', " + std::to_string(v.level) + ", " +
                std::to_string(v.frame_kib) + ")");
    });
    const auto z = fs::file_size(dst);
    std::printf("%-7d %10d %9.1f MiB %7.2fx %10.0f\n", v.level, v.frame_kib, mib(z),
                static_cast<double>(src_bytes) / static_cast<double>(z), mib(src_bytes) / s);
  }

  // 2. Queries through the VFS.
  double lo = 0, hi = 0;
  {
    Conn c(src, SQLITE_OPEN_READONLY);
    lo = c.fold("SELECT min(start) FROM rocpd_op");
    hi = c.fold("SELECT max(start) FROM rocpd_op");
  }
  const long w0 = static_cast<long>(lo + (hi - lo) * 0.37), w1 = static_cast<long>(lo + (hi - lo) * 0.38);
  struct Query {
    const char* what;
    std::string sql;
  };
  const std::vector<Query> queries = {
      {"full scan: per-kernel totals (ops join strings)",
       "SELECT s.string, count(*), sum(o.end - o.start) FROM rocpd_op o JOIN rocpd_string s ON s.id = o.description_id "
       "GROUP BY 1"},
      {"full scan: api table, sum of durations", "SELECT count(*), sum(end - start) FROM rocpd_api"},
      {"1% window, by index (random access)",
       "SELECT count(*), sum(end - start) FROM rocpd_op WHERE start BETWEEN " + std::to_string(w0) + " AND " +
           std::to_string(w1)},
      {"2000 random point lookups by id (B-tree probes)",
       "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 2000) "
       "SELECT sum(o.end) FROM k JOIN rocpd_op o ON o.id = (k.i * 7919) % " + std::to_string(o.ops) + " + 1"},
      {"1% window, by scan (+start disables the index)",
       "SELECT count(*), sum(end - start) FROM rocpd_op WHERE +start BETWEEN " + std::to_string(w0) + " AND " +
           std::to_string(w1)},
  };
  std::printf("\n2. queries, compressed (rocpd_zstd VFS, level 3) vs the same file uncompressed; median of 5\n");
  std::printf("%-50s %6s %12s %12s %9s %s\n", "query", "frame", "plain ms", "zstd ms", "slowdown", "same");
  for (const auto& q : queries) {
    double plain_sum = 0;
    const double plain = median_of(5, [&] {
      Conn c(src, SQLITE_OPEN_READONLY);
      plain_sum = c.fold(q.sql);
    });
    for (int frame : {32, 64, 256, 1024}) {
      const std::string zst = o.dir + "/trace_l3_f" + std::to_string(frame) + ".db.zst";
      double z_sum = 0;
      const double z = median_of(5, [&] {
        Conn c(zst, SQLITE_OPEN_READONLY, "rocpd_zstd");
        z_sum = c.fold(q.sql);
      });
      std::printf("%-50s %6d %12.2f %12.2f %8.2fx %s\n", q.what, frame, plain * 1e3, z * 1e3, z / plain,
                  z_sum == plain_sum ? "yes" : "NO");
    }
  }

  // 3. Federated scans (needs rocpd_open / rocpd_ops in the library).
  if (!boot.has_function("SELECT rocpd_open('x')") || !boot.has_function("SELECT count(*) FROM rocpd_ops")) {
    std::printf("\n3. federated scan: skipped (rocpd_open/rocpd_ops not built into this library)\n");
    return 0;
  }
  const std::string plain_dir = o.dir + "/members_plain";
  fs::remove_all(plain_dir);
  if (!o.gen.empty()) {
    // The project's generator: a mixed job (rpd2, rpd3, rocpd members).
    const std::string cmd = o.gen + " --out " + plain_dir + " --procs " + std::to_string(o.members) +
                            " --format mixed --ops " + std::to_string(o.ops / o.members) + " --seed 17 > /dev/null";
    if (std::system(cmd.c_str()) != 0) die("generator failed: " + cmd);
  } else {
    fs::create_directories(plain_dir);
    for (int m = 0; m < o.members; ++m)
      synthesize(plain_dir + "/rank" + std::to_string(m) + ".rpd", o.ops / o.members, 100 + static_cast<unsigned>(m));
  }
  std::uintmax_t plain_bytes = 0;
  for (const auto& e : fs::directory_iterator(plain_dir))
    if (e.path().extension() != ".json") plain_bytes += fs::file_size(e.path());
  std::printf("\n3. federated queries over %d members (%s, %.1f MiB), rocpd_open of the directory, compressed vs "
              "uncompressed\n",
              o.members, o.gen.empty() ? "synthetic rpd" : "rocpd_gen --format mixed", mib(plain_bytes));
  // The window is 1 % of the members' own time span, in its middle.
  double flo = 0, fhi = 0;
  {
    Conn c(":memory:");
    c.load(o.ext);
    c.fold("SELECT rocpd_open('" + plain_dir + "')");
    flo = c.fold("SELECT min(start) FROM rocpd_ops");
    fhi = c.fold("SELECT max(start) FROM rocpd_ops");
  }
  const long f0 = static_cast<long>(flo + (fhi - flo) * 0.50), f1 = static_cast<long>(flo + (fhi - flo) * 0.51);
  const std::vector<Query> fed = {
      {"federated full scan: per-kernel totals",
       "SELECT name, count(*), sum(duration) FROM rocpd_ops GROUP BY name"},
      {"federated 1% time window: count, total",
       "SELECT count(*), sum(duration) FROM rocpd_ops WHERE start BETWEEN " + std::to_string(f0) + " AND " +
           std::to_string(f1)},
      {"federated 1% time window: per-kernel totals",
       "SELECT name, count(*), sum(duration) FROM rocpd_ops WHERE start BETWEEN " + std::to_string(f0) + " AND " +
           std::to_string(f1) + " GROUP BY name"},
  };
  for (int frame_kib : {64, 256}) {
    const std::string zst_dir = o.dir + "/members_zst_f" + std::to_string(frame_kib);
    fs::remove_all(zst_dir);
    fs::create_directories(zst_dir);
    std::uintmax_t zst_bytes = 0;
    for (const auto& e : fs::directory_iterator(plain_dir)) {
      if (e.path().extension() == ".json") continue;
      const std::string dst = zst_dir + "/" + e.path().filename().string() + ".zst";
      boot.fold("SELECT rocpd_compress('" + e.path().string() + "', '" + dst + "', 3, " + std::to_string(frame_kib) + ")");
      zst_bytes += fs::file_size(dst);
    }
    std::printf("frame %d KiB, level 3: members compress %.2fx\n", frame_kib,
                static_cast<double>(plain_bytes) / static_cast<double>(zst_bytes));
    std::printf("%-50s %12s %12s %9s %s\n", "query", "plain ms", "zstd ms", "slowdown", "same");
    for (const auto& q : fed) {
      double sums[2] = {0, 0}, times[2] = {0, 0};
      int k = 0;
      for (const std::string& dir : {plain_dir, zst_dir}) {
        times[k] = median_of(5, [&] {
          Conn c(":memory:");
          c.load(o.ext);
          c.fold("SELECT rocpd_open('" + dir + "')");
          sums[k] = c.fold(q.sql);
        });
        ++k;
      }
      std::printf("%-50s %12.2f %12.2f %8.2fx %s\n", q.what, times[0] * 1e3, times[1] * 1e3, times[1] / times[0],
                  sums[0] == sums[1] ? "yes" : "NO");
    }
  }
  return 0;
}
