"""Across ranks (docs/ranks.md): rocpd_collectives, rocpd_stragglers, rocpd_steps, rocpd_step_summary
and rocpd_align('collectives') on generated jobs whose straggler and clock offsets are planted
(rocpd_gen --steps, docs/generator.md).

- Every rocpd_collectives row equals a matching written here from the documented rules over the
  rows of rocpd_ops (its own family parser, participants, issue order, common prefix); per member,
  the lateness, wait and times last equal the generator's truth (computed from its schedule).
- rocpd_stragglers puts the planted rank first with its planted lateness (within the jitter), and
  every row equals an aggregation written here.
- rocpd_align('collectives') recovers the planted host offsets within the jitter; members whose
  residual exceeds the threshold are flagged (offset kept, residual shown), not aligned.
- rocpd_steps and rocpd_step_summary equal a brute force over rocpd_apis/rocpd_ops; in the
  straggled steps the planted rank is the slowest.
- A random job (NCCL kernels drawn per rank, two gpus at once) whose ranks disagree on the counts:
  unmatched rows beyond the common prefix, never shifted.
"""
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, generate, main  # noqa: E402

JITTER = 1000
ONE_CLOCK = dict(procs=6, straggler=4, delay=250_000, steps=6, per_step=4)
SKEWED = dict(procs=8, straggler=5, delay=300_000, steps=6, per_step=4)
TMP = None
JOBS = {}


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="ranks_test_")
    JOBS["one_clock"] = (os.path.join(TMP, "one_clock"), generate(
        os.path.join(TMP, "one_clock"), ONE_CLOCK["procs"], "mixed", 900, 31, "--steps", ONE_CLOCK["steps"],
        "--straggler", "%d:%d" % (ONE_CLOCK["straggler"], ONE_CLOCK["delay"]), "--gpus", 1,
        "--collective-jitter", JITTER))
    JOBS["skewed"] = (os.path.join(TMP, "skewed"), generate(
        os.path.join(TMP, "skewed"), SKEWED["procs"], "mixed", 800, 5, "--steps", SKEWED["steps"],
        "--straggler", "%d:%d" % (SKEWED["straggler"], SKEWED["delay"]), "--host-skew", 5_000_000, "--gpus", 1,
        "--collective-jitter", JITTER))


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def opened(job):
    con = connect()
    con.execute("SELECT rocpd_open(?)", (JOBS[job][0] if job in JOBS else job,))
    return con


def rows_of(con, sql, args=()):
    cur = con.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur]


# --- the matching, from the documented rules ---------------------------------------------------

COMM = re.compile(r"nccl|rccl|cross_device_reduce", re.I)


def family(name):
    name = name.split("\0")[0]
    low = name.lower()
    for prefix in ("nccldevkernel_", "ncclkernel_"):
        i = low.find(prefix)
        if i >= 0:
            m = re.match(r"[A-Za-z0-9]+", name[i + len(prefix):])
            if m:
                return m.group(0)
    found = [p for p in (low.find(w) for w in ("nccl", "rccl", "cross_device_reduce")) if p >= 0]
    if not found:
        return name
    at = min(found)
    d = re.search(r"(?<![0-9])([0-9]{1,4})$", name[:at])
    if d and 0 < int(d.group(1)) and at + int(d.group(1)) <= len(name):
        return name[at:at + int(d.group(1))]
    return re.match(r"[A-Za-z0-9_]*", name[at:]).group(0)


def brute_collectives(con):
    ops = rows_of(con, "SELECT rowid, db, pid, gpu, queue, stream, op_id, kind, name, start, \"end\" FROM rocpd_ops")
    coll = [o for o in ops if o["kind"] == "kernel" and isinstance(o["name"], str)
            and COMM.search(o["name"].split("\0")[0]) and o["start"] is not None and o["end"] is not None]
    groups = {}
    for o in coll:
        o["family"] = family(o["name"])
        groups.setdefault(o["family"], {}).setdefault((o["db"], o["pid"], o["gpu"]), []).append(o)
    out = {}
    for fam, parts in groups.items():
        for lst in parts.values():
            lst.sort(key=lambda o: (o["start"], o["rowid"]))
        common = min(len(lst) for lst in parts.values())
        for lst in parts.values():
            for n, o in enumerate(lst):
                row = {k: o[k] for k in ("db", "pid", "gpu", "queue", "stream", "op_id", "name", "family", "start", "end")}
                row.update(instance=n, family_count=len(lst), matched_count=common, participants=None, arrival=None,
                           late_ns=None, wait_ns=None, caused_wait_ns=None)
                if n < common:
                    starts = [other[n]["start"] for other in parts.values()]
                    first, last = min(starts), max(starts)
                    row.update(participants=len(starts), arrival=1 + sum(s < o["start"] for s in starts),
                               late_ns=o["start"] - first, wait_ns=last - o["start"],
                               caused_wait_ns=sum(last - s for s in starts) if o["start"] == last and len(starts) > 1
                               else 0)
                out[o["rowid"]] = row
    return out


def collectives(con):
    rows = rows_of(con, "SELECT rowid, * FROM rocpd_collectives")
    return {r.pop("rowid"): r for r in rows}


def percentile(values, p):
    """percentile(x, p) of docs/stats.md, exact."""
    v = sorted(values)
    h = Fraction(len(v) - 1) * Fraction(p) / 100
    k = int(h)
    exact = v[k] + (h - k) * (v[k + 1] - v[k]) if k + 1 < len(v) else Fraction(v[k])
    return int(exact) if exact.denominator == 1 else float(exact)


def brute_stragglers(coll):
    by = {}
    for r in coll.values():
        by.setdefault((r["db"], r["pid"], r["gpu"]), []).append(r)
    out = []
    for (db, pid, gpu), rs in by.items():
        m = [r for r in rs if r["arrival"] is not None]
        late = [r["late_ns"] for r in m]
        out.append(dict(db=db, pid=pid, gpu=gpu, collectives=len(m),
                        times_last=sum(1 for r in m if r["wait_ns"] == 0 and r["participants"] > 1),
                        late_ns=sum(late) if m else None,
                        late_p50_ns=percentile(late, 50) if m else None,
                        late_p95_ns=percentile(late, 95) if m else None,
                        late_max_ns=max(late) if m else None,
                        wait_ns=sum(r["wait_ns"] for r in m) if m else None,
                        caused_wait_ns=sum(r["caused_wait_ns"] for r in m) if m else None,
                        unmatched=len(rs) - len(m)))
    # NULLs sort first in SQLite's DESC order last: members without a matched collective come last.
    out.sort(key=lambda r: (r["caused_wait_ns"] is None, -(r["caused_wait_ns"] or 0),
                            r["late_ns"] is None, -(r["late_ns"] or 0), r["db"], r["pid"], r["gpu"]))
    return out


# --- steps, from the documented rules ----------------------------------------------------------

def like(pattern, text):
    rx = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, text, re.I | re.S) is not None


def union_clipped(intervals, lo, hi):
    parts = sorted((max(s, lo), min(e, hi)) for s, e in intervals if min(e, hi) > max(s, lo))
    total, cur_s, cur_e = 0, None, None
    for s, e in parts:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


def brute_steps(con, coll, pattern="ProfilerStep#%"):
    ranges = [r for r in rows_of(con, "SELECT rowid, db, pid, tid, name, start, \"end\" FROM rocpd_apis "
                                      "WHERE domain = 'marker' AND \"end\" > start")
              if isinstance(r["name"], str) and like(pattern, r["name"])]
    ops = {}
    for db, pid, s, e in con.execute("SELECT db, pid, start, \"end\" FROM rocpd_ops"):
        if s is not None and e is not None:
            ops.setdefault((db, pid), []).append((s, e))
    cs = {}
    for r in coll.values():
        cs.setdefault((r["db"], r["pid"]), []).append(r)
    by = {}
    for r in ranges:
        by.setdefault((r["db"], r["pid"]), []).append(r)
    out = []
    for (db, pid), rs in sorted(by.items()):
        rs.sort(key=lambda r: (r["start"], r["rowid"]))
        mine = cs.get((db, pid), [])
        for k, r in enumerate(rs):
            lo, hi = r["start"], r["end"]
            busy = union_clipped(ops.get((db, pid), []), lo, hi)
            out.append(dict(db=db, pid=pid, tid=r["tid"], step=k, name=r["name"], start=lo, end=hi, duration=hi - lo,
                            busy_ns=busy,
                            collective_ns=union_clipped([(c["start"], c["end"]) for c in mine], lo, hi),
                            wait_ns=union_clipped([(c["start"], c["start"] + c["wait_ns"]) for c in mine
                                                   if c["wait_ns"]], lo, hi),
                            idle_ns=hi - lo - busy,
                            collectives=sum(1 for c in mine if lo <= c["start"] < hi)))
    return out


def brute_step_summary(steps):
    by = {}
    for r in steps:
        by.setdefault(r["step"], []).append(r)
    out = []
    for k in sorted(by):
        rs = by[k]
        slowest = sorted(rs, key=lambda r: (-(r["duration"] - r["wait_ns"]), r["db"], r["pid"]))[0]
        work = [r["duration"] - r["wait_ns"] for r in rs]
        out.append(dict(step=k, name=min(r["name"] for r in rs), ranks=len(rs), slowest_db=slowest["db"],
                        slowest_pid=slowest["pid"], slowest_work_ns=max(work), fastest_work_ns=min(work),
                        spread_ns=max(work) - min(work), min_duration_ns=min(r["duration"] for r in rs),
                        max_duration_ns=max(r["duration"] for r in rs), wait_ns=sum(r["wait_ns"] for r in rs)))
    return out


class Collectives(unittest.TestCase):
    def check_brute_force(self, con):
        got = collectives(con)
        want = brute_collectives(con)
        self.assertEqual(set(got), set(want))
        for rowid, row in want.items():
            self.assertEqual(got[rowid], row, rowid)
        return got

    def test_rows_equal_brute_force_and_truth(self):
        con = opened("one_clock")
        got = self.check_brute_force(con)
        truth = {f["db"]: f["steps"] for f in JOBS["one_clock"][1]["files"]}
        self.assertEqual(set(r["family"] for r in got.values()), {"AllReduce", "AllGather", "ReduceScatter"})
        for db, t in truth.items():
            mine = [r for r in got.values() if r["db"] == db]
            self.assertEqual(len(mine), t["collectives"], db)
            self.assertTrue(all(r["arrival"] is not None and r["participants"] == ONE_CLOCK["procs"] for r in mine))
            self.assertEqual(sum(r["late_ns"] for r in mine), t["late_ns"], db)
            self.assertEqual(sum(r["wait_ns"] for r in mine), t["wait_ns"], db)
            self.assertEqual(sum(1 for r in mine if r["wait_ns"] == 0), t["times_last"], db)

    def test_disagreeing_counts_are_not_shifted(self):
        # The random workload draws NCCL kernels per rank (and runs some on two gpus at once).
        con = opened(os.path.join(SETS, "mixed8"))
        got = self.check_brute_force(con)
        unmatched = [r for r in got.values() if r["arrival"] is None]
        self.assertGreater(len(unmatched), 50)
        self.assertTrue(all(r["instance"] >= r["matched_count"] for r in unmatched))
        self.assertTrue(all(r["family_count"] > r["matched_count"] for r in unmatched))
        self.assertGreater(len({(r["db"], r["gpu"]) for r in got.values()}), 8)  # several gpus per member

    def test_plain_table_behaviour(self):
        con = opened("one_clock")
        rows = con.execute("SELECT rowid, db, family, instance FROM rocpd_collectives").fetchall()
        self.assertEqual(len({r[0] for r in rows}), len(rows))
        self.assertEqual(rows, con.execute("SELECT rowid, db, family, instance FROM rocpd_collectives").fetchall())
        self.assertEqual(sorted(con.execute("SELECT rowid, db FROM rocpd_collectives WHERE db = 'rank2'").fetchall()),
                         sorted((r[0], r[1]) for r in rows if r[1] == "rank2"))
        n = con.execute("SELECT count(*) FROM rocpd_collectives WHERE db = 'rank1' OR family = 'AllGather'").fetchone()[0]
        self.assertEqual(n, sum(1 for r in rows if r[1] == "rank1" or r[2] == "AllGather"))
        n = con.execute("SELECT count(*) FROM rocpd_collectives c JOIN rocpd_ops o ON o.rowid = c.rowid "
                        "WHERE c.db = 'rank3' AND o.op_id = c.op_id AND o.start = c.start").fetchone()[0]
        self.assertEqual(n, sum(1 for r in rows if r[1] == "rank3"))

    def test_empty_and_directonly(self):
        con = connect()
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_collectives").fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_steps").fetchone()[0], 0)
        # The views refuse an empty federation, as every analysis view does (docs/views.md).
        for view in ("rocpd_stragglers", "rocpd_step_summary"):
            with self.assertRaisesRegex(Exception, f"^{view}: no trace is open on this connection"):
                con.execute(f"SELECT count(*) FROM {view}").fetchall()
        con.execute("CREATE TABLE t(x)")
        con.execute("CREATE VIEW v AS SELECT count(*) FROM rocpd_collectives")
        con.execute("PRAGMA trusted_schema = 1")
        with self.assertRaisesRegex(Exception, "unsafe use of virtual table"):
            con.execute("SELECT * FROM v").fetchall()


class SingleParticipant(unittest.TestCase):
    """A collective only one rank runs (a family with one participant): its instances have an arrival
    but nobody waits, so they are never 'times last' and cause no wait (docs/ranks.md)."""

    LONE = "ncclDevKernel_Broadcast_RING_LL"

    @classmethod
    def setUpClass(cls):
        cls.dir = os.path.join(TMP, "lone_family")
        shutil.copytree(JOBS["one_clock"][0], cls.dir)
        # Five of rank0's compute kernels renamed to a collective of a family no other rank runs.
        w = sqlite3.connect(os.path.join(cls.dir, "rank0.rpd"))
        w.execute("INSERT INTO rocpd_string(string) VALUES (?)", (cls.LONE,))
        w.execute("UPDATE rocpd_op SET description_id = (SELECT max(id) FROM rocpd_string) WHERE id IN "
                  "(SELECT o.id FROM rocpd_op AS o JOIN rocpd_string AS s ON s.id = o.description_id "
                  "JOIN rocpd_string AS t ON t.id = o.opType_id WHERE t.string = 'KernelExecution' "
                  "AND s.string NOT LIKE '%nccl%' ORDER BY o.id LIMIT 5)")
        w.commit()
        w.close()

    def test_times_last_and_caused_wait(self):
        con = opened(self.dir)
        coll = collectives(con)
        lone = [r for r in coll.values() if r["family"] == "Broadcast"]
        self.assertEqual(len(lone), 5)
        self.assertTrue(all(r["db"] == "rank0" and r["participants"] == 1 and r["arrival"] == 1 and r["wait_ns"] == 0
                            and r["caused_wait_ns"] == 0 for r in lone))
        got = rows_of(con, "SELECT * FROM rocpd_stragglers")
        self.assertEqual(got, brute_stragglers(coll))
        truth = {f["db"]: f["steps"] for f in JOBS["one_clock"][1]["files"]}
        rank0 = [r for r in got if r["db"] == "rank0"][0]
        # The lone instances count as matched collectives, not as times last, and add no caused wait.
        self.assertEqual(rank0["collectives"], truth["rank0"]["collectives"] + 5)
        self.assertEqual(rank0["times_last"], truth["rank0"]["times_last"])
        step_coll = [r for r in coll.values() if r["db"] == "rank0" and r["family"] != "Broadcast"]
        caused = sum(sum(o["wait_ns"] for o in coll.values() if o["family"] == r["family"] and
                         o["instance"] == r["instance"]) for r in step_coll if r["wait_ns"] == 0)
        self.assertEqual(rank0["caused_wait_ns"], caused)


class Stragglers(unittest.TestCase):
    def test_planted_straggler_first(self):
        con = opened("one_clock")
        got = rows_of(con, "SELECT * FROM rocpd_stragglers")
        self.assertEqual(got, brute_stragglers(collectives(con)))
        first = got[0]
        self.assertEqual(first["db"], "rank%d" % ONE_CLOCK["straggler"])
        d = ONE_CLOCK["delay"]
        # Late by D in half of the collectives (the odd steps), on time (within the jitter) in the others.
        self.assertLessEqual(abs(first["late_p95_ns"] - d), JITTER)
        self.assertLessEqual(abs(first["late_max_ns"] - d), JITTER)
        self.assertLessEqual(first["late_p50_ns"], d + JITTER)
        self.assertGreater(first["caused_wait_ns"], (ONE_CLOCK["procs"] - 1) * (d - JITTER) *
                           ONE_CLOCK["per_step"] * (ONE_CLOCK["steps"] // 2))
        for r in got[1:]:
            self.assertLessEqual(r["late_max_ns"], JITTER, r["db"])
        self.assertTrue(all(r["unmatched"] == 0 for r in got))

    def test_after_alignment_of_a_skewed_job(self):
        con = opened("skewed")
        before = rows_of(con, "SELECT * FROM rocpd_stragglers")
        self.assertNotEqual(before[0]["db"], "rank%d" % SKEWED["straggler"])  # the clocks hide it
        self.assertEqual(con.execute("SELECT rocpd_align('collectives')").fetchone()[0], SKEWED["procs"])
        got = rows_of(con, "SELECT * FROM rocpd_stragglers")
        self.assertEqual(got, brute_stragglers(collectives(con)))
        self.assertEqual(got[0]["db"], "rank%d" % SKEWED["straggler"])
        # The alignment is good to the jitter, which adds to the arrivals' own jitter.
        self.assertLessEqual(abs(got[0]["late_p95_ns"] - SKEWED["delay"]), 2 * JITTER)


class Align(unittest.TestCase):
    def planted(self):
        return {f["db"]: f["clock_offset_ns"] for f in JOBS["skewed"][1]["files"]}

    def test_recovers_planted_offsets(self):
        con = opened("skewed")
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members WHERE clock_residual_ns IS NULL").fetchone()[0],
                         SKEWED["procs"])
        self.assertEqual(con.execute("SELECT rocpd_align('collectives')").fetchone()[0], SKEWED["procs"])
        planted = self.planted()
        self.assertGreater(len(set(planted.values())), 2)
        for db, offset, residual in con.execute("SELECT db, clock_offset, clock_residual_ns FROM rocpd_members"):
            # rank0 (node 0, planted offset 0) is the reference: every clock moves back by its planted offset.
            self.assertLessEqual(abs(offset + planted[db]), JITTER, db)
            self.assertIsNotNone(residual)
            self.assertLessEqual(residual, JITTER, db)
        self.assertEqual(con.execute("SELECT clock_offset FROM rocpd_members WHERE db = 'rank0'").fetchone()[0], 0)
        # Aligning again changes nothing; another method clears the residuals; a hand-set offset clears its own.
        offsets = dict(con.execute("SELECT db, clock_offset FROM rocpd_members"))
        con.execute("SELECT rocpd_align('collectives')").fetchone()
        self.assertEqual(dict(con.execute("SELECT db, clock_offset FROM rocpd_members")), offsets)
        con.execute("SELECT rocpd_clock_offset('rank1', 5)").fetchone()
        self.assertEqual(con.execute("SELECT db FROM rocpd_members WHERE clock_residual_ns IS NULL").fetchall(),
                         [("rank1",)])
        con.execute("SELECT rocpd_align('none')").fetchone()
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_members WHERE clock_residual_ns IS NULL "
                                     "AND clock_offset = 0").fetchone()[0], SKEWED["procs"])
        # The one-collective form still works.
        self.assertEqual(con.execute("SELECT rocpd_align('collective', 'ncclDevKernel_AllGather%')").fetchone()[0],
                         SKEWED["procs"])

    def test_high_residuals_are_flagged_not_aligned(self):
        con = opened("skewed")
        con.execute("SELECT rocpd_align('collectives')").fetchone()
        residuals = sorted(r for (r,) in con.execute("SELECT clock_residual_ns FROM rocpd_members"))
        threshold = residuals[len(residuals) // 2]
        con = opened("skewed")
        aligned = con.execute("SELECT rocpd_align('collectives', ?)", (threshold,)).fetchone()[0]
        rows = rows_of(con, "SELECT db, clock_offset, clock_residual_ns FROM rocpd_members")
        flagged = [r for r in rows if r["clock_residual_ns"] > threshold]
        self.assertGreater(len(flagged), 0)
        self.assertEqual(aligned, len(rows) - len(flagged))
        planted = self.planted()
        for r in rows:
            if r in flagged:
                self.assertEqual(r["clock_offset"], 0, r)  # left where it was
            else:
                self.assertLessEqual(abs(r["clock_offset"] + planted[r["db"]]), JITTER, r)

    def test_errors(self):
        con = opened("skewed")
        for sql, msg in (
                ("SELECT rocpd_align('collectives', -1)",
                 "rocpd_align('collectives', max_residual_ns): max_residual_ns must be an integer >= 0"),
                ("SELECT rocpd_align('collectives', 'x')",
                 "rocpd_align('collectives', max_residual_ns): max_residual_ns must be an integer >= 0"),
                ("SELECT rocpd_align('collectives', 1, 2)",
                 "rocpd_align('collectives') takes at most one more argument, max_residual_ns"),
                ("SELECT rocpd_align('sideways')", "rocpd_align('sideways'): unknown method; use 'collectives'")):
            with self.subTest(sql=sql):
                with self.assertRaises(Exception) as cm:
                    con.execute(sql).fetchone()
                self.assertIn(msg, str(cm.exception))
        with self.assertRaises(Exception) as cm:
            connect().execute("SELECT rocpd_align('collectives')").fetchone()
        self.assertIn("rocpd_align('collectives'): no collective is matched across members (rocpd_collectives has no "
                      "instance with two participants or more)", str(cm.exception))


class Recipe(unittest.TestCase):
    """rocpd_ext.recipes' stragglers (the Dask recipe's steps): members' collective lists from
    shares of the files, matched by the reducer, give the view's rows."""

    def test_shares_reduce_to_the_view(self):
        sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "python")))
        from rocpd_ext import recipes
        files = recipes.expand(JOBS["one_clock"][0])
        self.assertEqual(len(files), ONE_CLOCK["procs"])
        for shares in ([files[:1], files[1:4], files[4:]], [[f] for f in files]):
            parts = [recipes.partial("stragglers", share) for share in shares]
            # What travels: six values per collective of the share's members.
            self.assertEqual(sum(len(p) for p in parts), ONE_CLOCK["procs"] * ONE_CLOCK["steps"] * ONE_CLOCK["per_step"])
            got = recipes.reduce("stragglers", parts)
            self.assertEqual(got, recipes.view_rows("stragglers", files))
            self.assertEqual(got[0][0], "rank%d" % ONE_CLOCK["straggler"])


class Steps(unittest.TestCase):
    def test_rows_equal_brute_force(self):
        con = opened("one_clock")
        coll = collectives(con)
        got = rows_of(con, "SELECT * FROM rocpd_steps")
        want = brute_steps(con, coll)
        self.assertEqual(len(got), ONE_CLOCK["procs"] * ONE_CLOCK["steps"])
        self.assertEqual(got, want)
        self.assertTrue(all(r["collectives"] == ONE_CLOCK["per_step"] and r["collective_ns"] > 0 for r in got))
        # Another pattern, as an argument and as the hidden column.
        for sql in ("SELECT db, pid, tid, step, name, start, \"end\", duration, busy_ns, collective_ns, wait_ns, idle_ns, "
                    "collectives FROM rocpd_steps('%Step#1_')",
                    "SELECT db, pid, tid, step, name, start, \"end\", duration, busy_ns, collective_ns, wait_ns, idle_ns, "
                    "collectives FROM rocpd_steps WHERE pattern = '%Step#1_'"):
            self.assertEqual(rows_of(con, sql), brute_steps(con, coll, "%Step#1_"))
        other = rows_of(con, "SELECT *, pattern FROM rocpd_steps('forward')")
        self.assertEqual([{k: v for k, v in r.items() if k != "pattern"} for r in other],
                         brute_steps(con, coll, "forward"))
        self.assertTrue(other and all(r["pattern"] == "forward" for r in other))
        self.assertEqual(con.execute("SELECT DISTINCT pattern FROM rocpd_steps").fetchall(), [("ProfilerStep#%",)])
        rowids = [r[0] for r in con.execute("SELECT rowid FROM rocpd_steps")]
        self.assertEqual(len(set(rowids)), len(rowids))

    def test_ranges_alone(self):
        # A statement reading no column of the process's time reads only the marker ranges (docs/ranks.md):
        # the same rows and rowids as the full read, and the brute force's ranges.
        con = opened("one_clock")
        ranges = ("db", "pid", "tid", "step", "name", "start", "end", "duration")
        want = [{k: r[k] for k in ranges} for r in brute_steps(con, collectives(con))]
        cols = ", ".join(f'"{c}"' for c in ranges)
        self.assertEqual(rows_of(con, f"SELECT {cols} FROM rocpd_steps"), want)
        full = con.execute(f"SELECT rowid, {cols}, idle_ns FROM rocpd_steps").fetchall()
        alone = con.execute(f"SELECT rowid, {cols} FROM rocpd_steps").fetchall()
        self.assertEqual(alone, [r[:-1] for r in full])
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_steps WHERE duration > 0").fetchone()[0], len(want))
        # A time column only in WHERE is read too.
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_steps WHERE busy_ns >= 0 AND collectives > 0").fetchone()[0],
                         sum(1 for r in brute_steps(con, collectives(con)) if r["collectives"] > 0))

    def test_summary_names_the_straggler(self):
        con = opened("one_clock")
        steps = rows_of(con, "SELECT * FROM rocpd_steps")
        got = rows_of(con, "SELECT * FROM rocpd_step_summary")
        self.assertEqual(got, brute_step_summary(steps))
        straggled = {f["db"]: f["steps"]["straggled_steps"] for f in JOBS["one_clock"][1]["files"]}
        mine = straggled["rank%d" % ONE_CLOCK["straggler"]]
        self.assertEqual(mine, [1, 3, 5])
        d, per = ONE_CLOCK["delay"], ONE_CLOCK["per_step"]
        for r in got:
            if r["step"] in mine:
                self.assertEqual(r["slowest_db"], "rank%d" % ONE_CLOCK["straggler"], r)
                self.assertGreater(r["spread_ns"], per * (d - 2 * JITTER))
                self.assertLess(r["spread_ns"], per * (d + 2 * JITTER) + 50_000)
            else:
                self.assertLess(r["spread_ns"], d // 2, r)

    def test_errors(self):
        con = opened("one_clock")
        with self.assertRaises(Exception) as cm:
            con.execute("SELECT * FROM rocpd_steps(3)").fetchall()
        self.assertIn("rocpd_steps: pattern must be text (a LIKE pattern such as 'ProfilerStep#%')", str(cm.exception))
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_steps(NULL)").fetchone()[0],
                         ONE_CLOCK["procs"] * ONE_CLOCK["steps"])


if __name__ == "__main__":
    main()
