#include "write_nsys.h"

#include <stdexcept>

namespace rocpd_gen {

std::vector<std::pair<std::string, std::string>> write_nsys(const std::filesystem::path& path,
                                                              const std::vector<ProcessTrace>&) {
  throw std::runtime_error("format not written yet: " + path.string());
}

}  // namespace rocpd_gen
