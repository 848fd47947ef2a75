#include "compression/zstd_vfs.h"
#include "members/member_files.h"

namespace rocpd::members {

std::string zstd_reason(const std::string& path) {
  if (!is_zstd_path(path)) return {};
  const std::string why = compression::last_vfs_error();
  return why.empty() ? std::string() : "; " + why;
}

}  // namespace rocpd::members
