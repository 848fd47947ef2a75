-- rocpd trace database, schema 4.x (rocprofiler-sdk-rocpd versions/4.1.0), one file per process.
--
-- Same naming as 3.x (tables rocpd_<name>_<uuid>, guid column in every row, natural ids, unsuffixed
-- views rocpd_<name>), but events are normalised:
--   * Who/where moves onto rocpd_track: one row per distinct (nid, ppid, pid, tid, agent_id,
--     queue_id, stream_id, name_id). rocpd_region, rocpd_sample, rocpd_kernel_dispatch,
--     rocpd_memory_copy and rocpd_memory_allocate lose nid/pid/tid/agent_id/queue_id/stream_id
--     and reference a track_id instead (the copy's agent, dst or src, stays on the copy).
--   * Categories move out of rocpd_string into rocpd_info_category(id, name);
--     rocpd_event.category_id references it.
--   * rocpd_event loses the call_stack and line_info JSON columns: call stacks are rows of
--     rocpd_call_stack (event_id, pc_id, depth; depth 0 = top of stack) and source lines rows of
--     rocpd_line_info (event_id, source_code_id, pc_id), over the new info tables rocpd_info_pc
--     (function, file, line, address_id), rocpd_info_address_range and rocpd_info_source_code.
--   * rocpd_sample gains name_id (instants are named directly, not through their track).
--   * Optional user-given names: rocpd_info_node.name, rocpd_info_process.name,
--     rocpd_info_thread.name, rocpd_info_queue/stream.name, rocpd_info_agent.name (the product
--     name); rocpd_info_agent.generic_name holds the SDK agent name (gfx942...) and user_name is
--     gone. rocpd_info_pmc gains qualifier (one row per counter dimension instance).
--   * The 'NIC' agent/pmc type of 3.0.1 is absent from the 4.1.0 CHECK lists.
-- The 4.x writer maps categories to the SDK's perfetto category names rather than buffer kind
-- names: hip_api (HIP runtime/compiler API, HIP streams), hsa_api, marker_api (all roctx kinds),
-- rccl_api, openmp, kernel_dispatch, memory_copy, memory_allocation, scratch_memory,
-- rocdecode_api, rocjpeg_api, counter_collection, kfd_events, none; kinds sharing a name share
-- one rocpd_info_category row.
--
-- Versions: the 4.x layout lives on a development line of ROCm/rocm-systems (2026) whose
-- versions/ directory archives 4.1.0; its metadata rows are the templated ones of 3.0.1+
-- (schema_version '4.1.0', schema_version_major '4', _minor '1', _patch '0',
-- schema_creation_time, uuid, guid). Released 4.x files were not found; a third-party note (2026)
-- speaks of "schema version 4" for a PC-sampling build. Unverified beyond the 4.1.0 DDL.
--
-- A second 4.x variant (the top-level rocpd_tables.sql of one 4.x commit; version string
-- unverified, likely the successor of 4.1.0) also moves timestamps into a table:
--   rocpd_timestamp_<uuid>(id, guid, value BIGINT NOT NULL, phase INTEGER CHECK IN (0,1,2)
--       -- 0 instant, 1 start/enter, 2 end/exit --, track_id -> rocpd_track),
-- and replaces start/end/timestamp by start_id/end_id/timestamp_id referencing it in
-- rocpd_region, rocpd_sample, rocpd_kernel_dispatch, rocpd_memory_copy, rocpd_memory_allocate
-- (column order: region(id, guid, track_id, name_id, start_id, end_id, event_id, extdata);
-- kernel_dispatch(id, guid, track_id, kernel_id, dispatch_id, start_id, end_id, ...);
-- memory_copy(id, guid, track_id, start_id, end_id, name_id, ...); memory_allocate(id, guid,
-- track_id, type, level, start_id, end_id, name_id, ...); sample(id, guid, track_id, name_id,
-- timestamp_id, event_id, extdata)). Its writer records every API call as a region (marks too,
-- start == end), names roctx regions after the MESSAGE and puts the operation name in
-- rocpd_event.extdata as {"message": "roctxThreadRangeA"} (the reverse of 3.x), and writes one
-- rocpd_info_pmc row per counter dimension instance (id = instance id, symbol
-- 'NAME:dim=i,...', qualifier 'dim=i,...'); rocpd_pmc_event.pmc_id is that instance id. A reader
-- resolves each *_id through rocpd_timestamp.value. Not declared below.
--
-- Placeholders: {{uuid}} (table suffix, UUID with '_'), {{guid}} (UUID with dashes).
-- Declared types, defaults and view semantics follow the upstream 4.1.0 schema; the text is this
-- project's own.

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

CREATE TABLE IF NOT EXISTS "rocpd_info_node_{{uuid}}" (
    "id"            INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"          TEXT DEFAULT '{{guid}}' NOT NULL,
    "hash"          BIGINT NOT NULL UNIQUE,
    "machine_id"    TEXT NOT NULL UNIQUE,
    "name"          TEXT,
    "system_name"   TEXT,
    "hostname"      TEXT,
    "release"       TEXT,
    "version"       TEXT,
    "hardware_name" TEXT,
    "domain_name"   TEXT
);

CREATE TABLE IF NOT EXISTS "rocpd_info_process_{{uuid}}" (
    "id"          INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"        TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"         INTEGER NOT NULL,
    "ppid"        INTEGER,
    "pid"         INTEGER NOT NULL,
    "name"        TEXT,
    "init"        BIGINT,
    "fini"        BIGINT,
    "start"       BIGINT,
    "end"         BIGINT,
    "command"     TEXT,
    "environment" JSONB DEFAULT '{}' NOT NULL,
    "extdata"     JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE
);

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

-- Event categories (see header for the names the 4.x writer uses).
CREATE TABLE IF NOT EXISTS "rocpd_info_category_{{uuid}}" (
    "id"      INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"    TEXT DEFAULT '{{guid}}' NOT NULL,
    "name"    TEXT NOT NULL,
    "extdata" JSONB DEFAULT '{}' NOT NULL
);

-- id = absolute_index = node id; type_index = GPU number; name = product name or NULL;
-- generic_name = SDK agent name.
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
    "generic_name"   TEXT,
    "model_name"     TEXT,
    "vendor_name"    TEXT,
    "product_name"   TEXT,
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

-- Counter descriptions; qualifier names the dimension instance ('xcc=0,se=1').
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
    "qualifier"        TEXT,
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

-- As in 3.x: kernel_name keeps '.kd', display_name is the formatted (demangled) name.
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

-- An address range of a binary: address_base = runtime load offset; low/high = the range (already
-- offset by the base when the base is non-zero).
CREATE TABLE IF NOT EXISTS "rocpd_info_address_range_{{uuid}}" (
    "id"           INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"         TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"          INTEGER NOT NULL,
    "pid"          INTEGER NOT NULL,
    "address_base" BIGINT,
    "address_low"  BIGINT CHECK ("address_low" >= "address_base"),
    "address_high" BIGINT CHECK ("address_high" >= "address_low"),
    "extdata"      JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Source text of a range: file, first line, lines and instructions as JSON arrays.
CREATE TABLE IF NOT EXISTS "rocpd_info_source_code_{{uuid}}" (
    "id"           INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"         TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"          INTEGER NOT NULL,
    "pid"          INTEGER NOT NULL,
    "address_id"   INTEGER,
    "file"         TEXT,
    "line_number"  INTEGER,
    "lines"        JSONB DEFAULT '[]' NOT NULL,
    "instructions" JSONB DEFAULT '[]' NOT NULL,
    "extdata"      JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (address_id) REFERENCES "rocpd_info_address_range_{{uuid}}" (id) ON UPDATE CASCADE
);

-- A program counter: function name, file and line.
CREATE TABLE IF NOT EXISTS "rocpd_info_pc_{{uuid}}" (
    "id"         INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"       TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"        INTEGER NOT NULL,
    "pid"        INTEGER NOT NULL,
    "function"   TEXT NOT NULL,
    "address_id" INTEGER,
    "file"       TEXT,
    "line"       INTEGER,
    "extdata"    JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (address_id) REFERENCES "rocpd_info_address_range_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Who and where. API calls: (nid, ppid, pid, tid), agent/queue/stream NULL. Dispatches: tid of
-- the launch + agent_id + queue_id + stream_id. Copies: tid + agent_id = destination agent +
-- stream_id (queue NULL). Allocations: tid + agent (ALLOC) + queue + stream. name_id/extdata are
-- NULL for these; named tracks carry samples. pid/tid hold the OS values (joins to
-- rocpd_info_process.pid and rocpd_info_thread.tid, which equal their ids for rocprofv3).
CREATE TABLE IF NOT EXISTS "rocpd_track_{{uuid}}" (
    "id"        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"      TEXT DEFAULT '{{guid}}' NOT NULL,
    "nid"       INTEGER NOT NULL,
    "ppid"      INTEGER,
    "pid"       INTEGER,
    "tid"       INTEGER,
    "agent_id"  INTEGER,
    "queue_id"  INTEGER,
    "stream_id" INTEGER,
    "name_id"   INTEGER,
    "extdata"   JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (nid) REFERENCES "rocpd_info_node_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pid) REFERENCES "rocpd_info_process_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (tid) REFERENCES "rocpd_info_thread_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (queue_id) REFERENCES "rocpd_info_queue_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (stream_id) REFERENCES "rocpd_info_stream_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE
);

-- stack_id / parent_stack_id / correlation_id as in 3.x; category_id -> rocpd_info_category.
CREATE TABLE IF NOT EXISTS "rocpd_event_{{uuid}}" (
    "id"              INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"            TEXT DEFAULT '{{guid}}' NOT NULL,
    "category_id"     INTEGER,
    "stack_id"        INTEGER,
    "parent_stack_id" INTEGER,
    "correlation_id"  INTEGER,
    "extdata"         JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (category_id) REFERENCES "rocpd_info_category_{{uuid}}" (id) ON UPDATE CASCADE
);

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

-- Source position of an event.
CREATE TABLE IF NOT EXISTS "rocpd_line_info_{{uuid}}" (
    "id"             INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"           TEXT DEFAULT '{{guid}}' NOT NULL,
    "event_id"       INTEGER NOT NULL,
    "source_code_id" INTEGER,
    "pc_id"          INTEGER,
    "extdata"        JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (source_code_id) REFERENCES "rocpd_info_source_code_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pc_id) REFERENCES "rocpd_info_pc_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Call stack of an event, one row per frame; depth 0 is the top of the stack.
CREATE TABLE IF NOT EXISTS "rocpd_call_stack_{{uuid}}" (
    "id"       INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"     TEXT DEFAULT '{{guid}}' NOT NULL,
    "event_id" INTEGER NOT NULL,
    "pc_id"    INTEGER,
    "depth"    INTEGER NOT NULL,
    "extdata"  JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (pc_id) REFERENCES "rocpd_info_pc_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Counter values; event_id = the dispatch's event. Sum value per (event_id, counter name).
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

-- CPU intervals (API calls, roctx ranges); id = internal correlation id (unverified for 4.1.0;
-- so in 3.x and in the timestamp variant).
CREATE TABLE IF NOT EXISTS "rocpd_region_{{uuid}}" (
    "id"       INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"     TEXT DEFAULT '{{guid}}' NOT NULL,
    "track_id" INTEGER NOT NULL,
    "name_id"  INTEGER NOT NULL,
    "start"    BIGINT NOT NULL,
    "end"      BIGINT NOT NULL,
    "event_id" INTEGER,
    "extdata"  JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (track_id) REFERENCES "rocpd_track_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

CREATE TABLE IF NOT EXISTS "rocpd_sample_{{uuid}}" (
    "id"        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"      TEXT DEFAULT '{{guid}}' NOT NULL,
    "track_id"  INTEGER NOT NULL,
    "name_id"   INTEGER NOT NULL,
    "timestamp" BIGINT NOT NULL,
    "event_id"  INTEGER,
    "extdata"   JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (track_id) REFERENCES "rocpd_track_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Kernel executions: agent, queue, stream and launching thread come from the track.
CREATE TABLE IF NOT EXISTS "rocpd_kernel_dispatch_{{uuid}}" (
    "id"                   INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"                 TEXT DEFAULT '{{guid}}' NOT NULL,
    "track_id"             INTEGER NOT NULL,
    "kernel_id"            INTEGER NOT NULL,
    "dispatch_id"          INTEGER NOT NULL,
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
    FOREIGN KEY (track_id) REFERENCES "rocpd_track_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (kernel_id) REFERENCES "rocpd_info_kernel_symbol_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (region_name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

CREATE TABLE IF NOT EXISTS "rocpd_memory_copy_{{uuid}}" (
    "id"             INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"           TEXT DEFAULT '{{guid}}' NOT NULL,
    "track_id"       INTEGER NOT NULL,
    "start"          BIGINT NOT NULL,
    "end"            BIGINT NOT NULL,
    "name_id"        INTEGER NOT NULL,
    "dst_agent_id"   INTEGER,
    "dst_address"    INTEGER,
    "src_agent_id"   INTEGER,
    "src_address"    INTEGER,
    "size"           INTEGER NOT NULL,
    "region_name_id" INTEGER,
    "event_id"       INTEGER,
    "extdata"        JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (track_id) REFERENCES "rocpd_track_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (dst_agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (src_agent_id) REFERENCES "rocpd_info_agent_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (region_name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- name_id = the SDK operation name (MEMORY_ALLOCATION_ALLOCATE, SCRATCH_MEMORY_ALLOC, ...).
CREATE TABLE IF NOT EXISTS "rocpd_memory_allocate_{{uuid}}" (
    "id"             INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "guid"           TEXT DEFAULT '{{guid}}' NOT NULL,
    "track_id"       INTEGER NOT NULL,
    "type"           TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM')),
    "level"          TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH')),
    "start"          BIGINT NOT NULL,
    "end"            BIGINT NOT NULL,
    "name_id"        INTEGER NOT NULL,
    "address"        INTEGER,
    "size"           INTEGER NOT NULL,
    "region_name_id" INTEGER,
    "event_id"       INTEGER,
    "extdata"        JSONB DEFAULT '{}' NOT NULL,
    FOREIGN KEY (track_id) REFERENCES "rocpd_track_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (region_name_id) REFERENCES "rocpd_string_{{uuid}}" (id) ON UPDATE CASCADE,
    FOREIGN KEY (event_id) REFERENCES "rocpd_event_{{uuid}}" (id) ON UPDATE CASCADE
);

-- Indexes of one 4.1.0 commit (another 4.1.0 commit writes none and leaves indexing to readers).
CREATE INDEX IF NOT EXISTS "rocpd_arg_{{uuid}}_event_id_idx" ON "rocpd_arg_{{uuid}}" ("event_id");
CREATE INDEX IF NOT EXISTS "rocpd_pmc_event_{{uuid}}_event_id_idx" ON "rocpd_pmc_event_{{uuid}}" ("event_id");
CREATE INDEX IF NOT EXISTS "rocpd_arg_{{uuid}}_guid_event_id_idx" ON "rocpd_arg_{{uuid}}" ("guid", "event_id");
CREATE INDEX IF NOT EXISTS "rocpd_pmc_event_{{uuid}}_guid_event_id_idx" ON "rocpd_pmc_event_{{uuid}}" ("guid", "event_id");
CREATE INDEX IF NOT EXISTS "rocpd_event_{{uuid}}_category_id_idx" ON "rocpd_event_{{uuid}}" ("category_id");
CREATE INDEX IF NOT EXISTS "rocpd_info_process_{{uuid}}_pid_idx" ON "rocpd_info_process_{{uuid}}" ("pid");
CREATE INDEX IF NOT EXISTS "rocpd_info_thread_{{uuid}}_tid_idx" ON "rocpd_info_thread_{{uuid}}" ("tid");
CREATE INDEX IF NOT EXISTS "rocpd_info_process_{{uuid}}_guid_pid_idx" ON "rocpd_info_process_{{uuid}}" ("guid", "pid");
CREATE INDEX IF NOT EXISTS "rocpd_info_thread_{{uuid}}_guid_tid_idx" ON "rocpd_info_thread_{{uuid}}" ("guid", "tid");

INSERT INTO "rocpd_metadata_{{uuid}}" ("tag", "value") VALUES
    ('schema_version', '4.1.0'),
    ('schema_version_major', '4'),
    ('schema_version_minor', '1'),
    ('schema_version_patch', '0'),
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
CREATE VIEW IF NOT EXISTS "rocpd_info_category" AS SELECT * FROM "rocpd_info_category_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_agent" AS SELECT * FROM "rocpd_info_agent_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_queue" AS SELECT * FROM "rocpd_info_queue_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_stream" AS SELECT * FROM "rocpd_info_stream_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_pmc" AS SELECT * FROM "rocpd_info_pmc_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_code_object" AS SELECT * FROM "rocpd_info_code_object_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_kernel_symbol" AS SELECT * FROM "rocpd_info_kernel_symbol_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_address_range" AS SELECT * FROM "rocpd_info_address_range_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_source_code" AS SELECT * FROM "rocpd_info_source_code_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_info_pc" AS SELECT * FROM "rocpd_info_pc_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_track" AS SELECT * FROM "rocpd_track_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_event" AS SELECT * FROM "rocpd_event_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_arg" AS SELECT * FROM "rocpd_arg_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_line_info" AS SELECT * FROM "rocpd_line_info_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_call_stack" AS SELECT * FROM "rocpd_call_stack_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_pmc_event" AS SELECT * FROM "rocpd_pmc_event_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_region" AS SELECT * FROM "rocpd_region_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_sample" AS SELECT * FROM "rocpd_sample_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_kernel_dispatch" AS SELECT * FROM "rocpd_kernel_dispatch_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_memory_copy" AS SELECT * FROM "rocpd_memory_copy_{{uuid}}";
CREATE VIEW IF NOT EXISTS "rocpd_memory_allocate" AS SELECT * FROM "rocpd_memory_allocate_{{uuid}}";

-- ---------------------------------------------------------------------------------------------
-- Data views with the upstream 4.1.0 shapes. Tracks join processes on pid and threads on tid
-- (not on id), always together with the guid.

CREATE VIEW IF NOT EXISTS "tracks" AS
    SELECT T.id, T.guid, T.name_id AS track_name_id, ST.string AS track_name, T.nid,
           N.name AS node_name, N.hostname AS node_hostname, N.machine_id AS node_machine_id,
           T.pid, P.name AS process_name, P.ppid, P.start AS process_start, P.end AS process_end,
           P.command AS process_command, T.tid, TH.name AS thread_name,
           T.agent_id, A.name AS agent_name, A.type AS agent_type,
           A.absolute_index AS agent_absolute_index, A.logical_index AS agent_logical_index,
           A.type_index AS agent_type_index, A.generic_name AS agent_generic_name,
           A.product_name AS agent_product_name,
           T.queue_id, Q.name AS queue_name, T.stream_id, S.name AS stream_name
      FROM "rocpd_track" T
      LEFT JOIN "rocpd_info_node" N ON N.id = T.nid AND N.guid = T.guid
      LEFT JOIN "rocpd_info_process" P ON P.pid = T.pid AND P.guid = T.guid
      LEFT JOIN "rocpd_info_thread" TH ON TH.tid = T.tid AND TH.guid = T.guid
      LEFT JOIN "rocpd_info_agent" A ON A.id = T.agent_id AND A.guid = T.guid
      LEFT JOIN "rocpd_info_queue" Q ON Q.id = T.queue_id AND Q.guid = T.guid
      LEFT JOIN "rocpd_info_stream" S ON S.id = T.stream_id AND S.guid = T.guid
      LEFT JOIN "rocpd_string" ST ON ST.id = T.name_id AND ST.guid = T.guid;

CREATE VIEW IF NOT EXISTS "events" AS
    SELECT E.id, E.guid, E.category_id,
           (SELECT name FROM "rocpd_info_category" C WHERE C.id = E.category_id AND C.guid = E.guid) AS category,
           E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
      FROM "rocpd_event" E;

CREATE VIEW IF NOT EXISTS "processes" AS
    SELECT P.id, N.id AS nid, N.machine_id, N.system_name, N.hostname,
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
      JOIN "rocpd_info_process" P ON P.pid = KS.pid AND P.guid = KS.guid;

CREATE VIEW IF NOT EXISTS "regions" AS
    SELECT R.id, R.guid, E.category, NS.string AS name, T.nid, T.pid, T.tid,
           R.start, R.end, (R.end - R.start) AS duration, R.event_id, R.track_id,
           E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
      FROM "rocpd_region" R
      JOIN "events" E ON E.id = R.event_id AND E.guid = R.guid
      JOIN "tracks" T ON T.id = R.track_id AND T.guid = R.guid
      JOIN "rocpd_string" NS ON NS.id = R.name_id AND NS.guid = R.guid;

CREATE VIEW IF NOT EXISTS "samples" AS
    SELECT S.id, S.guid, E.category, NS.string AS name, T.nid, T.pid, T.tid,
           S.timestamp, S.event_id, S.track_id, E.stack_id, E.parent_stack_id,
           E.correlation_id, E.extdata
      FROM "rocpd_sample" S
      JOIN "tracks" T ON T.id = S.track_id AND T.guid = S.guid
      JOIN "events" E ON E.id = S.event_id AND E.guid = S.guid
      JOIN "rocpd_string" NS ON NS.id = S.name_id AND NS.guid = S.guid;

CREATE VIEW IF NOT EXISTS "sample_regions" AS
    SELECT S.id, S.guid, S.category, S.name, S.nid, S.pid, S.tid,
           S.timestamp AS start, S.timestamp AS end, 0 AS duration, S.event_id, S.track_id,
           S.stack_id, S.parent_stack_id, S.correlation_id, S.extdata
      FROM "samples" S;

CREATE VIEW IF NOT EXISTS "regions_and_samples" AS
    SELECT * FROM "regions" UNION ALL SELECT * FROM "sample_regions";

CREATE VIEW IF NOT EXISTS "kernels" AS
    SELECT K.id, K.guid, T.nid, T.pid, T.tid, E.category, R.string AS region,
           S.display_name AS name, T.agent_id, T.agent_absolute_index, T.agent_logical_index,
           T.agent_type_index, T.agent_type, S.code_object_id, K.kernel_id, K.dispatch_id,
           T.queue_id, T.queue_name AS queue, T.stream_id, T.stream_name AS stream,
           K.start, K.end, (K.end - K.start) AS duration, K.event_id, K.track_id,
           K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
           K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y,
           K.workgroup_size_z AS workgroup_z,
           ((K.group_segment_size + 511) / 512) * 512 AS lds_block_size,
           K.private_segment_size AS scratch_size,
           S.group_segment_size AS static_lds_block_size,
           S.private_segment_size AS static_scratch_size,
           S.sgpr_count, S.arch_vgpr_count, S.accum_vgpr_count,
           E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
      FROM "rocpd_kernel_dispatch" K
      JOIN "tracks" T ON T.id = K.track_id AND T.guid = K.guid
      JOIN "events" E ON E.id = K.event_id AND E.guid = K.guid
      JOIN "rocpd_string" R ON R.id = K.region_name_id AND R.guid = K.guid
      JOIN "rocpd_info_kernel_symbol" S ON S.id = K.kernel_id AND S.guid = K.guid;

CREATE VIEW IF NOT EXISTS "memory_copies" AS
    SELECT M.id, M.guid, T.nid, T.pid, T.tid, E.id AS event_id, E.category,
           NS.string AS name, R.string AS region_name, M.start, M.end,
           (M.end - M.start) AS duration, T.queue_id, T.queue_name, T.stream_id, T.stream_name,
           M.size, DA.name AS dst_device, DA.id AS dst_agent_id,
           DA.type_index AS dst_agent_type_index, DA.type AS dst_agent_type, M.dst_address,
           SA.name AS src_device, SA.id AS src_agent_id,
           SA.type_index AS src_agent_type_index, SA.type AS src_agent_type, M.src_address,
           E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
      FROM "rocpd_memory_copy" M
      JOIN "events" E ON E.id = M.event_id AND E.guid = M.guid
      JOIN "tracks" T ON T.id = M.track_id AND T.guid = M.guid
      JOIN "rocpd_string" NS ON NS.id = M.name_id AND NS.guid = M.guid
      LEFT JOIN "rocpd_string" R ON R.id = M.region_name_id AND R.guid = M.guid
      JOIN "rocpd_info_agent" DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid
      JOIN "rocpd_info_agent" SA ON SA.id = M.src_agent_id AND SA.guid = M.guid;

CREATE VIEW IF NOT EXISTS "memory_allocations" AS
    SELECT M.id, M.guid, T.nid, T.pid, T.tid, E.id AS event_id, E.category,
           NS.string AS name, R.string AS region_name, M.start, M.end,
           (M.end - M.start) AS duration, T.queue_id, T.queue_name, T.stream_id, T.stream_name,
           M.size, M.type, M.level, T.agent_name, T.agent_type_index, T.agent_type, M.address,
           E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
      FROM "rocpd_memory_allocate" M
      JOIN "events" E ON E.id = M.event_id AND E.guid = M.guid
      JOIN "tracks" T ON T.id = M.track_id AND T.guid = M.guid
      JOIN "rocpd_string" NS ON NS.id = M.name_id AND NS.guid = M.guid
      LEFT JOIN "rocpd_string" R ON R.id = M.region_name_id AND R.guid = M.guid;

CREATE VIEW IF NOT EXISTS "pmc_events" AS
    SELECT PE.id, PE.guid, PE.pmc_id, PE.event_id, E.category_id, E.category, PI.name,
           PI.symbol, PI.qualifier, PE.value, PI.agent_id, PI.target_arch, PI.event_code,
           PI.instance_id, PI.component, PI.units, PI.value_type, PI.block, PI.expression,
           PI.is_constant, PI.is_derived, PI.description
      FROM "rocpd_pmc_event" PE
      JOIN "rocpd_info_pmc" PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
      JOIN "events" E ON E.id = PE.event_id AND E.guid = PE.guid;
