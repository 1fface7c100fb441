"""Small shared pieces of the tarn package: records with attribute access, `at` selectors, and
the decorator that turns the extension's errors into TarnError classes."""

from __future__ import annotations

import datetime
import functools
import json
from typing import Any, Optional, Tuple

from . import _tarn
from .errors import from_native


def native(fn):
    """Runs a call of the extension, raising the TarnError class of its error code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _tarn.Error as e:
            raise from_native(e) from None

    return wrapper


class Record(dict):
    """A JSON object of the API (the same fields as the HTTP API's, docs/openapi.json) whose
    keys also read as attributes: ``snap.snapshot_id`` is ``snap["snapshot_id"]``."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self):
        return list(super().__dir__()) + [k for k in self if isinstance(k, str)]


def records(text: str):
    """The extension's JSON text as Records (objects at every level)."""
    return json.loads(text, object_hook=Record)


def split_at(at) -> Tuple[Optional[int], Optional[int], Optional[str]]:
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
    if hasattr(at, "to_pydatetime"):  # pandas.Timestamp
        return split_at(at.to_pydatetime())
    raise TypeError(f"at takes a snapshot id, a tag or a datetime, not {type(at).__name__}")
