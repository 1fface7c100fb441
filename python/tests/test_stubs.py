"""The type stubs cover every public name: errors.pyi is what the registry gives today,
_tarn.pyi what the extension's bindings are, and the Python layer's public calls are annotated.
mypy (Debian's python3-mypy, --strict) checks the package against its stubs, and checks that a
user's script sees real types: a wrong call is reported, not taken as Any."""

import inspect
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import tarn
from tarn import errors

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_generated_stubs_match_the_extension():
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


def mypy(tmp_path, *targets):
    """mypy --strict (python/pyproject.toml's settings) over `targets`, with the package under
    test importable; (exit code, output)."""
    site = pathlib.Path(tarn.__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file",
                        str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
                        "--no-error-summary", *targets],
                       capture_output=True, text=True, cwd=site,
                       env=dict(os.environ, MYPYPATH=str(site)))
    return r.returncode, r.stdout + r.stderr


def test_the_package_type_checks_strictly(tmp_path):
    code, out = mypy(tmp_path, "-p", "tarn")
    assert code == 0, out


def test_a_users_script_sees_the_types(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(textwrap.dedent("""
        import datetime
        from typing import Iterator, List, Optional
        import tarn

        c: tarn.Client = tarn.connect("/tmp/cat", client_id=None)
        ds: tarn.Dataset = c.create_dataset("w.c.d", {"id": "INT64 NOT NULL"})
        ds = c.load_dataset("w.c.d", at=datetime.datetime(2026, 1, 1))
        snap: tarn.Record = ds.append(object(), author="me", idempotency_key="k")
        n: Optional[int] = ds.snapshot_id
        history: Iterator[tarn.Record] = ds.snapshots(reverse=True)
        rows = ds.scan(columns=["id"], where="id > 1", at="v1").to_pandas()
        contract: tarn.Contract = c.negotiate(tarn.Target("w", "c", "d"), "a.csv",
                                              tarn.Schema.declared({"id": "INT64"}))
        columns: List[str] = [e.column for e in contract.plan if e.changes_values]
        state: str = contract.retype(id="INT32").accept().state
        try:
            contract.commit(message="m")
        except tarn.errors.ValueNotCastable as e:
            where: int = e.row
    """))
    code, out = mypy(tmp_path, str(good))
    assert code == 0, out

    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent("""
        import tarn
        c = tarn.connect("/tmp/cat")
        ds = c.load_dataset("w.c.d", at=1.5)
        ds.append(object(), author=3)
        n: int = ds.snapshot_id
        ds.scan(columns="id", where=None)
        c.negotiate(tarn.Target("w", "c", "d"), "a.csv", "auto")
        c.create_dataset("w.c.e", 42)
        x: int = c.contract("id").plan[0].column
        c.no_such_call()
    """))
    code, out = mypy(tmp_path, str(bad))
    found = {int(line): kind for line, kind in
             re.findall(r"bad\.py:(\d+): error: .*\[([a-z-]+)\]$", out, re.MULTILINE)}
    # Every line after the first two is a mistake a user could make, reported as what it is
    # (a call whose types were lost would say no-untyped-call instead). columns="id" is an
    # Iterable[str] too, so line 7 is flagged for where=None alone.
    assert code == 1 and found == {4: "arg-type", 5: "arg-type", 6: "assignment",
                                   7: "arg-type", 8: "arg-type", 9: "arg-type",
                                   10: "assignment", 11: "attr-defined"}, out


def test_pip_installs_the_package_with_its_stubs(tmp_path):
    # As the README says: a venv over Debian's site packages, pip without a network, the
    # extension taken from the build directory under test.
    build = pathlib.Path(tarn.__file__).resolve().parent.parent.parent
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", TARN_BUILD_DIR=str(build))
    r = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-build-isolation",
                        str(ROOT)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    script = tmp_path / "use.py"
    script.write_text(textwrap.dedent(f"""
        import pathlib
        import tarn
        here = pathlib.Path(tarn.__file__).parent
        assert here.is_relative_to({str(venv)!r}), here
        assert {{"py.typed", "errors.pyi", "_tarn.pyi"}} <= {{p.name for p in here.iterdir()}}
        c: tarn.Client = tarn.connect({str(tmp_path / "cat")!r})
        c.create_workspace("w")
        print([w.name for w in c.list_workspaces()])
    """))
    r = subprocess.run([str(venv / "bin" / "python"), str(script)], capture_output=True,
                       text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "['w']", r.stdout + r.stderr
    # mypy run from the venv finds the installed package's types (no MYPYPATH).
    r = subprocess.run([str(venv / "bin" / "python"), "-m", "mypy", "--strict", "--cache-dir",
                        str(tmp_path / "cache"), str(script)], capture_output=True, text=True,
                       env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
