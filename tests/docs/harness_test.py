#!/usr/bin/python3
"""Unit test of the doc-example harness itself (no shell, no extension): parsing of examples and
marks, the rewrite of shown outputs, the version-independent comparison and the link check."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_blocks  # noqa: E402
import doc_examples  # noqa: E402
import doc_links  # noqa: E402

DOC = """# t

```sql
SELECT 1;
```
```text
old
```

<!-- docex: error -->
```sql
SELECT nosuch();
```

```sql
CREATE TABLE x(a);
```

<!-- docex: skip needs a file written by zstd -->
```sql
SELECT 2;
```

````
```sql
SELECT 'example of an example';
```
````
"""


class Parse(unittest.TestCase):
    def test_examples_and_marks(self):
        p = doc_blocks.parse(DOC)
        self.assertEqual(p.errors, [])
        self.assertEqual([e.sql for e in p.examples],
                         ["SELECT 1;\n", "SELECT nosuch();\n", "CREATE TABLE x(a);\n", "SELECT 2;\n"])
        self.assertEqual(p.examples[0].expected, ["old"])
        self.assertTrue(p.examples[1].shows_error)
        self.assertIsNone(p.examples[1].expected)
        self.assertEqual(p.examples[3].skip_reason, "needs a file written by zstd")

    def test_transcript_and_unknown_mark(self):
        p = doc_blocks.parse("```\nsqlite> SELECT 1;\n1\n```\n<!-- docex: maybe -->\n```sql\nSELECT 1;\n```\n")
        self.assertEqual(len(p.errors), 2)
        self.assertIn("transcript", p.errors[0][1])
        self.assertIn("unknown mark", p.errors[1][1])

    def test_skip_needs_reason(self):
        p = doc_blocks.parse("<!-- docex: skip -->\n```sql\nSELECT 1;\n```\n")
        self.assertEqual(len(p.errors), 1)


class Rewrite(unittest.TestCase):
    def test_replace_insert_remove(self):
        p = doc_blocks.parse(DOC)
        p.examples[0].actual = ["new", "lines"]
        p.examples[1].actual = ["Runtime error near line 1: no such function: nosuch"]
        p.examples[2].actual = []
        out = doc_blocks.rewrite(DOC, p)
        q = doc_blocks.parse(out)
        self.assertEqual(q.examples[0].expected, ["new", "lines"])
        self.assertEqual(q.examples[1].expected, ["Runtime error near line 1: no such function: nosuch"])
        self.assertIsNone(q.examples[2].expected)
        self.assertEqual(doc_blocks.rewrite(out, q), out)  # nothing run: unchanged
        p = doc_blocks.parse(out)
        p.examples[0].actual = []
        self.assertIsNone(doc_blocks.parse(doc_blocks.rewrite(out, p)).examples[0].expected)

    def test_trim(self):
        self.assertEqual(doc_blocks.trim(["a  ", "", " "]), ["a"])


class Cells(unittest.TestCase):
    def test_versions_agree(self):
        old = ["┌───┬──────────────────┐", "│ a │        b         │", "├───┼──────────────────┤",
               "│ 1 │ 2.12132034355964 │", "└───┴──────────────────┘"]
        new = ["╭───┬────────────────────╮", "│ a │         b          │", "╞═══╪════════════════════╡",
               "│ 1 │ 2.1213203435596424 │", "╰───┴────────────────────╯"]
        self.assertEqual(doc_examples.cells(old), doc_examples.cells(new))
        self.assertNotEqual(doc_examples.cells(old), doc_examples.cells(new[:3] + ["│ 1 │ 2.1213 │"]))
        self.assertEqual(doc_examples.cells(["Runtime error near line 1: bad (14)"]),
                         doc_examples.cells(["Error near line 1: bad"]))
        self.assertEqual(doc_examples.cells(["  a = 1"]), doc_examples.cells(["a: 1"]))

    def test_error_lines(self):
        self.assertTrue(doc_blocks.is_error_line("Parse error near line 3: no such table: x"))
        self.assertTrue(doc_blocks.is_error_line("Error near line 1: x"))
        self.assertFalse(doc_blocks.is_error_line("│ Error │"))


class Links(unittest.TestCase):
    def test_links(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "docs"))
            open(os.path.join(root, "docs", "a.md"), "w").close()
            open(os.path.join(root, "README.md"), "w").close()
            ok = "[a](a.md), [r](../README.md), see a.md and docs/a.md, <https://x.org/y.md>"
            self.assertEqual(doc_links.check("docs/b.md", ok, root), [])
            bad = "[x](../../outside.md) and design.md; data in ../shared/data"
            problems = doc_links.check("docs/b.md", bad, root)
            self.assertEqual(len(problems), 3, problems)


if __name__ == "__main__":
    unittest.main()
