// rocprofv3's rocpd files, schema 3.x and 4.x: see rocpd.cpp.
#pragma once
#include <string>
#include <vector>

#include "formats/adapter.h"

namespace rocpd::formats {

// One process of a rocpd file: its tables are rocpd_<name><suffix>. A file written by rocprofv3
// holds one; a file written by `rocpd merge` holds several (schema/rocpd_merged.md).
struct RocpdProcess {
  std::string suffix;               // "_<uuid with underscores>"
  std::string version;              // its schema_version as written
  int major = 3;                    // 3, or 4: who/where on rocpd_track, categories in rocpd_info_category
  bool has_marker_samples = false;  // rocpd_sample and rocpd_track present (instant marks)
  bool has_graph_ids = false;       // 3.0.2+: graph_exec_id on dispatches and copies
  bool has_symbol_registers = false;// sgpr_count, arch_vgpr_count, accum_vgpr_count on kernel symbols
  bool has_dispatch_segments = false;  // group/private_segment_size on dispatches
  bool has_memory = false;          // rocpd_memory_allocate
  bool has_counters = false;        // rocpd_pmc_event and rocpd_info_pmc
  bool has_spm = false;             // 3.0.3+: rocpd_pmc_event.sample_id (SPM rows have one)
  bool has_hip_events = false;      // 3.0.4+: rocpd_hip_event
  // Written by rocprofiler-systems (metadata 'upid'): thread columns hold rocpd_info_thread row
  // ids, roctx messages are arguments (schema/rocprofsys.sql).
  bool rocprofsys = false;
};

struct RocpdDetails : canonical::FormatDetails {
  std::vector<RocpdProcess> processes;  // in the order of their metadata tables' names
};

const FormatAdapter& rocpd_adapter();

}  // namespace rocpd::formats
