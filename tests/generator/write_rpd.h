// Writes processes into one rpd file (schema 2 or 3), one session per process.
#pragma once

#include <filesystem>
#include <span>

#include "workload.h"

namespace rocpd_gen {

// sessions.size() > 1 models processes that appended to one file: session s uses ids offset by
// s << 32 and interns its strings again, as the rpd tracer does. encode_nodes (schema 3 only):
// pids/tids and gpu/queue ids carry the process's node through gpu_stride/pid_stride.
// counters (schema 3 only): the first N counters of counter_catalog() per kernel op in
// rocpd_counter, one row per (op, counter) holding the sum over its dimensions.
void write_rpd(const std::filesystem::path& path, int schema_version, std::span<const ProcessTrace> sessions,
               bool encode_nodes = false, int counters = 0);

}  // namespace rocpd_gen
