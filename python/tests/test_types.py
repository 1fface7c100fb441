"""The pandas type mapping of docs/design/python.md, both ways: every tarn type round-trips
DataFrame -> append -> scan -> DataFrame with equal values and dtypes, nulls included; the
accepted alternatives convert; values that do not fit are refused naming the column and row."""

import datetime
import decimal
import ipaddress
import uuid

import numpy as np
import pandas as pd
import pytest

import tarn

SCHEMA = ("id INT64 NOT NULL, b BOOLEAN, i8 INT8, i16 INT16, i32 INT32, i64 INT64, u8 UINT8, "
          "u16 UINT16, u32 UINT32, u64 UINT64, f32 FLOAT32, f64 FLOAT64, dec DECIMAL(20,4), "
          "s VARCHAR, bl BLOB, d DATE, t TIME, tn TIME[ns], ts_s TIMESTAMP[s], "
          "ts_ms TIMESTAMP[ms], ts_us TIMESTAMP[us], ts_ns TIMESTAMP[ns], "
          "tz_s TIMESTAMPTZ[s], tz_ms TIMESTAMPTZ[ms], tz_us TIMESTAMPTZ[us], "
          "tz_ns TIMESTAMPTZ[ns], u UUID, ip IPV4, j JSON, v VARIANT, a ARRAY<INT64>, "
          "aa ARRAY<ARRAY<VARCHAR>>, st STRUCT<x: INT32, y: VARCHAR, z: ARRAY<DATE>>, "
          "m MAP<VARCHAR, DECIMAL(5,1)>, nn_i INT32 NOT NULL, nn_f FLOAT64 NOT NULL, "
          "nn_b BOOLEAN NOT NULL")

# The dtype every column reads back as (the mapping's "pandas dtype (scan)").
DTYPES = {"id": "int64", "b": "boolean", "i8": "Int8", "i16": "Int16", "i32": "Int32",
          "i64": "Int64", "u8": "UInt8", "u16": "UInt16", "u32": "UInt32", "u64": "UInt64",
          "f32": "Float32", "f64": "Float64", "dec": "object", "s": "object", "bl": "object",
          "d": "object", "t": "object", "tn": "timedelta64[ns]", "ts_s": "datetime64[ns]",
          "ts_ms": "datetime64[ns]", "ts_us": "datetime64[ns]", "ts_ns": "datetime64[ns]",
          "tz_s": "datetime64[ns, UTC]", "tz_ms": "datetime64[ns, UTC]",
          "tz_us": "datetime64[ns, UTC]", "tz_ns": "datetime64[ns, UTC]", "u": "object",
          "ip": "object", "j": "object", "v": "object", "a": "object", "aa": "object",
          "st": "object", "m": "object", "nn_i": "int32", "nn_f": "float64", "nn_b": "bool"}


def catalog(tmp_path, schema=SCHEMA, client=None):
    """A catalog (`client`, else a new embedded one) with the dataset w.c.d of `schema`."""
    c = client or tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", schema)
    return c


def every_type_frame():
    """Three rows of every type: values, all null, other values (extremes where they matter)."""
    utc = pd.to_datetime(["2024-01-02 03:04:05", None, "1999-12-31 23:59:59"]).tz_localize("UTC")
    return pd.DataFrame({
        "id": np.array([1, 2, 3], dtype=np.int64),
        "b": pd.array([True, None, False], dtype="boolean"),
        "i8": pd.array([-128, None, 127], dtype="Int8"),
        "i16": pd.array([-32768, None, 32767], dtype="Int16"),
        "i32": pd.array([-2**31, None, 2**31 - 1], dtype="Int32"),
        "i64": pd.array([-2**63, None, 2**63 - 1], dtype="Int64"),
        "u8": pd.array([255, None, 0], dtype="UInt8"),
        "u16": pd.array([65535, None, 0], dtype="UInt16"),
        "u32": pd.array([2**32 - 1, None, 0], dtype="UInt32"),
        "u64": pd.array([2**64 - 1, None, 0], dtype="UInt64"),
        "f32": pd.array([1.5, None, -0.25], dtype="Float32"),
        "f64": pd.array([1e300, None, -5e-324], dtype="Float64"),
        "dec": [decimal.Decimal("12.3400"), None, decimal.Decimal("-9999999999999999.9999")],
        "s": ["a", None, "ü\u2603"],
        "bl": [b"\x00\xff", None, b""],
        "d": [datetime.date(2024, 2, 29), None, datetime.date(1, 1, 1)],
        "t": [datetime.time(3, 4, 5, 6), None, datetime.time(23, 59, 59, 999999)],
        "tn": pd.to_timedelta([1, None, 86399999999999], unit="ns"),
        "ts_s": pd.to_datetime(["2024-01-02 03:04:05", None, "1970-01-01"]),
        "ts_ms": pd.to_datetime(["2024-01-02 03:04:05.123", None, "1969-12-31 23:59:59.999"]),
        "ts_us": pd.to_datetime(["2024-01-02 03:04:05.123456", None, "1677-09-22"]),
        "ts_ns": pd.to_datetime(["2024-01-02 03:04:05.123456789", None, "2262-04-11"]),
        "tz_s": utc,
        "tz_ms": utc,
        "tz_us": pd.to_datetime(["2024-01-02 03:04:05.000001", None, "2000-01-01"])
        .tz_localize("UTC"),
        "tz_ns": pd.to_datetime(["2024-01-02 03:04:05.000000001", None, "2000-01-01"])
        .tz_localize("UTC"),
        "u": [uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56"), None, uuid.UUID(int=0)],
        "ip": [ipaddress.IPv4Address("10.1.2.3"), None, ipaddress.IPv4Address("255.255.255.255")],
        "j": ['{"a": [1, 2]}', None, "null"],
        "v": ['{"a":1,"b":[true,null,"x"]}', None, "3.5"],
        "a": [[1, None, 3], None, []],
        "aa": [[["x"], [], None], None, [[None, "y"]]],
        "st": [{"x": 1, "y": "q", "z": [datetime.date(2000, 1, 1), None]}, None,
               {"x": None, "y": None, "z": None}],
        "m": [[("k", decimal.Decimal("1.5")), ("l", None)], None, []],
        "nn_i": np.array([1, -1, 0], dtype=np.int32),
        "nn_f": np.array([np.nan, np.inf, -0.0]),
        "nn_b": np.array([True, False, True]),
    })


def scan_sorted(c, **kwargs):
    return c.load_dataset("w.c.d").scan(**kwargs).to_pandas().sort_values("id") \
        .reset_index(drop=True)


@pytest.mark.parametrize("where", ["embedded", "remote"])
def test_every_type_round_trips_with_its_dtype_and_nulls(tmp_path, where, request):
    # Remotely the batches cross the wire in tarn's own encoding both ways.
    c = catalog(tmp_path, client=request.getfixturevalue("served").connect()
                if where == "remote" else None)
    df = every_type_frame()
    assert set(df.columns) == set(DTYPES)
    c.load_dataset("w.c.d").append(df, author="t")
    back = scan_sorted(c)
    assert list(back.columns) == list(df.columns)
    assert {k: str(v) for k, v in back.dtypes.items()} == DTYPES
    pd.testing.assert_frame_equal(back, df)
    # The null row is null in every nullable column, as pandas spells null for its dtype.
    for name in df.columns:
        if name not in ("id", "nn_i", "nn_f", "nn_b"):
            assert pd.isna(back[name][1]), name
    # The Python values are the documented classes.
    row = back.iloc[0]
    assert type(row["dec"]) is decimal.Decimal and type(row["u"]) is uuid.UUID
    assert type(row["ip"]) is ipaddress.IPv4Address and type(row["bl"]) is bytes
    assert type(row["d"]) is datetime.date and type(row["t"]) is datetime.time
    assert row["u"].is_safe == uuid.SafeUUID.unknown and hash(row["u"]) == hash(df["u"][0])
    assert row["m"] == [("k", decimal.Decimal("1.5")), ("l", None)]
    assert back["nn_f"][0] != back["nn_f"][0]  # NaN in a NOT NULL float column: a value


def test_a_nullable_column_without_nulls_keeps_its_masked_dtype(tmp_path):
    c = catalog(tmp_path, "id INT64 NOT NULL, n INT32, x FLOAT64, ok BOOLEAN")
    c.load_dataset("w.c.d").append(pd.DataFrame({
        "id": [1, 2], "n": np.array([1, 2], dtype=np.int32), "x": [0.5, 1.5],
        "ok": [True, False]}), author="t")
    back = scan_sorted(c)
    assert [str(t) for t in back.dtypes] == ["int64", "Int32", "Float64", "boolean"]
    assert back["n"].tolist() == [1, 2] and back["x"].tolist() == [0.5, 1.5]
    # An empty scan has the same dtypes.
    empty = c.load_dataset("w.c.d").scan(where="id > 10").to_pandas()
    assert len(empty) == 0
    assert [str(t) for t in empty.dtypes] == ["int64", "Int32", "Float64", "boolean"]


def test_nan_of_any_float_type_is_null_between_other_values(tmp_path):
    # An object column mixing types: NaN is null whether a float or a numpy.float64 (a float
    # subclass), also after values of another type were seen; in a FLOAT64 column NaN is a value.
    class Half(float):
        pass

    c = catalog(tmp_path, "id INT64 NOT NULL, dec DECIMAL(10,2), n INT64, d DATE, f FLOAT64")
    nan = float("nan")
    df = pd.DataFrame({
        "id": [1, 2, 3, 4, 5],
        "dec": np.array([decimal.Decimal("1.50"), np.float64("nan"), np.float64("nan"),
                         decimal.Decimal("2"), Half("nan")], dtype=object),
        "n": np.array([1, np.float64("nan"), 3, Half("nan"), 5], dtype=object),
        "d": np.array([datetime.date(2024, 1, 1), nan, datetime.date(2024, 1, 2),
                       np.float64("nan"), pd.Timestamp("2024-01-03")], dtype=object),
        "f": np.array([1.0, np.float64("nan"), nan, decimal.Decimal("2.5"), None], dtype=object),
    })
    c.load_dataset("w.c.d").append(df, author="t")
    back = scan_sorted(c)
    assert back["dec"].tolist() == [decimal.Decimal("1.50"), None, None,
                                    decimal.Decimal("2.00"), None]
    assert back["n"].tolist() == [1, pd.NA, 3, pd.NA, 5]
    assert back["d"].tolist() == [datetime.date(2024, 1, 1), None, datetime.date(2024, 1, 2),
                                  None, datetime.date(2024, 1, 3)]
    f = back["f"].tolist()
    assert f[0] == 1.0 and np.isnan(f[1]) and np.isnan(f[2]) and f[3] == 2.5 and f[4] is pd.NA


def test_other_shapes_are_accepted_on_append(tmp_path):
    c = catalog(tmp_path, "id INT64 NOT NULL, i16 INT16, u8 UINT8, f32 FLOAT32, dec DECIMAL(10,2), "
                "d DATE, t TIME, ts TIMESTAMP[us], tz TIMESTAMPTZ[ms], u UUID, ip IPV4, "
                "s VARCHAR, j JSON, m MAP<VARCHAR, INT64>, st STRUCT<x: INT64>, a ARRAY<INT8>")
    paris = pd.to_datetime(["2024-06-01 12:00:00", "2024-01-01 00:00:00.001", None]) \
        .tz_localize("Europe/Paris")
    df = pd.DataFrame({
        "id": [1, 2, 3],
        "i16": [1.0, np.nan, -3.0],               # float64 with NaN: pandas' ints with nulls
        "u8": np.array([1, 2, 255], dtype=np.int64),
        "f32": [1, 2, 3],
        "dec": [5, "1.50", None],                 # int and canonical text
        "d": pd.to_datetime(["2024-02-29", "1970-01-01", None]),  # datetime64 at midnight
        "t": pd.Series([pd.Timedelta(hours=1), "12:30:00.25", pd.NaT], dtype=object),
        "ts": [datetime.datetime(2024, 1, 2, 3, 4, 5, 6), pd.Timestamp("2000-01-01"), pd.NA],
        "tz": paris,                              # converted to UTC
        "u": ["f24f9b64-81fa-49d1-b74e-8c09a6e31c56", None, uuid.UUID(int=5).bytes],
        "ip": ["1.2.3.4", None, ipaddress.IPv4Address("0.0.0.1")],
        "s": pd.array(["x", None, "z"], dtype="string"),
        "j": [{"k": [1, 2]}, None, "[]"],         # JSON-able values are serialized
        "m": [{"a": 1, "b": 2}, None, []],        # a dict is a MAP too
        "st": [{"x": 7}, {}, None],
        "a": [np.array([1, 2], dtype=np.int8), (3,), None],
    })
    c.load_dataset("w.c.d").append(df, author="t")
    back = scan_sorted(c)
    assert back["i16"].tolist() == [1, pd.NA, -3]
    assert back["u8"].tolist() == [1, 2, 255] and back["f32"].tolist() == [1.0, 2.0, 3.0]
    assert back["dec"].tolist() == [decimal.Decimal("5.00"), decimal.Decimal("1.50"), None]
    assert back["d"].tolist() == [datetime.date(2024, 2, 29), datetime.date(1970, 1, 1), None]
    assert back["t"].tolist() == [datetime.time(1), datetime.time(12, 30, 0, 250000), None]
    assert back["ts"][0] == pd.Timestamp("2024-01-02 03:04:05.000006")
    assert back["ts"][1] == pd.Timestamp("2000-01-01") and pd.isna(back["ts"][2])
    assert back["tz"][0] == pd.Timestamp("2024-06-01 10:00:00", tz="UTC")
    assert back["tz"][1] == pd.Timestamp("2023-12-31 23:00:00.001", tz="UTC")
    assert back["u"].tolist() == [uuid.UUID("f24f9b64-81fa-49d1-b74e-8c09a6e31c56"), None,
                                  uuid.UUID(int=5)]
    assert back["ip"].tolist() == [ipaddress.IPv4Address("1.2.3.4"), None,
                                   ipaddress.IPv4Address("0.0.0.1")]
    assert back["s"].tolist() == ["x", None, "z"]
    assert back["j"].tolist() == ['{"k": [1, 2]}', None, "[]"]
    assert back["m"].tolist() == [[("a", 1), ("b", 2)], None, []]
    assert back["st"].tolist() == [{"x": 7}, {"x": None}, None]
    assert back["a"].tolist() == [[1, 2], [3], None]


@pytest.mark.parametrize("schema,column,values,row,words", [
    ("x INT8", "x", np.array([1, 300], dtype=np.int64), 1, "out of range"),
    ("x UINT32", "x", pd.array([0, None, -1], dtype="Int64"), 2, "out of range"),
    ("x INT32", "x", [1.0, 2.5], 1, "whole number"),
    ("x BOOLEAN", "x", [True, "yes"], 1, "str"),
    ("x VARCHAR", "x", ["a", 5], 1, "int"),
    ("x BLOB", "x", [b"a", "text"], 1, "str"),
    ("x DECIMAL(5,2)", "x", [decimal.Decimal("1.5"), decimal.Decimal("1.234")], 1, "fraction"),
    ("x DECIMAL(5,2)", "x", [decimal.Decimal("1"), 1.5], 1, "float"),
    ("x DATE", "x", pd.to_datetime(["2024-01-01", "2024-01-01 00:00:01"]), 1, "midnight"),
    ("x TIMESTAMP[us]", "x", pd.to_datetime(["2024-01-01", "2024-01-01 00:00:00.000000001"]),
     1, "finer"),
    ("x TIMESTAMP[us]", "x", [datetime.datetime(2024, 1, 1), "no time"], 1, "no time"),
    ("x UUID", "x", [uuid.uuid4(), "not-a-uuid"], 1, "not-a-uuid"),
    ("x IPV4", "x", [ipaddress.IPv4Address("1.1.1.1"), "1.1.1.256"], 1, "1.1.1.256"),
    ("x JSON", "x", ["{}", "{bad"], 1, "JSON"),
    ("x ARRAY<INT8>", "x", [[1], [1, 1000]], 1, "out of range"),
    ("x STRUCT<a: INT32>", "x", [{"a": 1}, {"b": 2}], 1, "'b'"),
    ("x MAP<VARCHAR, INT32>", "x", [{"a": 1}, [("a", 1, 2)]], 1, "pair"),
])
def test_a_value_that_does_not_fit_names_its_column_and_row(tmp_path, schema, column, values,
                                                              row, words):
    c = catalog(tmp_path, schema)
    with pytest.raises(tarn.errors.InvalidArgument) as e:
        c.load_dataset("w.c.d").append(pd.DataFrame({column: values}), author="t")
    assert e.value.column == column and e.value.row == row
    assert words.lower() in str(e.value).lower()
    assert list(c.load_dataset("w.c.d").snapshots()) == []  # nothing committed


def test_a_timestamp_outside_pandas_range_is_refused_by_name(tmp_path):
    c = catalog(tmp_path, "id INT64 NOT NULL, at TIMESTAMP[us]")
    c.load_dataset("w.c.d").append(pd.DataFrame({
        "id": [1, 2],
        "at": [datetime.datetime(2024, 1, 1), datetime.datetime(3000, 1, 1)]}), author="t")
    with pytest.raises(tarn.errors.InvalidArgument) as e:
        c.load_dataset("w.c.d").scan().to_pandas()
    assert e.value.column == "at" and "3000-01-01" in str(e.value) and "1677" in str(e.value)
    # The other columns, and the rows in range, still read.
    assert sorted(c.load_dataset("w.c.d").scan(columns=["id"]).to_pandas()["id"]) == [1, 2]
    assert len(c.load_dataset("w.c.d").scan(where="id = 1").to_pandas()) == 1
