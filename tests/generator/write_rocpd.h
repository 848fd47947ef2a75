// Writes one process into a rocpd file (rocprofv3's SQLite output, schema 3).
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "rocpd_model.h"
#include "workload.h"

namespace rocpd_gen {

// The process's identity in rocpd: a UUIDv7 derived from the seed and rank (reproducible).
struct RocpdIdentity {
  std::string guid;          // with dashes: the guid column value
  std::string table_suffix;  // dashes replaced by '_': tables are rocpd_<name>_<table_suffix>
};
RocpdIdentity rocpd_identity(uint64_t seed, const ProcessTrace& trace);

// One process: the file rocprofv3 writes. Several: the file `rocpd merge` makes of their files.
void write_rocpd(const std::filesystem::path& path, std::span<const ProcessTrace> processes,
                 std::span<const RocpdIdentity> identities, const RocpdFeatures& features);

}  // namespace rocpd_gen
