"""Regenerates the committed seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

Usage: /usr/bin/python3 tests/fuzz/make_corpus.py <librocpd_ext without .so> <rocpd_gen>

Seeds (files without extensions: nothing named .rpd/.db/.sqlite is committed):
  demangle, kernel_short_name  names of tests/names/corpus.tsv (up to 600 bytes), their demangled
                               forms (short names), and the hostile cases: the closure type
                               _ZUlvE_, NULs, invalid UTF-8, deep nesting, bombs, suffixes
  sql_functions                argument programs in the encoding of fuzz_sql_functions.cpp
  member_open                  tiny rpd v2 / rpd v3 / rocpd files from rocpd_gen (vacuumed to
                               512-byte pages), trace files with hostile rows, broken files
  zstd_frames                  tests/compression/fuzz/corpus plus seekable and plain .zst
                               members holding a tiny trace
  state_blobs                  states of docs/states.md made by the extension (exact, sketch,
                               integer, real, empty, interval unions), and value lists
  kineto_import                tiny Kineto JSON traces from rocpd_gen (plain and gzip), the
                               shapes of tests/formats/test_kineto_hostile.py, JSON Array Format
  sql_rewrite                  the queries of tests/pushdown/rewrite_test.py (pushed and not)
Findings saved by libFuzzer (crash-*, leak-*, timeout-*) that are kept as regression seeds live
next to these under names starting with "finding_"; this script leaves them alone."""
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
SOURCE = os.path.dirname(os.path.dirname(HERE))


def reset(target):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if not name.startswith("finding_"):
            os.remove(os.path.join(d, name))
    return d


def write(d, name, data):
    assert "." not in name, name
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def names_corpus():
    rows = []
    with open(os.path.join(SOURCE, "tests/names/corpus.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            mangled, demangled, _ = line.rstrip("\n").split("\t")
            rows.append((mangled, demangled))
    return rows


HOSTILE_NAMES = {
    "closure_type": "_ZUlvE_",
    "closure_type_1": "_ZUlvE0_",
    "closure_in_class": "_ZN1AUlvE_E",
    "lambda_call": "_ZZ1fvENKUlvE_clEv",
    "empty": "",
    "z_only": "_Z",
    "truncated": "_Z3fo",
    "nul_inside": "_Z3f\0ov",
    "invalid_utf8": b"_Z3f\xff\xfev",
    "lone_continuation": b"\x80\x80(\xff)",
    "deep_pointers": "_Z1f" + "P" * 3000 + "i",
    "deep_functions": "_Z1f" + "PF" * 1000 + "v" + "E" * 1000,
    "deep_templates": "_Z1f" + "I1A" * 800 + "i" + "E" * 800 + "vv",
    "deep_negations": "_Z1fIX" + "ng" * 1000 + "Li1EEEvv",
    "bomb_backrefs": "_Z1fIPFvvE" + "".join("PFv%s%sE" % (("T_",) * 2 if k == 1 else ("T%d_" % (k - 2),) * 2)
                                             for k in range(1, 30)) + "Evv",
    "bomb_pack": "_Z1fIJ" + "i" * 300 + "EEvDpPFv300" + "x" * 300 + "T_E",
    "kd_suffix": "_Z3fooILi1EEvv.kd",
    "clone_kd": "void foo<1>() [clone .kd]",
    "llvm_kd": "void foo<1>() (.kd)",
    "cold": "_Z3foov.cold",
    "block": "___Z1fv_block_invoke",
    "block4": "____Z1fv_block_invoke_2",
    "tensile": "Cijk_Ailk_Bljk_SB_MT128x64x16_MI32x32x2x1_SN_1LDSB0",
    "operator_call": "linalg::Matrix::operator()(int, int) const",
    "operator_less": "bool linalg::Matrix::operator< <int>(int) const",
    "unbalanced": "foo<int(int)",
    "lambda_gnu": "hip_impl::launch_host_side(int)::{lambda(int)#1}::operator()(int) const",
    "lambda_llvm": "hip_impl::launch_host_side(int)::'lambda0'(int)::operator()(int) const",
    "lambda_hash_end": "{lambda#",
    "anon": "(anonymous namespace)::copy_kernel(void const*, void*, unsigned long)",
    "abi_tag": "std::string rocm_runtime::kernel_label[abi:cxx11]<int>(int)",
    "arrows": "f(a->b, c > d, e < f)",
    "operator_new": "void* A::operator new[](unsigned long)",
}


def make_names(target, rows):
    d = reset(target)
    for i, (mangled, demangled) in enumerate(rows):
        if len(mangled) <= 600 and i % 3 == 0:
            write(d, "corpus_%03d" % i, mangled)
            if target == "kernel_short_name" and i % 6 == 0:
                write(d, "corpus_%03d_demangled" % i, demangled)
    for name, text in HOSTILE_NAMES.items():
        write(d, name, text)


# --- sql_functions: the argument encoding of fuzz_sql_functions.cpp ---------------------------
FUNCTIONS = ["demangle", "kernel_short_name", "time_bucket2", "time_bucket3", "median", "percentile", "stddev",
             "histogram2", "histogram3", "histogram_log2", "interval_union2", "interval_union4"]
INTS = [-2**63, 2**63 - 1, 0, -1, 1, 100, 101, 2**53 + 1, -(2**62), 1_700_000_000_000_000_000]
REALS = ["inf", "-inf", 1e-300, 5e-324, -0.0, 0.5, 50.0, 99.99999999999999, 100.0, 1e308, -1e308,
         9223372036854775808.0, 1.7e18, 2.5]
NUMERIC_TEXT = ["12", " 14 ", "1e999", "-1e999", "0x10", "1.5", "nan", "", "9223372036854775808",
                "-9223372036854775809", "50", "1e-300"]


def null():
    return bytes([0])


def small(v):
    return bytes([1, v & 0xFF])


def i64(v):
    return bytes([2]) + struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)


def edge_int(v):
    return bytes([3, INTS.index(v)])


def f64(v):
    return bytes([4]) + struct.pack(">d", v)


def edge_real(v):
    return bytes([5, REALS.index(v)])


def text(s):
    b = s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s
    return bytes([6, len(b)]) + b


def blob(b):
    return bytes([7, len(b)]) + b


def numeric_text(s):
    return bytes([8, NUMERIC_TEXT.index(s)])


def long_name(prefix, pattern, repeat, suffix):
    return (bytes([9, len(prefix)]) + prefix.encode() + bytes([len(pattern)]) + pattern.encode() +
            struct.pack(">H", repeat) + bytes([len(suffix)]) + suffix.encode())


def program(function, rows):
    out = bytes([FUNCTIONS.index(function)])
    for row in rows:
        out += b"".join(row)
    return out


def make_sql_functions():
    d = reset("sql_functions")
    seeds = {
        "demangle_closure": program("demangle", [[text("_ZUlvE_")], [text("_Z3foov.kd")], [null()]]),
        "demangle_deep": program("demangle", [[long_name("_Z1f", "P", 5000, "i")], [long_name("_Z1f", "PF", 3000, "v")]]),
        "demangle_types": program("demangle", [[small(5)], [edge_real(2.5)], [blob(b"_Z")], [text(b"_Z\xff")]]),
        "short_names": program("kernel_short_name", [[text("_ZUlvE_")], [text("void f<int>(int) [clone .kd]")],
                                                     [long_name("void f<", "i", 60000, ">(int)")]]),
        "time_bucket": program("time_bucket2", [[i64(1_700_000_000_123_456_789), small(100)],
                                                [edge_int(-2**63), edge_int(2**63 - 1)], [small(5), edge_real("inf")],
                                                [small(5), small(-5)], [numeric_text("12"), small(5)]]),
        "time_bucket_origin": program("time_bucket3", [[edge_int(2**63 - 1), small(1), edge_int(-2**63)],
                                                       [small(-7), small(3), small(2)], [small(1), small(1), text("o")]]),
        "median_ints": program("median", [[edge_int(2**63 - 1)], [i64(2**63 - 3)], [small(7)], [null()]]),
        "median_reals": program("median", [[edge_real(-1e308)], [edge_real(1e308)], [edge_real("inf")]]),
        "median_mixed": program("median", [[small(1)], [edge_real(2.5)], [numeric_text("12")], [numeric_text("1e999")]]),
        "percentile_tiny_p": program("percentile", [[edge_int(0), edge_real(1e-300)], [i64(2**62), edge_real(1e-300)]]),
        "percentile_gap": program("percentile", [[edge_int(-2**63), edge_real(99.99999999999999)],
                                                 [edge_int(2**63 - 1), edge_real(99.99999999999999)],
                                                 [i64(12345), edge_real(99.99999999999999)]]),
        "percentile_bad_p": program("percentile", [[small(1), edge_real("inf")], [small(2), text("high")],
                                                   [small(3), blob(b"\x00")], [small(4), small(50)]]),
        "percentile_p_changes": program("percentile", [[small(1), small(50)], [small(2), small(90)]]),
        "percentile_subnormal_p": program("percentile", [[edge_int(0), edge_real(5e-324)], [small(1), edge_real(5e-324)]]),
        "stddev": program("stddev", [[edge_real(-1e308)], [edge_real(1e308)], [edge_int(2**63 - 1)], [small(3)]]),
        "stddev_inf": program("stddev", [[small(1)], [edge_real("inf")], [small(2)]]),
        "histogram_widths": program("histogram2", [[small(1), edge_real(1e-300)], [small(2), edge_real("inf")],
                                                   [small(3), small(-5)], [small(4), edge_int(2**63 - 1)]]),
        "histogram_huge_width": program("histogram3", [[edge_int(-2**63), edge_int(2**63 - 1), edge_int(-2**63)],
                                                       [edge_int(2**63 - 1), edge_int(2**63 - 1), edge_int(-2**63)]]),
        "histogram_reals": program("histogram3", [[edge_real(1e308), edge_real(1e308), edge_real(-1e308)],
                                                  [edge_real(0.5), edge_real(1e308), edge_real(-1e308)]]),
        "histogram_many_buckets": program("histogram2", [[small(0), small(1)], [i64(10_000_000), small(1)]]),
        "histogram_log2": program("histogram_log2", [[edge_real(1e308)], [small(0)], [edge_real(0.5)],
                                                     [edge_int(2**63 - 1)], [small(-1)], [edge_real("inf")]]),
        "interval_union": program("interval_union2", [[small(0), small(10)], [small(5), small(20)],
                                                      [edge_int(-2**63), edge_int(2**63 - 1)], [small(3), null()]]),
        "interval_union_clip": program("interval_union4", [[small(0), small(100), small(10), small(50)],
                                                           [small(40), small(90), null(), small(60)],
                                                           [small(1), small(2), edge_real(2.5), small(3)]]),
    }
    for name, data in seeds.items():
        write(d, name, data)


# --- member_open / zstd_frames -----------------------------------------------------------------
def vacuumed(path):
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = DELETE")
    con.execute("PRAGMA page_size = 512")
    con.execute("VACUUM")
    con.close()
    with open(path, "rb") as f:
        return f.read()


def schema(name):
    with open(os.path.join(SOURCE, "schema", name), encoding="utf-8") as f:
        return f.read()


def hostile_rpd(tmp, name, rows_sql):
    path = os.path.join(tmp, name)
    con = sqlite3.connect(path)
    con.executescript(schema("rpd_v3.sql"))
    con.executescript(rows_sql)
    con.commit()
    con.close()
    return vacuumed(path)


def make_member_open(gen, tmp):
    d = reset("member_open")
    members = {}
    for fmt in ("rpd2", "rpd3", "rocpd"):
        out = os.path.join(tmp, fmt)
        subprocess.run([gen, "--out", out, "--procs", "1", "--format", fmt, "--ops", "6", "--seed", "3",
                        "--gpus", "2", "--apis-extra", "2", "--markers", "1"], check=True, stdout=subprocess.DEVNULL)
        f = [n for n in os.listdir(out) if n.startswith("rank0")][0]
        members[fmt] = vacuumed(os.path.join(out, f))
        write(d, "gen_" + fmt, members[fmt])
    # Hostile rows in a valid rpd v3 schema: names, types and times a tracer never writes.
    strings = ("INSERT INTO rocpd_string(id, string) VALUES (1, 'KernelExecution'), (2, '_ZUlvE_'), "
               "(3, 'CopyHostToDevice'), (4, ''), (5, '_Z1f' || printf('%.*c', 2000, 'P') || 'i');")
    write(d, "hostile_values", hostile_rpd(tmp, "hv.rpd", strings + """
        INSERT INTO rocpd_op(gpuId, queueId, sequenceId, start, "end", description_id, opType_id) VALUES
          (0, 0, 0, -9223372036854775808, 9223372036854775807, 2, 1),
          (1, 0, 1, 10, 5, 5, 1),
          (2, 1, 2, 'soon', 'later', 1, 1),
          (3, 0, 3, 1.5e300, -1e300, 99, 1),
          (-1, 0, 4, 0, 0, 4, 3),
          (9223372036854775807, 0, 5, x'00ff', 7, 2, 1);
    """))
    write(d, "hostile_view", hostile_rpd(tmp, "hview.rpd", strings + """
        INSERT INTO rocpd_op(gpuId, queueId, sequenceId, start, "end", description_id, opType_id) VALUES
          (0, 0, 0, 100, 200, 2, 1);
        CREATE VIEW hostile AS SELECT demangle('_ZUlvE_'), median(1), rocpd_open('/');
        CREATE TRIGGER t AFTER INSERT ON rocpd_op BEGIN SELECT rocpd_close(); END;
    """))
    # Broken files: empty, a header only, a truncated member, garbage, a flipped byte.
    write(d, "empty", b"")
    rpd = members["rpd3"]
    write(d, "header_only", rpd[:100])
    write(d, "truncated", rpd[: len(rpd) // 2])
    write(d, "not_sqlite", bytes(range(256)) * 4)
    flipped = bytearray(rpd)
    flipped[len(flipped) // 3] ^= 0xFF
    write(d, "flipped_byte", bytes(flipped))
    return members


def make_zstd_frames(ext, members, tmp):
    d = reset("zstd_frames")
    src = os.path.join(SOURCE, "tests/compression/fuzz/corpus")
    for name in sorted(os.listdir(src)):
        shutil.copyfile(os.path.join(src, name), os.path.join(d, "compression_" + name.replace(".", "_")))
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    for fmt in ("rpd3", "rocpd"):
        plain = os.path.join(tmp, "z_" + fmt)
        with open(plain, "wb") as f:
            f.write(members[fmt])
        seekable = plain + ".zst"
        con.execute("SELECT rocpd_compress(?, ?, 19, 4)", (plain, seekable)).fetchone()
        with open(seekable, "rb") as f:
            write(d, "seekable_" + fmt, f.read())
        zstd = subprocess.run([shutil.which("zstd") or "zstd", "-q", "-c", "-19", plain], check=True,
                              stdout=subprocess.PIPE).stdout
        write(d, "plain_" + fmt, zstd)
    con.close()


def make_state_blobs(ext):
    """Mode byte 0 + a state made by SQL; mode byte 1 + values (fuzz_state_blobs.cpp)."""
    d = reset("state_blobs")
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(ext)
    con.execute("CREATE TABLE v(g, x)")
    rows = [("int_small", i) for i in (5, -3, 7, 7, 1 << 62)]
    rows += [("real", x) for x in (0.5, -2.25, 1e300, -0.0, 3.0)]
    rows += [("int_sketch", (i * 7919) % 100_003 - 50_000) for i in range(5000)]
    rows += [("real_sketch", 1.5 ** (i % 200) * (-1) ** i) for i in range(4500)]
    con.executemany("INSERT INTO v VALUES (?, ?)", rows)
    for g, state in con.execute("SELECT g, rocpd_stats_state(x) FROM v GROUP BY g"):
        write(d, "stats_" + g, b"\x00" + state)
    (empty,) = con.execute("SELECT rocpd_stats_state(x) FROM v WHERE 0").fetchone()
    if empty is not None:
        write(d, "stats_empty", b"\x00" + empty)
    (iv,) = con.execute("SELECT interval_union_state(x, x + 100) FROM v WHERE g = 'int_sketch'").fetchone()
    write(d, "intervals", b"\x00" + iv)
    (iv1,) = con.execute("SELECT interval_union_state(1, 5)").fetchone()
    write(d, "intervals_one", b"\x00" + iv1)
    write(d, "values_ints", b"\x01" + b"".join(b"\x01" + struct.pack(">q", v) for v in (3, -9, 1 << 40, 0)))
    write(d, "values_reals", b"\x01" + b"".join(b"\x00" + struct.pack(">d", v) for v in (1.5, -0.0, 1e-300)))
    write(d, "values_repeated_then_edits", b"\x01" + b"\xfe\x01\x00" * 80 + b"\x00\x10\xff" * 4)


# --- kineto_import ------------------------------------------------------------------------------
def make_kineto_import(gen, tmp):
    import gzip
    import json
    d = reset("kineto_import")
    out = os.path.join(tmp, "kineto")
    subprocess.run([gen, "--out", out, "--procs", "4", "--format", "kineto", "--ops", "12", "--seed", "5",
                    "--apis-extra", "2", "--markers", "3"], check=True, stdout=subprocess.DEVNULL)
    for i in range(4):  # base, absolute, base after the events, absolute
        with open(os.path.join(out, f"rank{i}.json"), "rb") as f:
            data = f.read()
        write(d, f"generated_rank{i}", data)
        if i == 0:
            write(d, "generated_rank0_gzip", gzip.compress(data))
    call = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 42, "tid": 43, "ts": 9, "dur": 1,
            "args": {"correlation": 1, "External id": 3}}
    kernel = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10.5, "dur": 2,
              "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [2, 1, 1], "block": [64, 1, 1],
                       "registers per thread": 32, "shared memory": 0}}
    op = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 42, "tid": 43, "ts": 8, "dur": 3,
          "args": {"External id": 3, "Input Dims": [[2, 3], [3, 4]]}}
    rng = {"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 0, "ts": 20, "dur": 5,
           "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 10}}
    flows = [{"ph": "s", "id": 1, "pid": 42, "tid": 43, "ts": 9, "cat": "ac2g", "name": "ac2g"},
             {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 10.5, "cat": "ac2g", "name": "ac2g", "bp": "e"}]
    sample = {"ph": "C", "cat": "hardware_counters", "name": "sm__throughput", "pid": "GPU 0 Counters", "tid": 0,
              "ts": 11, "args": {"": 42}}
    copy = {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 0, "tid": 7, "ts": 30,
            "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 2, "bytes": 4096}}
    events = [op, call, kernel, rng, sample, copy] + flows
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
           "deviceProperties": [{"id": 0, "name": "GPU"}], "baseTimeNanoseconds": 1735632360000000000,
           "traceEvents": events}
    write(d, "handmade", json.dumps(doc).encode())
    write(d, "handmade_array_format", json.dumps(events).encode())
    no_corr = [dict(call, args={}), dict(kernel, args={"device": 0, "stream": 7})] + flows
    write(d, "flows_only", json.dumps({"traceEvents": no_corr}).encode())
    write(d, "ranges_only", json.dumps({"traceEvents": [call, rng, dict(rng, ts=30)]}).encode())
    write(d, "duplicate_key", b'{"traceEvents":[{"ph":"X","ts":1,"ts":2}]}')
    write(d, "nested", b'{"traceEvents":[{"ph":"X","args":{"a":' + b"[" * 150 + b"]" * 150 + b"}}]}")
    write(d, "nan", b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":NaN,"dur":1}]}')
    write(d, "past_int64", b'{"baseTimeNanoseconds":9223372036854775807,"traceEvents":[{"ph":"X","cat":"cpu_op",'
                           b'"pid":1,"tid":1,"ts":1,"dur":1}]}')
    write(d, "truncated", json.dumps(doc).encode()[:200])
    write(d, "wrong_types", b'{"traceEvents":[{"ph":"X","cat":"kernel","ts":"1","args":{"grid":[1,2]}}]}')


def make_sql_rewrite():
    d = reset("sql_rewrite")
    sys.path.insert(0, os.path.join(SOURCE, "tests", "pushdown"))
    sys.path.insert(0, os.path.join(SOURCE, "tests", "federation"))
    import rewrite_test
    queries = rewrite_test.PUSHED + [q for q, _ in rewrite_test.NOT_PUSHED]
    for i, q in enumerate(queries):
        write(d, f"query_{i:02d}", q.encode())


def main(ext, gen):
    rows = names_corpus()
    make_names("demangle", rows)
    make_names("kernel_short_name", rows)
    make_sql_functions()
    with tempfile.TemporaryDirectory() as tmp:
        members = make_member_open(gen, tmp)
        make_zstd_frames(ext, members, tmp)
        make_kineto_import(gen, tmp)
    make_state_blobs(ext)
    make_sql_rewrite()
    for target in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        print(f"{target}: {len(files)} files, {size} bytes")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
