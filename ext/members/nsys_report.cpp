#include "members/nsys_report.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "members/member_files.h"

extern char** environ;

namespace rocpd::federation {

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

std::shared_ptr<ConvertedTrace> export_nsys_report(const std::string& path, const std::string& who,
                                                   InterruptWatch* watch) {
  const std::string dir = conversion_directory();
  // The report's own name after the random part, so that a rank in it (report_%q{RANK}) is read:
  // rocpd-nsys-XXXXXX.<name>.sqlite (formats/nsys_probe.h), with characters other than letters,
  // digits, '_', '-' and '.' left out.
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
  std::vector<std::string> args = {"nsys", "export", "--type", "sqlite", "--force-overwrite", "true",
                                   "--output", name, path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // nsys's progress output would land on the host's terminal: discarded.
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, "nsys", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw Error(fmt::format("{}: ROCPD_NSYS_EXPORT=1 but nsys could not be run ({}): {}", who, std::strerror(rc),
                            nsys_report_message(path, who).substr(who.size() + 2)),
                SQLITE_CANTOPEN);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw Error(fmt::format("{}: waiting for nsys export: {}", who, std::strerror(errno)));
    if (watch && (watch->stopped() || watch->host_interrupted_now())) {
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
  if (!is_sqlite_file(name))
    throw Error(fmt::format("{}: `nsys export --type sqlite` wrote no SQLite database", who), SQLITE_CANTOPEN);
  return converted;
}

}  // namespace rocpd::federation
