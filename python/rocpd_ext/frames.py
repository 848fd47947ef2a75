"""pandas DataFrames of the federation's answers."""
import os

from .backends import columns_and_rows, connect


def _paths(paths):
    if paths is None:
        return []
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [os.fsdecode(paths)]
    return [os.fsdecode(p) for p in paths]


def _member_table_hint(con, message):
    """For `no such table: <member>.<table>`, how to read a member's own table (members are not
    attached schemas: rocpd_union's named form reads a table of every member, docs/federation.md);
    else None."""
    prefix = "no such table: "
    if not message.startswith(prefix) or "." not in message[len(prefix):]:
        return None
    schema, table = message[len(prefix):].split(".", 1)
    try:
        _, rows = columns_and_rows(con, "SELECT 1 FROM rocpd_members WHERE db = ?", (schema,))
    except Exception:
        return None
    if not rows:
        return None
    return (f"{schema} is a member, not an attached schema: read a member's own table through rocpd_union's "
            f"named form, e.g. CREATE VIRTUAL TABLE temp.{table}_all USING rocpd_union({table}); "
            f"SELECT * FROM temp.{table}_all WHERE db = '{schema}'")


def _pushed_down(con, sql):
    """`sql` as rocpd_sql_rewrite gives it (docs/pushdown.md): a GROUP BY the per-member engine
    answers, rewritten over it with the same columns and rows; any other query unchanged."""
    _, rows = columns_and_rows(con, "SELECT rocpd_sql_rewrite(?)", (sql,))
    return rows[0][0]


def read_sql(sql, paths=None, params=(), con=None):
    """The rows of `sql` as a pandas DataFrame (one column per result column, in order), over the
    members `paths` names (a file, directory or glob, or a list of them: each is passed to
    rocpd_open) on `con`, or on a new connection (connect()) when `con` is None. Without `params`
    the query runs as rocpd_sql_rewrite gives it (pushed down when the engine answers it)."""
    try:
        import pandas as pd
    except ImportError as e:
        raise RuntimeError("read_sql needs pandas (Debian: apt-get install python3-pandas; pip install pandas)") from e
    own = con is None
    if own:
        con = connect()
    try:
        for p in _paths(paths):
            con.execute("SELECT rocpd_open(?)", (p,)).fetchall()
        if not params:
            sql = _pushed_down(con, sql)
        try:
            columns, rows = columns_and_rows(con, sql, params)
        except Exception as e:  # sqlite3.Error or apsw.Error: the same type, with the way to a member's tables
            hint = _member_table_hint(con, str(e))
            if hint is None:
                raise
            raise type(e)(f"{e} ({hint})") from e
    finally:
        if own:
            con.close()
    return pd.DataFrame.from_records(rows, columns=columns)
