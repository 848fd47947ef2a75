"""The names an export shows by default, computed apart from the extension: docs/names.md's rules
for demangle() with LLVM 19's llvm-cxxfilt as the demangler (the library the extension links)."""
import shutil
import subprocess

CXXFILT = shutil.which("llvm-cxxfilt-19") or "/usr/lib/llvm-19/bin/llvm-cxxfilt"
SUFFIXES = (" [clone .kd]", " (.kd)", ".kd")


def strip_descriptor(name):
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


class Demangled:
    """name -> what demangle(name) gives, cached; prime() demangles many names in one process."""

    def __init__(self):
        self.cache = {}

    @staticmethod
    def mangled(name):
        return name.startswith("_Z") and not any(c.isspace() for c in name) and "\0" not in name \
            and len(name.encode()) <= 64 * 1024

    def prime(self, names):
        todo = sorted({n for n in names if n is not None and n not in self.cache and self.mangled(n)})
        if todo:
            out = subprocess.run([CXXFILT], input="\n".join(todo) + "\n", capture_output=True, text=True,
                                 check=True).stdout.split("\n")
            for raw, text in zip(todo, out):
                # llvm-cxxfilt prints a name it cannot demangle unchanged: demangle() keeps it whole.
                self.cache[raw] = raw if text == raw else strip_descriptor(text)

    def __call__(self, name):
        if name is None:
            return None
        if name not in self.cache:
            if self.mangled(name):
                self.prime([name])
            else:
                self.cache[name] = strip_descriptor(name)
        return self.cache[name]


DEMANGLED = Demangled()
