-- Roofline per kernel (docs/roofline.md): device peaks, counter formulas, and how close each kernel
-- runs to the roof of its GPU.
--
-- rocpd_device_peaks_builtin: dense peak rates of common GPUs from the vendors' datasheets and
-- whitepapers, in TFLOP/s (int8: TOPS) and TB/s; NULL where no vendor figure was confirmed. `match` is
-- a JSON array of lower-case GLOB patterns tried against the device name the trace records. AMD
-- multi-die parts whose dies the runtime exposes as separate devices (MI250X, MI250) are given per
-- device (one GCD), as a trace sees them.
CREATE TEMP VIEW IF NOT EXISTS rocpd_device_peaks_builtin(
  device, vendor, match, fp64_vector, fp64_matrix, fp32_vector, fp32_matrix, tf32_matrix, fp16_vector,
  fp16_matrix, bf16_vector, bf16_matrix, int8_matrix, mem_tb_s, source) AS
VALUES
 ('AMD Instinct MI300X', 'AMD', '["*mi300x*"]',
  81.7, 163.4, 163.4, 163.4, 653.7, NULL, 1307.4, NULL, 1307.4, 2614.9, 5.3,
  'AMD Instinct MI300X Accelerator datasheet'),
 ('AMD Instinct MI250X (one GCD)', 'AMD', '["*mi250x*"]',
  23.95, 47.85, 23.95, 47.85, NULL, NULL, 191.5, NULL, 191.5, 191.5, 1.6,
  'AMD Instinct MI250X Accelerator datasheet (package figures halved: each of the two GCDs is one device)'),
 ('AMD Instinct MI250 (one GCD)', 'AMD', '["*mi250", "*mi250 *"]',
  22.65, 45.25, 22.65, 45.25, NULL, NULL, 181.05, NULL, 181.05, 181.05, 1.6,
  'AMD Instinct MI250 Accelerator datasheet (package figures halved: each of the two GCDs is one device)'),
 ('AMD Instinct MI210', 'AMD', '["*mi210*"]',
  22.6, 45.3, 22.6, 45.3, NULL, NULL, 181.0, NULL, 181.0, 181.0, 1.6,
  'AMD Instinct MI210 Accelerator datasheet; per-CU rates and per-die bandwidth confirmed in ROCm''s MI250 microarchitecture page, 1.7 GHz unconfirmed (docs/roofline.md)'),
 ('AMD Instinct MI100', 'AMD', '["*mi100*"]',
  11.5, NULL, 23.1, 46.1, NULL, NULL, 184.6, NULL, 92.3, 184.6, 1.2,
  'AMD Instinct MI100 Accelerator datasheet (CDNA has no FP64 matrix instructions)'),
 ('NVIDIA H100 SXM', 'NVIDIA', '["*h100*sxm*", "*h100 80gb hbm3*"]',
  34, 67, 67, NULL, 494.5, 133.8, 989.5, 133.8, 989.5, 1979, 3.35,
  'NVIDIA H100 Tensor Core GPU datasheet (tensor figures halved: the datasheet gives them with sparsity); FP16/BF16 vector: NVIDIA H100 Tensor Core GPU Architecture whitepaper'),
 ('NVIDIA H100 PCIe', 'NVIDIA', '["*h100*pcie*"]',
  26, 51, 51, NULL, 378, NULL, 756.5, NULL, 756.5, 1513, 2.0,
  'NVIDIA H100 Tensor Core GPU datasheet (tensor figures halved: the datasheet gives them with sparsity)'),
 ('NVIDIA H200 SXM', 'NVIDIA', '["*h200*"]',
  34, 67, 67, NULL, 494.5, NULL, 989.5, NULL, 989.5, 1979, 4.8,
  'NVIDIA H200 Tensor Core GPU datasheet (tensor figures halved: the datasheet gives them with sparsity)'),
 ('NVIDIA A100 40GB', 'NVIDIA', '["*a100*40gb*", "*a100-pg509-200*"]',
  9.7, 19.5, 19.5, NULL, 156, 78, 312, 39, 312, 624, 1.555,
  'NVIDIA A100 Tensor Core GPU datasheet (dense figures); FP16/BF16 vector: NVIDIA A100 Tensor Core GPU Architecture whitepaper'),
 ('NVIDIA A100 80GB SXM', 'NVIDIA', '["*a100-sxm*80gb*", "*a100 80gb sxm*"]',
  9.7, 19.5, 19.5, NULL, 156, 78, 312, 39, 312, 624, 2.039,
  'NVIDIA A100 Tensor Core GPU datasheet (dense figures); FP16/BF16 vector: NVIDIA A100 Tensor Core GPU Architecture whitepaper'),
 ('NVIDIA A100 80GB PCIe', 'NVIDIA', '["*a100*80gb*pcie*", "*a100-pcie*80gb*"]',
  9.7, 19.5, 19.5, NULL, 156, 78, 312, 39, 312, 624, 1.935,
  'NVIDIA A100 Tensor Core GPU datasheet (dense figures; the 1.935 TB/s unconfirmed in vendor text, docs/roofline.md); FP16/BF16 vector: NVIDIA A100 Tensor Core GPU Architecture whitepaper'),
 ('NVIDIA V100 SXM2', 'NVIDIA', '["*v100-sxm2*", "*v100 sxm2*"]',
  7.8, NULL, 15.7, NULL, NULL, NULL, 125, NULL, NULL, NULL, 0.9,
  'NVIDIA Tesla V100 GPU datasheet (only the SXM2 tensor rate confirmed in vendor text; docs/roofline.md)'),
 ('NVIDIA V100 PCIe', 'NVIDIA', '["*v100-pcie*", "*v100 pcie*"]',
  7.0, NULL, 14.0, NULL, NULL, NULL, 112, NULL, NULL, NULL, 0.9,
  'NVIDIA Tesla V100 GPU datasheet (only the SXM2 tensor rate confirmed in vendor text; docs/roofline.md)'),
 ('NVIDIA L4', 'NVIDIA', '["*nvidia l4", "*nvidia l4 *"]',
  NULL, NULL, 30.3, NULL, 60, NULL, 121, NULL, 121, 242.5, 0.3,
  'NVIDIA L4 Tensor Core GPU datasheet (tensor figures halved: the datasheet gives them with sparsity; unconfirmed in vendor text, docs/roofline.md)'),
 ('NVIDIA L40S', 'NVIDIA', '["*l40s*"]',
  NULL, NULL, 91.6, NULL, 183, NULL, 362.05, NULL, 362.05, NULL, 0.864,
  'NVIDIA L40S GPU datasheet (dense figures)'),
 ('NVIDIA GeForce RTX 4090', 'NVIDIA', '["*rtx 4090*"]',
  NULL, NULL, 82.6, NULL, 82.6, 82.6, 165.2, NULL, 165.2, 660.6, 1.008,
  'NVIDIA Ada GPU Architecture whitepaper (dense, FP32 accumulate)'),
 ('NVIDIA GeForce RTX 4060', 'NVIDIA', '["*rtx 4060", "*rtx 4060 *"]',
  NULL, NULL, 15.1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0.272,
  'NVIDIA GeForce RTX 4060 specifications (FP32 = 3072 CUDA cores x 2 x 2.46 GHz boost; 17 Gbps x 128-bit memory)');

-- A user's own devices: rows of the same shape, inserted after loading; they take precedence over
-- built-in rows with the same device name and are tried first.
CREATE TEMP TABLE IF NOT EXISTS rocpd_user_device_peaks(
  device TEXT NOT NULL, vendor TEXT,
  match TEXT NOT NULL CHECK (json_valid(match) AND json_type(match) = 'array'), fp64_vector REAL, fp64_matrix REAL,
  fp32_vector REAL, fp32_matrix REAL, tf32_matrix REAL, fp16_vector REAL, fp16_matrix REAL,
  bf16_vector REAL, bf16_matrix REAL, int8_matrix REAL, mem_tb_s REAL, source TEXT);

CREATE TEMP VIEW IF NOT EXISTS rocpd_device_peaks AS
SELECT *, 'user' AS origin FROM temp.rocpd_user_device_peaks
UNION ALL
SELECT *, 'builtin' FROM temp.rocpd_device_peaks_builtin AS b
WHERE NOT EXISTS (SELECT 1 FROM temp.rocpd_user_device_peaks AS u WHERE u.device = b.device);

-- rocpd_device_signatures: what a trace records of each built-in device (rocpd_members.gpu_properties),
-- for a name that says too little ('AMD Radeon Graphics', as ROCm's PyTorch names every GPU) or that
-- two parts share. compute_units: SMs or CUs per device (one GCD of an MI250X: 110); memory_gb: the
-- nominal size (a device reports a little less: 0.85-1.05 x it in GiB matches); compute_capability:
-- CUDA's, or HIP's major.minor (gfx90a and gfx908 both report 9.0); arch: the gfx target; chip:
-- nsys's chipName; pci_device_id: the PCI device id rocprofv3 records (rocprof-compute's chip ids,
-- src/utils/mi_gpu_spec.yaml), which tells an MI210 from one die of an MI250. AMD's CU counts, memory
-- and gfx targets: ROCm's "AMD GPU specifications" (reference/gpu-specs). One row per memory size a
-- part comes in.
CREATE TEMP VIEW IF NOT EXISTS rocpd_device_signatures(device, vendor, compute_units, memory_gb, compute_capability,
                                                       arch, chip, pci_device_id) AS
VALUES
 ('AMD Instinct MI300X', 'AMD', 304, 192, '9.4', 'gfx942', NULL, NULL),
 ('AMD Instinct MI250X (one GCD)', 'AMD', 110, 64, '9.0', 'gfx90a', NULL, 29704),
 ('AMD Instinct MI250 (one GCD)', 'AMD', 104, 64, '9.0', 'gfx90a', NULL, 29708),
 ('AMD Instinct MI210', 'AMD', 104, 64, '9.0', 'gfx90a', NULL, 29711),
 ('AMD Instinct MI100', 'AMD', 120, 32, '9.0', 'gfx908', NULL, 29580),
 ('NVIDIA H100 SXM', 'NVIDIA', 132, 80, '9.0', NULL, 'GH100', NULL),
 ('NVIDIA H100 PCIe', 'NVIDIA', 114, 80, '9.0', NULL, 'GH100', NULL),
 ('NVIDIA H200 SXM', 'NVIDIA', 132, 141, '9.0', NULL, 'GH100', NULL),
 ('NVIDIA A100 40GB', 'NVIDIA', 108, 40, '8.0', NULL, 'GA100', NULL),
 ('NVIDIA A100 80GB SXM', 'NVIDIA', 108, 80, '8.0', NULL, 'GA100', NULL),
 ('NVIDIA A100 80GB PCIe', 'NVIDIA', 108, 80, '8.0', NULL, 'GA100', NULL),
 ('NVIDIA V100 SXM2', 'NVIDIA', 80, 16, '7.0', NULL, 'GV100', NULL),
 ('NVIDIA V100 SXM2', 'NVIDIA', 80, 32, '7.0', NULL, 'GV100', NULL),
 ('NVIDIA V100 PCIe', 'NVIDIA', 80, 16, '7.0', NULL, 'GV100', NULL),
 ('NVIDIA V100 PCIe', 'NVIDIA', 80, 32, '7.0', NULL, 'GV100', NULL),
 ('NVIDIA L4', 'NVIDIA', 58, 24, '8.9', NULL, 'AD104', NULL),
 ('NVIDIA L40S', 'NVIDIA', 142, 48, '8.9', NULL, 'AD102', NULL),
 ('NVIDIA GeForce RTX 4090', 'NVIDIA', 128, 24, '8.9', NULL, 'AD102', NULL),
 ('NVIDIA GeForce RTX 4060', 'NVIDIA', 24, 8, '8.9', NULL, 'AD107', NULL);

-- rocpd_gpu_devices: each member's GPUs (rocpd_members.gpu_names, gpu_properties) with the peaks row
-- they match. By name first: user rows, then the longest matching pattern of a built-in device whose
-- signature agrees with every property the trace records. Else by properties: the one built-in device
-- whose signature agrees (the compute unit count must be recorded). Several devices agreeing is a
-- warning, never a pick; so is none. A memory bandwidth the trace records (nsys) replaces a built-in
-- row's datasheet figure, and the source says so.
CREATE TEMP VIEW IF NOT EXISTS rocpd_gpu_devices AS
WITH raw AS MATERIALIZED (
  SELECT m.db, CAST(g.key AS INTEGER) AS gpu, g.value AS name,
         CASE WHEN json_valid(m.gpu_properties) THEN json_extract(m.gpu_properties, '$."' || g.key || '"') END AS props
  FROM rocpd_members AS m, json_each(m.gpu_names) AS g
  WHERE m.gpu_names IS NOT NULL
), gpus AS MATERIALIZED (
  SELECT db, gpu, name, props,
         json_extract(props, '$.compute_units') AS cu, json_extract(props, '$.memory_bytes') / 1073741824.0 AS mem_gib,
         json_extract(props, '$.compute_capability') AS cc, json_extract(props, '$.arch') AS arch,
         json_extract(props, '$.chip') AS chip, json_extract(props, '$.mem_bytes_s') AS mem_bytes_s,
         json_extract(props, '$.pci_device_id') AS pci,
         CASE WHEN lower(name) GLOB '*amd*' OR lower(name) GLOB '*radeon*' OR lower(name) GLOB '*instinct*'
                   OR json_extract(props, '$.arch') IS NOT NULL OR json_extract(props, '$.warp_size') = 64 THEN 'AMD'
              WHEN lower(name) GLOB '*nvidia*' OR lower(name) GLOB '*tesla*' OR lower(name) GLOB '*geforce*'
                   OR lower(name) GLOB '*quadro*' OR json_extract(props, '$.chip') IS NOT NULL THEN 'NVIDIA' END AS vendor
  FROM raw
), described AS (
  SELECT *, nullif(trim(coalesce(cu || ' compute units', '') || CASE WHEN mem_gib IS NOT NULL THEN printf(', %.0f GiB', mem_gib) ELSE '' END ||
                        coalesce(', capability ' || cc, '') || coalesce(', ' || arch, '') || coalesce(', ' || chip, '') ||
                        CASE WHEN pci IS NOT NULL THEN printf(', device id 0x%x', pci) ELSE '' END,
                        ', '), '') AS described
  FROM gpus
), agree AS MATERIALIZED (  -- (gpu, built-in device) pairs whose signature agrees with what the gpu records
  SELECT DISTINCT g.db, g.gpu, s.device, g.cu IS NOT NULL AS by_units
  FROM gpus AS g JOIN temp.rocpd_device_signatures AS s
    ON (g.vendor IS NULL OR g.vendor = s.vendor) AND (g.cu IS NULL OR g.cu = s.compute_units)
   AND (g.mem_gib IS NULL OR g.mem_gib BETWEEN 0.85 * s.memory_gb AND 1.05 * s.memory_gb)
   AND (g.cc IS NULL OR g.cc = s.compute_capability) AND (g.arch IS NULL OR s.arch IS NULL OR g.arch = s.arch)
   AND (g.chip IS NULL OR s.chip IS NULL OR upper(g.chip) = upper(s.chip))
   AND (g.pci IS NULL OR s.pci_device_id IS NULL OR g.pci = s.pci_device_id)
), hits AS (
  SELECT g.db, g.gpu, p.device, p.origin,
         p.origin = 'user' OR NOT EXISTS (SELECT 1 FROM temp.rocpd_device_signatures AS s WHERE s.device = p.device)
           OR EXISTS (SELECT 1 FROM agree AS a WHERE a.db = g.db AND a.gpu = g.gpu AND a.device = p.device) AS agrees,
         length(pat.value) AS len
  FROM gpus AS g, temp.rocpd_device_peaks AS p, json_each(p.match) AS pat
  WHERE lower(g.name) GLOB pat.value
), by_name AS (
  SELECT db, gpu, device,
         row_number() OVER (PARTITION BY db, gpu ORDER BY origin = 'user' DESC, len DESC, device) AS pick
  FROM hits WHERE agrees
), refused AS (  -- names matched whose properties disagree, for the warning
  SELECT db, gpu, group_concat(DISTINCT device) AS devices FROM hits WHERE NOT agrees GROUP BY db, gpu
), by_props AS (  -- a window orders the list (a subquery's ORDER BY may be dropped under an aggregate)
  SELECT DISTINCT db, gpu, count(*) OVER w AS n, first_value(device) OVER w AS device,
         group_concat(device, ', ') OVER w AS devices
  FROM agree WHERE by_units
  WINDOW w AS (PARTITION BY db, gpu ORDER BY device ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
), picked AS (
  SELECT g.*, coalesce(n.device, CASE WHEN bp.n = 1 THEN bp.device END) AS device,
         CASE WHEN n.device IS NOT NULL THEN 'name' WHEN bp.n = 1 THEN 'properties (' || g.described || ')' END AS matched_by,
         CASE WHEN n.device IS NULL AND bp.n > 1 THEN bp.devices END AS ambiguous, r.devices AS refused
  FROM described AS g
  LEFT JOIN by_name AS n ON n.db = g.db AND n.gpu = g.gpu AND n.pick = 1
  LEFT JOIN by_props AS bp ON bp.db = g.db AND bp.gpu = g.gpu
  LEFT JOIN refused AS r ON r.db = g.db AND r.gpu = g.gpu
)
SELECT g.db, g.gpu, g.name, p.device, p.vendor, p.fp64_vector, p.fp64_matrix, p.fp32_vector,
       p.fp32_matrix, p.tf32_matrix, p.fp16_vector, p.fp16_matrix, p.bf16_vector, p.bf16_matrix,
       p.int8_matrix,
       CASE WHEN p.origin = 'builtin' AND g.mem_bytes_s IS NOT NULL THEN g.mem_bytes_s / 1e12 ELSE p.mem_tb_s END AS mem_tb_s,
       p.origin,
       p.source || CASE WHEN p.origin = 'builtin' AND g.mem_bytes_s IS NOT NULL THEN
         '; memory bandwidth as the trace records it (Nsight Systems TARGET_INFO_GPU.memoryBandwidth), not the datasheet''s '
         || p.mem_tb_s || ' TB/s' ELSE '' END AS source,
       CASE WHEN g.ambiguous IS NOT NULL THEN
              'device ''' || g.name || ''' (' || g.described || ') matches several devices by its properties: ' ||
              g.ambiguous || '; no roof: INSERT a row into temp.rocpd_user_device_peaks naming it (docs/roofline.md)'
            WHEN p.device IS NULL THEN
              'no peaks for device ''' || g.name || '''' || coalesce(' (' || g.described || ')', '') ||
              coalesce(': its name matches ' || g.refused || ' but its properties do not', '') ||
              ': INSERT a row into temp.rocpd_user_device_peaks (match: a JSON array of lower-case GLOB patterns ' ||
              'of the name; docs/roofline.md)' END AS warning,
       g.matched_by, g.props AS properties
FROM picked AS g
LEFT JOIN temp.rocpd_device_peaks AS p ON p.device = g.device;

-- rocpd_counter_formulas_builtin: what one count of a counter is worth: FLOPs (or integer ops)
-- and DRAM/HBM bytes, and the peak column its FLOPs run against.
--   CUPTI (HTA): smsp__sass_thread_inst_executed_op_{f,h,d}{add,mul,fma}_pred_on.sum, an FMA two
--   operations; dram__bytes_read.sum + dram__bytes_write.sum.
--   AMD (rocprof-compute's roofline): 64 x (ADD + MUL + 2 x FMA + TRANS) of SQ_INSTS_VALU_*_F16/F32/F64
--   (a wave of 64 lanes per instruction) + 512 x SQ_INSTS_VALU_MFMA_MOPS_*; HBM bytes
--   32 x RDREQ_32B + 64 x (RDREQ - RDREQ_32B) + 64 x WRREQ_64B + 32 x (WRREQ - WRREQ_64B), written
--   as one weight per counter. MI300 and later count a 128-byte read in TCC_BUBBLE (one of RDREQ):
--   rocprof-compute's 128 x BUBBLE + 32 x RDREQ_32B + 64 x (RDREQ - BUBBLE - RDREQ_32B) + ... is the
--   MI200 sum plus 64 x BUBBLE. rocpd_kernel_roofline leaves TCC_BUBBLE out on MI200-class devices
--   (gfx90a), whose formula upstream has none.
CREATE TEMP VIEW IF NOT EXISTS rocpd_counter_formulas_builtin(counter, flops, bytes, peak, vendor) AS
WITH ops(op, w) AS (VALUES ('add', 1), ('mul', 1), ('fma', 2)),
     cupti(p, peak) AS (VALUES ('f', 'fp32_vector'), ('h', 'fp16_vector'), ('d', 'fp64_vector')),
     valu(op, w) AS (VALUES ('ADD', 64), ('MUL', 64), ('FMA', 128), ('TRANS', 64)),
     amd_t(t, peak) AS (VALUES ('F16', 'fp16_vector'), ('F32', 'fp32_vector'), ('F64', 'fp64_vector')),
     mfma(t, peak) AS (VALUES ('F16', 'fp16_matrix'), ('BF16', 'bf16_matrix'), ('F32', 'fp32_matrix'),
                             ('F64', 'fp64_matrix'), ('I8', 'int8_matrix')),
     ea(c, w) AS (VALUES ('RDREQ', 64), ('RDREQ_32B', -32), ('WRREQ', 32), ('WRREQ_64B', 32)),
     ea_name(prefix) AS (VALUES ('TCC_EA_'), ('TCC_EA0_')),
     suffix(s) AS (VALUES (''), ('_sum'))
SELECT 'smsp__sass_thread_inst_executed_op_' || cupti.p || ops.op || '_pred_on.sum', ops.w, 0, cupti.peak, 'NVIDIA'
FROM cupti, ops
UNION ALL SELECT 'dram__bytes_read.sum', 0, 1, NULL, 'NVIDIA'
UNION ALL SELECT 'dram__bytes_write.sum', 0, 1, NULL, 'NVIDIA'
UNION ALL SELECT 'SQ_INSTS_VALU_' || valu.op || '_' || amd_t.t || suffix.s, valu.w, 0, amd_t.peak, 'AMD'
FROM valu, amd_t, suffix
UNION ALL SELECT 'SQ_INSTS_VALU_MFMA_MOPS_' || mfma.t || suffix.s, 512, 0, mfma.peak, 'AMD' FROM mfma, suffix
UNION ALL SELECT ea_name.prefix || ea.c || suffix.s, 0, ea.w, NULL, 'AMD' FROM ea, ea_name, suffix
UNION ALL SELECT 'TCC_BUBBLE' || suffix.s, 0, 64, NULL, 'AMD' FROM suffix;

-- A user's mapping for other counter sets (same shape): a counter named here replaces the built-in
-- formula of that name.
CREATE TEMP TABLE IF NOT EXISTS rocpd_user_counter_formulas(
  counter TEXT PRIMARY KEY, flops REAL NOT NULL DEFAULT 0, bytes REAL NOT NULL DEFAULT 0,
  peak TEXT CHECK (peak IS NULL OR peak IN ('fp64_vector', 'fp64_matrix', 'fp32_vector', 'fp32_matrix',
                                            'tf32_matrix', 'fp16_vector', 'fp16_matrix', 'bf16_vector',
                                            'bf16_matrix', 'int8_matrix')),
  vendor TEXT);

CREATE TEMP VIEW IF NOT EXISTS rocpd_counter_formulas AS
SELECT counter, flops, bytes, peak, vendor, 'user' AS origin FROM temp.rocpd_user_counter_formulas
UNION ALL
SELECT counter, flops, bytes, peak, vendor, 'builtin' FROM temp.rocpd_counter_formulas_builtin AS b
WHERE NOT EXISTS (SELECT 1 FROM temp.rocpd_user_counter_formulas AS u WHERE u.counter = b.counter);

-- rocpd_kernel_roofline: one row per kernel with counters that a formula maps.
--   flops, bytes       sum over the kernel's counters of value x weight (NULL when no counter of that
--                      kind was collected)
--   peak               the peak column of the kernel's largest FLOP share (its data type and unit;
--                      ties: the first by name; NULL when it counted no FLOPs)
--   intensity          flops / bytes (FLOP per byte)
--   flop_s, bytes_s    flops and bytes per second of the kernel's duration
--   peak_flop_s, mem_bytes_s   the device's peak for `peak` and its memory bandwidth
--   roof_flop_s        min(peak_flop_s, intensity x mem_bytes_s)
--   pct_of_roof        100 x flop_s / roof_flop_s
--   bound              'memory' when intensity x mem_bytes_s < peak_flop_s, else 'compute'
--   source             which formulas gave the figures ('counters: ' and NVIDIA, AMD, user for the user's
--                      formulas); device_origin builtin or user, device_source the peaks' source
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_roofline AS
WITH pre_mi300 AS MATERIALIZED (  -- CDNA 1 and 2 (gfx908, gfx90a: HIP capability 9.0): no TCC_BUBBLE bytes
  SELECT db, gpu FROM temp.rocpd_gpu_devices
  WHERE device GLOB 'AMD Instinct MI2*' OR device GLOB 'AMD Instinct MI100*'
     OR json_extract(properties, '$.arch') IN ('gfx90a', 'gfx908')
     OR (json_extract(properties, '$.compute_capability') = '9.0' AND json_extract(properties, '$.warp_size') = 64)
), per_peak AS (
  -- One row per kernel and peak column its counters feed (NULL: bytes only). The counters table is
  -- read once, and only here: a `db =` filter on the view reaches it through the grouping and the
  -- windows below (both by db), so only that member is read.
  SELECT k.db, k.op_id, k.gpu, k.kernel, k.duration, k.top_level, k.bottom_level, k.stack, f.peak,
         sum(j.value * f.flops) AS flops, sum(j.value * f.bytes) AS bytes,
         max(f.flops <> 0) AS has_flops, max(f.bytes <> 0) AS has_bytes,
         max(f.origin = 'user') AS by_user, max(f.origin <> 'user' AND f.vendor = 'NVIDIA') AS by_nvidia,
         max(f.origin <> 'user' AND f.vendor = 'AMD') AS by_amd
  FROM temp.rocpd_kernel_counters_full AS k, json_each(k.counters) AS j
  JOIN temp.rocpd_counter_formulas AS f ON f.counter = j.key
  WHERE NOT (f.origin = 'builtin' AND f.counter GLOB 'TCC_BUBBLE*' AND
             EXISTS (SELECT 1 FROM pre_mi300 AS o WHERE o.db = k.db AND o.gpu = k.gpu))
  GROUP BY k.db, k.op_id, f.peak
), per_kernel AS (
  SELECT *,
         row_number() OVER (PARTITION BY db, op_id
                            ORDER BY peak IS NULL OR flops <= 0, flops DESC, peak) AS rk,
         CASE WHEN max(has_flops) OVER op THEN sum(flops) OVER op END AS op_flops,
         CASE WHEN max(has_bytes) OVER op THEN sum(bytes) OVER op END AS op_bytes,
         'counters: ' || rtrim(CASE WHEN max(by_nvidia) OVER op THEN 'NVIDIA,' ELSE '' END ||
                               CASE WHEN max(by_amd) OVER op THEN 'AMD,' ELSE '' END ||
                               CASE WHEN max(by_user) OVER op THEN 'user,' ELSE '' END, ',') AS source
  FROM per_peak
  WINDOW op AS (PARTITION BY db, op_id)
), measured AS (
  SELECT k.db, k.op_id, k.gpu, k.kernel, k.duration, k.top_level, k.bottom_level, k.stack,
         k.op_flops AS flops, k.op_bytes AS bytes, k.chosen AS peak, k.source,
         d.name AS device_name, d.device, d.origin AS device_origin, d.source AS device_source, d.warning,
         CASE k.chosen WHEN 'fp64_vector' THEN d.fp64_vector WHEN 'fp64_matrix' THEN d.fp64_matrix
                     WHEN 'fp32_vector' THEN d.fp32_vector WHEN 'fp32_matrix' THEN d.fp32_matrix
                     WHEN 'tf32_matrix' THEN d.tf32_matrix WHEN 'fp16_vector' THEN d.fp16_vector
                     WHEN 'fp16_matrix' THEN d.fp16_matrix WHEN 'bf16_vector' THEN d.bf16_vector
                     WHEN 'bf16_matrix' THEN d.bf16_matrix WHEN 'int8_matrix' THEN d.int8_matrix END * 1e12 AS peak_flop_s,
         d.mem_tb_s * 1e12 AS mem_bytes_s
  FROM (SELECT *, CASE WHEN peak IS NOT NULL AND flops > 0 THEN peak END AS chosen FROM per_kernel WHERE rk = 1) AS k
  LEFT JOIN temp.rocpd_gpu_devices AS d ON d.db = k.db AND d.gpu = k.gpu
), rated AS (
  SELECT *, flops / nullif(bytes, 0) AS intensity,
         flops * 1e9 / nullif(duration, 0) AS flop_s, bytes * 1e9 / nullif(duration, 0) AS bytes_s
  FROM measured
), roofed AS (
  SELECT *, min(peak_flop_s, intensity * mem_bytes_s) AS roof_flop_s FROM rated
)
SELECT db, op_id, gpu, kernel, device_name, device, duration, flops, bytes, intensity, flop_s, bytes_s, peak,
       peak_flop_s, mem_bytes_s, roof_flop_s, 100.0 * flop_s / nullif(roof_flop_s, 0) AS pct_of_roof,
       CASE WHEN roof_flop_s IS NULL THEN NULL
            WHEN intensity * mem_bytes_s < peak_flop_s THEN 'memory' ELSE 'compute' END AS bound,
       source, device_origin, device_source,
       coalesce(warning, CASE WHEN device_name IS NULL THEN 'the trace names no device for gpu ' ||
                               coalesce(gpu, 'NULL') || ': no roof' END,
                CASE WHEN bytes IS NULL THEN 'no byte counters: no intensity, no roof'
                     WHEN flops IS NULL THEN 'no FLOP counters: no roof'
                     WHEN peak IS NULL THEN 'no FLOPs counted: no roof'
                     WHEN peak_flop_s IS NULL OR mem_bytes_s IS NULL THEN
                       'device ''' || device || ''' has no figure for ' || coalesce(peak, 'memory bandwidth') END) AS warning,
       top_level, bottom_level, stack
FROM roofed
WHERE rocpd_require_members('rocpd_kernel_roofline');

-- rocpd_kernel_roofline_by_kernel: per (kernel name, device): totals over its instances, the rates
-- of the totals (flops / total duration) against the roof at the totals' intensity; peak: the one
-- its instances put the most FLOPs into (ties by name).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_roofline_by_kernel AS
WITH k AS MATERIALIZED (
  SELECT kernel, device_name, device, duration, flops, bytes, peak, peak_flop_s, mem_bytes_s, source, device_source,
         warning, bottom_level
  FROM temp.rocpd_kernel_roofline
), per_peak AS (
  SELECT kernel, device_name, peak, max(peak_flop_s) AS peak_flop_s,
         row_number() OVER (PARTITION BY kernel, device_name ORDER BY sum(flops) DESC, peak) AS rk
  FROM k WHERE peak IS NOT NULL GROUP BY kernel, device_name, peak
), g AS (
  SELECT kernel, device_name, device, count(*) AS instances, sum(duration) AS duration,
         sum(flops) AS flops, sum(bytes) AS bytes, max(mem_bytes_s) AS mem_bytes_s,
         group_concat(DISTINCT source) AS source, max(device_source) AS device_source, max(warning) AS warning,
         max(bottom_level) AS bottom_level
  FROM k GROUP BY kernel, device_name, device
), r AS (
  SELECT g.*, pp.peak, pp.peak_flop_s,
         g.flops / nullif(g.bytes, 0) AS intensity, g.flops * 1e9 / nullif(g.duration, 0) AS flop_s,
         g.bytes * 1e9 / nullif(g.duration, 0) AS bytes_s
  FROM g LEFT JOIN per_peak AS pp ON pp.kernel IS g.kernel AND pp.device_name IS g.device_name AND pp.rk = 1
), f AS (SELECT *, min(peak_flop_s, intensity * mem_bytes_s) AS roof_flop_s FROM r)
SELECT kernel, device_name, device, instances, duration, flops, bytes, intensity, flop_s, bytes_s, peak,
       peak_flop_s, mem_bytes_s, roof_flop_s, 100.0 * flop_s / nullif(roof_flop_s, 0) AS pct_of_roof,
       CASE WHEN roof_flop_s IS NULL THEN NULL
            WHEN intensity * mem_bytes_s < peak_flop_s THEN 'memory' ELSE 'compute' END AS bound,
       source, device_source, warning, bottom_level
FROM f;

-- rocpd_gemm_roofline: analytic FLOPs and bytes of the GEMM operators whose input shapes the trace
-- records (PyTorch's record_shapes: Kineto `Input Dims`, `Input type`), as TraceLens estimates them:
-- FLOPs 2 x batch x M x N x K, bytes batch x (MK + KN + MN) x element size; one row per operator,
-- over the kernels it launched (its launches' `External id`): their count and summed duration.
--   aten::mm [M,K] x [K,N]; aten::addmm (bias, [M,K], [K,N]); aten::bmm [B,M,K] x [B,K,N];
--   aten::baddbmm (bias, [B,M,K], [B,K,N]). Element size from the first matrix's type (float 4,
--   double 8, c10::Half and c10::BFloat16 2); peak: fp16_matrix, bf16_matrix, the fp32 (fp64)
--   matrix peak where the device has one, else its vector peak.
--   roofline_ns  max(flops / peak, bytes / bandwidth): TraceLens's "roofline time"
CREATE TEMP VIEW IF NOT EXISTS rocpd_gemm_roofline AS
WITH launches AS MATERIALIZED (
  SELECT db, correlation_id, json_extract(args, '$."External id"') AS ext
  FROM rocpd_apis
  WHERE domain IN ('cuda', 'hip', 'cuda_driver') AND name GLOB '*Launch*' AND json_valid(args)
    AND json_extract(args, '$."External id"') IS NOT NULL
), ops AS MATERIALIZED (
  SELECT db, pid, api_id, name, json_extract(args, '$."External id"') AS ext,
         json_extract(args, '$."Input Dims"') AS dims, json_extract(args, '$."Input type"') AS types,
         CASE WHEN name IN ('aten::addmm', 'aten::baddbmm') THEN 1 ELSE 0 END AS a
  FROM rocpd_apis
  WHERE domain = 'marker' AND name IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm') AND json_valid(args)
    AND json_type(args, '$."Input Dims"') = 'array'
), shapes AS (
  SELECT db, pid, api_id, name, ext,
         json_extract(dims, '$[' || a || ']') AS am, json_extract(dims, '$[' || (a + 1) || ']') AS bm,
         json_extract(types, '$[' || a || ']') AS dtype
  FROM ops
), sized AS (
  SELECT *, CASE json_array_length(am) WHEN 3 THEN json_extract(am, '$[0]') ELSE 1 END AS batch,
         json_extract(am, '$[#-2]') AS m, json_extract(am, '$[#-1]') AS k, json_extract(bm, '$[#-1]') AS n,
         CASE dtype WHEN 'float' THEN 4 WHEN 'double' THEN 8 WHEN 'c10::Half' THEN 2 WHEN 'c10::BFloat16' THEN 2 END AS elem
  FROM shapes WHERE json_array_length(am) IN (2, 3) AND json_array_length(bm) = json_array_length(am)
), kernels AS (
  SELECT s.db, s.api_id, count(*) AS kernels, sum(o."end" - o.start) AS duration, min(o.gpu) AS gpu,
         max(o.gpu) AS gpu_max
  FROM sized AS s JOIN launches AS l ON l.db = s.db AND l.ext = s.ext
  JOIN rocpd_ops AS o ON o.db = l.db AND o.correlation_id = l.correlation_id AND o.kind = 'kernel'
  GROUP BY s.db, s.api_id
), rated AS (
  SELECT s.db, s.api_id, s.name AS operator, s.batch, s.m, s.n, s.k, s.dtype, k.kernels, k.duration, k.gpu,
         2.0 * s.batch * s.m * s.n * s.k AS flops,
         1.0 * s.batch * (s.m * s.k + s.k * s.n + s.m * s.n) * s.elem AS bytes,
         d.name AS device_name, d.device, d.source AS device_source, d.warning,
         CASE s.dtype WHEN 'c10::Half' THEN 'fp16_matrix' WHEN 'c10::BFloat16' THEN 'bf16_matrix'
                      WHEN 'float' THEN CASE WHEN d.fp32_matrix IS NOT NULL THEN 'fp32_matrix' ELSE 'fp32_vector' END
                      WHEN 'double' THEN CASE WHEN d.fp64_matrix IS NOT NULL THEN 'fp64_matrix' ELSE 'fp64_vector' END
         END AS peak,
         CASE s.dtype WHEN 'c10::Half' THEN d.fp16_matrix WHEN 'c10::BFloat16' THEN d.bf16_matrix
                      WHEN 'float' THEN coalesce(d.fp32_matrix, d.fp32_vector)
                      WHEN 'double' THEN coalesce(d.fp64_matrix, d.fp64_vector) END * 1e12 AS peak_flop_s,
         d.mem_tb_s * 1e12 AS mem_bytes_s
  FROM sized AS s JOIN kernels AS k ON k.db = s.db AND k.api_id = s.api_id
  LEFT JOIN temp.rocpd_gpu_devices AS d ON d.db = s.db AND d.gpu = k.gpu
), r AS (
  SELECT *, flops / nullif(bytes, 0) AS intensity, flops * 1e9 / nullif(duration, 0) AS flop_s,
         min(peak_flop_s, flops / nullif(bytes, 0) * mem_bytes_s) AS roof_flop_s
  FROM rated
)
SELECT db, api_id, operator, batch, m, n, k, dtype, kernels, duration, gpu, device_name, device, flops, bytes,
       intensity, flop_s, peak, peak_flop_s, mem_bytes_s, roof_flop_s,
       100.0 * flop_s / nullif(roof_flop_s, 0) AS pct_of_roof,
       CASE WHEN roof_flop_s IS NULL THEN NULL
            WHEN intensity * mem_bytes_s < peak_flop_s THEN 'memory' ELSE 'compute' END AS bound,
       max(flops / peak_flop_s, bytes / mem_bytes_s) * 1e9 AS roofline_ns,
       'shapes: 2MNK' AS source, device_source,
       coalesce(warning, CASE WHEN device_name IS NULL THEN 'the trace names no device for gpu ' ||
                               coalesce(gpu, 'NULL') || ': no roof' END,
                CASE WHEN bytes IS NULL THEN 'element type ''' || coalesce(dtype, 'NULL') || ''' unknown: no bytes'
                     WHEN peak_flop_s IS NULL THEN 'device ''' || device || ''' has no figure for ' || peak END) AS warning
FROM r
WHERE rocpd_require_members('rocpd_gemm_roofline');
