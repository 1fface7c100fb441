// tarn._tarn's Client: the catalog calls of the C++ SDK (tarn/client.h). Each call parses its
// arguments, releases the GIL around the SDK call and returns the wire codec's JSON text
// (src/api/wire.h, the same objects as the HTTP API) or an Arrow C stream in a PyCapsule; the
// Python layer (python/tarn) gives them their shapes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow/arrow_c.h"
#include "python/catalog.h"
#include "python/columns.h"
#include "python/common.h"
#include "python/module.h"

namespace tarn::python {
namespace {

class PyClient {
 public:
  explicit PyClient(std::shared_ptr<Client> c) : c_(std::move(c)) {}

  Client& sdk() { return *c_; }
  const std::shared_ptr<Client>& client() const { return c_; }
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
                         std::optional<int64_t> time_us, std::optional<std::string> tag) {
    ScanOptions options;
    options.columns = columns;
    options.where = where;
    options.at = At(snapshot, time_us, tag);
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
                        std::optional<int64_t> time_us, std::optional<std::string> tag) {
    ScanOptions options;
    options.columns = columns;
    options.where = where;
    options.at = At(snapshot, time_us, tag);
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
      Column col = ColumnFromPython(f, vm[0], vm[1], rows);
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

std::shared_ptr<Client> NativeClient(const py::handle& client) {
  return client.cast<const PyClient&>().client();
}

void RegisterClient(py::module_& m) {
  m.def("connect", [](const std::string& target, const std::string& client_id,
                      const std::string& client_secret, const std::string& token) {
    ClientOptions o;
    o.client_id = client_id;
    o.client_secret = client_secret;
    o.token = token;
    o.FillFromEnvironment();
    auto c = Take(Unlocked([&] { return Client::Connect(target, o); }));
    return PyClient(std::shared_ptr<Client>(std::move(c)));
  });
  py::class_<PyClient> cls(m, "Client");
  DefineCatalogCalls(cls, [](PyClient& p) -> Client& { return p.sdk(); });
  cls
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

}  // namespace tarn::python
