-- rpd (rocmProfileData) trace database, schema version 2.
--
-- The layout every public rpd sample (e.g. shared/data/matmul_result.rpd) carries: the tables the
-- tracer fills, the single index on interned strings, and the convenience views of the upstream
-- utility schema. Table and column names, declared types and view semantics follow the files the
-- tracer writes; the text is this project's own. Columns the tracer leaves unset hold '' (the
-- tracer binds empty text to them), which is why several integer columns are declared NOT NULL and
-- still contain text.
--
-- Id spaces: every process that appends to one file is a "session"; its rows use ids offset by
-- session << 32 and its strings are interned again in its own id range.

-- Interned strings: kernel names, op types, API names and (v2 only) API arguments/marker messages.
-- Id 1 of each session is the empty string.
CREATE TABLE IF NOT EXISTS "rocpd_string" (
    "id"     integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "string" varchar(4096) NOT NULL
);

-- Free-form key/value facts: schema_version, session_count.
CREATE TABLE IF NOT EXISTS "rocpd_metadata" (
    "id"    integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tag"   varchar(4096) NOT NULL,
    "value" varchar(4096) NOT NULL
);

-- Code objects of launched kernels (registers per kernel); usually empty.
CREATE TABLE IF NOT EXISTS "rocpd_kernelcodeobject" (
    "id"   integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "vgpr" integer NOT NULL,
    "sgpr" integer NOT NULL,
    "fbar" integer NOT NULL
);

-- CPU-side calls: HIP API calls and roctx markers (apiName 'UserMarker', message in args).
CREATE TABLE IF NOT EXISTS "rocpd_api" (
    "id"         integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "pid"        integer NOT NULL,
    "tid"        integer NOT NULL,
    "start"      integer NOT NULL,
    "end"        integer NOT NULL,
    "apiName_id" integer NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED,
    "args_id"    integer NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- GPU activity. description is the kernel name ('' for copies and barriers); opType names the
-- activity (KernelExecution, CopyHostToDevice, ...). completionSignal exists in v2 only.
CREATE TABLE IF NOT EXISTS "rocpd_op" (
    "id"               integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "gpuId"            integer NOT NULL,
    "queueId"          integer NOT NULL,
    "sequenceId"       integer NOT NULL,
    "completionSignal" varchar(18) NOT NULL,
    "start"            integer NOT NULL,
    "end"              integer NOT NULL,
    "description_id"   integer NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED,
    "opType_id"        integer NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Which API call issued which op (launch -> kernel, memcpy -> copy).
CREATE TABLE IF NOT EXISTS "rocpd_api_ops" (
    "id"     integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "api_id" integer NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
    "op_id"  integer NOT NULL REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Launch parameters, one row per kernel-launching API call (keyed by rocpd_api.id).
CREATE TABLE IF NOT EXISTS "rocpd_kernelapi" (
    "api_ptr_id"         integer NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
    "stream"             varchar(18) NOT NULL,
    "gridX"              integer NOT NULL,
    "gridY"              integer NOT NULL,
    "gridZ"              integer NOT NULL,
    "workgroupX"         integer NOT NULL,
    "workgroupY"         integer NOT NULL,
    "workgroupZ"         integer NOT NULL,
    "groupSegmentSize"   integer NOT NULL,
    "privateSegmentSize" integer NOT NULL,
    "kernelArgAddress"   varchar(18) NOT NULL,
    "aquireFence"        varchar(8) NOT NULL,
    "releaseFence"       varchar(8) NOT NULL,
    "codeObject_id"      integer NOT NULL REFERENCES "rocpd_kernelcodeobject" ("id") DEFERRABLE INITIALLY DEFERRED,
    "kernelName_id"      integer NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Copy parameters, one row per memcpy API call (keyed by rocpd_api.id). kind is hipMemcpyKind.
CREATE TABLE IF NOT EXISTS "rocpd_copyapi" (
    "api_ptr_id" integer NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
    "stream"     varchar(18) NOT NULL,
    "size"       integer NOT NULL,
    "width"      integer NOT NULL,
    "height"     integer NOT NULL,
    "kind"       integer NOT NULL,
    "dst"        varchar(18) NOT NULL,
    "src"        varchar(18) NOT NULL,
    "dstDevice"  integer NOT NULL,
    "srcDevice"  integer NOT NULL,
    "sync"       bool NOT NULL,
    "pinned"     bool NOT NULL
);

-- v2 only: barrier packets and the signals ops wait on.
CREATE TABLE IF NOT EXISTS "rocpd_barrierop" (
    "op_ptr_id"    integer NOT NULL PRIMARY KEY REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED,
    "signalCount"  integer NOT NULL,
    "aquireFence"  varchar(8) NOT NULL,
    "releaseFence" varchar(8) NOT NULL
);
CREATE TABLE IF NOT EXISTS "rocpd_op_inputSignals" (
    "id"         integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "from_op_id" integer NOT NULL REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED,
    "to_op_id"   integer NOT NULL REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Sampled device state (clocks, power) as value-change intervals. deviceId is the SMI index.
CREATE TABLE IF NOT EXISTS "rocpd_monitor" (
    "id"          integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "deviceType"  varchar(16) NOT NULL,
    "deviceId"    integer NOT NULL,
    "monitorType" varchar(16) NOT NULL,
    "start"       integer NOT NULL,
    "end"         integer NOT NULL,
    "value"       varchar(255) NOT NULL
);

CREATE INDEX "rocpd_strin_string_c7b9cd_idx" ON "rocpd_string" ("string");

INSERT INTO "rocpd_metadata" ("tag", "value") VALUES ('schema_version', '2');

-- ---------------------------------------------------------------------------------------------
-- Upstream convenience views. Their numbers are what users of rpd files are used to, including
-- the defects documented in shared/formats.md; they are reproduced, not corrected.

-- API calls with their names resolved.
CREATE VIEW api AS
    SELECT rocpd_api.id, pid, tid, start, end, N.string AS apiName, A.string AS args
      FROM rocpd_api
      JOIN rocpd_string N ON N.id = rocpd_api.apiName_id
      JOIN rocpd_string A ON A.id = rocpd_api.args_id;

-- Ops with their names resolved.
CREATE VIEW op AS
    SELECT rocpd_op.id, gpuId, queueId, sequenceId, start, end,
           D.string AS description, T.string AS opType
      FROM rocpd_op
      JOIN rocpd_string D ON D.id = rocpd_op.description_id
      JOIN rocpd_string T ON T.id = rocpd_op.opType_id;

-- Per-gpu summed op time over one wall time spanning all gpus (overlapping ops counted twice).
CREATE VIEW busy AS
    SELECT G.gpuId, GpuTime, WallTime, GpuTime * 1.0 / WallTime AS Busy
      FROM (SELECT gpuId, sum(end - start) AS GpuTime FROM rocpd_op GROUP BY gpuId) G
      JOIN (SELECT max(end) - min(start) AS WallTime FROM rocpd_op);

-- Kernels by summed host launch-call duration (not GPU time), microseconds by integer division.
CREATE VIEW ktop AS
    SELECT S.string AS Name,
           count(S.string) AS TotalCalls,
           sum(A.end - A.start) / 1000 AS TotalDuration,
           (sum(A.end - A.start) / count(S.string)) / 1000 AS Ave,
           sum(A.end - A.start) * 100.0
               / (SELECT sum(A2.end - A2.start)
                    FROM rocpd_api A2 JOIN rocpd_kernelapi K2 ON K2.api_ptr_id = A2.id) AS Percentage
      FROM rocpd_api A
      JOIN rocpd_kernelapi K ON K.api_ptr_id = A.id
      JOIN rocpd_string S ON S.id = K.kernelName_id
     GROUP BY Name
     ORDER BY TotalDuration DESC;

-- Ops named by description (or by opType when the description is empty). The inner set is a
-- UNION, so rows with equal (name, start, end) collapse into one while the denominator keeps them.
CREATE VIEW top AS
    SELECT S.string AS Name,
           count(S.string) AS TotalCalls,
           sum(O.end - O.start) / 1000 AS TotalDuration,
           (sum(O.end - O.start) / count(S.string)) / 1000 AS Ave,
           sum(O.end - O.start) * 100.0 / (SELECT sum(O2.end - O2.start) FROM rocpd_op O2) AS Percentage
      FROM (SELECT opType_id AS name_id, start, end FROM rocpd_op
             WHERE description_id IN (SELECT id FROM rocpd_string WHERE string = '')
            UNION
            SELECT description_id, start, end FROM rocpd_op
             WHERE description_id NOT IN (SELECT id FROM rocpd_string WHERE string = '')) O
      JOIN rocpd_string S ON S.id = O.name_id
     GROUP BY Name
     ORDER BY TotalDuration DESC;

-- Kernel ops with the launch parameters of the call that issued them.
CREATE VIEW kernel AS
    SELECT O.id, gpuId, queueId, sequenceId, start, end, (end - start) AS duration, stream,
           gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ,
           groupSegmentSize, privateSegmentSize, S.string AS kernelName
      FROM rocpd_api_ops L
      JOIN rocpd_op O ON O.id = L.op_id
      JOIN rocpd_kernelapi K ON K.api_ptr_id = L.api_id
      JOIN rocpd_string S ON S.id = K.kernelName_id;

-- Copy API calls (host timing) with their parameters.
CREATE VIEW copy AS
    SELECT A.id, pid, tid, start, end, N.string AS apiName, stream, size, width, height, kind,
           dst, src, dstDevice, srcDevice, sync, pinned
      FROM rocpd_copyapi C
      JOIN rocpd_api A ON A.id = C.api_ptr_id
      JOIN rocpd_string N ON N.id = A.apiName_id;

-- Copy ops (GPU timing) with the parameters of the call that issued them.
CREATE VIEW copyop AS
    SELECT O.id, gpuId, queueId, sequenceId, O.start, O.end, (O.end - O.start) AS duration, stream,
           size, width, height, kind, dst, src, dstDevice, srcDevice, sync, pinned,
           N.string AS apiName
      FROM rocpd_api_ops L
      JOIN rocpd_op O ON O.id = L.op_id
      JOIN rocpd_copyapi C ON C.api_ptr_id = L.api_id
      JOIN rocpd_api A ON A.id = L.api_id
      JOIN rocpd_string N ON N.id = A.apiName_id;
