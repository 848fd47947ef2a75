"""Configurations of the differential tester reached by a sequence of ordinary calls (issue 21):

- replaced/opened: members opened and read (probed, profiled, connections pooled), then three of
  their files replaced on disk (another rpd version renamed over one, another format over a
  second, a copy declaring its times and gpu TEXT over a third) and one rewritten in place;
- double_load/opened: the extension loaded, half the files opened one by one, loaded again, the
  rest opened;
- temp_clash/opened: TEMP objects of the extension's names made before loading (the load must be
  refused, naming them), dropped, the extension loaded; an attached database holds decoy tables
  named like the extension's (rocpd_ops, rocpd_members, rocpd_op_launches, ...): every table is
  queried as temp.<name> and its internal reads must not see the decoys;
- named_cycle/main: a writable trace as main holding named unions over named unions (queried at
  random) next to a cycle of named unions (which must be refused, never crash).

Besides the usual comparison of each table with its own copy, each table is compared with the
same table of a clean connection holding the same files as they are at the end (`reference`):
a copy cannot show that its table read stale or foreign rows. Files are rebuilt in a scratch
directory for every run.
"""
import os
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from tiny_traces import RPD_DDL, make_rpd  # noqa: E402

SET_NAMES = ("replaced", "double_load", "temp_clash", "named_cycle")

# Warm-up reads before files change: every cache (probe, profile, pooled connection, summaries).
WARM_UP = ["SELECT count(*), sum(duration) FROM rocpd_ops", "SELECT count(*) FROM rocpd_apis",
           "SELECT * FROM rocpd_members", "SELECT * FROM rocpd_union('top')", "SELECT * FROM rocpd_busy",
           "SELECT count(*) FROM rocpd_busy_intervals"]
# Our names a user's objects take in temp_clash (before loading) and in the decoy database.
CLASH_TEMP = {"rocpd_members": "TABLE", "rocpd_busy": "VIEW"}
DECOYS = ("rocpd_ops", "rocpd_apis", "rocpd_members", "rocpd_op_launches", "rocpd_queue_steps", "rocpd_comm_classes",
          "rocpd_busy_intervals", "rocpd_gaps", "rocpd_kernels", "rocpd_kernel_stacks", "rocpd_op_groups",
          "rocpd_api_groups")


class Sequence:
    """The hooks of a configuration (defaults: nothing special)."""
    main_rw = None      # a writable main database
    qualify = False     # query the extension's tables as temp.<name>
    reference = None    # a Config of the clean connection to compare every table with

    def __init__(self):
        self.problems = []

    def prepare(self):
        """Builds the scratch files (before connecting)."""

    def before_load(self, con):
        pass

    def load(self, con, load):
        load()

    def open(self, con, load, default_open):
        default_open()

    def after_open(self, con):
        pass

    def named(self, con):
        """Extra tables to query: [(key, kind, vt)]."""
        return []

    def check(self, con, sql, expect):
        """`sql` must fail with a message holding `expect`."""
        try:
            con.execute(sql).fetchall()
            self.problems.append("%s: no error, expected one containing %r" % (sql, expect))
        except sqlite3.Error as e:
            if expect not in str(e):
                self.problems.append("%s: error %r, expected one containing %r" % (sql, str(e), expect))


def _copy_set(src_dir, dst_dir):
    shutil.rmtree(dst_dir, ignore_errors=True)
    os.makedirs(dst_dir)
    for f in sorted(os.listdir(src_dir)):
        if f != "truth.json":
            shutil.copyfile(os.path.join(src_dir, f), os.path.join(dst_dir, f))
    return dst_dir


class Replaced(Sequence):
    def __init__(self, scratch, sets):
        super().__init__()
        self.dir, self.sets = os.path.join(scratch, "replaced"), sets

    def prepare(self):
        _copy_set(os.path.join(self.sets, "mixed8"), self.dir)

    def after_open(self, con):
        for sql in WARM_UP:
            con.execute(sql).fetchall()
        staged = os.path.join(self.dir, ".staged")
        os.makedirs(staged, exist_ok=True)
        # rank1.rpd (rpd v3) <- an rpd v2 file of another job; rank2.db (rocprofv3) <- an rpd v3 file.
        for name, src in (("rank1.rpd", ("same_rpd2", "rank1.rpd")), ("rank2.db", ("same_rpd3", "rank2.rpd"))):
            shutil.copyfile(os.path.join(self.sets, *src), os.path.join(staged, name))
            os.replace(os.path.join(staged, name), os.path.join(self.dir, name))
        # rank3.rpd <- a file declaring gpu and times TEXT (the values stored as text).
        ddl = RPD_DDL.replace("gpuId INTEGER", "gpuId TEXT").replace(
            "sequenceId INTEGER, start INTEGER", "sequenceId INTEGER, start TEXT").replace(
            '"end" INTEGER, description_id', '"end" TEXT, description_id')
        assert ddl.count("TEXT") > RPD_DDL.count("TEXT") + 2
        make_rpd(os.path.join(staged, "rank3.rpd"), ddl=ddl,
                 ops=[(g, 1000 + 100 * i, 1000 + 100 * i + 40 + g, 5, 2) for i in range(60) for g in (0, 1)])
        os.replace(os.path.join(staged, "rank3.rpd"), os.path.join(self.dir, "rank3.rpd"))
        # rank4.rpd rewritten in place (same inode) with another file's bytes.
        with open(os.path.join(self.sets, "same_rpd3", "rank0.rpd"), "rb") as src, \
                open(os.path.join(self.dir, "rank4.rpd"), "r+b") as dst:
            dst.truncate(0)
            shutil.copyfileobj(src, dst)
        os.rmdir(staged)


class DoubleLoad(Sequence):
    def __init__(self, scratch, sets):
        super().__init__()
        self.dir = os.path.join(sets, "mixed8")

    def open(self, con, load, default_open):
        files = sorted(f for f in os.listdir(self.dir) if f != "truth.json")
        for f in files[:3]:
            con.execute("SELECT rocpd_open(?)", (os.path.join(self.dir, f),))
        con.execute("SELECT count(*) FROM rocpd_busy").fetchall()
        load()  # the second load: nothing may change
        default_open()
        load()


class TempClash(Sequence):
    qualify = True

    def __init__(self, scratch, sets):
        super().__init__()
        self.decoy = os.path.join(scratch, "decoys.db")

    def prepare(self):
        if os.path.exists(self.decoy):
            os.remove(self.decoy)
        con = sqlite3.connect(self.decoy)
        for name in DECOYS:
            con.execute('CREATE TABLE "%s"(db, gpu, start, "end", first_ns, last_ns, ops, path)' % name)
            con.execute('INSERT INTO "%s" VALUES (\'decoy\', 0, 1, 2, 1, 2, 99, \'/nowhere\')' % name)
        con.commit()
        con.close()

    def before_load(self, con):
        for name, kind in CLASH_TEMP.items():
            con.execute("CREATE TEMP %s %s %s" % (kind, name, "(x)" if kind == "TABLE" else "AS SELECT 1 AS x"))

    def load(self, con, load):
        for name, kind in CLASH_TEMP.items():
            try:
                load()
                self.problems.append("the load succeeded with a TEMP %s named %s" % (kind.lower(), name))
            except sqlite3.Error as e:
                if "cannot load: temp.%s already exists" % name not in str(e):
                    self.problems.append("the load failed without naming temp.%s: %s" % (name, e))
            con.execute("DROP %s temp.%s" % (kind, name))
        load()
        con.execute("ATTACH ? AS decoys", ("file:%s?mode=ro" % self.decoy,))


class NamedCycle(Sequence):
    def __init__(self, scratch, sets):
        super().__init__()
        self.main_rw = os.path.join(scratch, "named_cycle_main.rpd")
        self.sets = sets

    def prepare(self):
        shutil.copyfile(os.path.join(self.sets, "same_rpd3", "rank0.rpd"), self.main_rw)

    def after_open(self, con):
        for sql in ("CREATE TABLE t(x INTEGER, y TEXT)",
                    "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL), (3, 'c'), (NULL, 'd')",
                    "CREATE VIRTUAL TABLE u1 USING rocpd_union(t)",
                    "CREATE VIRTUAL TABLE u2 USING rocpd_union(u1)",
                    # A cycle: c1 reads c2 reads c1.
                    "CREATE TABLE c2(x)", "CREATE VIRTUAL TABLE c1 USING rocpd_union(c2)", "DROP TABLE c2",
                    "CREATE VIRTUAL TABLE c2 USING rocpd_union(c1)"):
            con.execute(sql)
        for sql in ("SELECT * FROM c1", "SELECT * FROM c2 WHERE x > 0", "SELECT count(*) FROM u2, c1"):
            self.check(con, sql, "reads this table again")

    def named(self, con):
        # A named union over a named union over a table: queried at random like any table.
        con.execute("CREATE VIRTUAL TABLE temp.u_u2 USING rocpd_union(u2)")
        return [("n_u2", "named", "temp.u_u2")]


def configs(Config, scratch, sets):
    """The configurations, built on Config (differential_test.Config)."""
    os.makedirs(scratch, exist_ok=True)
    out = []
    mixed8 = os.path.join(sets, "mixed8")
    seq = Replaced(scratch, sets)
    cfg = Config("replaced/opened", "hostile", open_=[seq.dir], weight=1.0)
    cfg.seq = seq
    seq.reference = lambda d=seq.dir: Config("replaced/reference", "hostile", open_=[d])
    out.append(cfg)
    seq = DoubleLoad(scratch, sets)
    cfg = Config("double_load/opened", "hostile", open_=[mixed8], weight=0.8)
    cfg.seq = seq
    seq.reference = lambda: Config("double_load/reference", "hostile", open_=[mixed8])
    out.append(cfg)
    seq = TempClash(scratch, sets)
    cfg = Config("temp_clash/opened", "hostile", open_=[mixed8], weight=0.8)
    cfg.seq = seq
    seq.reference = lambda: Config("temp_clash/reference", "hostile", open_=[mixed8])
    out.append(cfg)
    seq = NamedCycle(scratch, sets)
    cfg = Config("named_cycle/main", "hostile", open_=[os.path.join(sets, "same_rpd2")], weight=0.6)
    cfg.seq = seq
    out.append(cfg)
    return out
