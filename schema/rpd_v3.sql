-- rpd (rocmProfileData) trace database, schema version 3.
--
-- What current rpd tracers write: v2 without the barrier/signal/code-object tables, plus
-- rocpd_ustring (API arguments and roctx messages, one row per occurrence: not deduplicated) and
-- the API columns category_id/domain_id. Multi-node merges encode node*gpu_stride+gpu in gpuId and
-- node*pid_stride+pid in pid (metadata tags gpu_stride, pid_stride). Names, declared types and
-- view semantics follow the upstream schema; the text is this project's own.
--
-- Id spaces: every process that appends to one file is a "session"; its rows use ids offset by
-- session << 32 and its strings are interned again in its own id range.

CREATE TABLE IF NOT EXISTS "rocpd_metadata" (
    "id"    integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "tag"   varchar(4096) NOT NULL,
    "value" varchar(4096) NOT NULL
);

-- Interned names: kernel names, op types, API names, domains, categories. Id 1 is ''.
CREATE TABLE IF NOT EXISTS "rocpd_string" (
    "id"     integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "string" varchar(4096) NOT NULL
);

-- Unique (not interned) strings: API arguments and marker messages. Id 1 is ''.
CREATE TABLE IF NOT EXISTS "rocpd_ustring" (
    "id"     integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "string" varchar(4096) NOT NULL
);

-- CPU-side calls. domain: 'hip' for HIP calls, 'UserMarker' for roctx markers; category is ''
-- as the tracer writes it; args point into rocpd_ustring.
CREATE TABLE IF NOT EXISTS "rocpd_api" (
    "id"          integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "pid"         integer NOT NULL,
    "tid"         integer NOT NULL,
    "start"       integer NOT NULL,
    "end"         integer NOT NULL,
    "apiName_id"  bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED,
    "category_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED,
    "domain_id"   bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED,
    "args_id"     bigint NOT NULL REFERENCES "rocpd_ustring" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Copy parameters per memcpy API call (keyed by rocpd_api.id).
CREATE TABLE IF NOT EXISTS "rocpd_copyapi" (
    "api_ptr_id" bigint NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
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

-- Launch parameters per kernel-launching API call (keyed by rocpd_api.id).
CREATE TABLE IF NOT EXISTS "rocpd_kernelapi" (
    "api_ptr_id"         bigint NOT NULL PRIMARY KEY REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
    "stream"             varchar(18) NOT NULL,
    "gridX"              integer NOT NULL,
    "gridY"              integer NOT NULL,
    "gridZ"              integer NOT NULL,
    "workgroupX"         integer NOT NULL,
    "workgroupY"         integer NOT NULL,
    "workgroupZ"         integer NOT NULL,
    "groupSegmentSize"   integer NOT NULL,
    "privateSegmentSize" integer NOT NULL,
    "kernelName_id"      bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- GPU activity: description is the kernel name ('' for copies), opType the activity.
CREATE TABLE IF NOT EXISTS "rocpd_op" (
    "id"             integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "gpuId"          integer NOT NULL,
    "queueId"        integer NOT NULL,
    "sequenceId"     integer NOT NULL,
    "start"          integer NOT NULL,
    "end"            integer NOT NULL,
    "description_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED,
    "opType_id"      bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Which API call issued which op.
CREATE TABLE IF NOT EXISTS "rocpd_api_ops" (
    "id"     integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "api_id" bigint NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
    "op_id"  bigint NOT NULL REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Sampled device state as value-change intervals. deviceId is the SMI index.
CREATE TABLE IF NOT EXISTS "rocpd_monitor" (
    "id"          integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "deviceType"  varchar(16) NOT NULL,
    "deviceId"    integer NOT NULL,
    "monitorType" varchar(16) NOT NULL,
    "start"       integer NOT NULL,
    "end"         integer NOT NULL,
    "value"       varchar(255) NOT NULL
);

-- Hardware counter values per op.
CREATE TABLE IF NOT EXISTS "rocpd_counter" (
    "id"      integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "value"   real NOT NULL,
    "op_id"   bigint NOT NULL REFERENCES "rocpd_op" ("id") DEFERRABLE INITIALLY DEFERRED,
    "name_id" bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

-- Host call stacks of API calls, one row per frame.
CREATE TABLE IF NOT EXISTS "rocpd_stackframe" (
    "id"         integer NOT NULL PRIMARY KEY AUTOINCREMENT,
    "api_ptr_id" bigint NOT NULL REFERENCES "rocpd_api" ("id") DEFERRABLE INITIALLY DEFERRED,
    "depth"      integer NOT NULL,
    "name_id"    bigint NOT NULL REFERENCES "rocpd_string" ("id") DEFERRABLE INITIALLY DEFERRED
);

INSERT INTO "rocpd_metadata" ("tag", "value") VALUES ('gpu_stride', '1000');
INSERT INTO "rocpd_metadata" ("tag", "value") VALUES ('pid_stride', '10000000');
INSERT INTO "rocpd_metadata" ("tag", "value") VALUES ('schema_version', '3');

CREATE INDEX "rocpd_strin_string_c7b9cd_idx" ON "rocpd_string" ("string");
CREATE INDEX "rocpd_ustri_string_84d4a7_idx" ON "rocpd_ustring" ("string");

-- ---------------------------------------------------------------------------------------------
-- Upstream convenience views, reproduced with their semantics (defects included, see
-- shared/formats.md). v3 has no ktop; top reports microseconds in *_us columns.

CREATE VIEW api AS
    SELECT rocpd_api.id, pid, tid, start, end,
           D.string AS domain, C.string AS category, N.string AS apiName, A.string AS args
      FROM rocpd_api
      JOIN rocpd_string D ON D.id = rocpd_api.domain_id
      JOIN rocpd_string C ON C.id = rocpd_api.category_id
      JOIN rocpd_string N ON N.id = rocpd_api.apiName_id
      JOIN rocpd_ustring A ON A.id = rocpd_api.args_id;

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

-- Ops by name; the inner UNION collapses rows with equal (name, start, end), the denominator does not.
CREATE VIEW top AS
    SELECT S.string AS Name,
           count(S.string) AS TotalCalls,
           sum(O.end - O.start) / 1000 AS TotalDuration_us,
           (sum(O.end - O.start) / count(S.string)) / 1000.0 AS Ave_us,
           sum(O.end - O.start) * 100.0 / (SELECT sum(O2.end - O2.start) FROM rocpd_op O2) AS Percentage
      FROM (SELECT opType_id AS name_id, start, end FROM rocpd_op
             WHERE description_id IN (SELECT id FROM rocpd_string WHERE string = '')
            UNION
            SELECT description_id, start, end FROM rocpd_op
             WHERE description_id NOT IN (SELECT id FROM rocpd_string WHERE string = '')) O
      JOIN rocpd_string S ON S.id = O.name_id
     GROUP BY Name
     ORDER BY TotalDuration_us DESC;

CREATE VIEW kernel AS
    SELECT O.id, gpuId, queueId, sequenceId, start, end, (end - start) AS duration, stream,
           gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ,
           groupSegmentSize, privateSegmentSize, S.string AS kernelName
      FROM rocpd_api_ops L
      JOIN rocpd_op O ON O.id = L.op_id
      JOIN rocpd_kernelapi K ON K.api_ptr_id = L.api_id
      JOIN rocpd_string S ON S.id = K.kernelName_id;

CREATE VIEW copy AS
    SELECT A.id, pid, tid, start, end, N.string AS apiName, stream, size, width, height, kind,
           dst, src, dstDevice, srcDevice, sync, pinned
      FROM rocpd_copyapi C
      JOIN rocpd_api A ON A.id = C.api_ptr_id
      JOIN rocpd_string N ON N.id = A.apiName_id;

CREATE VIEW copyop AS
    SELECT O.id, gpuId, queueId, sequenceId, O.start, O.end, (O.end - O.start) AS duration, stream,
           size, width, height, kind, dst, src, dstDevice, srcDevice, sync, pinned,
           N.string AS apiName
      FROM rocpd_api_ops L
      JOIN rocpd_op O ON O.id = L.op_id
      JOIN rocpd_copyapi C ON C.api_ptr_id = L.api_id
      JOIN rocpd_api A ON A.id = L.api_id
      JOIN rocpd_string N ON N.id = A.apiName_id;

CREATE VIEW stackframe AS
    SELECT A.id, N.string, depth, F.string
      FROM rocpd_stackframe SF
      JOIN rocpd_api A ON A.id = SF.api_ptr_id
      JOIN rocpd_string N ON N.id = A.apiName_id
      JOIN rocpd_string F ON F.id = SF.name_id;

-- Multi-node forms: split node from pid/tid and gpuId/queueId with the metadata strides.
CREATE VIEW napi AS
    SELECT rocpd_api.id,
           pid / (SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride') AS node,
           pid % (SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride') AS pid,
           tid % (SELECT value FROM rocpd_metadata WHERE tag = 'pid_stride') AS tid,
           start, end,
           D.string AS domain, C.string AS category, N.string AS apiName, A.string AS args
      FROM rocpd_api
      JOIN rocpd_string D ON D.id = rocpd_api.domain_id
      JOIN rocpd_string C ON C.id = rocpd_api.category_id
      JOIN rocpd_string N ON N.id = rocpd_api.apiName_id
      JOIN rocpd_ustring A ON A.id = rocpd_api.args_id;

CREATE VIEW nop AS
    SELECT rocpd_op.id,
           gpuId / (SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride') AS node,
           gpuId % (SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride') AS gpuId,
           queueId % (SELECT value FROM rocpd_metadata WHERE tag = 'gpu_stride') AS queueId,
           sequenceId, start, end, D.string AS description, T.string AS opType
      FROM rocpd_op
      JOIN rocpd_string D ON D.id = rocpd_op.description_id
      JOIN rocpd_string T ON T.id = rocpd_op.opType_id;
