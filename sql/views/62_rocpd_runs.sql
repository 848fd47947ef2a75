-- Run labels (docs/diagnosis.md, "Comparing runs"). rocpd_open(pattern, run) labels the members it
-- adds, rocpd_set_run(db, run) any member; the labels are connection state, kept here by member
-- name and path (a name reused by another file after rocpd_close does not inherit a label).
CREATE TEMP TABLE IF NOT EXISTS rocpd_run_labels (db TEXT PRIMARY KEY NOT NULL, path TEXT, run TEXT NOT NULL);
-- rocpd_runs: every member with its run label (NULL when unlabelled).
CREATE TEMP VIEW IF NOT EXISTS rocpd_runs AS
SELECT m.db, m.path, m.format, m.source, l.run
FROM temp.rocpd_members AS m
LEFT JOIN temp.rocpd_run_labels AS l ON l.db = m.db AND l.path IS m.path;
