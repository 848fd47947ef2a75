-- rocpd_comm_overlap: per member (db) and gpu, how much communication is hidden behind
-- computation (docs/diagnosis.md). Every op of kind 'kernel' or 'copy' is one of:
--   comm      copies (kind 'copy'), and kernels whose name contains 'nccl' or 'rccl' (any case:
--             ncclDevKernel_*, ncclKernel_*, rcclGenericKernel) or 'cross_device_reduce' (vLLM's
--             custom all-reduce, raptor's _COMM category)
--   compute   every other kernel (a NULL name counts as compute)
-- Ops of other kinds (barriers, fills) are in neither.
--   compute_ns, comm_ns   length of the union of the class's op intervals (interval_union)
--   overlap_ns            length of (union of comm) intersected with (union of compute), as
--                         compute_ns + comm_ns - length of the union of both
--   exposed_comm_ns       comm_ns - overlap_ns: communication the GPU did not hide
--   overlap_pct           100 * overlap_ns / comm_ns (HTA's comp_comm_overlap_pctg), rounded to 2
--                         decimals (docs/views.md); NULL without comm
-- The counts and unions per member and gpu come from the rocpd_comm_classes table
-- (ext/diagnosis/rocpd_comm_classes.cpp: members on every core, each kernel name classified once).
CREATE TEMP VIEW IF NOT EXISTS rocpd_comm_overlap AS
SELECT db, gpu, compute_ops, comm_ops, compute_ns, comm_ns,
       compute_ns + comm_ns - both_ns AS overlap_ns,
       both_ns - compute_ns AS exposed_comm_ns,
       CASE WHEN comm_ns > 0 THEN round(100.0 * (compute_ns + comm_ns - both_ns) / comm_ns, 2) END AS overlap_pct
FROM temp.rocpd_comm_classes
WHERE rocpd_require_members('rocpd_comm_overlap')
ORDER BY db COLLATE rocpd_natural, gpu;
