"""Regenerates the committed seed corpus of the zstd frame-reader fuzz target (a few KB).
Usage: /usr/bin/python3 make_corpus.py <path to librocpd_ext without .so>
Seeds: small seekable files (with and without checksums, several frames), a plain zstd frame,
and the damaged variants the reader must reject (truncated, lying seek table, bad checksum,
reserved bits, oversized declarations)."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")


def u32(v):
    return (v & 0xFFFFFFFF).to_bytes(4, "little")


def main(ext):
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        os.remove(os.path.join(OUT, name))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "tiny.db")
        con = sqlite3.connect(db)
        con.execute("PRAGMA page_size = 1024")
        con.execute("CREATE TABLE op(id INTEGER PRIMARY KEY, start INT, end INT, name TEXT)")
        con.executemany("INSERT INTO op VALUES (?, ?, ?, ?)",
                        [(i, i * 1000, i * 1000 + 500, f"kernel_{i % 5}") for i in range(120)])
        con.commit()
        con.close()
        loader = sqlite3.connect(":memory:")
        loader.enable_load_extension(True)
        loader.load_extension(ext)
        seekable = os.path.join(tmp, "tiny.db.zst")
        loader.execute("SELECT rocpd_compress(?, ?, 19, 1)", (db, seekable)).fetchone()
        with open(seekable, "rb") as f:
            good = bytearray(f.read())
        with open(db, "rb") as f:
            raw = f.read()
        plain = subprocess.run([shutil.which("zstd") or "zstd", "-q", "-c", "-19", db], check=True,
                               stdout=subprocess.PIPE).stdout

    frames = int.from_bytes(good[-9:-5], "little")
    table = len(good) - (8 + 12 * frames + 9)

    def entry(d, i):
        return table + 8 + 12 * i

    seeds = {"seekable_checksums.zst": bytes(good), "plain_frame.zst": plain}
    # The same frames without checksums (descriptor 0, 8-byte entries).
    nock = bytearray(good[:table]) + u32(0x184D2A5E) + u32(8 * frames + 9)
    for i in range(frames):
        e = entry(good, i)
        nock += good[e : e + 8]
    nock += u32(frames) + bytes([0]) + u32(0x8F92EAB1)
    seeds["seekable_no_checksums.zst"] = bytes(nock)
    seeds["truncated_half.zst"] = bytes(good[: len(good) // 2])
    seeds["truncated_footer.zst"] = bytes(good[:-3])
    d = bytearray(good)
    d[entry(d, 0) : entry(d, 0) + 4] = u32(int.from_bytes(d[entry(d, 0) : entry(d, 0) + 4], "little") + 7)
    seeds["lying_compressed_size.zst"] = bytes(d)
    d = bytearray(good)
    d[entry(d, 1) + 4 : entry(d, 1) + 8] = u32(64 << 20)
    seeds["lying_decompressed_size.zst"] = bytes(d)
    d = bytearray(good)
    d[entry(d, 1) + 8] ^= 0x55
    seeds["bad_checksum.zst"] = bytes(d)
    d = bytearray(good)
    d[-5] |= 0x7C
    seeds["reserved_bits.zst"] = bytes(d)
    d = bytearray(good)
    d[-9:-5] = u32(0xFFFFFFFF)
    seeds["too_many_frames.zst"] = bytes(d)
    d = bytearray(good)
    d[20] ^= 0xFF
    seeds["corrupt_frame.zst"] = bytes(d)
    seeds["declares_1tb.zst"] = u32(0xFD2FB528) + bytes([0xE0]) + (1 << 40).to_bytes(8, "little")
    seeds["not_zstd.bin"] = raw[:512]
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds, {sum(len(v) for v in seeds.values())} bytes in {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
