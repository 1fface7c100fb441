// tarn._tarn: the C++ SDK for Python (docs/design/python.md). Thin: each call parses its
// arguments, releases the GIL around the SDK call, and returns the wire codec's JSON text
// (src/api/wire.h, the same objects as the HTTP API) or an Arrow C stream in a PyCapsule;
// the Python layer (python/tarn) gives them their shapes. Errors raise _tarn.Error(message,
// code, kind, fields), which the Python layer maps to one class per error code.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/wire.h"
#include "arrow/arrow_c.h"
#include "tarn/client.h"
#include "tarn/status.h"
#include "types/value_text.h"

namespace py = pybind11;

namespace tarn::python {
namespace {

py::object& ErrorType() {
  // Set once at import; never destroyed (a static py::object would be released after the
  // interpreter is gone).
  static py::object* type = new py::object();
  return *type;
}

// Raises _tarn.Error for a failed status (the GIL held).
[[noreturn]] void Raise(const Status& st) {
  py::dict fields;
  for (const auto& [k, v] : st.fields()) fields[py::str(k)] = py::str(v);
  const std::string code = st.code();
  PyErr_SetObject(ErrorType().ptr(),
                  py::make_tuple(st.message(), code, std::string(ErrorKindName(st.kind())), fields)
                      .ptr());
  throw py::error_already_set();
}

void Check(const Status& st) {
  if (!st.ok()) Raise(st);
}

template <typename T>
T Take(Result<T> r) {
  if (!r.ok()) Raise(r.status());
  return std::move(*r);
}

// Runs `fn` without the GIL, then raises its error with it.
template <typename Fn>
auto Unlocked(Fn&& fn) {
  using R = decltype(fn());
  std::optional<R> out;
  {
    py::gil_scoped_release release;
    out.emplace(fn());
  }
  return std::move(*out);
}

std::string Text(const api::Json& j) { return api::Dump(j); }

// A commit from the SDK: the author given, else $TARN_AUTHOR, else the client's actor (as the
// CLI does); a receipt with no producer (a hand-run call, docs/design/provenance.md).
CommitMeta Meta(const Client& client, const std::string& author, const std::string& message,
                const std::optional<std::string>& key) {
  CommitMeta m;
  const char* env = std::getenv("TARN_AUTHOR");
  m.author = !author.empty() ? author : (env != nullptr && *env ? env : client.actor());
  m.message = message;
  m.idempotency_key = key;
  m.receipt = Receipt{};
  return m;
}

SnapshotSelector At(const std::optional<int64_t>& snapshot, const std::optional<int64_t>& time_us,
                    const std::optional<std::string>& tag) {
  SnapshotSelector s;
  s.snapshot_id = snapshot;
  s.at_time_us = time_us;
  s.tag = tag;
  return s;
}

// One column as (kind, values, mask): kind "int"/"uint"/"float"/"bool" with a numpy array of
// the column's own width, "datetime"/"datetimetz" with int64 nanoseconds since the epoch, "str"
// with a numpy object array of str, "text" with the canonical text of every other type (the
// Python layer turns it into Decimal, date, UUID...); mask a numpy bool array, True where null
// (None when no row is null).
template <typename T>
py::array Numbers(const Column& c) {
  py::array_t<T> out(c.length);
  if (c.length > 0) std::memcpy(out.mutable_data(), c.data.data(), c.length * sizeof(T));
  return out;
}

py::tuple ColumnToPython(const Column& c) {
  py::object mask = py::none();
  if (c.null_count() > 0) {
    py::array_t<bool> m(c.length);
    bool* p = m.mutable_data();
    for (int64_t i = 0; i < c.length; ++i) p[i] = !c.IsValid(i);
    mask = m;
  }
  auto kind = [&](const char* k, py::object values) { return py::make_tuple(k, values, mask); };
  switch (c.type.id()) {
    case TypeId::kBoolean: return kind("bool", Numbers<bool>(c));
    case TypeId::kInt8: return kind("int", Numbers<int8_t>(c));
    case TypeId::kInt16: return kind("int", Numbers<int16_t>(c));
    case TypeId::kInt32: return kind("int", Numbers<int32_t>(c));
    case TypeId::kInt64: return kind("int", Numbers<int64_t>(c));
    case TypeId::kUInt8: return kind("uint", Numbers<uint8_t>(c));
    case TypeId::kUInt16: return kind("uint", Numbers<uint16_t>(c));
    case TypeId::kUInt32: return kind("uint", Numbers<uint32_t>(c));
    case TypeId::kUInt64: return kind("uint", Numbers<uint64_t>(c));
    case TypeId::kFloat32: return kind("float", Numbers<float>(c));
    case TypeId::kFloat64: return kind("float", Numbers<double>(c));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      static constexpr int64_t kToNanos[] = {1000000000, 1000000, 1000, 1};
      const int64_t f = kToNanos[static_cast<int>(c.type.unit())];
      py::array_t<int64_t> out(c.length);
      int64_t* p = out.mutable_data();
      for (int64_t i = 0; i < c.length; ++i) {
        const int64_t v = c.Value<int64_t>(i);
        if (c.IsValid(i) && __builtin_mul_overflow(v, f, &p[i])) {
          throw py::value_error("row " + std::to_string(i) + ": " + ValueText(c, i) +
                                " is outside pandas' datetime64[ns] range (1677-2262)");
        }
        if (!c.IsValid(i)) p[i] = 0;
      }
      return kind(c.type.id() == TypeId::kTimestamp ? "datetime" : "datetimetz", out);
    }
    case TypeId::kVarchar: {
      py::array out(py::dtype("O"), {c.length}, {});
      auto** p = static_cast<PyObject**>(out.mutable_data());
      for (int64_t i = 0; i < c.length; ++i) {
        std::string_view v = c.IsValid(i) ? c.StringAt(i) : std::string_view();
        PyObject* o = c.IsValid(i) ? PyUnicode_DecodeUTF8(v.data(), v.size(), "strict")
                                   : (Py_INCREF(Py_None), Py_None);
        if (o == nullptr) throw py::error_already_set();
        Py_XDECREF(p[i]);
        p[i] = o;
      }
      return kind("str", out);
    }
    default: {
      py::list out;
      for (int64_t i = 0; i < c.length; ++i) {
        if (c.IsValid(i)) {
          out.append(py::str(ValueText(c, i)));
        } else {
          out.append(py::none());
        }
      }
      return kind("text", out);
    }
  }
}

class PyClient {
 public:
  explicit PyClient(std::shared_ptr<Client> c) : c_(std::move(c)) {}

  bool remote() const { return c_->remote(); }
  std::string actor() const { return c_->actor(); }

  void create_workspace(const std::string& name, bool exists_ok) {
    Check(Unlocked([&] { return c_->CreateWorkspace(name, exists_ok); }));
  }
  std::string list_workspaces() {
    auto all = Take(Unlocked([&] { return c_->ListWorkspaces(); }));
    api::Json out = api::Json::array();
    for (const auto& w : all) out.push_back(api::ToJson(w));
    return Text(out);
  }
  void create_collection(const std::string& name, bool exists_ok, const std::string& description) {
    Check(Unlocked([&] { return c_->CreateCollection(name, exists_ok, description); }));
  }
  std::string create_dataset(const std::string& name, const std::string& schema,
                             const std::string& partition_by, const std::string& sort_by,
                             const std::string& description, bool exists_ok) {
    DatasetDefinition def;
    def.schema = Take(Schema::Parse(schema));
    def.partition_spec = partition_by;
    def.sort_order = sort_by;
    def.description = description;
    return Text(api::ToJson(Take(Unlocked([&] {
      return c_->CreateDataset(name, std::move(def), exists_ok);
    }))));
  }
  std::string load_dataset(const std::string& name, std::optional<int64_t> snapshot,
                           std::optional<int64_t> time_us, std::optional<std::string> tag) {
    const SnapshotSelector at = At(snapshot, time_us, tag);
    return Text(api::ToJson(Take(Unlocked([&] { return c_->LoadDataset(name, at); }))));
  }
  std::string snapshots(const std::string& name) {
    auto all = Take(Unlocked([&] { return c_->ListSnapshots(name); }));
    api::Json out = api::Json::array();
    for (const auto& s : all) out.push_back(api::ToJson(s));
    return Text(out);
  }
  std::string delete_rows(const std::string& name, const std::string& where,
                          const std::string& author, const std::string& message) {
    CommitMeta meta = Meta(*c_, author, message, std::nullopt);
    return Text(api::ToJson(Take(Unlocked([&] { return c_->DeleteRows(name, where, meta); }))));
  }

  // The rows of a scan as an Arrow C stream in a PyCapsule named "arrow_array_stream" (the
  // PyCapsule interface's name): the batches are read first, then handed out one per get_next.
  // An unconsumed capsule releases its stream when collected.
  py::capsule scan_arrow(const std::string& name, const std::vector<std::string>& columns,
                         const std::string& where, std::optional<int64_t> snapshot,
                         std::optional<std::string> tag) {
    ScanOptions options;
    options.columns = columns;
    options.where = where;
    options.at = At(snapshot, std::nullopt, tag);
    auto batches = std::make_shared<std::vector<RecordBatch>>();
    Schema schema;
    Check(Unlocked([&]() -> Status {
      TARN_ASSIGN_OR_RETURN(DatasetInfo ds, c_->LoadDataset(name, options.at));
      schema = ds.schema;
      return c_->Scan(name, options, [&](const RecordBatch& b) {
        if (b.num_rows == 0) return Status::OK();
        RecordBatch copy;
        copy.schema = b.schema;
        copy.num_rows = b.num_rows;
        for (const Column& c : b.columns) copy.columns.push_back(c.Clone());
        batches->push_back(std::move(copy));
        return Status::OK();
      });
    }));
    if (!batches->empty()) schema = batches->front().schema;
    if (!columns.empty() && batches->empty()) {
      Schema picked;  // the columns asked for, in their order, of a scan without rows
      for (const std::string& c : columns) {
        const int i = schema.FieldIndex(c);
        if (i >= 0) picked.fields.push_back(schema.fields[static_cast<size_t>(i)]);
      }
      schema = std::move(picked);
    }
    auto* stream = new ArrowArrayStream();
    size_t next = 0;
    Status st = arrow::ExportStream(
        [batches, next]() mutable -> Result<std::optional<RecordBatch>> {
          if (next == batches->size()) return std::optional<RecordBatch>();
          return std::optional<RecordBatch>(std::move((*batches)[next++]));
        },
        schema, stream);
    if (!st.ok()) {
      delete stream;
      Raise(st);
    }
    return py::capsule(stream, "arrow_array_stream", [](PyObject* capsule) {
      auto* s = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
      if (s == nullptr) return;
      if (s->release != nullptr) s->release(s);
      delete s;
    });
  }

  // A scan's rows column by column (ColumnToPython), with each field's name and type text:
  // [(name, type, kind, values, mask)]. Batches are concatenated first.
  py::list scan_columns(const std::string& name, const std::vector<std::string>& columns,
                        const std::string& where, std::optional<int64_t> snapshot,
                        std::optional<std::string> tag) {
    ScanOptions options;
    options.columns = columns;
    options.where = where;
    options.at = At(snapshot, std::nullopt, tag);
    Schema schema;
    std::vector<Column> all;
    Check(Unlocked([&]() -> Status {
      TARN_ASSIGN_OR_RETURN(DatasetInfo ds, c_->LoadDataset(name, options.at));
      if (columns.empty()) {
        schema = ds.schema;
      } else {
        for (const std::string& col : columns) {
          const int i = ds.schema.FieldIndex(col);
          if (i >= 0) schema.fields.push_back(ds.schema.fields[static_cast<size_t>(i)]);
        }
      }
      for (const Field& f : schema.fields) all.emplace_back(f.type);
      return c_->Scan(name, options, [&](const RecordBatch& b) {
        for (size_t k = 0; k < all.size() && k < b.columns.size(); ++k) {
          all[k].AppendColumn(b.columns[k]);
        }
        return Status::OK();
      });
    }));
    py::list out;
    for (size_t k = 0; k < all.size(); ++k) {
      py::tuple col = ColumnToPython(all[k]);
      out.append(py::make_tuple(schema.fields[k].name, schema.fields[k].type.ToString(), col[0],
                                col[1], col[2]));
    }
    return out;
  }

  // Appends columns the Python layer prepared from a DataFrame, as one snapshot: for each field
  // of the dataset's schema, by name, (values, mask) where values is a numpy array of exactly
  // the field's physical type (copied as is) or a list of canonical texts and None (parsed as
  // the CLI parses CSV cells, types/value_text.h); a field left out is all null. Errors name the
  // column and row of a value that does not parse.
  std::string append_columns(const std::string& name, const py::dict& columns, int64_t rows,
                             const std::string& author, const std::string& message,
                             std::optional<std::string> key) {
    DatasetInfo ds = Take(Unlocked([&] { return c_->LoadDataset(name); }));
    RecordBatch batch;
    batch.schema = ds.schema;
    batch.num_rows = rows;
    for (const Field& f : ds.schema.fields) {
      if (!columns.contains(f.name)) {
        batch.columns.push_back(Column::Nulls(f.type, rows));
        continue;
      }
      py::tuple vm = columns[py::str(f.name)].cast<py::tuple>();
      py::object values = vm[0], mask = vm[1];
      Column col(f.type);
      if (py::isinstance<py::array>(values)) {
        py::array a = values.cast<py::array>();
        if (a.ndim() != 1 || a.shape(0) != rows || !(a.flags() & py::array::c_style) ||
            f.type.is_variable_width() || f.type.is_nested() ||
            a.itemsize() != f.type.PhysicalWidth()) {
          throw py::value_error("column '" + f.name + "': a numpy array of " +
                                std::to_string(rows) + " values of the width of " +
                                f.type.ToString() + " was expected");
        }
        col.data.resize(static_cast<size_t>(rows * a.itemsize()));
        if (rows > 0) std::memcpy(col.data.data(), a.data(), col.data.size());
        col.length = rows;
        if (!mask.is_none()) {
          py::array_t<bool, py::array::c_style | py::array::forcecast> m(mask);
          col.validity.resize(static_cast<size_t>(rows));
          for (int64_t i = 0; i < rows; ++i) col.validity[i] = m.at(i) ? 0 : 1;
        }
      } else {
        py::list texts = values.cast<py::list>();
        if (static_cast<int64_t>(texts.size()) != rows) {
          throw py::value_error("column '" + f.name + "' has " + std::to_string(texts.size()) +
                                " values, not " + std::to_string(rows));
        }
        for (int64_t i = 0; i < rows; ++i) {
          py::handle v = texts[static_cast<size_t>(i)];
          if (v.is_none()) {
            col.AppendNull();
            continue;
          }
          Status st = AppendParsedValue(v.cast<std::string>(), &col);
          if (!st.ok()) {
            Raise(Status::Of(codes::kInvalidArgument,
                             "column '" + f.name + "', row " + std::to_string(i) + ": " +
                                 st.message())
                      .WithField("column", f.name)
                      .WithField("row", std::to_string(i)));
          }
        }
      }
      batch.columns.push_back(std::move(col));
    }
    CommitMeta meta = Meta(*c_, author, message, key);
    std::vector<RecordBatch> batches;
    batches.push_back(std::move(batch));
    return Text(api::ToJson(Take(Unlocked([&] { return c_->Append(name, batches, meta); }))));
  }

  // Appends what an Arrow C stream (a PyCapsule "arrow_array_stream") yields, as one snapshot.
  std::string append_arrow(const std::string& name, py::capsule stream, const std::string& author,
                           const std::string& message, std::optional<std::string> key) {
    auto* s = static_cast<ArrowArrayStream*>(
        PyCapsule_GetPointer(stream.ptr(), "arrow_array_stream"));
    if (s == nullptr) throw py::error_already_set();
    ArrowArrayStream owned = *s;  // moved out: the capsule's destructor sees a released stream
    s->release = nullptr;
    CommitMeta meta = Meta(*c_, author, message, key);
    std::vector<RecordBatch> batches;
    Check(Unlocked([&] {
      return arrow::ImportStream(&owned, [&](RecordBatch b) {
        batches.push_back(std::move(b));
        return Status::OK();
      });
    }));
    return Text(api::ToJson(Take(Unlocked([&] { return c_->Append(name, batches, meta); }))));
  }

 private:
  std::shared_ptr<Client> c_;
};

}  // namespace
}  // namespace tarn::python

PYBIND11_MODULE(_tarn, m) {
  using tarn::python::PyClient;
  m.doc() = "tarn's C++ SDK (use the tarn package, not this module)";
  // class Error(Exception): args (message, code, kind, fields)
  tarn::python::ErrorType() = py::reinterpret_steal<py::object>(
      PyErr_NewException("tarn._tarn.Error", PyExc_Exception, nullptr));
  m.attr("Error") = tarn::python::ErrorType();

  m.def("connect", [](const std::string& target, const std::string& client_id,
                      const std::string& client_secret, const std::string& token) {
    tarn::ClientOptions o;
    o.client_id = client_id;
    o.client_secret = client_secret;
    o.token = token;
    o.FillFromEnvironment();
    auto c = tarn::python::Take(tarn::python::Unlocked(
        [&] { return tarn::Client::Connect(target, o); }));
    return PyClient(std::shared_ptr<tarn::Client>(std::move(c)));
  });
  // Every registered error code: (name, kind, http status, retryable, fields), sorted by name.
  m.def("error_codes", [] {
    py::list out;
    for (const tarn::ErrorCode* c : tarn::ErrorRegistry::All()) {
      out.append(py::make_tuple(std::string(c->name), std::string(tarn::ErrorKindName(c->kind)),
                                c->http, c->retryable, std::string(c->fields)));
    }
    return out;
  });
  py::class_<PyClient>(m, "Client")
      .def_property_readonly("remote", &PyClient::remote)
      .def_property_readonly("actor", &PyClient::actor)
      .def("create_workspace", &PyClient::create_workspace)
      .def("list_workspaces", &PyClient::list_workspaces)
      .def("create_collection", &PyClient::create_collection)
      .def("create_dataset", &PyClient::create_dataset)
      .def("load_dataset", &PyClient::load_dataset)
      .def("snapshots", &PyClient::snapshots)
      .def("delete_rows", &PyClient::delete_rows)
      .def("append_arrow", &PyClient::append_arrow)
      .def("scan_arrow", &PyClient::scan_arrow)
      .def("scan_columns", &PyClient::scan_columns)
      .def("append_columns", &PyClient::append_columns);
}
