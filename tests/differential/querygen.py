"""Random SQL for the differential tester.

A query is generated once and rendered twice: table references are markers (TREF) that render as
the virtual table (`rocpd_ops`, `rocpd_union('top')`, `temp.u_rocpd_op`, `rocpd_utilization(N)`)
or as its plain copy. Everything else in the text is identical, so any difference in the results
is the virtual table's.

Queries are small trees (Query with a WHERE tree) so that a failing query can be reduced.
"""
import math
import re

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63


class Text(bytes):
    """A TEXT value as its bytes (may be invalid UTF-8 or hold NUL); blobs stay plain bytes."""

    def __repr__(self):
        try:
            s = self.decode("utf-8")
        except UnicodeDecodeError:
            return "Text(%s)" % bytes.__repr__(self)
        return repr(s)


def text(s):
    return Text(s.encode("utf-8"))


def tref(key):
    return "\u27e6%s\u27e7" % key


TREF_RE = re.compile("\u27e6([^\u27e7]+)\u27e7")


def render_refs(sql, mapping):
    return TREF_RE.sub(lambda m: mapping[m.group(1)], sql)


def lit(v):
    """SQL literal (or constant expression) for a Python value as read from SQLite."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NULL"
        if math.isinf(v):
            return "1e999" if v > 0 else "-1e999"
        return repr(v)
    if isinstance(v, Text):
        try:
            s = v.decode("utf-8")
        except UnicodeDecodeError:
            s = None
        if s is None or "\x00" in s or "\u27e6" in s:  # (the table markers never occur in literals)
            return "CAST(X'%s' AS TEXT)" % v.hex()
        return "'" + s.replace("'", "''") + "'"
    if isinstance(v, (bytes, bytearray)):
        return "X'%s'" % bytes(v).hex()
    raise TypeError(type(v))


def q(name):
    return '"' + name.replace('"', '""') + '"'


class Col:
    def __init__(self, name, affinity):
        self.name = name
        self.affinity = affinity  # INTEGER, TEXT, REAL, NUMERIC, BLOB (of the copy's declared type)
        self.values = []  # distinct values (sampled when many)
        self.ints = []
        self.texts = []
        self.mixed = False  # holds an integer and a real that compare equal (DISTINCT keeps either)
        self.nulls = False

    @property
    def texty(self):
        return self.affinity == "TEXT" or (self.texts and not self.ints)


class Table:
    """One virtual table of a configuration and its plain copy."""

    def __init__(self, key, kind, vt, copy, cols, nrows):
        self.key, self.kind, self.vt, self.copy, self.cols, self.nrows = key, kind, vt, copy, cols, nrows

    def col(self, name):
        for c in self.cols:
            if c.name == name:
                return c
        return None


# ------------------------------------------------------------------------------------------------
# WHERE trees


class Node:
    """('and'|'or', [children]) | ('not', [child]) | ('leaf', sql)."""

    def __init__(self, op, kids=None, sql=None):
        self.op, self.kids, self.sql = op, kids or [], sql

    def render(self):
        if self.op == "leaf":
            return self.sql
        if self.op == "not":
            return "NOT (" + self.kids[0].render() + ")"
        return "(" + (" %s " % self.op.upper()).join(k.render() for k in self.kids) + ")"

    def reductions(self):
        """Smaller trees: each child alone, the tree without one child, leaves simplified."""
        out = []
        if self.op in ("and", "or", "not"):
            out.extend(self.kids)
        if self.op in ("and", "or") and len(self.kids) > 2:
            for i in range(len(self.kids)):
                out.append(Node(self.op, self.kids[:i] + self.kids[i + 1:]))
        for i, k in enumerate(self.kids):
            for r in k.reductions():
                kids = list(self.kids)
                kids[i] = r
                out.append(Node(self.op, kids))
        return out


class Query:
    def __init__(self, cls):
        self.cls = cls
        self.select = []  # expressions
        self.distinct = False
        self.from_ = ""
        self.where = None  # Node
        self.fixed = []  # conditions ANDed to WHERE that reductions keep (join conditions, narrowing)
        self.group = []  # expressions
        self.having = None
        self.order_keys = 0  # ORDER BY the first n select items (a total order on the result)
        self.order_mods = {}  # select item index -> " DESC", " NULLS LAST", " COLLATE NOCASE" (then BINARY)
        self.limit = None
        self.offset = None
        self.compound = None  # (operator, Query)
        self.with_ = None

    @property
    def ordered(self):
        return self.order_keys > 0 and self.compound is None

    def render(self):
        s = ""
        if self.with_:
            s += "WITH " + self.with_ + " "
        s += "SELECT " + ("DISTINCT " if self.distinct else "") + ", ".join(self.select)
        s += " FROM " + self.from_
        conds = self.fixed + ([self.where.render()] if self.where is not None else [])
        if conds:
            s += " WHERE " + " AND ".join(conds)
        if self.group:
            s += " GROUP BY " + ", ".join(self.group)
        if self.having:
            s += " HAVING " + self.having
        if self.compound:
            s += " " + self.compound[0] + " " + self.compound[1].render()
        if self.order_keys:
            terms = []
            for i in range(self.order_keys):
                mod = self.order_mods.get(i, "")
                # A NOCASE term is followed by the same column in BINARY: still a total order.
                terms.append("%d%s, %d" % (i + 1, mod, i + 1) if "COLLATE" in mod else "%d%s" % (i + 1, mod))
            s += " ORDER BY " + ", ".join(terms)
        if self.limit is not None:
            s += " LIMIT %d" % self.limit
            if self.offset is not None:
                s += " OFFSET %d" % self.offset
        return s

    def copy(self, **kw):
        n = Query(self.cls)
        n.__dict__.update(self.__dict__)
        n.__dict__.update(kw)
        return n

    def reductions(self):
        out = []
        if self.where is not None:
            out.append(self.copy(where=None))
            out.extend(self.copy(where=r) for r in self.where.reductions())
        if self.compound:
            out.append(self.copy(compound=None))
            c = self.compound[1]
            if c.where is not None:
                out.append(self.copy(compound=(self.compound[0], c.copy(where=None))))
                out.extend(self.copy(compound=(self.compound[0], c.copy(where=r))) for r in c.where.reductions())
        if self.limit is not None:
            out.append(self.copy(limit=None, offset=None))
        if self.offset is not None:
            out.append(self.copy(offset=None))
        if self.having:
            out.append(self.copy(having=None))
        if self.distinct:
            out.append(self.copy(distinct=False))
        if self.order_keys and self.limit is None:
            out.append(self.copy(order_keys=0))
        # Drop select items that are not group keys or order keys.
        if not self.compound and len(self.select) > 1:
            first = max(len(self.group), self.order_keys)
            for i in range(first, len(self.select)):
                out.append(self.copy(select=self.select[:i] + self.select[i + 1:]))
            if not self.group and not self.order_keys:
                for i in range(len(self.select)):
                    out.append(self.copy(select=self.select[:i] + self.select[i + 1:]))
        return out


# ------------------------------------------------------------------------------------------------
# The generator


def _decode(v):
    try:
        return v.decode("utf-8")
    except UnicodeDecodeError:
        return None


class Gen:
    """Random queries over the tables of one configuration."""

    # Row visits one query may cost the virtual-table side: a virtual table has no automatic index,
    # so every outer row of a nested loop (join, correlated subquery) re-runs the inner table.
    BUDGET = 400_000
    BIG = 1500  # tables with more rows are narrowed before they drive a nested loop

    def __init__(self, rng, tables, joins, smalls, costs):
        self.r = rng
        self.tables = tables  # key -> Table
        self.joins = joins  # [(a key, b key, on format with {a} {b})]
        self.smalls = smalls  # plain tables not copied: key -> Table (same objects on both sides)
        self.costs = costs  # key -> rows read by one evaluation of the virtual table
        self.alias_n = 0
        self.outer_rows = 0  # rows of the outer query's table after narrowing (for correlated subqueries)

    def table(self, key):
        return self.tables.get(key) or self.smalls[key]

    def cost(self, key):
        return self.costs.get(key, 1)

    def narrow(self, t, a):
        """A BETWEEN on the most distinct integer column that keeps about 40 rows of `t`."""
        best = None
        for c in t.cols:
            if c.ints and (best is None or len(c.ints) > len(best.ints)):
                best = c
        if best is None or len(best.ints) < 3:
            return None, t.nrows
        ints = best.ints
        # col.ints holds up to 300 sampled distinct values: consecutive ones are nrows/300 rows apart.
        per = max(1.0, t.nrows / len(ints))
        step = max(1, int(40 / per))
        i = self.r.randrange(max(1, len(ints) - step))
        j = min(len(ints) - 1, i + step)
        node = Node("leaf", sql="%s.%s BETWEEN %d AND %d" % (a, q(best.name), ints[i], ints[j]))
        return node, int(per * (j - i + 1)) + 1

    # -- helpers
    def alias(self):
        self.alias_n += 1
        return "t%d" % self.alias_n

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def weighted(self, items):
        total = sum(w for w, _ in items)
        x = self.r.random() * total
        for w, v in items:
            x -= w
            if x < 0:
                return v
        return items[-1][1]

    # -- values
    def value(self, col):
        r = self.r.random()
        vals = col.values
        if vals and r < 0.55:
            return self.pick(vals)
        if vals and r < 0.75:
            return self.neighbour(self.pick(vals))
        if r < 0.85:
            return self.boundary(col)
        return self.cross_type(self.pick(vals) if vals else None)

    def neighbour(self, v):
        r = self.r
        if isinstance(v, int):
            return v + r.choice((-1, 1, 0, 2))
        if isinstance(v, float):
            return v + r.choice((-0.5, 0.5, 0.25))
        if isinstance(v, Text):
            s = _decode(v)
            if s is None:
                return Text(v[:-1]) if len(v) > 1 else v
            return text(r.choice((s.upper(), s.lower(), s.swapcase(), s + " ", s + "  ", s.rstrip(), s[:-1],
                                  s + "x", " " + s)))
        if isinstance(v, bytes):
            return v + b"\x00"
        return self.pick((0, 1, text(""), None))

    def boundary(self, col):
        ints = col.ints
        r = self.r
        if ints:
            lo, hi = ints[0], ints[-1]
            return r.choice((lo, hi, max(lo - 1, INT64_MIN), min(hi + 1, INT64_MAX), INT64_MAX, INT64_MIN, 0,
                             lo + 0.5, float(hi)))
        if col.texts:
            return r.choice((col.texts[0], col.texts[-1], text(""), text("~"), text(" ")))
        return r.choice((0, text(""), None))

    def cross_type(self, v):
        r = self.r
        if isinstance(v, int):
            return r.choice((text(str(v)), float(v), v + 0.5, text(" %d" % v), text("abc"), str(v).encode(), None,
                             text("%d.0" % v), 2.5))
        if isinstance(v, float):
            return r.choice((text(repr(v)), int(v) if abs(v) < 9e18 else 0, None, text("abc")))
        if isinstance(v, Text):
            s = _decode(v)
            cands = [bytes(v), None, 12, 2.5, 0, -1]
            if s is not None and re.fullmatch(r"\s*-?\d+\s*", s):
                cands.append(int(s))
            return r.choice(cands)
        if isinstance(v, bytes):
            return r.choice((Text(v), None, 0))
        return r.choice((2.5, 0, text(""), b"\x00", text("12"), 12, None))

    def text_value(self, col):
        if col.texts:
            return self.pick(col.texts)
        return text(self.pick(("rank0", "kernel", "hip", "")))

    def like_pattern(self, col, glob=False):
        r = self.r
        base = _decode(self.text_value(col)) or "x"
        if len(base) > 40 and self.chance(0.7):
            base = base[:40]
        k = r.randrange(len(base) + 1) if base else 0
        if glob:
            forms = [base, base[:k] + "*", "*" + base[k:], "*" + base[k:k + 3] + "*",
                     "".join("?" if r.random() < 0.2 else ch for ch in base),
                     base.swapcase()[:k] + "*", "[a-zA-Z_]*", "*", "", "[^x]*"]
            return lit(text(r.choice(forms))), ""
        forms = [base, base[:k] + "%", "%" + base[k:], "%" + base[k:k + 3] + "%",
                 "".join("_" if r.random() < 0.2 else ch for ch in base),
                 base.swapcase()[:k] + "%", base.upper(), "%", "", "_%"]
        pat = r.choice(forms)
        esc = ""
        if self.chance(0.3):
            e = r.choice(("\\", "!", "#"))
            pat = pat.replace(e, e + e)
            if self.chance(0.5):  # escape the metacharacters of the value itself
                pat = base.replace(e, e + e).replace("%", e + "%").replace("_", e + "_")[:k] + \
                    r.choice(("%", "", "_%"))
            esc = " ESCAPE %s" % lit(text(e))
        return lit(text(pat)), esc

    # -- WHERE
    def where(self, t, a, depth=2, rowid_ok=True, sub_ok=True):
        if depth > 0 and self.chance(0.45):
            op = self.weighted([(5, "and"), (4, "or"), (1, "not")])
            if op == "not":
                return Node("not", [self.where(t, a, depth - 1, rowid_ok, sub_ok)])
            n = self.r.choice((2, 2, 2, 3))
            if op == "or" and self.chance(0.4):
                # Terms the virtual table can take as constraints: SQLite may then run one scan per
                # term (a multi-index OR) and merge them by rowid.
                return Node(op, [self.leaf(t, a, simple=True) for _ in range(n)])
            return Node(op, [self.where(t, a, depth - 1, rowid_ok, sub_ok) for _ in range(n)])
        return self.leaf(t, a, rowid_ok, sub_ok)

    KEY_COLUMNS = ("db", "name", "gpu", "kind", "start", "end", "correlation_id")

    def column(self, t):
        return self.weighted([(3 if c.name in self.KEY_COLUMNS else 1, c) for c in t.cols])

    def leaf(self, t, a, rowid_ok=True, sub_ok=True, simple=False):
        kinds = [(25, "cmp"), (6, "between"), (8, "in"), (8, "like"), (4, "glob"), (5, "null"), (9, "collate"),
                 (8, "expr"), (4, "colcol"), (3, "is")]
        if simple:
            kinds = [(10, "cmp"), (3, "between"), (3, "in"), (3, "like"), (2, "glob"), (2, "collate")]
        elif sub_ok:
            kinds += [(4, "in_sub"), (3, "exists"), (2, "scalar")]
            if rowid_ok:
                kinds += [(2, "rowid_in")]
        kind = self.weighted(kinds)
        col = self.column(t)
        c = "%s.%s" % (a, q(col.name))
        r = self.r
        if kind == "cmp":
            op = r.choice(("=", "==", "<", ">", "<=", ">=", "<>", "!="))
            v = lit(self.value(col))
            return Node("leaf", sql=("%s %s %s" % (c, op, v)) if self.chance(0.75) else
                        ("%s %s %s" % (v, op, c)))
        if kind == "is":
            return Node("leaf", sql="%s IS %s%s" % (c, r.choice(("", "NOT ")), lit(self.value(col))))
        if kind == "between":
            v1, v2 = self.value(col), self.value(col)
            if self.chance(0.6) and isinstance(v1, (int, float)) and isinstance(v2, (int, float)) and v1 > v2:
                v1, v2 = v2, v1
            return Node("leaf", sql="%s %sBETWEEN %s AND %s" % (c, r.choice(("", "", "NOT ")), lit(v1), lit(v2)))
        if kind == "in":
            n = r.choice((0, 1, 2, 3, 5, 5, 40))  # long lists too (sqlite3_vtab_in takes them whole)
            vals = [lit(self.value(col)) for _ in range(n)]
            return Node("leaf", sql="%s %sIN (%s)" % (c, r.choice(("", "", "NOT ")), ", ".join(vals)))
        if kind in ("like", "glob"):
            if not col.texty and self.chance(0.7):
                tc = [x for x in t.cols if x.texty]
                if tc:
                    col = self.pick(tc)
                    c = "%s.%s" % (a, q(col.name))
            pat, esc = self.like_pattern(col, glob=kind == "glob")
            op = "GLOB" if kind == "glob" else "LIKE"
            return Node("leaf", sql="%s %s%s %s%s" % (c, r.choice(("", "", "NOT ")), op, pat, esc))
        if kind == "null":
            return Node("leaf", sql="%s %s" % (c, r.choice(("IS NULL", "IS NOT NULL", "ISNULL", "NOTNULL",
                                                           "NOT NULL"))))
        if kind == "collate":
            coll = r.choice(("NOCASE", "RTRIM", "BINARY", "nocase"))
            v = self.value(col) if not col.texty or self.chance(0.2) else self.neighbour(self.text_value(col))
            form = r.randrange(6)
            op = r.choice(("=", "=", "<", ">=", "<>", "!="))
            if form == 0:
                sql = "%s COLLATE %s %s %s" % (c, coll, op, lit(v))
            elif form == 1:
                sql = "%s %s %s COLLATE %s" % (c, op, lit(v), coll)
            elif form == 2:
                sql = "%s %s %s COLLATE %s" % (lit(v), op, c, coll)
            elif form == 3:
                vals = [lit(self.neighbour(self.text_value(col)) if col.texty else self.value(col))
                        for _ in range(r.choice((1, 2, 3)))]
                sql = "%s COLLATE %s IN (%s)" % (c, coll, ", ".join(vals))
            elif form == 4:
                v2 = self.value(col)
                sql = "%s COLLATE %s BETWEEN %s AND %s" % (c, coll, lit(v), lit(v2))
            else:
                sql = "%s = %s COLLATE %s" % (c, lit(v), coll)
            return Node("leaf", sql=sql)
        if kind == "expr":
            return Node("leaf", sql=self.expr_pred(c, col))
        if kind == "colcol":
            others = [x for x in t.cols if x is not col and (x.texty == col.texty)] or t.cols
            c2 = "%s.%s" % (a, q(self.pick(others).name))
            op = r.choice(("=", "<", ">", "<=", ">=", "<>", "IS", "IS NOT"))
            return Node("leaf", sql="%s %s %s" % (c, op, c2))
        if kind == "in_sub":
            t2 = self.pick(list(self.tables.values()))
            col2 = self.pick([x for x in t2.cols if x.texty == col.texty] or t2.cols)
            b = self.alias()
            w = self.where(t2, b, depth=1, rowid_ok=False, sub_ok=False)
            sub = "SELECT %s.%s FROM %s AS %s WHERE %s" % (b, q(col2.name), tref(t2.key), b, w.render())
            if self.cost(t2.key) > self.BIG and not col2.mixed:
                # SQLite may drive the outer scan by the IN list (one virtual-table scan per value):
                # keep the list short, and deterministic.
                sub = "SELECT DISTINCT %s.%s FROM %s AS %s WHERE %s ORDER BY 1 LIMIT %d" % (
                    b, q(col2.name), tref(t2.key), b, w.render(), r.choice((1, 5, 20)))
            return Node("leaf", sql="%s %sIN (%s)" % (c, r.choice(("", "NOT ")), sub))
        if kind == "exists":
            pairs = self.correlations(t)
            if not pairs:
                return self.leaf(t, a, rowid_ok, False)
            t2, on = self.pick(pairs)
            b = self.alias()
            w = self.where(t2, b, depth=1, rowid_ok=False, sub_ok=False)
            return Node("leaf", sql="%sEXISTS (SELECT 1 FROM %s AS %s WHERE %s AND %s)" % (
                r.choice(("", "NOT ")), tref(t2.key), b, on.format(a=a, b=b), w.render()))
        if kind == "scalar":
            pairs = self.correlations(t)
            t2 = self.pick(list(self.tables.values()))
            on = None
            if pairs and self.chance(0.5):
                t2, on = self.pick(pairs)
            col2 = self.pick([x for x in t2.cols if x.texty == col.texty] or t2.cols)
            b = self.alias()
            agg = r.choice(("max", "min", "count", "sum", "avg")) if not col2.mixed else r.choice(("count", "sum"))
            w = self.where(t2, b, depth=1, rowid_ok=False, sub_ok=False)
            cond = w.render() if on is None else "%s AND %s" % (on.format(a=a, b=b), w.render())
            op = r.choice(("=", "<", ">", "<=", ">=", "<>"))
            return Node("leaf", sql="%s %s (SELECT %s(%s.%s) FROM %s AS %s WHERE %s)" % (
                c, op, agg, b, q(col2.name), tref(t2.key), b, cond))
        if kind == "rowid_in":
            b = self.alias()
            w = self.where(t, b, depth=1, rowid_ok=False, sub_ok=False)
            return Node("leaf", sql="%s.rowid %sIN (SELECT %s.rowid FROM %s AS %s WHERE %s)" % (
                a, r.choice(("", "", "NOT ")), b, tref(t.key), b, w.render()))
        raise AssertionError(kind)

    def expr_pred(self, c, col):
        r = self.r
        v = self.value(col)
        op = r.choice(("=", "<", ">", "<=", ">=", "<>"))
        forms = [
            lambda: "%s + 0 %s %s" % (c, op, lit(v)),
            lambda: "+%s %s %s" % (c, op, lit(v)),
            lambda: "abs(%s) %s %s" % (c, op, lit(v)),
            lambda: "length(%s) %s %d" % (c, op, r.choice((0, 1, 5, 12, 30, 100))),
            lambda: "lower(%s) = %s" % (c, lit(self.neighbour(v) if isinstance(v, Text) else v)),
            lambda: "upper(%s) LIKE %s" % (c, self.like_pattern(col)[0]),
            lambda: "substr(%s, 1, %d) = %s" % (c, r.choice((1, 3, 5)), lit(self.substr_value(v))),
            lambda: "CAST(%s AS TEXT) %s %s" % (c, op, lit(v)),
            lambda: "CAST(%s AS INTEGER) %s %s" % (c, op, lit(v)),
            lambda: "CAST(%s AS REAL) %s %s" % (c, op, lit(v)),
            lambda: "%s || '' = %s" % (c, lit(v)),
            lambda: "coalesce(%s, %s) %s %s" % (c, lit(v), op, lit(self.value(col))),
            lambda: "%s %% 3 = %d" % (c, r.choice((0, 1, 2, -1))),
            lambda: "typeof(%s) = '%s'" % (c, r.choice(("integer", "text", "real", "blob", "null"))),
            lambda: "(%s %s %s) IS %s" % (c, op, lit(v), r.choice(("TRUE", "FALSE", "NULL", "NOT NULL"))),
            lambda: "iif(%s %s %s, 1, 0) = 1" % (c, op, lit(v)),
            lambda: "instr(%s, %s) > 0" % (c, lit(self.substr_value(v))),
            lambda: "%s = %s" % (c, c),
            lambda: "%s IS %s" % (c, c),
            lambda: "%s * 2 %s %s" % (c, op, lit(v)),
            lambda: "hex(%s) = hex(%s)" % (c, lit(v)),
        ]
        return r.choice(forms)()

    def substr_value(self, v):
        if isinstance(v, Text):
            s = _decode(v)
            if s is not None:
                return text(s[:self.r.choice((1, 3, 5))])
        return v

    def correlations(self, t):
        """[(inner table, condition format)] for correlated subqueries with `t` outside."""
        out = []

        rows = self.outer_rows or t.nrows

        def ok(inner):
            return rows * self.cost(inner) <= self.BUDGET

        for ak, bk, on in self.joins:
            if ak == t.key and bk in self.tables and ok(bk):
                out.append((self.tables[bk], on))
            elif bk == t.key and ak in self.tables and ok(ak):
                out.append((self.tables[ak], on.replace("{a}", "{x}").replace("{b}", "{a}").replace("{x}", "{b}")))
        if ok(t.key):
            for c in t.cols:
                if c.name in ("db", "gpu", "name", "correlation_id", "op_id", "api_id"):
                    out.append((t, "{b}.%s = {a}.%s" % (q(c.name), q(c.name))))
        return out

    # -- projections
    def projection(self, t, a, allow_expr=True):
        cols = list(t.cols)
        self.r.shuffle(cols)
        n = self.r.randint(1, len(cols))
        items, mixed = [], False
        for c in cols[:n]:
            ref = "%s.%s" % (a, q(c.name))
            mixed |= c.mixed
            if allow_expr and self.chance(0.15):
                f = self.r.choice(("typeof(%s)", "length(%s)", "%s + 1", "upper(%s)", "hex(%s)", "%s IS NULL",
                                   "CAST(%s AS TEXT)", "%s * 1.0", "quote(%s)"))
                # '12' + 1 and 12.0 + 1 are equal values of two types: no DISTINCT or LIMIT over them.
                mixed |= f == "%s + 1" and c.affinity != "INTEGER"
                ref = f % ref
            items.append(ref)
        return items, mixed

    # -- queries
    def query(self, t):
        cls = self.weighted([(22, "select"), (12, "count"), (14, "aggregate"), (4, "rowid_count"),
                             (3, "rowid_selfjoin"), (12, "join"), (4, "compound"), (4, "derived"), (4, "window")])
        return getattr(self, "q_" + cls)(t)

    def base(self, cls, t):
        qy = Query(cls)
        a = self.alias()
        qy.from_ = "%s AS %s" % (tref(t.key), a)
        narrow, rows = None, t.nrows
        # Big results cost most of the comparison's time: narrow big tables often (the identity
        # query of each table still compares every row).
        if t.nrows > self.BIG and self.chance(0.35 if cls in ("count", "aggregate", "rowid_count") else 0.6):
            narrow, rows = self.narrow(t, a)
        self.outer_rows = rows
        w = self.where(t, a) if self.chance(0.9) else None
        if narrow is not None:
            qy.fixed.append(narrow.render())
        qy.where = w
        self.outer_rows = 0
        return qy, a

    def order_mods(self, n):
        mods = {}
        for i in range(n):
            if self.chance(0.3):
                mods[i] = self.pick((" DESC", " NULLS LAST", " DESC NULLS FIRST", " COLLATE NOCASE",
                                     " COLLATE NOCASE DESC", " ASC"))
        return mods

    def q_select(self, t):
        qy, a = self.base("select", t)
        if self.chance(0.1):
            qy.select, mixed = ["%s.*" % a], any(c.mixed for c in t.cols)
        else:
            qy.select, mixed = self.projection(t, a)
        qy.distinct = not mixed and self.chance(0.2)
        if not mixed and self.chance(0.35):
            qy.order_keys = len(qy.select) if qy.select[0] != "%s.*" % a else 0
            qy.order_mods = self.order_mods(qy.order_keys)
            if qy.order_keys and self.chance(0.7):
                qy.limit = self.r.choice((0, 1, 3, 10, 50))
                if self.chance(0.4):
                    qy.offset = self.r.choice((0, 1, 5, 20))
        return qy

    def q_count(self, t):
        qy, a = self.base("count", t)
        qy.select = [self.r.choice(("count(*)", "count(*)", "count(1)", "count(%s.%s)" % (a, q(self.pick(t.cols).name))))]
        return qy

    def agg_items(self, t, a, n):
        items = []
        for _ in range(n):
            c = self.pick(t.cols)
            ref = "%s.%s" % (a, q(c.name))
            fns = ["count(%s)", "count(DISTINCT %s)", "sum(%s)", "total(%s)", "avg(%s)"]
            if not c.mixed:
                # group_concat follows the rows' order inside a group: a grouped scan keeps scan order
                fns += ["min(%s)", "max(%s)", "group_concat(%s)"]
            if c.affinity == "INTEGER" and self.chance(0.3):
                fns += ["median(%s)", "stddev(%s)"]
            f = self.pick(fns) % ref
            if self.chance(0.1):
                f += " FILTER (WHERE %s)" % self.leaf(t, a, rowid_ok=False, sub_ok=False).render()
            items.append(f)
        return items

    def q_aggregate(self, t):
        qy, a = self.base("aggregate", t)
        keys = [c for c in t.cols if not c.mixed]
        self.r.shuffle(keys)
        # Plain columns as keys are what a grouped scan takes over (docs/federation.md).
        nk = min(len(keys), self.r.choice((0, 1, 1, 2, 2, 3))) if keys else 0
        group = ["%s.%s" % (a, q(c.name)) for c in keys[:nk]]
        if group and self.chance(0.15):
            group[0] = self.r.choice(("length(%s)", "typeof(%s)", "%s IS NULL")) % group[0]
        qy.group = group
        qy.select = group + ["count(*)"] + self.agg_items(t, a, self.r.choice((0, 1, 2, 3)))
        if group and self.chance(0.2):
            qy.having = "count(*) %s %d" % (self.r.choice((">", ">=", "<", "=")), self.r.choice((1, 2, 5)))
        if group and self.chance(0.4):
            qy.order_keys = len(group)
            qy.order_mods = self.order_mods(qy.order_keys)
            if self.chance(0.6):
                qy.limit = self.r.choice((1, 2, 5))
                if self.chance(0.3):
                    qy.offset = self.r.choice((1, 2))
        return qy

    def q_rowid_count(self, t):
        qy, a = self.base("rowid_count", t)
        qy.select = ["count(*)", "count(DISTINCT %s.rowid)" % a]
        return qy

    def q_rowid_selfjoin(self, t):
        qy = Query("rowid_selfjoin")
        a, b = self.alias(), self.alias()
        wa = self.where(t, a, 1, sub_ok=False)
        wb = self.where(t, b, 1, sub_ok=False)
        rows = t.nrows
        if t.nrows * self.cost(t.key) > self.BUDGET:
            narrow, rows = self.narrow(t, a)
            if narrow is not None:
                qy.fixed.append(narrow.render())
        if rows * self.cost(t.key) <= self.BUDGET and self.chance(0.7):
            # A nested loop: the inner scan looks the outer row up by rowid.
            qy.from_ = "%s AS %s CROSS JOIN %s AS %s ON %s.rowid = %s.rowid" % (tref(t.key), a, tref(t.key), b, b, a)
            qy.where = Node("and", [wa, wb])
            proj = b
        else:
            # The second scan materialized (SQLite indexes it), joined on the rowids of the first.
            qy.with_ = "m AS MATERIALIZED (SELECT rowid AS rid, * FROM %s AS %s WHERE %s)" % (tref(t.key), b, wb.render())
            qy.from_ = "%s AS %s JOIN m ON m.rid = %s.rowid" % (tref(t.key), a, a)
            qy.where = wa
            proj = "m"
        if self.chance(0.5):
            qy.select = ["count(*)"]
        else:
            qy.select, _ = self.projection(t, proj, allow_expr=False)
        return qy

    def q_join(self, t):
        pairs = [(ak, bk, on) for ak, bk, on in self.joins if t.key in (ak, bk)]
        if not pairs:
            return self.q_select(t)
        ak, bk, on = self.pick(pairs)
        if self.chance(0.4):  # either side may drive the loop
            ak, bk, on = bk, ak, on.replace("{a}", "{x}").replace("{b}", "{a}").replace("{x}", "{b}")
        ta, tb = self.table(ak), self.table(bk)
        a, b = self.alias(), self.alias()
        cond = on.format(a=a, b=b)
        qy = Query("join")
        conds = []
        rows = ta.nrows
        if rows * self.cost(bk) > self.BUDGET:
            narrow, rows = self.narrow(ta, a)
            if narrow is not None:
                qy.fixed.append(narrow.render())
        cheap = ta.nrows * self.cost(bk) <= self.BUDGET and tb.nrows * self.cost(ak) <= self.BUDGET
        if rows * self.cost(bk) > 4 * self.BUDGET:
            # Still too dear as a nested loop: join against a materialized copy of the inner scan.
            qy.with_ = "m AS MATERIALIZED (SELECT * FROM %s AS %s)" % (tref(bk), b)
            inner = "m AS %s" % b
            cheap = True
        else:
            inner = "%s AS %s" % (tref(bk), b)
        # Plain JOIN lets SQLite choose the order; CROSS JOIN and LEFT JOIN keep `a` outside.
        jt = self.weighted([(5 if cheap else 0, "JOIN"), (4, "CROSS JOIN"), (4, "LEFT JOIN"), (1 if cheap else 0, ",")])
        extra = ""
        if jt == "LEFT JOIN" and self.chance(0.4):
            extra = " AND " + self.leaf(tb, b, rowid_ok=False, sub_ok=False).render()
        if jt == ",":
            qy.from_ = "%s AS %s, %s" % (tref(ak), a, inner)
            qy.fixed.append(cond)
        else:
            qy.from_ = "%s AS %s %s %s ON %s%s" % (tref(ak), a, jt, inner, cond, extra)
        if self.chance(0.7):
            conds.append(self.where(ta, a, 1, rowid_ok=False, sub_ok=False))
        if self.chance(0.5):
            conds.append(self.where(tb, b, 1, rowid_ok=False, sub_ok=False))
        qy.where = Node("and", conds) if len(conds) > 1 else (conds[0] if conds else None)
        form = self.r.randrange(3)
        if form == 0:
            qy.select = ["count(*)"] + (["count(%s.%s)" % (b, q(self.pick(tb.cols).name))] if self.chance(0.5) else [])
        elif form == 1:
            pa, ma = self.projection(ta, a, allow_expr=False)
            pb, mb = self.projection(tb, b, allow_expr=False)
            qy.select = pa[:3] + pb[:3]
            if not (ma or mb) and self.chance(0.3):
                qy.order_keys = len(qy.select)
                qy.order_mods = self.order_mods(qy.order_keys)
                qy.limit = self.r.choice((1, 5, 20))
        else:
            keys = [c for c in ta.cols if not c.mixed]
            if not keys:
                qy.select = ["count(*)"]
            else:
                k = "%s.%s" % (a, q(self.pick(keys).name))
                qy.group = [k]
                qy.select = [k, "count(*)", "count(%s.%s)" % (b, q(self.pick(tb.cols).name))]
        return qy

    def q_compound(self, t):
        qy, a = self.base("compound", t)
        items, mixed = self.projection(t, a, allow_expr=False)
        qy.select = items
        op = self.pick(("UNION ALL",) if mixed else ("UNION", "UNION ALL", "INTERSECT", "EXCEPT"))
        b = self.alias()
        other = Query("compound")
        other.from_ = "%s AS %s" % (tref(t.key), b)
        other.select = [i.replace(a + ".", b + ".") for i in items]
        other.where = self.where(t, b)
        qy.compound = (op, other)
        return qy

    def q_derived(self, t):
        qy = Query("derived")
        a, x = self.alias(), self.alias()
        inner = self.where(t, x, 1)
        if self.chance(0.5):
            qy.with_ = "s AS %s(SELECT * FROM %s AS %s WHERE %s)" % (
                self.pick(("", "MATERIALIZED ", "NOT MATERIALIZED ")), tref(t.key), x, inner.render())
            qy.from_ = "s AS %s" % a
        else:
            qy.from_ = "(SELECT * FROM %s AS %s WHERE %s) AS %s" % (tref(t.key), x, inner.render(), a)
        qy.where = self.where(t, a, 1, rowid_ok=False, sub_ok=False)
        if self.chance(0.4):
            qy.select = ["count(*)"]
        else:
            qy.select, _ = self.projection(t, a)
        return qy

    def q_window(self, t):
        qy, a = self.base("window", t)
        keys = [c for c in t.cols if not c.mixed] or t.cols
        g = "%s.%s" % (a, q(self.pick(keys).name))
        v = self.pick(t.cols)
        vref = "%s.%s" % (a, q(v.name))
        fn = self.pick(["count(*) OVER (PARTITION BY %s)" % g,
                        "sum(%s) OVER (PARTITION BY %s)" % (vref, g),
                        "rank() OVER (PARTITION BY %s ORDER BY %s)" % (g, vref),
                        "dense_rank() OVER (ORDER BY %s)" % vref,
                        "count(*) OVER ()"])
        qy.select = [g, vref if not v.mixed else "typeof(%s)" % vref, fn]
        return qy
