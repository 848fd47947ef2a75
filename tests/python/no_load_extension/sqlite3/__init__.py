"""Stands in for the sqlite3 module of a Python built without extension loading (pyenv's default
build, some conda builds): put this directory first on PYTHONPATH and `import sqlite3` gives the
real module whose Connection (and every connection sqlite3.connect returns) has neither
enable_load_extension nor load_extension, as in such builds."""
import os
import sys

_shadow = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_saved_path = list(sys.path)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _shadow]
del sys.modules["sqlite3"]
try:
    import sqlite3 as _real  # the standard library's package
finally:
    sys.path[:] = _saved_path


class _Missing:
    """An attribute that does not exist, on the class as on its instances."""

    def __get__(self, obj, objtype=None):
        raise AttributeError("this sqlite3 module was built without extension loading")


class Connection(_real.Connection):
    enable_load_extension = _Missing()
    load_extension = _Missing()


_real_connect = _real.connect


def connect(*args, **kwargs):
    kwargs.setdefault("factory", Connection)
    return _real_connect(*args, **kwargs)


_real.Connection = Connection
_real.connect = connect
# `import sqlite3` returns what sys.modules holds once this module ran: the patched real one.
sys.modules["sqlite3"] = _real
