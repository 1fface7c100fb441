"""Scan columns (from _tarn.Client.scan_columns) into a pandas DataFrame, with the mapping of
docs/design/python.md: masked arrays where a column has nulls, datetime64[ns] (UTC for
TIMESTAMPTZ), Decimal, date, UUID and str objects."""

from __future__ import annotations

import datetime
import decimal
import uuid

import numpy as np
import pandas as pd


def _from_text(type_text: str, values):
    if type_text.startswith("DECIMAL"):
        return [None if v is None else decimal.Decimal(v) for v in values]
    if type_text == "DATE":
        return [None if v is None else datetime.date.fromisoformat(v) for v in values]
    if type_text == "UUID":
        return [None if v is None else uuid.UUID(v) for v in values]
    return list(values)


def _series(type_text: str, kind: str, values, mask):
    if kind == "int" or kind == "uint":
        return pd.arrays.IntegerArray(values, mask) if mask is not None else values
    if kind == "float":
        return pd.arrays.FloatingArray(values, mask) if mask is not None else values
    if kind == "bool":
        return pd.arrays.BooleanArray(values, mask) if mask is not None else values
    if kind in ("datetime", "datetimetz"):
        stamps = values.view("datetime64[ns]")
        if mask is not None:
            stamps = stamps.copy()
            stamps[mask] = np.datetime64("NaT")
        out = pd.DatetimeIndex(stamps)
        return (out.tz_localize("UTC") if kind == "datetimetz" else out).array
    if kind == "str":
        return values
    return pd.array(_from_text(type_text, values), dtype=object)


def frame(columns) -> pd.DataFrame:
    data = {name: _series(type_text, kind, values, mask)
            for name, type_text, kind, values, mask in columns}
    return pd.DataFrame(data, columns=[c[0] for c in columns])


_NUMPY = {"BOOLEAN": np.bool_, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
          "INT64": np.int64, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32,
          "UINT64": np.uint64, "FLOAT32": np.float32, "FLOAT64": np.float64}


def _text(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (datetime.date, datetime.time, pd.Timestamp)) and not isinstance(
            value, str):
        return str(value)
    if isinstance(value, bytes):
        raise TypeError("BLOB values from pandas are not supported yet")
    return str(value)


def _column(type_text: str, series: pd.Series):
    """(values, mask) for _tarn.Client.append_columns: a numpy array of the field's own type
    where the column already is one (or a masked array of it), else canonical texts."""
    want = _NUMPY.get(type_text)
    if want is not None:
        dtype = series.dtype
        if isinstance(dtype, np.dtype) and dtype == want:
            return np.ascontiguousarray(series.to_numpy()), None
        numpy_dtype = getattr(dtype, "numpy_dtype", None)  # Int64, Float64, boolean...
        if numpy_dtype is not None and numpy_dtype == want:
            mask = series.isna().to_numpy()
            values = series.to_numpy(dtype=want, na_value=want(0))
            return np.ascontiguousarray(values), (mask if mask.any() else None)
    texts = [None if (v is None or v is pd.NA or v is pd.NaT or
                      (isinstance(v, float) and np.isnan(v) and want is None))
             else _text(v) for v in series.tolist()]
    return texts, None


def columns_of(frame_: pd.DataFrame, fields) -> dict:
    """The columns of `frame_` for the dataset fields [(name, type text)], by name; a column
    the dataset lacks is a ValueError naming it."""
    types = dict(fields)
    out = {}
    for name in frame_.columns:
        if name not in types:
            raise ValueError(f"column {name!r} is not in the dataset (it has "
                             f"{', '.join(types)})")
        out[name] = _column(types[name], frame_[name])
    return out
