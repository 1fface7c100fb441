import datetime
import decimal
import os
import signal
import subprocess
import threading
import time
import uuid

import numpy as np
import pandas as pd
import pytest

import tarn


def test_scan_to_pandas_keeps_types_and_nulls(tmp_path):
    cat = str(tmp_path / "cat")
    c = tarn.connect(cat)
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, n INT32, x FLOAT64, ok BOOLEAN, s VARCHAR, "
                     "at TIMESTAMP[us], tz TIMESTAMPTZ[us], amount DECIMAL(10,2), day DATE, "
                     "u UUID")
    csv = tmp_path / "a.csv"
    csv.write_text(
        "id,n,x,ok,s,at,tz,amount,day,u\n"
        "1,7,1.5,true,a,2024-01-02 03:04:05.000006,2024-01-02 03:04:05Z,12.34,2024-02-29,"
        "f24f9b64-81fa-49d1-b74e-8c09a6e31c56\n"
        "2,,,,,,,,,\n")
    subprocess.run([os.environ["TARN_BINARY"], "append", "w.c.d", str(csv), "--catalog", cat],
                   check=True, capture_output=True)
    df = c.load_dataset("w.c.d").scan().to_pandas().sort_values("id").reset_index(drop=True)
    assert list(df.columns) == ["id", "n", "x", "ok", "s", "at", "tz", "amount", "day", "u"]
    assert df["id"].dtype == np.int64
    assert str(df["n"].dtype) == "Int32"
    assert str(df["x"].dtype) == "Float64"
    assert str(df["ok"].dtype) == "boolean"
    assert df["at"].dtype == "datetime64[ns]"
    assert str(df["tz"].dtype) == "datetime64[ns, UTC]"
    row = df.iloc[0]
    assert row["n"] == 7 and row["x"] == 1.5 and bool(row["ok"]) is True and row["s"] == "a"
    assert row["at"] == pd.Timestamp("2024-01-02 03:04:05.000006")
    assert row["tz"] == pd.Timestamp("2024-01-02 03:04:05", tz="UTC")
    assert row["amount"] == decimal.Decimal("12.34")
    assert row["day"] == datetime.date(2024, 2, 29)
    assert row["u"] == uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56")
    empty = df.iloc[1]
    assert empty["n"] is pd.NA and empty["x"] is pd.NA and empty["ok"] is pd.NA
    assert empty["s"] is None and pd.isna(empty["at"]) and pd.isna(empty["tz"])
    assert empty["amount"] is None and empty["day"] is None and empty["u"] is None
    # Projection and predicates reach the scan.
    only = c.load_dataset("w.c.d").scan(columns=["s", "id"], where="id = 1").to_pandas()
    assert list(only.columns) == ["s", "id"] and only["s"].tolist() == ["a"]


def test_append_a_dataframe_and_read_it_back(tmp_path, capfd, monkeypatch):
    monkeypatch.delenv("TARN_AUTHOR", raising=False)
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, n INT32, x FLOAT64, ok BOOLEAN, s VARCHAR, "
                     "at TIMESTAMP[us], tz TIMESTAMPTZ[us], amount DECIMAL(10,2), day DATE, "
                     "u UUID")
    df = pd.DataFrame({
        "id": np.array([1, 2, 3], dtype=np.int64),
        "n": pd.array([7, None, -1], dtype="Int32"),
        "x": [1.5, np.nan, -0.25],
        "ok": pd.array([True, None, False], dtype="boolean"),
        "s": ["a", None, "ü"],
        "at": pd.to_datetime(["2024-01-02 03:04:05.000006", None, "1999-12-31"]),
        "tz": pd.to_datetime(["2024-01-02 03:04:05", None, "2000-01-01"]).tz_localize("UTC"),
        "amount": [decimal.Decimal("12.34"), None, decimal.Decimal("-0.5")],
        "day": [datetime.date(2024, 2, 29), None, datetime.date(1970, 1, 1)],
        "u": [uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56"), None, None],
    })
    snap = c.load_dataset("w.c.d").append(df, author="test", message="from pandas")
    assert snap["added_records"] == 3
    back = c.load_dataset("w.c.d").scan().to_pandas().sort_values("id").reset_index(drop=True)
    assert back["n"].tolist()[0] == 7 and back["n"][1] is pd.NA and back["n"][2] == -1
    assert back["x"][0] == 1.5 and back["x"][2] == -0.25
    assert pd.isna(back["x"][1])  # a NaN in a float64 column stays a value: read back NaN
    assert back["ok"].tolist() == [True, pd.NA, False]
    assert back["s"].tolist() == ["a", None, "ü"]
    assert back["at"][0] == pd.Timestamp("2024-01-02 03:04:05.000006") and pd.isna(back["at"][1])
    assert back["tz"][2] == pd.Timestamp("2000-01-01", tz="UTC")
    assert back["amount"].tolist() == [decimal.Decimal("12.34"), None, decimal.Decimal("-0.50")]
    assert back["day"].tolist() == [datetime.date(2024, 2, 29), None, datetime.date(1970, 1, 1)]
    assert back["u"][0] == uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56")
    # A commit from the SDK carries a receipt (no receipt_missing alert) and a default author.
    gone = c.load_dataset("w.c.d").delete("id = 2")
    assert gone["deleted_records"] == 1 and gone["author"].startswith("local:")
    assert c.load_dataset("w.c.d").scan().to_pandas()["id"].sort_values().tolist() == [1, 3]
    assert "receipt_missing" not in capfd.readouterr().err


def test_append_errors_name_the_column(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, day DATE")
    try:
        c.load_dataset("w.c.d").append(pd.DataFrame({"id": [1], "nope": [2]}), author="t")
        raise AssertionError("an unknown column was accepted")
    except ValueError as e:
        assert "'nope'" in str(e)
    try:
        c.load_dataset("w.c.d").append(pd.DataFrame({"id": [1], "day": ["not a date"]}), author="t")
        raise AssertionError("a bad date was accepted")
    except tarn.TarnError as e:
        assert e.column == "day" and e.row == 0


def threads():
    return len(os.listdir("/proc/self/task"))


def threads_settled(expected, within=2.0):
    """The thread count once it is `expected`, or after `within` seconds. A joined thread is
    still listed for a moment: pthread_join (and Python's Thread.join, earlier still) returns
    before the kernel has released the thread's task, so a count right after a join can be
    one too many. A thread that was not joined stays listed, and the count stays wrong."""
    deadline = time.monotonic() + within
    while threads() != expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return threads()


def many_files(tmp_path, files=12, rows=2000):
    """A dataset of `files` appends (a file each) of `rows` rows: ids 0.. in order."""
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, s VARCHAR, x FLOAT64")
    for f in range(files):
        ids = np.arange(f * rows, (f + 1) * rows, dtype=np.int64)
        c.load_dataset("w.c.d").append(pd.DataFrame({
            "id": ids, "s": [f"r{i}" for i in ids], "x": ids * 0.5}), author="t")
    return c


def test_batches_stream_a_dataframe_per_batch(tmp_path):
    c = many_files(tmp_path)
    scan = c.load_dataset("w.c.d").scan(columns=["id", "s"], where="id >= 1000")
    parts = list(scan.batches())
    assert len(parts) >= 12  # at least a batch per file
    assert all(list(p.columns) == ["id", "s"] and p["id"].dtype == np.int64 for p in parts)
    whole = pd.concat(parts).sort_values("id").reset_index(drop=True)
    assert whole["id"].tolist() == list(range(1000, 24000))
    assert whole["s"].tolist() == [f"r{i}" for i in range(1000, 24000)]
    # iter(scan) is the same stream, and to_pandas the same rows as one frame.
    assert sum(len(p) for p in c.load_dataset("w.c.d").scan()) == 24000
    pd.testing.assert_frame_equal(
        c.load_dataset("w.c.d").scan().to_pandas().sort_values("id").reset_index(drop=True),
        pd.concat(list(c.load_dataset("w.c.d").scan())).sort_values("id")
        .reset_index(drop=True))


def test_leaving_the_batches_early_stops_the_scan(tmp_path):
    c = many_files(tmp_path, files=20)
    ds = c.load_dataset("w.c.d")
    ds.scan().to_pandas()  # any thread pool the scan starts is up before counting
    before = threads()
    for batch in ds.scan().batches():
        # The producer is ahead of us (its queue holds a few batches), then waits for room.
        assert len(batch) > 0
        break
    assert threads_settled(before) == before  # the generator closed: the producer was cancelled and joined
    it = iter(ds.scan())
    next(it)
    assert threads() == before + 1
    del it  # dropped unfinished: collected, closed, joined
    assert threads_settled(before) == before
    # An error (an unknown column) arrives at the first batch, and ends the stream.
    try:
        next(iter(ds.scan(columns=["nope"])))
        raise AssertionError("an unknown column was scanned")
    except tarn.TarnError as e:
        assert e.code == "column_not_found"
    assert threads_settled(before) == before


def test_ctrl_c_during_an_append_commits_nothing(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, s VARCHAR")
    ds = c.load_dataset("w.c.d")
    ds.append(pd.DataFrame({"id": [0], "s": ["first"]}), author="t")
    n = 10_000_000  # long enough that the interrupt lands in the stream, not in its commit
    big = pd.DataFrame({"id": np.arange(n, dtype=np.int64),
                        "s": np.array(["some text"] * n, dtype=object)})
    ds.APPEND_CHUNK_ROWS = 10_000  # many batches: the interrupt lands between two of them
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        ds.append(big, author="t")
        raise AssertionError("the append finished before the interrupt")
    except KeyboardInterrupt:
        pass
    finally:
        timer.cancel()
    assert [s.snapshot_id for s in c.load_dataset("w.c.d").snapshots()] == [1]
    assert c.load_dataset("w.c.d").scan().to_pandas()["s"].tolist() == ["first"]
    # The dataset takes a later append.
    snap = ds.append(big.head(5), author="t")
    assert snap["added_records"] == 5
    assert len(c.load_dataset("w.c.d").scan().to_pandas()) == 6


def test_ctrl_c_while_reading_batches_stops_the_scan(tmp_path):
    c = many_files(tmp_path, files=30, rows=20000)
    ds = c.load_dataset("w.c.d")
    ds.scan().to_pandas()
    before = threads()
    got = 0
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            for batch in ds.scan().batches():
                got += len(batch)
                time.sleep(0.05)  # a slow consumer: 30 batches take longer than the timer
    finally:
        timer.cancel()
        timer.join()  # the timer's thread has ended before threads are counted
    assert 0 < got < 600000
    assert threads_settled(before) == before


def test_a_file_larger_than_a_batch_reads_the_same_every_way(tmp_path):
    # 300,000 rows in one file: the scan hands it over in batches of 16,384 rows, which
    # to_pandas converts while the next is decoded (its numeric columns gathered apart).
    n = 300_000
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, n INT32, x FLOAT64, ok BOOLEAN, s VARCHAR, "
                     "at TIMESTAMP[us], amount DECIMAL(10,2), day DATE")
    i = np.arange(n, dtype=np.int64)
    # Days: a narrow span in the first batch, then year 1 and 9999 in the later ones (too
    # wide a span for a slot per day: the shared dates move to a cache mid-scan).
    days = [datetime.date(2024, 1, 1) + datetime.timedelta(days=int(k % 50)) for k in range(n)]
    days[200_000] = datetime.date(1, 1, 1)
    days[299_999] = datetime.date(9999, 12, 31)
    frame = pd.DataFrame({
        "id": i,
        "n": pd.array([None if k % 1000 == 999 else int(k % 70000) for k in range(n)],
                      dtype="Int32"),
        "x": i * 0.5,
        "ok": i % 3 == 0,
        "s": np.array([None if k % 777 == 0 else f"s{k}" for k in range(n)], dtype=object),
        "at": (1_700_000_000_000_000 + i * 1_000_003).astype("datetime64[us]")
        .astype("datetime64[ns]"),
        "amount": np.array([decimal.Decimal(k).scaleb(-2) for k in range(n)], dtype=object),
        "day": np.array(days, dtype=object),
    })
    ds = c.load_dataset("w.c.d")
    ds.append(frame, author="t")
    assert len(list(ds.files())) == 1
    parts = list(ds.scan())
    assert [len(p) for p in parts] == [16384] * 18 + [300_000 - 18 * 16384]
    whole = ds.scan().to_pandas()
    pd.testing.assert_frame_equal(whole, pd.concat(parts, ignore_index=True))
    assert str(whole["n"].dtype) == "Int32" and whole["n"].isna().sum() == n // 1000
    assert whole["s"].isna().sum() == len(range(0, n, 777))
    assert whole["day"][200_000] == datetime.date(1, 1, 1)
    assert whole["day"][299_999] == datetime.date(9999, 12, 31)
    # One object per distinct day, shared across batches.
    assert whole["day"][5] is whole["day"][205]
    expected = frame.copy()
    expected["n"] = expected["n"].astype("Int32")
    for col in ("id", "x", "ok", "at", "s", "amount", "day"):
        got = whole[col].tolist()
        assert got == expected[col].tolist(), col
    assert whole["x"].dtype.name == "Float64" and whole["id"].dtype == np.int64
    # A value out of datetime64[ns] in a later batch names its row in the whole scan.
    c.create_dataset("w.c.far", "id INT64 NOT NULL, at TIMESTAMP[us]")
    far = pd.DataFrame({"id": i, "at": pd.Series([datetime.datetime(2024, 1, 1)] * n,
                                                 dtype=object)})
    far.loc[140_000, "at"] = datetime.datetime(3000, 1, 1)
    c.load_dataset("w.c.far").append(far, author="t")
    with pytest.raises(tarn.errors.InvalidArgument) as e:
        c.load_dataset("w.c.far").scan().to_pandas()
    assert e.value.column == "at" and e.value.row == 140000


def test_ctrl_c_stops_a_to_pandas_of_numeric_columns_early(tmp_path):
    # Numeric columns alone are gathered by the scan's thread, which queues nothing: it must
    # still notice the interrupt at its next batch, not at the end of the scan.
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, x FLOAT64")
    n = 20_000_000
    c.load_dataset("w.c.d").append(
        pd.DataFrame({"id": np.arange(n, dtype=np.int64), "x": np.arange(n) * 0.5}), author="t")
    ds = c.load_dataset("w.c.d")
    t = time.perf_counter()
    assert len(ds.scan().to_pandas()) == n
    full = time.perf_counter() - t
    before = threads()
    timer = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT))
    t = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            ds.scan().to_pandas()
    finally:
        timer.cancel()
        timer.join()  # the timer's thread has ended before threads are counted
    # The wait looks for a signal every 50 ms; the whole scan takes several times that.
    assert time.perf_counter() - t < full / 2, (time.perf_counter() - t, full)
    assert threads_settled(before) == before
