"""`rocpd_gen --diagnosis 2` writes the cases the default workload never has (issue 21, test holes):
ops that touch the previous op of their queue, and host waits shorter than the kernel-wait
threshold. Checked here: the files hold such cases (counted from the raw tables), the generator's
truth agrees with a brute force over the files, and so do the extension's busy intervals, gaps and
idle breakdown: touching ops merge into one busy interval, and a gap whose next op was launched
after it began is a host wait however short (docs/diagnosis.md, docs/intervals.md)."""
import collections
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

EXT = os.environ["ROCPD_EXT"]
GEN = os.environ["ROCPD_GEN"]
THRESHOLD = 5000  # rocpd_idle_breakdown's default, the truth's kernel_wait_threshold_ns


def brute(path):
    """Per gpu: busy intervals, gaps and their causes, the touches merged and the short host waits,
    from the rpd tables alone."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    launch = {}
    for op_id, start in con.execute("SELECT l.op_id, min(a.start) FROM rocpd_api_ops l JOIN rocpd_api a ON a.id = l.api_id "
                                    "GROUP BY l.op_id"):
        launch[op_id] = start
    ops = collections.defaultdict(list)
    for op_id, gpu, s, e in con.execute('SELECT id, gpuId, start, "end" FROM rocpd_op'):
        if e > s:
            ops[gpu].append((s, e, launch.get(op_id)))
    con.close()
    out = {}
    for gpu, rows in ops.items():
        rows.sort()
        r = dict(busy_intervals=0, gaps=0, idle_ns=0, host_wait_ns=0, kernel_wait_ns=0, other_ns=0, touches=0,
                 short_host_waits=0)
        busy_end = None
        i = 0
        while i < len(rows):
            start = rows[i][0]
            group = [x for x in rows[i:] if x[0] == start]
            if busy_end is None or start > busy_end:
                r["busy_intervals"] += 1
                if busy_end is not None:
                    gap = start - busy_end
                    known = [x[2] for x in group if x[2] is not None]
                    r["gaps"] += 1
                    r["idle_ns"] += gap
                    if known and min(known) > busy_end:
                        r["host_wait_ns"] += gap
                        r["short_host_waits"] += gap < THRESHOLD
                    elif known and gap < THRESHOLD:
                        r["kernel_wait_ns"] += gap
                    else:
                        r["other_ns"] += gap
            elif start == busy_end:
                r["touches"] += 1
            for x in group:
                busy_end = x[1] if busy_end is None else max(busy_end, x[1])
            i += len(group)
        out[gpu] = r
    return out


class EdgeRules(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="edge_rules_")
        cls.dir = cls.tmp.name
        subprocess.run([GEN, "--out", cls.dir, "--procs", "2", "--format", "rpd2", "--ops", "4000", "--seed", "5", "--gpus", "1",
                        "--diagnosis", "2"], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(cls.dir, "truth.json")) as f:
            cls.truth = json.load(f)
        cls.brute = {f["db"]: brute(os.path.join(cls.dir, f["file"])) for f in cls.truth["files"]}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_files_hold_the_edge_cases(self):
        for db, gpus in self.brute.items():
            self.assertGreater(sum(r["touches"] for r in gpus.values()), 50, db)  # about 30 % of queue neighbours
            self.assertGreater(sum(r["short_host_waits"] for r in gpus.values()), 5, db)

    def test_truth_agrees_with_the_files(self):
        for f in self.truth["files"]:
            b = self.brute[f["db"]]
            self.assertEqual(sorted(b), [g["gpu"] for g in f["gpus"]])
            for g in f["gpus"]:
                self.assertEqual(g["busy_intervals"], b[g["gpu"]]["busy_intervals"], (f["db"], g["gpu"]))
            for g in f["diagnosis"]["gpus"]:
                for k in ("gaps", "idle_ns", "host_wait_ns", "kernel_wait_ns", "other_ns"):
                    self.assertEqual(g[k], b[g["gpu"]][k], (f["db"], g["gpu"], k))

    def test_extension_agrees(self):
        con = sqlite3.connect(":memory:")
        con.enable_load_extension(True)
        con.load_extension(EXT)
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.dir,)).fetchone()[0], 2)
        rows = con.execute("SELECT db, gpu, gaps, idle_ns, host_wait_ns, kernel_wait_ns, other_ns "
                           "FROM rocpd_idle_breakdown WHERE level = 'gpu'").fetchall()
        self.assertEqual(len(rows), sum(len(g) for g in self.brute.values()))
        for db, gpu, gaps, idle, host, kernel, other in rows:
            b = self.brute[db][gpu]
            self.assertEqual((gaps, idle, host, kernel, other),
                             (b["gaps"], b["idle_ns"], b["host_wait_ns"], b["kernel_wait_ns"], b["other_ns"]), (db, gpu))
        got = {(db, gpu): n for db, gpu, n in con.execute(
            "SELECT db, gpu, count(*) FROM rocpd_busy_intervals GROUP BY db, gpu")}
        self.assertEqual(got, {(db, gpu): r["busy_intervals"] for db, g in self.brute.items() for gpu, r in g.items()})
        got = {(db, gpu): (n, total) for db, gpu, n, total in con.execute(
            "SELECT db, gpu, count(*), sum(\"end\" - start) FROM rocpd_gaps GROUP BY db, gpu")}
        self.assertEqual(got, {(db, gpu): (r["gaps"], r["idle_ns"]) for db, g in self.brute.items() for gpu, r in g.items()})
        con.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
