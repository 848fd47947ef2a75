#include "fuzz_files.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "fuzz_check.h"

namespace rocpd::fuzz {
namespace {

struct PrivateDir {
  std::filesystem::path path;
  PrivateDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "rocpd_fuzz.XXXXXX").string();
    fuzz_check(mkdtemp(pattern.data()) != nullptr, "mkdtemp failed");
    path = pattern;
  }
  ~PrivateDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

std::string write_input_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  static PrivateDir dir;
  const std::filesystem::path file = dir.path / name;
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    fuzz_check(static_cast<bool>(out), "cannot write the input file");
  }
  return file.string();
}

}  // namespace rocpd::fuzz
