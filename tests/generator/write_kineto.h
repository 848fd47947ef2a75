// Writes processes as a PyTorch profiler (Kineto) Chrome-trace JSON.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "workload.h"

namespace rocpd_gen {

// Writes `traces` (one per process) to `path`; returns the truth.json keys this format adds.
// `version`: "" the original layout (PyTorch 2.x on ROCm), else as PyTorch `version`'s profiler
// writes it (rocpd_gen --kineto-version: 1.8, 1.9, 1.10, 1.11, 2.0, 2.1, 2.3, 2.4, mtia).
std::vector<std::pair<std::string, std::string>> write_kineto(const std::filesystem::path& path,
                                                              const std::vector<ProcessTrace>& traces,
                                                              const std::string& version = "");

}  // namespace rocpd_gen
