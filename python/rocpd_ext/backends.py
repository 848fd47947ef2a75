"""Connections with the extension loaded, through Python's sqlite3 when it can load extensions,
else through APSW (pyenv and some conda builds of Python omit extension loading from sqlite3)."""
import sqlite3

from .library import library_path

BACKENDS = ("sqlite3", "apsw")
ENTRY_POINT = "sqlite3_rocpdext_init"  # named, so that a renamed copy of the library loads too


def sqlite3_can_load_extensions():
    return hasattr(sqlite3.Connection, "enable_load_extension")


def _apsw():
    try:
        import apsw
    except ImportError:
        return None
    return apsw


NO_BACKEND = (
    "this Python's sqlite3 module cannot load extensions (it was built without them, as pyenv's and some conda "
    "Pythons are) and APSW is not importable. Install APSW: `pip install apsw`, or on Debian 12 "
    "`apt-get install python3-apsw` (importable as is by /usr/bin/python3; for another Python 3.11 see "
    "docs/python.md), or use Debian's /usr/bin/python3")


def default_backend():
    """The module connect() uses: 'sqlite3' when it can load extensions, else 'apsw' when APSW is
    importable; RuntimeError otherwise."""
    if sqlite3_can_load_extensions():
        return "sqlite3"
    if _apsw() is not None:
        return "apsw"
    raise RuntimeError(NO_BACKEND)


def is_apsw(con):
    apsw = _apsw()
    return apsw is not None and isinstance(con, apsw.Connection)


def load(con):
    """Loads the extension into `con`, a sqlite3 or an APSW connection (once per connection:
    pooled connections each need their own load), and switches extension loading off again.
    Returns `con`."""
    path = library_path()
    if is_apsw(con):
        con.enableloadextension(True)
        try:
            con.loadextension(path, ENTRY_POINT)
        finally:
            con.enableloadextension(False)
        return con
    if not hasattr(con, "enable_load_extension"):
        raise RuntimeError("this connection's sqlite3 module was built without extension loading; use "
                           "rocpd_ext.connect(), which falls back to APSW, or an APSW connection")
    con.enable_load_extension(True)
    try:
        con.execute("SELECT load_extension(?, ?)", (path, ENTRY_POINT))
    finally:
        con.enable_load_extension(False)
    return con


def connect(database=":memory:", backend=None, **kwargs):
    """A connection to `database` with the extension loaded: `sqlite3.connect(database, **kwargs)`,
    or `apsw.Connection(database, **kwargs)` when `backend` is 'apsw' or Python's sqlite3 cannot
    load extensions (default_backend()). Both answer execute(sql, params), executemany, fetchone, fetchall,
    iteration and description alike."""
    name = backend or default_backend()
    if name == "sqlite3":
        return load(sqlite3.connect(database, **kwargs))
    if name == "apsw":
        apsw = _apsw()
        if apsw is None:
            raise RuntimeError("backend='apsw': APSW is not importable (pip install apsw; Debian: python3-apsw)")
        return load(apsw.Connection(database, **kwargs))
    raise ValueError(f"unknown backend {name!r}; one of {', '.join(BACKENDS)}")


def errors():
    """The exception classes a connection raises, for `except rocpd_ext.errors():`."""
    apsw = _apsw()
    return (sqlite3.Error, apsw.Error) if apsw is not None else (sqlite3.Error,)


def columns_and_rows(con, sql, params=()):
    """(column names, list of row tuples) of one statement, on either backend (APSW reports no
    description once a statement without rows has completed: it is read before the first step)."""
    if is_apsw(con):
        described = []
        cur = con.cursor()

        def keep_description(cursor, _sql, _bindings):
            described.append([d[0] for d in cursor.getdescription()])
            return True

        cur.exectrace = keep_description
        rows = [tuple(r) for r in cur.execute(sql, params)]
        return (described[-1] if described else []), rows
    cur = con.execute(sql, params)
    rows = [tuple(r) for r in cur.fetchall()]
    return [d[0] for d in (cur.description or ())], rows
