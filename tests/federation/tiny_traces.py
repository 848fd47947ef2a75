"""Hand-made rpd traces for the contract tests: the minimal rpd layout the extension reads, without
the writers' NOT NULL constraints, so tests can store exactly the rows (NULLs, dangling ids, odd
types) whose answers they work out by hand."""
import sqlite3

RPD_DDL = """
CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE rocpd_ustring(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
                       apiName_id INTEGER, args_id INTEGER, category_id INTEGER, domain_id INTEGER);
CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER, start INTEGER,
                      "end" INTEGER, description_id INTEGER, opType_id INTEGER);
CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER, op_id INTEGER);
"""


def make_rpd(path, ops=(), apis=(), strings=None, ustrings=None, links=(), version="3", ddl=RPD_DDL):
    """Writes an rpd file. ops: (gpu, start, end, description_id, opType_id[, id]); apis: (pid, tid,
    start, end, apiName_id, args_id, category_id, domain_id); strings/ustrings: {id: text};
    links: (api_id, op_id). Default strings: 1 '', 2 'KernelExecution', 3 'CopyHostToDevice',
    4 'hipLaunchKernel', 5 'kernel_a'."""
    strings = strings if strings is not None else {1: "", 2: "KernelExecution", 3: "CopyHostToDevice",
                                                   4: "hipLaunchKernel", 5: "kernel_a"}
    ustrings = ustrings if ustrings is not None else {1: ""}
    con = sqlite3.connect(path)
    con.executescript(ddl)
    con.execute("INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', ?)", (version,))
    con.executemany("INSERT INTO rocpd_string(id, string) VALUES (?, ?)", strings.items())
    con.executemany("INSERT INTO rocpd_ustring(id, string) VALUES (?, ?)", ustrings.items())
    for op in ops:
        if len(op) == 6:
            con.execute('INSERT INTO rocpd_op(gpuId, start, "end", description_id, opType_id, id) VALUES (?,?,?,?,?,?)', op)
        else:
            con.execute('INSERT INTO rocpd_op(gpuId, start, "end", description_id, opType_id) VALUES (?,?,?,?,?)', op)
    con.executemany('INSERT INTO rocpd_api(pid, tid, start, "end", apiName_id, args_id, category_id, domain_id) '
                    'VALUES (?,?,?,?,?,?,?,?)', apis)
    con.executemany("INSERT INTO rocpd_api_ops(api_id, op_id) VALUES (?, ?)", links)
    con.commit()
    con.close()
    return path
