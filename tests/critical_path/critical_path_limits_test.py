"""The critical path's limits (docs/critical_path.md, "Scale"): on a member of 1M ops (250k under a
sanitizer build, whose ROCPD_TIMING_SCALE is above 1), sqlite3_interrupt() stops rocpd_critical_path
and rocpd_what_if within 0.5 s (x ROCPD_TIMING_SCALE), wherever the work is when it comes: the
interrupt is sent at fractions of the time an uninterrupted query takes (reading the member,
building its graph on the host thread or a worker, walking it, the job level). Peak memory is
measured in bench/bench_critical_path.py (a timing or memory figure is no test assert)."""
import os
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import connect, generate, main  # noqa: E402

TIMING_SCALE = float(os.environ.get("ROCPD_TIMING_SCALE", "1"))
OPS = 1_000_000 if TIMING_SCALE <= 1 else 250_000
TMP = None
MEMBER = None


def setUpModule():
    global TMP, MEMBER
    TMP = tempfile.mkdtemp(prefix="critical_path_limits_")
    out = os.path.join(TMP, "big")
    generate(out, 1, "rpd3", OPS, 33, "--steps", 10, "--gpus", 1)
    MEMBER = os.path.join(out, "rank0.rpd")


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def opened():
    con = connect()
    con.execute("SELECT rocpd_open(?)", (MEMBER,))
    return con


class Interrupt(unittest.TestCase):
    def stop_latency(self, sql, delay):
        """Seconds from con.interrupt() to the statement's end (None: it finished first)."""
        con = opened()
        timer = threading.Timer(delay, con.interrupt)
        started = time.monotonic()
        timer.start()
        try:
            con.execute(sql).fetchall()
            return None
        except sqlite3.OperationalError as e:
            self.assertEqual(str(e), "interrupted")
            return time.monotonic() - started - delay
        finally:
            timer.cancel()
            con.close()

    def check(self, sql, whole, fractions):
        limit = 0.5 * TIMING_SCALE
        for f in fractions:
            # The best of three tries: a machine busy with other builds can hold one try's thread
            # back longer than the limit; work that does not look at the interrupt fails every try.
            latencies = []
            for _ in range(3):
                latency = self.stop_latency(sql, f * whole)
                latencies.append(latency)
                if latency is None or latency < limit:
                    break
            self.assertTrue(latencies[-1] is None or latencies[-1] < limit,
                            "%s interrupted at %.0f %% of its %.1f s: stopped %s s later" % (
                                sql, 100 * f, whole, ", ".join("done" if x is None else "%.2f" % x for x in latencies)))

    def test_path_and_what_if_stop_within_half_a_second(self):
        con = opened()
        started = time.monotonic()
        steps = con.execute("SELECT count(DISTINCT step) FROM rocpd_critical_path").fetchone()[0]
        whole = time.monotonic() - started
        con.close()
        self.assertEqual(steps, 10)
        self.check("SELECT count(*) FROM rocpd_critical_path", whole, (0.2, 0.5, 0.75, 0.95))
        self.check("SELECT count(*) FROM rocpd_what_if(NULL, 'nccl%', 0.5)", whole, (0.6, 0.9))


if __name__ == "__main__":
    main()
