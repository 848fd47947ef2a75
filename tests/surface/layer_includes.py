"""Which folder of ext/ may include which (docs/architecture.md, "What may include what"), and
which namespace each folder's code lives in.

Every `#include "folder/file.h"` of ext/ is checked against the layers: a folder includes its own
files and those of the folders below it, never a capability beside it and never a layer above.
Every `namespace rocpd...` a file of ext/<folder>/ opens is the folder's namespace (or one nested
in it), so a name's namespace says where it is defined.
A virtual table is written with a template of ext/analysis/ (MemberRowsTable, JobTable) or the
SqlTableDef of diagnosis/sql_table.h; a hand-written sqlite3_module only where MODULE_FILES says.
Run with no argument: fails listing every include, namespace or module that breaks the rule.
`--count`: prints the number of such includes per pair of folders (the figure for a change's
note) and exits 0.
"""
import collections
import os
import re
import sys

EXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ext")

# The libraries at the bottom: no SQL table machinery, usable from every layer above them.
BASE = {"common"}
LIBRARIES = {"compression": BASE, "names": BASE, "stats": BASE}
LOW = BASE | set(LIBRARIES)
# The layers, each with what it may include besides itself.
LAYERS = {
    "common": set(),
    **LIBRARIES,
    "canonical": BASE,
    "formats": BASE | {"canonical"},
    "members": LOW | {"canonical", "formats"},
    "analysis": LOW | {"canonical", "members"},
    "federation": LOW | {"canonical", "formats", "members", "analysis"},
}
# The capabilities: each may include every layer above (formats only through its adapter
# interface, formats/adapter.h) and none of the other capabilities.
CAPABILITIES = {"intervals", "summaries", "diagnosis", "ranks", "critical_path", "export", "pushdown",
                "views", "import"}
CAPABILITY_MAY = LOW | {"canonical", "members", "analysis"}
# Capabilities that read the formats themselves (the importer converts a Kineto trace).
FORMAT_READERS = {"import"}

# The namespace of each folder's code is rocpd::<folder>, but for these. common/ is the base: its
# names are rocpd's own. export and import are C++ keywords.
NAMESPACE = {"common": "rocpd", "export": "rocpd::exporter", "import": "rocpd::importer"}
# Namespaces a folder may open besides its own: they name a file format the folder reads.
OTHER_NAMESPACES = {"common": {"rocpd::state_blob"}, "compression": {"rocpd::zstd"}}
# Files outside any rocpd namespace: fmt's compiled part (fmt's own namespace) and the registration
# entry points the loader calls (global C names, one per capability).
NO_NAMESPACE = re.compile(r"^(fmt_compiled|register_\w+)\.cpp$")

# Where a sqlite3_module may be written: the templates, the module helpers, the federation core
# (constraints pushed into each member's SQL) and rocpd_sql (tables made by CREATE VIRTUAL TABLE
# with the columns of the user's statement). Each such file says why in its opening comment.
MODULE_FOLDERS = {"analysis", "federation"}
MODULE_FILES = {"common/vtab_util.h", "diagnosis/sql_table.cpp", "pushdown/rocpd_sql.cpp"}
MODULE = re.compile(r"\bsqlite3_module\b")
LINE_COMMENT = re.compile(r"//[^\n]*")

OPEN_NAMESPACE = re.compile(r"^[ \t]*namespace\s+(rocpd(?:::\w+)*)\s*\{(.*)$", re.M)
FORWARD_DECLARATION = re.compile(r"^\s*(?:class|struct)\s+\w+\s*;\s*(?://.*)?$")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)


def allowed(src, dst, header):
    if src == dst:
        return True
    if src in LAYERS:
        return dst in LAYERS[src]
    if src in CAPABILITIES:
        if dst in CAPABILITY_MAY:
            return True
        return dst == "formats" and (header == "adapter.h" or src in FORMAT_READERS)
    return src == ""  # ext/rocpd_ext.cpp: the entry point sees every folder


def includes():
    for root, _, files in os.walk(EXT):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, EXT)
            src = rel.split(os.sep)[0] if os.sep in rel else ""
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                yield rel, line, src, m.group(1), m.group(2)


def forward_declarations_only(text, start):
    """True when the namespace block opening at `start` holds nothing but class declarations
    (`namespace rocpd::members { class MemberColumns; }`): a folder may name another's types."""
    lines = text[start:].split("\n")[1:]
    for line in lines:
        s = line.strip()
        if s.startswith("}"):
            return True
        if s and not s.startswith("//") and not FORWARD_DECLARATION.match(s):
            return False
    return False


def namespace_errors():
    for root, _, files in os.walk(EXT):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, EXT)
            if os.sep not in rel:
                continue  # ext/rocpd_ext.cpp: the entry point
            folder = rel.split(os.sep)[0]
            own = NAMESPACE.get(folder, f"rocpd::{folder}")
            others = OTHER_NAMESPACES.get(folder, set())
            with open(path, encoding="utf-8") as f:
                text = f.read()
            opened = list(OPEN_NAMESPACE.finditer(text))
            if not opened and not NO_NAMESPACE.match(name):
                yield f"ext/{rel}: declares no namespace (its folder's is {own})"
            for m in opened:
                ns = m.group(1)
                ok = ns == own or ns in others or (own != "rocpd" and ns.startswith(own + "::"))
                if ok or forward_declarations_only(text, m.start()):
                    continue
                line = text.count("\n", 0, m.start()) + 1
                yield f"ext/{rel}:{line}: namespace {ns} in ext/{folder}/ (its folder's is {own})"


def module_errors():
    for root, _, files in os.walk(EXT):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, EXT).replace(os.sep, "/")
            if rel.split("/")[0] in MODULE_FOLDERS or rel in MODULE_FILES:
                continue
            with open(path, encoding="utf-8") as f:
                code = LINE_COMMENT.sub("", f.read())
            if MODULE.search(code):
                yield (f"ext/{rel}: a hand-written sqlite3_module; use analysis/member_rows_table.h, "
                       "analysis/job_table.h or diagnosis/sql_table.h (docs/architecture.md)")


def main():
    folders = {d for d in os.listdir(EXT) if os.path.isdir(os.path.join(EXT, d))}
    unknown = folders - set(LAYERS) - CAPABILITIES
    bad = [(rel, line, src, dst, h) for rel, line, src, dst, h in includes() if not allowed(src, dst, h)]
    if "--count" in sys.argv[1:]:
        pairs = collections.Counter(f"{src} -> {dst}" for _, _, src, dst, _ in bad)
        for pair, n in sorted(pairs.items()):
            print(f"{n:4d}  {pair}")
        print(f"{len(bad)} includes sideways or up a layer")
        return 0
    errors = [f"ext/{rel}:{line}: {src}/ must not include {dst}/{h}" for rel, line, src, dst, h in bad]
    errors += [f"ext/{d}/: a folder of no layer (add it to tests/surface/layer_includes.py)" for d in sorted(unknown)]
    errors += list(namespace_errors())
    errors += list(module_errors())
    for e in errors:
        print(e)
    if errors:
        return 1
    print(f"layer_includes: {sum(1 for _ in includes())} includes of ext/ follow the layers; "
          "every folder's code is in its folder's namespace; tables use the templates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
