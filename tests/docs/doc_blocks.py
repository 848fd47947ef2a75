"""Finds the SQL examples of a Markdown doc and rewrites their shown outputs (doc_examples.py).

An example: a ```sql fence, then (blank lines allowed between) an optional ```text fence with its
output. A mark on the line before the ```sql fence (blank lines allowed between):
  <!-- docex: skip REASON -->   not run (REASON says why: needs a 1000-file job, writes outside, ...)
  <!-- docex: error -->         the example is meant to fail; its ```text block shows the error
"""
import difflib
import re

FENCE = re.compile(r"^(`{3,})([^`\s]*)\s*$")
MARK = re.compile(r"^<!--\s*docex:\s*(.*?)\s*-->\s*$")
# How the sqlite3 shell reports a failed statement (3.40 and later).
ERROR_LINE = re.compile(r"^(Parse error|Runtime error|Error)( near line \d+)?: ")


def is_error_line(line):
    return bool(ERROR_LINE.match(line))


class Example:
    def __init__(self, line, sql):
        self.line = line              # 1-based line of the ```sql fence
        self.sql = sql
        self.expected = None          # lines of the ```text block, None without one
        self.text_span = None         # (first, last) 0-based line indexes of the text fences
        self.sql_close = None         # 0-based line index of the sql block's closing fence
        self.skip_reason = None
        self.shows_error = False
        self.actual = None            # filled by the runner


class Parsed:
    def __init__(self):
        self.examples = []
        self.errors = []              # (1-based line, message)
        self.lines = []


def trim(lines):
    """Lines without trailing spaces, without blank lines at the end."""
    out = [line.rstrip() for line in lines]
    while out and not out[-1]:
        out.pop()
    return out


def _fences(lines):
    """Yields (lang, open index, close index) of every top-level fenced block."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks = m.group(1)   # a fence of four backticks may hold lines of three (examples of examples)
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != ticks:
            j += 1
        yield m.group(2), i, j
        i = j + 1


def _mark_before(lines, i):
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j >= 0:
        m = MARK.match(lines[j])
        if m:
            return m.group(1)
    return None


def parse(text):
    p = Parsed()
    p.lines = text.split("\n")
    lines = p.lines
    fences = list(_fences(lines))
    used_as_output = set()
    for k, (lang, a, b) in enumerate(fences):
        body = lines[a + 1:b]
        if b >= len(lines):
            p.errors.append((a + 1, "fenced block never closed"))
            break
        if lang != "sql":
            if lang in ("", "text") and a not in used_as_output and any(x.startswith("sqlite> ") for x in body):
                p.errors.append((a + 1, "an `sqlite>` transcript: write it as a ```sql block followed by a "
                                        "```text block with the output, so that it runs"))
            continue
        if any(x.startswith(("sqlite> ", "   ...> ")) for x in body):
            p.errors.append((a + 1, "```sql block with shell prompts: keep only the SQL"))
        ex = Example(a + 1, "\n".join(body) + "\n")
        ex.sql_close = b
        mark = _mark_before(lines, a)
        if mark is not None:
            if mark == "error":
                ex.shows_error = True
            elif mark.startswith("skip ") and mark[5:].strip():
                ex.skip_reason = mark[5:].strip()
            else:
                p.errors.append((a + 1, f"unknown mark '<!-- docex: {mark} -->' (known: 'skip REASON', 'error')"))
        if k + 1 < len(fences):
            lang2, a2, b2 = fences[k + 1]
            if lang2 == "text" and all(not x.strip() for x in lines[b + 1:a2]):
                ex.expected = trim(lines[a2 + 1:b2])
                ex.text_span = (a2, b2)
                used_as_output.add(a2)
        p.examples.append(ex)
    return p


def rewrite(text, parsed):
    """The doc with every run example's ```text block replaced by its actual output (inserted after
    the ```sql block when missing, removed when the example prints nothing)."""
    lines = parsed.lines
    edits = []  # (start, end exclusive, replacement lines), applied from the bottom up
    for ex in parsed.examples:
        if ex.actual is None:
            continue
        block = ["```text"] + ex.actual + ["```"] if ex.actual else []
        if ex.text_span:
            a, b = ex.text_span
            edits.append((a, b + 1, block))
        elif block:
            edits.append((ex.sql_close + 1, ex.sql_close + 1, block))
    out = list(lines)
    for start, end, repl in sorted(edits, key=lambda e: e[0], reverse=True):
        out[start:end] = repl
    # A removed text block may leave two blank lines; that is harmless in Markdown.
    return "\n".join(out)


def diff(expected, actual):
    return "\n".join(difflib.unified_diff(expected, actual, "shown", "shell", lineterm="", n=1))
