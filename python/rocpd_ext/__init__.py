"""rocpd_ext from Python: find the library, load it into SQLite connections (docs/python.md).

    import rocpd_ext
    con = rocpd_ext.connect()                 # an in-memory connection with the extension
    con.execute("SELECT rocpd_open('run42')")
    df = rocpd_ext.read_sql("SELECT * FROM rocpd_kernel_summary", "run42")   # a pandas DataFrame

The library is looked up at each connect: $ROCPD_EXT_LIBRARY when set (a path to librocpd_ext.so;
an error if it does not exist), else next to this package, where `cmake --install` put it, in the
checkout's build/ directory, through pkg-config and in the usual library directories
(`candidates()`). Connections are Python's sqlite3 ones when its sqlite3 can load extensions
(Debian's /usr/bin/python3), else APSW's (pyenv and some conda Pythons), with the same methods.
"""
from .backends import connect, default_backend, errors, load, sqlite3_can_load_extensions
from .frames import read_sql
from .library import ENV, NAME, LibraryNotFound, candidates, library_path

__all__ = ["library_path", "load", "connect", "candidates", "LibraryNotFound", "read_sql", "default_backend", "errors",
           "sqlite3_can_load_extensions", "ENV", "NAME"]
