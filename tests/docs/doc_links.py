"""The self-containment check of doc_examples.py: a doc names only files of the repository.

- every relative Markdown link resolves to a file or directory inside the repository;
- every `*.md` file named in the text exists (relative to the doc, the repository root or docs/);
- no path in the text leaves the repository (`../x`): data beside the checkout is described, not
  linked, since a reader of the repository alone does not have it.
"""
import os
import re

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MD_NAME = re.compile(r"(?<![\w./-])((?:\.\./|[\w-]+/)*[\w.-]+\.md)\b")
OUTSIDE = re.compile(r"(?<![\w.])\.\./[\w.]")


def _inside(root, path):
    root = os.path.realpath(root)
    path = os.path.realpath(path)
    return path == root or path.startswith(root + os.sep)


def check(rel, text, root):
    problems = []
    here = os.path.dirname(os.path.join(root, rel))
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.join(here, target.split("#")[0])
        if not _inside(root, path):
            problems.append(f"link '{target}' leaves the repository")
        elif not os.path.exists(path):
            problems.append(f"link '{target}' names a file that does not exist")
    rest = LINK.sub("", text)
    for name in sorted(set(MD_NAME.findall(rest))):
        if name.startswith("../") and not _inside(root, os.path.join(here, name)):
            continue  # reported below
        if not any(os.path.exists(os.path.join(d, name)) for d in (here, root, os.path.join(root, "docs"))):
            problems.append(f"names '{name}', which is not in the repository")
    for line_no, line in enumerate(rest.split("\n"), 1):
        if OUTSIDE.search(line):
            problems.append(f"line {line_no}: a path outside the repository: {line.strip()[:120]}")
    return problems
