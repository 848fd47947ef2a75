"""Where librocpd_ext.so is: the places looked at, in order, and the one to load."""
import functools
import os
import shutil
import subprocess

ENV = "ROCPD_EXT_LIBRARY"
NAME = "librocpd_ext.so"

# Directories searched last, as a dynamic loader would.
SYSTEM_DIRS = ("/usr/local/lib", "/usr/local/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib")


class LibraryNotFound(RuntimeError):
    pass


def _recorded():
    """What the installer recorded in _location.py: `cmake --install` the library's path relative
    to the package, `pip install` from a checkout that checkout's build/ directory."""
    try:
        from . import _location
    except ImportError:
        return None, None
    return getattr(_location, "LIBRARY_RELATIVE", None), getattr(_location, "BUILD_TREE", None)


@functools.lru_cache(maxsize=None)
def _pkg_config():
    """`pkg-config --variable=extension rocpd_ext` + ".so", or None (asked once per process)."""
    exe = shutil.which("pkg-config")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--variable=extension", "rocpd_ext"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    path = out.stdout.strip()
    return path + ".so" if out.returncode == 0 and path else None


def candidates():
    """Where the library is looked for, in order (without $ROCPD_EXT_LIBRARY)."""
    here = os.path.dirname(os.path.abspath(__file__))
    relative, build_tree = _recorded()
    out = [os.path.join(here, NAME)]
    if relative:
        out.append(os.path.join(here, relative))
    # Imported from the source tree (PYTHONPATH=python): the checkout's build/.
    out.append(os.path.join(here, "..", "..", "build", NAME))
    if build_tree:
        out.append(os.path.join(build_tree, NAME))
    pc = _pkg_config()
    if pc:
        out.append(pc)
    out += [os.path.join(d, NAME) for d in SYSTEM_DIRS]
    seen, unique = set(), []
    for p in (os.path.normpath(p) for p in out):
        if p not in seen:
            seen.add(p)
            unique.append(p)
    return unique


def library_path():
    """The path of librocpd_ext.so to load: $ROCPD_EXT_LIBRARY when set (an error if it does not
    exist), else the first of candidates() that exists."""
    env = os.environ.get(ENV)
    if env:
        if not os.path.isfile(env):
            raise LibraryNotFound(f"{ENV}={env!r}: no such file")
        return os.path.abspath(env)
    tried = candidates()
    for p in tried:
        if os.path.isfile(p):
            return p
    raise LibraryNotFound(f"{NAME} not found; set {ENV} to its path. Looked in: " + ", ".join(tried))
