"""rocpd_check (sql/views/21_rocpd_check.sql) against a brute force written here: per member the
ops without time (NULL bounds, reversed, zero length) and the kernels that overlap an earlier
kernel of the same gpu and queue (issue 21: an in-order queue's kernels must not overlap)."""
import os
import random
import shutil
import sqlite3
import tempfile
import unittest

from rocpd_testlib import connect, main, set_files
from tiny_traces import make_rpd

KERNEL, COPY = 2, 3  # opType string ids of tiny_traces: KernelExecution, CopyHostToDevice


def random_member(path, rng, n):
    ops = []
    for i in range(n):
        start = rng.randrange(0, 2000)
        end = start + rng.choice([0, 0, 1, 5, 30, 200, -7])
        ops.append((rng.randrange(2), start, end, 5, rng.choice([KERNEL, KERNEL, KERNEL, COPY])))
    make_rpd(path, ops=ops)
    con = sqlite3.connect(path)
    rows = []
    for (op_id,) in con.execute("SELECT id FROM rocpd_op ORDER BY id").fetchall():
        queue = rng.choice([0, 1, 2, None])
        start_null, end_null = rng.random() < 0.03, rng.random() < 0.03
        con.execute("UPDATE rocpd_op SET queueId = ? WHERE id = ?", (queue, op_id))
        if start_null:
            con.execute("UPDATE rocpd_op SET start = NULL WHERE id = ?", (op_id,))
        if end_null:
            con.execute('UPDATE rocpd_op SET "end" = NULL WHERE id = ?', (op_id,))
    con.commit()
    rows = con.execute('SELECT gpuId, queueId, start, "end", opType_id FROM rocpd_op').fetchall()
    con.close()
    return rows


def brute_force(rows):
    """(ops, null_bounds, negative, zero_length, queue_overlaps) of one member's raw rows."""
    ops = len(rows)
    null_bounds = sum(1 for _, _, s, e, _ in rows if s is None or e is None)
    negative = sum(1 for _, _, s, e, _ in rows if s is not None and e is not None and e < s)
    zero = sum(1 for _, _, s, e, _ in rows if s is not None and e is not None and e == s)
    queues = {}
    for gpu, queue, s, e, kind in rows:
        if kind == KERNEL and gpu is not None and queue is not None and s is not None and e is not None:
            queues.setdefault((gpu, queue), []).append((s, max(s, e)))
    overlaps = 0
    for kernels in queues.values():
        # In queue order (by start, the longer first): a kernel that starts before any earlier one ends.
        kernels.sort(key=lambda k: (k[0], -k[1]))
        latest_end = None
        for s, stop in kernels:
            if latest_end is not None and s < latest_end:
                overlaps += 1
            latest_end = stop if latest_end is None else max(latest_end, stop)
    return ops, null_bounds, negative, zero, overlaps


class RocpdCheck(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_check_")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_against_brute_force(self):
        rng = random.Random(21)
        want = {}
        for i in range(4):
            path = os.path.join(self.tmp, f"m{i}.rpd")
            want[f"m{i}"] = brute_force(random_member(path, rng, 400))
        self.assertTrue(all(w[4] > 0 for w in want.values()), want)  # the data has overlaps to find
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.tmp,))
        got = {r[0]: tuple(r[1:]) for r in con.execute(
            "SELECT db, ops, null_bounds, negative, zero_length, queue_overlaps FROM rocpd_check")}
        self.assertEqual(got, want)

    def test_hand_made_queue(self):
        # gpu 0 queue 1: [0,10) [5,6) [10,20) [12,12] [30,25] (reversed: ends at its start) [28,29);
        # queue 2 holds [0,100), and a copy [0,50) on queue 1 is no kernel. Overlapping: [5,6) and
        # [12,12] only (touching is no overlap).
        p = make_rpd(os.path.join(self.tmp, "h.rpd"),
                     ops=[(0, 0, 10, 5, KERNEL), (0, 5, 6, 5, KERNEL), (0, 10, 20, 5, KERNEL), (0, 12, 12, 5, KERNEL),
                          (0, 30, 25, 5, KERNEL), (0, 28, 29, 5, KERNEL), (0, 0, 100, 5, KERNEL), (0, 0, 50, 5, COPY)])
        con = sqlite3.connect(p)
        con.execute("UPDATE rocpd_op SET queueId = CASE id WHEN 7 THEN 2 ELSE 1 END")
        con.commit()
        con.close()
        con = connect()
        con.execute("SELECT rocpd_open(?)", (p,))
        self.assertEqual(con.execute("SELECT ops, negative, zero_length, queue_overlaps FROM rocpd_check").fetchall(),
                         [(8, 1, 1, 2)])

    def test_generated_queues_do_not_overlap(self):
        # The generator runs each queue's ops in order: nothing to flag, on every member.
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.dirname(set_files("mixed8")[0]),))
        self.assertEqual(con.execute("SELECT count(*), sum(queue_overlaps) FROM rocpd_check").fetchone(), (8, 0))


if __name__ == "__main__":
    main()
