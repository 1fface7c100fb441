"""A dataset: its state at load time and every call on it."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from ._scan import ScanResult
from ._util import Record, native, records


class Dataset:
    """A dataset of the catalog, as loaded (``client.load_dataset``). Its attributes are the
    state at load (``refresh()`` reads it again); its calls act on the live dataset by name."""

    def __init__(self, client, info: Record):
        self._client = client
        self._c = client._c
        self.info = info

    @property
    def name(self) -> str:
        """The qualified name, workspace.collection.dataset."""
        return f"{self.info['workspace']}.{self.info['collection']}.{self.info['name']}"

    def __repr__(self) -> str:
        return f"<tarn.Dataset {self.name} snapshot {self.info.get('current_snapshot_id')}>"

    @native
    def scan(self, columns=None, where: str = "", at=None) -> ScanResult:
        """The rows (of `columns`, matching `where`, at `at`: a snapshot id, a tag or a
        datetime), read when the result is consumed."""
        return ScanResult(self._c, self.name, columns, where, at)

    #: Rows per batch of a DataFrame append (each converted and written in turn).
    APPEND_CHUNK_ROWS = 131072

    @native
    def append(self, data, author: str = "", message: str = "",
               idempotency_key: Optional[str] = None) -> Record:
        """Appends `data` as one snapshot: a pandas DataFrame (columns by name, the documented
        type mapping; a dataset column the frame lacks is null) or any object with
        ``__arrow_c_stream__``. Streamed in batches; Ctrl-C (KeyboardInterrupt) stops it
        before the commit, leaving the dataset as it was."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            pd = None
        if pd is not None and isinstance(data, pd.DataFrame):
            from ._pandas import columns_of
            fields = [(f["name"], f["type"]) for f in self._client.load_dataset(self.name)
                      .info["schema"]["fields"]]
            return records(self._c.append_columns(self.name, columns_of(data, fields),
                                                  len(data), author, message, idempotency_key,
                                                  self.APPEND_CHUNK_ROWS))
        if not hasattr(data, "__arrow_c_stream__"):
            raise TypeError("append takes a pandas DataFrame or an object with "
                            "__arrow_c_stream__ (the Arrow PyCapsule interface)")
        return records(self._c.append_arrow(self.name, data.__arrow_c_stream__(), author,
                                            message, idempotency_key))

    @native
    def delete(self, where: str, author: str = "", message: str = "") -> Record:
        """Deletes the rows `where` matches, as one snapshot (deletion vectors)."""
        return records(self._c.delete_rows(self.name, where, author, message))
