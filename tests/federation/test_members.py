"""Members past SQLite's attach limit: attached + opened together, 1000 files under a low
file-descriptor limit, aliases, rocpd_close, and members skipped unread by pushdown."""
import json
import os
import resource
import shutil
import tempfile

from rocpd_testlib import ChecksumGuard, connect, generate, main, set_files, truth


class ManyMembers(ChecksumGuard):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_members_")
        cls.job = os.path.join(cls.tmp, "job64")
        cls.truth = generate(cls.job, 64, "mixed", 150, 5)
        cls.files = sorted(os.path.join(cls.job, f["file"]) for f in cls.truth["files"])
        cls.watched = list(cls.files)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_nine_attached_plus_fifty_five_opened(self):
        con = connect()
        for f in self.files[:9]:
            con.execute("ATTACH ? AS ?", (f, "a_" + os.path.basename(f).split(".")[0]))
        opened = sum(con.execute("SELECT rocpd_open(?)", (f,)).fetchone()[0] for f in self.files[9:])
        self.assertEqual(opened, 55)
        n_db, n_ops, total = con.execute("SELECT count(DISTINCT db), count(*), sum(duration) FROM rocpd_ops").fetchone()
        self.assertEqual(n_db, 64)
        self.assertEqual(n_ops, self.truth["job"]["ops"])
        self.assertEqual(total, self.truth["job"]["ops_sum_ns"])
        sources = dict(con.execute("SELECT source, count(*) FROM rocpd_members GROUP BY 1").fetchall())
        self.assertEqual(sources, {"attached": 9, "opened": 55})

    def test_members_rows_match_truth(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.job,))
        rows = {r[0]: r for r in con.execute(
            "SELECT db, path, format, schema_version, uuid, hostname, pids, first_ns, last_ns, ops, apis "
            "FROM rocpd_members")}
        self.assertEqual(len(rows), 64)
        for f in self.truth["files"]:
            db, path, fmt, version, uuid, host, pids, first, last, ops, apis = rows[f["db"]]
            self.assertEqual(os.path.basename(path), f["file"])
            self.assertEqual((fmt, version), (f["format"], f["schema_version"]))
            self.assertEqual(uuid, f["uuid"])
            if f["format"] == "rocpd":
                self.assertEqual(host, f["hostname"])
            self.assertEqual(json.loads(pids), sorted(f["pids"]))
            # truth counts markers apart from API calls; rocpd_apis holds both.
            self.assertEqual((first, last, ops, apis), (f["first_ns"], f["last_ns"], f["ops"], f["apis"] + f["markers"]))

    def test_aliases_are_unique(self):
        other = os.path.join(self.tmp, "copy")
        os.makedirs(other, exist_ok=True)
        shutil.copyfile(self.files[0], os.path.join(other, os.path.basename(self.files[0])))
        con = connect()
        con.execute("ATTACH ? AS rank0", (self.files[0],))
        con.execute("SELECT rocpd_open(?)", (self.files[1],))
        con.execute("SELECT rocpd_open(?)", (os.path.join(other, os.path.basename(self.files[0])),))
        dbs = [r[0] for r in con.execute("SELECT db FROM rocpd_members")]
        # Members are listed in natural order of their names (rank0_2 sorts before rank1).
        self.assertEqual(dbs, ["rank0", "rank0_2", "rank1"])

    def test_close(self):
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.job,)).fetchone()[0], 64)
        self.assertEqual(con.execute("SELECT rocpd_close('rank3')").fetchone()[0], 1)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members").fetchone()[0], 63)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops WHERE db = 'rank3'").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT rocpd_close()").fetchone()[0], 63)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops").fetchone()[0], 0)

    def test_members_skipped_unread(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.job,))
        con.execute("SELECT count(*) FROM rocpd_ops WHERE db = 'rank5'").fetchone()
        stats = json.loads(con.execute("SELECT rocpd_last_scan()").fetchone()[0])
        self.assertEqual((stats["members"], stats["skipped"]), (64, 63))
        con.execute("SELECT count(*) FROM rocpd_ops WHERE gpu = 999").fetchone()
        stats = json.loads(con.execute("SELECT rocpd_last_scan()").fetchone()[0])
        self.assertEqual((stats["skipped"], stats["rows"]), (64, 0))
        last = self.truth["job"]["last_ns"]
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_ops WHERE start > ?", (last,)).fetchone()[0], 0)
        self.assertEqual(json.loads(con.execute("SELECT rocpd_last_scan()").fetchone()[0])["skipped"], 64)

    def test_time_window_equals_filtered_full_scan(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.job,))
        rows = con.execute("SELECT db, op_id, start, \"end\", kind FROM rocpd_ops").fetchall()
        first, last = self.truth["job"]["first_ns"], self.truth["job"]["last_ns"]
        for lo_frac, hi_frac in [(0.0, 0.01), (0.4, 0.41), (0.5, 0.6), (0.99, 1.0)]:
            lo = first + int((last - first) * lo_frac)
            hi = first + int((last - first) * hi_frac)
            want = sorted((db, op, k) for db, op, s, e, k in rows if s <= hi and e >= lo)
            got = sorted(con.execute("SELECT db, op_id, kind FROM rocpd_ops WHERE start <= ? AND \"end\" >= ?",
                                     (hi, lo)).fetchall())
            self.assertEqual(got, want, (lo_frac, hi_frac))
            want_k = sum(1 for db, op, s, e, k in rows if lo <= s < hi and k == "kernel")
            got_k = con.execute("SELECT count(*) FROM rocpd_ops WHERE start >= ? AND start < ? AND kind = 'kernel'",
                                (lo, hi)).fetchone()[0]
            self.assertEqual(got_k, want_k)


class ThousandMembers(ChecksumGuard):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_1000_")
        cls.truth = generate(cls.tmp, 1000, "mixed", 12, 9, "--apis-extra", 2, "--markers", 1)
        cls.watched = []
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_thousand_members_under_low_fd_limit(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        try:
            con = connect()
            self.assertEqual(con.execute("SELECT rocpd_open(?)", (self.tmp,)).fetchone()[0], 1000)
            n, total = con.execute("SELECT count(*), sum(duration) FROM rocpd_ops").fetchone()
            self.assertEqual((n, total), (self.truth["job"]["ops"], self.truth["job"]["ops_sum_ns"]))
            self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members").fetchone()[0], 1000)
            markers = sum(f["markers"] for f in self.truth["files"])
            self.assertEqual(con.execute("SELECT count(*) FROM rocpd_apis").fetchone()[0], self.truth["job"]["apis"] + markers)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class Pushdown(ChecksumGuard):
    watched = set_files("same_rpd2")

    def setUp(self):
        self.con = connect()
        self.con.execute("ATTACH ? AS r0", (set_files("same_rpd2")[0],))

    def plan(self, sql):
        return " ".join(r[3] for r in self.con.execute("EXPLAIN QUERY PLAN " + sql))

    def test_constraints_reach_the_member_query(self):
        p = self.plan("SELECT count(*) FROM rocpd_ops WHERE start >= 5 AND kind = 'kernel' AND db = 'r0' AND gpu = 1")
        self.assertIn("SCAN rocpd_ops VIRTUAL TABLE INDEX ", p)
        for c in ("start>=", "kind=", "db=", "gpu="):
            self.assertIn(c, p)

    def test_only_used_columns_are_fetched(self):
        self.assertIn(":used=40;", self.plan("SELECT name FROM rocpd_ops"))
        self.assertIn(":used=c0;", self.plan("SELECT demangled FROM rocpd_ops"))
        self.assertIn(":used=0;", self.plan("SELECT count(*) FROM rocpd_ops"))
        self.assertIn(":used=600;", self.plan("SELECT sum(duration) FROM rocpd_ops WHERE \"end\" > 0"))

    def test_like_and_unpushable_values(self):
        n = self.con.execute("SELECT count(*) FROM rocpd_ops WHERE name LIKE 'copy%'").fetchone()[0]
        want = self.con.execute("SELECT count(*) FROM rocpd_ops WHERE kind = 'copy'").fetchone()[0]
        self.assertEqual(n, want)
        # Text compared with a time is never pushed (SQLite's own comparison decides).
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_ops WHERE start > 'a'").fetchone()[0], 0)

    def test_named_union_pushdown(self):
        self.con.execute("CREATE VIRTUAL TABLE temp.op_all USING rocpd_union(rocpd_op)")
        cols = [r[1] for r in self.con.execute("PRAGMA temp.table_info(op_all)")]
        self.assertEqual(cols[0], "db")
        self.assertIn("gpuId", cols)
        p = self.plan("SELECT count(*) FROM op_all WHERE db = 'r0' AND gpuId = 1")
        self.assertIn("INDEX 1:", p)
        n = self.con.execute("SELECT count(*) FROM op_all WHERE gpuId = 1").fetchone()[0]
        self.assertEqual(n, self.con.execute("SELECT count(*) FROM r0.rocpd_op WHERE gpuId = 1").fetchone()[0])


if __name__ == "__main__":
    main()
