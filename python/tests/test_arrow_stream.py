"""The Arrow C stream of a scan, read by a consumer written here with ctypes (no pyarrow on
Debian 12): formats, lengths, validity bitmaps, values and offsets as the spec lays them out;
then the same stream appended into another dataset and read back."""

import ctypes
import os
import subprocess

import tarn


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.c_void_p),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                    ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                                  ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p)]


def stream_of(capsule):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(get(capsule, b"arrow_array_stream"), ctypes.POINTER(ArrowArrayStream))


def valid(array, i):
    bitmap = array.buffers[0]
    if not bitmap:
        return True
    byte = ctypes.cast(bitmap, ctypes.POINTER(ctypes.c_uint8))[(array.offset + i) // 8]
    return bool(byte >> ((array.offset + i) % 8) & 1)


def read(capsule):
    """(column names, formats, rows as tuples) of the stream in `capsule`."""
    s = stream_of(capsule).contents
    schema = ArrowSchema()
    assert s.get_schema(ctypes.byref(s), ctypes.byref(schema)) == 0
    assert schema.format == b"+s"
    names = [schema.children[i].contents.name.decode() for i in range(schema.n_children)]
    formats = [schema.children[i].contents.format.decode() for i in range(schema.n_children)]
    rows = []
    while True:
        batch = ArrowArray()
        assert s.get_next(ctypes.byref(s), ctypes.byref(batch)) == 0, s.get_last_error(s)
        if not batch.release:
            break
        assert batch.n_children == len(names)
        for r in range(batch.length):
            row = []
            for c, fmt in enumerate(formats):
                col = batch.children[c].contents
                if not valid(col, r):
                    row.append(None)
                elif fmt == "l":
                    assert col.n_buffers == 2
                    row.append(ctypes.cast(col.buffers[1], ctypes.POINTER(ctypes.c_int64))[col.offset + r])
                elif fmt == "U":
                    assert col.n_buffers == 3
                    offsets = ctypes.cast(col.buffers[1], ctypes.POINTER(ctypes.c_int64))
                    a, b = offsets[col.offset + r], offsets[col.offset + r + 1]
                    row.append(ctypes.string_at(col.buffers[2] + a, b - a).decode())
                else:
                    raise AssertionError(f"unexpected format {fmt}")
            rows.append(tuple(row))
        batch.release(ctypes.byref(batch))
    schema.release(ctypes.byref(schema))
    s.release(ctypes.byref(s))
    return names, formats, rows


def tarn_cli(*args):
    return subprocess.run([os.environ["TARN_BINARY"], *args], check=True, capture_output=True,
                          text=True).stdout


def test_scan_is_an_arrow_stream_a_ctypes_consumer_reads(tmp_path):
    cat = str(tmp_path / "cat")
    c = tarn.connect(cat)
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, name VARCHAR")
    csv = tmp_path / "a.csv"
    csv.write_text("id,name\n1,one\n2,\n3,three\n")
    tarn_cli("append", "w.c.d", str(csv), "--catalog", cat)
    names, formats, rows = read(c.load_dataset("w.c.d").scan().__arrow_c_stream__())
    assert names == ["id", "name"]
    assert formats == ["l", "U"]
    assert sorted(rows) == [(1, "one"), (2, None), (3, "three")]
    # Projection and a predicate.
    names, _, rows = read(c.load_dataset("w.c.d").scan(columns=["name"], where="id >= 2").__arrow_c_stream__())
    assert names == ["name"]
    assert len(rows) == 2 and set(rows) == {(None,), ("three",)}


def test_a_scan_appends_into_another_dataset(tmp_path):
    cat = str(tmp_path / "cat")
    c = tarn.connect(cat)
    c.create_workspace("w")
    c.create_collection("w.c")
    for d in ("src", "dst"):
        c.create_dataset(f"w.c.{d}", "id INT64 NOT NULL, name VARCHAR")
    csv = tmp_path / "a.csv"
    csv.write_text("id,name\n1,one\n2,\n")
    tarn_cli("append", "w.c.src", str(csv), "--catalog", cat)
    snap = c.load_dataset("w.c.dst").append(c.load_dataset("w.c.src").scan(), author="test", message="copy")
    assert snap["snapshot_id"] == 1
    assert snap["added_records"] == 2
    _, _, rows = read(c.load_dataset("w.c.dst").scan().__arrow_c_stream__())
    assert sorted(rows) == [(1, "one"), (2, None)]
    taken = c.load_dataset("w.c.src").scan()
    taken.__arrow_c_stream__()
    try:
        taken.__arrow_c_stream__()
        raise AssertionError("a stream was handed over twice")
    except ValueError:
        pass


def test_the_stream_is_read_batch_by_batch_and_released_early(tmp_path):
    cat = str(tmp_path / "cat")
    c = tarn.connect(cat)
    c.create_workspace("w")
    c.create_collection("w.c")
    c.create_dataset("w.c.d", "id INT64 NOT NULL, name VARCHAR")
    for f in range(10):
        csv = tmp_path / f"{f}.csv"
        csv.write_text("id,name\n" + "".join(f"{i},n{i}\n" if i % 7 else f"{i},\n"
                                             for i in range(f * 500, (f + 1) * 500)))
        tarn_cli("append", "w.c.d", str(csv), "--catalog", cat)
    names, formats, rows = read(c.load_dataset("w.c.d").scan().__arrow_c_stream__())
    assert sorted(rows) == [(i, f"n{i}" if i % 7 else None) for i in range(5000)]
    # Several arrays came through get_next, and a consumer may stop after the first: releasing
    # the stream stops its scan (the call returns; nothing waits for the rest).
    capsule = c.load_dataset("w.c.d").scan().__arrow_c_stream__()
    s = stream_of(capsule).contents
    arrays = 0
    while True:
        batch = ArrowArray()
        assert s.get_next(ctypes.byref(s), ctypes.byref(batch)) == 0
        if not batch.release:
            break
        arrays += 1
        batch.release(ctypes.byref(batch))
    assert arrays >= 10
    capsule = c.load_dataset("w.c.d").scan().__arrow_c_stream__()
    s = stream_of(capsule).contents
    batch = ArrowArray()
    assert s.get_next(ctypes.byref(s), ctypes.byref(batch)) == 0 and batch.length > 0
    batch.release(ctypes.byref(batch))
    s.release(ctypes.byref(s))
    del capsule  # the capsule sees a released stream
    # The Arrow stream of a scan appends into another dataset, batch by batch.
    c.create_dataset("w.c.e", "id INT64 NOT NULL, name VARCHAR")
    snap = c.load_dataset("w.c.e").append(c.load_dataset("w.c.d").scan(where="id < 2000"),
                                          author="t")
    assert snap["added_records"] == 2000
