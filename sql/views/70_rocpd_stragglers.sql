-- rocpd_stragglers: per participant of the job's collectives (member db, pid and gpu: one rank),
-- who holds the others back (docs/ranks.md). Over its matched collectives (rocpd_collectives rows
-- with an arrival):
--   collectives       matched collectives
--   times_last        instances it arrived last at (its wait_ns is 0), among two or more participants
--   late_ns           its lateness summed: own start minus the instance's first start
--   late_p50_ns, late_p95_ns, late_max_ns   the lateness's median, 95th percentile and maximum
--   wait_ns           the time it waited inside collectives for the others
--   caused_wait_ns    the wait it caused: over the instances it arrived last at, the others' wait_ns
--   unmatched         its collectives beyond its family's common prefix (members disagreeing on the
--                     count: docs/ranks.md); 0 when every rank issued the same collectives
-- The worst straggler first: by caused_wait_ns, then late_ns. Like every analysis view, it refuses
-- to answer while no trace is open (rocpd_require_members, docs/views.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_stragglers AS
SELECT db, pid, gpu,
       count(arrival) AS collectives,
       count(*) FILTER (WHERE wait_ns = 0 AND participants > 1) AS times_last,
       sum(late_ns) AS late_ns,
       percentile(late_ns, 50) AS late_p50_ns,
       percentile(late_ns, 95) AS late_p95_ns,
       max(late_ns) AS late_max_ns,
       sum(wait_ns) AS wait_ns,
       sum(caused_wait_ns) AS caused_wait_ns,
       count(*) - count(arrival) AS unmatched
FROM rocpd_collectives
WHERE rocpd_require_members('rocpd_stragglers')
GROUP BY db, pid, gpu
ORDER BY caused_wait_ns DESC, late_ns DESC, db, pid, gpu;
