"""rocpd_ext from Python: find the library, load it into sqlite3 connections.

    import rocpd_ext
    con = rocpd_ext.connect()                 # an in-memory sqlite3 connection with the extension
    con.execute("SELECT rocpd_open('run42/*.db')")

The library is looked up once: $ROCPD_EXT_LIBRARY when set (a path to librocpd_ext.so; an error if
it does not exist), else next to this package, in the source tree's build/ directory, and in the
usual library directories (see `candidates()`). Python's sqlite3 must allow extensions: Debian's
/usr/bin/python3 does; some builds (pyenv's by default) do not, and `load()` says so.
"""
import os
import sqlite3

__all__ = ["library_path", "load", "connect", "candidates", "LibraryNotFound"]

ENV = "ROCPD_EXT_LIBRARY"
NAME = "librocpd_ext.so"


class LibraryNotFound(RuntimeError):
    pass


def candidates():
    """Where the library is looked for, in order (without $ROCPD_EXT_LIBRARY)."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, NAME),
           # the source tree: python/rocpd_ext -> build/
           os.path.join(here, "..", "..", "build", NAME)]
    # An installed package (<prefix>/lib/python3/dist-packages/rocpd_ext or
    # <prefix>/lib/python3.X/site-packages/rocpd_ext) next to <prefix>/lib.
    lib = os.path.normpath(os.path.join(here, "..", "..", ".."))
    out.append(os.path.join(lib, NAME))
    for d in ("/usr/local/lib", "/usr/local/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib"):
        out.append(os.path.join(d, NAME))
    return [os.path.normpath(p) for p in out]


def library_path():
    """The path of librocpd_ext.so to load."""
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


def load(con):
    """Loads the extension into the sqlite3 connection `con` (once per connection: pooled
    connections each need their own load). Returns `con`."""
    path = library_path()
    if not hasattr(con, "enable_load_extension"):
        raise RuntimeError("this Python's sqlite3 was built without extension loading; use one that has it "
                           "(Debian's /usr/bin/python3 does)")
    con.enable_load_extension(True)
    try:
        # SQLite derives the entry point from the file name; spelled out so a renamed copy loads too.
        con.execute("SELECT load_extension(?, 'sqlite3_rocpdext_init')", (path,))
    finally:
        con.enable_load_extension(False)
    return con


def connect(database=":memory:", **kwargs):
    """sqlite3.connect(database, **kwargs) with the extension loaded."""
    return load(sqlite3.connect(database, **kwargs))
