"""rocpd-ext compare on generated run pairs whose truth is planted (docs/cli.md, "compare"): a
slower step with the same kernels leads the output with the step time; one kernel twice as slow
per call among kernels with random noise ranks first while the noisy ones are "within noise" (the
Mann-Whitney p values against a brute force that counts pairs); kernels whose display names differ
only in their digest are paired; a run that does less work in the same window shows it per second."""
import csv
import html.parser
import io
import re
import json
import math
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "federation"))
from clitest import GEN, connect, kineto_trace, require, run  # noqa: E402
from compare_truth import brute_p, same_p  # noqa: E402
from tiny_traces import make_rpd  # noqa: E402

ALL = "100000"


def csv_blocks(text):
    blocks = []
    for chunk in text.rstrip("\n").split("\n\n"):
        rows = list(csv.reader(io.StringIO(chunk + "\n")))
        blocks.append((rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]))
    return blocks


def generate(out, steps=4, ops=3000, procs=2, fmt="rpd3"):
    args = [GEN, "--out", out, "--procs", str(procs), "--format", fmt, "--ops", str(ops), "--seed", "7"]
    if steps:
        args += ["--steps", str(steps)]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return out


def rpd_files(path):
    return [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith(".rpd")]


class ComparePlanted(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require()
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_cmp44_")
        cls.base = generate(os.path.join(cls._tmp.name, "base"))

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def copy(self, name):
        out = os.path.join(self._tmp.name, name)
        shutil.copytree(self.base, out)
        return out

    def kernels(self, path):
        """{raw name: [durations]} of a run's kernels."""
        con = connect(path)
        out = {}
        for name, d in con.execute("SELECT name, duration FROM rocpd_ops WHERE kind = 'kernel'"):
            out.setdefault(name, []).append(d)
        con.close()
        return out

    def test_a_slower_step_with_the_same_kernels_leads_with_the_step_time(self):
        slow = self.copy("slow_step")
        added = 5_000_000  # every step range 5 ms longer; no op changes
        for f in rpd_files(slow):
            con = sqlite3.connect(f)
            n = con.execute('UPDATE rocpd_api SET "end" = "end" + ? WHERE id IN (SELECT a.id FROM rocpd_api AS a'
                            " JOIN rocpd_ustring AS s ON s.id = a.args_id WHERE s.string LIKE 'ProfilerStep#%')",
                            (added,)).rowcount
            self.assertGreater(n, 0)
            con.commit()
            con.close()
        con = connect(self.base)
        steps_a = sorted(d for d, in con.execute("SELECT duration FROM rocpd_ranges WHERE name LIKE 'ProfilerStep#%'"))
        con.close()
        steps_b = [d + added for d in steps_a]
        out, err, _ = run("compare", self.base, slow, "-f", "json", "-n", ALL)
        self.assertEqual(err, "")
        doc = json.loads(out)
        self.assertEqual(list(doc)[:2], ["warnings", "time"])
        rows = {r["measure"]: r for r in doc["time"]}
        self.assertEqual([r["measure"] for r in doc["time"]][:4],
                         ["steps", "step time, mean", "step time, median", "step time, p90"])
        self.assertEqual((rows["steps"]["a"], rows["steps"]["b"]), (len(steps_a), len(steps_b)))
        p90 = lambda v: v[math.ceil(0.9 * len(v)) - 1]  # noqa: E731
        for measure, f in (("step time, mean", statistics.fmean), ("step time, median", statistics.median),
                           ("step time, p90", p90)):
            self.assertAlmostEqual(rows[measure]["a"], f(steps_a), delta=0.006, msg=measure)
            self.assertAlmostEqual(rows[measure]["b"], f(steps_b), delta=0.006, msg=measure)
            self.assertAlmostEqual(rows[measure]["change"], added, delta=0.011, msg=measure)
        # The same kernels: nothing to rank, every kernel within noise (identical durations).
        self.assertEqual({r["verdict"] for r in doc["kernels"]}, {"within noise"})
        self.assertTrue(all(r["impact_ns"] is None for r in doc["kernels"]))
        # The text leads with it: the headline, then the step time, then the time table.
        table, _, _ = run("compare", self.base, slow)
        lines = table.splitlines()
        mean_a = statistics.fmean(steps_a)
        self.assertTrue(lines[1].startswith("mean step time "), lines[1])
        self.assertIn(f"(+{100.0 * added / mean_a:.1f} %)", lines[1])
        self.assertTrue(lines[3].startswith("Time: the runs' steps"), lines[3])

    def test_one_kernel_twice_as_slow_among_noisy_ones_ranks_first(self):
        a, b = self.copy("noisy_a"), self.copy("noisy_b")
        calls = {n: len(d) for n, d in self.kernels(self.base).items()}
        slowed = max(calls, key=lambda n: (calls[n], n))
        for path, seed, slow in ((a, 1, False), (b, 2, True)):
            rng = random.Random(seed)
            for f in rpd_files(path):
                con = sqlite3.connect(f)
                rows = con.execute('SELECT o.id, o.start, o."end", s.string FROM rocpd_op AS o JOIN rocpd_string AS s'
                                   " ON s.id = o.description_id WHERE o.opType_id IN (SELECT id FROM rocpd_string"
                                   " WHERE string = 'KernelExecution') ORDER BY o.id").fetchall()
                updates = []
                for op_id, start, end, name in rows:
                    factor = rng.uniform(0.85, 1.15) * (2.0 if slow and name == slowed else 1.0)
                    updates.append((start + max(1, round((end - start) * factor)), op_id))
                con.executemany('UPDATE rocpd_op SET "end" = ? WHERE id = ?', updates)
                con.commit()
                con.close()
        ka, kb = self.kernels(a), self.kernels(b)
        out, err, _ = run("compare", a, b, "-f", "csv", "--section", "kernels", "-n", ALL)
        self.assertEqual(err, "")
        [(header, rows)] = csv_blocks(out)
        self.assertEqual(header, ["kernel", "calls_a", "calls_b", "calls_per_step_a", "calls_per_step_b", "total_a_ns",
                                  "total_b_ns", "med_a_ns", "med_b_ns", "med_ratio", "p_value", "verdict", "impact_ns"])
        con = connect()
        shown = {n: con.execute("SELECT rocpd_display_name(?)", (n,)).fetchone()[0] for n in ka}
        self.assertEqual(rows[0]["kernel"], shown[slowed])
        self.assertEqual(rows[0]["verdict"], "slower")
        self.assertGreater(float(rows[0]["med_ratio"]), 1.8)
        steps = 8  # 2 ranks x 4 steps
        want_impact = (statistics.median(kb[slowed]) - statistics.median(ka[slowed])) * len(ka[slowed]) / steps
        self.assertAlmostEqual(float(rows[0]["impact_ns"]), want_impact, delta=0.051)
        # Every other kernel moved by noise alone: within noise, never ranked; p against the brute force.
        by_shown = {shown[n]: n for n in ka}
        self.assertEqual(len(rows), len(ka))
        noisy_medians_moved = 0
        for r in rows[1:]:
            self.assertIn(r["verdict"], ("within noise", "too few calls"), r)
            self.assertEqual(r["impact_ns"], "")
            n = by_shown[r["kernel"]]
            if r["verdict"] == "within noise":
                self.assertTrue(same_p(r["p_value"], brute_p(ka[n], kb[n])[0]), (n, r["p_value"]))
                noisy_medians_moved += statistics.median(ka[n]) != statistics.median(kb[n])
        self.assertGreater(noisy_medians_moved, 10)  # the noise moved the medians: they are noisy
        self.assertLess(brute_p(ka[slowed], kb[slowed])[0], 0.001)
        table, _, _ = run("compare", a, b, "--section", "kernels", "-n", "3")
        self.assertIn("within noise", table)

    def test_kernels_renamed_by_their_digest_are_paired(self):
        renamed = self.copy("renamed")
        con = connect()
        calls = {n: len(d) for n, d in self.kernels(self.base).items()}
        digest = [n for n in calls if "~" in con.execute("SELECT rocpd_display_name(?)", (n,)).fetchone()[0]]
        self.assertTrue(digest, "no kernel whose display name has a digest")
        target = max(digest, key=lambda n: (calls[n], n))
        new = target + "_SN1"  # a flag the display name leaves out: the same head, another digest
        old_shown, new_shown = (con.execute("SELECT rocpd_display_name(?)", (x,)).fetchone()[0] for x in (target, new))
        self.assertNotEqual(old_shown, new_shown)
        self.assertEqual(old_shown.rsplit("~", 1)[0], new_shown.rsplit("~", 1)[0])
        for f in rpd_files(renamed):
            db = sqlite3.connect(f)
            db.execute("UPDATE rocpd_string SET string = ? WHERE string = ?", (new, target))
            db.commit()
            db.close()
        out, _, _ = run("compare", self.base, renamed, "-f", "json", "--section", "kernels", "-n", ALL)
        rows = {r["kernel"]: r for r in json.loads(out)["kernels"]}
        head = old_shown.rsplit("~", 1)[0]
        self.assertEqual((rows[head]["calls_a"], rows[head]["calls_b"]), (calls[target], calls[target]))
        self.assertEqual(rows[head]["verdict"], "within noise")
        self.assertNotIn(old_shown, rows)
        # --raw-names: the raw names apart, each in one run only (shown by their display names).
        out, _, _ = run("compare", self.base, renamed, "-f", "json", "--section", "kernels", "-n", ALL, "--raw-names")
        rows = {r["kernel"]: r for r in json.loads(out)["kernels"]}
        self.assertEqual((rows[old_shown]["verdict"], rows[new_shown]["verdict"]), ("only in a", "only in b"))
        self.assertEqual((rows[old_shown]["calls_a"], rows[new_shown]["calls_b"]), (calls[target], calls[target]))

    def test_less_work_in_the_same_window_shows_per_second(self):
        a, b = self.copy("rate_a"), self.copy("rate_b")
        con = connect(self.base)
        first, last = con.execute("SELECT min(start), max(\"end\") FROM rocpd_ops").fetchone()
        con.close()
        # No steps on either side; b drops every other kernel but the first and last op of each file.
        for path in (a, b):
            for f in rpd_files(path):
                db = sqlite3.connect(f)
                db.execute("DELETE FROM rocpd_api WHERE id IN (SELECT a.id FROM rocpd_api AS a JOIN rocpd_ustring AS s"
                           " ON s.id = a.args_id WHERE s.string LIKE 'ProfilerStep#%')")
                if path == b:
                    db.execute("DELETE FROM rocpd_op WHERE id % 2 = 0 AND opType_id IN (SELECT id FROM rocpd_string"
                               " WHERE string = 'KernelExecution') AND start > (SELECT min(start) FROM rocpd_op)"
                               ' AND "end" < (SELECT max("end") FROM rocpd_op)')
                db.commit()
                db.close()
        out, _, _ = run("compare", a, b, "-f", "json", "--section", "time")
        rows = {r["measure"]: r for r in json.loads(out)["time"]}
        self.assertNotIn("steps", rows)
        want = {}
        for side, path in (("a", a), ("b", b)):
            con = connect(path)
            ops, span = con.execute("SELECT sum(ops), max(last_ns) - min(first_ns) FROM rocpd_members").fetchone()
            con.close()
            want[side] = ops / (span / 1e9)
        self.assertLess(want["b"], 0.7 * want["a"])
        for side in ("a", "b"):
            self.assertAlmostEqual(rows["GPU ops per s"][side], want[side], delta=0.006)
        calls = [m for m in rows if m.startswith("calls per s: ")]
        self.assertEqual(len(calls), 3)
        self.assertTrue(all(rows[m]["b"] < rows[m]["a"] for m in calls), calls)
        del first, last



class SetupAndCalls(unittest.TestCase):
    """A different setup is a warning line; summary's API calls are runtime calls only, by
    normalised name; copies average their bytes over the copies that have a size."""

    @classmethod
    def setUpClass(cls):
        require()
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_cmp44_calls_")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_a_different_setup_is_a_warning_line(self):
        a = kineto_trace(os.path.join(self._tmp.name, "a100.json"), device="NVIDIA A100-SXM4-80GB", world_size=8)
        b = kineto_trace(os.path.join(self._tmp.name, "v100.json"), device="Tesla V100-SXM2-16GB", world_size=2)
        want = [f"the runs differ in devices: a = A has NVIDIA A100-SXM4-80GB, b = B has Tesla V100-SXM2-16GB; "
                f"their figures compare different setups",
                "the runs differ in world size: a = A has 8, b = B has 2; their figures compare different setups"]
        out, err, _ = run("compare", a, b, "-f", "json")
        self.assertEqual(json.loads(out)["warnings"], want)
        table, _, _ = run("compare", a, b)
        self.assertEqual(table.splitlines()[1:3], ["warning: " + w for w in want])
        page, _, _ = run("compare", a, b, "-f", "html")
        for w in want:
            self.assertIn("<li><strong>warning:</strong> " + w + "</li>", page)
        _, err, _ = run("compare", a, b, "-f", "csv")
        self.assertEqual(err.splitlines(), ["rocpd-ext: warning: " + w for w in want])
        # The same setup: no warning.
        c = kineto_trace(os.path.join(self._tmp.name, "a100_again.json"), device="NVIDIA A100-SXM4-80GB", world_size=8)
        out, _, _ = run("compare", a, c, "-f", "json")
        self.assertEqual(json.loads(out)["warnings"], [])

    def test_a_different_dtype_is_a_warning_line(self):
        # The element types the matrix operators were called with (Kineto's `Input type`): bf16
        # against fp32 GEMMs is a different setup; a non-matrix operator's and a non-float type's
        # inputs do not count.
        a = kineto_trace(os.path.join(self._tmp.name, "bf16.json"),
                         input_types={"aten::mm": ["c10::BFloat16", "c10::BFloat16"], "aten::add": ["double"],
                                      "aten::addmm": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar"]})
        b = kineto_trace(os.path.join(self._tmp.name, "fp32.json"),
                         input_types={"aten::mm": ["float", "float"], "aten::conv2d": ["float", "float", "", "long int"]})
        want = ("the runs differ in dtype of matrix operators' inputs: a = A has bfloat16, b = B has float32; their "
                "figures compare different setups")
        out, _, _ = run("compare", a, b, "-f", "json")
        doc = json.loads(out)
        self.assertEqual(doc["warnings"], [want])
        row = [r for r in doc["runs"] if r["property"] == "dtype of matrix operators' inputs"]
        self.assertEqual([(r["a"], r["b"], r["differs"]) for r in row], [("bfloat16", "float32", "*")])
        # The same types, or a run that does not record them: no warning.
        c = kineto_trace(os.path.join(self._tmp.name, "bf16_again.json"),
                         input_types={"aten::bmm": ["c10::BFloat16", "c10::BFloat16"]})
        d = kineto_trace(os.path.join(self._tmp.name, "no_shapes.json"))
        for x, y in ((a, c), (a, d)):
            out, _, _ = run("compare", x, y, "-f", "json")
            self.assertEqual(json.loads(out)["warnings"], [])

    def test_api_calls_are_runtime_calls_by_normalised_name(self):
        strings = {1: "", 2: "KernelExecution", 3: "kernel_a", 4: "hipLaunchKernel", 5: "rpdflush",
                   6: "OpTable::writeRows", 7: "run_to_completion", 8: "UserMarker", 9: "hip",
                   10: "cudaLaunchKernel_v7000", 11: "cudaLaunchKernel"}
        ustrings = {1: "", 2: "aten::to, op_id = 1", 3: "aten::to, op_id = 2", 4: "aten::to, op_id = 3, seq = 17",
                    5: "nccl:all_reduce~12345z"}
        apis = [(7, 7, 1000, 1100, 4, 1, 1, 9), (7, 7, 2000, 2100, 4, 1, 1, 9), (7, 7, 3000, 3300, 4, 1, 1, 9),
                (7, 7, 4000, 9000, 5, 1, 1, 1), (7, 7, 9000, 9500, 6, 1, 1, 1), (7, 7, 100, 20000, 7, 1, 1, 1),
                (7, 7, 500, 700, 8, 2, 1, 8), (7, 7, 800, 1100, 8, 3, 1, 8), (7, 7, 1200, 1300, 8, 4, 1, 8),
                (7, 7, 1400, 1401, 8, 5, 1, 8),
                (7, 7, 12000, 12010, 10, 1, 1, 1), (7, 7, 13000, 13030, 11, 1, 1, 1)]
        path = make_rpd(os.path.join(self._tmp.name, "calls.rpd"), ops=[(0, 1000, 2000, 3, 2)], apis=apis,
                        strings=strings, ustrings=ustrings)
        out, _, _ = run("summary", path, "-f", "json", "--section", "apis", "--section", "other_calls")
        doc = json.loads(out)
        self.assertEqual([(r["api"], r["calls"], r["total_ns"]) for r in doc["apis"]],
                         [("hipLaunchKernel", 3, 500), ("cudaLaunchKernel", 2, 40)])
        self.assertEqual([(r["class"], r["name"], r["calls"], r["total_ns"]) for r in doc["other_calls"]],
                         [("profiler", "run_to_completion", 1, 19900), ("profiler", "rpdflush", 1, 5000),
                          ("marker", "aten::to", 3, 600), ("profiler", "OpTable::writeRows", 1, 500),
                          ("marker", "nccl:all_reduce~12345z", 1, 1)])  # no digest: z is no hex digit
        self.assertAlmostEqual(doc["apis"][0]["time_pct"], round(100 * 500 / 540, 2))

    def test_copies_average_bytes_over_the_sized_ones(self):
        path = generate(os.path.join(self._tmp.name, "copies"), steps=0, ops=400, procs=1)
        [f] = rpd_files(path)
        db = sqlite3.connect(f)
        dropped = db.execute("DELETE FROM rocpd_copyapi WHERE rowid % 3 = 0").rowcount
        db.commit()
        db.close()
        self.assertGreater(dropped, 0)
        con = connect(path)
        want = {}
        for name, n, sized, total in con.execute("SELECT name, count(*), count(bytes), sum(bytes) FROM rocpd_copies "
                                                 "GROUP BY name"):
            want[name] = (n - sized, round(total / sized, 1))
        con.close()
        self.assertEqual(sum(w[0] for w in want.values()), dropped)
        out, _, _ = run("summary", path, "-f", "json", "--section", "copies")
        got = {r["name"]: (r["unsized"], r["avg_bytes"]) for r in json.loads(out)["copies"] if r["kind"] == "copy"}
        self.assertEqual(got, want)

    def test_by_rank_splits_a_file_by_process(self):
        # One Nsight export holding two processes: a line per process, each with the GPUs its ops ran on.
        path = os.path.join(self._tmp.name, "two_procs")
        subprocess.run([GEN, "--out", path, "--procs", "1", "--format", "nsys", "--sessions", "2", "--ops", "200",
                        "--seed", "3"], check=True, stdout=subprocess.DEVNULL)
        con = connect(path)
        gpus = {}
        for pid, gpu in con.execute("SELECT DISTINCT pid, gpu FROM rocpd_ops WHERE pid IS NOT NULL AND gpu IS NOT NULL"):
            gpus.setdefault(pid, set()).add(gpu)
        idle = {}
        for pid, g in gpus.items():
            rows = [con.execute("SELECT idle_ns, span_ns FROM rocpd_time_breakdown WHERE step IS NULL AND gpu = ?",
                                (x,)).fetchone() for x in g]
            idle[pid] = sum(r[0] for r in rows) / sum(r[1] for r in rows)
        con.close()
        self.assertEqual(len(gpus), 2)
        out, _, _ = run("summary", path, "--section", "job", "--by-rank")
        lines = [line for line in out.splitlines() if line.startswith("  rank0 pid ")]
        order = sorted(gpus, key=lambda p: (-idle[p], p))
        self.assertEqual([line.split(" (")[0] for line in lines], [f"  rank0 pid {p}" for p in order])
        for line, p in zip(lines, order):
            n = len(gpus[p])
            self.assertIn(f" ({n} GPU{'s' if n > 1 else ''}, ", line)


class WorstFirst(unittest.TestCase):
    """1,024 generated GPUs with one planted idle GPU: the html page shows it first, in the
    breakdown table and in the heatmap, and says how many more there are."""

    def test_the_worst_gpu_is_on_the_first_screen(self):
        require()
        tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_cmp44_1024_")
        self.addCleanup(tmp.cleanup)
        job = generate(os.path.join(tmp.name, "job"), steps=0, ops=40, procs=256)  # 4 GPUs each
        # rank137's third GPU keeps its first and last op only, 1 ns each: idle nearly all of its span.
        f = os.path.join(job, "rank137.rpd")
        db = sqlite3.connect(f)
        gpu_id = db.execute("SELECT DISTINCT gpuId FROM rocpd_op ORDER BY gpuId LIMIT 1 OFFSET 2").fetchone()[0]
        db.execute("DELETE FROM rocpd_op WHERE gpuId = ? AND id NOT IN (SELECT min(id) FROM rocpd_op WHERE gpuId = ?"
                   " UNION SELECT max(id) FROM rocpd_op WHERE gpuId = ?)", (gpu_id, gpu_id, gpu_id))
        db.execute('UPDATE rocpd_op SET "end" = start + 1 WHERE gpuId = ?', (gpu_id,))
        db.commit()
        db.close()
        # Brute force: each GPU's idle share of its span from the union of its op intervals.
        con = connect(job)
        events, = con.execute("SELECT sum(ops) + sum(apis) FROM rocpd_members").fetchone()
        spans = {}
        for d, gpu, start, end in con.execute('SELECT db, gpu, start, "end" FROM rocpd_ops WHERE "end" > start'):
            spans.setdefault((d, gpu), []).append((start, end))
        con.close()
        idle = {}
        for key, iv in spans.items():
            iv.sort()
            busy, lo, hi = 0, iv[0][0], iv[0][1]
            first, last = iv[0][0], max(e for _, e in iv)
            for s_, e in iv[1:]:
                if s_ > hi:
                    busy, lo, hi = busy + hi - lo, s_, e
                else:
                    hi = max(hi, e)
            busy += hi - lo
            idle[key] = 1 - busy / (last - first)
        self.assertEqual(len(idle), 1024)
        worst = sorted(idle, key=lambda k: (-idle[k], k))
        self.assertEqual(worst[0][0], "rank137")
        # --progress: a line for the whole command about once an interval (0.2 s here), its clock
        # never restarting, naming the files, then the members and events once open.
        env = dict(os.environ, ROCPD_PROGRESS_INTERVAL="0.2")
        page, err, _ = run("summary", job, "-f", "html", "--progress", env=env)
        lines = [line for line in err.splitlines() if line.startswith("rocpd-ext: progress: ")]
        self.assertGreaterEqual(len(lines), 3, err)
        files = len(os.listdir(job))
        seconds = [float(line.rsplit("; ", 1)[1][:-2]) for line in lines]
        self.assertEqual(seconds, sorted(seconds))
        self.assertTrue(all(f"; {files} files named (" in line for line in lines), lines)
        self.assertIn(f", 256 members open, {events:,} events; ", lines[-1])
        self.assertTrue(all(line.startswith(("rocpd-ext: progress: ", "rocpd: ")) for line in err.splitlines()), err)
        labels = re.findall(r'<text x="0" y="\d+" class="lbl">([^<]*)</text>', page)
        self.assertEqual(labels[0], f"{worst[0][0]} gpu {worst[0][1]}")
        self.assertEqual(len(labels), 10)
        self.assertIn("(the 10 GPUs most idle; ... and 1,014 more; -n/--top shows more)", page)
        out, _, _ = run("summary", job, "-f", "csv", "--section", "breakdown")
        [(header, rows)] = csv_blocks(out)
        self.assertEqual([(r["db"], int(r["gpu"])) for r in rows], worst[:10])
        # breakdown, busy and idle: cut at 10 of 1,024, saying so.
        self.assertEqual(page.count('<p class="note">... and 1,014 more (-n/--top shows more)</p>'), 3)


class MemberTables(unittest.TestCase):
    def test_a_members_own_table_is_read_through_the_named_union(self):
        require()
        tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_cmp44_member_")
        self.addCleanup(tmp.cleanup)
        path = make_rpd(os.path.join(tmp.name, "job1.rpd"), ops=[(0, 1000, 2000, 5, 2), (0, 3000, 4000, 5, 2)])
        out, err, rc = run("query", path, "SELECT count(*) FROM job1.rocpd_op", check=False)
        self.assertEqual((rc, out), (1, ""))
        self.assertEqual(err, "rocpd-ext: no such table: job1.rocpd_op (job1 is a member, not an attached schema: read "
                              "a member's own table through rocpd_union's named form, e.g. CREATE VIRTUAL TABLE "
                              "temp.rocpd_op_all USING rocpd_union(rocpd_op); SELECT * FROM temp.rocpd_op_all WHERE "
                              "db = 'job1'; docs/cli.md)\n")
        # The way it names works, read-only, with the member's rows.
        out, _, _ = run("query", path, "CREATE VIRTUAL TABLE temp.rocpd_op_all USING rocpd_union(rocpd_op); "
                                       "SELECT db, count(*) AS n FROM temp.rocpd_op_all WHERE db = 'job1' GROUP BY db",
                        "-f", "csv")
        self.assertEqual(out, "db,n\njob1,2\n")
        # A schema that is no member keeps SQLite's message (and its suggestion).
        _, err, _ = run("query", path, "SELECT count(*) FROM nope.rocpd_op", check=False)
        self.assertEqual(err, "rocpd-ext: no such table: nope.rocpd_op (did you mean rocpd_ops?)\n")


if __name__ == "__main__":
    require()
    unittest.main(verbosity=2)
