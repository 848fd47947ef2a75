#include "nsys_generations.h"

#include <string>
#include <vector>

#include <fmt/format.h>

namespace rocpd_gen {
namespace {

// One table of a generation: its columns in declaration order (this project's reading of the
// exports of that year: the real 2.9.1, 3.4.0 and 3.20.3 exports named in docs/formats.md; memset
// and NVTX tables, which none of them holds, as the nearest later export declares them).
struct GenTable {
  const char* table;
  std::vector<const char*> columns;
};

// Columns shared by every generation's GPU activity tables.
#define PLACEMENT "start", "end", "deviceId", "contextId"

std::vector<GenTable> tables_of(int year) {
  const bool green = year >= 2025;  // greenContextId (CUDA green contexts), from 2025
  const bool y2021 = year == 2021;  // before mangled names, virtualAddress and NVTX JSON payloads
  std::vector<const char*> kernel = {PLACEMENT};
  if (green) kernel.push_back("greenContextId");
  for (const char* c : {"streamId", "correlationId", "globalPid", "demangledName", "shortName"}) kernel.push_back(c);
  if (!y2021) kernel.push_back("mangledName");
  for (const char* c : {"launchType", "cacheConfig", "registersPerThread", "gridX", "gridY", "gridZ", "blockX",
                        "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread",
                        "localMemoryTotal", "gridId", "sharedMemoryExecuted", "graphNodeId",
                        "sharedMemoryLimitConfig"})
    kernel.push_back(c);
  std::vector<const char*> memcpy = {PLACEMENT};
  if (green) memcpy.push_back("greenContextId");
  for (const char* c : {"streamId", "correlationId", "globalPid", "bytes", "copyKind", "deprecatedSrcId", "srcKind",
                        "dstKind", "srcDeviceId", "srcContextId", "dstDeviceId", "dstContextId", "migrationCause",
                        "graphNodeId"})
    memcpy.push_back(c);
  if (!y2021) memcpy.push_back("virtualAddress");
  if (green) memcpy.push_back("copyCount");
  std::vector<const char*> memset = {PLACEMENT};
  if (green) memset.push_back("greenContextId");
  for (const char* c : {"streamId", "correlationId", "globalPid", "value", "bytes", "graphNodeId", "memKind"})
    memset.push_back(c);
  std::vector<const char*> sync = {PLACEMENT};
  if (green) sync.push_back("greenContextId");
  for (const char* c : {"streamId", "correlationId", "globalPid"}) sync.push_back(c);
  if (green) sync.push_back("deprecatedSyncType");
  sync.push_back("syncType");
  sync.push_back("eventId");
  if (green) sync.push_back("eventSyncId");
  std::vector<const char*> nvtx = {"start", "end", "eventType", "rangeId", "category", "color", "text", "globalTid",
                                   "endGlobalTid", "textId", "domainId", "uint64Value", "int64Value", "doubleValue",
                                   "uint32Value", "int32Value", "floatValue"};
  if (!y2021) {
    nvtx.push_back("jsonTextId");
    nvtx.push_back("jsonText");
  }
  if (green) nvtx.push_back("binaryData");
  return {{"CUPTI_ACTIVITY_KIND_KERNEL", kernel},
          {"CUPTI_ACTIVITY_KIND_MEMCPY", memcpy},
          {"CUPTI_ACTIVITY_KIND_MEMSET", memset},
          {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", sync},
          {"NVTX_EVENTS", nvtx},
          {"TARGET_INFO_SESSION_START_TIME", {"utcEpochNs", "utcTime", "localTime"}}};
}

const char* type_of(const std::string& column) {
  for (const char* t : {"text", "utcTime", "localTime", "jsonText", "binaryData", "name", "value"})
    if (column == t) return "TEXT";
  if (column == "doubleValue" || column == "floatValue") return "REAL";
  return "INTEGER";
}

// The table rebuilt with `columns` only, its rows kept in rowid order (nsys's shuffled order).
void rebuild(Db& db, const GenTable& t) {
  std::string decl, list;
  for (const char* c : t.columns) {
    decl += fmt::format("{}\"{}\" {}", decl.empty() ? "" : ", ", c, type_of(c));
    list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", c);
  }
  db.exec(fmt::format("ALTER TABLE \"{0}\" RENAME TO \"{0}_3_25\"; CREATE TABLE \"{0}\" ({1}); "
                      "INSERT INTO \"{0}\" ({2}) SELECT {2} FROM \"{0}_3_25\" ORDER BY rowid; DROP TABLE \"{0}_3_25\"",
                      t.table, decl, list));
}

}  // namespace

void write_nsys_generation(Db& db, int year, int64_t session_start) {
  if (year >= 2026) return;
  // Times counted from the session start (no systemClockNs before 2026).
  for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                        "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"})
    db.exec(fmt::format("UPDATE \"{0}\" SET start = start - {1}, \"end\" = \"end\" - {1}", t, session_start));
  for (const GenTable& t : tables_of(year)) rebuild(db, t);
  if (year == 2021) {
    // 2021.5 records its product version only: no EXPORT_SCHEMA_VERSION rows (read by its tables).
    db.exec("DELETE FROM META_DATA_EXPORT WHERE name LIKE 'EXPORT_SCHEMA_VERSION%'; "
            "UPDATE META_DATA_EXPORT SET value = '2021.5.2.53' WHERE name = 'EXPORT_PRODUCT_VERSION'");
  }
  const char* version = year == 2022 ? "2.9.1" : year == 2023 ? "3.4.0" : "3.20.3";
  const char* product = year == 2022 ? "2022.2.1.31" : year == 2023 ? "2023.3.1.92" : "2025.3.2.474";
  const std::string v(version);
  const size_t dot1 = v.find('.'), dot2 = v.rfind('.');
  if (year > 2021)
    db.exec(fmt::format("UPDATE META_DATA_EXPORT SET value = CASE name WHEN 'EXPORT_SCHEMA_VERSION' THEN '{0}' "
                      "WHEN 'EXPORT_PRODUCT_VERSION' THEN '{1}' WHEN 'EXPORT_SCHEMA_VERSION_MAJOR' THEN '{2}' "
                      "WHEN 'EXPORT_SCHEMA_VERSION_MINOR' THEN '{3}' WHEN 'EXPORT_SCHEMA_VERSION_MICRO' THEN '{4}' "
                      "ELSE value END",
                      version, product, v.substr(0, dot1), v.substr(dot1 + 1, dot2 - dot1 - 1), v.substr(dot2 + 1)));
  if (year >= 2025) {
    // The CUDA ordinal of each GPU per process (2025's TARGET_INFO_CUDA_DEVICE).
    db.exec("CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER); "
            "INSERT INTO TARGET_INFO_CUDA_DEVICE SELECT g.id, g.cuDevice, p.pid FROM TARGET_INFO_GPU g, PROCESSES p "
            "WHERE p.name = 'python3'");
  }
  if (year <= 2022) {
    // Before 2023: the export metadata table had its older name, and no capture metadata or enum
    // tables were written.
    db.exec("ALTER TABLE META_DATA_EXPORT RENAME TO EXPORT_META_DATA; DROP TABLE META_DATA_CAPTURE");
    for (const char* e : {"ENUM_NSYS_EVENT_TYPE", "ENUM_NSYS_EVENT_CLASS", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND",
                          "ENUM_CUDA_KERNEL_LAUNCH_TYPE", "ENUM_CUPTI_SYNC_TYPE"})
      db.exec(fmt::format("DROP TABLE IF EXISTS \"{}\"", e));
  }
}

}  // namespace rocpd_gen
