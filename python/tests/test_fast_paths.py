"""The conversions' fast paths give exactly what the general ones give: str made straight from
ASCII bytes (anything else decoded as UTF-8), Decimal objects made and read through _decimal's
layout (checked against Decimal(str) once; TARN_PYTHON_DECIMAL_TEXT=1 turns it off), dates
shared per day through a table of the scan's range or a cache for wide ranges."""

import datetime
import decimal
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import tarn

D = decimal.Decimal


def dataset(tmp_path, schema):
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", schema)
    return c.load_dataset("w.c.d")


def round_trip(tmp_path, schema, frame):
    ds = dataset(tmp_path, schema)
    ds.append(frame)
    return ds.scan().to_pandas().sort_values("id").reset_index(drop=True)


def test_strings_of_every_utf8_width_empty_and_null(tmp_path):
    base = ["", "a", "abcdefg", "abcdefgh", "abcdefghi", "x" * 64, "é", "abcdefgé", "abcdefghé",
            "ü" * 9, "€", "abcdefg€xyz", "日本語のテキスト", "🦀", "a🦀b", "abcdefgh🦀", "\x7f",
            "\x00nul", "mixed é € 🦀 ascii", None, "tail ascii after é: 12345678"]
    values = base * 3
    frame = pd.DataFrame({"id": np.arange(len(values), dtype=np.int64),
                          "s": np.array(values, dtype=object)})
    out = round_trip(tmp_path, "id INT64 NOT NULL, s VARCHAR", frame)
    got = out["s"].tolist()
    assert [None if v is None else v for v in got] == values
    for v in got:
        if v is not None:
            assert type(v) is str


DECIMALS = {
    "DECIMAL(10,2)": ["0.00", "-0.01", "0.01", "-12345678.90", "99999999.99", "-99999999.99",
                      "1.50", "-50000000.00"],
    "DECIMAL(10,0)": ["0", "1", "-1", "9999999999", "-9999999999", "1234567890"],
    "DECIMAL(38,10)": ["0E-10", "-0.0000000001", "0.0000000001",
                       "9999999999999999999999999999.9999999999",
                       "-9999999999999999999999999999.9999999999",
                       "1000000000.0000000000", "-1234567890123456789.0123456789",
                       "999999999.9999999999", "1000000000000000000.0000000000"],
    "DECIMAL(38,0)": ["99999999999999999999999999999999999999",
                      "-99999999999999999999999999999999999999",
                      "10000000000000000000", "9999999999999999999", "-10000000000000000000"],
    "DECIMAL(5,5)": ["0.00000", "0.99999", "-0.99999", "0.00001"],
}


@pytest.mark.parametrize("decl", list(DECIMALS))
def test_decimals_scan_as_decimal_of_their_text(tmp_path, decl):
    texts = DECIMALS[decl]
    values = [D(t) for t in texts] + [None]
    frame = pd.DataFrame({"id": np.arange(len(values), dtype=np.int64),
                          "x": np.array(values, dtype=object)})
    out = round_trip(tmp_path, f"id INT64 NOT NULL, x {decl}", frame)
    got = out["x"].tolist()
    assert got[-1] is None
    scale = int(decl.split(",")[1].rstrip(")"))
    with decimal.localcontext() as ctx:
        ctx.prec = 80  # 38 digits exactly
        for text, v in zip(texts, got):
            want = D(text).quantize(D(1).scaleb(-scale))  # every value at the column's scale
            assert type(v) is D
            assert v == want and str(v) == str(want) and v.as_tuple() == want.as_tuple()
            assert hash(v) == hash(want)
            assert v + 0 == want and -v == -want and v * 2 == want * 2  # arithmetic works


def test_decimals_in_other_shapes_append_as_their_value(tmp_path):
    values = [D("1.5"), D("-1.5"), D("1E+3"), D("0.0000001"), D("1.2500000000"), D("0"),
              D("-0"), D("123"), D("-0.00"), 7, "2.25", D("1E-10")]
    frame = pd.DataFrame({"id": np.arange(len(values), dtype=np.int64),
                          "x": np.array(values, dtype=object)})
    out = round_trip(tmp_path, "id INT64 NOT NULL, x DECIMAL(38,10)", frame)
    q = D("1E-10")
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        assert out["x"].tolist() == [D(str(v)).quantize(q) for v in values]


@pytest.mark.parametrize("value,why", [(D("1.234"), "fraction digits"),
                                       (D("1000"), "integer digits"),
                                       (D("NaN"), ""), (D("Infinity"), "")])
def test_decimals_that_do_not_fit_are_refused(tmp_path, value, why):
    ds = dataset(tmp_path, "x DECIMAL(5,2)")
    frame = pd.DataFrame({"x": np.array([D("1.00"), value], dtype=object)})
    with pytest.raises(tarn.errors.InvalidArgument) as e:
        ds.append(frame)
    assert e.value.column == "x" and e.value.row == 1
    assert why in str(e.value)


def test_the_text_path_gives_the_same_decimals(tmp_path):
    """TARN_PYTHON_DECIMAL_TEXT=1 (every value through Decimal(str) / str(d)) reads and writes
    the same values as the layout."""
    script = (
        "import sys, decimal, numpy as np, pandas as pd, tarn\n"
        "c = tarn.connect(sys.argv[1]); c.create_workspace('w'); c.create_collection('w.c')\n"
        "c.create_dataset('w.c.d', 'id INT64 NOT NULL, x DECIMAL(38,10), y DECIMAL(10,2)')\n"
        "ds = c.load_dataset('w.c.d')\n"
        "xs = [decimal.Decimal(v) for v in sys.argv[2].split()]\n"
        "ys = [decimal.Decimal(k * 982451653 % 10**10 - 5 * 10**9).scaleb(-2) "
        "for k in range(1000)]\n"
        "ds.append(pd.DataFrame({'id': np.arange(1000), 'x': np.array((xs * 1000)[:1000], "
        "dtype=object), 'y': np.array(ys, dtype=object)}))\n"
        "df = ds.scan().to_pandas().sort_values('id')\n"
        "print(repr([x.as_tuple() for x in df.x]), repr([y.as_tuple() for y in df.y]))\n")
    xs = " ".join(DECIMALS["DECIMAL(38,10)"] + ["1.5", "-2", "0.25"])
    outs = []
    for n, text in enumerate(["", "1"]):
        env = dict(os.environ)
        env.pop("TARN_PYTHON_DECIMAL_TEXT", None)
        if text:
            env["TARN_PYTHON_DECIMAL_TEXT"] = text
        outs.append(subprocess.run([sys.executable, "-c", script, str(tmp_path / f"c{n}"), xs],
                                   env=env, check=True, capture_output=True,
                                   text=True).stdout)
    assert outs[0] == outs[1] and outs[0].startswith("[DecimalTuple(")


@pytest.mark.parametrize("days", [
    [datetime.date(1969, 12, 31), datetime.date(1900, 1, 1), datetime.date(1970, 1, 1),
     datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(2024, 2, 29)],  # wide
    [datetime.date(1969, 12, 31) - datetime.timedelta(days=k) for k in range(40)],  # narrow
])
def test_dates_before_1970_and_across_a_wide_range(tmp_path, days):
    values = (days + [None]) * 5
    frame = pd.DataFrame({"id": np.arange(len(values), dtype=np.int64),
                          "d": np.array(values, dtype=object)})
    out = round_trip(tmp_path, "id INT64 NOT NULL, d DATE", frame)
    assert out["d"].tolist() == values
    assert all(type(v) is datetime.date for v in out["d"] if v is not None)


def test_huge_page_arenas_keep_every_object_and_reuse_memory(tmp_path):
    """The first conversion that makes objects moves pymalloc's arenas to regions advised for
    huge pages (docs/design/python.md "Memory for Python objects"): the scan's values are the
    same, arenas made before are freed by the allocator that made them, later objects come from
    the regions, freed arenas are reused (a second scan maps no region), and emptied regions
    are kept up to TARN_PYTHON_HUGE_ARENAS_KEEP MiB, unmapped beyond. TARN_PYTHON_HUGE_ARENAS=0
    leaves pymalloc alone."""
    script = (
        "import sys, gc, numpy as np, pandas as pd, tarn\n"
        "from tarn import _tarn\n"
        "first = _tarn._huge_arenas()\n"
        "before = [str(i) * 3 for i in range(300000)]\n"
        "c = tarn.connect(sys.argv[1]); c.create_workspace('w'); c.create_collection('w.c')\n"
        "c.create_dataset('w.c.d', 'id INT64 NOT NULL, s VARCHAR')\n"
        "ds = c.load_dataset('w.c.d')\n"
        "n = 200000\n"
        "ds.append(pd.DataFrame({'id': np.arange(n), 's': np.array([f'v{i}' for i in "
        "range(n)], dtype=object)}))\n"
        "df = ds.scan().to_pandas()\n"
        "installed, regions, made, freed, kept, unmapped = _tarn._huge_arenas()\n"
        "del before; gc.collect()\n"
        "more = [str(i) for i in range(300000)]\n"
        "same = sorted(df.s) == sorted(f'v{i}' for i in range(n))\n"
        "made_more = _tarn._huge_arenas()[2] - made\n"
        "del df, more; gc.collect()\n"
        "after_free = _tarn._huge_arenas()\n"
        "again = ds.scan().to_pandas()\n"
        "same = same and sorted(again.s) == sorted(f'v{i}' for i in range(n))\n"
        "last = _tarn._huge_arenas()\n"
        "print(first[0], installed, regions > 0, made > 0, made_more > 0, after_free[3] > 0,\n"
        "      last[1] == after_free[1], after_free[4] > 0, after_free[5] > 0, same)\n")
    outs = []
    for n, setting in enumerate([None, "0", "keep0"]):
        env = dict(os.environ)
        env.pop("TARN_PYTHON_HUGE_ARENAS", None)
        env.pop("TARN_PYTHON_HUGE_ARENAS_KEEP", None)
        env.pop("PYTHONMALLOC", None)  # pymalloc, whose arenas these are
        if setting == "0":
            env["TARN_PYTHON_HUGE_ARENAS"] = setting
        if setting == "keep0":
            env["TARN_PYTHON_HUGE_ARENAS_KEEP"] = "0"
        outs.append(subprocess.run([sys.executable, "-c", script, str(tmp_path / f"c{n}")],
                                   env=env, check=True, capture_output=True,
                                   text=True).stdout.split())
    # Kept by default: the second scan reuses what the first one freed, nothing unmapped.
    assert outs[0] == ["False", "True", "True", "True", "True", "True", "True", "True",
                       "False", "True"]
    assert outs[1] == ["False", "False", "False", "False", "False", "False", "True", "False",
                       "False", "True"]
    # Nothing kept: emptied regions are unmapped (the second scan maps again).
    assert outs[2][:6] == outs[0][:6] and outs[2][7:] == ["False", "True", "True"]


def test_a_scan_gathers_into_the_memory_of_the_scan_before(tmp_path):
    """to_pandas reserves each gathered column at the size the dataset's row count says, in a
    mapping an earlier array freed when one is cached (docs/design/python.md "Memory for Python
    objects"); the values are those of the dataset whatever the memory held."""
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, n INT32, x FLOAT64 NOT NULL, s VARCHAR")
    n = 300_000
    ids = np.arange(n, dtype=np.int64)
    frame = pd.DataFrame({"id": ids, "n": pd.array(np.where(ids % 7 == 0, None, ids % 1000),
                                                   dtype="Int32"),
                          "x": ids * 0.25, "s": np.array([f"s{i}" for i in ids], dtype=object)})
    ds = c.load_dataset("w.c.d")
    ds.append(frame, author="t")
    first = ds.scan().to_pandas()
    pd.testing.assert_frame_equal(first, frame)
    del first
    cached = tarn._tarn._mapping_cache()
    assert cached[0] > 0 and cached[1] >= n * 8  # the freed columns' mappings, kept
    reused = cached[2]
    # Different values in the same shape: every byte of the reused memory is written again.
    ds.overwrite(frame.assign(id=ids[::-1].copy(), x=-frame.x, s=frame.s.str.upper()),
                 author="t")
    second = ds.scan().to_pandas()
    assert tarn._tarn._mapping_cache()[2] > reused
    assert second.id.tolist() == ids[::-1].tolist()
    assert second.x.tolist() == (-frame.x).tolist()
    assert second.s.tolist() == frame.s.str.upper().tolist()
    assert second.n.isna().tolist() == frame.n.isna().tolist()
    # A filtered scan reserves as much and hands over only its rows.
    few = ds.scan(where="id < 10").to_pandas()
    assert sorted(few.id.tolist()) == list(range(10))
