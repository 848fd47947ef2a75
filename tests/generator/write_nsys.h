// Writes processes as a Nsight Systems SQLite export (nsys export --type sqlite, schema/nsys.sql).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "workload.h"

namespace rocpd_gen {

// Writes `traces` (one report holding every process) to `path`, with `memsets` cudaMemsetAsync
// calls and memsets per process (nsys_model.h). Rows of every event table are written in a
// shuffled order: nsys guarantees none.
// `year`: the export schema generation (nsys_generations.h; 2026 = schema/nsys.sql as it is).
void write_nsys(const std::filesystem::path& path, const std::vector<ProcessTrace>& traces, int memsets,
                int year = 2026);

}  // namespace rocpd_gen
