"""rocpd-ext and the critical path (docs/cli.md): `--steps PATTERN` chooses the step ranges of
summary and compare (ROCPD_STEP_PATTERN, rocpd_step_pattern), the headline names what bounds the
slowest and the median step (rocpd_critical_path_summary.bound_by), and the html chart draws every
GPU lane the path runs through. Jobs from rocpd_gen --critical-path (docs/generator.md)."""
import html.parser
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from clitest import GEN, connect, require, run  # noqa: E402


def generate(out, procs, ops, *extra):
    subprocess.run([GEN, "--out", out, "--procs", str(procs), "--format", "rpd3", "--ops", str(ops), "--seed", "7",
                    "--steps", "3", *map(str, extra)], check=True, stdout=subprocess.DEVNULL)
    return out


class CriticalPathCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require()
        cls._tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_cp_")
        cls.loader = generate(os.path.join(cls._tmp.name, "loader"), 8, 40, "--critical-path", "loader",
                              "--loader", "5:3000000")
        cls.half = generate(os.path.join(cls._tmp.name, "half"), 8, 40, "--critical-path", "loader",
                            "--loader", "5:1500000")
        cls.event = generate(os.path.join(cls._tmp.name, "event"), 1, 48, "--critical-path", "event")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_headline_names_what_bounds_the_steps(self):
        out, _, _ = run("summary", self.loader, "--section", "critical_path")
        con = connect(self.loader)
        bound = dict(con.execute("SELECT step, bound_by FROM rocpd_critical_path_summary"))
        # Every step alike: the slowest is step 0, the median step 1 (ties: the lower step first).
        lines = [line for line in out.splitlines() if line.startswith("critical path, ")]
        self.assertEqual(lines, ["critical path, slowest step 0 (3.81 ms): " + bound[0],
                                 "critical path, median step 1 (3.81 ms): " + bound[1]])
        self.assertTrue(bound[0].startswith("waiting for rank5 ("), bound[0])

    def test_steps_option_chooses_the_step_ranges(self):
        # The data loader's ranges as steps: one 3 ms range per step on rank5, 100 us elsewhere.
        out, _, _ = run("summary", self.loader, "--steps", "DataLoader%", "--section", "critical_path",
                        "--section", "steps", "-f", "csv")
        self.assertIn("DataLoader.__next__", out)
        self.assertNotIn("ProfilerStep", out)
        out, _, _ = run("summary", self.loader, "--steps", "nothing%", "--section", "critical_path")
        self.assertIn("(none: no member has step ranges, the ranges named like 'nothing%' rocpd_critical_path follows; "
                      "--steps PATTERN chooses them)", out)
        # compare divides by the chosen steps: 8 ranks x 3 loader ranges a side.
        out, _, _ = run("compare", self.loader, self.half, "--steps", "DataLoader%", "--section", "runs", "-f", "csv")
        self.assertIn("steps,24,24", out.replace(" ", ""))
        _, err, rc = run("summary", self.loader, "--steps", "", check=False)
        self.assertEqual(rc, 2)
        self.assertIn("--steps needs a LIKE pattern", err)

    def test_html_draws_every_gpu_lane_of_the_path(self):
        # The all-reduce on queue 1 waits for the GEMMs on queue 0: both queues are on the path, and
        # are drawn even when -n allows one lane.
        page, _, _ = run("summary", self.event, "-f", "html", "--section", "critical_path", "-n", "1")

        class Labels(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.labels, self.titles, self.take, self.title = [], [], False, False

            def handle_starttag(self, tag, attrs):
                self.take = tag == "text" and dict(attrs).get("class") == "lbl"
                self.title = tag == "title"

            def handle_data(self, data):
                if self.take:
                    self.labels.append(data)
                if self.title:
                    self.titles.append(data)
                self.take = self.title = False

        p = Labels()
        p.feed(page)
        self.assertEqual(p.labels[:2], ["rank0 gpu 0 queue 0", "rank0 gpu 0 queue 1"])
        self.assertEqual(len(p.labels), 2)  # -n 1: the thread is left out, the GPU lanes are not
        self.assertTrue(any(t.startswith("stream_wait ncclDevKernel_AllReduce") and "(waited for Cijk_" in t
                            for t in p.titles), p.titles[:5])


if __name__ == "__main__":
    unittest.main()
