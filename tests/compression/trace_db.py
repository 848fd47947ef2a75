"""Builds an rpd-like trace database with plain SQL (used until/unless the generator is present):
interned strings, API calls, GPU ops and their links, with the value mix real traces have."""
import random
import sqlite3


def make_trace(path, ops=20000, seed=1, journal_mode="delete"):
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA journal_mode={journal_mode}")
    con.executescript("""
        CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
        CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
        CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INT, tid INT, start INT, end INT,
                               apiName_id INT, args_id INT);
        CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INT, queueId INT, sequenceId INT,
                              completionSignal TEXT, start INT, end INT, description_id INT, opType_id INT);
        CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INT, op_id INT);
        CREATE INDEX op_start ON rocpd_op(start);
    """)
    con.execute("INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '2')")
    strings = ["", "hipLaunchKernel", "hipMemcpyAsync", "KernelExecution", "CopyHostToDevice",
               "CopyDeviceToHost"]
    strings += [f"_ZN5torch6native{n}elementwise_kernelILi128ELi{n % 7}EZNS0_{n}gpu_kernel_implEv"
                for n in range(300)]
    con.executemany("INSERT INTO rocpd_string(id, string) VALUES (?, ?)",
                    [(i + 1, s) for i, s in enumerate(strings)])
    t = 1_000_000_000
    apis, opsrows, links = [], [], []
    for i in range(1, ops + 1):
        t += rng.randint(200, 5000)
        kernel = rng.random() < 0.8
        apis.append((i, 4242, 4242 + rng.randint(0, 3), t, t + rng.randint(1000, 9000), 2 if kernel else 3,
                     1 + 6 + rng.randrange(300) if kernel else 1))
        start = t + rng.randint(5000, 20000)
        opsrows.append((i, 2, rng.randint(0, 3), i, f"0x7f{rng.getrandbits(32):08x}", start,
                        start + rng.randint(2000, 200000), 7 + rng.randrange(300) if kernel else 1,
                        4 if kernel else rng.choice([5, 6])))
        links.append((i, i, i))
    con.executemany("INSERT INTO rocpd_api VALUES (?,?,?,?,?,?,?)", apis)
    con.executemany("INSERT INTO rocpd_op VALUES (?,?,?,?,?,?,?,?,?)", opsrows)
    con.executemany("INSERT INTO rocpd_api_ops VALUES (?,?,?)", links)
    con.commit()
    return con
