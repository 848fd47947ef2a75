-- rocpd trace database as rocprofiler-systems (rocprof-sys, ROCPROFSYS_USE_ROCPD=ON) writes it with
-- its in-tree SQLite backend (rocprofiler-systems 1.x up to 1.8, ROCm 7.x; file rocpd.db, plus the
-- process suffix when configured, in the output directory).
--
-- The tables are rocprofv3's schema 3.0.0 (plus rocpd_event_operation, from the schema copy the
-- tool ships); the differences are in how the rows are written:
--   * Suffix and guid: the "upid" = md5 hex digest (32 lowercase hex digits) of (node id, pid,
--     ppid). Tables are rocpd_<name>_<upid>; every row's guid is the same upid (no dashes). An
--     extra metadata row ('upid', <upid>) follows the schema's own rows schema_version = '3',
--     uuid = '_<upid>' and guid. Builds of mid 2025 substituted only {{uuid}}: their guid
--     metadata row and the guid column defaults hold the literal text '{{guid}}' (the rows the
--     tool inserts still set guid = upid explicitly). There is no upid column.
--     Placeholders here: {{uuid}} = {{guid}} = the upid.
--   * Ids: node id and process id (= pid) are natural; stream and queue ids are the SDK handles
--     (names 'Stream <handle>' / 'Queue <handle>'); code object and kernel symbol ids are the SDK
--     ids. Everything else is an SQLite rowid: rocpd_info_agent.id (1.. in agent-manager order;
--     absolute_index = 0.. in the same order, logical_index = node id, type_index = index among
--     agents of the type, uuid = device id), rocpd_info_thread.id (1..; tid = OS tid, name
--     'Thread <tid>', start/end set), rocpd_region.id, rocpd_kernel_dispatch.id (not dispatch_id),
--     rocpd_memory_copy.id.
--   * Thread references: rocpd_region.tid, rocpd_kernel_dispatch.tid, rocpd_memory_copy.tid,
--     rocpd_memory_allocate.tid and rocpd_track.tid hold rocpd_info_thread.id, not the OS tid.
--   * rocpd_info_process: init, fini, start and end are 0; environment '{}'.
--   * Events: category_id -> rocpd_string with rocprof-sys category names; correlation_id is always
--     0; stack_id = the SDK internal correlation id, parent_stack_id = its ancestor (for
--     dispatches and copies too). Categories seen on regions: rocm_hip_api, rocm_hsa_api,
--     rocm_marker_api, rocm_rccl_api, rocm_rocdecode_api, rocm_rocjpeg_api, rocm_hipfile_api,
--     rocm_rocshmem_api, rocm_ompt_api, rocm_kfd_* (KFD), plus host-side ones (host, user, python,
--     pthread, kokkos, mpi, ucx, shmem, timer_sampling, overflow_sampling...); on GPU work
--     rocm_kernel_dispatch, rocm_memory_copy, rocm_memory_allocate. Samples take the track name
--     as category (device_busy_gfx, device_busy_umc, device_busy_mm, device_temp, device_power,
--     device_memory_usage, device_vcn_activity, device_jpeg_activity, device_gfx_clock,
--     device_mem_clock, device_xgmi_*, device_pcie_*, device_sdma_usage, cpu_frequency, cpu_load,
--     process_*, thread_*, comm_data, nic_*...).
--   * API regions: name = the SDK operation name ('hipLaunchKernel'); arguments in rocpd_arg.
--     roctx: ranges and marks are both regions (a mark spans its roctxMarkA call, start < end);
--     the region name is the operation name ('roctxRangePushA', 'roctxMarkA') with the message in
--     rocpd_arg (name 'message') in the writers read; a 2026 roctx callback passes the message
--     itself as the name (unverified which one lands in the file). Event extdata stays '{}'.
--   * Instants: rocpd_sample rows on named tracks (one per metric and thread/agent), each with
--     its own event and, for numeric metrics, a rocpd_pmc_event row (event_id = the sample's
--     event, pmc_id -> a rocpd_info_pmc row named after the metric). rocpd_pmc_event in these
--     files is a time series, not per-dispatch counters.
--   * Kernel dispatches: agent_id -> the agent rowid; region_name_id -> the demangled kernel name;
--     queue_id/stream_id = handles. Kernel symbols: display_name = the demangled kernel_name
--     (whether '.kd' is stripped is unverified).
--   * Memory copies: name_id and region_name_id -> the SDK operation name (MEMORY_COPY_...);
--     queue_id = 0 (no such queue row), stream_id = stream handle. Allocations: as rocprofv3
--     (type/level mapping), queue_id = 0.
--   * No indexes. Views: the SDK's rocpd_views, data_views, marker_views, summary_views (the
--     summary copy adds kernel_summary and friends; the kernels view lacks the register counts).
-- From rocprofiler-systems 1.9.0 (ROCm 10) the in-tree backend is removed; "profiler-hub" writes
-- rocpd compiled against the SDK's versions/3.0.1 schema files (see rocpd_v3_0_5.sql); its table
-- naming and id conventions were not available (unverified).
--
-- Declared types and view semantics follow the schema rocprofiler-systems ships; the text is
-- this project's own.

CREATE TABLE IF NOT EXISTS "rocpd_metadata_{{uuid}}" (
    "id"    INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tag"   TEXT NOT NULL,
    "value" TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS "rocpd_string_{{uuid}}" (
    "id"     INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"   TEXT DEFAULT '{{guid}}' NOT NULL,
    "string" TEXT NOT NULL UNIQUE ON CONFLICT ABORT
);

-- The machine the process ran on. id is derived from a hash of machine_id.
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

-- The process; id = pid = OS pid; init/fini/start/end are written as 0.
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

-- Threads; id is a rowid (what other tables' tid columns hold), tid the OS tid, name 'Thread <tid>'.
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

-- Agents; id is a rowid (1.. in agent-manager order), absolute_index 0.. in that order,
-- logical_index = node id, type_index = index among agents of one type (GPU number).
CREATE TABLE IF NOT EXISTS "rocpd_info_agent_{{uuid}}" (
    "id"             INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"           TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"            INTEGER NOT NULL,
    "pid"            INTEGER NOT NULL,
    "type"           TEXT CHECK ("type" IN ('CPU', 'GPU')),
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

-- Metric descriptions of sampled series (AMD SMI, CPU frequency, comm data...), and counters.
CREATE TABLE IF NOT EXISTS "rocpd_info_pmc_{{uuid}}" (
    "id"               INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"             TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"              INTEGER NOT NULL,
    "pid"              INTEGER NOT NULL,
    "agent_id"         INTEGER,
    "target_arch"      TEXT CHECK ("target_arch" IN ('CPU', 'GPU')),
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
    "extdata"          JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Loaded code objects, one per (file, agent).
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

-- Kernel symbols of the loaded code objects: the same kernel loaded for two agents has two rows.
-- kernel_name is the symbol as the code object spells it; display_name a readable form.
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

-- One track per sampled metric (name_id -> the metric's name), thread or agent.
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

-- category_id -> rocpd_string: a rocprof-sys category name (see header); correlation_id 0;
-- stack_id = internal correlation id; parent_stack_id = ancestor.
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

-- Call arguments of events.
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

-- Values of sampled metrics: event_id = the sample's event, pmc_id -> the metric's rocpd_info_pmc row.
CREATE TABLE IF NOT EXISTS "rocpd_pmc_event_{{uuid}}" (
    "id"       INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"     TEXT DEFAULT '{{guid}}' NOT NULL,
    "event_id" INTEGER,
    "pmc_id"   INTEGER NOT NULL,
    "value"    REAL DEFAULT 0.0,
    "extdata"  JSONB DEFAULT '{}',
    FOREIGN KEY (pmc_id) REFERENCES "rocpd_info_pmc_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- CPU intervals: API calls, roctx ranges and marks, host regions; id is a rowid, tid a thread rowid.
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

-- Instants of sampled series, one track per metric (and thread or agent).
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

-- Kernel executions; id is a rowid, agent_id an agent rowid, tid a thread rowid, queue_id/stream_id
-- handles, region_name_id the demangled kernel name.
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

-- Memory copies; name (and region_name) the SDK operation (MEMORY_COPY_HOST_TO_DEVICE, ...); queue_id 0.
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

-- Allocations and frees (real, virtual and scratch memory).
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

-- Shipped but never filled by rocprof-sys: GPU-side event operations.
CREATE TABLE IF NOT EXISTS "rocpd_event_operation_{{uuid}}" (
    "id"        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"      TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"       INTEGER NOT NULL,
    "pid"       INTEGER NOT NULL,
    "tid"       INTEGER,
    "agent_id"  INTEGER NOT NULL,
    "event_obj" INTEGER NOT NULL,
    "issue_id"  INTEGER NOT NULL,
    "queue_id"  INTEGER NOT NULL,
    "stream_id" INTEGER NOT NULL,
    "type_id"   INTEGER NOT NULL,
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

-- The schema's own rows, then the tool's 'upid' row.
INSERT INTO "rocpd_metadata_{{uuid}}" ("tag", "value")
    VALUES ('schema_version', '3'), ('uuid', '_{{uuid}}'), ('guid', '{{guid}}'), ('upid', '{{uuid}}');

-- ---------------------------------------------------------------------------------------------
-- Unsuffixed views, one per table: what readers of a single file query.
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
CREATE VIEW IF NOT EXISTS "rocpd_event_operation" AS SELECT * FROM "rocpd_event_operation_{{uuid}}";

-- ---------------------------------------------------------------------------------------------
-- Data views shipped in every file (joins on (id, guid) as upstream does).

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

-- CPU regions with their category, name and correlation id.
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

-- Arguments of CPU regions.
CREATE VIEW IF NOT EXISTS "region_args" AS
    SELECT R.id, R.guid, R.nid, P.pid, A.type, A.name, A.value
      FROM "rocpd_region" R
      JOIN "rocpd_event" E ON E.id = R.event_id AND E.guid = R.guid
      JOIN "rocpd_arg" A ON A.event_id = E.id AND A.guid = R.guid
      JOIN "rocpd_info_process" P ON P.id = R.pid AND P.guid = R.guid;

-- Instants, named after their track.
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

-- Instants shaped like regions (start = end = timestamp).
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

-- Kernel dispatches with symbol, agent, queue and stream resolved; name is the display name.
CREATE VIEW IF NOT EXISTS "kernels" AS
    SELECT K.id, K.guid, T.tid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           R.string AS region, S.display_name AS name, K.nid, P.pid,
           A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
           A.type_index AS agent_type_index, A.type AS agent_type,
           S.code_object_id, K.kernel_id, K.dispatch_id, K.stream_id, K.queue_id,
           Q.name AS queue, ST.name AS stream, K.start, K.end, (K.end - K.start) AS duration,
           K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
           K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y,
           K.workgroup_size_z AS workgroup_z, K.group_segment_size AS lds_size,
           K.private_segment_size AS scratch_size, S.arch_vgpr_count AS vgpr_count,
           S.accum_vgpr_count, S.sgpr_count, S.group_segment_size AS static_lds_size,
           S.private_segment_size AS static_scratch_size, E.stack_id, E.parent_stack_id,
           E.correlation_id AS corr_id
      FROM "rocpd_kernel_dispatch" K
      JOIN "rocpd_info_agent" A ON A.id = K.agent_id AND A.guid = K.guid
      JOIN "rocpd_event" E ON E.id = K.event_id AND E.guid = K.guid
      JOIN "rocpd_string" R ON R.id = K.region_name_id AND R.guid = K.guid
      JOIN "rocpd_info_kernel_symbol" S ON S.id = K.kernel_id AND S.guid = K.guid
      LEFT JOIN "rocpd_info_stream" ST ON ST.id = K.stream_id AND ST.guid = K.guid
      LEFT JOIN "rocpd_info_queue" Q ON Q.id = K.queue_id AND Q.guid = K.guid
      JOIN "rocpd_info_process" P ON P.id = Q.pid AND P.guid = Q.guid
      JOIN "rocpd_info_thread" T ON T.id = K.tid AND T.guid = K.guid;

-- Memory copies with both agents resolved.
CREATE VIEW IF NOT EXISTS "memory_copies" AS
    SELECT M.id, M.guid,
           (SELECT string FROM "rocpd_string" RS WHERE RS.id = E.category_id AND RS.guid = E.guid) AS category,
           M.nid, P.pid, T.tid, M.start, M.end, (M.end - M.start) AS duration,
           S.string AS name, R.string AS region_name, M.stream_id, M.queue_id,
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

-- ---------------------------------------------------------------------------------------------
-- Summary views shipped in every file, with the upstream semantics (microseconds as real
-- numbers; busy sums overlapping work and divides by one wall time over all agents).

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

-- Copies are attributed to their destination agent here (the CPU for device-to-host copies).
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

-- Kernels, copies and CPU regions together, percent of their summed durations.
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
