"""The rocpd-ext examples of docs/cli.md and README.md run, and print what the docs show.

An example is a ```console block: lines starting with `$ ` are commands (run by /bin/sh in a
directory holding the demo job as `demo/` and as `build/demo/`, with `build/rocpd-ext` and
rocpd-ext on PATH), each followed by its output (stdout and stderr, as a terminal shows them).

  test_cli_docs.py            compare; fails listing each difference
  test_cli_docs.py --update   rewrite the shown outputs in place (review `git diff` after)
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

from clitest import CLI, GEN, require

SOURCE = os.environ.get("ROCPD_SOURCE_DIR") or os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = ["docs/cli.md", "README.md"]
BLOCK = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)


def examples(text):
    """(start, end, [(command, expected output lines)]) of every console block."""
    out = []
    for m in BLOCK.finditer(text):
        steps = []
        for line in m.group(1).splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        out.append((m.start(1), m.end(1), steps))
    return out


def render(steps):
    return "".join(f"$ {cmd}\n" + "".join(line + "\n" for line in lines) for cmd, lines in steps)


def workdir():
    tmp = tempfile.TemporaryDirectory(prefix="rocpd_cli_docs_")
    demo = os.path.join(tmp.name, "demo")
    subprocess.run([GEN, "--out", demo, "--procs", "8", "--format", "mixed", "--ops", "20000", "--seed", "42"],
                   check=True, stdout=subprocess.DEVNULL)
    os.makedirs(os.path.join(tmp.name, "build"))
    os.symlink(demo, os.path.join(tmp.name, "build", "demo"))
    os.symlink(os.path.abspath(CLI), os.path.join(tmp.name, "build", "rocpd-ext"))
    return tmp


def run_step(cmd, cwd):
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(CLI)) + os.pathsep + os.environ.get("PATH", ""))
    p = subprocess.run(["/bin/sh", "-c", cmd], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    return [line.rstrip() for line in p.stdout.rstrip("\n").split("\n")] if p.stdout else []


class Docs(unittest.TestCase):
    update = False

    def test_examples(self):
        tmp = workdir()
        self.addCleanup(tmp.cleanup)
        problems, seen = [], 0
        for rel in DOCS:
            path = os.path.join(SOURCE, rel)
            with open(path) as f:
                text = f.read()
            pieces, last = [], 0
            for start, end, steps in examples(text):
                got = [(cmd, run_step(cmd, tmp.name)) for cmd, _ in steps]
                seen += len(steps)
                for (cmd, want), (_, have) in zip(steps, got):
                    if [w.rstrip() for w in want] != have:
                        problems.append(f"{rel}: $ {cmd}\n--- shown\n" + "\n".join(want) + "\n--- printed\n" +
                                        "\n".join(have))
                pieces += [text[last:start], render(got)]
                last = end
            pieces.append(text[last:])
            if self.update and problems:
                with open(path, "w") as f:
                    f.write("".join(pieces))
        self.assertGreater(seen, 0, "no console example found")
        if not self.update:
            self.assertEqual(problems, [], "\n\n".join(problems))


if __name__ == "__main__":
    require()
    if "--update" in sys.argv:
        sys.argv.remove("--update")
        Docs.update = True
    unittest.main(verbosity=2)
