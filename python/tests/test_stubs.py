"""The type stubs cover every public name: errors.pyi is what the registry gives today, and the
Python layer's public calls are annotated."""

import inspect
import os
import pathlib
import subprocess
import sys

import tarn
from tarn import errors

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_errors_stub_matches_the_registry():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_stubs.py"), "--check"],
                       capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr


def test_every_error_code_has_a_class_with_its_fields():
    stub = (ROOT / "tarn" / "errors.pyi").read_text()
    for name, kind, _, _, fields in tarn._tarn.error_codes():
        cls = errors.class_of(name)
        assert cls.code == name and cls.kind == kind
        assert f"class {cls.__name__}(" in stub
        assert issubclass(cls, errors.TarnError)


def test_public_calls_are_annotated():
    missing = []
    for name in tarn.__all__:
        obj = getattr(tarn, name)
        members = inspect.getmembers(obj, inspect.isfunction) if inspect.isclass(obj) else [
            (name, obj)] if inspect.isfunction(obj) else []
        for member, fn in members:
            if member.startswith("_"):
                continue
            sig = inspect.signature(fn)
            if sig.return_annotation is inspect.Signature.empty:
                missing.append(f"{name}.{member}")
    assert missing == [], missing
