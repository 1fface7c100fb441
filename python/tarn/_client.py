"""The client: workspaces, collections, datasets, SQL and uploads."""

from __future__ import annotations

from typing import List, Optional

from . import _tarn
from ._dataset import Dataset
from ._upload import UploadsMixin
from ._util import Record, native, records, split_at


class Client(UploadsMixin):
    """A catalog: embedded (a directory) or remote (`tarn serve`). The same calls either way."""

    def __init__(self, native_client: _tarn.Client):
        self._c = native_client

    @property
    def remote(self) -> bool:
        return self._c.remote

    @property
    def actor(self) -> str:
        return self._c.actor

    @native
    def create_workspace(self, name: str, exists_ok: bool = False) -> None:
        self._c.create_workspace(name, exists_ok)

    @native
    def list_workspaces(self) -> List[Record]:
        return records(self._c.list_workspaces())

    @native
    def create_collection(self, name: str, exists_ok: bool = False,
                          description: str = "") -> None:
        self._c.create_collection(name, exists_ok, description)

    @native
    def create_dataset(self, name: str, schema, partition_by: str = "", sort_by: str = "",
                       description: str = "", exists_ok: bool = False) -> Dataset:
        """`schema`: tarn's schema text ('id INT64 NOT NULL, name VARCHAR') or a dict of name
        to type text."""
        if isinstance(schema, dict):
            schema = ", ".join('"' + k.replace('"', '""') + '" ' + v for k, v in schema.items())
        return Dataset(self, records(self._c.create_dataset(name, schema, partition_by, sort_by,
                                                            description, exists_ok)))

    @native
    def load_dataset(self, name: str, at=None) -> Dataset:
        """The dataset `name` (workspace.collection.dataset), at `at` when given (a snapshot id,
        a tag or a datetime; its schema is then that snapshot's)."""
        snapshot, time_us, tag = split_at(at)
        return Dataset(self, records(self._c.load_dataset(name, snapshot, time_us, tag)))

    @native
    def snapshots(self, name: str) -> List[Record]:
        return records(self._c.snapshots(name))


@native
def connect(target: str, client_id: Optional[str] = None, client_secret: Optional[str] = None,
            token: Optional[str] = None) -> Client:
    """A client of the catalog at `target` (a directory or an http(s):// URL). Credentials left
    out come from TARN_CLIENT_ID / TARN_CLIENT_SECRET / TARN_TOKEN, as for the CLI."""
    return Client(_tarn.connect(target, client_id or "", client_secret or "", token or ""))
