"""tarn's errors: one exception class per error code of the C++ registry, under TarnError.

The classes are made at import from ``_tarn.error_codes()`` (the same registry the HTTP API and
the CLI use), so no code is missed: ``value_not_castable`` is ``ValueNotCastable``. Between
``TarnError`` and a code's class is its kind's class (``NotFound``, ``Conflict``, ...; the kind's
own code, e.g. ``not_found``, is that class). Each error carries ``code``, ``kind``,
``retryable`` and its fields (``e.column``, ``e.row``...) as attributes.
"""

from __future__ import annotations

from typing import Any, Dict, Type

from . import _tarn


# Fields whose values are counts or ids: attributes of int (the others are str).
INTEGER_FIELDS = frozenset({"row", "written_rows", "snapshot_id", "current_snapshot_id",
                            "expired_through", "position", "line", "limit", "offset"})


def typed_fields(fields: Dict[str, Any]) -> Dict[str, Any]:
    """Error fields with the INTEGER_FIELDS as int (a value that is no number stays text)."""
    out = dict(fields)
    for key in INTEGER_FIELDS.intersection(out):
        try:
            out[key] = int(out[key])
        except (TypeError, ValueError):
            pass
    return out


class TarnError(Exception):
    code: str = ""
    kind: str = ""
    retryable: bool = False
    http_status: int = 500

    def __init__(self, message: str, fields: Dict[str, str] | None = None):
        super().__init__(message)
        self.message = message
        self.fields: Dict[str, Any] = typed_fields(fields or {})
        for key, value in self.fields.items():
            if key.isidentifier() and not hasattr(TarnError, key):
                setattr(self, key, value)


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


_BY_CODE: Dict[str, Type[TarnError]] = {}
_BY_KIND: Dict[str, Type[TarnError]] = {}


def _build() -> None:
    codes = _tarn.error_codes()
    kinds = {kind for _, kind, _, _, _ in codes}
    for name, kind, http, retryable, fields in codes:
        if name == kind:  # the kind's own code: the kind's class
            cls = type(_camel(name), (TarnError,), {"code": name, "kind": kind,
                                                   "retryable": retryable, "http_status": http,
                                                   "__doc__": f"tarn error kind {name}"})
            _BY_KIND[kind] = cls
            _BY_CODE[name] = cls
    for kind in kinds:
        if kind not in _BY_KIND:
            _BY_KIND[kind] = type(_camel(kind), (TarnError,), {"kind": kind})
    for name, kind, http, retryable, fields in codes:
        if name in _BY_CODE:
            continue
        _BY_CODE[name] = type(_camel(name), (_BY_KIND[kind],),
                              {"code": name, "kind": kind, "retryable": retryable,
                               "http_status": http,
                               "__doc__": f"tarn error {name} (fields: {fields or 'none'})"})
    globals().update({cls.__name__: cls for cls in _BY_CODE.values()})
    globals().update({cls.__name__: cls for cls in _BY_KIND.values()})


_build()


def class_of(code: str) -> Type[TarnError]:
    """The class of an error code (TarnError for a code this build does not know)."""
    return _BY_CODE.get(code, TarnError)


def from_native(err: _tarn.Error) -> TarnError:
    """The TarnError for a _tarn.Error(message, code, kind, fields)."""
    message, code, kind, fields = err.args
    cls = _BY_CODE.get(code) or _BY_KIND.get(kind) or TarnError
    out = cls(message, fields)
    if cls is TarnError or not out.code:
        out.code, out.kind = code, kind
    return out
