#include "write_kineto.h"

#include <stdexcept>

namespace rocpd_gen {

std::vector<std::pair<std::string, std::string>> write_kineto(const std::filesystem::path& path,
                                                              const std::vector<ProcessTrace>&) {
  throw std::runtime_error("format not written yet: " + path.string());
}

}  // namespace rocpd_gen
