#!/usr/bin/python3
"""Differential tester of the GROUP BY pushdown (docs/pushdown.md, issue 34).

Random GROUP BY queries over rocpd_ops (and a fifth over rocpd_apis), from a seeded generator, in
three labels:
  push    the shapes the rewrite promises to answer through rocpd_op_groups (rocpd_api_groups for
          rocpd_apis: grouped by db, pid, tid, domain, name): rocpd_sql_pushdown(q)
          must say 'pushed: ...' (and rocpd_sql_rewrite(q) differ from q);
  nopush  near misses, one step outside those shapes (sum(start), count(DISTINCT name), GROUP BY
          lower(name), WHERE gpu = 0 with gpu not grouped, joins, subqueries, window functions,
          GROUP BY 1, parameters, ...): 'not pushed: ...' and rocpd_sql_rewrite(q) = q;
  any     shapes the promise does not settle (a table alias, no GROUP BY, comments, ...): no
          assertion on the decision.
Whatever the label, the rows of rocpd_sql_rewrite(q) run on the federated connection must equal
the rows of q run on a native copy (the rows of rocpd_ops, rocpd_apis and rocpd_members in plain tables of an
in-memory database, the extension loaded for median/stddev): same column names, same values and
types (typeof) of every cell, as multisets, or in order under a total ORDER BY; both fail or
neither. stddev columns are compared within a relative 1e-9 (the engine sums exactly in integers).

Members: a generated mixed job (rpd2, rpd3, rocpd) with an Nsight Systems and a Kineto member; the
hostile members (NULL and odd-typed gpu, name, duration: the engine must fall back) beside a clean
set; the hostile members with int64 extremes (integer overflow: both sides fail); `overflow`, the
mixed job with a few names (ops and API calls) whose durations fit an integer while their sum does
not (sum() fails, avg(), total() and the rest answer; a HAVING that drops such a group decides
whether the query fails, as SQLite moves HAVING terms without aggregates to WHERE), where integer
overflow on one side only is a failure.

Names that mean two things (`shadowing`): aliases and double-quoted names in WHERE and HAVING named
like the columns of rocpd_op_groups / rocpd_api_groups (instances, total_ns, of_kind, timed, ...),
which the groups' subquery would read as those columns.

ROCPD_DIFF_QUERIES / ROCPD_DIFF_SEED (or --queries / --seed) run it longer or with another seed;
--only N --config C -v reproduce one query. Run by Debian's /usr/bin/python3; stdlib only.
"""
import argparse
import collections
import math
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_fixtures  # noqa: E402
from querygen import Text, lit  # noqa: E402

EXT = os.environ.get("ROCPD_EXT", "")
FIXTURES = os.environ.get("ROCPD_FIXTURES", "")
DEFAULT_QUERIES = 300
REL_TOL = 1e-9
GROUPABLE = ("db", "gpu", "kind", "name")
GROUPABLE_APIS = ("db", "pid", "tid", "domain", "name")
# Pure functions the rewrite's promise does not list: a query using them is labelled 'any'.
UNLISTED = ("typeof(", "instr(", "replace(", "trim(")
# The columns of rocpd_op_groups / rocpd_api_groups beyond the grouping ones (hidden ones too).
ENGINE_COLUMNS = ("instances", "timed", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns", "busy_ns",
                  "first_start", "last_end", "group_by", "of_kind", "durations", "n_start", "min_start", "max_start",
                  "n_end", "min_end", "max_end")
# The aggregates the engine computes, each over duration (count(*) aside).
AGGS = ("count(*)", "count", "sum", "total", "avg", "min", "max", "median", "stddev")
# Aggregates answered from each group's durations (docs/pushdown.md): SQLite's own function over the values.
VALUE_AGGS = ("percentile", "histogram", "histogram_log2", "distinct", "group_concat")
# count, min, max of start and end (docs/pushdown.md): the engine's own figures.
TIME_AGGS = ("time",)

# ------------------------------------------------------------------------------------------------
# Configurations: (name, weight, directories opened with rocpd_open, files ATTACHed)


def generate(tmp):
    """A small generated job: six members of the four vendors' formats (rpd2, rocpd, nsys, kineto)
    and three of the mixed ones (rpd2, rpd3, rocpd); the same kernel names recur across members."""
    gen = os.environ.get("ROCPD_GEN", "")
    if not gen or not os.path.exists(gen):
        raise SystemExit("ROCPD_GEN not set or missing: %r" % gen)
    out = []
    for name, fmt, procs, ops, seed in (("vendors", "vendors", 6, 400, 43), ("mixed", "mixed", 3, 300, 47)):
        d = os.path.join(tmp, name)
        subprocess.run([gen, "--out", d, "--procs", str(procs), "--format", fmt, "--ops", str(ops),
                        "--seed", str(seed)], check=True, stdout=subprocess.DEVNULL)
        out.append(d)
    return out


def configs(tmp, wanted):
    """(name, weight, directories opened with rocpd_open, [(alias, file ATTACHed)]); `big` (the
    fixtures' mixed8 set with the nsys and kineto layouts, 25k ops) only when asked for."""
    if wanted == "big":
        sets, layouts = os.path.join(FIXTURES, "sets"), os.path.join(FIXTURES, "layouts")
        dirs = [os.path.join(sets, "mixed8"), os.path.join(layouts, "nsys"), os.path.join(layouts, "kineto")]
        for p in dirs:
            if not os.path.exists(p):
                raise SystemExit("fixture %s missing: run the fixtures_generate test first" % p)
        return [("big", 1.0, dirs, [])]
    vendors, mixed = generate(tmp)
    hostile = hostile_fixtures.build(os.path.join(FIXTURES, "differential_hostile"))
    out = [
        ("generated", 0.5, [vendors, mixed], []),
        ("overflow", 0.15, [overflowing_job(tmp, mixed)], []),
        # The odd members beside a clean one: the engine falls back where it must.
        ("hostile", 0.2, [hostile["hostile"]], [("clean", os.path.join(mixed, "rank1.rpd"))]),
        ("hostile_limits", 0.2, [hostile["hostile_limits"]], []),
    ]
    return [c for c in out if not wanted or c[0] == wanted]


OVERFLOW_STEP = 500_000_000_000_000_000  # 5e17 ns: every partial sum of its multiples is a double exactly


def overflowing_job(tmp, mixed):
    """A copy of the mixed job in which every op of three names and every call of two API names of
    the rpd members lasts a multiple of 5e17 ns: each fits an integer, the group's sum does not; and
    a few ops and calls lack a start or an end."""
    out = os.path.join(tmp, "overflow")
    os.makedirs(out)
    for f in sorted(os.listdir(mixed)):
        if f.endswith((".rpd", ".db")):
            shutil.copy(os.path.join(mixed, f), os.path.join(out, f))
    for f in sorted(os.listdir(out)):
        if not f.endswith(".rpd"):
            continue
        con = sqlite3.connect(os.path.join(out, f))
        for table, limit in (("rocpd_op", 3), ("rocpd_api", 2)):
            col = "description_id" if table == "rocpd_op" else "apiName_id"
            ids = [r[0] for r in con.execute("SELECT %s FROM %s GROUP BY 1 HAVING count(*) BETWEEN 3 AND 40 "
                                             "ORDER BY count(*), 1 LIMIT %d" % (col, table, limit))]
            for k, i in enumerate(ids):
                con.execute('UPDATE %s SET "end" = start + (%d + id %% 3) * %d WHERE %s = ?' % (
                    table, 8 + k, OVERFLOW_STEP, col), (i,))
        con.commit()
        # A start or an end missing here and there (each of count, min, max of start and of end counts
        # its own values): the DDL's NOT NULL dropped (the rows' format is unchanged by it).
        con.execute("PRAGMA writable_schema = ON")
        con.execute("UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE name IN ('rocpd_op', 'rocpd_api')")
        con.commit()
        con.close()
        con = sqlite3.connect(os.path.join(out, f))
        for table in ("rocpd_op", "rocpd_api"):
            con.execute('UPDATE %s SET start = NULL WHERE id %% 17 = 1' % table)
            con.execute('UPDATE %s SET "end" = NULL WHERE id %% 19 = 2' % table)
        con.commit()
        con.close()
    return out


def load(con):
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.enable_load_extension(False)
    con.text_factory = Text


def federated(dirs, attach):
    con = sqlite3.connect(":memory:", isolation_level=None)
    load(con)
    for alias, path in attach:
        con.execute("ATTACH ? AS %s" % alias, ("file:%s?mode=ro" % path,))
    for d in dirs:
        con.execute("SELECT rocpd_open(?)", (d,))
    return con


def native_copy(fed, tag):
    """A plain in-memory connection holding the rows of the federated rocpd_ops and rocpd_members in
    temp tables of the same names (the extension's own are dropped), made by CREATE TABLE AS SELECT:
    the columns declare the virtual tables' types, so comparisons apply the same affinities (the
    differential tester checks that such a copy holds the same values). Filled through a
    shared-cache in-memory database."""
    uri = "file:pushdown_native_%d_%s?mode=memory&cache=shared" % (os.getpid(), tag)
    nat = sqlite3.connect(uri, uri=True, isolation_level=None)
    load(nat)
    fed.execute("ATTACH ? AS nat", (uri,))
    for t in ("rocpd_ops", "rocpd_apis", "rocpd_members"):
        fed.execute("CREATE TABLE nat.%s AS SELECT * FROM temp.%s" % (t, t))
        nat.execute("DROP TABLE temp.%s" % t)
        nat.execute("CREATE TEMP TABLE %s AS SELECT * FROM main.%s" % (t, t))
        nat.execute("DROP TABLE main.%s" % t)
    fed.execute("DETACH nat")
    return nat


# ------------------------------------------------------------------------------------------------
# Values the generator draws from


class Data:
    def __init__(self, nat):
        def col(sql):
            return [r[0] for r in nat.execute(sql)]
        self.dbs = col("SELECT DISTINCT db FROM rocpd_ops WHERE typeof(db) = 'text' ORDER BY 1")
        self.gpus = col("SELECT DISTINCT gpu FROM rocpd_ops WHERE typeof(gpu) = 'integer' ORDER BY 1") or [0]
        self.kinds = col("SELECT DISTINCT kind FROM rocpd_ops WHERE typeof(kind) = 'text' ORDER BY 1") or [b"kernel"]
        self.names = col("SELECT DISTINCT name FROM rocpd_ops WHERE typeof(name) = 'text' AND length(name) < 120 "
                         "ORDER BY 1")
        durs = col("SELECT duration FROM rocpd_ops WHERE typeof(duration) = 'integer' ORDER BY 1") or [0, 1000]
        self.durs = [durs[min(len(durs) - 1, int(f * len(durs)))] for f in (0.05, 0.25, 0.5, 0.75, 0.95)]
        self.nrows = nat.execute("SELECT count(*) FROM rocpd_ops").fetchone()[0]
        # Sums of REALs depend on the order rows are added in, which SQL leaves open: where a duration
        # is a REAL, or a sum of integer durations may pass 2^53 (then avg's double sum rounds; SQLite's
        # sum() turns REAL past int64), REALs are compared within REL_TOL too. Elsewhere exactly.
        self.exact_reals = True
        for table in ("rocpd_ops", "rocpd_apis"):
            n, reals, big = nat.execute("SELECT count(*), count(*) FILTER (WHERE typeof(duration) = 'real'), "
                                        "max(abs(CAST(duration AS REAL))) FROM %s" % table).fetchone()
            self.exact_reals &= reals == 0 and (big or 0) * max(1, n) < 2.0 ** 53
        # Names whose group sum overflows (the overflow configuration)
        self.big_names = col("SELECT name FROM rocpd_ops WHERE typeof(name) = 'text' GROUP BY name "
                             "HAVING total(duration) > 9.2e18 ORDER BY 1")
        self.big_api_names = col("SELECT name FROM rocpd_apis WHERE typeof(name) = 'text' GROUP BY name "
                                 "HAVING total(duration) > 9.2e18 ORDER BY 1")
        # rocpd_apis (rocpd_api_groups)
        self.napis = nat.execute("SELECT count(*) FROM rocpd_apis").fetchone()[0]
        self.api_names = col("SELECT DISTINCT name FROM rocpd_apis WHERE typeof(name) = 'text' AND length(name) < 120 "
                             "ORDER BY 1") or [b"hipLaunchKernel"]
        self.domains = col("SELECT DISTINCT domain FROM rocpd_apis WHERE typeof(domain) = 'text' ORDER BY 1") or [b"hip"]
        self.pids = col("SELECT DISTINCT pid FROM rocpd_apis WHERE typeof(pid) = 'integer' ORDER BY 1") or [0]
        self.tids = col("SELECT DISTINCT tid FROM rocpd_apis WHERE typeof(tid) = 'integer' ORDER BY 1") or [0]
        self.formats = col("SELECT DISTINCT format FROM rocpd_members WHERE typeof(format) = 'text'") or [b"rpd"]
        # Bare columns whose value is the same on every row of a group (for GROUP BY g): a query
        # selecting them unaggregated has one answer, which both paths must give.
        self.bare = []
        for g in GROUPABLE:
            for b in ("pid", "kind", "db", "demangled", "gpu"):
                if b == g:
                    continue
                n = nat.execute('SELECT count(*) FROM (SELECT 1 FROM rocpd_ops GROUP BY "%s" '
                                'HAVING count(DISTINCT quote("%s")) > 1 OR count(*) > count(quote("%s")))'
                                % (g, b, b)).fetchone()[0]
                if n == 0:
                    self.bare.append((g, b))


def text_lit(v):
    return lit(v if isinstance(v, Text) else Text(v if isinstance(v, bytes) else str(v).encode()))


# ------------------------------------------------------------------------------------------------
# The generator


class Item:
    def __init__(self, sql, tol=False, alias=None, sd=False):
        self.sql, self.tol, self.alias = sql, tol, alias
        self.sd = sd  # holds a stddev: compared within REL_TOL, never a sort or DISTINCT key


class Query:
    def __init__(self, sql, label, shape, params=(), ordered=False, tol_cols=()):
        self.sql, self.label, self.shape = sql, label, shape
        self.params = params if isinstance(params, dict) else tuple(params)
        self.ordered, self.tol_cols = ordered, set(tol_cols)
        self.compare = True  # False: the answer is not defined by SQL (a bare column's row)


# Run first in every configuration (whatever the seed): the spans of each group and the gpu filter,
# over members holding ops and calls without a start or an end (the overflow job).
FIXED = [
    Query('SELECT db, gpu, kind, count(*), count(start), count("end"), min(start), max("end"), max(start), '
          'min("end") FROM rocpd_ops GROUP BY db, gpu, kind', "push", "fixed_spans"),
    Query('SELECT name, count(start), count("end"), min(start), max("end") FROM rocpd_ops GROUP BY name',
          "push", "fixed_spans"),
    Query('SELECT kind, count("end"), min("end"), max(start) FROM rocpd_ops WHERE gpu = 0 GROUP BY kind',
          "push", "fixed_gpu"),
    Query('SELECT db, tid, count(start), count("end"), min(start), max("end") FROM rocpd_apis GROUP BY db, tid',
          "push", "fixed_spans"),
    Query('SELECT name, count(start), max("end") FROM rocpd_apis GROUP BY name', "push", "fixed_spans"),
]


class Gen:
    def __init__(self, rng, data):
        self.r, self.d = rng, data
        self.beyond = False  # the query being built uses something beyond the promise's letter
        self.apis = False  # the query being built reads rocpd_apis

    # -- spelling
    def kw(self, word):
        """A keyword in random case (mostly as usually written)."""
        x = self.r.random()
        return word if x < 0.6 else word.lower() if x < 0.85 else word.title()

    def ident(self, name):
        """A column name in any case, maybe quoted."""
        r = self.r
        s = name if r.random() < 0.55 else r.choice([name.upper(), name.title(), "".join(
            c.upper() if r.random() < 0.5 else c for c in name)])
        x = r.random()
        if x < 0.15:
            return '"%s"' % s
        if x < 0.2:
            return "[%s]" % s
        if x < 0.25:
            return "`%s`" % s
        return s

    def table(self):
        name = "rocpd_apis" if self.apis else "rocpd_ops"
        t = self.r.choice([name] * 5 + ["temp." + name] * 3 + ["TEMP." + name, name.upper()])
        self.beyond |= t not in (name, "temp." + name)
        return t

    # -- pieces
    def agg(self, which=None):
        """(sql, is_stddev) of one engine aggregate."""
        r = self.r
        x = r.random()
        a = which or r.choice(AGGS + VALUE_AGGS if x < 0.3 else AGGS + TIME_AGGS if x < 0.5 else AGGS)
        if a == "time":
            fn = r.choice(["count", "min", "max", "MIN", "Max"])
            col = self.ident("start") if r.random() < 0.5 else r.choice(['"end"', "[END]", "`End`"])
            return "%s(%s)" % (fn, col), False
        if a == "percentile":
            return "percentile(duration, %s)" % r.choice(["0", "50", "90", "99.9", "100", "12.5", "1e1"]), False
        if a == "histogram":
            return "histogram(duration, %s)" % r.choice(["1000", "50000", "1e6", "250000, -7", "123.5, 10"]), False
        if a == "histogram_log2":
            return "histogram_log2(duration)", False
        if a == "group_concat":  # its order is open: compared through its length in bytes
            return "length(CAST(group_concat(duration%s) AS BLOB))" % r.choice(["", "", ", ';'", ", ''"]), False
        if a == "distinct":
            fn = r.choice(["count", "sum", "total", "avg", "min", "max", "median", "stddev", "histogram_log2"])
            return "%s(DISTINCT duration)" % fn, fn == "stddev"
        if a == "count(*)":
            return r.choice(["count(*)", "COUNT(*)", "Count(*)", "count( * )"]), False
        fn = a if r.random() < 0.6 else r.choice([a.upper(), a.title()])
        arg = self.ident("duration")
        sp = " " if r.random() < 0.15 else ""
        return "%s(%s%s%s)" % (fn, sp, arg, sp), a == "stddev"

    def agg_expr(self):
        """An aggregate with an expression around it; stddev only inside tolerance-safe ones."""
        r = self.r
        a, sd = self.agg()
        if sd:
            return Item(r.choice(["%s", "%s / 1e3", "%s * 2", "%s + 1", "coalesce(%s, -1)", "ifnull(%s, 0)",
                                  "(%s)"]) % a, sd=True)
        b, sd2 = self.agg()
        while sd2:
            b, sd2 = self.agg()
        k = r.choice(self.d.durs)
        forms = ["%s", "%s", "%s / 1e3", "%s * 2", "%s + 1", "round(%s, 2)", "round(%s)", "CAST(%s AS INTEGER)",
                 "CAST(%s AS REAL)", "abs(%s)", "coalesce(%s, -1)", "ifnull(%s, 0)", "nullif(%s, 0)",
                 "iif(%%s > %d, 'big', 'small')" % k, "CASE WHEN %s IS NULL THEN 'none' ELSE 'some' END",
                 "%%s - %s" % b, "%%s * 1.0 / %s" % b, "printf('%%.3f', %s)", "printf('%%d', %s)",
                 "-%s", "%s / 1000", "%s %% 7", "max(%%s, %s)" % b]
        f = r.choice(forms)
        self.beyond |= f.startswith("max(")  # (the scalar max is not among the functions listed)
        return Item(f % a)

    def group_expr(self, g):
        """An expression over grouped column g."""
        r, c = self.r, self.ident(g)
        forms = {
            "db": ["%s", "upper(%s)", "length(%s)", "%s || '/x'", "substr(%s, 1, 5)", "printf('<%%s>', %s)"],
            "gpu": ["%s", "%s + 1", "coalesce(%s, -1)", "abs(%s - 2)", "CASE %s WHEN 0 THEN 'zero' ELSE 'other' END",
                    "iif(%s > 1, 'hi', 'lo')", "CAST(%s AS TEXT)", "%s * 1.5", "typeof(%s)"],
            "kind": ["%s", "upper(%s)", "lower(%s)", "%s || ':' || %s", "nullif(%s, 'copy')", "length(%s)"],
            "name": ["%s", "lower(%s)", "length(%s)", "substr(%s, 1, 8)", "ifnull(%s, '?')", "upper(%s)",
                     "instr(%s, 'e')", "replace(%s, 'a', 'A')", "trim(%s)"],
            "pid": ["%s", "%s + 1", "coalesce(%s, -1)", "%s % 10", "CAST(%s AS TEXT)", "typeof(%s)"],
            "tid": ["%s", "%s - 1", "ifnull(%s, 0)", "iif(%s > 100, 'hi', 'lo')", "%s * 0.5"],
            "domain": ["%s", "upper(%s)", "length(%s)", "%s || '/' || %s", "nullif(%s, 'hip')"],
        }[g]
        f = r.choice(forms)
        self.beyond |= f.startswith(UNLISTED)
        return f.replace("%s", c).replace("%%", "%")

    def value(self, pool, n=1):
        return [self.r.choice(pool) for _ in range(n)]

    def group_term(self, g):
        """A WHERE term over grouped column g only."""
        r, c, d = self.r, self.ident(g), self.d
        if g in ("pid", "tid"):
            a, b = sorted(self.value(d.pids if g == "pid" else d.tids, 2))
            return r.choice(["%s = %d" % (c, a), "%s IN (%d, %d)" % (c, a, b), "%s >= %d" % (c, a),
                             "%s BETWEEN %d AND %d" % (c, a, b), "%s IS NOT NULL" % c, "%s IS NULL" % c,
                             "%s <> %d" % (c, a), "%s IN (%d, '%d')" % (c, a, b)])
        if g == "domain":
            a, b = self.value(d.domains, 2)
            return r.choice(["%s = %s" % (c, text_lit(a)), "%s IN (%s, %s)" % (c, text_lit(a), text_lit(b)),
                             "%s <> %s" % (c, text_lit(a)), "%s LIKE 'h%%'" % c, "%s IS NULL" % c])
        if g == "name" and self.apis:
            a, b = self.value(d.api_names, 2)
            return r.choice(["%s LIKE 'hip%%'" % c, "%s IN (%s, %s)" % (c, text_lit(a), text_lit(b)),
                             "%s = %s" % (c, text_lit(a)), "length(%s) > 12" % c, "%s IS NULL" % c,
                             "%s BETWEEN %s AND %s" % (c, text_lit(min(a, b)), text_lit(max(a, b)))])
        if g == "db" and d.dbs:
            a, b = sorted(self.value(d.dbs, 2))
            return r.choice(["%s = %s" % (c, text_lit(a)), "%s <> %s" % (c, text_lit(a)),
                             "%s IN (%s, %s)" % (c, text_lit(a), text_lit(b)), "%s NOT IN (%s)" % (c, text_lit(a)),
                             "%s LIKE 'rank1%%'" % c, "%s GLOB 'h_rpd*'" % c, "%s LIKE '%%_2'" % c,
                             "%s BETWEEN %s AND %s" % (c, text_lit(a), text_lit(b)), "%s >= %s" % (c, text_lit(a))])
        if g == "gpu":
            a, b = sorted(self.value(d.gpus, 2))
            return r.choice(["%s = %d" % (c, a), "%s BETWEEN %d AND %d" % (c, a, b), "%s IN (%d, %d)" % (c, a, b),
                             "%s >= %d" % (c, a), "%s IS NOT NULL" % c, "%s NOT BETWEEN %d AND %d" % (c, a, b),
                             "%s %% 2 = 0" % c, "%s <> %d" % (c, a), "%s IN (%d, '1', 2.0)" % (c, a),
                             "%s IS NULL" % c, "%s < 2.5" % c])
        if g == "kind":
            a, b = self.value(d.kinds, 2)
            return r.choice(["%s = %s" % (c, text_lit(a)), "%s IN (%s, %s)" % (c, text_lit(a), text_lit(b)),
                             "%s <> 'copy'" % c, "%s LIKE 'k%%'" % c, "%s NOT IN ('fill')" % c])
        a, b = self.value(d.names or [b"x"], 2)
        return r.choice(["%s LIKE '%%Kernel%%'" % c, "%s LIKE 'Cijk%%'" % c, "length(%s) > 20" % c,
                         "%s IN (%s, %s)" % (c, text_lit(a), text_lit(b)), "%s >= 'M'" % c, "%s IS NULL" % c,
                         "%s IS NOT NULL" % c, "lower(%s) LIKE '%%nccl%%'" % c, "substr(%s, 1, 1) = '_'" % c,
                         "%s = %s" % (c, text_lit(a)), "%s NOT LIKE '%%copy%%'" % c,
                         "%s BETWEEN %s AND %s" % (c, text_lit(min(a, b)), text_lit(max(a, b)))])

    def kind_filter(self):
        return "%s = %s" % ("kind" if self.r.random() < 0.7 else self.ident("kind"),
                            text_lit(self.r.choice(self.d.kinds + [b"kernel", b"copy"])))

    def having_term(self, items):
        r = self.r
        k = r.choice(self.d.durs)
        aliased = [it for it in items if it.alias and it.alias.startswith("a") and not it.sd and "(" in it.sql
                   and "printf" not in it.sql and "'" not in it.sql]
        forms = ["count(*) > %d" % r.choice([0, 1, 2, 5, 20, 100]), "sum(duration) > %d" % (k * 10),
                 "avg(duration) BETWEEN %d AND %d" % (self.d.durs[0], self.d.durs[3]), "max(duration) >= %d" % k,
                 "median(duration) > %d" % k, "min(duration) < %d" % k, "count(duration) < count(*)",
                 "stddev(duration) > %d" % (k // 3), "total(duration) / count(*) > %d" % k]
        if aliased:
            forms.append("%s > 0" % r.choice(aliased).alias)
        t = r.choice(forms)
        if r.random() < 0.2:
            t = "%s AND %s" % (t, r.choice(forms))
        return t

    # -- queries
    def pushable(self, apis=False):
        """A query of the promised shape (over rocpd_apis with `apis`). Returns Query with label 'push'."""
        r = self.r
        self.beyond = False
        self.apis = apis
        gcols = r.sample(GROUPABLE_APIS if apis else GROUPABLE, r.randint(1, 4))
        n_items = r.randint(1, 5)
        items = []
        for i in range(n_items):
            x = r.random()
            if x < 0.3:
                it = Item(self.group_expr(r.choice(gcols)) if r.random() < 0.4 else self.ident(r.choice(gcols)))
            elif x < 0.9:
                it = self.agg_expr()
            elif x < 0.95:
                g = r.choice(gcols)
                a, sd = self.agg()
                while sd:
                    a, sd = self.agg()
                it = Item(r.choice(["printf('%%s=%%s', %s, %s)" % (self.ident(g), a),
                                    "length(%s) + %s" % (self.ident(g), a),
                                    "CASE WHEN %s > 10 THEN %s ELSE 'few' END" % (a, self.ident(g))]))
            else:
                it = Item(r.choice(["'x'", "42", "1.5", "NULL", "-7", "X'00'"]))
            y = r.random()
            if y < 0.45:
                it.alias = "a%d" % i
                it.sql += " %s a%d" % (self.kw("AS"), i)
            elif y < 0.5:
                it.alias = '"col %d"' % i
                it.sql += ' AS "col %d"' % i
            elif y < 0.55:
                it.alias = "b%d" % i
                it.sql += " b%d" % i  # an alias without AS
            items.append(it)
        distinct = r.random() < 0.1 and not any(it.sd for it in items)
        where = []
        kf = None
        if r.random() < 0.45 and not apis:
            kf = self.kind_filter()
            where.append(kf)
        for _ in range(r.choice([0, 0, 1, 1, 2, 3])):
            where.append(self.group_term(r.choice(gcols)))
        if not apis and r.random() < 0.25:
            # `gpu = <integer>`, gpu grouped or not: rocpd_op_groups' of_gpu (the members read that gpu only)
            n = r.choice(self.d.gpus + [99])
            c = self.ident("gpu")
            where.append(r.choice(["%s = %d" % (c, n), "%d = %s" % (n, c), "%s == %d" % (c, n)]))
        if where and r.random() < 0.15 and len(gcols) >= 2:
            where.append("(%s OR %s)" % (self.group_term(gcols[0]), self.group_term(gcols[1])))
        r.shuffle(where)
        # An OR between the terms, unparenthesized: AND binds tighter, so `a AND b OR c` is `(a AND b) OR c`.
        # A WHERE on grouped columns only stays pushable; with the kind filter (kind not grouped) in an
        # OR it is not a conjunction of allowed terms.
        bare_or = len(where) >= 2 and r.random() < 0.2
        kind_ungrouped = "kind" not in gcols and kf is not None
        having = self.having_term(items) if r.random() < 0.3 else None
        sql = "%s %s%s %s %s" % (self.kw("SELECT"), (self.kw("DISTINCT") + " ") if distinct else "",
                                 ", ".join(it.sql for it in items), self.kw("FROM"), self.table())
        if where:
            ops = [self.kw("OR") if bare_or and (j == 0 or r.random() < 0.5) else self.kw("AND")
                   for j in range(len(where) - 1)]
            r.shuffle(ops)
            sql += " %s %s" % (self.kw("WHERE"), where[0] + "".join(
                " %s %s" % (o, w) for o, w in zip(ops, where[1:])))
        sql += " %s %s" % (self.kw("GROUP BY"), ", ".join(self.ident(g) for g in gcols))
        if having:
            sql += " %s %s" % (self.kw("HAVING"), having)
        order, ordered = self.order_by(items, gcols, distinct)
        sql += order
        tol = [i for i, it in enumerate(items) if it.sd]
        label = "any" if self.beyond else "push"
        shape = label
        if bare_or:
            # (a kind filter inside an OR: kind joins the engine's grouping, the rows are regrouped)
            shape = label + ("_or_with_kind" if kind_ungrouped else "_bare_or")
        if apis:
            shape = "apis_" + shape
        return Query(sql, label, shape, ordered=ordered, tol_cols=tol), items, gcols

    def order_by(self, items, gcols, distinct):
        """(' ORDER BY ... [LIMIT ...]', ordered): a total order (then maybe LIMIT/OFFSET), or a partial one
        without LIMIT (compared as a multiset), or none."""
        r = self.r
        x = r.random()
        if x < 0.4:
            return "", False
        keys = []
        for _ in range(r.randint(1, 2)):
            cand = [i for i, it in enumerate(items) if not it.sd]
            y = r.random()
            if cand and y < 0.35:
                i = r.choice(cand)
                keys.append(items[i].alias if items[i].alias else str(i + 1))
            elif cand and y < 0.6:
                keys.append(str(r.choice(cand) + 1))
            elif not distinct and y < 0.85:
                a, sd = self.agg()
                while sd:
                    a, sd = self.agg()
                keys.append(a)
            elif not distinct:
                keys.append(self.ident(r.choice(gcols)))
        keys = [k + r.choice(["", "", " DESC", " ASC", " desc"]) for k in keys]
        total = x > 0.55
        if total:
            # Total: every grouped column last (one row per group), or every column for DISTINCT.
            keys += [str(i + 1) for i in range(len(items))] if distinct else \
                    [self.ident(g) + r.choice(["", " DESC"]) for g in gcols]
        if not keys:
            return "", False
        s = " %s %s" % (self.kw("ORDER BY"), ", ".join(keys))
        if total and r.random() < 0.6:
            s += " %s %d" % (self.kw("LIMIT"), r.randint(0, 15))
            if r.random() < 0.5:
                s += " %s %d" % (self.kw("OFFSET"), r.randint(0, 8))
        return s, total

    def near_miss(self):
        """A query one step outside the promised shapes: label 'nopush'."""
        r, d = self.r, self.d
        gcols = self.pushable()[2]  # (the base query's draws keep the seeds' streams comparable)
        kinds = ["other_agg", "count_distinct", "group_concat", "group_lower", "bare", "where_ungrouped",
                 "join", "subquery_from", "subquery_where", "scalar_subquery", "window", "group_ordinal",
                 "param", "agg_expr_arg", "filter", "group_other_col", "collate", "cte", "union", "or_kind"]
        shape = r.choice(kinds)
        g = self.ident(r.choice(gcols))
        gl = ", ".join(self.ident(c) for c in gcols)
        k = r.choice(d.durs)
        kind = text_lit(r.choice(d.kinds))
        params = ()
        label = "nopush"
        if shape == "other_agg":
            sql = "SELECT %s, %s, count(*) FROM rocpd_ops GROUP BY %s" % (
                g, r.choice(["sum(start)", 'avg("end")', "sum(pid)", "avg(queue)", "total(stream)", "min(pid)",
                             "max(demangled)", "median(start)"]), gl)
        elif shape == "count_distinct":
            # Aggregates of another groupable column: the engine groups by it too, the rows are regrouped.
            sql = "SELECT %s, %s, sum(duration) FROM rocpd_ops GROUP BY %s" % (g, r.choice([
                "count(DISTINCT %s)", "length(CAST(group_concat(DISTINCT %s) AS BLOB))", "min(%s)", "max(DISTINCT %s)", "count(%s)",
                "sum(DISTINCT %s)", "avg(DISTINCT %s)", "total(DISTINCT %s)"]) % r.choice(["name", "gpu", "kind", "db"]),
                gl)
            label = "push"
        elif shape == "group_concat":
            sql = "SELECT %s, length(group_concat(%s)), count(*) FROM rocpd_ops GROUP BY %s" % (
                g, r.choice(["name", "kind", "pid", "duration, gpu"]), gl)
        elif shape == "group_lower":
            e = r.choice(["lower(name)", "substr(name, 1, 4)", "gpu % 2", "db || kind", "duration > %d" % k,
                          "name COLLATE NOCASE", "coalesce(gpu, 0)"])
            sql = "SELECT %s AS g, count(*), sum(duration), avg(duration) FROM rocpd_ops GROUP BY %s" % (e, e)
        elif shape == "bare" and d.bare:
            gg, b = r.choice(d.bare)
            sql = "SELECT %s, %s, count(*), max(duration) FROM rocpd_ops GROUP BY %s" % (gg, b, gg)
        elif shape == "where_ungrouped" or shape == "bare":
            shape = "where_ungrouped"
            others = [c for c in GROUPABLE if c not in gcols]
            cond = r.choice(["duration > %d" % k, "pid > 0", "queue = 1", "start > 0", "stream IS NOT NULL",
                             "duration BETWEEN %d AND %d" % (d.durs[1], d.durs[3])] +
                            ["gpu = 0" if "gpu" in others else "duration >= 0",
                             "name LIKE '%%e%%'" if "name" in others else "\"end\" > start",
                             "db <> 'rank0'" if "db" in others else "correlation_id > 0"])
            sql = "SELECT %s, count(*), sum(duration) FROM rocpd_ops WHERE %s GROUP BY %s" % (g, cond, gl)
            if cond.split()[0] in GROUPABLE:
                label = "push"  # a groupable column: the engine groups by it too
        elif shape == "join":
            fmt = text_lit(r.choice(d.formats))
            sql = ("SELECT o.%s, count(*), sum(o.duration) FROM rocpd_ops o JOIN rocpd_members m ON m.db = o.db "
                   "WHERE m.format = %s GROUP BY o.%s" % (gcols[0], fmt, gcols[0]))
            if r.random() < 0.5:
                sql = ("SELECT o.%s, count(*), max(o.duration) FROM rocpd_ops o JOIN (SELECT %s AS k) x ON x.k = o.kind "
                       "GROUP BY o.%s" % (gcols[0], kind, gcols[0]))
        elif shape == "subquery_from":
            sql = "SELECT %s, count(*), sum(duration) FROM (SELECT * FROM rocpd_ops) GROUP BY %s" % (g, gl)
        elif shape == "subquery_where":
            sql = ("SELECT %s, count(*), avg(duration) FROM rocpd_ops WHERE name IN "
                   "(SELECT name FROM rocpd_ops WHERE kind = %s) GROUP BY %s" % (g, kind, gl))
        elif shape == "scalar_subquery":
            sql = "SELECT %s, count(*), (SELECT count(*) FROM rocpd_members) FROM rocpd_ops GROUP BY %s" % (g, gl)
        elif shape == "window":
            w = r.choice(["rank() OVER (ORDER BY count(*) DESC)", "sum(count(*)) OVER ()",
                          "dense_rank() OVER (ORDER BY sum(duration))", "count(*) OVER ()"])
            sql = "SELECT %s, count(*), %s FROM rocpd_ops GROUP BY %s" % (g, w, gl)
        elif shape == "group_ordinal":
            sql = "SELECT %s, count(*), sum(duration) FROM rocpd_ops GROUP BY 1" % g
        elif shape == "param":
            x = r.random()
            if x < 0.4:
                sql = "SELECT %s, count(*) FROM rocpd_ops WHERE kind = ? GROUP BY %s" % (g, gl)
                params = (bytes(r.choice(d.kinds)).decode("utf-8", "replace"),)
            elif x < 0.7:
                sql = "SELECT %s, sum(duration) FROM rocpd_ops GROUP BY %s HAVING count(*) > ?" % (g, gl)
                params = (r.choice([0, 2, 10]),)
            else:
                sql = "SELECT %s, count(*) + :bump FROM rocpd_ops GROUP BY %s" % (g, gl)
                params = {"bump": 3}
        elif shape == "agg_expr_arg":
            sql = "SELECT %s, %s FROM rocpd_ops GROUP BY %s" % (g, r.choice([
                "sum(duration * 2)", "count(pid)", "percentile(duration, 101)", "avg(duration + 0)",
                "max(duration) FILTER (WHERE gpu = 0)", "stddev(start)", "min(abs(duration))"]), gl)
        elif shape == "filter":
            sql = "SELECT %s, count(*) FILTER (WHERE duration > %d), count(*) FROM rocpd_ops GROUP BY %s" % (g, k, gl)
        elif shape == "group_other_col":
            c = r.choice(["pid", "queue", "stream", "demangled", "correlation_id > 0"])
            sql = "SELECT %s, %s, count(*), sum(duration) FROM rocpd_ops GROUP BY %s, %s" % (g, c, gl, c)
        elif shape == "collate":
            sql = "SELECT name COLLATE NOCASE AS n, count(*) FROM rocpd_ops GROUP BY name COLLATE NOCASE"
            sql = r.choice([sql, "SELECT %s, count(*) FROM rocpd_ops GROUP BY %s COLLATE RTRIM" % (g, g)])
        elif shape == "cte":
            sql = "WITH t AS (SELECT * FROM rocpd_ops) SELECT %s, count(*), sum(duration) FROM t GROUP BY %s" % (g, gl)
        elif shape == "union":
            sql = ("SELECT %s, count(*) FROM rocpd_ops GROUP BY %s UNION ALL SELECT %s, count(*) FROM rocpd_ops "
                   "GROUP BY %s" % (g, gl, g, gl))
        elif shape == "or_kind":
            others = [c for c in GROUPABLE if c not in gcols and c != "kind"]
            label = "push"  # kind joins the engine's grouping
            if "kind" in gcols:
                shape, label = "where_ungrouped", "nopush"
                sql = "SELECT %s, count(*) FROM rocpd_ops WHERE kind = %s AND duration > %d GROUP BY %s" % (g, kind, k, gl)
            else:
                sql = "SELECT %s, count(*) FROM rocpd_ops WHERE %s GROUP BY %s" % (g, r.choice([
                    "(kind = 'kernel' OR kind = 'copy')", "kind LIKE 'k%'", "kind IN ('kernel', 'copy')",
                    "kind <> 'copy'", "kind IS NOT NULL"] + (["(kind = 'kernel' OR %s IS NULL)" % others[0]]
                                                          if others else [])), gl)
        return Query(sql, label, shape, params=params)

    def overflowing(self):
        """Over groups whose sum overflows: aggregates that answer, sum() that fails, and HAVING terms that
        decide whether a failing group's aggregates are computed (a term without an aggregate moves
        to WHERE as written, unless it is a literal false). Label 'push'."""
        r, d = self.r, self.d
        apis = r.random() < 0.25 and d.big_api_names
        table = "rocpd_apis" if apis else "rocpd_ops"
        groupable = GROUPABLE_APIS if apis else GROUPABLE
        bigs = d.big_api_names if apis else d.big_names
        gcols = ["name"] + r.sample([c for c in groupable if c != "name"], r.choice([0, 0, 1]))
        answering = ["count(*)", "min(duration)", "max(duration)", "avg(duration)", "total(duration)",
                     "median(duration)", "count(duration)", "percentile(duration, 90)", "avg(DISTINCT duration)",
                     "histogram_log2(duration)", "total(DISTINCT duration)", "max(DISTINCT duration)"]
        failing = ["sum(duration)", "sum(DISTINCT duration)"]
        items = [self.ident(g) for g in gcols] + r.sample(answering, r.randint(1, 3))
        tol = []
        if r.random() < 0.5:
            items.append(r.choice(failing))
        if r.random() < 0.15:
            items.append("stddev(duration)")
            tol.append(len(items) - 1)
        if r.random() < 0.3 and len(gcols) > 1:  # another groupable column aggregated: regrouped
            items.append("count(DISTINCT %s)" % r.choice([c for c in groupable if c not in gcols] or ["db"]))
        big = lit(Text(r.choice(bigs)))
        others = ", ".join(lit(Text(b)) for b in bigs)
        where = r.choice(["", "", " WHERE name NOT IN (%s)" % others, " WHERE name <> %s" % big,
                          " WHERE %s" % self.group_term(r.choice(gcols)) if not apis else ""])
        having = r.choice([
            "", "name <> %s" % big, "name NOT IN (%s)" % others, "0", "count(*) < 0", "count(*) > 1 AND 0",
            "0 = 1", "NULL", "name <> %s AND count(*) > 0" % big, "(name NOT IN (%s) AND count(*) >= 0)" % others,
            "sum(duration) > 0", "max(duration) > %d" % OVERFLOW_STEP, "name IN (%s)" % others, "1",
            "avg(duration) > 1e18 OR name <> %s" % big, "median(duration) >= 0 AND name NOT IN (%s)" % others])
        sql = "SELECT %s FROM %s%s GROUP BY %s%s" % (", ".join(items), table, where, ", ".join(self.ident(g) for g in gcols),
                                                    " HAVING " + having if having else "")
        q = Query(sql, "push", "overflow_" + ("apis" if apis else "ops") + ("_having" if having else ""), tol_cols=tol)
        return q

    def api_query(self):
        """A query over rocpd_apis: of the promised shape (label 'push'); another groupable column in
        WHERE or in a count/min/max/DISTINCT aggregate (pushed, regrouped: 'push'); or one step outside
        (a column that is not groupable in WHERE, an aggregate of one, GROUP BY an expression or
        another column: 'nopush')."""
        r, d = self.r, self.d
        q, _, gcols = self.pushable(apis=True)
        if r.random() < 0.5:
            return q
        g = self.ident(r.choice(gcols))
        gl = ", ".join(self.ident(c) for c in gcols)
        others = [c for c in GROUPABLE_APIS if c not in gcols]
        k = r.choice(d.durs)
        label = "nopush"
        shape = r.choice(["where_ungrouped", "where_finer", "other_agg", "finer_agg", "group_other_col",
                          "group_lower", "count_distinct"])
        if shape == "where_ungrouped":
            cond = r.choice(["duration > %d" % k, "category IS NOT NULL", "args LIKE '%%a%%'", "start > 0",
                             "correlation_id > 0", "length(args) > 3"])
            sql = "SELECT %s, count(*), sum(duration) FROM rocpd_apis WHERE %s GROUP BY %s" % (g, cond, gl)
        elif shape == "where_finer" and others:
            self.apis = True
            sql = "SELECT %s, count(*), sum(duration), median(duration) FROM rocpd_apis WHERE %s GROUP BY %s" % (
                g, self.group_term(r.choice(others)), gl)
            label = "push"
        elif shape == "other_agg":
            sql = "SELECT %s, %s, count(*) FROM rocpd_apis GROUP BY %s" % (
                g, r.choice(["total(start)", 'sum("end")', "max(api_id)", "median(start)", "count(args)"]), gl)
        elif shape == "finer_agg" or shape == "where_finer":
            shape = "finer_agg"
            sql = "SELECT %s, %s, sum(duration) FROM rocpd_apis GROUP BY %s" % (g, r.choice([
                "count(DISTINCT %s)", "min(%s)", "max(DISTINCT %s)", "count(%s)", "sum(DISTINCT %s)",
                "length(CAST(group_concat(DISTINCT %s) AS BLOB))"]) % r.choice(GROUPABLE_APIS), gl)
            label = "push"
        elif shape == "group_other_col":
            c = r.choice(["category", "args", "correlation_id", "node"])
            sql = "SELECT %s, %s, count(*), avg(duration) FROM rocpd_apis GROUP BY %s, %s" % (g, c, gl, c)
        elif shape == "group_lower":
            e = r.choice(["lower(name)", "tid % 2", "db || domain", "duration > %d" % k, "substr(name, 1, 3)"])
            sql = "SELECT %s AS g, count(*), sum(duration) FROM rocpd_apis GROUP BY %s" % (e, e)
        else:
            sql = "SELECT %s, count(DISTINCT %s), max(duration) FROM rocpd_apis GROUP BY %s" % (
                g, r.choice(["category", "args", "start", "api_id"]), gl)
        return Query(sql, label, "apis_" + shape)

    def undecided(self):
        """Shapes the promise does not settle either way: compared, the decision not asserted."""
        r, d = self.r, self.d
        q, _, gcols = self.pushable()
        sql = q.sql
        shape = r.choice(["alias", "qualified", "comment", "semicolon", "no_group", "reversed_kind", "kind_in",
                          "two_kinds", "limit_comma", "newlines", "quoted_table", "count_1", "group_twice"])
        k = text_lit(r.choice(d.kinds))
        g = gcols[0]
        if shape == "alias":
            sql = "SELECT o.%s, count(*), sum(o.duration) FROM rocpd_ops AS o GROUP BY o.%s" % (g, g)
        elif shape == "qualified":
            sql = "SELECT rocpd_ops.%s, avg(rocpd_ops.duration) FROM rocpd_ops GROUP BY rocpd_ops.%s" % (g, g)
        elif shape == "comment":
            sql = "SELECT %s, /* total */ sum(duration) FROM rocpd_ops -- ops\nGROUP BY %s" % (g, g)
        elif shape == "semicolon":
            sql = sql + ";"
        elif shape == "no_group":
            sql = r.choice(["SELECT count(*), sum(duration), median(duration) FROM rocpd_ops",
                            "SELECT max(duration) FROM rocpd_ops WHERE kind = %s" % k])
        elif shape == "reversed_kind":
            sql = "SELECT %s, count(*) FROM rocpd_ops WHERE %s = kind GROUP BY %s" % (g, k, g)
        elif shape == "kind_in":
            sql = "SELECT %s, count(*) FROM rocpd_ops WHERE kind IN (%s) GROUP BY %s" % (g, k, g)
        elif shape == "two_kinds":
            sql = "SELECT %s, count(*) FROM rocpd_ops WHERE kind = 'kernel' AND kind = %s GROUP BY %s" % (g, k, g)
        elif shape == "limit_comma":
            gl = ", ".join(gcols)
            sql = "SELECT %s, count(*) FROM rocpd_ops GROUP BY %s ORDER BY %s LIMIT 2, 5" % (gl, gl, gl)
            return Query(sql, "any", shape, ordered=True)
        elif shape == "newlines":
            sql = sql.replace(" FROM ", "\n  FROM\t").replace(" GROUP BY ", "\nGROUP   BY ")
            return Query(sql, q.label, q.label + "_newlines", ordered=q.ordered, tol_cols=q.tol_cols)
        elif shape == "quoted_table":
            sql = 'SELECT %s, count(*), total(duration) FROM "rocpd_ops" GROUP BY %s' % (g, g)
        elif shape == "count_1":
            sql = "SELECT %s, count(1), count(*) FROM rocpd_ops GROUP BY %s" % (g, g)
        elif shape == "group_twice":
            sql = "SELECT %s, sum(duration) FROM rocpd_ops GROUP BY %s, %s" % (g, g, g.upper())
        return Query(sql, "any", shape, ordered=q.ordered if shape == "semicolon" else False,
                     tol_cols=q.tol_cols if shape == "semicolon" else ())

    def shadowing(self):
        """Names that mean two things: an alias named like a column (SQLite reads a name in WHERE and
        HAVING as the column, in ORDER BY as the alias), a double-quoted name that is no column (a
        string in the query as written, maybe a column of the rewrite), a text compared with an
        aggregate."""
        r, d = self.r, self.d
        g, g2 = r.sample(GROUPABLE, 2)
        k = r.choice(d.durs)
        term = self.group_term(g)
        shape = r.choice(["alias_is_grouped", "order_alias_column", "where_alias_grouped", "where_alias_ungrouped",
                          "having_alias_ungrouped", "dq_string", "order_dq", "having_text", "precedence_grouped",
                          "precedence_kind", "where_alias_engine", "where_dq_engine", "having_dq_engine",
                          "having_alias_engine", "apis_where_alias_engine"])
        label, ordered, compare = "push", False, True
        if shape == "alias_is_grouped":
            # HAVING g is the grouped column, ORDER BY g the count.
            sql = "SELECT count(*) AS %s, %s AS n FROM rocpd_ops GROUP BY %s HAVING %s ORDER BY %s DESC, n" % (
                g, g, g, term, g)
            ordered = True
        elif shape == "order_alias_column":
            # ORDER BY reads the name as the alias first: an aggregate named like a column that is not grouped.
            a = r.choice(["duration", "duration", "start", "pid", "queue"])
            sql = "SELECT sum(duration) AS %s, %s FROM rocpd_ops GROUP BY %s ORDER BY %s DESC, 2" % (a, g, g, a)
            ordered = True
        elif shape == "where_alias_grouped":
            sql = "SELECT %s AS %s, count(*) FROM rocpd_ops WHERE %s GROUP BY %s, %s" % (g2, g, term, g2, g)
        elif shape == "where_alias_ungrouped":
            # WHERE g is the column g, not grouped: pushed with g in the engine's grouping, then regrouped.
            sql = "SELECT %s AS %s, count(*), max(duration) FROM rocpd_ops WHERE %s GROUP BY %s" % (g2, g, term, g2)
            # (g joins the engine's grouping; kind = '...' is the kind filter)
        elif shape == "having_alias_ungrouped":
            # HAVING g is the column g, outside an aggregate and not grouped: a bare column.
            sql = "SELECT %s AS %s, count(*) FROM rocpd_ops GROUP BY %s HAVING %s" % (g2, g, g2, term)
            label, compare = "nopush", False
        elif shape == "dq_string":
            sql = 'SELECT "%s" AS s, %s, count(*), sum(duration) FROM rocpd_ops GROUP BY %s' % (r.choice([
                "rocpd_sql:count*", "rocpd_sql:sum", "instances", "total_ns", "med_ns", "no such column"]), g, g)
            label = "any"
        elif shape == "order_dq":
            sql = 'SELECT %s, count(*), sum(duration) AS "s" FROM rocpd_ops GROUP BY %s ORDER BY "%s" DESC, 1' % (
                g, g, r.choice(["count(*)", "s", "sum(duration)", "instances"]))
            label, ordered = "any", True
        elif shape in ("where_alias_engine", "apis_where_alias_engine"):
            # An alias named like a column of the groups' table, used in WHERE: as written the alias (no
            # column of rocpd_ops / rocpd_apis has the name), in the groups' subquery that column.
            table, gg = ("rocpd_apis", r.choice(GROUPABLE_APIS)) if shape.startswith("apis") else ("rocpd_ops", g)
            c = r.choice(ENGINE_COLUMNS)
            v = r.choice(["1", "0", "2", "1000", "'x'", "NULL", "5000000", "%d" % k])
            op = r.choice(["=", "IS", "<", ">", "<>", "IS NOT"])
            sql = "SELECT %s, %s AS %s, count(*)%s FROM %s WHERE %s %s %s%s GROUP BY %s" % (
                gg, v, self.ident(c), r.choice(["", ", sum(duration)", ", median(duration)", ", max(duration)"]), table,
                self.ident(c), op, v, r.choice(["", " AND %s IS NOT NULL" % gg]), gg)
            label = "push"  # (the alias's expression in its place)
        elif shape == "where_dq_engine":
            # A double-quoted name that is no column: a string as written, a column in the groups' subquery.
            c = r.choice(ENGINE_COLUMNS)
            apis = g in ("db", "name") and r.random() < 0.3
            extra = "" if apis or r.random() < 0.5 else " AND %s" % term
            sql = 'SELECT %s, count(*), avg(duration) FROM %s WHERE "%s" %s \'%s\'%s GROUP BY %s' % (
                g, "rocpd_apis" if apis else "rocpd_ops", c, r.choice(["=", "IS", "<>", ">="]),
                r.choice([c, "x", c.upper()]), extra, g)
            label = "nopush"
        elif shape == "having_dq_engine":
            c = r.choice(ENGINE_COLUMNS)
            sql = 'SELECT %s, count(*), sum(duration) FROM rocpd_ops GROUP BY %s HAVING "%s" = \'%s\'%s' % (
                g, g, c, r.choice([c, "x"]), r.choice(["", " AND count(*) > 1", " OR count(*) > 1"]))
            label = "any"
        elif shape == "having_alias_engine":
            # An alias of an aggregate named like a column of rocpd_op_groups, in HAVING and ORDER BY.
            c = r.choice(ENGINE_COLUMNS)
            agg = r.choice(["count(*)", "sum(duration)", "max(duration)", "median(duration)", "avg(duration)"])
            sql = "SELECT %s, %s AS %s FROM rocpd_ops GROUP BY %s HAVING %s > %d ORDER BY %s, %s" % (
                g, agg, c, g, c, r.choice([0, 2, k]), c, g)
            ordered = True
        elif shape == "precedence_grouped":
            # `a AND b OR c` is `(a AND b) OR c`: on grouped columns only, pushable, and answered as written.
            sql = "SELECT %s, %s, count(*), sum(duration) FROM rocpd_ops WHERE %s AND %s OR %s GROUP BY %s, %s" % (
                g, g2, term, self.group_term(g2), self.group_term(g2), g, g2)
        elif shape == "precedence_kind":
            # The kind filter inside an OR (AND binds tighter) filters only some of the rows: kind joins the
            # engine's grouping, the WHERE picks finer groups, then they are regrouped.
            g = g if g != "kind" else g2
            kf = "kind = %s" % text_lit(r.choice(d.kinds))
            t1, t2 = self.group_term(g), self.group_term(g)
            where = r.choice(["%s AND %s OR %s" % (kf, t1, t2), "%s OR %s AND %s" % (t1, t2, kf),
                              "%s OR %s AND %s" % (t1, kf, t2)])
            sql = "SELECT %s, count(*), sum(duration) FROM rocpd_ops WHERE %s GROUP BY %s" % (g, where, g)
        else:
            sql = "SELECT %s, count(*) FROM rocpd_ops GROUP BY %s HAVING sum(duration) > '%d' OR max(duration) < '%d'" % (
                g, g, k, k)
        q = Query(sql, label, "shadow_" + shape, ordered=ordered)
        q.compare = compare
        return q

    def query(self):
        if self.d.big_names and self.r.random() < 0.3:
            return self.overflowing()
        if self.r.random() < 0.2:
            return self.api_query()
        x = self.r.random()
        if x < 0.5:
            return self.pushable()[0]
        if x < 0.82:
            return self.near_miss()
        if x < 0.9:
            return self.shadowing()
        return self.undecided()


# ------------------------------------------------------------------------------------------------
# Running and comparing


def tagged(v):
    return (type(v).__name__, v)


def show(v):
    if isinstance(v, (bytes, Text)) and len(v) > 80:
        head = bytes(v[:80]).decode("utf-8", "replace") if isinstance(v, Text) else bytes(v[:80])
        return "%r...(%d bytes)" % (head, len(v))
    return repr(v)


def show_rows(rows, n=8):
    s = ["(" + ", ".join(show(v) for v in row) + ")" for row in rows[:n]]
    if len(rows) > n:
        s.append("... %d rows in all" % len(rows))
    return " ".join(s) or "no rows"


def sort_key(v):
    """Orders values of any type (None, numbers, texts, blobs) the way SQLite does."""
    if v is None:
        return (0, 0.0, b"")
    if isinstance(v, (int, float)):
        return (1, float(v), b"")
    return (2 if isinstance(v, Text) else 3, 0.0, bytes(v))


def close(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or abs(a - b) <= REL_TOL * max(abs(a), abs(b))
    return a == b


def same_row(a, b, tol):
    return len(a) == len(b) and all(
        (close(x, y) if i in tol else (type(x) is type(y) and x == y)) for i, (x, y) in enumerate(zip(a, b)))


def same_rows(a, b, ordered, tol):
    if len(a) != len(b):
        return False
    if ordered:
        return all(same_row(x, y, tol) for x, y in zip(a, b))
    key = [lambda row: tuple(tagged(v) for v in row)]
    if collections.Counter(map(key[0], a)) == collections.Counter(map(key[0], b)):
        return True
    if not tol:
        return False
    # The stddev columns within REL_TOL: rows paired by their other columns, then by those values.

    def exact(row):
        return tuple(tagged(v) for i, v in enumerate(row) if i not in tol)

    def loose(row):
        return tuple(sort_key(row[i]) for i in sorted(tol))
    ba, bb = collections.defaultdict(list), collections.defaultdict(list)
    for row in a:
        ba[exact(row)].append(row)
    for row in b:
        bb[exact(row)].append(row)
    if set(ba) != set(bb):
        return False
    for k, ra in ba.items():
        rb = bb[k]
        if len(ra) != len(rb):
            return False
        ra, rb = sorted(ra, key=loose), sorted(rb, key=loose)
        if not all(same_row(x, y, tol) for x, y in zip(ra, rb)):
            return False
    return True


class Runner:
    def __init__(self, con, timeout):
        self.con, self.timeout, self.deadline = con, timeout, 0.0

    def run(self, sql, params=()):
        """('ok', names, rows) or ('error', message, None) or ('timeout', message, None)."""
        self.deadline = time.monotonic() + self.timeout
        self.con.set_progress_handler(lambda: 1 if time.monotonic() > self.deadline else 0, 1000)
        try:
            cur = self.con.execute(sql, params)
            rows = cur.fetchall()
            return "ok", [d[0] for d in cur.description] if cur.description else [], rows
        except sqlite3.Error as e:
            if time.monotonic() > self.deadline and "interrupt" in str(e):
                return "timeout", str(e), None
            return "error", "%s: %s" % (type(e).__name__, e), None
        finally:
            self.con.set_progress_handler(None, 0)


def decode(v):
    return bytes(v).decode("utf-8", "replace") if isinstance(v, (bytes, Text)) else v


class Pair(tuple):
    """Seconds (federated, native), summed with +."""

    def __new__(cls, a=0.0, b=0.0):
        return tuple.__new__(cls, (a, b))

    def __add__(self, other):
        return Pair(self[0] + other[0], self[1] + other[1])


class Tester:
    def __init__(self, args):
        self.args = args
        self.stats = collections.Counter()
        self.shapes = collections.Counter()
        self.failures = []
        self.time_by = collections.defaultdict(lambda: Pair())
        self.slowest = []
        self.pushed_by = collections.Counter()
        self.errors_both = collections.Counter()  # federated side's message

    def fail(self, cfg, i, q, what, detail):
        self.failures.append((cfg, i, q, what))
        if len(self.failures) <= self.args.max_print:
            print("FAIL %s #%d [%s/%s] %s\n  query: %s%s\n%s" % (
                cfg, i, q.label, q.shape, what, q.sql, ("\n  params: %r" % (q.params,)) if q.params else "",
                detail), flush=True)

    def run_config(self, name, dirs, attach, n, only=None):
        t0 = time.monotonic()
        fed = federated(dirs, attach)
        nat = native_copy(fed, name)
        data = Data(nat)
        setup = time.monotonic() - t0
        print("== %s: %d ops, %d api calls, %d queries (open %s%s; set up in %.1f s)" % (
            name, data.nrows, data.napis, n if only is None else 1, ", ".join(os.path.basename(d) for d in dirs),
            "; attach " + ", ".join(a for a, _ in attach) if attach else "", setup), flush=True)
        rf, rn = Runner(fed, self.args.timeout), Runner(nat, self.args.timeout)
        for i in range(n) if only is None else [only]:
            rng = random.Random("%s/%s/%d" % (self.args.seed, name, i))
            q = FIXED[i] if i < len(FIXED) else Gen(rng, data).query()
            self.one(name, i, q, data, fed, rf, rn, verbose=self.args.verbose or only is not None)
        fed.close()
        nat.close()
        return time.monotonic() - t0

    def one(self, cfg, i, q, data, fed, rf, rn, verbose=False):
        st = self.stats
        st["queries"] += 1
        self.shapes[(q.label, q.shape)] += 1
        try:
            if self.args.identity:
                rewritten, decision = q.sql, None
            else:
                rewritten = fed.execute("SELECT rocpd_sql_rewrite(?)", (q.sql,)).fetchone()[0]
                decision = fed.execute("SELECT rocpd_sql_pushdown(?)", (q.sql,)).fetchone()[0]
        except sqlite3.Error as e:
            self.fail(cfg, i, q, "rocpd_sql_rewrite/rocpd_sql_pushdown failed", "  %s" % e)
            return
        rewritten, decision = decode(rewritten), decode(decision)
        pushed = isinstance(decision, str) and decision.startswith("pushed")
        st["pushed" if pushed else "not_pushed"] += 1
        self.pushed_by[(q.label, q.shape)] += pushed
        if verbose:
            print("#%d [%s/%s] %s\n  decision: %s\n  rewrite: %s" % (i, q.label, q.shape, q.sql, decision, rewritten))
        if self.args.identity:
            pass
        elif not isinstance(decision, str) or not (pushed or decision.startswith("not pushed: ")):
            self.fail(cfg, i, q, "rocpd_sql_pushdown gave %r" % (decision,), "")
        elif q.label == "push" and not pushed:
            self.fail(cfg, i, q, "a promised shape was not pushed", "  %s" % decision)
        elif q.label == "nopush" and pushed:
            self.fail(cfg, i, q, "a near miss was pushed", "  %s\n  rewrite: %s" % (decision, rewritten))
        if not self.args.identity and pushed == (rewritten == q.sql):
            self.fail(cfg, i, q, "rocpd_sql_rewrite %s the query while rocpd_sql_pushdown says %r" % (
                "kept" if pushed else "changed", decision), "  rewrite: %s" % rewritten)
        t0 = time.monotonic()
        a = rf.run(rewritten, q.params)
        t1 = time.monotonic()
        b = rn.run(q.sql, q.params)
        self.time_by[(q.label, q.shape)] += (t1 - t0, time.monotonic() - t1)
        self.slowest = sorted(self.slowest + [(t1 - t0, cfg, i, rewritten)], reverse=True)[:5]
        if verbose:
            for side, res in (("federated", a), ("native", b)):
                print("  %-10s %s" % (side + ":", res[1] if res[0] != "ok" else "%s %s" % (
                    res[1], show_rows(res[2], 10))))
        if a[0] == "timeout" or b[0] == "timeout":
            st["timeouts"] += 1
            return
        if a[0] == "error" or b[0] == "error":
            if a[0] == b[0]:
                st["both_error"] += 1
                self.errors_both[a[1][:80]] += 1
                return
            if "integer overflow" in (a[1] if a[0] == "error" else b[1]) and cfg != "overflow":
                # SQLite's sum() overflows or not depending on the order it adds the rows in (as in
                # the differential tester, not compared); the engine sums exactly.
                st["overflow_one_side"] += 1
                if st["overflow_one_side"] == 1:
                    print("note: %s #%d: integer overflow on the %s side only (order-dependent; not compared): %s"
                          % (cfg, i, "federated" if a[0] == "error" else "native", q.sql[:300]))
                return
            self.fail(cfg, i, q, "only one side failed", "  rewrite:   %s\n  federated: %s\n  native:    %s" % (
                rewritten, a[1] if a[0] == "error" else show_rows(a[2]), b[1] if b[0] == "error" else show_rows(b[2])))
            return
        if not q.compare:
            st["not_compared"] += 1
            return
        st["compared"] += 1
        if a[1] != b[1]:
            self.fail(cfg, i, q, "column names differ", "  rewrite: %s\n  federated: %s\n  native:    %s" % (
                rewritten, a[1], b[1]))
        elif not same_rows(a[2], b[2], q.ordered, q.tol_cols) and (
                data.exact_reals or not same_rows(a[2], b[2], q.ordered, set(range(len(a[1]))))):
            self.fail(cfg, i, q, "rows differ (%s)" % ("in order" if q.ordered else "as multisets"),
                      "  rewrite:   %s\n  federated: %s\n  native:    %s" % (rewritten, show_rows(a[2]),
                                                                            show_rows(b[2])))


def main():
    env_q = os.environ.get("ROCPD_DIFF_QUERIES")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=int(os.environ.get("ROCPD_DIFF_SEED", "1")))
    ap.add_argument("--queries", type=int, default=int(env_q) if env_q else DEFAULT_QUERIES,
                    help="queries in total over the configurations (env ROCPD_DIFF_QUERIES)")
    ap.add_argument("--config", help="only this configuration: generated, overflow, hostile, hostile_limits, or big "
                                     "(the fixtures' 25k ops, not in the default run)")
    ap.add_argument("--only", type=int, help="run only query #N (with --config)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per query before it is interrupted")
    ap.add_argument("--max-print", type=int, default=40)
    ap.add_argument("--identity", action="store_true",
                    help="run each query itself on the federated side (the path without pushdown), no decision asserted")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not EXT or not os.path.exists(EXT + ".so"):
        print("ROCPD_EXT not set or missing: %r" % EXT)
        return 1
    if not FIXTURES:
        print("ROCPD_FIXTURES not set")
        return 1
    print("sqlite %s, seed %d, %d queries" % (sqlite3.sqlite_version, args.seed, args.queries), flush=True)
    tmp = tempfile.TemporaryDirectory(prefix="rocpd_pushdown_")
    cfgs = configs(tmp.name, args.config)
    if not cfgs:
        print("no configuration %r" % args.config)
        return 2
    t = Tester(args)
    t0 = time.monotonic()
    wsum = sum(c[1] for c in cfgs)
    for name, w, dirs, attach in cfgs:
        n = max(1, round(args.queries * w / wsum))
        el = t.run_config(name, dirs, attach, n, args.only)
        print("   %.1f s" % el, flush=True)
    tmp.cleanup()
    st = t.stats
    by_label = collections.Counter()
    for (label, _), c in t.shapes.items():
        by_label[label] += c
    print("pushed %d, not pushed %d, compared %d, both failed %d, integer overflow on one side %d, timeouts %d "
          "(labels: %s) in %.1f s" % (
        st["pushed"], st["not_pushed"], st["compared"], st["both_error"], st["overflow_one_side"], st["timeouts"],
        ", ".join("%s %d" % kv for kv in sorted(by_label.items())), time.monotonic() - t0))
    if args.verbose:
        for (label, shape), c in sorted(t.shapes.items()):
            tf, tn = t.time_by[(label, shape)]
            print("   %-7s %-18s %4d queries, %4d pushed, federated %.2f s, native %.2f s" % (
                label, shape, c, t.pushed_by[(label, shape)], tf, tn))
        for msg, c in t.errors_both.most_common(8):
            print("   both failed %d x: %s" % (c, msg))
        for dt, cfg, i, sql in t.slowest:
            print("   slowest: %.2f s %s #%d %s" % (dt, cfg, i, sql[:300]))
    if t.failures:
        cfg, i = t.failures[0][0], t.failures[0][1]
        env = " ".join("%s=%s" % (k, shlex.quote(os.environ.get(k, ""))) for k in ("ROCPD_EXT", "ROCPD_FIXTURES", "ROCPD_GEN"))
        print("%d FAILURES (seed %d); reproduce the first with:\n  %s /usr/bin/python3 %s --seed %d --config %s --only %d"
              % (len(t.failures), args.seed, env, os.path.abspath(__file__), args.seed, cfg, i))
        return 1
    if st["compared"] == 0:
        print("nothing compared")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
