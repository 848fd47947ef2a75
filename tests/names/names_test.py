"""names: demangle / kernel_short_name / rocpd_display_name / rocpd_duration_text / rocpd_version / rocpd_build_info through
Python's sqlite3: exact error texts, the whole corpus, bytes that are not UTF-8, concurrent connections."""
import json
import os
import re
import sqlite3
import threading
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from duration_text import duration_text  # noqa: E402

CORPUS = os.environ.get("ROCPD_NAMES_CORPUS",
                        os.path.join(os.environ.get("ROCPD_SOURCE_DIR", "."), "tests/names/corpus.tsv"))


def connect():
    con = sqlite3.connect(":memory:", check_same_thread=False)
    con.enable_load_extension(True)
    con.load_extension(os.environ["ROCPD_EXT"])
    return con


def load_corpus():
    rows = []
    with open(CORPUS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            mangled, expected, gnu = line.rstrip("\n").split("\t")
            rows.append((mangled, expected, gnu == "1"))
    return rows


class NameFunctionErrors(unittest.TestCase):
    def setUp(self):
        self.con = connect()

    def tearDown(self):
        self.con.close()

    def error(self, sql, *args):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.con.execute(sql, args).fetchall()
        return str(caught.exception)

    def test_non_text_arguments_are_errors_naming_the_type(self):
        for fn in ("demangle", "kernel_short_name", "rocpd_display_name"):
            self.assertEqual(self.error(f"SELECT {fn}(x'00')"), f"{fn}(): name must be text or NULL, got a blob of 1 bytes")
            self.assertEqual(self.error(f"SELECT {fn}(?)", b"_Z3foov"),
                             f"{fn}(): name must be text or NULL, got a blob of 7 bytes")
            self.assertEqual(self.error(f"SELECT {fn}(42)"), f"{fn}(): name must be text or NULL, got integer 42")
            self.assertEqual(self.error(f"SELECT {fn}(1.5)"), f"{fn}(): name must be text or NULL, got real 1.5")

    def test_wrong_argument_counts(self):
        self.assertEqual(self.error("SELECT demangle()"), "wrong number of arguments to function demangle()")
        self.assertEqual(self.error("SELECT kernel_short_name('a', 'b')"),
                         "wrong number of arguments to function kernel_short_name()")
        self.assertEqual(self.error("SELECT rocpd_version(1)"), "wrong number of arguments to function rocpd_version()")

    def test_null_gives_null(self):
        self.assertEqual(self.con.execute("SELECT demangle(NULL), kernel_short_name(NULL), rocpd_display_name(NULL)")
                         .fetchone(), (None, None, None))

    def test_errors_do_not_poison_the_connection(self):
        self.error("SELECT demangle(x'01')")
        self.assertEqual(self.con.execute("SELECT demangle('_Z3foov')").fetchone()[0], "foo()")


class NameFunctionValues(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.corpus = load_corpus()
        cls.backend = json.loads(cls.con.execute("SELECT rocpd_build_info()").fetchone()[0])["demangler"]

    @classmethod
    def tearDownClass(cls):
        cls.con.close()

    def test_backend_is_the_one_cmake_found(self):
        expected = os.environ.get("ROCPD_EXPECT_DEMANGLER")
        print(f"demangler backend: {self.backend}")
        if expected:
            self.assertEqual(self.backend, expected)
        self.assertIn(self.backend, ("llvm-19", "cxa"))

    def test_build_info_fields(self):
        info = json.loads(self.con.execute("SELECT rocpd_build_info()").fetchone()[0])
        for key in ("version", "demangler", "llvm", "zstd", "fmt", "sqlite_compiled", "sqlite_runtime", "compiler",
                    "sanitize", "capabilities", "name_cache_capacity"):
            self.assertIn(key, info)
        self.assertEqual(info["version"], self.con.execute("SELECT rocpd_version()").fetchone()[0])
        self.assertEqual(info["sqlite_runtime"], sqlite3.sqlite_version)
        self.assertIn("names", info["capabilities"])
        self.assertEqual(info["name_cache_capacity"], 4096)

    def test_corpus_matches_llvm_cxxfilt(self):
        self.assertGreaterEqual(len(self.corpus), 300)
        if self.backend == "cxa":
            self.skipTest("built with the __cxa_demangle fallback")
        self.con.execute("CREATE TEMP TABLE corpus(mangled TEXT, expected TEXT)")
        self.con.executemany("INSERT INTO corpus VALUES (?, ?)", [(m, e) for m, e, _ in self.corpus])
        mismatches = self.con.execute("""
            SELECT mangled, demangle(mangled), expected FROM corpus
            WHERE demangle(mangled) IS NOT (CASE WHEN mangled LIKE '%.kd' AND expected LIKE '% (.kd)'
                                                 THEN substr(expected, 1, length(expected) - 6) ELSE expected END)
        """).fetchall()
        self.assertEqual(mismatches, [])
        # Short names agree between mangled and demangled spellings.
        disagree = self.con.execute(
            "SELECT mangled FROM corpus WHERE kernel_short_name(mangled) IS NOT kernel_short_name(expected)").fetchall()
        self.assertEqual(disagree, [])

    def test_examples(self):
        examples = {
            "_ZN4vllm25scaled_act_and_mul_kernelIN3c104HalfETnPFfRKfEXadL_ZN4vllm11silu_kernelIfEEfRKfEEEEvPN3c104HalfEPKT_if":
                ("void vllm::scaled_act_and_mul_kernel<c10::Half, &float vllm::silu_kernel<float>(float const&)>"
                 "(c10::Half*, c10::Half const*, int, float)", "scaled_act_and_mul_kernel"),
            "_ZN12_GLOBAL__N_16kernelEPf.kd": ("(anonymous namespace)::kernel(float*)", "kernel"),
            "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI16x16x16x1_SN_1LDSB1":
                ("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI16x16x16x1_SN_1LDSB1",
                 "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI16x16x16x1_SN_1LDSB1"),
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>) [clone .kd]":
                ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                 "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
                 "vectorized_elementwise_kernel"),
        }
        for name, (demangled, short) in examples.items():
            if self.backend == "cxa" and "Tn" in name:
                continue  # C++20 manglings need LLVM's demangler
            self.assertEqual(self.con.execute("SELECT demangle(?), kernel_short_name(?)", (name, name)).fetchone(),
                             (demangled, short), name)

    def test_bytes_that_are_not_utf8_come_back_unchanged(self):
        con = connect()
        con.text_factory = bytes
        for raw in (b"\xc3\x28", b"_Z\xff\xfe", b"kernel_\xff", b"(\xff)"):
            got = con.execute("SELECT demangle(CAST(? AS TEXT)), kernel_short_name(CAST(? AS TEXT))", (raw, raw)).fetchone()
            self.assertEqual(got, (raw, raw), raw)
        con.close()

    def test_huge_and_broken_inputs_come_back_unchanged(self):
        for name in ("_Z1f" + "P" * 100_000 + "i", "x" * 100_000, "_Z3fo", "_Zgarbage", "_Z", "_Z1fIPFvvE" + "".join(
                "PFv%s%sE" % (("T_", "T_") if k == 1 else ("T%d_" % (k - 2),) * 2) for k in range(1, 40)) + "Evv"):
            self.assertEqual(self.con.execute("SELECT demangle(?)", (name,)).fetchone()[0], name, name[:40])

    def test_concurrent_connections_agree(self):
        names = [m for m, _, _ in self.corpus[:200]]
        expected = [self.con.execute("SELECT demangle(?)", (n,)).fetchone()[0] for n in names]
        failures = []

        def worker():
            con = connect()
            for _ in range(5):
                got = [con.execute("SELECT demangle(?)", (n,)).fetchone()[0] for n in names]
                if got != expected:
                    failures.append("mismatch")
            con.close()

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])


class RealTrace(unittest.TestCase):
    """Kernel names of the public matmul trace (rpd v2, already demangled by the tracer)."""

    def test_matmul_kernel_names(self):
        path = os.path.join(os.environ.get("ROCPD_SHARED_DATA", ""), "matmul_result.rpd")
        if not os.path.exists(path):
            self.skipTest(f"{path} is absent")
        con = connect()
        con.execute("ATTACH ? AS m", (f"file:{path}?mode=ro",))
        names = [r[0] for r in con.execute("""
            SELECT DISTINCT s.string FROM m.rocpd_op o JOIN m.rocpd_string s ON s.id = o.description_id
            JOIN m.rocpd_string t ON t.id = o.opType_id WHERE t.string = 'KernelExecution'""")]
        self.assertGreaterEqual(len(names), 10)
        # Already demangled (or Tensile): demangle leaves every one unchanged.
        unchanged = con.execute("SELECT count(*) FROM (SELECT value FROM json_each(?)) WHERE demangle(value) IS value",
                                (json.dumps(names),)).fetchone()[0]
        self.assertEqual(unchanged, len(names))
        shorts = sorted({r[0] for r in con.execute("SELECT kernel_short_name(value) FROM json_each(?)",
                                                    (json.dumps(names),))})
        tensile = [s for s in shorts if s.startswith("Cijk_Ailk_Bljk_SB_MT128x64x16_")]
        self.assertEqual(len(tensile), 1)
        self.assertEqual([s for s in shorts if s not in tensile],
                         ["CatArrayBatchedCopy", "CatArrayBatchedCopy_aligned16_contig", "block_reduce_kernel",
                          "elementwise_kernel", "index_elementwise_kernel", "init_lookback_scan_state_kernel",
                          "partition_kernel", "reduce_kernel", "transform_kernel"])
        con.close()


def fnv_digest(name):
    """The display digest, computed here independently: FNV-1a 64 of the UTF-8 bytes, low 24 bits."""
    h = 0xcbf29ce484222325
    for byte in name.encode("utf-8", "surrogateescape"):
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h & 0xFFFFFF:06x}"


def declaration_head(text):
    """A demangled declaration without clone suffixes (" (.cold)", " [clone .kd]"), its parameter
    list and what follows it, and its return type: what a display name keeps of a C++ name."""
    text = re.sub(r"( \(\.[^()]*\)| \[clone [^\]]*\])+$", "", text)
    if text.endswith(")") or text.endswith(" const"):
        depth, i = 0, len(text) - 1
        while i >= 0 and text[i] != ")":
            i -= 1
        for j in range(i, -1, -1):
            depth += {")": 1, "(": -1}.get(text[j], 0)
            if depth == 0:
                text = text[:j]
                break
    depth, start = 0, 0
    for j, c in enumerate(text):  # the return type ends at the last top-level space
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(c, 0)
        if c == " " and depth == 0 and not text[:j].endswith("operator"):
            start = j + 1
    return text[start:]


class DisplayNames(unittest.TestCase):
    """rocpd_display_name over the corpus (mangled names and their llvm-cxxfilt demangling): 60 bytes,
    deterministic, mangled and demangled spellings alike, digests as documented, few collisions."""

    def test_corpus(self):
        con = connect()
        corpus = load_corpus()
        shown = {}
        for mangled, demangled, _ in corpus:
            d = con.execute("SELECT rocpd_display_name(?)", (mangled,)).fetchone()[0]
            self.assertLessEqual(len(d.encode()), 60, mangled)
            self.assertEqual(d, con.execute("SELECT rocpd_display_name(?)", (mangled,)).fetchone()[0])
            if mangled != demangled:  # the demangled spelling displays the same
                self.assertEqual(con.execute("SELECT rocpd_display_name(?)", (demangled,)).fetchone()[0], d, mangled)
            if "~" in d and len(d.encode()) == 60:
                plain = con.execute("SELECT demangle(?)", (mangled,)).fetchone()[0]
                self.assertEqual(d[-6:], fnv_digest(plain), mangled)
            shown.setdefault(d, set()).add(mangled)
        # Distinct names share a display name only as docs/names.md says: spellings of one kernel
        # (clone and descriptor suffixes) and overloads that differ only in their parameter lists
        # (the corpus has constructors C1/C2 and Tn-manglings next to older ones), i.e. names whose
        # declarations agree once the suffix and the parameter list are cut.
        for d, names in shown.items():
            if len(names) > 1:
                heads = {declaration_head(con.execute("SELECT demangle(?)", (n,)).fetchone()[0]) for n in names}
                self.assertEqual(len(heads), 1, (d, names, heads))

    def test_tensile_digest_stands_for_the_tuning_parameters(self):
        con = connect()
        base = "Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1"
        for tail in ("_SN_GSU1_WG32_8_1", "_SN_GSU2_WG32_8_1", "_SN_1LDSB1_APM1_ABV0"):
            self.assertEqual(con.execute("SELECT rocpd_display_name(?)", (base + tail,)).fetchone()[0],
                             f"{base}~{fnv_digest(base + tail)}")


class DurationText(unittest.TestCase):
    def test_values(self):
        con = connect()
        values = [0, 1, 999, 999.5, 1000, 1500, 999994, 999995, 58862000, 999_999_999, 10**9, 1234567890123,
                  -5, -0.001, -61_000_000, 2**63 - 1, -(2**63), 0.25, 12.75]
        for v in values:
            self.assertEqual(con.execute("SELECT rocpd_duration_text(?)", (v,)).fetchone()[0], duration_text(v), v)
        # Spot checks written by hand, independent of the helper above.
        self.assertEqual(con.execute("SELECT rocpd_duration_text(58862000), rocpd_duration_text(64000), "
                                     "rocpd_duration_text(27495056), rocpd_duration_text(1234567890123), "
                                     "rocpd_duration_text(250)").fetchone(),
                         ("58.86 ms", "64.00 us", "27.50 ms", "1,234.568 s", "250 ns"))

    def test_errors_and_null(self):
        con = connect()
        self.assertIsNone(con.execute("SELECT rocpd_duration_text(NULL)").fetchone()[0])
        for arg, kind in (("'12'", "text"), ("x'00'", "a blob")):
            with self.assertRaises(sqlite3.OperationalError) as cm:
                con.execute(f"SELECT rocpd_duration_text({arg})").fetchone()
            self.assertEqual(str(cm.exception), f"rocpd_duration_text: ns must be a number of nanoseconds, got {kind}")
        with self.assertRaises(sqlite3.OperationalError) as cm:
            con.execute("SELECT rocpd_duration_text(1e999)").fetchone()
        self.assertEqual(str(cm.exception), "rocpd_duration_text: ns must be a finite number of nanoseconds")


if __name__ == "__main__":
    unittest.main()
