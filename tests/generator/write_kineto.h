// Writes processes as a PyTorch profiler (Kineto) Chrome-trace JSON.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "workload.h"

namespace rocpd_gen {

// Writes `traces` (one per process) to `path`; returns the truth.json keys this format adds.
std::vector<std::pair<std::string, std::string>> write_kineto(const std::filesystem::path& path,
                                                              const std::vector<ProcessTrace>& traces);

}  // namespace rocpd_gen
