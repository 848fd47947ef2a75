"""nsys stats' cuda_gpu_kern_sum, written as SQL over an export's raw tables (independently of the
extension): per kernel name, Time (%) of the summed kernel time, total, instances, average, median
(the mean of the two middle values of an even count), min, max and sample standard deviation.

The name is the one nsys's ':mangled' variant groups by: the mangled name where the export
records one (mangledName, since 2022), else the demangled one, as NVIDIA's guide says of that
variant ("If the raw, mangled kernel name data is not available, the default demangled names will
be used"); an export with neither has its base names (shortName, the ':base' variant)."""
import sqlite3


def name_sql(columns):
    """The kernel-name expression of an export whose kernel table has `columns`."""
    def value(column):
        return f"(SELECT value FROM StringIds WHERE id = k.{column})"
    if "mangledName" in columns and "demangledName" in columns:
        return f"coalesce(NULLIF({value('mangledName')}, ''), {value('demangledName')})"
    if "mangledName" in columns:
        return f"NULLIF({value('mangledName')}, '')"
    if "demangledName" in columns:
        return value("demangledName")
    return value("shortName")


def kern_sum_sql(columns):
    return f"""
WITH k AS (SELECT {name_sql(columns)} AS name, k."end" - k.start AS d FROM CUPTI_ACTIVITY_KIND_KERNEL AS k),
     s AS (SELECT name, sum(d) AS total, count(*) AS n, avg(d) AS av, min(d) AS mn, max(d) AS mx
           FROM k GROUP BY name),
     o AS (SELECT name, d, row_number() OVER (PARTITION BY name ORDER BY d) AS i FROM k),
     med AS (SELECT o.name, avg(o.d) AS med FROM o JOIN s ON s.name IS o.name
             WHERE o.i IN ((s.n + 1) / 2, (s.n + 2) / 2) GROUP BY o.name),
     sd AS (SELECT k.name, sqrt(sum((k.d - s.av) * (k.d - s.av)) / (s.n - 1)) AS sd
            FROM k JOIN s ON s.name IS k.name WHERE s.n > 1 GROUP BY k.name)
SELECT s.name, 100.0 * s.total / (SELECT sum(total) FROM s), s.total, s.n, s.av, med.med, s.mn, s.mx, sd.sd
FROM s JOIN med ON med.name IS s.name LEFT JOIN sd ON sd.name IS s.name"""


def kern_sum(path):
    """{name: (time_pct, total, instances, avg, med, min, max, stddev)} of the export at `path`."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    columns = {r[1] for r in con.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")}
    rows = con.execute(kern_sum_sql(columns)).fetchall() if columns else []  # a report without kernels
    con.close()
    return {r[0]: r[1:] for r in rows}


def check_kern_sum(test, got_rows, want):
    """`got_rows`: (name, time_pct, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns) of
    rocpd_kernel_summary_full over one member, against kern_sum()."""
    test.assertEqual(sorted(r[0] for r in got_rows), sorted(want))
    for name, time_pct, total, instances, avg, med, mn, mx, stddev in got_rows:
        w_pct, w_total, w_n, w_avg, w_med, w_min, w_max, w_sd = want[name]
        test.assertEqual((total, instances, mn, mx, med), (w_total, w_n, w_min, w_max, w_med), name)
        test.assertAlmostEqual(avg, w_avg, delta=0.05 + 1e-9)      # ours: 0.1 ns
        test.assertAlmostEqual(time_pct, w_pct, delta=0.005 + 1e-9)  # ours: two decimals
        if instances == 1:
            test.assertIsNone(stddev)  # nsys stats shows 0.0; ours NULL (docs/stats.md)
        else:
            test.assertAlmostEqual(stddev, w_sd, delta=0.05 + 1e-6 * w_sd)
