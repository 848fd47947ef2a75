-- rocpd trace database as rocprofv3 writes it with schema 3.0.x at its newest (3.0.5).
--
-- Same layout as rocpd_v3.sql (one file per process, tables rocpd_<name>_<uuid>, a guid column in
-- every row, natural ids, unsuffixed views over the suffixed tables); this file is the superset of
-- every 3.0.x revision, so a reader written against it reads each of them once it probes for the
-- optional columns (PRAGMA table_info) instead of assuming them.
--
-- Placeholders, substituted before the text is executed:
--   {{uuid}}  the UUID with '-' replaced by '_' (table suffix rocpd_<name>_{{uuid}})
--   {{guid}}  the UUID as written, with dashes (the guid column's value)
--
-- What each revision changed (upstream versions.yml "Schema History", release notes, archived
-- versions/<v>/ directories; several development branches disagree after 3.0.3, see 3.0.4/3.0.5):
--   3.0.0  the layout of rocpd_v3.sql. Early writers (ROCm 7.0, mid 2025) store schema_version
--          as the bare string '3' and only the uuid/guid rows beside it.
--   3.0.1  'NIC' joins the CHECK lists of rocpd_info_agent.type and rocpd_info_pmc.target_arch.
--          rocpd_info_code_object.storage_type is filled ('FILE'/'MEMORY', NULL if unknown).
--          Some 3.0.1..3.0.3 builds also create rocpd_event_operation (GPU-side WAIT/SIGNAL
--          records); no writer filling it was found, and 3.0.4 supersedes it with rocpd_hip_event.
--   3.0.2  HIP graphs: rocpd_kernel_dispatch and rocpd_memory_copy gain graph_exec_id and
--          graph_node_id (INTEGER NOT NULL DEFAULT 0; 0 = not launched from a graph; the values
--          are the runtime's graph-exec / graph-node handles, not row ids). New table
--          rocpd_graph_launch: one row per successful hipGraphLaunch (agent, queue, start/end of
--          the whole launch on the GPU, graph_exec_id, kernel_dispatch_count) and data view
--          graph_launches. The dispatches of a launch carry the same graph_exec_id.
--   3.0.3  SPM (streaming performance monitor) counters: rocpd_pmc_event gains sample_id (FK to
--          rocpd_sample; NULL for per-dispatch counters, set for SPM), xcc, shader_engine and
--          instance (SPM only); rocpd_info_pmc gains spm_support. SPM values are grouped by
--          timestamp into rocpd_sample rows on a rocpd_track named 'SPM'; each value is one
--          rocpd_pmc_event row whose event_id is the dispatch's event. counters_collection now
--          skips rows with a sample_id; new view spm_counters.
--   3.0.4  HIP events (SDK 1.4.1): rocpd_hip_event, one row per GPU barrier completed for
--          hipEventRecord (operation RECORD) and hipStreamWaitEvent (operation WAIT), with
--          queue_id and source_queue_id (equal for RECORD; the signalling queue for WAIT); data
--          view hip_events. (A parallel development branch used 3.0.4 for PC-sampling blob
--          tables, rocpd_event.parent_id, and another for kernel replay; see 3.0.5.)
--   3.0.5  Branches disagree: versions.yml on one branch adds shader_array and wgp to the SPM
--          counter rows (rocpd_pmc_event); the rocpd Python package's feature table on another
--          maps 3.0.5 to "replay_pass" (rocpd_kernel_dispatch.replay_pass, NULL without kernel
--          replay; with replay each pass of one dispatch_id is its own row with a surrogate id,
--          and counters_collection groups by event instead of dispatch_id). Both are declared
--          below as nullable columns; which of them a released 3.0.5 file carries is unverified.
--
-- Metadata written by 3.0.1+ writers (rocpd_metadata.sql, templated): schema_version = the full
-- string ('3.0.1' .. '3.0.5'), schema_version_major/_minor/_patch, schema_creation_time
-- (SQLite CURRENT_TIMESTAMP at creation, UTC 'YYYY-MM-DD HH:MM:SS'; a fixed value here so that
-- generated files stay byte-identical), uuid ('_' + suffix, exactly the table suffix) and guid.
-- The upstream Python tools (rocpd merge/convert, 2026) refuse files whose schema_version is not
-- X.Y.Z with matching major/minor/patch rows, i.e. the early '3' files.
--
-- Declared types, defaults and view semantics follow the upstream rocprofiler-sdk-rocpd schema;
-- the text is this project's own. Columns or tables marked "unverified" were inferred from
-- writer code, tests or release notes, not read from the shipped DDL.

CREATE TABLE IF NOT EXISTS "rocpd_metadata_{{uuid}}" (
    "id"    INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tag"   TEXT NOT NULL,
    "value" TEXT NOT NULL
);

-- Interned strings: API and operation names, categories, kernel names, marker messages. id 1 is ''.
CREATE TABLE IF NOT EXISTS "rocpd_string_{{uuid}}" (
    "id"     INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"   TEXT DEFAULT '{{guid}}' NOT NULL,
    "string" TEXT NOT NULL UNIQUE ON CONFLICT ABORT
);

-- The machine. id = hash(machine_id) modulo 2^32, hash = the same hash modulo 2^63.
CREATE TABLE IF NOT EXISTS "rocpd_info_node_{{uuid}}" (
    "id"            INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"          TEXT DEFAULT '{{guid}}' NOT NULL,
    "hash"          BIGINT NOT NULL UNIQUE,
    "machine_id"    TEXT NOT NULL UNIQUE,
    "system_name"   TEXT,
    "hostname"      TEXT,
    "release"       TEXT,
    "version"       TEXT,
    "hardware_name" TEXT,
    "domain_name"   TEXT
);

-- The process; id = pid = OS pid. init/start = process start, fini/end = tool finalization, in the
-- tracer clock (CLOCK_BOOTTIME ns). environment: JSON object of the environment; extdata: JSON of
-- the rocprofv3 output configuration.
CREATE TABLE IF NOT EXISTS "rocpd_info_process_{{uuid}}" (
    "id"          INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"        TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"         INTEGER NOT NULL,
    "ppid"        INTEGER,
    "pid"         INTEGER NOT NULL,
    "init"        BIGINT,
    "fini"        BIGINT,
    "start"       BIGINT,
    "end"         BIGINT,
    "command"     TEXT,
    "environment" JSONB DEFAULT '{}' NOT NULL,
    "extdata"     JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Threads; id = tid = OS tid (rocprofv3 leaves name/start/end NULL).
CREATE TABLE IF NOT EXISTS "rocpd_info_thread_{{uuid}}" (
    "id"      INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"    TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"     INTEGER NOT NULL,
    "ppid"    INTEGER,
    "pid"     INTEGER NOT NULL,
    "tid"     INTEGER NOT NULL,
    "name"    TEXT,
    "start"   BIGINT,
    "end"     BIGINT,
    "extdata" JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Agents. id = absolute_index = the agent's node id (CPUs first); logical_index; type_index =
-- index among agents of the same type (GPU 0, 1, ...: the user-visible GPU number).
-- name = generic name (gfx942...), user_name = product_name as rocprofv3 writes it; extdata =
-- JSON of the whole SDK agent record.
CREATE TABLE IF NOT EXISTS "rocpd_info_agent_{{uuid}}" (
    "id"             INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"           TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"            INTEGER NOT NULL,
    "pid"            INTEGER NOT NULL,
    "type"           TEXT CHECK ("type" IN ('CPU', 'GPU', 'NIC')),
    "absolute_index" INTEGER,
    "logical_index"  INTEGER,
    "type_index"     INTEGER,
    "uuid"           INTEGER,
    "name"           TEXT,
    "model_name"     TEXT,
    "vendor_name"    TEXT,
    "product_name"   TEXT,
    "user_name"      TEXT,
    "extdata"        JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Queues: id = the SDK queue handle (0 = 'Default Queue', others 'Queue <n>'). Handles may exceed
-- 2^63; such values are stored as TEXT by writers from 2026 on.
CREATE TABLE IF NOT EXISTS "rocpd_info_queue_{{uuid}}" (
    "id"      INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"    TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"     INTEGER NOT NULL,
    "pid"     INTEGER NOT NULL,
    "name"    TEXT,
    "extdata" JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Streams: id = the SDK stream id (0 = 'Default Stream', others 'Stream <n>').
CREATE TABLE IF NOT EXISTS "rocpd_info_stream_{{uuid}}" (
    "id"      INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"    TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"     INTEGER NOT NULL,
    "pid"     INTEGER NOT NULL,
    "name"    TEXT,
    "extdata" JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Counter descriptions; id = SDK counter id. rocprofv3 writes target_arch 'GPU', symbol = name,
-- component 'rocm', value_type 'ABS'. 3.0.3: spm_support. 2026 writers add KFD event
-- pseudo-counters (block 'KFD', ids from 0x7000000000000000, no agent).
CREATE TABLE IF NOT EXISTS "rocpd_info_pmc_{{uuid}}" (
    "id"               INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"             TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"              INTEGER NOT NULL,
    "pid"              INTEGER NOT NULL,
    "agent_id"         INTEGER,
    "target_arch"      TEXT CHECK ("target_arch" IN ('CPU', 'GPU', 'NIC')),
    "event_code"       INT,
    "instance_id"      INTEGER,
    "name"             TEXT NOT NULL,
    "symbol"           TEXT NOT NULL,
    "description"      TEXT,
    "long_description" TEXT DEFAULT '',
    "component"        TEXT,
    "units"            TEXT DEFAULT '',
    "value_type"       TEXT CHECK ("value_type" IN ('ABS', 'ACCUM', 'RELATIVE')),
    "block"            TEXT,
    "expression"       TEXT,
    "is_constant"      INTEGER,
    "is_derived"       INTEGER,
    "spm_support"      INTEGER,
    "extdata"          JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE
);

CREATE TABLE IF NOT EXISTS "rocpd_info_code_object_{{uuid}}" (
    "id"           INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"         TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"          INTEGER NOT NULL,
    "pid"          INTEGER NOT NULL,
    "agent_id"     INTEGER,
    "uri"          TEXT,
    "load_base"    BIGINT,
    "load_size"    BIGINT,
    "load_delta"   BIGINT,
    "storage_type" TEXT CHECK ("storage_type" IN ('FILE', 'MEMORY')),
    "extdata"      JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Kernel symbols; id = SDK kernel id. kernel_name is the code-object symbol and keeps its '.kd'
-- suffix ('_Z15matrixTransposePfS_i.kd'); display_name is the formatted name: demangled with the
-- '.kd' removed (default), truncated with --truncate-kernels, or the raw symbol (with '.kd') when
-- demangling is off. extdata JSON also holds formatted/demangled/truncated_kernel_name.
-- Static resources: group_segment_size (static LDS), private_segment_size (static scratch),
-- sgpr_count, arch_vgpr_count, accum_vgpr_count (AGPRs).
CREATE TABLE IF NOT EXISTS "rocpd_info_kernel_symbol_{{uuid}}" (
    "id"                        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"                      TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"                       INTEGER NOT NULL,
    "pid"                       INTEGER NOT NULL,
    "code_object_id"            INTEGER NOT NULL,
    "kernel_name"               TEXT,
    "display_name"              TEXT,
    "kernel_object"             INTEGER,
    "kernarg_segment_size"      INTEGER,
    "kernarg_segment_alignment" INTEGER,
    "group_segment_size"        INTEGER,
    "private_segment_size"      INTEGER,
    "sgpr_count"                INTEGER,
    "arch_vgpr_count"           INTEGER,
    "accum_vgpr_count"          INTEGER,
    "extdata"                   JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (code_object_id) REFERENCES "rocpd_info_code_object_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Tracks for samples: one per (nid, pid, tid, name). Names: the category of instant API records
-- ('MARKER_CORE_RANGE_API' for roctxMarkA), the operation name for OMPT instants, 'SPM' for SPM.
CREATE TABLE IF NOT EXISTS "rocpd_track_{{uuid}}" (
    "id"      INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"    TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"     INTEGER NOT NULL,
    "pid"     INTEGER,
    "tid"     INTEGER,
    "name_id" INTEGER,
    "extdata" JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE
);

-- One per region, sample, dispatch, copy, allocation, graph launch, hip event. category_id ->
-- rocpd_string: the SDK buffer-tracing kind name (HIP_RUNTIME_API_EXT, HIP_COMPILER_API_EXT,
-- HSA_CORE_API, HSA_AMD_EXT_API, HSA_IMAGE_EXT_API, HSA_FINALIZE_EXT_API, MARKER_CORE_RANGE_API,
-- MARKER_CORE_API, MARKER_CONTROL_API, MARKER_NAME_API, RCCL_API, ROCDECODE_API_EXT,
-- ROCJPEG_API, OMPT, KERNEL_DISPATCH, MEMORY_COPY, MEMORY_ALLOCATION, SCRATCH_MEMORY,
-- KFD_EVENT_* / KFD_*, and the graph and hip-event kinds).
-- stack_id = the SDK internal correlation id; parent_stack_id = the ancestor's internal id for
-- API calls and allocations, = stack_id itself for dispatches, copies and graph launches;
-- correlation_id = the external correlation id (0 unless the application sets one).
-- extdata: {"message": "<roctx message>"} for MARKER_CORE_RANGE_API records; KFD regions hold
-- {"kfd": {...}}; else '{}'.
CREATE TABLE IF NOT EXISTS "rocpd_event_{{uuid}}" (
    "id"              INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"            TEXT DEFAULT '{{guid}}' NOT NULL,
    "category_id"     INTEGER,
    "stack_id"        INTEGER,
    "parent_stack_id" INTEGER,
    "correlation_id"  INTEGER,
    "call_stack"      JSONB DEFAULT '{}' NOT NULL,
    "line_info"       JSONB DEFAULT '{}' NOT NULL,
    "extdata"         JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (category_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Call arguments (type demangled, value as text).
CREATE TABLE IF NOT EXISTS "rocpd_arg_{{uuid}}" (
    "id"       INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"     TEXT DEFAULT '{{guid}}' NOT NULL,
    "event_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "type"     TEXT NOT NULL,
    "name"     TEXT NOT NULL,
    "value"    TEXT,
    "extdata"  JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Counter values. Per-dispatch counters: event_id = the dispatch's event, sample_id NULL, one row
-- per value the SDK reports (several rows per (event, pmc_id) for dimensioned counters: sum
-- them). SPM (3.0.3): sample_id -> the rocpd_sample of the timestamp, event_id = the dispatch's
-- event, xcc/shader_engine/instance (3.0.5 on one branch: shader_array, wgp) give the position.
-- KFD pseudo-counters (2026): event_id = a KFD region's event.
CREATE TABLE IF NOT EXISTS "rocpd_pmc_event_{{uuid}}" (
    "id"            INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"          TEXT DEFAULT '{{guid}}' NOT NULL,
    "event_id"      INTEGER,
    "sample_id"     INTEGER,
    "pmc_id"        INTEGER NOT NULL,
    "value"         REAL DEFAULT 0.0,
    "xcc"           INTEGER,
    "shader_engine" INTEGER,
    "instance"      INTEGER,
    "shader_array"  INTEGER, -- 3.0.5 (one branch); name and position unverified
    "wgp"           INTEGER, -- 3.0.5 (one branch); name and position unverified
    "extdata"       JSONB DEFAULT '{}',
    FOREIGN KEY (pmc_id) REFERENCES "rocpd_info_pmc_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (sample_id) REFERENCES "rocpd_sample_{{uuid}}" (id) ON UPDATE CASCADE
);

-- CPU intervals with start != end. API calls: id = the internal correlation id, name = the API
-- function name. roctx ranges (category MARKER_CORE_RANGE_API): name = 'roctxThreadRangeA'
-- (roctxRangePushA/Pop) or 'roctxProcessRangeA' (roctxRangeStartA/Stop), the message in the
-- event's extdata.message. KFD records (2026) are regions too (category KFD_*; tid = the
-- record's pid; id assigned by SQLite): they are not API calls.
CREATE TABLE IF NOT EXISTS "rocpd_region_{{uuid}}" (
    "id"       INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"     TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"      INTEGER NOT NULL,
    "pid"      INTEGER NOT NULL,
    "tid"      INTEGER NOT NULL,
    "start"    BIGINT NOT NULL,
    "end"      BIGINT NOT NULL,
    "name_id"  INTEGER NOT NULL,
    "event_id" INTEGER,
    "extdata"  JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Instants. API records with start == end (roctxMarkA, OMPT instants; id = internal correlation
-- id) and, from 3.0.3, SPM timestamps (track 'SPM', referenced by rocpd_pmc_event.sample_id).
-- A marker sample is one whose event category is MARKER_CORE_RANGE_API (or MARKER_CORE_API).
CREATE TABLE IF NOT EXISTS "rocpd_sample_{{uuid}}" (
    "id"        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"      TEXT DEFAULT '{{guid}}' NOT NULL,
    "track_id"  INTEGER NOT NULL,
    "timestamp" BIGINT NOT NULL,
    "event_id"  INTEGER,
    "extdata"   JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (track_id) REFERENCES "rocpd_track_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Kernel executions; id = dispatch_id (with kernel replay: a surrogate, one row per pass).
-- agent_id -> rocpd_info_agent.id (node id; GPU number = agent.type_index); kernel_id ->
-- rocpd_info_kernel_symbol.id; queue_id/stream_id = SDK handles; tid = the launching thread.
-- group_segment_size = dynamic+static LDS bytes, private_segment_size = scratch bytes per item.
-- region_name_id -> '' unless a kernel-rename (roctx) name applies.
CREATE TABLE IF NOT EXISTS "rocpd_kernel_dispatch_{{uuid}}" (
    "id"                   INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"                 TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"                  INTEGER NOT NULL,
    "pid"                  INTEGER NOT NULL,
    "tid"                  INTEGER,
    "agent_id"             INTEGER NOT NULL,
    "kernel_id"            INTEGER NOT NULL,
    "dispatch_id"          INTEGER NOT NULL,
    "queue_id"             INTEGER NOT NULL,
    "stream_id"            INTEGER NOT NULL,
    "start"                BIGINT NOT NULL,
    "end"                  BIGINT NOT NULL,
    "private_segment_size" INTEGER,
    "group_segment_size"   INTEGER,
    "workgroup_size_x"     INTEGER NOT NULL,
    "workgroup_size_y"     INTEGER NOT NULL,
    "workgroup_size_z"     INTEGER NOT NULL,
    "grid_size_x"          INTEGER NOT NULL,
    "grid_size_y"          INTEGER NOT NULL,
    "grid_size_z"          INTEGER NOT NULL,
    "graph_exec_id"        INTEGER NOT NULL DEFAULT 0,
    "graph_node_id"        INTEGER NOT NULL DEFAULT 0,
    "replay_pass"          INTEGER, -- 3.0.5 (one branch): NULL without kernel replay; position unverified
    "region_name_id"       INTEGER,
    "event_id"             INTEGER,
    "extdata"              JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (kernel_id) REFERENCES "rocpd_info_kernel_symbol_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (queue_id) REFERENCES "rocpd_info_queue_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (stream_id) REFERENCES "rocpd_info_stream_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (region_name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Copies; id = 1.. in write order. name = MEMORY_COPY_HOST_TO_DEVICE / _DEVICE_TO_HOST /
-- _DEVICE_TO_DEVICE / _HOST_TO_HOST / _PEER... (SDK operation names). size = bytes. queue_id is
-- not written (NULL); stream_id = SDK stream id.
CREATE TABLE IF NOT EXISTS "rocpd_memory_copy_{{uuid}}" (
    "id"             INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"           TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"            INTEGER NOT NULL,
    "pid"            INTEGER NOT NULL,
    "tid"            INTEGER,
    "start"          BIGINT NOT NULL,
    "end"            BIGINT NOT NULL,
    "name_id"        INTEGER NOT NULL,
    "dst_agent_id"   INTEGER,
    "dst_address"    INTEGER,
    "src_agent_id"   INTEGER,
    "src_address"    INTEGER,
    "size"           INTEGER NOT NULL,
    "queue_id"       INTEGER,
    "stream_id"      INTEGER,
    "graph_exec_id"  INTEGER NOT NULL DEFAULT 0,
    "graph_node_id"  INTEGER NOT NULL DEFAULT 0,
    "region_name_id" INTEGER,
    "event_id"       INTEGER,
    "extdata"        JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (dst_agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (src_agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (stream_id) REFERENCES "rocpd_info_stream_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (queue_id) REFERENCES "rocpd_info_queue_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (region_name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Allocations. type: ALLOC/FREE/REALLOC/RECLAIM; level: REAL (MEMORY_ALLOCATION_*), VIRTUAL
-- (MEMORY_ALLOCATION_VMEM_*), SCRATCH (SCRATCH_MEMORY_*). agent_id set for ALLOC (and, from 2026,
-- for a FREE whose ALLOC was seen, with size 0). extdata {"flags": "<n>"} for scratch records.
CREATE TABLE IF NOT EXISTS "rocpd_memory_allocate_{{uuid}}" (
    "id"        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"      TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"       INTEGER NOT NULL,
    "pid"       INTEGER NOT NULL,
    "tid"       INTEGER,
    "agent_id"  INTEGER,
    "type"      TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM')),
    "level"     TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH')),
    "start"     BIGINT NOT NULL,
    "end"       BIGINT NOT NULL,
    "address"   INTEGER,
    "size"      INTEGER NOT NULL,
    "queue_id"  INTEGER,
    "stream_id" INTEGER,
    "event_id"  INTEGER,
    "extdata"   JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (stream_id) REFERENCES "rocpd_info_stream_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (queue_id) REFERENCES "rocpd_info_queue_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- 3.0.2: one row per successful hipGraphLaunch. start/end span the launch's GPU work; agent_id
-- NULL when unknown; kernel_dispatch_count = dispatches of the launch (their rows carry the same
-- graph_exec_id). Its event shares stack_id with the hipGraphLaunch region.
CREATE TABLE IF NOT EXISTS "rocpd_graph_launch_{{uuid}}" (
    "id"                    INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"                  TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"                   INTEGER NOT NULL,
    "pid"                   INTEGER NOT NULL,
    "tid"                   INTEGER,
    "agent_id"              INTEGER,
    "queue_id"              INTEGER,
    "start"                 BIGINT NOT NULL,
    "end"                   BIGINT NOT NULL,
    "graph_exec_id"         INTEGER NOT NULL,
    "kernel_dispatch_count" INTEGER NOT NULL DEFAULT 0,
    "event_id"              INTEGER,
    "extdata"               JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (queue_id) REFERENCES "rocpd_info_queue_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- 3.0.1..3.0.3 builds only (see header): GPU-side event WAIT/SIGNAL records. Kept so that such
-- files have a declared shape; expect it empty.
CREATE TABLE IF NOT EXISTS "rocpd_event_operation_{{uuid}}" (
    "id"        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"      TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"       INTEGER NOT NULL,
    "pid"       INTEGER NOT NULL,
    "tid"       INTEGER,
    "agent_id"  INTEGER NOT NULL,
    "event_obj" INTEGER NOT NULL,
    "type_id"   INTEGER NOT NULL,
    "issue_id"  INTEGER NOT NULL,
    "queue_id"  INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    "start"     BIGINT NOT NULL,
    "end"       BIGINT NOT NULL,
    "type"      TEXT CHECK ("type" IN ('WAIT', 'SIGNAL')),
    "event_id"  INTEGER,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (queue_id) REFERENCES "rocpd_info_queue_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (stream_id) REFERENCES "rocpd_info_stream_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- 3.0.4: one row per GPU barrier of hipEventRecord (RECORD) / hipStreamWaitEvent (WAIT).
-- start/end = the barrier packet on the GPU (not compute). name_id -> the operation name (its text
-- contains HIP_EVENT_RECORD / HIP_EVENT_WAIT); the event's stack_id = the internal correlation id
-- of the issuing hipEventRecord / hipStreamWaitEvent region. The DDL was not available: only
-- name, queue_id and source_queue_id are confirmed (by the hip_events view's tests); the other
-- column names are inferred from the SDK record (thread, agent, queue, source queue, stream, event
-- handle, correlation, start, end) and unverified.
CREATE TABLE IF NOT EXISTS "rocpd_hip_event_{{uuid}}" (
    "id"               INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"             TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"              INTEGER NOT NULL,
    "pid"              INTEGER NOT NULL,
    "tid"              INTEGER,
    "agent_id"         INTEGER,
    "queue_id"         INTEGER,
    "source_queue_id"  INTEGER,
    "stream_id"        INTEGER,
    "hip_event_handle" INTEGER,
    "start"            BIGINT NOT NULL,
    "end"              BIGINT NOT NULL,
    "name_id"          INTEGER NOT NULL,
    "event_id"         INTEGER,
    "extdata"          JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- 3.0.x writers create no indexes (the shipped rocpd_indexes.sql is all comments; verified for
-- 3.0.0, assumed for later 3.0.x).

INSERT INTO "rocpd_metadata_{{uuid}}" ("tag", "value") VALUES
    ('schema_version', '3.0.5'),
    ('schema_version_major', '3'),
    ('schema_version_minor', '0'),
    ('schema_version_patch', '5'),
    ('schema_creation_time', '2026-01-01 00:00:00'),
    ('uuid', '_{{uuid}}'),
    ('guid', '{{guid}}');

-- ---------------------------------------------------------------------------------------------
-- Unsuffixed views, one per table.
CREATE VIEW IF NOT EXISTS "rocpd_metadata" AS SELECT * FROM "rocpd_metadata_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_string" AS SELECT * FROM "rocpd_string_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_node" AS SELECT * FROM "rocpd_info_node_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_process" AS SELECT * FROM "rocpd_info_process_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_thread" AS SELECT * FROM "rocpd_info_thread_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_agent" AS SELECT * FROM "rocpd_info_agent_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_queue" AS SELECT * FROM "rocpd_info_queue_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_stream" AS SELECT * FROM "rocpd_info_stream_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_pmc" AS SELECT * FROM "rocpd_info_pmc_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_code_object" AS SELECT * FROM "rocpd_info_code_object_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_kernel_symbol" AS SELECT * FROM "rocpd_info_kernel_symbol_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_track" AS SELECT * FROM "rocpd_track_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_event" AS SELECT * FROM "rocpd_event_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_arg" AS SELECT * FROM "rocpd_arg_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_pmc_event" AS SELECT * FROM "rocpd_pmc_event_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_region" AS SELECT * FROM "rocpd_region_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_sample" AS SELECT * FROM "rocpd_sample_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_kernel_dispatch" AS SELECT * FROM "rocpd_kernel_dispatch_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_memory_copy" AS SELECT * FROM "rocpd_memory_copy_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_memory_allocate" AS SELECT * FROM "rocpd_memory_allocate_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_graph_launch" AS SELECT * FROM "rocpd_graph_launch_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_event_operation" AS SELECT * FROM "rocpd_event_operation_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_hip_event" AS SELECT * FROM "rocpd_hip_event_{{uuid}}";

-- ---------------------------------------------------------------------------------------------
-- Data views (joins on (id, guid) as upstream does).

CREATE VIEW IF NOT EXISTS "processes" AS
    SELECT N.id AS nid, N.machine_id, N.system_name, N.hostname,
           N.release AS system_release, N.version AS system_version,
           P.guid, P.ppid, P.pid, P.init, P.start, P.end, P.fini, P.command
      FROM "rocpd_info_process" P
      JOIN "rocpd_info_node" N ON N.id = P.nid AND N.guid = P.guid;

CREATE VIEW IF NOT EXISTS "kernel_symbols" AS
    SELECT KS.id, KS.guid, KS.nid, P.pid, KS.code_object_id, KS.kernel_name, KS.display_name,
           KS.kernel_object, KS.kernarg_segment_size, KS.kernarg_segment_alignment,
           KS.group_segment_size, KS.private_segment_size, KS.sgpr_count, KS.arch_vgpr_count,
           KS.accum_vgpr_count
      FROM "rocpd_info_kernel_symbol" KS
      JOIN "rocpd_info_process" P ON P.id = KS.pid AND P.guid = KS.guid;

CREATE VIEW IF NOT EXISTS "regions" AS
    SELECT R.id, R.guid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           S.string AS name, R.nid, P.pid, T.tid, R.start, R.end, (R.end - R.start) AS duration,
           R.event_id, E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id,
           E.extdata, E.call_stack, E.line_info
      FROM "rocpd_region" R
      JOIN "rocpd_event" E ON E.id = R.event_id AND E.guid = R.guid
      JOIN "rocpd_string" S ON S.id = R.name_id AND S.guid = R.guid
      JOIN "rocpd_info_process" P ON P.id = R.pid AND P.guid = R.guid
      JOIN "rocpd_info_thread" T ON T.id = R.tid AND T.guid = R.guid;

CREATE VIEW IF NOT EXISTS "region_args" AS
    SELECT R.id, R.guid, R.nid, P.pid, A.type, A.name, A.value
      FROM "rocpd_region" R
      JOIN "rocpd_event" E ON E.id = R.event_id AND E.guid = R.guid
      JOIN "rocpd_arg" A ON A.event_id = E.id AND A.guid = R.guid
      JOIN "rocpd_info_process" P ON P.id = R.pid AND P.guid = R.guid;

CREATE VIEW IF NOT EXISTS "samples" AS
    SELECT R.id, R.guid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = T.name_id AND RS.guid = T.guid) AS name,
           T.nid, P.pid, TH.tid, R.timestamp, R.event_id, E.stack_id, E.parent_stack_id,
           E.correlation_id AS corr_id, E.extdata, E.call_stack, E.line_info
      FROM "rocpd_sample" R
      JOIN "rocpd_track" T ON T.id = R.track_id AND T.guid = R.guid
      JOIN "rocpd_event" E ON E.id = R.event_id AND E.guid = R.guid
      JOIN "rocpd_info_process" P ON P.id = T.pid AND P.guid = T.guid
      JOIN "rocpd_info_thread" TH ON TH.id = T.tid AND TH.guid = T.guid;

CREATE VIEW IF NOT EXISTS "sample_regions" AS
    SELECT R.id, R.guid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = T.name_id AND RS.guid = T.guid) AS name,
           T.nid, P.pid, TH.tid, R.timestamp AS start, R.timestamp AS end, 0 AS duration,
           R.event_id, E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id,
           E.extdata, E.call_stack, E.line_info
      FROM "rocpd_sample" R
      JOIN "rocpd_track" T ON T.id = R.track_id AND T.guid = R.guid
      JOIN "rocpd_event" E ON E.id = R.event_id AND E.guid = R.guid
      JOIN "rocpd_info_process" P ON P.id = T.pid AND P.guid = T.guid
      JOIN "rocpd_info_thread" TH ON TH.id = T.tid AND TH.guid = T.guid;

CREATE VIEW IF NOT EXISTS "regions_and_samples" AS
    SELECT * FROM "regions" UNION ALL SELECT * FROM "sample_regions";

CREATE VIEW IF NOT EXISTS "kernels" AS
    SELECT K.id, K.guid, T.tid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           R.string AS region, S.display_name AS name, K.nid, P.pid,
           A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
           A.type_index AS agent_type_index, A.type AS agent_type,
           S.code_object_id, K.kernel_id, K.dispatch_id, K.stream_id, K.queue_id,
           K.graph_exec_id, K.graph_node_id,
           Q.name AS queue, ST.name AS stream, K.start, K.end, (K.end - K.start) AS duration,
           K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
           K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y,
           K.workgroup_size_z AS workgroup_z, K.group_segment_size AS lds_size,
           K.private_segment_size AS scratch_size, S.arch_vgpr_count AS vgpr_count,
           S.accum_vgpr_count, S.sgpr_count, S.group_segment_size AS static_lds_size,
           S.private_segment_size AS static_scratch_size, K.event_id, E.stack_id,
           E.parent_stack_id, E.correlation_id AS corr_id
      FROM "rocpd_kernel_dispatch" K
      JOIN "rocpd_info_agent" A ON A.id = K.agent_id AND A.guid = K.guid
      JOIN "rocpd_event" E ON E.id = K.event_id AND E.guid = K.guid
      JOIN "rocpd_string" R ON R.id = K.region_name_id AND R.guid = K.guid
      JOIN "rocpd_info_kernel_symbol" S ON S.id = K.kernel_id AND S.guid = K.guid
      LEFT JOIN "rocpd_info_stream" ST ON ST.id = K.stream_id AND ST.guid = K.guid
      LEFT JOIN "rocpd_info_queue" Q ON Q.id = K.queue_id AND Q.guid = K.guid
      JOIN "rocpd_info_process" P ON P.id = Q.pid AND P.guid = Q.guid
      JOIN "rocpd_info_thread" T ON T.id = K.tid AND T.guid = K.guid;

CREATE VIEW IF NOT EXISTS "memory_copies" AS
    SELECT M.id, M.guid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           M.nid, P.pid, T.tid, M.start, M.end, (M.end - M.start) AS duration,
           S.string AS name, R.string AS region_name, M.stream_id, M.queue_id,
           M.graph_exec_id, M.graph_node_id,
           ST.name AS stream_name, Q.name AS queue_name, M.size,
           DA.name AS dst_device, DA.absolute_index AS dst_agent_abs_index,
           DA.logical_index AS dst_agent_log_index, DA.type_index AS dst_agent_type_index,
           DA.type AS dst_agent_type, M.dst_address,
           SA.name AS src_device, SA.absolute_index AS src_agent_abs_index,
           SA.logical_index AS src_agent_log_index, SA.type_index AS src_agent_type_index,
           SA.type AS src_agent_type, M.src_address,
           E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id
      FROM "rocpd_memory_copy" M
      JOIN "rocpd_string" S ON S.id = M.name_id AND S.guid = M.guid
      LEFT JOIN "rocpd_string" R ON R.id = M.region_name_id AND R.guid = M.guid
      JOIN "rocpd_info_agent" DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid
      JOIN "rocpd_info_agent" SA ON SA.id = M.src_agent_id AND SA.guid = M.guid
      LEFT JOIN "rocpd_info_queue" Q ON Q.id = M.queue_id AND Q.guid = M.guid
      LEFT JOIN "rocpd_info_stream" ST ON ST.id = M.stream_id AND ST.guid = M.guid
      JOIN "rocpd_event" E ON E.id = M.event_id AND E.guid = M.guid
      JOIN "rocpd_info_process" P ON P.id = M.pid AND P.guid = M.guid
      JOIN "rocpd_info_thread" T ON T.id = M.tid AND T.guid = M.guid;

CREATE VIEW IF NOT EXISTS "graph_launches" AS
    SELECT G.id, G.guid, G.nid, P.pid, T.tid, G.agent_id,
           A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
           A.type_index AS agent_type_index, A.type AS agent_type,
           G.queue_id, Q.name AS queue, 'Graph Execution' AS name,
           G.start, G.end, (G.end - G.start) AS duration, G.graph_exec_id,
           G.kernel_dispatch_count, G.event_id, E.stack_id, E.parent_stack_id,
           E.correlation_id AS corr_id
      FROM "rocpd_graph_launch" G
      LEFT JOIN "rocpd_info_agent" A ON A.id = G.agent_id AND A.guid = G.guid
      LEFT JOIN "rocpd_info_queue" Q ON Q.id = G.queue_id AND Q.guid = G.guid
      JOIN "rocpd_event" E ON E.id = G.event_id AND E.guid = G.guid
      JOIN "rocpd_info_process" P ON P.id = G.pid AND P.guid = G.guid
      JOIN "rocpd_info_thread" T ON T.id = G.tid AND T.guid = G.guid;

-- Column list unverified beyond name, queue_id and source_queue_id (see rocpd_hip_event).
CREATE VIEW IF NOT EXISTS "hip_events" AS
    SELECT H.id, H.guid, H.nid, H.pid, H.tid, S.string AS name, H.agent_id,
           A.type_index AS agent_type_index, H.queue_id, H.source_queue_id, H.stream_id,
           H.hip_event_handle, H.start, H.end, (H.end - H.start) AS duration, H.event_id,
           E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id
      FROM "rocpd_hip_event" H
      JOIN "rocpd_string" S ON S.id = H.name_id AND S.guid = H.guid
      LEFT JOIN "rocpd_info_agent" A ON A.id = H.agent_id AND A.guid = H.guid
      JOIN "rocpd_event" E ON E.id = H.event_id AND E.guid = H.guid;

-- Per-dispatch counters (SPM rows excluded), summed per (event, counter name): one row per
-- execution. Upstream 3.0.3 groups by dispatch_id; the replay branch groups by the event, which is
-- the same without kernel replay.
CREATE VIEW IF NOT EXISTS "counters_collection" AS
    SELECT MIN(PE.id) AS id, PE.guid, K.dispatch_id, K.kernel_id, E.id AS event_id,
           E.correlation_id, E.stack_id, E.parent_stack_id, P.pid, T.tid, K.agent_id,
           A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
           A.type_index AS agent_type_index, A.type AS agent_type, K.queue_id,
           K.grid_size_x, K.grid_size_y, K.grid_size_z,
           (K.grid_size_x * K.grid_size_y * K.grid_size_z) AS grid_size,
           KS.display_name AS kernel_name,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = K.region_name_id AND RS.guid = K.guid) AS kernel_region,
           K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,
           (K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z) AS workgroup_size,
           K.group_segment_size AS lds_block_size, K.private_segment_size AS scratch_size,
           KS.arch_vgpr_count AS vgpr_count, KS.accum_vgpr_count, KS.sgpr_count,
           PI.name AS counter_name, PI.symbol AS counter_symbol, PI.component, PI.description,
           PI.block, PI.expression, PI.value_type, PI.id AS counter_id,
           SUM(PE.value) AS value, K.start, K.end, PI.is_constant, PI.is_derived,
           (K.end - K.start) AS duration,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           K.nid, E.extdata, KS.code_object_id
      FROM "rocpd_pmc_event" PE
      JOIN "rocpd_info_pmc" PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
      JOIN "rocpd_event" E ON E.id = PE.event_id AND E.guid = PE.guid
      JOIN "rocpd_kernel_dispatch" K ON K.event_id = PE.event_id AND K.guid = PE.guid
      JOIN "rocpd_info_agent" A ON A.id = K.agent_id AND A.guid = K.guid
      JOIN "rocpd_info_kernel_symbol" KS ON KS.id = K.kernel_id AND KS.guid = K.guid
      JOIN "rocpd_info_process" P ON P.id = K.pid AND P.guid = K.guid
      JOIN "rocpd_info_thread" T ON T.id = K.tid AND T.guid = K.guid
     WHERE PE.sample_id IS NULL
     GROUP BY PE.guid, E.id, PI.name, K.agent_id;

-- SPM values, one row per (sample, counter, position); no aggregation.
CREATE VIEW IF NOT EXISTS "spm_counters" AS
    SELECT PE.id, PE.guid, K.dispatch_id, K.kernel_id, E.id AS event_id, E.correlation_id,
           E.stack_id, E.parent_stack_id, P.pid, T.tid, K.agent_id,
           A.type_index AS agent_type_index, A.type AS agent_type, K.queue_id,
           KS.display_name AS kernel_name, PI.name AS counter_name, PI.symbol AS counter_symbol,
           PI.block, PI.id AS counter_id, PE.xcc, PE.shader_engine, PE.instance,
           PE.shader_array, PE.wgp, PE.value, S.timestamp, K.nid, KS.code_object_id
      FROM "rocpd_pmc_event" PE
      JOIN "rocpd_sample" S ON S.id = PE.sample_id AND S.guid = PE.guid
      JOIN "rocpd_info_pmc" PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
      JOIN "rocpd_event" E ON E.id = PE.event_id AND E.guid = PE.guid
      JOIN "rocpd_kernel_dispatch" K ON K.event_id = PE.event_id AND K.guid = PE.guid
      JOIN "rocpd_info_agent" A ON A.id = K.agent_id AND A.guid = K.guid
      JOIN "rocpd_info_kernel_symbol" KS ON KS.id = K.kernel_id AND KS.guid = K.guid
      JOIN "rocpd_info_process" P ON P.id = K.pid AND P.guid = K.guid
      JOIN "rocpd_info_thread" T ON T.id = K.tid AND T.guid = K.guid;

-- ---------------------------------------------------------------------------------------------
-- Summary views with the upstream semantics (see rocpd_v3.sql; unchanged through 3.0.5).

CREATE VIEW IF NOT EXISTS "top_kernels" AS
    SELECT S.display_name AS name,
           count(K.kernel_id) AS total_calls,
           sum(K.end - K.start) / 1000.0 AS total_duration,
           (sum(K.end - K.start) / count(K.kernel_id)) / 1000.0 AS average,
           sum(K.end - K.start) * 100.0 / (SELECT sum(A.end - A.start) FROM "rocpd_kernel_dispatch" A) AS percentage
      FROM "rocpd_kernel_dispatch" K
      JOIN "rocpd_info_kernel_symbol" S ON S.id = K.kernel_id AND S.guid = K.guid
     GROUP BY name
     ORDER BY total_duration DESC;

CREATE VIEW IF NOT EXISTS "busy" AS
    SELECT W.agent_id, AG.type, GpuTime, WallTime, GpuTime * 1.0 / WallTime AS Busy
      FROM (SELECT agent_id, guid, sum(end - start) AS GpuTime
              FROM (SELECT agent_id, guid, end, start FROM "rocpd_kernel_dispatch"
                    UNION ALL
                    SELECT dst_agent_id AS agent_id, guid, end, start FROM "rocpd_memory_copy")
             GROUP BY agent_id, guid) W
      JOIN (SELECT max(end) - min(start) AS WallTime
              FROM (SELECT end, start FROM "rocpd_kernel_dispatch"
                    UNION ALL
                    SELECT end, start FROM "rocpd_memory_copy")) ON 1 = 1
      JOIN "rocpd_info_agent" AG ON AG.id = W.agent_id AND AG.guid = W.guid;

CREATE VIEW IF NOT EXISTS "top" AS
    SELECT name,
           count(*) AS total_calls,
           sum(duration) / 1000.0 AS total_duration,
           (sum(duration) / count(*)) / 1000.0 AS average,
           sum(duration) * 100.0 / total_time AS percentage
      FROM (SELECT KS.display_name AS name, (KD.end - KD.start) AS duration
              FROM "rocpd_kernel_dispatch" KD
              JOIN "rocpd_info_kernel_symbol" KS ON KS.id = KD.kernel_id AND KS.guid = KD.guid
            UNION ALL
            SELECT RS.string AS name, (MC.end - MC.start) AS duration
              FROM "rocpd_memory_copy" MC
              JOIN "rocpd_string" RS ON RS.id = MC.name_id AND RS.guid = MC.guid
            UNION ALL
            SELECT RS.string AS name, (RR.end - RR.start) AS duration
              FROM "rocpd_region" RR
              JOIN "rocpd_string" RS ON RS.id = RR.name_id AND RS.guid = RR.guid) operations
     CROSS JOIN (SELECT sum(end - start) AS total_time
                   FROM (SELECT end, start FROM "rocpd_kernel_dispatch"
                         UNION ALL
                         SELECT end, start FROM "rocpd_memory_copy"
                         UNION ALL
                         SELECT end, start FROM "rocpd_region")) TOTAL
     GROUP BY name
     ORDER BY total_duration DESC;
