"""Uploads in the upload seed's shapes (docs/design/python.md "Uploads").

An upload agrees on column types before any byte is written: ``client.negotiate`` samples the
files (nothing is written) and returns a :class:`Contract` whose plan says, per column, what
is read and what is written; ``accept``, ``write`` and ``commit`` then publish every part as one
snapshot. The calls are the C++ SDK's (include/tarn/upload.h), embedded or remote alike.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _tarn, errors
from ._util import Record, native, record

Progress = Optional[Callable[[int, int], Any]]
#: Local files: one path, or several.
Files = Union[str, "os.PathLike[str]", Iterable[Union[str, "os.PathLike[str]"]]]
#: Parts held in memory: (name, bytes) or (name, bytes, content_type) each.
Samples = Iterable[Sequence[Any]]


class Target:
    """Where an upload goes: ``Target("acme", "security", "findings")``. Wherever a target is
    taken, the text ``"acme.security.findings"`` is taken too."""

    __slots__ = ("workspace", "collection", "dataset")

    def __init__(self, workspace: str, collection: str, dataset: str) -> None:
        self.workspace = workspace
        self.collection = collection
        self.dataset = dataset

    @classmethod
    def parse(cls, name: str) -> "Target":
        """``"w.c.d"`` as a Target (ValueError for anything else)."""
        parts = name.split(".")
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"a target is workspace.collection.dataset, not {name!r}")
        return cls(*parts)

    def __str__(self) -> str:
        return f"{self.workspace}.{self.collection}.{self.dataset}"

    def __repr__(self) -> str:
        return f"Target({self.workspace!r}, {self.collection!r}, {self.dataset!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def _target_name(target: Union[Target, str]) -> str:
    if isinstance(target, Target):
        return str(target)
    if isinstance(target, str):
        return str(Target.parse(target))
    raise TypeError(f"a target is a tarn.Target or 'workspace.collection.dataset', "
                    f"not {type(target).__name__}")


class Schema:
    """Where an upload's column types come from. There is no default: every call that takes a
    schema requires one of these."""

    __slots__ = ("source", "mode", "columns")

    def __init__(self, source: str, mode: str = "append",
                 columns: Sequence[Tuple[str, str]] = ()) -> None:
        if mode not in ("append", "overwrite"):
            raise ValueError(f"the mode is 'append' or 'overwrite', not {mode!r}")
        self.source = source
        self.mode = mode
        self.columns = list(columns)

    @classmethod
    def auto(cls, mode: str = "append") -> "Schema":
        """The destination answers: the dataset's types when it exists (appending, or
        overwriting with ``mode="overwrite"``), else the types read from the data."""
        return cls("auto", mode)

    @classmethod
    def inferred(cls) -> "Schema":
        """The types read from the data; the contract is proposed until accepted. The dataset
        must not exist."""
        return cls("inferred")

    @classmethod
    def of_dataset(cls, mode: str = "append") -> "Schema":
        """The types the existing dataset declares; ``"append"`` adds rows, ``"overwrite"``
        replaces them (the definition stays as the catalog holds it)."""
        return cls("dataset", mode)

    @classmethod
    def declared(cls, columns: Union[Mapping[str, str], Iterable[Tuple[str, str]]]) -> "Schema":
        """The columns and their types (tarn's type text), in table order: a dict or pairs. The
        dataset must not exist."""
        items = columns.items() if isinstance(columns, Mapping) else columns
        pairs = [(str(k), str(v)) for k, v in items]
        if not pairs:
            raise ValueError("a declared schema names at least one column")
        return cls("declared", columns=pairs)

    def __repr__(self) -> str:
        if self.source == "declared":
            return f"Schema.declared({dict(self.columns)!r})"
        if self.source == "inferred":
            return "Schema.inferred()"
        name = "of_dataset" if self.source == "dataset" else self.source
        return f"Schema.{name}({self.mode!r})"


class PlanEntry:
    """One line of a contract's plan: ``column`` read as ``from_`` and written as ``to`` by
    ``action`` (keep, retag, widen, cast, unsupported, undeclared, ignored, missing);
    ``changes_values`` when values are converted, not relabelled; ``sample`` one real value;
    ``retyped`` when the caller chose ``to``."""

    __slots__ = ("column", "from_", "to", "action", "sample", "changes_values", "retyped")

    def __init__(self, j: Mapping[str, Any]) -> None:
        self.column: str = j["column"]
        self.from_: str = j["from"]
        self.to: str = j["to"]
        self.action: str = j["action"]
        self.sample: str = j.get("sample", "")
        self.changes_values = bool(j.get("changes_values", False))
        self.retyped = bool(j.get("retyped", False))

    def __str__(self) -> str:
        return f"{self.column}: {self.from_ or '-'} -> {self.to or '-'} ({self.action})"

    def __repr__(self) -> str:
        return (f"PlanEntry(column={self.column!r}, from_={self.from_!r}, to={self.to!r}, "
                f"action={self.action!r}, changes_values={self.changes_values!r})")


class Issue:
    """Something the plan says about a column: ``code`` (an error code, e.g.
    column_undeclared), ``column``, ``detail`` (also ``message``), ``severity`` ("blocking" or
    "warning"), ``fields`` (the error fields of the refusal it stands for, e.g. file, row,
    value, declared of value_not_castable)."""

    __slots__ = ("code", "column", "detail", "severity", "fields")

    def __init__(self, j: Mapping[str, Any]) -> None:
        self.code: str = j["code"]
        self.column: str = j.get("column", "")
        self.detail: str = j.get("detail", "")
        self.severity: str = j["severity"]
        self.fields = errors.typed_fields(j.get("fields") or {})

    @property
    def blocking(self) -> bool:
        return self.severity == "blocking"

    @property
    def message(self) -> str:
        return self.detail

    def __repr__(self) -> str:
        return (f"Issue(code={self.code!r}, column={self.column!r}, detail={self.detail!r}, "
                f"severity={self.severity!r})")


def _samples(samples: Samples) -> List[Tuple[str, bytes, str]]:
    out = []
    for s in samples:
        if len(s) not in (2, 3):
            raise TypeError("a sample is (name, bytes) or (name, bytes, content_type)")
        name, data = s[0], s[1]
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"the sample {name!r} holds {type(data).__name__}, not bytes")
        out.append((str(name), bytes(data), s[2] if len(s) == 3 and s[2] else ""))
    return out


def _paths(files: Files) -> List[str]:
    if isinstance(files, (str, os.PathLike)):
        return [os.fspath(files)]
    return [os.fspath(f) for f in files]


class Contract:
    """An upload's agreement on column types (docs/design/upload.md), as last read: ``id``,
    ``state`` (proposed, accepted, writing, committed, stale, abandoned, expired), ``plan``,
    ``values``, ``issues``, ``blocking``, ``fingerprint``; ``info`` holds every field of the
    API's contract object (files, parts, rows_written, committed, ...). Its calls act on the
    live contract and update these attributes; ``refresh()`` reads them again."""

    def __init__(self, uploads: _tarn.Uploads, info: Record, paths: Sequence[str] = ()) -> None:
        self._u = uploads
        self._paths = list(paths)
        self._set(info)

    def _set(self, info: Record) -> None:
        self.info = info
        self.plan = [PlanEntry(e) for e in info["plan"]]
        self.issues = [Issue(i) for i in info["issues"]]

    @property
    def id(self) -> str:
        return str(self.info["id"])

    @property
    def state(self) -> str:
        """proposed, accepted, writing, committed, stale, abandoned or expired."""
        return str(self.info["state"])

    @property
    def target(self) -> str:
        """workspace.collection.dataset."""
        return str(self.info["target"])

    @property
    def fingerprint(self) -> str:
        return str(self.info["fingerprint"])

    @property
    def mode(self) -> str:
        """create, append or overwrite."""
        return str(self.info["mode"])

    @property
    def schema_source(self) -> str:
        """Where the types came from: declared, inferred or dataset."""
        return str(self.info["schema_source"])

    @property
    def rows_written(self) -> int:
        return int(self.info["rows_written"])

    @property
    def committed(self) -> Optional[Record]:
        """The commit's result once committed, else None."""
        result: Optional[Record] = self.info.get("committed")
        return result

    @property
    def values(self) -> Dict[str, str]:
        """One real value per column, from the samples ("" when all null)."""
        return {e.column: e.sample for e in self.plan}

    @property
    def blocking(self) -> bool:
        """True while an issue stops writes (resolve it by retype or ignore)."""
        return any(i.blocking for i in self.issues)

    def __repr__(self) -> str:
        return f"<tarn.Contract {self.id} {self.state} -> {self.target}>"

    @native
    def refresh(self) -> "Contract":
        self._set(record(self._u.get_contract(self.id)))
        return self

    @native
    def retype(self, **types: str) -> "Contract":
        """Writes these columns as these types (``source_ip="IPV4"``); the contract returns to
        proposed and must be accepted again."""
        self._set(record(self._u.retype(self.id, {k: str(v) for k, v in types.items()})))
        return self

    @native
    def ignore(self, *columns: str) -> "Contract":
        """Reads these columns and does not write them; the contract returns to proposed."""
        self._set(record(self._u.ignore(self.id, list(columns))))
        return self

    @native
    def accept(self) -> "Contract":
        """Agrees to the plan as last read (its fingerprint is echoed: ProposalChanged when it
        moved since)."""
        self._set(record(self._u.accept(self.id, self.fingerprint)))
        return self

    @native
    def write(self, path: Union[str, "os.PathLike[str]"], progress: Progress = None) -> Record:
        """Streams a local file into the contract as one part (converted and staged; nothing is
        visible before commit). ``progress(done, total)`` is called with the input bytes read
        so far and the total (-1 when unknown); when it raises, the write stops, stages
        nothing, and its exception is raised. Ctrl-C stops it the same way (KeyboardInterrupt).
        Returns the part (rows, bytes_read, bytes_written, ...)."""
        try:
            part: Record = record(self._u.write(self.id, os.fspath(path), progress))["part"]
            return part
        finally:
            self._refresh_quietly()

    def write_all(self, paths: Optional[Files] = None,
                  progress: Progress = None) -> List[Record]:
        """Writes each file, one part each: ``paths``, or the files this contract was negotiated
        with in this process."""
        if paths is None:
            if not self._paths:
                raise ValueError("this contract was not negotiated from files here: pass the "
                                 "paths to write_all")
            paths = self._paths
        return [self.write(p, progress=progress) for p in _paths(paths)]

    @native
    def write_bytes(self, data: Union[bytes, bytearray, memoryview], name: str,
                    content_type: Optional[str] = None, progress: Progress = None) -> Record:
        """Writes a part held in memory; ``name`` carries the format and codec suffixes
        (``gateway-0000.ndjson.zst``), ``content_type`` is optional. As ``write`` otherwise."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"write_bytes takes bytes, not {type(data).__name__}")
        try:
            part: Record = record(self._u.write_bytes(self.id, name, bytes(data),
                                                      content_type or "", progress))["part"]
            return part
        finally:
            self._refresh_quietly()

    @native
    def commit(self, message: str = "", idempotency_key: Optional[str] = None,
               author: str = "") -> Record:
        """Publishes every part as one snapshot (creating the dataset when the mode is create).
        A retry with the same ``idempotency_key`` returns the first commit's result
        (``idempotent_replay``). Returns target, snapshot_id, commit_id, rows_written, files,
        bytes, created_dataset, idempotent_replay."""
        try:
            return record(self._u.commit(self.id, message, idempotency_key, author))
        finally:
            self._refresh_quietly()

    @native
    def abandon(self) -> None:
        """Deletes what was staged; the contract ends abandoned (nothing was ever readable)."""
        self._u.abandon(self.id)
        self._refresh_quietly()

    def _refresh_quietly(self) -> None:
        # After a write or commit, successful or not, the state is read again when it can be;
        # the call's own outcome (returned or raised) is what the caller needs.
        try:
            self._set(record(self._u.get_contract(self.id)))
        except _tarn.Error:
            pass


_REQUIRED: Any = object()


def _blocking_error(contract: Contract) -> errors.TarnError:
    """The error of a contract's first blocking issue: its code's class, with the issue's
    column and fields, and contract_id."""
    issue = next(i for i in contract.issues if i.blocking)
    message = f"the plan cannot be written: {issue.code}"
    if issue.column:
        message += f" (column {issue.column})"
    if issue.detail:
        message += f": {issue.detail}"
    if issue.code == "column_undeclared":
        message += f"; ignore={[issue.column]!r} leaves it out"
    message += "; nothing was written"
    fields = {"code": issue.code, "column": issue.column, **issue.fields,
              "contract_id": contract.id}
    cls = errors.class_of(issue.code)
    if cls is errors.TarnError:  # a code this build does not know
        cls = errors.FailedPrecondition
    return cls(message, fields)


class UploadsMixin:
    """Client's upload calls: negotiate, contract, load."""

    _c: _tarn.Client

    @property
    def _uploads(self) -> _tarn.Uploads:
        u = self.__dict__.get("_uploads_native")
        if u is None:
            u = native(_tarn.Uploads)(self._c)
            assert isinstance(u, _tarn.Uploads)
            self.__dict__["_uploads_native"] = u
        return u

    @native
    def negotiate(self, target: Union[Target, str], files: Optional[Files] = None,
                  schema: Schema = _REQUIRED, *,
                  retype: Optional[Mapping[str, str]] = None,
                  ignore: Optional[Sequence[str]] = None, samples: Optional[Samples] = None,
                  ttl_s: Optional[int] = None) -> Contract:
        """A contract for uploading ``files`` (local paths, each sampled here: nothing is
        written) or ``samples`` (``(name, bytes[, content_type])`` of parts held in memory;
        exactly one of the two) into ``target``, with the types of ``schema`` (required:
        ``Schema.auto()``, ``inferred()``, ``of_dataset(mode)``, ``declared({...})``).
        ``retype`` and ``ignore`` are applied before the proposal is returned."""
        if schema is _REQUIRED:
            raise TypeError("negotiate() missing required argument: 'schema' (there is no "
                            "default: Schema.auto(), inferred(), of_dataset() or declared())")
        if not isinstance(schema, Schema):
            raise TypeError(f"schema is a tarn.Schema, not {type(schema).__name__}")
        if (files is None) == (samples is None):
            raise TypeError("negotiate takes exactly one of files or samples")
        paths = _paths(files) if files is not None else []
        held = _samples(samples) if samples is not None else []
        if not paths and not held:
            raise ValueError("negotiate needs at least one file or sample")
        info = record(self._uploads.negotiate(
            _target_name(target), paths, held, schema.source, schema.columns, schema.mode,
            {k: str(v) for k, v in (retype or {}).items()}, list(ignore or []), ttl_s))
        return Contract(self._uploads, info, paths)

    @native
    def contract(self, contract_id: str) -> Contract:
        """Reattaches to a contract by id (from this process or another) to continue it."""
        return Contract(self._uploads, record(self._uploads.get_contract(contract_id)))

    def load(self, files: Files, target: Union[Target, str], schema: Schema, *, message: str = "",
             idempotency_key: Optional[str] = None, author: str = "",
             retype: Optional[Mapping[str, str]] = None,
             ignore: Optional[Sequence[str]] = None, progress: Progress = None) -> Record:
        """negotiate, accept (a proposal without blocking issues: the types read or retyped
        are taken as they are), write every file, commit; returns the commit's result. A
        blocking issue raises its error (ColumnUndeclared, ValueNotCastable, ...) with nothing
        written. On any failure before the commit, the contract is abandoned."""
        contract = self.negotiate(target, files, schema, retype=retype, ignore=ignore)
        try:
            if contract.blocking:
                raise _blocking_error(contract)
            if contract.state == "proposed":
                contract.accept()
            contract.write_all(progress=progress)
        except BaseException:
            try:
                contract.abandon()
            except errors.TarnError:
                pass  # the error being raised says more
            raise
        return contract.commit(message=message, idempotency_key=idempotency_key, author=author)
