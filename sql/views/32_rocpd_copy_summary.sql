-- rocpd_copy_summary: job-wide memory copy time per copy direction (name is the rpd op type
-- spelling for every format: CopyHostToDevice, CopyDeviceToHost, CopyDeviceToDevice,
-- CopyHostToHost, CopyPeerToPeer), with the columns of rocpd_kernel_summary (Nsight's
-- cuda_gpu_mem_time_sum). time_pct is the share of the summed copy time. Byte counts are not part
-- of rocpd_ops; read them from the members' own tables (rocpd_union('rocpd_copyapi'), ...).
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_copy_summary AS
SELECT 100.0 * total_ns / sum(total_ns) OVER () AS time_pct,
       total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, name
FROM (SELECT name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'name' AND of_kind = 'copy')
ORDER BY total_ns DESC, name;
