-- Nsight Systems SQLite export (`nsys export --type sqlite`), export schema 3.25.0.
--
-- The tables the extension reads (and the generator writes), with the columns nsys 2026.2 declares
-- for them, in declaration order; a real report holds many more tables (OS runtime, sampling,
-- metrics...). Written from the real export shared/data/nsys_h100_2gpu.sqlite (`.schema`) and
-- NVIDIA's Nsight Systems documentation; the text is this project's own.
--
-- Facts every reader needs:
--  * A table exists only when the report holds such events; none is required.
--  * Event tables have no key: rows are numbered by their rowid, in no guaranteed order (since
--    nsys 2025.6 not even by time).
--  * Names are ids into StringIds (kernel names, API names, registered NVTX strings).
--  * Processes and threads are serialized GlobalIds: PID = (globalTid >> 24) & 0xFFFFFF,
--    TID = globalTid & 0xFFFFFF; the bits above 48 hold hardware and VM ids. A globalPid is the
--    globalTid of the process with TID 0 (globalTid & 0xFFFFFFFFFF000000).
--  * correlationId pairs a GPU activity with the call that issued it, within one process only:
--    ids repeat across the processes of one report (nsys's reports join on correlationId AND
--    globalPid = globalTid & 0xFFFFFFFFFF000000).
--  * Times are integer ns on the capture host's clock; TARGET_INFO_SESSION_START_TIME anchors
--    them to UTC (utc = utcEpochNs - systemClockNs + t).
--  * Schema version in META_DATA_EXPORT: MAJOR = broad breaking change, MINOR = localized breaking
--    changes (renames), MICRO = additions only (nsys's export_schema_version_notes.txt).

-- Interned strings.
CREATE TABLE StringIds (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    value                       TEXT      NOT NULL
);

-- The export's metadata: EXPORT_SCHEMA_VERSION and its parts, the product version, the export's
-- parameters (EXPORT_HOST is the host that exported, not the one that captured).
CREATE TABLE META_DATA_EXPORT (
    name                        TEXT      NOT NULL,
    value                       TEXT
);
INSERT INTO META_DATA_EXPORT (name, value) VALUES
    ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),
    ('EXPORT_PRODUCT_VERSION', '2026.2.1.210'),
    ('EXPORT_SCHEMA_VERSION', '3.25.0'),
    ('EXPORT_SCHEMA_VERSION_MAJOR', '3'),
    ('EXPORT_SCHEMA_VERSION_MINOR', '25'),
    ('EXPORT_SCHEMA_VERSION_MICRO', '0'),
    ('EXPORT_PARAM_EXPORT_TYPE', 'SQLite');

-- The capture's parameters (same layout).
CREATE TABLE META_DATA_CAPTURE (
    name                        TEXT      NOT NULL,
    value                       TEXT
);

-- Properties of the capture target; name 'Hostname' is the captured host's name.
CREATE TABLE TARGET_INFO_SYSTEM_ENV (
    globalVid                   INTEGER,
    devStateName                TEXT      NOT NULL,
    name                        TEXT      NOT NULL,
    nameEnum                    INTEGER   NOT NULL,
    value                       TEXT      NOT NULL
);

-- The capture's start on the UTC and the target's clock.
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,
    utcTime                     TEXT,
    localTime                   TEXT,
    systemClockNs               INTEGER
);

-- Every process the report saw (with or without events).
CREATE TABLE PROCESSES (
    globalPid                   INTEGER,
    pid                         INTEGER,
    name                        TEXT
);

CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,   -- StringIds
    priority                    INTEGER,
    globalTid                   INTEGER
);

-- CUDA runtime and driver calls (and a few other classes). eventClass: ENUM_NSYS_EVENT_CLASS
-- (0 runtime, 1 driver). nameId: the function's name with its version suffix
-- ('cudaLaunchKernel_v7000', 'cuLaunchKernel').
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    eventClass                  INTEGER   NOT NULL,
    globalTid                   INTEGER,
    correlationId               INTEGER,
    nameId                      INTEGER   NOT NULL,   -- StringIds
    returnValue                 INTEGER   NOT NULL,
    callchainId                 INTEGER
);

-- Kernel executions. Names: demangledName (with templates, nsys's demangler), shortName (the
-- base name), mangledName (as compiled; NULL when not recorded), all StringIds. grid*: blocks;
-- block*: threads per block; shared memory and local memory in bytes; graphId 0 or NULL unless
-- launched from a graph.
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    demangledName               INTEGER   NOT NULL,
    shortName                   INTEGER   NOT NULL,
    mangledName                 INTEGER,
    launchType                  INTEGER,              -- ENUM_CUDA_KERNEL_LAUNCH_TYPE
    cacheConfig                 INTEGER,
    registersPerThread          INTEGER   NOT NULL,
    gridX                       INTEGER   NOT NULL,
    gridY                       INTEGER   NOT NULL,
    gridZ                       INTEGER   NOT NULL,
    blockX                      INTEGER   NOT NULL,
    blockY                      INTEGER   NOT NULL,
    blockZ                      INTEGER   NOT NULL,
    staticSharedMemory          INTEGER   NOT NULL,
    dynamicSharedMemory         INTEGER   NOT NULL,
    localMemoryPerThread        INTEGER   NOT NULL,
    localMemoryTotal            INTEGER   NOT NULL,
    gridId                      INTEGER   NOT NULL,
    sharedMemoryExecuted        INTEGER,
    graphNodeId                 INTEGER,
    sharedMemoryLimitConfig     INTEGER,
    qmdBulkReleaseDone          INTEGER,
    qmdPreexitDone              INTEGER,
    qmdLastCtaDone              INTEGER,
    graphId                     INTEGER,
    clusterX                    INTEGER,
    clusterY                    INTEGER,
    clusterZ                    INTEGER,
    clusterSchedulingPolicy     INTEGER,
    maxPotentialClusterSize     INTEGER,
    maxActiveClusters           INTEGER,
    sharedMemoryRequestedPercentage   INTEGER,
    tensorSizeMinusOneElements  TEXT      NOT NULL
);

-- Memory copies. copyKind: ENUM_CUDA_MEMCPY_OPER (the direction); srcKind/dstKind:
-- ENUM_CUDA_MEM_KIND (the memory at each end); src/dstDeviceId NULL unless recorded (peer copies).
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    bytes                       INTEGER   NOT NULL,
    copyKind                    INTEGER   NOT NULL,
    deprecatedSrcId             INTEGER,
    srcKind                     INTEGER,
    dstKind                     INTEGER,
    srcDeviceId                 INTEGER,
    srcContextId                INTEGER,
    dstDeviceId                 INTEGER,
    dstContextId                INTEGER,
    migrationCause              INTEGER,
    graphNodeId                 INTEGER,
    virtualAddress              INTEGER,
    copyCount                   INTEGER
);

-- Memory sets: bytes set to value; memKind ENUM_CUDA_MEM_KIND.
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    value                       INTEGER   NOT NULL,
    bytes                       INTEGER   NOT NULL,
    graphNodeId                 INTEGER,
    memKind                     INTEGER
);

-- NVTX events. eventType: ENUM_NSYS_EVENT_TYPE (34 mark, 59 push/pop range, 60 start/end range,
-- 33 category and 75 domain registrations). The text is `text`, or a registered string
-- (textId into StringIds). end is NULL for marks; a start/end range may end on another thread
-- (endGlobalTid).
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,
    end                         INTEGER,
    eventType                   INTEGER   NOT NULL,
    rangeId                     INTEGER,
    category                    INTEGER,
    color                       INTEGER,
    text                        TEXT,
    globalTid                   INTEGER,
    endGlobalTid                INTEGER,
    textId                      INTEGER,
    domainId                    INTEGER,
    uint64Value                 INTEGER,
    int64Value                  INTEGER,
    doubleValue                 REAL,
    uint32Value                 INTEGER,
    int32Value                  INTEGER,
    floatValue                  REAL,
    jsonTextId                  INTEGER,
    jsonText                    TEXT,
    binaryData                  TEXT
);

-- Enumerations: id, symbol name, label. Only the values the extension reads are listed.
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES
    (33, 'NvtxCategory', 'NvtxCategory'),
    (34, 'NvtxMark', 'NvtxMark'),
    (59, 'NvtxPushPopRange', 'NvtxPushPopRange'),
    (60, 'NvtxStartEndRange', 'NvtxStartEndRange'),
    (75, 'NvtxDomainCreate', 'NvtxDomainCreate');

CREATE TABLE ENUM_NSYS_EVENT_CLASS (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES
    (0, 'TRACE_PROCESS_EVENT_CUDA_RUNTIME', 'CUDA runtime'),
    (1, 'TRACE_PROCESS_EVENT_CUDA_DRIVER', 'CUDA driver'),
    (13, 'TRACE_PROCESS_EVENT_CUDA_EGL_DRIVER', 'CUDA EGL driver');

CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES
    (0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown'),
    (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),
    (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'),
    (3, 'CUDA_MEMCPY_KIND_HTOA', 'Host-to-Array'),
    (4, 'CUDA_MEMCPY_KIND_ATOH', 'Array-to-Host'),
    (5, 'CUDA_MEMCPY_KIND_ATOA', 'Array-to-Array'),
    (6, 'CUDA_MEMCPY_KIND_ATOD', 'Array-to-Device'),
    (7, 'CUDA_MEMCPY_KIND_DTOA', 'Device-to-Array'),
    (8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device'),
    (9, 'CUDA_MEMCPY_KIND_HTOH', 'Host-to-Host'),
    (10, 'CUDA_MEMCPY_KIND_PTOP', 'Peer-to-Peer'),
    (11, 'CUDA_MEMCPY_KIND_UVM_HTOD', 'Unified Host-to-Device'),
    (12, 'CUDA_MEMCPY_KIND_UVM_DTOH', 'Unified Device-to-Host'),
    (13, 'CUDA_MEMCPY_KIND_UVM_DTOD', 'Unified Device-to-Device');

CREATE TABLE ENUM_CUDA_MEM_KIND (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES
    (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
    (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),
    (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),
    (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'),
    (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),
    (5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC', 'Device Static'),
    (6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC', 'Managed Static'),
    (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');

CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
INSERT INTO ENUM_CUDA_KERNEL_LAUNCH_TYPE VALUES
    (0, 'CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN', 'Unknown'),
    (1, 'CUDA_KERNEL_LAUNCH_TYPE_REGULAR', 'Regular'),
    (2, 'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE', 'Coop Single Device'),
    (3, 'CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE', 'Coop Multi Device');

-- CUPTI's synchronization records: the host waiting (cudaStreamSynchronize: syncType 3,
-- cudaEventSynchronize: 1, cudaDeviceSynchronize / context: 4) or a stream told to wait for an
-- event (cudaStreamWaitEvent: 2). correlationId is the synchronizing call's; the record names its
-- process (globalPid), not its thread. deprecatedSyncType holds the pre-2025 numbering.
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    deprecatedSyncType          INTEGER,
    syncType                    INTEGER   NOT NULL,   -- ENUM_CUPTI_SYNC_TYPE
    eventId                     INTEGER,
    eventSyncId                 INTEGER
);

CREATE TABLE ENUM_CUPTI_SYNC_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES
    (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', 'Unknown'),
    (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),
    (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'),
    (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'),
    (4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');

-- The GPUs of the target (written when the report records them): `id` is the number the event
-- tables' deviceId holds, `cuDevice` the CUDA ordinal; a subset of the columns nsys declares.
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,
    id                          INTEGER   NOT NULL,
    name                        TEXT,
    busLocation                 TEXT,
    totalMemory                 INTEGER,
    smCount                     INTEGER,
    uuid                        TEXT,
    chipName                    TEXT,
    cuDevice                    INTEGER,
    computeMajor                INTEGER,
    computeMinor                INTEGER
);
