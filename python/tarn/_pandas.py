"""pandas DataFrames to and from tarn columns, with the type mapping of docs/design/python.md.

Scans: the extension gives each column as (kind, values, mask) (src/python/columns.h): numpy
arrays of the column's own width, nanoseconds for timestamps and TIME[ns], or object arrays of
the Python values it made (Decimal, date, UUID, lists, dicts...). Here they get their pandas
dtypes: a nullable field is a masked array (Int32, Float64, boolean) whether or not a value is
null, so every batch of a scan has the same dtypes; a NOT NULL field is a plain numpy array.

Appends: each DataFrame column becomes (kind, values, mask) for the field of the same name:
"raw" numpy arrays of the field's own width (numeric and bool columns, cast here when the
values fit), "ns" int64 nanoseconds (datetime64[ns] naive or tz-aware, timedelta64[ns]), or an
"object" array the extension converts value by value.
"""

from __future__ import annotations

from typing import Any, Dict, List, NoReturn, Optional, Tuple

import numpy as np
import pandas as pd

from . import errors

_UTC = pd.DatetimeTZDtype(tz="UTC")


def _array(kind: str, values: Any, mask: Any) -> Any:
    if kind == "int" or kind == "uint":
        return pd.arrays.IntegerArray(values, mask) if mask is not None else values
    if kind == "float":
        return pd.arrays.FloatingArray(values, mask) if mask is not None else values
    if kind == "bool":
        return pd.arrays.BooleanArray(values, mask) if mask is not None else values
    if kind == "datetime":
        return values.view("datetime64[ns]")
    if kind == "datetimetz":
        return pd.arrays.DatetimeArray(values.view("datetime64[ns]"), dtype=_UTC)
    if kind == "timedelta":
        return values.view("timedelta64[ns]")
    # "object": as a Series of that dtype, which pandas takes as it is; a bare object array
    # is scanned for dates to convert (14 ms per 1,000,000 dates, to convert none).
    return pd.Series(values, dtype=object, copy=False)


def frame(columns: List[Any]) -> pd.DataFrame:
    """The DataFrame of the extension's [(name, type text, kind, values, mask)]."""
    data = {name: _array(kind, values, mask) for name, _, kind, values, mask in columns}
    # In the dict's order: pandas 1.5 given columns= too goes through an object array of the
    # columns (0.16 s for 1,000,000 x 5 instead of 0.3 ms).
    return pd.DataFrame(data, copy=False)


_NUMPY = {"BOOLEAN": np.dtype(np.bool_), "INT8": np.dtype(np.int8),
          "INT16": np.dtype(np.int16), "INT32": np.dtype(np.int32),
          "INT64": np.dtype(np.int64), "UINT8": np.dtype(np.uint8),
          "UINT16": np.dtype(np.uint16), "UINT32": np.dtype(np.uint32),
          "UINT64": np.dtype(np.uint64), "FLOAT32": np.dtype(np.float32),
          "FLOAT64": np.dtype(np.float64)}


def _refuse(column: str, row: int, why: str) -> NoReturn:
    raise errors.InvalidArgument(f"column '{column}', row {row}: {why}",
                                 {"column": column, "row": str(row)})


def _first(bad: Any) -> int:
    return int(np.flatnonzero(bad)[0])


def _fit(column: str, want: np.dtype[Any], values: np.ndarray[Any, Any],
         mask: Any) -> Optional[Tuple[Any, Any]]:
    """(values of dtype `want`, mask) from a numeric numpy array, refusing a value that does
    not fit (naming its row); None when the column is not numeric in a way that can fit."""
    if values.dtype == want:
        return values, mask
    live = np.ones(len(values), dtype=bool) if mask is None else ~mask
    kind = values.dtype.kind
    if want.kind == "b":
        return None  # only bools are BOOLEAN
    if want.kind == "f":
        if kind not in "iuf":
            return None
        return values.astype(want), mask
    # An integer field.
    if kind == "f":
        nan = np.isnan(values)
        if nan.any():  # pandas' float column with missing values: NaN is null here
            mask = nan if mask is None else (mask | nan)
            live = live & ~nan
            values = np.where(nan, 0, values)
        whole = np.trunc(values) == values
        if not whole[live].all():
            row = _first(live & ~whole)
            _refuse(column, row, f"{values[row]!r} is not a whole number")
    elif kind not in "iu":
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        cast = values.astype(want)
        back = cast.astype(values.dtype)
    # Whatever did not survive the round trip (or changed sign, as -1 to UINT64) is out of range.
    over = live & ((back != values) | ((values < 0) != (cast < 0)))
    if over.any():
        row = _first(over)
        _refuse(column, row, f"{values[row]} is out of range for {want.name.upper()}")
    return cast, mask


def _column(column: str, type_text: str, series: pd.Series) -> Tuple[str, Any, Any]:
    """(kind, values, mask) of `series` for a field of type `type_text`."""
    dtype = series.dtype
    want = _NUMPY.get(type_text)
    if want is not None:
        fitted = None
        if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
            fitted = _fit(column, want, series.to_numpy(), None)
        elif isinstance(dtype, pd.api.extensions.ExtensionDtype) and \
                getattr(dtype, "numpy_dtype", None) is not None and dtype.kind in "biuf":
            mask = series.isna().to_numpy()
            values = series.to_numpy(dtype=dtype.numpy_dtype, na_value=dtype.numpy_dtype.type(0))
            fitted = _fit(column, want, values, mask if mask.any() else None)
        if fitted is not None:
            return ("raw", np.ascontiguousarray(fitted[0]), fitted[1])
    elif type_text == "DATE" or type_text.startswith(("TIMESTAMP", "TIME")):
        if isinstance(dtype, pd.DatetimeTZDtype) or \
                (isinstance(dtype, np.dtype) and dtype.kind == "M"):
            if type_text.startswith("TIME") and not type_text.startswith("TIMESTAMP"):
                pass  # a timestamp is not a time of day: refused value by value
            else:
                return ("ns", np.ascontiguousarray(pd.DatetimeIndex(series).asi8), None)
        elif isinstance(dtype, np.dtype) and dtype.kind == "m" and type_text.startswith("TIME") \
                and not type_text.startswith("TIMESTAMP"):
            return ("ns", np.ascontiguousarray(series.to_numpy().view("i8")), None)
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        values = series.to_numpy()
    else:
        values = series.to_numpy(dtype=object, na_value=None)
    return ("object", np.ascontiguousarray(values), None)


def columns_of(frame_: pd.DataFrame,
               fields: List[Tuple[str, str]]) -> Dict[str, Tuple[str, Any, Any]]:
    """The columns of `frame_` for the dataset fields [(name, type text)], by name; a column
    the dataset lacks is a ValueError naming it."""
    types = dict(fields)
    out = {}
    if len(set(frame_.columns)) != len(frame_.columns):
        raise ValueError("the DataFrame has repeated column names")
    for name in frame_.columns:
        if name not in types:
            raise ValueError(f"column {name!r} is not in the dataset (it has "
                             f"{', '.join(types)})")
        out[name] = _column(name, types[name], frame_[name])
    return out
