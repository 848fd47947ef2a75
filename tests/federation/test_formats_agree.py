"""One generated workload written as rpd v2, rpd v3 and rocprofv3 rocpd (and, in layouts/, as
rocpd 4.x and rocprofiler-systems) reads back identically through rocpd_ops / rocpd_apis /
rocpd_union, and equals the generator's ground truth."""
import os
import shutil
import sqlite3
import tempfile

from rocpd_testlib import FIXTURES, ChecksumGuard, connect, generate, main, set_files, truth

SETS = ["same_rpd2", "same_rpd3", "same_rocpd"]


def attach_set(con, name):
    for i, f in enumerate(set_files(name)):
        con.execute("ATTACH ? AS ?", (f, os.path.basename(f).split(".")[0]))


class FormatsAgree(ChecksumGuard):
    watched = [f for s in SETS for f in set_files(s)]

    def aggregates(self, set_name, opened, directory=None):
        con = connect()
        if directory:
            con.execute("SELECT rocpd_open(?)", (directory,))
        elif opened:
            con.execute("SELECT rocpd_open(?)", (os.path.dirname(set_files(set_name)[0]),))
        else:
            attach_set(con, set_name)
        q = {
            "ops": "SELECT db, gpu, kind, name, count(*), sum(duration), min(start), max(\"end\") "
                   "FROM rocpd_ops GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
            "apis": "SELECT db, domain, name, count(*), sum(duration) FROM rocpd_apis GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            "pids": "SELECT db, pid, count(*) FROM rocpd_ops GROUP BY 1, 2 ORDER BY 1, 2",
            # Materialized so SQLite hashes the calls once instead of a lookup per op.
            "linked": "WITH a AS MATERIALIZED (SELECT db, correlation_id FROM rocpd_apis) "
                      "SELECT o.db, count(*) FROM rocpd_ops o JOIN a "
                      "ON a.db = o.db AND a.correlation_id = o.correlation_id GROUP BY 1 ORDER BY 1",
            "top": "SELECT db, name, calls, total_ns, min_ns, max_ns FROM rocpd_union('top') ORDER BY 1, 2",
            "markers": "SELECT db, name, calls, total_ns FROM rocpd_union('markers') ORDER BY 1, 2",
            "members": "SELECT db, pids, first_ns, last_ns, ops, apis, bad_ops FROM rocpd_members ORDER BY 1",
        }
        return {k: con.execute(v).fetchall() for k, v in q.items()}

    def test_three_formats_identical(self):
        base = self.aggregates("same_rpd2", opened=False)
        for s in SETS[1:]:
            other = self.aggregates(s, opened=False)
            for key in base:
                self.assertEqual(base[key], other[key], f"{s}: {key} differs from rpd v2")

    def test_newer_layouts_identical(self):
        # rocprofv3 4.x and rocprofiler-systems keep the '.kd' of kernel descriptors in names; the
        # workload's kernels are the same, so compare the names without it (and the demangled
        # names, which drop it themselves).
        base = self.aggregates("same_rpd2", opened=False)
        for layout in ("same_rocpd4", "same_rocprofsys"):
            other = self.aggregates(None, True, os.path.join(FIXTURES, "layouts", layout))
            for key in base:
                mine = other[key]
                if key == "ops":
                    mine = [r[:3] + (r[3][:-3] if r[3].endswith(".kd") else r[3],) + r[4:] for r in mine]
                    mine.sort(key=lambda r: tuple("" if v is None else v for v in r[:4]))
                if key == "top":
                    mine = sorted((db, n[:-3] if n.endswith(".kd") else n) + tuple(rest) for db, n, *rest in mine)
                self.assertEqual(base[key], mine, f"{layout}: {key} differs from rpd v2")

    def test_rocprofiler_systems_instant_marks(self):
        # rocprofiler-systems keeps an instant roctx mark as a sample whose event category is
        # rocm_marker_api, its message in the 'message' argument (issue 21): every one is a
        # marker row of rocpd_apis, as the file's own tables say (brute force over them).
        d = tempfile.mkdtemp(prefix="rocpd_rsys_")
        try:
            generate(d, 2, "rocprofsys", 1200, 29)
            con = connect()
            con.execute("SELECT rocpd_open(?)", (d,))
            for f in sorted(os.listdir(d)):
                if not f.endswith(".db"):
                    continue
                raw = sqlite3.connect(os.path.join(d, f))
                (u,), = raw.execute("SELECT substr(name, 14) FROM sqlite_master WHERE type = 'table' AND "
                                    "name LIKE 'rocpd_sample\\_%' ESCAPE '\\'")
                want = sorted(raw.execute(
                    f"SELECT th.tid, a.value, s.timestamp FROM rocpd_sample_{u} s "
                    f"JOIN rocpd_event_{u} e ON e.id = s.event_id JOIN rocpd_string_{u} c ON c.id = e.category_id "
                    f"JOIN rocpd_track_{u} tr ON tr.id = s.track_id JOIN rocpd_info_thread_{u} th ON th.id = tr.tid "
                    f"JOIN rocpd_arg_{u} a ON a.event_id = e.id AND a.name = 'message' "
                    "WHERE c.string = 'rocm_marker_api'").fetchall())
                (ranges,), = raw.execute(
                    f"SELECT count(*) FROM rocpd_region_{u} r JOIN rocpd_event_{u} e ON e.id = r.event_id "
                    f"JOIN rocpd_string_{u} c ON c.id = e.category_id WHERE c.string = 'rocm_marker_api'").fetchall()
                raw.close()
                db = f.split(".")[0]
                self.assertGreater(len(want), 0, f"{f}: the generator wrote no instant marks")
                got = sorted(con.execute("SELECT tid, name, start FROM rocpd_apis WHERE db = ? AND domain = 'marker' "
                                         "AND start = \"end\"", (db,)).fetchall())
                self.assertEqual(got, want)
                self.assertEqual(con.execute("SELECT count(*) FROM rocpd_apis WHERE db = ? AND domain = 'marker'",
                                             (db,)).fetchone(), (len(want) + ranges,))
        finally:
            shutil.rmtree(d)

    def test_opened_equals_attached(self):
        for s in SETS:
            self.assertEqual(self.aggregates(s, opened=False), self.aggregates(s, opened=True), s)

    def test_equal_to_ground_truth(self):
        t = truth("same_rpd2")
        got = self.aggregates("same_rocpd", opened=True)
        members = {row[0]: row for row in got["members"]}
        top = {(db, name): (calls, total, mn, mx) for db, name, calls, total, mn, mx in got["top"]}
        for f in t["files"]:
            db = f["db"]
            _, pids, first, last, ops, apis, bad = members[db]
            # truth counts markers apart from API calls; rocpd_apis holds both.
            self.assertEqual((ops, apis, first, last), (f["ops"], f["apis"] + f["markers"], f["first_ns"], f["last_ns"]),
                             db)
            self.assertEqual(pids, "[" + ",".join(map(str, f["pids"])) + "]")
            for e in f["top"]:
                self.assertEqual(top[(db, e["name"])], (e["calls"], e["total_ns"], e["min_ns"], e["max_ns"]),
                                 (db, e["name"]))
            self.assertEqual(sum(1 for k in top if k[0] == db), len(f["top"]))
            per_gpu = {}
            for gdb, gpu, kind, name, n, total, _, _ in got["ops"]:
                if gdb == db:
                    acc = per_gpu.setdefault(gpu, [0, 0])
                    acc[0] += n
                    acc[1] += total
            self.assertEqual(per_gpu, {g["gpu"]: [g["ops"], g["sum_ns"]] for g in f["gpus"]}, db)
            linked = dict(got["linked"])[db]
            self.assertEqual(linked, f["ops"], f"{db}: every op links to its launch call")

    def test_two_sessions_in_one_rpd_file(self):
        t = truth("sessions")
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.dirname(set_files("sessions")[0]),))
        f = t["files"][0]
        self.assertEqual(len(f["pids"]), 2)
        (pids,), = con.execute("SELECT pids FROM rocpd_members WHERE db = ?", (f["db"],))
        self.assertEqual(pids, "[" + ",".join(map(str, sorted(f["pids"]))) + "]")
        rows = con.execute("SELECT pid, count(*) FROM rocpd_ops WHERE db = ? GROUP BY 1", (f["db"],)).fetchall()
        self.assertEqual(sorted(p for p, _ in rows), sorted(f["pids"]))
        self.assertEqual(sum(n for _, n in rows), f["ops"])


if __name__ == "__main__":
    main()
