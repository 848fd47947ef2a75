-- rocpd_ranges: the CPU ranges of every member (roctx ranges, PyTorch operators recorded as
-- markers or regions): rows of rocpd_apis in the 'marker' domain with end > start (instant marks
-- and reversed rows enclose nothing and are left out). The ranges rocpd_kernel_stacks nests, and
-- the windows that restrict an analysis to regions of interest (docs/diagnosis.md):
--   SELECT b.* FROM (SELECT db, min(start) AS lo, max("end") AS hi FROM rocpd_ranges
--                    WHERE name = 'forward' GROUP BY db) AS roi,
--                   rocpd_idle_breakdown(5000, roi.lo, roi.hi) AS b WHERE b.db = roi.db;
CREATE TEMP VIEW IF NOT EXISTS rocpd_ranges AS
SELECT db, pid, tid, name, start, "end", "end" - start AS duration, api_id
FROM temp.rocpd_apis
WHERE domain = 'marker' AND "end" > start AND rocpd_require_members('rocpd_ranges');
