"""Job-wide summaries past one machine with Dask (docs/distributed.md):

    python3 -m rocpd_ext.dask [--scheduler ADDR | --local N] --query kernel_summary|op_summary|busy|utilization|stragglers
                              [--bucket-ns NS] [--files-per-task K] PATTERN

maps the member files of PATTERN (found as rocpd_open finds them: subdirectories included, SQLite
files without a trace skipped with a note) to the workers (each opens its share with the
extension and returns partial states, rocpd_ext.recipes.partial), reduces them in this process
(rocpd_ext.recipes.reduce) and prints CSV with the columns of the matching view
(rocpd_kernel_summary, rocpd_op_summary, rocpd_busy, rocpd_utilization, rocpd_stragglers: its
workers send each member's collective list, which the driver matches). Workers need the files
at the same paths (a shared file system) and the extension (ROCPD_EXT_LIBRARY or an install).
A bad input is reported in one line on stderr (exit status 2; 1 for a failure on a worker).
"""
import argparse
import csv
import math
import sqlite3
import sys

from . import recipes


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python3 -m rocpd_ext.dask", description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDR", help="address of a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--local", metavar="N", type=int, default=None,
                       help="start a LocalCluster of N single-threaded worker processes (default: 2)")
    ap.add_argument("--query", required=True, choices=recipes.QUERIES)
    ap.add_argument("--bucket-ns", type=int, default=None, help="bucket width of --query utilization (required there)")
    ap.add_argument("--files-per-task", type=int, default=None,
                    help="member files per task (default: spread over four tasks per worker)")
    ap.add_argument("pattern", help="a trace file, a glob or a directory, as rocpd_open takes it")
    args = ap.parse_args(argv)
    if args.query == "utilization" and (args.bucket_ns is None or args.bucket_ns <= 0):
        ap.error("--query utilization needs --bucket-ns (a positive width in ns)")
    if args.local is not None and args.local <= 0:
        ap.error("--local needs a positive number of workers")
    if args.files_per_task is not None and args.files_per_task <= 0:
        ap.error("--files-per-task must be positive")
    return args


def shares(files, n_workers, files_per_task=None):
    per = files_per_task or max(1, math.ceil(len(files) / (4 * max(1, n_workers))))
    return [files[i:i + per] for i in range(0, len(files), per)]


def run(client, query, files, bucket_ns=None, files_per_task=None):
    """The view's rows computed on `client`'s workers."""
    n_workers = max(1, len(client.scheduler_info().get("workers", {})))
    parts = shares(files, n_workers, files_per_task)
    lo = hi = None
    if query == "utilization":
        # The job's grid starts at the first timestamp of all members and ends at the last.
        firsts = client.gather(client.map(recipes.spans, parts, pure=False))
        known = [(a, b) for a, b in firsts if a is not None]
        if not known:
            return []
        lo, hi = min(a for a, _ in known), max(b for _, b in known)
        if hi <= lo:
            return []
    futures = client.map(recipes.partial, [query] * len(parts), parts, [bucket_ns] * len(parts), [lo] * len(parts),
                         [hi] * len(parts), pure=False)
    return recipes.reduce(query, client.gather(futures))


def write_csv(rows, columns, out):
    w = csv.writer(out, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow("" if v is None else v for v in r)


def one_line(e):
    """An exception as one line: its message (a worker's error arrives with the remote traceback)."""
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0] if isinstance(e, sqlite3.Error) else f"{type(e).__name__}: {text.splitlines()[0]}"


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        files, skipped = recipes.members(args.pattern)
    except (sqlite3.Error, OSError, RuntimeError) as e:  # rocpd_open's refusal, or no library
        print(f"rocpd_ext.dask: {one_line(e)}", file=sys.stderr)
        return 2
    for path, why in skipped:
        print(f"rocpd_ext.dask: skipped '{path}': {why}", file=sys.stderr)
    from distributed import Client, LocalCluster  # Debian: python3-distributed

    try:
        if args.scheduler:
            client, cluster = Client(args.scheduler), None
        else:
            cluster = LocalCluster(n_workers=args.local or 2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
    except Exception as e:  # noqa: BLE001 - an unreachable scheduler, no ports: said in one line
        print(f"rocpd_ext.dask: cannot start the cluster: {one_line(e)}", file=sys.stderr)
        return 1
    try:
        rows = run(client, args.query, files, args.bucket_ns, args.files_per_task)
    except Exception as e:  # noqa: BLE001 - a member that fails on a worker: one line, not its traceback
        print(f"rocpd_ext.dask: {one_line(e)}", file=sys.stderr)
        return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    write_csv(rows, recipes.COLUMNS[args.query], sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
