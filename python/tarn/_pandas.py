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
