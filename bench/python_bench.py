#!/usr/bin/python3
"""The Python SDK's data path against the C++ SDK's, in one run on one dataset
(bench/README.md, "Python SDK"):

  scan:   ds.scan().to_pandas() of 1,000,000 rows x 8 columns, against build/bench/python_bench
          scanning the same dataset with Client::Scan and keeping every batch;
  append: ds.append(DataFrame) of the same 1,000,000 rows into a new dataset, against the C++
          Client::Append of the same rows (one RecordBatch) into a new dataset;
  scan of the 5 columns with a numpy dtype (int64, int32, float64, bool, timestamp) both ways,
          which shows the cost of the conversion apart from making Python objects.

    cmake --build build -j 2 --target tarn_python_package python_bench
    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--rows N] [--runs N]
    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py --appends-only --runs 8

Figures are medians of --runs runs (default 5), one JSON line at the end.
"""

import argparse
import datetime
import decimal
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

import tarn

SCHEMA = ("c_int64 INT64, c_int32 INT32, c_double FLOAT64, c_bool BOOLEAN, c_varchar VARCHAR, "
          "c_timestamp TIMESTAMP[us], c_date DATE, c_decimal DECIMAL(10,2)")


def table(rows: int) -> pd.DataFrame:
    """The rows as a pandas user holds them: numpy int64/int32/float64/bool, str objects,
    datetime64[ns], and date and Decimal objects (pandas has no dtype of its own for those)."""
    i = np.arange(rows, dtype=np.int64)
    epoch = datetime.date(2000, 1, 1)
    days = [epoch + datetime.timedelta(days=d) for d in range(10000)]
    return pd.DataFrame({
        "c_int64": (i * 2654435761) % 1000000007,
        "c_int32": ((i * 7919) % 2000000000 - 1000000000).astype(np.int32),
        "c_double": np.sqrt(i) * 1.5,
        "c_bool": i % 3 == 0,
        "c_varchar": np.array([f"customer_{(k * 7) % 1000003}" + "x" * (k % 5)
                               for k in range(rows)], dtype=object),
        "c_timestamp": (1704067200000000 + i * 1000003).astype("datetime64[us]")
        .astype("datetime64[ns]"),
        "c_date": np.array([days[k % 10000] for k in range(rows)], dtype=object),
        "c_decimal": np.array([decimal.Decimal((k * 982451653) % 10**10 - 5 * 10**9)
                               .scaleb(-2) for k in range(rows)], dtype=object),
    })


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def appends_only(df: pd.DataFrame, runs: int) -> None:
    wall, user, system = [], [], []
    with tempfile.TemporaryDirectory(prefix="tarn-python-bench-") as cat:
        c = tarn.connect(cat)
        c.create_workspace("w")
        c.create_collection("w.c")
        for r in range(runs):
            c.create_dataset(f"w.c.a{r}", SCHEMA)
            target = c.load_dataset(f"w.c.a{r}")
            os.sync()
            before = resource.getrusage(resource.RUSAGE_SELF)
            wall.append(timed(lambda: target.append(df, author="bench")))
            after = resource.getrusage(resource.RUSAGE_SELF)
            user.append(after.ru_utime - before.ru_utime)
            system.append(after.ru_stime - before.ru_stime)
    result = {"rows": len(df), "runs": runs, "wall_s": statistics.mean(wall),
              "user_s": statistics.mean(user), "system_s": statistics.mean(system)}
    print(json.dumps(result))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--appends-only", action="store_true",
                    help="only the Python appends, --runs of them in one process: the means "
                         "of each one's wall time and CPU time (user, system), for comparing "
                         "two builds of the conversion")
    args = ap.parse_args()

    df = table(args.rows)
    if args.appends_only:
        appends_only(df, args.runs)
        return
    with tempfile.TemporaryDirectory(prefix="tarn-python-bench-") as cat:
        c = tarn.connect(cat)
        c.create_workspace("w")
        c.create_collection("w.c")
        c.create_dataset("w.c.src", SCHEMA)
        c.load_dataset("w.c.src").append(df, author="bench")
        ds = c.load_dataset("w.c.src")

        native = json.loads(subprocess.run(
            [os.path.join(args.build, "bench", "python_bench"), "--catalog", cat, "--source",
             "w.c.src", "--runs", str(args.runs)], check=True, capture_output=True,
            text=True).stdout)
        assert native["rows"] == args.rows, native

        numeric = ["c_int64", "c_int32", "c_double", "c_bool", "c_timestamp"]
        native5 = json.loads(subprocess.run(
            [os.path.join(args.build, "bench", "python_bench"), "--catalog", cat, "--source",
             "w.c.src", "--runs", str(args.runs), "--columns", ",".join(numeric),
             "--no-append"], check=True, capture_output=True, text=True).stdout)
        scan5_s = [timed(lambda: ds.scan(columns=numeric).to_pandas()) for _ in range(args.runs)]

        scan_s = []
        for _ in range(args.runs):
            out = {}
            scan_s.append(timed(lambda: out.setdefault("df", ds.scan().to_pandas())))
            assert len(out["df"]) == args.rows
        append_s = []
        for r in range(args.runs):
            c.create_dataset(f"w.c.py_append_{r}", SCHEMA)
            target = c.load_dataset(f"w.c.py_append_{r}")
            os.sync()  # as the C++ side: no run pays for the dirty pages of the runs before it
            append_s.append(timed(lambda: target.append(df, author="bench")))

    result = {
        "rows": args.rows, "columns": 8, "runs": args.runs,
        "python_scan_s": statistics.median(scan_s), "cpp_scan_s":
            statistics.median(native["scan_s"]),
        "python_append_s": statistics.median(append_s),
        "cpp_append_s": statistics.median(native["append_s"]),
        "python_scan5_s": statistics.median(scan5_s),
        "cpp_scan5_s": statistics.median(native5["scan_s"]),
    }
    result["scan5_ratio"] = result["python_scan5_s"] / result["cpp_scan5_s"]
    result["scan_ratio"] = result["python_scan_s"] / result["cpp_scan_s"]
    result["append_ratio"] = result["python_append_s"] / result["cpp_append_s"]
    print(f"load average: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"{'':8} {'python':>9} {'C++':>9} {'ratio':>7}", file=sys.stderr)
    for what in ("scan", "append", "scan5"):
        print(f"{what:8} {result[f'python_{what}_s']:8.3f}s {result[f'cpp_{what}_s']:8.3f}s "
              f"{result[f'{what}_ratio']:7.2f}", file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
