#include "members/nsys_report.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "members/conversion_cache.h"
#include "members/member_files.h"
#include "members/progress.h"

extern char** environ;

namespace rocpd::members {

namespace {

constexpr char kMagic[] = "NVIDIA Tegra Profiler Report";

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The report's name without its extension: the .sqlite name nsys export would give it.
std::string sqlite_name(const std::string& path) {
  for (const char* ext : {".nsys-rep", ".qdrep"})
    if (ends_with(path, ext)) return path.substr(0, path.size() - std::strlen(ext)) + ".sqlite";
  return path + ".sqlite";
}

}  // namespace

bool is_nsys_report_path(const std::string& path) { return ends_with(path, ".nsys-rep") || ends_with(path, ".qdrep"); }

bool is_nsys_report_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  std::array<char, sizeof kMagic - 1> head{};
  ssize_t got = 0;
  while (got < static_cast<ssize_t>(head.size())) {
    const ssize_t n = ::read(fd, head.data() + got, head.size() - static_cast<size_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += n;
  }
  ::close(fd);
  return got == static_cast<ssize_t>(head.size()) && std::memcmp(head.data(), kMagic, head.size()) == 0;
}

std::string nsys_report_message(const std::string& path, const std::string& who) {
  return fmt::format("{}: an Nsight Systems report (.nsys-rep), not an SQLite database: export it first with "
                     "`nsys export --type sqlite --output {} {}` and open the .sqlite file (or set "
                     "ROCPD_NSYS_EXPORT=1 to let rocpd_open run nsys export into a temporary database)",
                     who, sqlite_name(path), path);
}

bool nsys_export_enabled() {
  const char* v = std::getenv("ROCPD_NSYS_EXPORT");
  return v && std::strcmp(v, "1") == 0;
}

namespace {

// The converted tables are nsys's own: this counts changes of how we ask for them (the command).
constexpr int kExportVersion = 1;

// The program posix_spawnp would run as `nsys`: the first executable regular file of that name in
// $PATH (an empty entry is the current directory; PATH unset: the system's default path), and its
// identity for the cache's key: its resolved path, size and mtime, so that another nsys (an
// upgrade, another install first on PATH) exports again.
struct NsysProgram {
  std::string path, identity;
};
std::optional<NsysProgram> find_nsys() {
  std::string search;
  if (const char* p = std::getenv("PATH")) {
    search = p;
  } else {
    search.resize(::confstr(_CS_PATH, nullptr, 0));
    if (!search.empty()) search.resize(::confstr(_CS_PATH, search.data(), search.size()) - 1);
  }
  for (size_t start = 0;;) {
    const size_t end = search.find(':', start);
    const std::string dir = search.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/nsys";
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      char* real = ::realpath(candidate.c_str(), nullptr);
      const std::string resolved = real ? real : candidate;
      std::free(real);
      return NsysProgram{candidate, fmt::format("{}\n{}\n{}", resolved, static_cast<int64_t>(st.st_size),
                                                static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                                                    st.st_mtim.tv_nsec)};
    }
    if (end == std::string::npos) return std::nullopt;
    start = end + 1;
  }
}

[[noreturn]] void cannot_run(int error, const std::string& path, const std::string& who) {
  throw Error(fmt::format("{}: ROCPD_NSYS_EXPORT=1 but nsys could not be run ({}): {}", who, std::strerror(error),
                          nsys_report_message(path, who).substr(who.size() + 2)),
              SQLITE_CANTOPEN);
}

// Runs `nsys export` of the report `path` into `output` (an existing private file it overwrites).
void run_export(const NsysProgram& nsys, const std::string& output, const std::string& path, const std::string& who,
                InterruptWatch* watch, bool progress) {
  std::vector<std::string> args = {"nsys", "export", "--type", "sqlite", "--force-overwrite", "true",
                                   "--output", output, path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // nsys's progress output would land on the host's terminal: discarded.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, nsys.path.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) cannot_run(rc, path, who);
  // rocpd_progress(1): a line a second while nsys runs (its own progress is discarded above).
  struct LineGuard {
    InterruptWatch* watch;
    ~LineGuard() {
      if (watch) watch->report_progress({});
    }
  } line_guard{progress ? watch : nullptr};
  if (line_guard.watch) {
    const int64_t size = file_size_or_missing(path);
    watch->report_progress([&path, size] {
      ProgressCounts c;
      c.what = "rocpd_open";
      c.members_total = 1;
      c.now = path;
      const std::string detail =
          fmt::format("nsys export of a {:.1f} MB report", static_cast<double>(std::max<int64_t>(size, 0)) / 1e6);
      c.detail = detail;
      return progress_line(c);
    });
  }
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw Error(fmt::format("{}: waiting for nsys export: {}", who, std::strerror(errno)));
    if (watch && (watch->poll() || watch->host_interrupted_now())) {
      ::kill(pid, SIGTERM);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      InterruptWatch::raise();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(fmt::format("{}: `nsys export --type sqlite` failed ({} {})", who,
                            WIFEXITED(status) ? "exit status" : "signal",
                            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status)),
                SQLITE_CANTOPEN);
  if (!is_sqlite_file(output))
    throw Error(fmt::format("{}: `nsys export --type sqlite` wrote no SQLite database", who), SQLITE_CANTOPEN);
}

// The export into a private temporary database (the cache is off or refused).
std::shared_ptr<ConvertedTrace> export_to_temporary(const NsysProgram& nsys, const std::string& path,
                                                    const std::string& who, InterruptWatch* watch, bool progress) {
  const std::string dir = conversion_directory();
  // The report's own name after the random part, so that a rank in it (report_%q{RANK}) is read
  // by a person too: rocpd-nsys-XXXXXX.<name>.sqlite, with characters other than letters, digits,
  // '_', '-' and '.' left out. (The probe reads the report's name itself: member_open.h.)
  std::string stem = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  stem = stem.substr(0, stem.rfind('.'));
  std::string kept;
  for (char c : stem)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') kept += c;
  kept = kept.substr(0, 100);
  const std::string suffix = "." + kept + ".sqlite";
  std::string name = dir + "/rocpd-nsys-XXXXXX" + suffix;
  // A name nobody else had (O_EXCL, mode 0600), which nsys export then overwrites.
  const int fd = ::mkstemps(name.data(), static_cast<int>(suffix.size()));
  if (fd < 0)
    throw Error(fmt::format("{}: cannot create a temporary database in '{}': {}", who, dir, std::strerror(errno)),
                SQLITE_CANTOPEN);
  ::close(fd);
  auto converted = std::make_shared<ConvertedTrace>(name);  // removes the file on every error below
  run_export(nsys, name, path, who, watch, progress);
  return converted;
}

}  // namespace

ConvertedMember export_nsys_report(const std::string& path, const std::string& who, InterruptWatch* watch,
                                   bool progress) {
  const auto nsys = find_nsys();
  if (!nsys) cannot_run(ENOENT, path, who);
  // nsys export writes names ending .sqlite (it may add the extension to others).
  CacheOutcome cached = cached_conversion(path, {"nsys", kExportVersion, nsys->identity, ".sqlite"},
                                          [&](const std::string& db) { run_export(*nsys, db, path, who, watch, progress); });
  ConvertedMember out;
  out.conversion = conversion_label(cached);
  out.trace = cached.trace ? std::move(cached.trace) : export_to_temporary(*nsys, path, who, watch, progress);
  return out;
}

}  // namespace rocpd::members
