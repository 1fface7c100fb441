"""Scan results: the rows of a dataset as one pandas DataFrame, as an iterator of DataFrames
(one per batch, streamed), or as an Arrow C stream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, List, Optional, Tuple

from . import _tarn
from ._util import At, native, split_at

if TYPE_CHECKING:
    import pandas


class ScanResult:
    """The rows of a scan, read when asked: ``to_pandas()`` (one DataFrame), ``batches()`` or
    ``iter(result)`` (a DataFrame per batch, streamed: a thread scans ahead into a bounded
    queue, so memory stays bounded; leaving the loop early stops the scan), or
    ``__arrow_c_stream__`` for any consumer of the Arrow PyCapsule interface (pyarrow, Polars,
    DuckDB), streamed the same way. Each call reads the dataset again, except the Arrow stream,
    which is handed over once."""

    def __init__(self, native_client: _tarn.Client, name: str,
                 columns: Optional[Iterable[str]], where: str, at: At) -> None:
        self._c, self._name, self._where = native_client, name, where
        self._columns = list(columns or [])
        self._snapshot, self._time_us, self._tag = split_at(at)
        self._taken = False

    def _args(self) -> Tuple[str, List[str], str, Optional[int], Optional[int],
                             Optional[str]]:
        return (self._name, self._columns, self._where, self._snapshot, self._time_us,
                self._tag)

    @native
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """An Arrow C stream (a PyCapsule "arrow_array_stream") of the rows, for pyarrow,
        Polars, DuckDB or any consumer of the Arrow PyCapsule interface; taken once."""
        if self._taken:
            raise ValueError("this scan's stream was already taken")
        self._taken = True
        return self._c.scan_arrow(*self._args())

    @native
    def to_pandas(self) -> "pandas.DataFrame":
        """One DataFrame of every row, with the documented type mapping
        (docs/design/python.md)."""
        from ._pandas import frame
        scan = self._c.scan(*self._args(), gather=True)
        try:
            return frame(scan.collect())
        finally:
            scan.close()

    def batches(self) -> Iterator["pandas.DataFrame"]:
        """A DataFrame per batch the scan reads (the same dtypes in every one), streamed.
        Abandoning the iterator (``break``, or dropping it) stops the scan's thread."""
        from ._pandas import frame
        scan = native(self._c.scan)(*self._args())
        try:
            while True:
                columns = native(scan.next)()
                if columns is None:
                    return
                yield frame(columns)
        finally:
            scan.close()

    def __iter__(self) -> Iterator["pandas.DataFrame"]:
        return self.batches()
