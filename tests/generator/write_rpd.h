// Writes processes into one rpd file (schema 2 or 3), one session per process.
#pragma once

#include <filesystem>
#include <span>

#include "workload.h"

namespace rocpd_gen {

// sessions.size() > 1 models processes that appended to one file: session s uses ids offset by
// s << 32 and interns its strings again, as the rpd tracer does.
void write_rpd(const std::filesystem::path& path, int schema_version, std::span<const ProcessTrace> sessions);

}  // namespace rocpd_gen
