-- rocpd_ext demo: runs from any directory and reads or writes no file. It builds a small 8-rank
-- training job in memory, one rpd database per rank ATTACHed as rank0 .. rank7 (the layout the ROCm
-- tracer writes: kernels and copies, the HIP calls that launched them, roctx ranges around the
-- training phases; rank5 runs its GEMMs 30 % slower), then analyses it as it would analyse trace
-- files. With the extension loaded:
--   sqlite3 -cmd ".load /usr/local/lib/librocpd_ext" :memory: ".read /usr/local/share/rocpd_ext/sql/demo.sql"
-- (`cmake --build build --target demo` runs it from the build tree). On traces of your own, open
-- them instead of building the job: SELECT rocpd_open('path'), a file, a directory or a glob such
-- as 'out/*/*.db'.
.headers on
.mode box

-- The job (deterministic: the same numbers on every run) ---------------------------------------
-- Strings as rpd interns them: op types, API names, the roctx ranges' messages and kernel names as
-- GPU traces record them (a Tensile GEMM, a Composable Kernel GEMM and an elementwise kernel
-- mangled, RCCL's all-reduce).
CREATE TEMP TABLE demo_strings(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
INSERT INTO temp.demo_strings VALUES
  (1, ''), (2, 'KernelExecution'), (3, 'CopyHostToDevice'), (4, 'CopyDeviceToHost'),
  (5, 'hipLaunchKernel'), (6, 'hipMemcpyAsync'), (7, 'UserMarker'),
  (8, 'Cijk_Ailk_Bjlk_HHS_BH_MT64x64x64_MI16x16x4x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM8_AF1EM1_AMAS3_ASE_ASGT_ASAE01_ASCE01_ASEM8_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRVW8_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPP0_LPA0_LPB0_LDL1_LRVW8_LWPMn1_LDW0_FMA_MIAV0_MDA2_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR1_RK0_SIA1_SS0_SU32_SUM0_SUS256_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TT2_32_TLDS0_USFGROn1_VAW2_VSn1_VW4_WSGRA0_WSGRB0_WS64_WG32_4_1_WGM8'),
  (9, '_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_28GridwiseGemm_xdl_cshuffle_v3ILi256ELi128ELi128ELi64EEELb1ELNS_25InMemoryDataOperationEnumE0ELi1ELNS_10TailNumberE2EEEvNT_8ArgumentE'),
  (10, '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_'),
  (11, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),
  (12, 'forward'), (13, 'backward'), (14, 'optimizer.step');

-- Each rank: 20 iterations of 100 ops on its GPU. Per iteration (k = op within it): a host-to-device
-- copy of the batch (k = 0, after 2 ms of host work), forward (k 1-54: GEMMs and elementwise
-- kernels), backward (k 55-89: GEMMs, an all-reduce every tenth op), the optimizer step (k 90-98)
-- and a device-to-host copy of the loss (k = 99, overlapping the last kernel by 10 us). Durations
-- vary by a fixed pseudo-random amount; ops run one after another, 3 us apart, each launched 4-24 us
-- before it starts; an all-reduce, launched 40 us earlier, waits 30 us for its peers.
CREATE TEMP TABLE demo_ops AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999),
ranks(rank) AS (SELECT 0 UNION ALL SELECT rank + 1 FROM ranks WHERE rank < 7),
plan AS (
  SELECT rank, i, i / 100 AS it, i % 100 AS k,
         CASE WHEN i % 100 = 0 THEN 3 WHEN i % 100 = 99 THEN 4 ELSE 2 END AS type_id,
         CASE WHEN i % 100 IN (0, 99) THEN 1
              WHEN i % 100 >= 90 OR i % 3 = 0 THEN 10
              WHEN i % 100 >= 55 AND i % 10 = 9 THEN 11
              WHEN i % 2 = 0 THEN 9 ELSE 8 END AS name_id,
         900 + (i * 7919 + rank * 104729) % 200 AS jitter
  FROM ranks, n),
timed AS (
  SELECT *, CASE WHEN k = 0 THEN 2000000 WHEN k = 99 THEN -10000 WHEN name_id = 11 THEN 30000 ELSE 3000 END AS gap,
         4000 + (i * 31 + rank * 17) % 20000 + CASE WHEN name_id = 11 THEN 40000 ELSE 0 END AS latency,
         CAST(jitter * CASE WHEN name_id IN (8, 9) AND rank = 5 THEN 1.3 ELSE 1.0 END *
              CASE type_id WHEN 3 THEN 300 WHEN 4 THEN 20 ELSE
                CASE name_id WHEN 8 THEN 90 WHEN 9 THEN 120 WHEN 10 THEN 15 ELSE 240 END END AS INTEGER) AS duration
  FROM plan)
SELECT rank, i, it, k, type_id, name_id, latency,
       1000000000000 + rank * 3137 + sum(gap + duration) OVER w - duration AS start,
       1000000000000 + rank * 3137 + sum(gap + duration) OVER w AS "end"
FROM timed
WINDOW w AS (PARTITION BY rank ORDER BY i ROWS UNBOUNDED PRECEDING);

-- The HIP calls (api id = op id) and one roctx range per iteration and phase around its calls.
CREATE TEMP TABLE demo_apis AS
SELECT rank, i + 1 AS id, start - latency AS start, start - latency + 3000 AS "end",
       CASE WHEN type_id = 2 THEN 5 ELSE 6 END AS name_id, 1 AS args_id
FROM temp.demo_ops
UNION ALL
SELECT rank, 10000 + it * 3 + phase AS id, min(start - latency) - 2000, max(start - latency + 3000) + 2000, 7,
       12 + phase
FROM (SELECT *, CASE WHEN k < 55 THEN 0 WHEN k < 90 THEN 1 ELSE 2 END AS phase FROM temp.demo_ops)
GROUP BY rank, it, phase;

-- One rpd (schema 2) database per rank, in memory.
CREATE TEMP VIEW demo_rpd_op AS
SELECT rank, i + 1 AS id, rank AS gpuId, CASE WHEN type_id = 2 THEN 0 ELSE 1 END AS queueId, 0 AS sequenceId,
       '' AS completionSignal, start, "end", name_id AS description_id, type_id AS opType_id
FROM temp.demo_ops;
.print '== Building the job: rank0 .. rank7 ATTACHed (in memory)'
.print ''
ATTACH ':memory:' AS rank0;
ATTACH ':memory:' AS rank1;
ATTACH ':memory:' AS rank2;
ATTACH ':memory:' AS rank3;
ATTACH ':memory:' AS rank4;
ATTACH ':memory:' AS rank5;
ATTACH ':memory:' AS rank6;
ATTACH ':memory:' AS rank7;
CREATE TABLE rank0.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank0.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank0.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank0.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank0.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank0.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank0.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank0.rocpd_api SELECT id, 4000, 4000, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 0;
INSERT INTO rank0.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 0;
INSERT INTO rank0.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 0;
CREATE TABLE rank1.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank1.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank1.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank1.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank1.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank1.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank1.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank1.rocpd_api SELECT id, 4001, 4001, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 1;
INSERT INTO rank1.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 1;
INSERT INTO rank1.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 1;
CREATE TABLE rank2.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank2.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank2.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank2.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank2.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank2.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank2.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank2.rocpd_api SELECT id, 4002, 4002, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 2;
INSERT INTO rank2.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 2;
INSERT INTO rank2.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 2;
CREATE TABLE rank3.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank3.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank3.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank3.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank3.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank3.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank3.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank3.rocpd_api SELECT id, 4003, 4003, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 3;
INSERT INTO rank3.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 3;
INSERT INTO rank3.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 3;
CREATE TABLE rank4.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank4.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank4.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank4.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank4.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank4.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank4.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank4.rocpd_api SELECT id, 4004, 4004, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 4;
INSERT INTO rank4.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 4;
INSERT INTO rank4.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 4;
CREATE TABLE rank5.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank5.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank5.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank5.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank5.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank5.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank5.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank5.rocpd_api SELECT id, 4005, 4005, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 5;
INSERT INTO rank5.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 5;
INSERT INTO rank5.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 5;
CREATE TABLE rank6.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank6.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank6.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank6.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank6.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank6.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank6.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank6.rocpd_api SELECT id, 4006, 4006, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 6;
INSERT INTO rank6.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 6;
INSERT INTO rank6.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 6;
CREATE TABLE rank7.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE rank7.rocpd_string(id INTEGER PRIMARY KEY, string TEXT NOT NULL);
CREATE TABLE rank7.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, tid INTEGER NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, apiName_id INTEGER NOT NULL, args_id INTEGER NOT NULL);
CREATE TABLE rank7.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER NOT NULL, queueId INTEGER NOT NULL, sequenceId INTEGER NOT NULL, completionSignal TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, description_id INTEGER NOT NULL, opType_id INTEGER NOT NULL);
CREATE TABLE rank7.rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER NOT NULL, op_id INTEGER NOT NULL);
INSERT INTO rank7.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO rank7.rocpd_string SELECT * FROM temp.demo_strings;
INSERT INTO rank7.rocpd_api SELECT id, 4007, 4007, start, "end", name_id, args_id FROM temp.demo_apis WHERE rank = 7;
INSERT INTO rank7.rocpd_op SELECT id, gpuId, queueId, sequenceId, completionSignal, start, "end", description_id, opType_id FROM temp.demo_rpd_op WHERE rank = 7;
INSERT INTO rank7.rocpd_api_ops(api_id, op_id) SELECT i + 1, i + 1 FROM temp.demo_ops WHERE rank = 7;
DROP VIEW temp.demo_rpd_op;
DROP TABLE temp.demo_apis;
DROP TABLE temp.demo_ops;
DROP TABLE temp.demo_strings;

-- The analyses ----------------------------------------------------------------------------------
.print '== The members: every attached or opened trace, listed in natural order (rocpd_members)'
SELECT db, format, schema_version AS v, source, pids, ops, apis FROM rocpd_members;

.print ''
.print "== The top kernels of the job, with Nsight's columns (rocpd_kernel_summary; raw names in _full)"
SELECT * FROM rocpd_kernel_summary;

.print ''
.print '== True GPU busy time (union of the op intervals) next to the upstream sum of durations (rocpd_busy)'
SELECT db, gpu, busy_ns, span_ns, busy_pct, sum_ns, overlap_ns FROM rocpd_busy;

.print ''
.print '== Ranks by kernel time: rank5 straggles (rocpd_rank_summary)'
SELECT db, pid, kernels, kernel_ns, copies, copy_ns, median_kernel_ns, lead_ns, lead_pct FROM rocpd_rank_summary;

.print ''
.print '== Which kernels make it straggle (rocpd_rank_imbalance)'
SELECT * FROM rocpd_rank_imbalance LIMIT 4;

.print ''
.print '== Why the GPUs wait: idle time by cause (rocpd_idle_breakdown)'
SELECT db, gpu, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns, busy_ns FROM rocpd_idle_breakdown WHERE level = 'gpu';

.print ''
.print '== GPU time per training phase: the roctx range around each launch (rocpd_kernel_stacks)'
SELECT top_level AS phase, count(*) AS ops, sum("end" - start) AS gpu_ns FROM rocpd_kernel_stacks
GROUP BY top_level ORDER BY gpu_ns DESC;

.print ''
.print '== From launch call to kernel start (rocpd_launch_latency)'
SELECT * FROM rocpd_launch_latency;
