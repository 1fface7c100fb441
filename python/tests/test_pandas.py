import datetime
import decimal
import os
import subprocess
import uuid

import numpy as np
import pandas as pd

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
