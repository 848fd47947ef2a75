"""rocpd_ext.recipes: partial states over shares of a job's files, reduced, give the views' rows
(the views over one connection holding every file are the independent answer)."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, PACKAGE_DIR)

from rocpd_ext import recipes  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "federation"))
sys.path.insert(0, HERE)
from compare import same_rows  # noqa: E402
from rocpd_testlib import GEN, SETS, main  # noqa: E402

BUCKET_NS = 1_000_000


class Recipes(unittest.TestCase):
    def check(self, set_name, shares):
        files = recipes.expand(os.path.join(SETS, set_name))
        for query in recipes.QUERIES:
            with self.subTest(set=set_name, query=query):
                parts, lo, hi = [], None, None
                groups = [files[a:b] for a, b in shares]
                self.assertEqual(sorted(f for g in groups for f in g), sorted(files))
                if query == "utilization":
                    firsts = [recipes.spans(g) for g in groups]
                    lo, hi = min(a for a, _ in firsts), max(b for _, b in firsts)
                for g in groups:
                    parts.append(recipes.partial(query, g, BUCKET_NS, lo, hi))
                got = recipes.reduce(query, parts)
                want = recipes.view_rows(query, files, BUCKET_NS)
                self.assertTrue(want)
                same_rows(self, got, want, recipes.COLUMNS[query])

    def test_mixed_job_in_uneven_shares(self):
        self.check("mixed8", [(0, 3), (3, 4), (4, 8)])

    def test_one_share_per_file(self):
        self.check("same_rocpd", [(i, i + 1) for i in range(4)])

    def test_single_participant_collectives(self):
        # A rank alone on its gpu: every collective family has one participant, who waits for nobody
        # and holds nobody back (times_last counts instances among two or more participants).
        tmp = tempfile.mkdtemp(prefix="rocpd_single_")
        try:
            subprocess.run([GEN, "--out", tmp, "--procs", "1", "--gpus", "1", "--format", "rpd3", "--ops", "400",
                            "--seed", "5"], check=True, stdout=subprocess.DEVNULL)
            files = recipes.expand(tmp)
            got = recipes.reduce("stragglers", [recipes.partial("stragglers", files)])
            want = recipes.view_rows("stragglers", files, BUCKET_NS)
            same_rows(self, got, want, recipes.COLUMNS["stragglers"])
            col = recipes.COLUMNS["stragglers"]
            self.assertEqual(len(want), 1)
            row = dict(zip(col, want[0]))
            self.assertGreater(row["collectives"], 10)
            self.assertEqual((row["times_last"], row["caused_wait_ns"], row["wait_ns"]), (0, 0, 0))
        finally:
            shutil.rmtree(tmp)

    def test_expand(self):
        d = os.path.join(SETS, "same_rpd2")
        files = recipes.expand(d)
        self.assertEqual(len(files), 4)
        self.assertEqual(recipes.expand(os.path.join(d, "*.rpd")), files)
        self.assertEqual(recipes.expand(files[0]), files[:1])
        with self.assertRaises(FileNotFoundError):
            recipes.expand(os.path.join(d, "nothing*.db"))

    def test_rocprofv3_tree_keeps_job_names(self):
        # host1/1_results.db and host2/1_results.db: one file per share, each share opened alone,
        # still gives the whole job's member names (issue 23); a stray notes.db is skipped.
        tmp = tempfile.mkdtemp(prefix="rocpd_tree_")
        try:
            src = sorted(os.path.join(SETS, "same_rocpd", f) for f in os.listdir(os.path.join(SETS, "same_rocpd"))
                         if f.endswith(".db"))
            for host, f in (("host1", src[0]), ("host2", src[1])):
                os.makedirs(os.path.join(tmp, host))
                shutil.copyfile(f, os.path.join(tmp, host, "1_results.db"))
            sqlite3.connect(os.path.join(tmp, "notes.db")).execute("CREATE TABLE t(x)").connection.commit()
            found, skipped = recipes.members(tmp)
            self.assertEqual([name for _, name in found], ["host1/1_results", "host2/1_results"])
            self.assertEqual([p for p, _ in skipped], [os.path.join(tmp, "notes.db")])
            for query in ("busy", "utilization"):
                with self.subTest(query=query):
                    lo, hi = [None, None]
                    if query == "utilization":
                        firsts = [recipes.spans([f]) for f in found]
                        lo, hi = min(a for a, _ in firsts), max(b for _, b in firsts)
                    got = recipes.reduce(query, [recipes.partial(query, [f], BUCKET_NS, lo, hi) for f in found])
                    con = recipes.connect()
                    con.execute("SELECT rocpd_open(?)", (tmp,))
                    args = (BUCKET_NS,) if query == "utilization" else ()
                    want = [tuple(r) for r in con.execute(recipes._VIEW[query], args)]
                    self.assertEqual({r[0] for r in want}, {"host1/1_results", "host2/1_results"})
                    same_rows(self, got, want, recipes.COLUMNS[query])
        finally:
            shutil.rmtree(tmp)

    def test_unknown_query(self):
        with self.assertRaises(ValueError) as cm:
            recipes.partial("top", [])
        self.assertIn("one of kernel_summary, op_summary, busy, utilization", str(cm.exception))


if __name__ == "__main__":
    main()
