// Writes one process as rocprofiler-systems' in-tree rocpd backend does (schema/rocprofsys.sql):
// schema-3 tables under an md5-style "upid", rowid agent/thread/region/dispatch/copy ids, thread
// references by rowid, rocprof-sys category names, sampled device metrics.
#pragma once

#include <filesystem>
#include <string>

#include "workload.h"

namespace rocpd_gen {

// The 32-hex-digit upid of a process (table suffix and guid).
std::string rocprofsys_upid(const ProcessTrace& trace);

void write_rocprofsys(const std::filesystem::path& path, const ProcessTrace& trace);

// Device metric samples written per GPU (device_busy_gfx), not markers.
constexpr int kRocprofsysMetricSamplesPerGpu = 8;

}  // namespace rocpd_gen
