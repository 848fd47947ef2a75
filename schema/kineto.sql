-- PyTorch profiler (Kineto) Chrome-trace JSON, as rocpd_ext stores it (layout version 1).
--
-- Kineto writes JSON, not a database: rocpd_open converts a .json / .json.gz trace into these
-- tables in a temporary file, rocpd_import(src, dst) into a file of the user's
-- (ext/formats/kineto_import.cpp); the kineto adapter (ext/formats/kineto.cpp) reads them as
-- the canonical tables. This text is embedded into the library and creates the tables, so it
-- is the layout itself, not a copy of it.
--
-- Times: integer ns. A trace with `baseTimeNanoseconds` (PyTorch 2.x) writes `ts` in µs
-- relative to it; older traces write absolute µs. Either way ns = base + ts * 1000, computed
-- from the number's decimal text (three decimals are ns; further digits are rounded, halves
-- away from zero), never through a double. `end` = start + dur * 1000.
-- Ids: `id` numbers the rows of each table in file order; `event` is the element's position
-- in traceEvents (0-based), the same numbering for every table.
-- pid / tid: as written; columns declared INTEGER keep text that is no number as text ("Spans").
-- X events whose pid is not an integer (the profiler's own "Spans" rows) go to kineto_other.

-- Top-level keys of the JSON object other than traceEvents (schemaVersion, baseTimeNanoseconds,
-- displayTimeUnit, traceName, distributedInfo, deviceProperties, ...): scalars as values,
-- objects and arrays as compact JSON text. Added by the import: layout_version (1), rank,
-- world_size and backend (from distributedInfo), events (elements of traceEvents), main_pid (the
-- pid with most calls), duplicate_correlations (calls that lost a correlation id another call
-- had first), counter_ranges (how cuda_profiler_range events were matched); each as import.<name>.
CREATE TABLE kineto_metadata (
    id    INTEGER PRIMARY KEY,
    tag   TEXT NOT NULL UNIQUE,
    value
);

-- Names and categories (interned; the same text may appear under more than one id).
CREATE TABLE kineto_strings (
    id     INTEGER PRIMARY KEY,
    string TEXT NOT NULL
);

-- deviceProperties, one row per element (its `id` is the device number).
CREATE TABLE kineto_devices (
    id         INTEGER PRIMARY KEY,
    device     INTEGER,
    name       TEXT,
    properties TEXT
);

-- GPU work: X events of category kernel ('kernel'), gpu_memcpy ('copy') and gpu_memset
-- ('fill'); and cuda_profiler_range events when the trace holds no kernel events (CUPTI's range
-- profiler records each kernel only as its range).
CREATE TABLE kineto_ops (
    id            INTEGER PRIMARY KEY,
    event         INTEGER NOT NULL,
    kind          TEXT NOT NULL,     -- kernel | copy | fill
    cat_id        INTEGER,           -- kineto_strings
    name_id       INTEGER,           -- kineto_strings
    pid           INTEGER,           -- the process whose call launched it; NULL: the main one (import.main_pid)
    event_pid     INTEGER,           -- as written (Kineto: the device)
    event_tid     INTEGER,           -- as written (Kineto: the stream)
    gpu           INTEGER,           -- args.device, else the event's pid
    stream        INTEGER,           -- args.stream, else the event's tid
    start         INTEGER,
    "end"         INTEGER,
    correlation   INTEGER,           -- args.correlation (or the launch flow's, see kineto_flows)
    external_id   INTEGER,           -- args."External id": the cpu_op that launched it
    grid_x        INTEGER, grid_y INTEGER, grid_z INTEGER,      -- args.grid (blocks)
    block_x       INTEGER, block_y INTEGER, block_z INTEGER,    -- args.block (threads per block)
    registers     INTEGER,           -- args."registers per thread"
    shared_memory INTEGER,           -- args."shared memory" (bytes)
    bytes         INTEGER,           -- args.bytes (copies, fills)
    args          TEXT               -- the args object as compact JSON
);

-- CPU-side X events: runtime and driver calls, operators (cpu_op), annotations, python
-- functions, ...; and the GPU-side annotations (gpu_user_annotation) and syncs (cuda_sync).
-- domain: 'cuda' / 'hip' (cuda_runtime, by the call's name), 'cuda_driver', 'marker' (cpu_op,
-- user_annotation: ranges), 'gpu_annotation' (gpu_user_annotation), else the category.
CREATE TABLE kineto_calls (
    id          INTEGER PRIMARY KEY,
    event       INTEGER NOT NULL,
    domain      TEXT,
    cat_id      INTEGER,
    name_id     INTEGER,
    pid         INTEGER,             -- as written (GPU-side rows: the device)
    tid         INTEGER,             -- as written; NULL when written as text
    start       INTEGER,
    "end"       INTEGER,
    correlation INTEGER,             -- runtime / driver calls; unique (see duplicate_correlations)
    external_id INTEGER,
    args        TEXT
);

-- cuda_profiler_range X events: one per kernel CUPTI's range profiler measured, counter
-- values in args, no correlation id. launch: the kineto_calls row matched to it (the i-th
-- cudaLaunchKernel call to the i-th range, as HTA does); op: its kineto_ops row.
CREATE TABLE kineto_profiler_ranges (
    id      INTEGER PRIMARY KEY,
    event   INTEGER NOT NULL,
    name_id INTEGER,
    pid     INTEGER,
    tid     INTEGER,
    start   INTEGER,
    "end"   INTEGER,
    args    TEXT,
    launch  INTEGER,
    op      INTEGER
);

-- Counter events (ph "C"): hardware_counters samples (CUPTI PM sampling: pid "GPU <n> Counters",
-- one counter per event, value in args[""]) and other counter tracks.
CREATE TABLE kineto_counter_events (
    id      INTEGER PRIMARY KEY,
    event   INTEGER NOT NULL,
    cat_id  INTEGER,
    name_id INTEGER,
    pid     INTEGER,                    -- as written (integer, or text such as "GPU 0 Counters")
    tid     INTEGER,
    ts      INTEGER,
    args    TEXT
);

-- Every counter value: per kernel (a profiler range's args, op = its kernel) or a sample.
CREATE TABLE kineto_counters (
    id         INTEGER PRIMARY KEY,
    op         INTEGER,               -- kineto_ops.id; NULL for samples and unmatched ranges
    range_id   INTEGER,               -- kineto_profiler_ranges.id
    sample_id  INTEGER,               -- kineto_counter_events.id
    gpu        INTEGER,
    counter    TEXT,                  -- the args key (samples: the event's name when the key is "")
    value,                            -- integer or real, as written
    start      INTEGER,
    "end"      INTEGER
);

-- Flow events (ph s / t / f): ac2g (launch -> GPU work; some writers: async_cpu_to_gpu),
-- fwdbwd, ... flow_id is the JSON `id`; a flow point binds to the X event of its pid and tid
-- that starts at its ts.
CREATE TABLE kineto_flows (
    id      INTEGER PRIMARY KEY,
    event   INTEGER NOT NULL,
    ph      TEXT,
    flow_id INTEGER,
    cat_id  INTEGER,
    name_id INTEGER,
    pid     INTEGER,
    tid     INTEGER,
    ts      INTEGER,
    bp      TEXT
);

-- Metadata events (ph M): process_name, process_labels, thread_name, *_sort_index; value is
-- args.name, args.labels or args.sort_index.
CREATE TABLE kineto_labels (
    id    INTEGER PRIMARY KEY,
    event INTEGER NOT NULL,
    name  TEXT,
    pid   INTEGER,
    tid   INTEGER,
    value
);

-- Every other event: instants (ph i), events with a non-integer pid, phases not listed above.
CREATE TABLE kineto_other (
    id      INTEGER PRIMARY KEY,
    event   INTEGER NOT NULL,
    ph      TEXT,
    cat_id  INTEGER,
    name_id INTEGER,
    pid     INTEGER,
    tid     INTEGER,
    start   INTEGER,
    "end"   INTEGER,
    args    TEXT
);
