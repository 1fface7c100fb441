"""The client: workspaces, collections, datasets, SQL and uploads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Union

from . import _tarn

if TYPE_CHECKING:
    import pandas
from ._dataset import Dataset
from ._upload import UploadsMixin
from ._util import At, Record, native, record, record_list, split_at


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
        return record_list(self._c.list_workspaces())

    @native
    def create_collection(self, name: str, exists_ok: bool = False,
                          description: str = "") -> None:
        self._c.create_collection(name, exists_ok, description)

    @native
    def create_dataset(self, name: str, schema: Union[str, Dict[str, str]],
                       partition_by: str = "", sort_by: str = "", description: str = "",
                       exists_ok: bool = False) -> Dataset:
        """`schema`: tarn's schema text ('id INT64 NOT NULL, name VARCHAR') or a dict of name
        to type text."""
        if isinstance(schema, dict):
            schema = ", ".join('"' + k.replace('"', '""') + '" ' + v for k, v in schema.items())
        return Dataset(self, record(self._c.create_dataset(name, schema, partition_by, sort_by,
                                                            description, exists_ok)))

    @native
    def load_dataset(self, name: str, at: At = None) -> Dataset:
        """The dataset `name` (workspace.collection.dataset), at `at` when given (a snapshot id,
        a tag or a datetime; its schema is then that snapshot's)."""
        snapshot, time_us, tag = split_at(at)
        return Dataset(self, record(self._c.load_dataset(name, snapshot, time_us, tag)))

    @native
    def drop_workspace(self, name: str) -> None:
        """Drops an empty workspace (deletion_protected unless its deletion protection is off)."""
        self._c.drop_workspace(name)

    @native
    def list_collections(self, workspace: str) -> List[Record]:
        return record_list(self._c.list_collections(workspace))

    @native
    def drop_collection(self, name: str) -> None:
        self._c.drop_collection(name)

    @native
    def list_datasets(self, collection: str) -> List[Dataset]:
        """The live datasets of `collection` (workspace.collection)."""
        return [Dataset(self, info) for info in record_list(self._c.list_datasets(collection))]

    @native
    def drop_dataset(self, name: str, purge: bool = False,
                     expected_uuid: Optional[str] = None) -> None:
        """Drops the dataset (restorable until expiry unless `purge`); with `expected_uuid`,
        only that incarnation of the name (IncarnationChanged otherwise)."""
        self._c.drop_dataset(name, purge, expected_uuid)

    @native
    def rename_dataset(self, name: str, new_name: str) -> Dataset:
        """Renames within its collection (`new_name` is the bare name); the renamed dataset."""
        self._c.rename_dataset(name, new_name)
        return self.load_dataset(name.rsplit(".", 1)[0] + "." + new_name)

    @native
    def set_properties(self, name: str, properties: Optional[Dict[str, str]] = None,
                       unset: Iterable[str] = ()) -> None:
        """Sets and removes properties of a workspace ("w"), a collection ("w.c") or a dataset
        ("w.c.d")."""
        level = {1: "workspace", 2: "collection", 3: "dataset"}.get(len(name.split(".")))
        if level is None:
            raise ValueError(f"{name!r} names no workspace, collection or dataset")
        self._c.set_properties(level, name, {str(k): str(v) for k, v in
                                             (properties or {}).items()}, list(unset))

    @native
    def sql(self, query: str, into: Optional[str] = None, mode: str = "append",
            author: str = "", message: str = "", idempotency_key: Optional[str] = None,
            timeout: float = 0, threads: int = 0) -> Union["pandas.DataFrame", Record]:
        """Runs a query in DuckDB over the catalog's datasets (docs/design/sql.md): its rows as
        a pandas DataFrame, or with `into` ("w.c.d") committed there as one snapshot (`mode`
        create, append or overwrite) and the outcome returned ({dataset, created, rows,
        snapshot, reads}). `timeout` in seconds (0: none); Ctrl-C stops the query."""
        if into is not None:
            return record(self._c.sql_into(query, into, mode, author, message,
                                             idempotency_key, float(timeout), int(threads)))
        from ._pandas import frame
        columns, reads = self._c.sql(query, float(timeout), int(threads))
        out = frame(columns)
        out.attrs["reads"] = record_list(reads)
        return out


@native
def connect(target: str, client_id: Optional[str] = None, client_secret: Optional[str] = None,
            token: Optional[str] = None) -> Client:
    """A client of the catalog at `target` (a directory or an http(s):// URL). Credentials left
    out come from TARN_CLIENT_ID / TARN_CLIENT_SECRET / TARN_TOKEN, as for the CLI."""
    return Client(_tarn.connect(target, client_id or "", client_secret or "", token or ""))
