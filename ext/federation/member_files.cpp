#include "federation/member_files.h"

#include <fmt/format.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "common/sqlite_util.h"

namespace rocpd::federation {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool looks_like_trace_file(const std::string& name) {
  std::string base = name;
  if (ends_with(base, ".zst")) base.resize(base.size() - 4);
  for (const char* ext : {".rpd", ".db", ".sqlite", ".sqlite3"})
    if (ends_with(base, ext)) return true;
  return false;
}

uint32_t big_endian(const unsigned char* p, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

bool is_zstd_path(const std::string& path) { return ends_with(path, ".zst"); }

std::vector<std::string> expand_pattern(const std::string& pattern) {
  if (pattern.empty()) throw Error("rocpd_open: empty path");
  std::vector<std::string> files;
  if (pattern.find_first_of("*?[") != std::string::npos) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
    std::unique_ptr<glob_t, void (*)(glob_t*)> guard(&g, globfree);
    if (rc == GLOB_NOMATCH) throw Error(fmt::format("rocpd_open: no file matches '{}'", pattern));
    if (rc != 0) throw Error(fmt::format("rocpd_open: cannot expand '{}'", pattern));
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      std::error_code ec;
      if (fs::is_regular_file(g.gl_pathv[i], ec)) files.emplace_back(g.gl_pathv[i]);
    }
    if (files.empty()) throw Error(fmt::format("rocpd_open: no regular file matches '{}'", pattern));
  } else {
    std::error_code ec;
    const auto st = fs::status(pattern, ec);
    if (ec || !fs::exists(st)) throw Error(fmt::format("rocpd_open: '{}': no such file or directory", pattern));
    if (fs::is_directory(st)) {
      for (const auto& entry : fs::directory_iterator(pattern, ec))
        if (entry.is_regular_file() && looks_like_trace_file(entry.path().filename().string()))
          files.push_back(entry.path().string());
      if (files.empty())
        throw Error(fmt::format(
            "rocpd_open: directory '{}' holds no trace files (*.rpd, *.db, *.sqlite, *.sqlite3, optionally .zst)",
            pattern));
    } else {
      files.push_back(pattern);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void check_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("rocpd_open: '{}': cannot be read", path));
  std::array<unsigned char, 100> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  const auto got = in.gcount();
  static const char kMagic[] = "SQLite format 3";
  if (got < 16 || std::memcmp(h.data(), kMagic, 16) != 0)
    throw Error(fmt::format("rocpd_open: '{}': not an SQLite database", path), SQLITE_NOTADB);
  if (got < 100) throw Error(fmt::format("rocpd_open: '{}': truncated ({} bytes, shorter than the SQLite header)", path, got), SQLITE_CORRUPT);
  uint32_t page_size = big_endian(&h[16], 2);
  if (page_size == 1) page_size = 65536;
  const uint32_t pages = big_endian(&h[28], 4);
  // The in-header page count is valid only while the change counter matches "version-valid-for".
  const bool count_valid = pages != 0 && big_endian(&h[24], 4) == big_endian(&h[92], 4);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && count_valid && size < uint64_t{pages} * page_size)
    throw Error(fmt::format("rocpd_open: '{}': truncated ({} bytes, its header records {} pages of {} bytes)", path,
                            size, pages, page_size),
                SQLITE_CORRUPT);
}

std::string alias_stem(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  const size_t dot = name.find('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name.empty() ? "member" : name;
}

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  auto p = fs::canonical(path, ec);
  return ec ? path : p.string();
}

std::pair<int64_t, int64_t> file_stamp(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return {-1, -1};
  return {static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace rocpd::federation
