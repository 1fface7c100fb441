"""The dataset calls of the Python SDK, end to end: every test runs once on an embedded catalog
and once against `tarn serve` (the `catalog` fixture of conftest.py)."""

import datetime
import shutil
import time

import pandas as pd
import pytest

import tarn
from tarn import errors, ops


@pytest.fixture
def client(catalog):
    c = catalog
    c.create_workspace("w")
    c.create_collection("w.c")
    return c


def rows(ds, **kw):
    df = ds.scan(**kw).to_pandas()
    return sorted(df["id"].tolist())


def test_time_travel_by_id_tag_and_datetime(client):
    ds = client.create_dataset("w.c.d", "id INT64 NOT NULL, v VARCHAR")
    s1 = ds.append(pd.DataFrame({"id": [1, 2], "v": ["a", "b"]}), author="t")
    time.sleep(0.01)
    between = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(0.01)
    s2 = ds.append(pd.DataFrame({"id": [3], "v": ["c"]}), author="t", message="second")
    assert s2.snapshot_id == s1.snapshot_id + 1
    assert rows(ds) == [1, 2, 3]
    assert rows(ds, at=s1.snapshot_id) == [1, 2]
    assert rows(ds, at=between) == [1, 2]
    ds.create_tag("first", at=s1.snapshot_id)
    assert rows(ds, at="first") == [1, 2]
    assert [t.name for t in ds.tags()] == ["first"]
    assert client.load_dataset("w.c.d", at="first").snapshot_id == s1.snapshot_id
    assert ds.snapshot(at="first").snapshot_id == s1.snapshot_id
    with pytest.raises(errors.AlreadyExists):
        ds.create_tag("first")
    ds.create_tag("first", replace=True)
    ds.drop_tag("first")
    assert ds.tags() == []
    with pytest.raises(errors.NotFound):
        ds.scan(at="first").to_pandas()
    with pytest.raises(TypeError):
        ds.scan(at=1.5)
    back = ds.rollback(s1.snapshot_id, author="t")
    assert rows(ds) == [1, 2] and back.snapshot_id == s2.snapshot_id + 1


def test_snapshots_page_lazily_both_ways(client):
    ds = client.create_dataset("w.c.d", "id INT64")
    for i in range(7):
        ds.append(pd.DataFrame({"id": [i]}), author="t")
    assert [s.snapshot_id for s in ds.snapshots(page_size=3)] == list(range(1, 8))
    assert [s.snapshot_id for s in ds.snapshots(reverse=True, page_size=2)] == list(
        range(7, 0, -1))
    assert [s.snapshot_id for s in ds.snapshots(after=2, before=6, page_size=2)] == [3, 4, 5]
    it = ds.snapshots(page_size=2)
    assert next(it).snapshot_id == 1  # one page read so far; the rest when asked


def test_files_where_and_paging(client):
    ds = client.create_dataset("w.c.d", "id INT64, day DATE", partition_by="day")
    ds.append(pd.DataFrame({"id": [1, 2, 3], "day": ["2024-01-01", "2024-01-02",
                                                     "2024-01-03"]}), author="t")
    files = list(ds.files(page_size=2))
    assert len(files) == 3 and sum(f.file.record_count for f in files) == 3
    assert [f.file.path for f in files] == sorted(f.file.path for f in files)
    assert len(list(ds.files(where="day = '2024-01-02'"))) == 1
    with pytest.raises(errors.InvalidArgument):
        list(ds.files(where="nope = 1"))


def test_changes_and_consumer_offsets(client):
    ds = client.create_dataset("w.c.d", "id INT64")
    ds.append(pd.DataFrame({"id": [1, 2]}), author="t")
    ds.append(pd.DataFrame({"id": [3]}), author="t")
    assert ds.offset("etl") is None
    ch = ds.changes(from_snapshot=0)
    assert ch.to_snapshot_id == 2
    ds.commit_offset("etl", ch.to_snapshot_id)
    assert ds.offset("etl") == 2
    with pytest.raises(errors.OffsetRegression):
        ds.commit_offset("etl", 1)
    ds.delete("id = 1", author="t")
    ch = ds.changes(from_snapshot=ds.offset("etl"))
    assert ch.from_snapshot_id == 2 and ch.to_snapshot_id == 3


def test_alter_properties_partitioning_rename_drop(client):
    ds = client.create_dataset("w.c.d", "id INT32 NOT NULL, n INT32")
    ds.append(pd.DataFrame({"id": [1], "n": [5]}), author="t")
    ds.alter([ops.add_column("score", "FLOAT64"), ops.rename_column("n", "count"),
              ops.promote_column("id", "INT64")])
    assert [(f.name, f.type) for f in ds.schema] == [("id", "INT64"), ("count", "INT32"),
                                                     ("score", "FLOAT64")]
    df = ds.scan().to_pandas()
    assert df["count"].tolist() == [5] and df["score"].isna().all()
    with pytest.raises(errors.ColumnNotFound):
        ds.alter("drop nope")
    with pytest.raises(ValueError):
        ops.drop_column("two words")
    ds.set_properties({"owner": "data-eng"})
    assert ds.properties["owner"] == "data-eng"
    ds.set_properties(unset=["owner"])
    assert "owner" not in ds.properties
    ds.set_partition_spec("bucket(4, id)")
    assert ds.info.spec.fields[0].transform == "bucket[4]"
    client.set_properties("w.c", {"team": "x"})
    assert [c.properties for c in client.list_collections("w")] == [{"team": "x"}]
    ds.rename("e")
    assert ds.name == "w.c.e"
    assert [d.name for d in client.list_datasets("w.c")] == ["w.c.e"]
    with pytest.raises(errors.NotFound):
        client.load_dataset("w.c.d")
    old = client.load_dataset("w.c.e")
    ds.drop()
    client.create_dataset("w.c.e", "id INT64")
    with pytest.raises(errors.IncarnationChanged):
        old.drop()
    with pytest.raises(errors.DeletionProtected):
        client.drop_dataset("w.c.e", purge=True)
    client.drop_dataset("w.c.e")
    assert client.list_datasets("w.c") == []


def test_expire_keeps_what_offsets_need(client):
    ds = client.create_dataset("w.c.d", "id INT64")
    for i in range(3):
        ds.append(pd.DataFrame({"id": [i]}), author="t")
    ds.commit_offset("etl", 1)
    kept = ds.expire(datetime.timedelta(seconds=-1))
    assert kept.expired_through == 1  # the consumer reads on from snapshot 1
    gone = ds.expire(datetime.timedelta(seconds=-1), respect_consumer_offsets=False)
    assert gone.expired_snapshots == 1 and gone.expired_through == 2
    with pytest.raises(errors.SnapshotExpired):
        ds.scan(at=1).to_pandas()
    with pytest.raises(TypeError):
        ds.expire(5)


def test_flush_inlined_writes_out_what_a_small_append_kept(client):
    ds = client.create_dataset("w.c.d", "id INT64")
    ds.set_properties({"inline.max_bytes": "65536"})
    ds.append(pd.DataFrame({"id": [1, 2, 3]}), author="t")
    first = ds.flush_inlined()
    assert (first.dataset, first.files_written) == ("w.c.d", 1) and first.bytes_written > 0
    again = ds.flush_inlined()
    assert (again.files_written, again.bytes_written) == (0, 0)
    assert rows(ds) == [1, 2, 3]
    ds.drop()
    with pytest.raises(errors.NotFound):
        ds.flush_inlined()


def test_add_files_registers_parquet_already_in_the_warehouse(tmp_path):
    # Embedded: the test places the file in the warehouse directory itself.
    client = tarn.connect(str(tmp_path / "cat"))
    client.create_workspace("w")
    client.create_collection("w.c")
    src = client.create_dataset("w.c.src", "id INT64")
    src.append(pd.DataFrame({"id": [1, 2, 3]}), author="t")
    (path,) = [f.file.path for f in src.files()]
    dst = client.create_dataset("w.c.dst", "id INT64")
    with pytest.raises(errors.PathNotOwned):  # another dataset's file
        dst.add_files([path], author="t")
    own = f"datasets/{dst.uuid}/data/imported.parquet"
    warehouse = tmp_path / "cat" / "warehouse"
    (warehouse / own).parent.mkdir(parents=True)
    shutil.copy(warehouse / path, warehouse / own)
    snap = dst.add_files([own], author="t", idempotency_key="import-1")
    assert snap.operation == "add_files" and rows(dst) == [1, 2, 3]
    assert dst.add_files([own], author="t", idempotency_key="import-1").snapshot_id == \
        snap.snapshot_id  # the same key: the first commit's snapshot
    with pytest.raises(errors.FileNotFound):
        dst.add_files([f"datasets/{dst.uuid}/data/missing.parquet"], author="t")


def test_an_append_with_the_same_idempotency_key_commits_once(client):
    ds = client.create_dataset("w.c.d", "id INT64")
    first = ds.append(pd.DataFrame({"id": [1]}), author="t", idempotency_key="batch-7")
    again = ds.append(pd.DataFrame({"id": [1]}), author="t", idempotency_key="batch-7")
    assert again.snapshot_id == first.snapshot_id
    assert rows(ds) == [1] and len(list(ds.snapshots())) == 1


def test_sql_to_pandas_and_into(client):
    ds = client.create_dataset("w.c.d", "id INT64, v VARCHAR")
    ds.append(pd.DataFrame({"id": [1, 2, 3], "v": ["a", "b", "c"]}), author="t")
    df = client.sql("SELECT id, upper(v) AS u FROM w.c.d WHERE id > 1 ORDER BY id")
    assert df["id"].tolist() == [2, 3] and df["u"].tolist() == ["B", "C"]
    assert df.attrs["reads"][0].dataset == "w.c.d"
    out = client.sql("SELECT id * 10 AS id, v FROM w.c.d", into="w.c.big", mode="create",
                     author="t")
    assert out.created and out.rows == 3 and out.snapshot.snapshot_id == 1
    assert rows(client.load_dataset("w.c.big")) == [10, 20, 30]
    client.sql("SELECT 40 AS id, 'x' AS v", into="w.c.big", author="t")
    assert rows(client.load_dataset("w.c.big")) == [10, 20, 30, 40]
    with pytest.raises(errors.SqlSyntaxError):
        client.sql("SELEKT 1")
    with pytest.raises(errors.InvalidArgument):
        client.sql("SELECT 1 AS id", into="w.c.big", mode="upsert", author="t")


def test_overwrite_everything_or_where(client):
    ds = client.create_dataset("w.c.d", "id INT64 NOT NULL, v VARCHAR")
    ds.append(pd.DataFrame({"id": [1, 2, 3], "v": ["a", "b", "c"]}), author="t")
    snap = ds.overwrite(pd.DataFrame({"id": [2], "v": ["B"]}), where="id >= 2", author="t")
    assert snap.operation == "merge"
    df = ds.scan().to_pandas().sort_values("id")
    assert df["id"].tolist() == [1, 2] and df["v"].tolist() == ["a", "B"]
    snap = ds.overwrite(pd.DataFrame({"id": [9], "v": ["z"]}), author="t", message="all")
    assert snap.operation == "overwrite"
    assert rows(ds) == [9]
    assert rows(ds, at=snap.snapshot_id - 1) == [1, 2]
    # An Arrow C stream overwrites too (a scan of another dataset).
    other = client.create_dataset("w.c.o", "id INT64 NOT NULL, v VARCHAR")
    other.append(pd.DataFrame({"id": [5, 6], "v": ["x", "y"]}), author="t")
    ds.overwrite(other.scan(), author="t")
    assert rows(ds) == [5, 6]
    with pytest.raises(errors.InvalidArgument):
        ds.overwrite(pd.DataFrame({"id": [1], "v": ["q"]}), where="nope = 1", author="t")
    assert rows(ds) == [5, 6]
