"""A dataset: its state at load time and every call on it."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Union

from ._scan import ScanResult
from ._util import At, Record, native, record, record_list, split_at

if TYPE_CHECKING:
    from ._client import Client


class Dataset:
    """A dataset of the catalog, as loaded (``client.load_dataset``). Its attributes are the
    state at load (``refresh()`` reads it again); its calls act on the live dataset by name."""

    def __init__(self, client: "Client", info: Record) -> None:
        self._client = client
        self._c = client._c
        self.info = info

    @property
    def name(self) -> str:
        """The qualified name, workspace.collection.dataset."""
        return f"{self.info['workspace']}.{self.info['collection']}.{self.info['name']}"

    @property
    def uuid(self) -> str:
        """This incarnation of the name (a dataset dropped and created again has another)."""
        return str(self.info["uuid"])

    @property
    def snapshot_id(self) -> Optional[int]:
        """The snapshot loaded (the current one when loaded without `at`); None before any."""
        snapshot: Optional[int] = self.info.get("current_snapshot_id")
        return snapshot

    @property
    def schema(self) -> List[Record]:
        """The fields: name, type (tarn's type text), nullable, id."""
        return list(self.info["schema"]["fields"])

    @property
    def properties(self) -> Dict[str, str]:
        return dict(self.info.get("properties") or {})

    def __repr__(self) -> str:
        return f"<tarn.Dataset {self.name} snapshot {self.info.get('current_snapshot_id')}>"

    @native
    def scan(self, columns: Optional[Iterable[str]] = None, where: str = "",
             at: At = None) -> ScanResult:
        """The rows (of `columns`, matching `where`, at `at`: a snapshot id, a tag or a
        datetime), read when the result is consumed."""
        return ScanResult(self._c, self.name, columns, where, at)

    #: Rows per batch of a DataFrame append (each converted and written in turn).
    APPEND_CHUNK_ROWS = 131072

    @native
    def append(self, data: Any, author: str = "", message: str = "",
               idempotency_key: Optional[str] = None) -> Record:
        """Appends `data` as one snapshot: a pandas DataFrame (columns by name, the documented
        type mapping; a dataset column the frame lacks is null) or any object with
        ``__arrow_c_stream__``. Streamed in batches; Ctrl-C (KeyboardInterrupt) stops it
        before the commit, leaving the dataset as it was."""
        return self._write(data, author, message, idempotency_key, "append", None)

    @native
    def overwrite(self, data: Any, where: Optional[str] = None, author: str = "", message: str = "",
                  idempotency_key: Optional[str] = None) -> Record:
        """Replaces every live row (or, with `where`, the rows it matches) by `data`, as one
        snapshot: readers see the old rows or the new ones, never both or neither. `data` as
        for append. With `where`, no matching row and no new row commits nothing
        (snapshot_id 0)."""
        return self._write(data, author, message, idempotency_key, "overwrite", where)

    def _write(self, data: Any, author: str, message: str, idempotency_key: Optional[str],
               mode: str, where: Optional[str]) -> Record:
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            pd = None
        if pd is not None and isinstance(data, pd.DataFrame):
            from ._pandas import columns_of
            fields = [(f["name"], f["type"]) for f in self._client.load_dataset(self.name)
                      .info["schema"]["fields"]]
            return record(self._c.append_columns(self.name, columns_of(data, fields),
                                                  len(data), author, message, idempotency_key,
                                                  self.APPEND_CHUNK_ROWS, mode, where))
        if not hasattr(data, "__arrow_c_stream__"):
            raise TypeError(f"{mode} takes a pandas DataFrame or an object with "
                            "__arrow_c_stream__ (the Arrow PyCapsule interface)")
        return record(self._c.append_arrow(self.name, data.__arrow_c_stream__(), author,
                                            message, idempotency_key, mode, where))

    @native
    def delete(self, where: str, author: str = "", message: str = "") -> Record:
        """Deletes the rows `where` matches, as one snapshot (deletion vectors)."""
        return record(self._c.delete_rows(self.name, where, author, message))

    # ---- administration ----

    @native
    def refresh(self) -> "Dataset":
        """Reads the dataset's current state again (returns self)."""
        self.info = record(self._c.load_dataset(self.name, None, None, None))
        return self

    @native
    def drop(self, purge: bool = False) -> None:
        """Drops this incarnation (IncarnationChanged if the name was since dropped and made
        again)."""
        self._c.drop_dataset(self.name, purge, self.uuid)

    @native
    def rename(self, new_name: str) -> "Dataset":
        """Renames within the collection (`new_name` is the bare name; returns self)."""
        self._c.rename_dataset(self.name, new_name)
        self.info["name"] = new_name
        return self.refresh()

    @native
    def set_properties(self, properties: Optional[Dict[str, str]] = None,
                       unset: Iterable[str] = ()) -> "Dataset":
        self._c.set_properties("dataset", self.name, {str(k): str(v) for k, v in
                                                      (properties or {}).items()}, list(unset))
        return self.refresh()

    @native
    def alter(self, changes: Union[str, Iterable[str]],
              read_snapshot_id: Optional[int] = None) -> "Dataset":
        """Schema changes, all or none: "add score FLOAT64", "drop c", "rename a TO b",
        "promote n INT64", "move c FIRST", "move c AFTER b", "set nullable c" (tarn.ops makes
        them). With `read_snapshot_id`, refused (CommitConflict) if the dataset changed since."""
        if isinstance(changes, str):
            changes = [changes]
        self.info = record(self._c.alter_schema(self.name, list(changes), read_snapshot_id))
        return self

    @native
    def set_partition_spec(self, spec: str) -> "Dataset":
        """Iceberg transforms: "day(at), bucket(16, id)"; files written before keep theirs."""
        self.info = record(self._c.set_partition_spec(self.name, spec))
        return self

    @native
    def set_sort_order(self, order: str) -> "Dataset":
        self.info = record(self._c.set_sort_order(self.name, order))
        return self

    # ---- snapshots, time travel, tags ----

    @native
    def snapshot(self, at: At = None) -> Record:
        """One snapshot: `at` a snapshot id, a tag or a datetime (None: the current one)."""
        return record(self._c.get_snapshot(self.name, *split_at(at)))

    def snapshots(self, after: Optional[int] = None, before: Optional[int] = None,
                  reverse: bool = False, page_size: int = 1000) -> Iterator[Record]:
        """Every snapshot (ids between `after` and `before`, exclusive), oldest first or with
        `reverse` newest first, fetched a page at a time as the iterator is consumed."""
        page_size = int(page_size)
        if reverse and before is None:
            before = 1 << 62  # `before` alone pages from the newest
        while True:
            page = record_list(native(self._c.snapshots_page)(self.name, after, before,
                                                              page_size))
            yield from (reversed(page) if reverse else page)
            if len(page) < page_size:
                return
            if reverse:
                before = page[0]["snapshot_id"]
            else:
                after = page[-1]["snapshot_id"]

    @native
    def create_tag(self, tag: str, at: At = None, replace: bool = False) -> None:
        """Names a snapshot (`at`: id, tag or datetime; None: the current one)."""
        self._c.create_tag(self.name, tag, *split_at(at), replace)

    @native
    def drop_tag(self, tag: str) -> None:
        self._c.drop_tag(self.name, tag)

    @native
    def tags(self) -> List[Record]:
        return record_list(self._c.list_tags(self.name))

    @native
    def rollback(self, to_snapshot: int, author: str = "", message: str = "") -> Record:
        """A new snapshot whose files are those of `to_snapshot`."""
        return record(self._c.rollback(self.name, int(to_snapshot), author, message))

    # ---- files ----

    def files(self, at: At = None, where: str = "",
              page_size: int = 1000) -> Iterator[Record]:
        """The live data files (at `at`, those `where` may match: pruned by partition values,
        statistics and bloom filters), in path order, a page at a time."""
        snapshot, time_us, tag = split_at(at)
        after = None
        while True:
            page = record_list(native(self._c.files_page)(self.name, snapshot, time_us, tag, where,
                                                      after, int(page_size)))
            yield from page
            if len(page) < page_size:
                return
            after = page[-1]["file"]["path"]

    @native
    def add_files(self, paths: Iterable[str], author: str = "", message: str = "",
                  idempotency_key: Optional[str] = None, replace: bool = False) -> Record:
        """Registers Parquet files already in the warehouse (paths relative to its root, under
        the dataset's prefix or a granted location); `replace` drops every live file first."""
        return record(self._c.add_files(self.name, list(paths), author, message,
                                         idempotency_key, replace))

    # ---- change feed ----

    @native
    def changes(self, from_snapshot: int = 0, to_snapshot: Optional[int] = None,
                limit: Optional[int] = None) -> Record:
        """What snapshots (from_snapshot, to_snapshot] added and removed: files and deleted
        rows (`next_from` continues a page of `limit` snapshots)."""
        return record(self._c.changes(self.name, int(from_snapshot), to_snapshot, limit))

    @native
    def commit_offset(self, consumer: str, snapshot_id: int) -> None:
        """Records that `consumer` has processed the changes up to `snapshot_id`."""
        self._c.commit_offset(self.name, consumer, int(snapshot_id))

    @native
    def offset(self, consumer: str) -> Optional[int]:
        """The consumer's committed offset; None when it never committed."""
        return self._c.offset(self.name, consumer)

    # ---- maintenance ----

    @native
    def expire(self, older_than: Union[datetime.datetime, datetime.timedelta],
               respect_consumer_offsets: bool = True, dry_run: bool = False) -> Record:
        """Expires the snapshots committed before `older_than` (a datetime, or a timedelta
        back from now), keeping the current one and, unless told otherwise, every snapshot a
        consumer's offset still needs."""
        if isinstance(older_than, datetime.timedelta):
            older_than = datetime.datetime.now(datetime.timezone.utc) - older_than
        _, time_us, _ = split_at(older_than)
        if time_us is None:
            raise TypeError("older_than takes a datetime or a timedelta")
        return record(self._c.expire(self.name, time_us, respect_consumer_offsets, dry_run))

    @native
    def flush_inlined(self) -> Record:
        """Writes the dataset's inlined files (property ``inline.max_bytes``) out to the
        warehouse, for readers that read it without tarn; no snapshot is made. A Record of
        dataset, files_written and bytes_written."""
        return record(self._c.flush_inlined(self.name))
