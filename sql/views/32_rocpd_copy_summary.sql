-- rocpd_copy_summary: job-wide memory copy time per copy direction (name is the rpd op type
-- spelling for every format: CopyHostToDevice, CopyDeviceToHost, CopyDeviceToDevice,
-- CopyHostToHost, CopyPeerToPeer), with the columns of rocpd_kernel_summary (Nsight's
-- cuda_gpu_mem_time_sum). time_pct is the share of the summed copy time. Byte counts are not part
-- of rocpd_ops; read them from the members' own tables (rocpd_union('rocpd_copyapi'), ...).
-- Copy names are short: the raw name is the only name column.
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_copy_summary AS
SELECT round(100.0 * total_ns / sum(total_ns) OVER (), 2) AS time_pct,
       total_ns, instances, round(avg_ns, 1) AS avg_ns, med_ns, min_ns, max_ns, round(stddev_ns, 1) AS stddev_ns,
       name
FROM (SELECT name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'name' AND of_kind = 'copy')
WHERE rocpd_require_members('rocpd_copy_summary')
ORDER BY total_ns DESC, name;
