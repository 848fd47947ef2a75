// Writes one process into a rocpd schema 4.1.0 file (schema/rocpd_v4.sql): who/where on
// rocpd_track, categories in rocpd_info_category.
#pragma once

#include <filesystem>

#include "workload.h"
#include "write_rocpd.h"

namespace rocpd_gen {

void write_rocpd4(const std::filesystem::path& path, const ProcessTrace& trace, const RocpdIdentity& identity);

}  // namespace rocpd_gen
