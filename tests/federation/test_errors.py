"""Every refusal of the federation names what was wrong: file, table, version or argument."""
import os
import shutil
import sqlite3
import tempfile

from rocpd_testlib import ChecksumGuard, connect, main, set_files


def copy_of(src, tmp, name):
    dst = os.path.join(tmp, name)
    shutil.copyfile(src, dst)
    return dst


class OpenErrors(ChecksumGuard):
    watched = set_files("same_rpd2") + set_files("same_rocpd")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rocpd_err_")
        self.con = connect()

    def tearDown(self):
        super().tearDown()
        shutil.rmtree(self.tmp)

    def assertError(self, sql, message, args=()):
        with self.assertRaises(sqlite3.Error) as cm:
            self.con.execute(sql, args).fetchall()
        self.assertEqual(str(cm.exception), message)

    def test_missing_path(self):
        p = os.path.join(self.tmp, "nope.rpd")
        self.assertError("SELECT rocpd_open(?)", f"rocpd_open: '{p}': no such file or directory", (p,))

    def test_glob_without_match(self):
        p = os.path.join(self.tmp, "*.rpd")
        self.assertError("SELECT rocpd_open(?)", f"rocpd_open: no file matches '{p}'", (p,))

    def test_directory_without_traces(self):
        open(os.path.join(self.tmp, "notes.txt"), "w").close()
        self.assertError("SELECT rocpd_open(?)",
                         f"rocpd_open: directory '{self.tmp}' holds no trace files "
                         "(*.rpd, *.db, *.sqlite, *.sqlite3, optionally .zst; *.json, *.json.gz), in it or its subdirectories",
                         (self.tmp,))

    def test_not_sqlite(self):
        p = os.path.join(self.tmp, "text.rpd")
        with open(p, "w") as f:
            f.write("hello, this is not a database" * 10)
        self.assertError("SELECT rocpd_open(?)", f"rocpd_open: '{p}': not an SQLite database", (p,))

    def test_truncated(self):
        src = set_files("same_rpd2")[0]
        p = os.path.join(self.tmp, "cut.rpd")
        with open(src, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data[: len(data) // 2])
        self.assertError("SELECT rocpd_open(?)",
                         f"rocpd_open: '{p}': truncated ({len(data) // 2} bytes, its header records "
                         f"{len(data) // 4096} pages of 4096 bytes)", (p,))

    def test_sqlite_without_trace(self):
        p = os.path.join(self.tmp, "plain.db")
        sqlite3.connect(p).execute("CREATE TABLE t(x)").connection.commit()
        self.assertError("SELECT rocpd_open(?)",
                         f"rocpd_open: '{p}': holds no rpd or rocpd trace (no rocpd_op, rocpd_metadata or "
                         "rocpd_metadata_<uuid> table)", (p,))

    def test_unsupported_rpd_version(self):
        p = copy_of(set_files("same_rpd2")[0], self.tmp, "v7.rpd")
        w = sqlite3.connect(p)
        w.execute("UPDATE rocpd_metadata SET value = '7' WHERE tag = 'schema_version'")
        w.commit()
        w.close()
        self.assertError("SELECT rocpd_open(?)",
                         f"rocpd_open: '{p}': unsupported rpd schema_version '7' (supported: 2, 3)", (p,))

    def test_unsupported_rocpd_version(self):
        p = copy_of(set_files("same_rocpd")[0], self.tmp, "v5.db")
        w = sqlite3.connect(p)
        (meta,), = w.execute("SELECT name FROM sqlite_master WHERE name LIKE 'rocpd_metadata_%' AND type = 'table'")
        w.execute(f"UPDATE \"{meta}\" SET value = '5.0.0' WHERE tag = 'schema_version'")
        w.commit()
        w.close()
        self.assertError("SELECT rocpd_open(?)",
                         f"rocpd_open: '{p}': unsupported rocpd schema_version '5.0.0' in {meta} "
                         "(supported: 3, 3.0.0 .. 3.0.5, 4.x)", (p,))

    def test_rpd_missing_table(self):
        p = copy_of(set_files("same_rpd2")[0], self.tmp, "noapi.rpd")
        w = sqlite3.connect(p)
        for (view,) in w.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
            w.execute(f'DROP VIEW "{view}"')
        w.execute("DROP TABLE rocpd_api")
        w.commit()
        w.close()
        self.assertError("SELECT rocpd_open(?)", f"rocpd_open: '{p}': rpd trace lacks table rocpd_api", (p,))

    def test_open_is_all_or_nothing(self):
        good = copy_of(set_files("same_rpd2")[0], self.tmp, "a_good.rpd")
        bad = os.path.join(self.tmp, "b_bad.rpd")
        with open(bad, "w") as f:
            f.write("x" * 200)
        self.assertError("SELECT rocpd_open(?)", f"rocpd_open: '{bad}': not an SQLite database",
                         (os.path.join(self.tmp, "*.rpd"),))
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_members").fetchone()[0], 0)
        self.assertEqual(self.con.execute("SELECT rocpd_open(?)", (good,)).fetchone()[0], 1)

    def test_open_twice_counts_once(self):
        f = set_files("same_rpd2")[0]
        self.assertEqual(self.con.execute("SELECT rocpd_open(?)", (f,)).fetchone()[0], 1)
        self.assertEqual(self.con.execute("SELECT rocpd_open(?)", (f,)).fetchone()[0], 0)
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_members").fetchone()[0], 1)

    def test_non_text_arguments(self):
        self.assertError("SELECT rocpd_open(42)",
                         "rocpd_open(pattern): pattern must be text (a file, a glob or a directory)")
        self.assertError("SELECT rocpd_close(42)", "rocpd_close(db): db must be text, a member name")

    def test_close_unknown(self):
        self.assertError("SELECT rocpd_close('nobody')",
                         "rocpd_close: no member opened by rocpd_open is named 'nobody'")

    def failing_member(self, name):
        """A trace whose rocpd_op fails while being read: a generated column overflows past row 50."""
        p = copy_of(set_files("same_rpd2")[0], self.tmp, name)
        w = sqlite3.connect(p)
        for (view,) in w.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
            w.execute(f'DROP VIEW "{view}"')
        w.execute("ALTER TABLE rocpd_op RENAME TO rocpd_op_rows")
        w.execute('CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER, '
                  'start INTEGER, e INTEGER, description_id INTEGER, opType_id INTEGER)')
        w.execute('INSERT INTO rocpd_op(id, gpuId, queueId, sequenceId, start, e, description_id, opType_id) '
                  'SELECT id, gpuId, queueId, sequenceId, start, "end", description_id, opType_id FROM rocpd_op_rows')
        # Added after the rows, so that only reading evaluates it.
        w.execute('ALTER TABLE rocpd_op ADD COLUMN "end" INTEGER GENERATED ALWAYS AS '
                  '(CASE WHEN id > 50 THEN abs(-9223372036854775807 - 1) ELSE e END) VIRTUAL')
        w.commit()
        w.close()
        return p

    def test_error_while_reading_an_opened_member(self):
        # Opened members are read by prefetch threads: their errors reach the query intact.
        p = self.failing_member("failing.rpd")
        self.con.execute("SELECT rocpd_open(?)", (p,))
        self.con.execute("SELECT rocpd_open(?)", (set_files("same_rpd2")[1],))
        self.assertError("SELECT count(*), sum(duration) FROM rocpd_ops",
                         f"rocpd_ops: member failing ({p}): integer overflow")

    def test_error_while_reading_an_attached_member(self):
        p = self.failing_member("failing_attached.rpd")
        self.con.execute("ATTACH ? AS bad", (p,))
        self.assertError("SELECT count(*), sum(duration) FROM rocpd_ops",
                         f"rocpd_ops: member bad ({p}): integer overflow")

    def test_attached_bad_version_is_reported_not_skipped(self):
        p = copy_of(set_files("same_rpd2")[0], self.tmp, "v9.rpd")
        w = sqlite3.connect(p)
        w.execute("UPDATE rocpd_metadata SET value = '9' WHERE tag = 'schema_version'")
        w.commit()
        w.close()
        self.con.execute("ATTACH ? AS bad", (p,))
        # Every query raises it, not only the first (the probe's failure is never cached).
        for sql in ("SELECT count(*) FROM rocpd_ops", "SELECT count(*) FROM rocpd_ops", "SELECT count(*) FROM rocpd_apis",
                    "SELECT * FROM rocpd_union('top')", "SELECT count(*) FROM rocpd_busy"):
            self.assertError(sql, f"schema bad ({p}): unsupported rpd schema_version '9' (supported: 2, 3)")


class SqlSurfaceErrors(ChecksumGuard):
    watched = set_files("same_rpd2")

    def setUp(self):
        self.con = connect()
        self.con.execute("ATTACH ? AS r0", (set_files("same_rpd2")[0],))

    def assertError(self, sql, message):
        with self.assertRaises(sqlite3.Error) as cm:
            self.con.execute(sql).fetchall()
        self.assertEqual(str(cm.exception), message)

    def test_unknown_summary_shows_named_form(self):
        self.assertError("SELECT * FROM rocpd_union('kernels')",
                         "rocpd_union('kernels'): unknown summary; use rocpd_union('top'|'ktop'|'copies'|'apis'|"
                         "'markers'); for any table or view, the named form: CREATE VIRTUAL TABLE temp.kernels_all "
                         "USING rocpd_union(kernels)")

    def test_summary_without_argument(self):
        self.assertError("SELECT * FROM rocpd_union",
                         "rocpd_union: no summary named; use rocpd_union('top'|'ktop'|'copies'|'apis'|'markers'); "
                         "for any table or view, the named form: CREATE VIRTUAL TABLE temp.kernels_all USING "
                         "rocpd_union(kernels)")

    def test_named_union_of_unknown_object(self):
        self.assertError("CREATE VIRTUAL TABLE temp.x USING rocpd_union(no_such_table)",
                         "rocpd_union(no_such_table): no member has a table or view named no_such_table")

    def test_own_tables_live_in_temp(self):
        # The views and internal SQL read temp.rocpd_ops etc., which no attached file can shadow.
        names = {r[0] for r in self.con.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table'")}
        self.assertTrue({"rocpd_ops", "rocpd_apis", "rocpd_members"} <= names, names)

    def test_file_functions_are_direct_only(self):
        # A view stored in a database (unlike a TEMP one) may come from a hostile file.
        self.con.execute("CREATE VIEW sneaky AS SELECT rocpd_open('/etc') AS n")
        self.assertError("SELECT * FROM sneaky", "unsafe use of rocpd_open()")

    def test_tables_are_direct_only(self):
        self.con.execute("CREATE TABLE t(x)")
        self.con.execute("CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT count(*) FROM rocpd_ops; END")
        with self.assertRaises(sqlite3.Error) as cm:
            self.con.execute("INSERT INTO t VALUES (1)")
        self.assertIn("unsafe use of virtual table", str(cm.exception))


if __name__ == "__main__":
    main()
