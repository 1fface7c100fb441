// tarn._tarn's Client: the catalog calls of the C++ SDK (tarn/client.h). Each call parses its
// arguments, releases the GIL around the SDK call and returns the wire codec's JSON text
// (src/api/wire.h, the same objects as the HTTP API) or an Arrow C stream in a PyCapsule; the
// Python layer (python/tarn) gives them their shapes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "arrow/arrow_c.h"
#include "common/bounded_queue.h"
#include "python/catalog.h"
#include "python/columns.h"
#include "python/common.h"
#include "python/module.h"
#include "python/scan.h"

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
    return Text(api::ToJson(
        Take(Unlocked([&] { return c_->CreateDataset(name, std::move(def), exists_ok); }))));
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
  // PyCapsule interface's name), streamed: each get_next takes the next batch a producer thread
  // scans ahead (ScanStream, a bounded queue). An unconsumed capsule releases its stream when
  // collected; releasing the stream cancels and joins the producer.
  py::capsule scan_arrow(const std::string& name, const std::vector<std::string>& columns,
                         const std::string& where, std::optional<int64_t> snapshot,
                         std::optional<int64_t> time_us, std::optional<std::string> tag) {
    std::shared_ptr<ScanStream> scan = StartScan(name, columns, where, snapshot, time_us, tag);
    auto* stream = new ArrowArrayStream();
    Status st = arrow::ExportStream([scan] { return scan->Next(); }, scan->schema(), stream);
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

  // A scan streamed batch by batch: a _tarn.Scan (scan.cc) whose next() gives each batch's
  // columns (ColumnToPython) and collect() all the rest as one array per column. With
  // `gather`, it is read with collect() alone, which then overlaps more (ScanStream).
  py::object scan(const std::string& name, const std::vector<std::string>& columns,
                  const std::string& where, std::optional<int64_t> snapshot,
                  std::optional<int64_t> time_us, std::optional<std::string> tag, bool gather) {
    return MakeScan(StartScan(name, columns, where, snapshot, time_us, tag, gather));
  }

  // Appends columns the Python layer prepared from a DataFrame (ColumnInput: for each field of
  // the dataset's schema, by name, (kind, values, mask)), as one snapshot; a field left out is
  // all null. The rows go through AppendStream `chunk_rows` at a time, converted chunk by chunk
  // on the SDK's thread (taking the GIL for columns of Python objects), under Interruptible:
  // Ctrl-C stops the stream before its commit (nothing committed) and raises KeyboardInterrupt.
  // Errors name the column and row of a value that does not convert.
  std::string append_columns(const std::string& name, const py::dict& columns, int64_t rows,
                             const std::string& author, const std::string& message,
                             std::optional<std::string> key, int64_t chunk_rows,
                             const std::string& mode, const std::optional<std::string>& where) {
    const auto commit = Committer(name, mode, where);
    DatasetInfo ds = Take(Unlocked([&] { return c_->LoadDataset(name); }));
    std::vector<std::optional<ColumnInput>> inputs;
    bool needs_gil = false;
    for (const Field& f : ds.schema.fields) {
      inputs.emplace_back();
      if (!columns.contains(f.name)) continue;
      inputs.back().emplace(f, columns[py::str(f.name)], rows);
      needs_gil = needs_gil || inputs.back()->needs_gil();
    }
    const int64_t chunk = std::max<int64_t>(1, chunk_rows);
    CommitMeta meta = Meta(*c_, author, message, key);
    // Rows [begin, end) as a batch (the GIL taken for columns of Python objects).
    auto convert = [&](int64_t begin, int64_t end) -> Result<RecordBatch> {
      RecordBatch batch;
      batch.schema = ds.schema;
      batch.num_rows = end - begin;
      std::optional<py::gil_scoped_acquire> gil;
      if (needs_gil) gil.emplace();
      for (size_t k = 0; k < inputs.size(); ++k) {
        if (!inputs[k]) {
          batch.columns.push_back(Column::Nulls(ds.schema.fields[k].type, end - begin));
          continue;
        }
        TARN_ASSIGN_OR_RETURN(Column col, inputs[k]->Slice(begin, end));
        batch.columns.push_back(std::move(col));
      }
      return batch;
    };
    // A converter thread keeps two chunks ready while the SDK writes the one before them: the
    // conversion (with the GIL) and the encoding (without) overlap. The first chunks are
    // smaller (an eighth of `chunk`, doubling), so the encoding starts after a short
    // conversion rather than a whole chunk's.
    return CommitProduced(
        commit, meta, std::numeric_limits<int64_t>::max(), 2,
        [&](BoundedQueue<RecordBatch>& ready, const std::atomic<bool>& cancelled) {
          Status st;
          int64_t step = std::max<int64_t>(1, chunk / 8);
          for (int64_t begin = 0; begin < rows; begin += step, step = std::min(chunk, step * 2)) {
            if (cancelled) {
              st = Status::Cancelled("interrupted");
              break;
            }
            Result<RecordBatch> batch = convert(begin, std::min(rows, begin + step));
            if (!batch.ok()) {
              st = batch.status();
              break;
            }
            if (!ready.Push(std::move(*batch), 1)) break;
          }
          ready.Finish(std::move(st));
        });
  }

  // Appends what an Arrow C stream (a PyCapsule "arrow_array_stream") yields, as one snapshot,
  // batch by batch through AppendStream under Interruptible (Ctrl-C commits nothing). The
  // producer is called on the SDK's thread without the GIL (a producer that needs it, such as
  // pyarrow's, takes it itself).
  std::string append_arrow(const std::string& name, py::capsule stream, const std::string& author,
                           const std::string& message, std::optional<std::string> key,
                           const std::string& mode, const std::optional<std::string>& where) {
    const auto commit = Committer(name, mode, where);
    auto* s =
        static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(stream.ptr(), "arrow_array_stream"));
    if (s == nullptr) throw py::error_already_set();
    auto owned = std::make_shared<ArrowArrayStream>(*s);  // moved out: the capsule sees a released
    s->release = nullptr;                                 // stream
    CommitMeta meta = Meta(*c_, author, message, key);
    // ImportStream pushes; AppendStream pulls: a thread of their own joins the two through a
    // one-batch queue.
    return CommitProduced(
        commit, meta, 1, 1,
        [&](BoundedQueue<RecordBatch>& queue, const std::atomic<bool>& cancelled) {
          queue.Finish(arrow::ImportStream(owned.get(), [&](RecordBatch b) {
            if (cancelled) return Status::Cancelled("interrupted");
            return queue.Push(std::move(b), 1) ? Status::OK()
                                               : Status::Cancelled("the append stopped");
          }));
        });
  }

 private:
  using CommitFn =
      std::function<Result<SnapshotInfo>(const Client::BatchSource&, const CommitMeta&)>;

  // Commits, by `commit`, the batches `produce(queue, cancelled)` pushes from a thread of its own
  // (it finishes the queue; at most `max_bytes` / `depth` batches wait), all under Interruptible:
  // Ctrl-C stops the stream before its commit and raises KeyboardInterrupt.
  template <typename Produce>
  static std::string CommitProduced(const CommitFn& commit, const CommitMeta& meta,
                                    int64_t max_bytes, size_t depth, Produce produce) {
    Result<SnapshotInfo> done = Interruptible([&](const std::atomic<bool>& cancelled) {
      BoundedQueue<RecordBatch> queue(max_bytes, depth);
      std::thread producer([&] { produce(queue, cancelled); });
      Result<SnapshotInfo> r = commit(
          [&]() -> Result<std::optional<RecordBatch>> {
            if (cancelled) return Status::Cancelled("interrupted");
            return queue.Pop();
          },
          meta);
      queue.Cancel();
      producer.join();
      return r;
    });
    return Text(api::ToJson(Take(std::move(done))));
  }

  // How the rows of an append call commit: `mode` "append" (AppendStream), "overwrite" without
  // `where` (every live row replaced: AppendStream of operation overwrite) or with it (the rows
  // `where` matches replaced: ReplaceWhere). Checked before any row is converted.
  CommitFn Committer(const std::string& name, const std::string& mode,
                     const std::optional<std::string>& where) {
    if (mode == "append" && !where) {
      return [this, name](const Client::BatchSource& next, const CommitMeta& meta) {
        return c_->AppendStream(name, next, meta);
      };
    }
    if (mode == "overwrite" && !where) {
      return [this, name](const Client::BatchSource& next, const CommitMeta& meta) {
        return c_->AppendStream(name, next, meta, CommitOperation::kOverwrite);
      };
    }
    if (mode == "overwrite") {
      return [this, name, w = *where](const Client::BatchSource& next, const CommitMeta& meta) {
        return c_->ReplaceWhere(name, w, next, meta);
      };
    }
    Raise(Status::InvalidArgument("an append's mode is append or overwrite (with where)"));
  }

  // Scans read ahead at most this much (the bounded queue of ScanStream).
  static constexpr int64_t kScanQueueBytes = 64 << 20;

  std::shared_ptr<ScanStream> StartScan(const std::string& name,
                                        const std::vector<std::string>& columns,
                                        const std::string& where, std::optional<int64_t> snapshot,
                                        std::optional<int64_t> time_us,
                                        std::optional<std::string> tag, bool gather = false) {
    ScanOptions options;
    options.columns = columns;
    options.where = where;
    options.at = At(snapshot, time_us, tag);
    return Take(Unlocked(
        [&] { return ScanStream::Start(c_, name, std::move(options), kScanQueueBytes, gather); }));
  }

  std::shared_ptr<Client> c_;
};

}  // namespace

std::shared_ptr<Client> NativeClient(const py::handle& client) {
  return client.cast<const PyClient&>().client();
}

void RegisterClient(py::module_& m) {
  py::class_<PyClient> cls(m, "Client");
  DefineCatalogCalls(cls, [](PyClient& p) -> Client& { return p.sdk(); });
  cls.def_property_readonly("remote", &PyClient::remote)
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
      .def("scan", &PyClient::scan, py::arg("name"), py::arg("columns"), py::arg("where"),
           py::arg("snapshot"), py::arg("time_us"), py::arg("tag"), py::arg("gather") = false)
      .def("append_columns", &PyClient::append_columns);
  // After the class: its signature (and so _tarn.pyi) names Client, not the C++ type.
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
}

}  // namespace tarn::python
