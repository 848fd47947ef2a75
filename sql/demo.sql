-- rocpd_ext demo, run by `cmake --build build --target demo` in build/demo, where the generator
-- wrote an 8-process job in mixed formats: rank0/3/6.rpd (rpd v2), rank1/4/7.rpd (rpd v3),
-- rank2/5.db (rocprofv3 rocpd v3).
.headers on
.mode column
.print '== Two ranks ATTACHed, the other six opened by rocpd_open (no attach limit)'
ATTACH 'rank0.rpd' AS rank0;
ATTACH 'rank1.rpd' AS rank1;
SELECT rocpd_open('.') AS opened;

.print ''
.print '== rocpd_members'
SELECT db, format, schema_version AS v, source, pids, ops, apis, last_ns - first_ns AS span_ns
FROM rocpd_members;

.print ''
.print "== Top 3 kernels per rank: rocpd_union('ktop')"
SELECT db, calls, total_ns, round(percent, 1) AS pct, substr(kernel_short_name(name), 1, 40) AS kernel
FROM (SELECT *, row_number() OVER (PARTITION BY db ORDER BY total_ns DESC) AS rn FROM rocpd_union('ktop'))
WHERE rn <= 3;

.print ''
.print '== Job-wide top kernels (Nsight columns): rocpd_kernel_summary'
SELECT round(time_pct, 1) AS time_pct, total_ns, instances, round(avg_ns) AS avg_ns, med_ns, min_ns, max_ns,
       round(stddev_ns) AS stddev_ns, kernel
FROM rocpd_kernel_summary LIMIT 8;

.print ''
.print '== True GPU busy (interval union) against the upstream sum, rank 0'
SELECT db, gpu, busy_ns, span_ns, round(busy, 3) AS busy, sum_ns, overlap_ns,
       round(1.0 * sum_ns / span_ns, 3) AS upstream_busy
FROM rocpd_busy WHERE db = 'rank0';
