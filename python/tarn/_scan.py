"""Scan results: the rows of a dataset as pandas, as batches, or as an Arrow C stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._util import native, split_at

if TYPE_CHECKING:
    import pandas


class ScanResult:
    """The rows of a scan, read when asked: ``to_pandas()``, or ``__arrow_c_stream__`` for any
    consumer of the Arrow PyCapsule interface (pyarrow, Polars, DuckDB), once."""

    def __init__(self, native_client, name: str, columns, where: str, at):
        self._c, self._name, self._where = native_client, name, where
        self._columns = list(columns or [])
        self._snapshot, self._time_us, self._tag = split_at(at)
        self._taken = False

    @native
    def __arrow_c_stream__(self, requested_schema=None):
        if self._taken:
            raise ValueError("this scan's stream was already taken")
        self._taken = True
        return self._c.scan_arrow(self._name, self._columns, self._where, self._snapshot,
                                  self._time_us, self._tag)

    @native
    def to_pandas(self) -> "pandas.DataFrame":
        """A DataFrame with the documented type mapping (docs/design/python.md)."""
        from ._pandas import frame
        return frame(self._c.scan_columns(self._name, self._columns, self._where,
                                          self._snapshot, self._time_us, self._tag))
