#!/usr/bin/python3
"""docs/bindings.md shows every binding example in full and its real output: each example file
must appear verbatim as one fenced block, and every ```text block that prints the busy table must
be exactly the table computed from the job's truth.json (what every binding test compares with).

usage: check_docs.py   (ROCPD_SOURCE_DIR, ROCPD_BINDINGS_JOB from CTest)
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_binding import expected_table  # noqa: E402

EXAMPLES = ["python/busy.py", "pandas/busy.py", "tcl/busy.tcl", "perl/busy.pl", "ruby/busy.rb",
            "go/busy.go", "go/busy_test.go", "rust/Cargo.toml", "rust/src/main.rs", "node/busy.js"]


def main():
    source = Path(os.environ["ROCPD_SOURCE_DIR"])
    doc = (source / "docs" / "bindings.md").read_text()
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", doc, flags=re.S | re.M)
    bodies = {body for _, body in blocks}
    failures = [f"docs/bindings.md does not show tests/bindings/{rel} in full (one fenced block, verbatim)"
                for rel in EXAMPLES if (source / "tests" / "bindings" / rel).read_text() not in bodies]
    want = expected_table(Path(os.environ["ROCPD_BINDINGS_JOB"]))
    outputs = [body for lang, body in blocks if lang == "text" and body.startswith("db\tgpu\t")]
    if len(outputs) < 8:
        failures.append(f"docs/bindings.md shows {len(outputs)} busy tables, one per example (8) expected")
    failures += [f"docs/bindings.md: a shown busy table is not the real one:\n{body}"
                 for body in outputs if body != want]
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print(f"OK: {len(EXAMPLES)} example files shown in full, {len(outputs)} outputs equal to truth.json's table")


if __name__ == "__main__":
    main()
