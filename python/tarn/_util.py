"""Small shared pieces of the tarn package: records with attribute access, `at` selectors, and
the decorator that turns the extension's errors into TarnError classes."""

from __future__ import annotations

import datetime
import functools
import json
from typing import Any, Callable, Dict, List, Optional, ParamSpec, Tuple, TypeVar, Union, cast

from . import _tarn
from .errors import from_native

P = ParamSpec("P")
R = TypeVar("R")


def native(fn: Callable[P, R]) -> Callable[P, R]:
    """Runs a call of the extension, raising the TarnError class of its error code. The call
    keeps its signature for type checkers."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except _tarn.Error as e:
            raise from_native(e) from None

    return wrapper


#: A point in a dataset's history: a snapshot id (int), a tag (str), a time (a datetime, naive
#: meaning UTC; a pandas Timestamp is one) or None for the current snapshot.
At = Union[int, str, datetime.datetime, None]


class Record(Dict[str, Any]):
    """A JSON object of the API (the same fields as the HTTP API's, docs/openapi.json) whose
    keys also read as attributes: ``snap.snapshot_id`` is ``snap["snapshot_id"]``."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self) -> List[str]:
        return list(super().__dir__()) + [k for k in self if isinstance(k, str)]


def record(text: str) -> Record:
    """A JSON object the extension returned, as a Record (objects at every level)."""
    return cast(Record, json.loads(text, object_hook=Record))


def record_list(text: str) -> List[Record]:
    """A JSON array of objects the extension returned, as Records."""
    return cast(List[Record], json.loads(text, object_hook=Record))


def split_at(at: At) -> Tuple[Optional[int], Optional[int], Optional[str]]:
    """`at` as (snapshot id, microseconds since the epoch, tag): an int is a snapshot id, a str
    a tag, a datetime a time (naive: UTC), None the current snapshot."""
    if at is None:
        return None, None, None
    if isinstance(at, bool):
        raise TypeError("at takes a snapshot id, a tag or a datetime, not a bool")
    if isinstance(at, int):
        return at, None, None
    if isinstance(at, str):
        return None, None, at
    if isinstance(at, datetime.datetime):
        if at.tzinfo is None:
            at = at.replace(tzinfo=datetime.timezone.utc)
        delta = at - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return None, (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds, None
    raise TypeError(f"at takes a snapshot id, a tag or a datetime, not {type(at).__name__}")
