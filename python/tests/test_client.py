import pytest

import tarn
from tarn import errors


def test_embedded_catalog_round_trip(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    assert not c.remote
    c.create_workspace("w")
    c.create_collection("w.c")
    ds = c.create_dataset("w.c.d", {"id": "INT64 NOT NULL", "name": "VARCHAR"})
    assert [f.name for f in ds.info.schema.fields] == ["id", "name"]
    assert [w["name"] for w in c.list_workspaces()] == ["w"]
    assert list(ds.snapshots()) == []


def test_errors_are_classes_per_code_with_fields(tmp_path):
    c = tarn.connect(str(tmp_path / "cat"))
    c.create_workspace("w")
    with pytest.raises(errors.AlreadyExists) as e:
        c.create_workspace("w")
    assert isinstance(e.value, tarn.TarnError)
    with pytest.raises(errors.NotFound) as e:
        c.load_dataset("w.c.nope")
    assert e.value.code in ("collection_not_found", "dataset_not_found")
    assert type(e.value).__name__ in ("CollectionNotFound", "DatasetNotFound")
    assert e.value.retryable is False
