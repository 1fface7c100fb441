"""Uploads from Python (docs/design/python.md "Uploads"): the upload seed's flows through
tarn._tarn.Uploads, embedded and (the tests taking `catalog`) against `tarn serve` too."""

import os
import signal
import subprocess
import threading
import time

import pandas as pd
import pytest

import tarn
from tarn import Schema, Target, errors

ROWS = "id,name,ip,score\n1,a,10.0.0.1,1.5\n2,b,10.0.0.2,2\n3,c,,-0.25\n"


def make_collection(client):
    client.create_workspace("w")
    client.create_collection("w.c")


def csv(tmp_path, name, text=ROWS):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def rows(client, name, columns=None):
    df = client.load_dataset(name).scan(columns=columns).to_pandas()
    return df.sort_values(df.columns[0]).reset_index(drop=True)


def big_csv(tmp_path, mib):
    """A CSV of about `mib` MiB (1 MiB blocks of rows, repeated), whose write takes seconds."""
    block = "".join(f"{i},name-{i % 997},{i * 0.5}\n" for i in range(40000))
    block = block * max(1, (1 << 20) // len(block))
    path = tmp_path / "big.csv"
    with open(path, "w") as f:
        f.write("id,name,score\n")
        for _ in range(mib):
            f.write(block)
    return str(path)


# ---- schema sources ----

def test_auto_on_a_new_dataset_reads_the_types_and_waits_for_accept(catalog, tmp_path):
    make_collection(catalog)
    k = catalog.negotiate(Target("w", "c", "d"), [csv(tmp_path, "a.csv")], Schema.auto())
    assert k.id.startswith("ct_")
    assert (k.state, k.mode, k.schema_source, k.info.requested_source) == (
        "proposed", "create", "inferred", "auto")
    assert [(e.column, e.from_, e.to, e.action) for e in k.plan] == [
        ("id", "INT64", "INT64", "keep"), ("name", "VARCHAR", "VARCHAR", "keep"),
        ("ip", "IPV4", "IPV4", "keep"), ("score", "FLOAT64", "FLOAT64", "keep")]
    assert not any(e.changes_values for e in k.plan)
    assert k.values == {"id": "1", "name": "a", "ip": "10.0.0.1", "score": "1.5"}
    assert k.issues == [] and k.blocking is False
    assert len(k.fingerprint) == 32
    with pytest.raises(errors.ContractNotAccepted) as e:
        k.write(csv(tmp_path, "a.csv"))
    assert e.value.state == "proposed"


def test_auto_on_an_existing_dataset_uses_its_types(catalog, tmp_path):
    make_collection(catalog)
    catalog.create_dataset("w.c.d", "id INT32 NOT NULL, name VARCHAR, ip IPV4, "
                           "score DECIMAL(10,2)")
    k = catalog.negotiate("w.c.d", [csv(tmp_path, "a.csv")], Schema.auto())
    assert (k.state, k.mode, k.schema_source) == ("accepted", "append", "dataset")
    plan = {e.column: e for e in k.plan}
    assert (plan["id"].from_, plan["id"].to, plan["id"].action) == ("INT64", "INT32", "cast")
    assert plan["id"].changes_values is True
    assert (plan["score"].to, plan["score"].action) == ("DECIMAL(10,2)", "cast")
    assert (plan["name"].action, plan["name"].changes_values) == ("keep", False)
    with pytest.raises(errors.RetypeNotAllowed) as e:
        k.retype(id="INT64")
    assert e.value.column == "id"


def test_inferred_refuses_an_existing_dataset(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    make_collection(c)
    k = c.negotiate("w.c.d", [csv(tmp_path, "a.csv")], Schema.inferred())
    assert (k.state, k.schema_source, k.mode) == ("proposed", "inferred", "create")
    k.accept()
    k.write_all()
    k.commit(message="first")
    with pytest.raises(errors.DatasetExists) as e:
        c.negotiate("w.c.d", [csv(tmp_path, "a.csv")], Schema.inferred())
    assert e.value.dataset == "w.c.d"


def test_of_dataset_append_and_overwrite(catalog, tmp_path):
    make_collection(catalog)
    catalog.create_dataset("w.c.d", "id INT64 NOT NULL, name VARCHAR")
    first = csv(tmp_path, "first.csv", "id,name\n1,a\n2,b\n")
    second = csv(tmp_path, "second.csv", "id,name\n3,c\n")
    k = catalog.negotiate("w.c.d", [first], Schema.of_dataset("append"))
    assert (k.state, k.mode, k.schema_source) == ("accepted", "append", "dataset")
    k.write_all()
    k.commit(message="append")
    k = catalog.negotiate("w.c.d", [second], Schema.of_dataset("append"))
    k.write_all()
    k.commit(message="append again")
    assert rows(catalog, "w.c.d")["id"].tolist() == [1, 2, 3]
    k = catalog.negotiate("w.c.d", [second], Schema.of_dataset("overwrite"))
    assert (k.state, k.mode) == ("accepted", "overwrite")
    k.write_all()
    k.commit(message="overwrite")
    assert rows(catalog, "w.c.d")["id"].tolist() == [3]
    fields = catalog.load_dataset("w.c.d").info.schema.fields
    assert [(f.name, f.type) for f in fields] == [("id", "INT64"), ("name", "VARCHAR")]
    with pytest.raises(errors.DatasetNotFound):
        catalog.negotiate("w.c.nope", [first], Schema.of_dataset())
    with pytest.raises(ValueError):
        Schema.of_dataset("replace")


def test_declared_types_and_its_issues(catalog, tmp_path):
    make_collection(catalog)
    path = csv(tmp_path, "a.csv")
    k = catalog.negotiate("w.c.d", [path], Schema.declared(
        {"id": "INT64", "name": "VARCHAR", "ip": "IPV4", "score": "DECIMAL(10,2)"}))
    assert (k.state, k.mode, k.schema_source) == ("accepted", "create", "declared")
    assert [e.to for e in k.plan] == ["INT64", "VARCHAR", "IPV4", "DECIMAL(10,2)"]
    assert {e.column: e.action for e in k.plan}["score"] == "cast"
    # A column the declaration leaves out blocks until it is ignored.
    k = catalog.negotiate("w.c.d", [path], Schema.declared({"id": "INT64", "name": "VARCHAR"}))
    assert k.state == "proposed" and k.blocking
    assert [(i.code, i.column, i.severity) for i in k.issues] == [
        ("column_undeclared", "ip", "blocking"), ("column_undeclared", "score", "blocking")]
    assert {e.column: e.action for e in k.plan}["ip"] == "undeclared"
    with pytest.raises(errors.ColumnUndeclared) as e:
        k.accept()
    assert e.value.column == "ip"
    k.ignore("ip", "score")
    assert not k.blocking and k.state == "proposed"
    k.accept()
    k.write(path)
    result = k.commit(message="declared")
    assert result.created_dataset and result.rows_written == 3
    df = rows(catalog, "w.c.d")
    assert list(df.columns) == ["id", "name"]
    assert df["name"].tolist() == ["a", "b", "c"]


# ---- the plan, retype, ignore, accept ----

def test_retype_ignore_accept_then_write_and_read_back(catalog, tmp_path):
    make_collection(catalog)
    path = csv(tmp_path, "a.csv")
    k = catalog.negotiate("w.c.d", [path], Schema.inferred())
    before = k.fingerprint
    assert k.retype(id="INT32", score="DECIMAL(10,2)") is k
    plan = {e.column: e for e in k.plan}
    assert (plan["id"].from_, plan["id"].to, plan["id"].action) == ("INT64", "INT32", "cast")
    assert plan["id"].changes_values and plan["id"].retyped
    assert not plan["name"].retyped
    assert k.state == "proposed" and k.fingerprint != before
    k.ignore("ip")
    plan = {e.column: e for e in k.plan}
    assert (plan["ip"].action, plan["ip"].to) == ("ignored", "")
    # Accepting echoes the fingerprint read: a proposal that moved since is refused.
    stale = catalog.contract(k.id)
    k.retype(name="JSON")
    with pytest.raises(errors.ProposalChanged) as e:
        stale.accept()
    assert e.value.fingerprint == k.fingerprint
    k.retype(name="VARCHAR")
    k.accept()
    assert k.state == "accepted"
    part = k.write(path)
    assert (part.rows, part.seq, part.name) == (3, 1, "a.csv")
    assert k.state == "writing" and k.rows_written == 3
    with pytest.raises(errors.ContractWriting):
        k.retype(id="INT64")
    result = k.commit(message="typed", idempotency_key="k1")
    assert (result.target, result.rows_written, result.created_dataset) == ("w.c.d", 3, True)
    assert k.state == "committed" and k.committed.snapshot_id == result.snapshot_id
    ds = catalog.load_dataset("w.c.d")
    assert [(f.name, f.type) for f in ds.info.schema.fields] == [
        ("id", "INT32"), ("name", "VARCHAR"), ("score", "DECIMAL(10,2)")]
    df = rows(catalog, "w.c.d")
    expected = pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b", "c"]})
    assert df["id"].astype("int64").tolist() == expected["id"].tolist()
    assert df["name"].tolist() == expected["name"].tolist()
    assert [str(v) for v in df["score"]] == ["1.50", "2.00", "-0.25"]


def test_abandon_leaves_nothing_and_ends_the_contract(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    make_collection(c)
    path = csv(tmp_path, "a.csv")
    k = c.negotiate("w.c.d", [path], Schema.inferred())
    k.accept()
    k.write(path)
    k.abandon()
    assert k.state == "abandoned"
    with pytest.raises(errors.TarnError):
        k.commit(message="too late")
    with pytest.raises(errors.DatasetNotFound):
        c.load_dataset("w.c.d")


# ---- writes ----

def test_write_bytes_of_parts_held_in_memory(catalog, tmp_path):
    make_collection(catalog)
    part = b'{"id": 1, "host": "a"}\n{"id": 2, "host": "b"}\n'
    name = "gateway-0000.ndjson"
    k = catalog.negotiate(Target("w", "c", "d"), schema=Schema.declared(
        {"id": "INT64", "host": "VARCHAR"}), samples=[(name, part)])
    assert k.state == "accepted"
    assert k.info.files[0].format == "ndjson"
    got = k.write_bytes(part, name, content_type="application/x-ndjson")
    assert got.rows == 2
    more = b'{"id": 3, "host": "c"}\n'
    assert k.write_bytes(more, "gateway-0001.ndjson").seq == 2
    k.commit(message="gateway")
    df = rows(catalog, "w.c.d")
    assert df["id"].tolist() == [1, 2, 3] and df["host"].tolist() == ["a", "b", "c"]
    with pytest.raises(TypeError):
        k.write_bytes("text, not bytes", name)
    with pytest.raises(TypeError):
        catalog.negotiate("w.c.e", [csv(tmp_path, "a.csv")], Schema.inferred(),
                          samples=[(name, part)])


def test_value_not_castable_carries_its_fields(catalog, tmp_path):
    make_collection(catalog)
    good = csv(tmp_path, "good.csv", "id,name\n1,a\n2,b\n")
    bad = csv(tmp_path, "bad.csv", "id,name\n3,c\nabc,d\n")
    declared = Schema.declared({"id": "INT64", "name": "VARCHAR"})
    # In a sample: a blocking issue at negotiation, with the refusal's fields.
    k = catalog.negotiate("w.c.d", [bad], declared)
    assert k.blocking and k.state == "proposed"
    (issue,) = k.issues
    assert (issue.code, issue.column, issue.blocking) == ("value_not_castable", "id", True)
    assert issue.fields["file"].endswith("bad.csv")
    assert {k: v for k, v in issue.fields.items() if k != "file"} == {
        "row": 2, "value": "abc", "declared": "INT64"}
    k.abandon()
    # Beyond the samples: the write that carries it raises, staging nothing.
    k = catalog.negotiate("w.c.d", [good], declared)
    k.write(good)
    with pytest.raises(errors.ValueNotCastable) as e:
        k.write(bad)
    err = e.value
    assert isinstance(err, errors.InvalidArgument) and isinstance(err, tarn.TarnError)
    assert (err.code, err.column, err.row, err.value, err.declared) == (
        "value_not_castable", "id", 2, "abc", "INT64")
    assert len(k.refresh().info.parts) == 1
    k.commit(message="the good part")
    assert rows(catalog, "w.c.d")["id"].tolist() == [1, 2]


def test_contract_stale_carries_the_diff_and_the_rows_written(tmp_path, tarn_bin):
    cat = str(tmp_path / "cat")
    c = tarn.connect(cat)
    make_collection(c)
    c.create_dataset("w.c.d", "id INT64, name VARCHAR")
    path = csv(tmp_path, "a.csv", "id,name\n1,a\n2,b\n")
    k = c.negotiate("w.c.d", [path], Schema.of_dataset("append"))
    k.write(path)
    # The dataset's definition moves after agreement (another writer, here the CLI).
    subprocess.run([tarn_bin, "dataset", "alter", "w.c.d",
                    "add extra VARCHAR", "--catalog", cat], check=True, capture_output=True)
    with pytest.raises(errors.ContractStale) as e:
        k.commit(message="stale")
    assert (e.value.code, e.value.diff, e.value.written_rows) == (
        "contract_stale", "+extra VARCHAR", 2)
    assert isinstance(e.value, errors.Stale)
    assert k.state == "stale"
    assert list(c.load_dataset("w.c.d").snapshots()) == []


def test_reattach_and_continue(catalog, tmp_path, request):
    make_collection(catalog)
    path = csv(tmp_path, "a.csv")
    k = catalog.negotiate("w.c.d", [path], Schema.inferred())
    k.accept()
    k.write(path)
    # Another client (another process, as far as the contract knows) picks it up by id.
    if catalog.remote:
        other = request.getfixturevalue("served").connect()
    else:
        other = tarn.connect(str(tmp_path / "cat"))
    again = other.contract(k.id)
    assert (again.id, again.state, again.target) == (k.id, "writing", "w.c.d")
    assert [e.column for e in again.plan] == [e.column for e in k.plan]
    assert again.fingerprint == k.fingerprint
    with pytest.raises(ValueError):
        again.write_all()  # the paths were negotiated elsewhere
    again.write_all([path])
    result = again.commit(message="reattached")
    assert result.rows_written == 6
    assert k.refresh().state == "committed"
    with pytest.raises(errors.ContractNotFound) as e:
        other.contract("ct_20260101000000_000000000000")
    assert e.value.contract_id == "ct_20260101000000_000000000000"


def test_commit_is_idempotent_on_its_key(catalog, tmp_path):
    make_collection(catalog)
    path = csv(tmp_path, "a.csv")
    k = catalog.negotiate("w.c.d", [path], Schema.inferred())
    k.accept()
    k.write(path)
    first = k.commit(message="nightly", idempotency_key="nightly-1")
    again = k.commit(message="nightly", idempotency_key="nightly-1")
    assert again.snapshot_id == first.snapshot_id and again.commit_id == first.commit_id
    assert (first.idempotent_replay, again.idempotent_replay) == (False, True)
    with pytest.raises(errors.AlreadyCommitted) as e:
        k.commit(message="nightly")
    assert e.value.snapshot_id == first.snapshot_id
    # A re-run of the pipeline step: another contract, the same key, the same snapshot.
    k2 = catalog.negotiate("w.c.d", [path], Schema.auto())
    k2.write(path)
    rerun = k2.commit(message="nightly", idempotency_key="nightly-1")
    assert rerun.snapshot_id == first.snapshot_id and rerun.idempotent_replay
    assert len(list(catalog.load_dataset("w.c.d").snapshots())) == 1
    assert len(rows(catalog, "w.c.d")) == 3


def test_load_in_one_call(catalog, tmp_path):
    make_collection(catalog)
    a = csv(tmp_path, "a.csv", "id,name\n1,a\n")
    b = csv(tmp_path, "b.csv", "id,name\n2,b\n3,c\n")
    result = catalog.load([a, b], "w.c.d", Schema.inferred(), message="nightly load")
    assert result.rows_written == 3 and result.created_dataset
    snap = list(catalog.load_dataset("w.c.d").snapshots())[-1]
    assert snap.snapshot_id == result.snapshot_id
    result = catalog.load(a, Target("w", "c", "d"), Schema.auto(), message="more")
    assert result.rows_written == 1
    assert rows(catalog, "w.c.d")["id"].tolist() == [1, 1, 2, 3]
    # A blocking issue raises its error, with nothing written.
    bad = csv(tmp_path, "bad.csv", "id,name\nx,a\n")
    with pytest.raises(errors.ValueNotCastable) as e:
        catalog.load([bad], "w.c.d", Schema.auto(), message="bad")
    assert (e.value.column, e.value.value, e.value.declared) == ("id", "x", "INT64")
    assert catalog.contract(e.value.contract_id).state == "abandoned"
    with pytest.raises(errors.ColumnUndeclared) as e:
        catalog.load([csv(tmp_path, "extra.csv", "id,name,extra\n9,z,1\n")], "w.c.d",
                     Schema.auto())
    assert e.value.column == "extra"
    assert len(list(catalog.load_dataset("w.c.d").snapshots())) == 2


def test_the_schema_has_no_default(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    make_collection(c)
    path = csv(tmp_path, "a.csv")
    with pytest.raises(TypeError, match="schema"):
        c.negotiate("w.c.d", [path])
    with pytest.raises(TypeError, match="schema"):
        c.load([path], "w.c.d")
    with pytest.raises(TypeError, match="Schema"):
        c.negotiate("w.c.d", [path], "auto")
    with pytest.raises(ValueError):
        c.negotiate("w.c", [path], Schema.auto())


# ---- progress and interruption ----

def test_progress_is_called_with_done_and_total(catalog, tmp_path):
    make_collection(catalog)
    path = big_csv(tmp_path, 4)
    size = os.path.getsize(path)
    k = catalog.negotiate("w.c.d", [path], Schema.inferred())
    k.accept()
    calls = []

    def progress(done, total):
        calls.append((done, total))

    k.write(path, progress=progress)
    assert len(calls) >= 2
    assert all(total == size for _, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert calls[-1] == (size, size)
    k.commit(message="with progress")


def test_a_raising_progress_callback_stops_the_write(catalog, tmp_path):
    make_collection(catalog)
    catalog.create_dataset("w.c.d", "id INT64, name VARCHAR, score FLOAT64")
    path = big_csv(tmp_path, 8)
    k = catalog.negotiate("w.c.d", [path], Schema.of_dataset("append"))
    seen = []

    def progress(done, total):
        seen.append(done)
        if len(seen) == 2:
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        k.write(path, progress=progress)
    assert len(seen) == 2  # not called again once it raised
    assert k.state == "accepted" and k.info.parts == [] and k.rows_written == 0
    with pytest.raises(errors.NothingWritten):
        k.commit(message="nothing")
    assert list(catalog.load_dataset("w.c.d").snapshots()) == []
    # The contract goes on: a write that completes, then the commit.
    small = csv(tmp_path, "small.csv", "id,name,score\n1,a,0.5\n")
    k.write(small)
    assert k.commit(message="after the stop").rows_written == 1


def test_ctrl_c_during_a_long_write(catalog, tmp_path):
    make_collection(catalog)
    catalog.create_dataset("w.c.d", "id INT64, name VARCHAR, score FLOAT64")
    path = big_csv(tmp_path, 400)
    k = catalog.negotiate("w.c.d", [path], Schema.of_dataset("append"))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            k.write(path)
    finally:
        timer.cancel()
    elapsed = time.monotonic() - start
    assert elapsed < 3.0, f"the write took {elapsed:.1f} s to stop"
    # Nothing staged, nothing committed; the contract is still usable.
    k.refresh()
    assert k.state == "accepted" and k.info.parts == [] and k.rows_written == 0
    assert list(catalog.load_dataset("w.c.d").snapshots()) == []
    small = csv(tmp_path, "small.csv", "id,name,score\n7,x,1.0\n")
    k.write(small)
    k.commit(message="after Ctrl-C")
    assert rows(catalog, "w.c.d")["id"].tolist() == [7]
    assert len(list(catalog.load_dataset("w.c.d").snapshots())) == 1


def test_ctrl_c_then_abandon(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    make_collection(c)
    path = big_csv(tmp_path, 200)
    k = c.negotiate("w.c.d", [path], Schema.inferred())
    k.accept()
    started = threading.Event()

    def interrupt():  # as soon as the write reports progress: the signal lands mid-write
        if started.wait(30):
            signal.raise_signal(signal.SIGINT)

    t = threading.Thread(target=interrupt)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            k.write(path, progress=lambda done, total: started.set())
    finally:
        started.set()
        t.join()
    assert k.state == "accepted"
    k.abandon()
    assert k.state == "abandoned"
    with pytest.raises(errors.DatasetNotFound):
        c.load_dataset("w.c.d")
