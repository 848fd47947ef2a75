"""The real Kineto trace with per-kernel hardware counters (../shared/data/kineto_counters.json.gz:
cuda_profiler_range events, no correlation id): every range matched to its launch as HTA's counter
analysis matches it, each kernel's counters and operator stack as a brute force over the raw JSON
gives them, and the FLOP example of docs/diagnosis.md computed from the JSON by hand, its shown
output included."""
import json
import os
import re
import sys
import unittest
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import SHARED_DATA, ChecksumGuard, connect, main  # noqa: E402
from kineto_brute import Trace, hta_parents, hta_stack  # noqa: E402

PATH = os.path.join(SHARED_DATA, "kineto_counters.json.gz")
DOC = os.path.join(HERE, "..", "..", "docs", "diagnosis.md")
# HTA's FLOP weights (hta/analyzers/cupti_counter_analysis.py): an FMA counts two operations.
FLOP_OPS = [f"{p}{op}" for p in "fhd" for op in ("fma", "mul", "add")]


def flop_counters():
    return {f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": 2 if "fma" in op else 1 for op in FLOP_OPS}


def doc_flop_example():
    """The SQL and the shown output of the FLOP example in docs/diagnosis.md."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"```sql\n((?:(?!```).)*smsp__sass(?:(?!```).)*)```\n```text\n((?:(?!```).)*)```", text, re.S)
    assert m, "docs/diagnosis.md lost its FLOP example"
    return m.group(1), m.group(2)


def box_rows(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("│"):
            rows.append([c.strip() for c in line.strip("│").split("│")])
    return rows[1:]  # without the header


class KinetoCounters(ChecksumGuard):
    watched = [PATH]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.trace = Trace(PATH)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (PATH,))
        cls.db = "kineto_counters"
        # Brute force: the i-th range (time order) is the kernel of the i-th cudaLaunchKernel call.
        cls.ranges = cls.trace.profiler_ranges()
        cls.launches = cls.trace.kernel_launch_calls()
        cls.parents = hta_parents(cls.trace)

    def test_every_range_matched(self):
        self.assertEqual(len(self.ranges), 77)
        self.assertEqual(len(self.ranges), len(self.launches))
        got = self.con.execute(
            "SELECT start, correlation_id, counters FROM rocpd_kernel_counters_full WHERE db = ? ORDER BY start",
            (self.db,)).fetchall()
        self.assertEqual(len(got), len(self.ranges))
        for (start, corr, counters), (r_start, _, r), launch in zip(got, self.ranges, self.launches):
            self.assertEqual(start, r_start)
            self.assertEqual(corr, launch["correlation"])
            want = {k: float(v) for k, v in r["args"].items()}
            self.assertEqual(json.loads(counters), want)
        self.con.execute("CREATE VIRTUAL TABLE temp.km USING rocpd_union(kineto_metadata)")
        status = self.con.execute("SELECT value FROM temp.km WHERE tag = 'import.counter_ranges'").fetchone()
        self.assertEqual(status, ("matched: 77 ranges to 77 cudaLaunchKernel calls",))

    def test_long_form(self):
        n = self.con.execute("SELECT count(*), count(op_id), sum(value) FROM rocpd_counters WHERE db = ?",
                             (self.db,)).fetchone()
        total = sum(int(v) for _, _, r in self.ranges for v in r["args"].values())
        self.assertEqual(n, (77 * 9, 77 * 9, float(total)))

    def test_stacks_as_hta(self):
        """Stack = the launch's ancestors in HTA's call tree (operators and annotations); HTA's
        op_stack (operators only) is that stack without the annotations' names."""
        got = self.con.execute("SELECT stack, top_level, bottom_level FROM rocpd_kernel_counters_full WHERE db = ? "
                               "ORDER BY start", (self.db,)).fetchall()
        annotations = {e["name"] for _, e, _, _ in self.trace.x if e.get("cat") == "user_annotation"}
        operators = {e["name"] for _, e, _, _ in self.trace.x if e.get("cat") == "cpu_op"}
        self.assertFalse(annotations & operators)
        for (stack, top, bottom), launch in zip(got, self.launches):
            full = hta_stack(self.trace, self.parents, launch["index"])
            op_stack = hta_stack(self.trace, self.parents, launch["index"], ("cpu_op",))
            stack = json.loads(stack)
            self.assertEqual(stack, full)
            self.assertEqual([n for n in stack if n not in annotations], op_stack)
            self.assertEqual((top, bottom), (full[0], full[-1]) if full else (None, None))
            # docs/diagnosis.md: here the innermost range is always an operator (HTA's bottom_level_op).
            self.assertEqual(bottom, op_stack[-1])

    def test_doc_flop_example(self):
        sql, shown = doc_flop_example()
        statements = [s.strip() for s in sql.split(";") if s.strip()]
        self.assertIn("rocpd_open", statements[0])
        con = connect()
        con.execute("SELECT rocpd_open(?)", (PATH,))
        got = con.execute(statements[1]).fetchall()
        # Brute force: per kernel, FLOP = sum of the SASS counters weighted as HTA weighs them,
        # grouped by the innermost operator or annotation around its launch.
        weights = flop_counters()
        per_bottom = defaultdict(lambda: [0, 0])
        for (_, _, r), launch in zip(self.ranges, self.launches):
            stack = hta_stack(self.trace, self.parents, launch["index"])
            flop = sum(int(r["args"][k]) * w for k, w in weights.items())
            per_bottom[stack[-1] if stack else None][0] += 1
            per_bottom[stack[-1] if stack else None][1] += flop
        want = sorted(((b, k, f) for b, (k, f) in per_bottom.items()), key=lambda t: -t[2])[:len(got)]
        self.assertEqual([tuple(r) for r in got], want)
        self.assertEqual(box_rows(shown), [[str(c) for c in r] for r in want])


if __name__ == "__main__":
    if not os.path.exists(PATH):
        print(f"skipped: {PATH} is absent")
        sys.exit(77)
    main()
