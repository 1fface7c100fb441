"""tarn: a lakehouse catalog, embedded or remote (docs/design/python.md).

    import tarn
    client = tarn.connect("/data/tarn")                      # embedded
    client = tarn.connect("http://127.0.0.1:8181", client_id=..., client_secret=...)
"""

from __future__ import annotations

import functools
import json
from typing import Any, Dict, List, Optional

from . import _tarn
from .errors import TarnError, from_native
from . import errors

__all__ = ["connect", "Client", "ScanResult", "TarnError", "errors"]


def _native(fn):
    """Runs a call of the extension, raising the TarnError class of its error code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _tarn.Error as e:
            raise from_native(e) from None

    return wrapper


class Client:
    """A catalog: embedded (a directory) or remote (`tarn serve`). The same calls either way."""

    def __init__(self, native: _tarn.Client):
        self._c = native

    @property
    def remote(self) -> bool:
        return self._c.remote

    @property
    def actor(self) -> str:
        return self._c.actor

    @_native
    def create_workspace(self, name: str, exists_ok: bool = False) -> None:
        self._c.create_workspace(name, exists_ok)

    @_native
    def list_workspaces(self) -> List[Dict[str, Any]]:
        return json.loads(self._c.list_workspaces())

    @_native
    def create_collection(self, name: str, exists_ok: bool = False, description: str = "") -> None:
        self._c.create_collection(name, exists_ok, description)

    @_native
    def create_dataset(self, name: str, schema, partition_by: str = "", sort_by: str = "",
                       description: str = "", exists_ok: bool = False) -> Dict[str, Any]:
        """`schema`: tarn's schema text ('id INT64 NOT NULL, name VARCHAR') or a dict of name
        to type text."""
        if isinstance(schema, dict):
            schema = ", ".join(f'"{k}" {v}' for k, v in schema.items())
        return json.loads(self._c.create_dataset(name, schema, partition_by, sort_by, description,
                                                 exists_ok))

    @_native
    def load_dataset(self, name: str, at=None) -> Dict[str, Any]:
        snapshot, tag = (at, None) if isinstance(at, int) else (None, at)
        return json.loads(self._c.load_dataset(name, snapshot, None, tag))

    @_native
    def snapshots(self, name: str) -> List[Dict[str, Any]]:
        return json.loads(self._c.snapshots(name))


class ScanResult:
    """The rows of a scan, read when asked: ``to_pandas()``, or ``__arrow_c_stream__`` for any
    consumer of the Arrow PyCapsule interface (pyarrow, Polars, DuckDB), once."""

    def __init__(self, client: "Client", name: str, columns, where: str, at):
        self._client, self._name, self._where = client, name, where
        self._columns = list(columns or [])
        self._snapshot, self._tag = (at, None) if isinstance(at, int) else (None, at)
        self._taken = False

    @_native
    def __arrow_c_stream__(self, requested_schema=None):
        if self._taken:
            raise ValueError("this scan's stream was already taken")
        self._taken = True
        return self._client._c.scan_arrow(self._name, self._columns, self._where,
                                          self._snapshot, self._tag)

    @_native
    def to_pandas(self):
        """A DataFrame with the documented type mapping (docs/design/python.md)."""
        from ._pandas import frame
        return frame(self._client._c.scan_columns(self._name, self._columns, self._where,
                                                  self._snapshot, self._tag))


def _scan(client: "Client", name: str, columns=None, where: str = "", at=None) -> ScanResult:
    return ScanResult(client, name, columns, where, at)


def _append(client: "Client", name: str, data, author: str = "", message: str = "",
            idempotency_key: Optional[str] = None) -> Dict[str, Any]:
    """Appends `data` as one snapshot: a pandas DataFrame (columns by name, the documented type
    mapping) or any object with ``__arrow_c_stream__``."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        from ._pandas import columns_of
        ds = client.load_dataset(name)
        fields = [(f["name"], f["type"]) for f in ds["schema"]["fields"]]
        return json.loads(client._c.append_columns(name, columns_of(data, fields), len(data),
                                                   author, message, idempotency_key))
    if not hasattr(data, "__arrow_c_stream__"):
        raise TypeError("append takes a pandas DataFrame or an object with __arrow_c_stream__ "
                        "(the Arrow PyCapsule interface)")
    return json.loads(client._c.append_arrow(name, data.__arrow_c_stream__(), author, message,
                                             idempotency_key))


def _delete(client: "Client", name: str, where: str, author: str = "",
            message: str = "") -> Dict[str, Any]:
    """Deletes the rows `where` matches, as one snapshot (deletion vectors)."""
    return json.loads(client._c.delete_rows(name, where, author, message))


Client.scan = _native(_scan)
Client.delete = _native(_delete)
Client.append = _native(_append)


@_native
def connect(target: str, client_id: Optional[str] = None, client_secret: Optional[str] = None,
            token: Optional[str] = None) -> Client:
    """A client of the catalog at `target` (a directory or an http(s):// URL). Credentials left
    out come from TARN_CLIENT_ID / TARN_CLIENT_SECRET / TARN_TOKEN, as for the CLI."""
    return Client(_tarn.connect(target, client_id or "", client_secret or "", token or ""))
