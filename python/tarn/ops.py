"""Schema changes for ``Dataset.alter``, in the words the CLI takes (`tarn dataset alter`):

    ds.alter([ops.add_column("score", "FLOAT64"), ops.rename_column("n", "count")])
"""

from __future__ import annotations

from typing import Optional


def _q(name: str) -> str:
    if not name or any(ch.isspace() for ch in name):
        raise ValueError(f"column name {name!r}: schema changes name columns by one word")
    return name


def add_column(name: str, type_: str, after: Optional[str] = None, first: bool = False) -> str:
    """A nullable column (its rows read as null until written)."""
    out = f"add {_q(name)} {type_}"
    if first:
        out += " FIRST"
    elif after is not None:
        out += f" AFTER {_q(after)}"
    return out


def drop_column(name: str) -> str:
    return f"drop {_q(name)}"


def rename_column(name: str, new_name: str) -> str:
    return f"rename {_q(name)} TO {_q(new_name)}"


def promote_column(name: str, type_: str) -> str:
    """A lossless widening: INT32 to INT64, FLOAT32 to FLOAT64, DECIMAL(p,s) to a larger p."""
    return f"promote {_q(name)} {type_}"


def move_column(name: str, after: Optional[str] = None, first: bool = False) -> str:
    if first and after is None:
        return f"move {_q(name)} FIRST"
    if not first and after is not None:
        return f"move {_q(name)} AFTER {_q(after)}"
    raise ValueError("move_column takes either after= or first=True")


def set_nullable(name: str) -> str:
    return f"set nullable {_q(name)}"
