#include "python/scan.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "python/columns.h"
#include "python/common.h"

namespace tarn::python {
namespace {

// The bytes a column holds (what the queue counts).
int64_t Bytes(const Column& c) {
  int64_t n =
      static_cast<int64_t>(c.data.size() + c.validity.size() + c.offsets.size() * sizeof(int64_t));
  if (c.child) n += Bytes(*c.child);
  for (const Column& m : c.members) n += Bytes(m);
  return n;
}

// (name, type, kind, values, mask) of each column of `parts` (one vector of parts per field).
py::list Convert(const Schema& schema, const std::vector<std::vector<const Column*>>& parts) {
  py::list out;
  for (size_t k = 0; k < schema.fields.size(); ++k) {
    const Field& f = schema.fields[k];
    py::tuple col = ColumnToPython(f, parts[k]);
    out.append(py::make_tuple(f.name, f.type.ToString(), col[0], col[1], col[2]));
  }
  return out;
}

// _tarn.Scan: the Python side of a ScanStream.
class PyScan {
 public:
  explicit PyScan(std::shared_ptr<ScanStream> s) : s_(std::move(s)) {}

  // [(name, type text, nullable)] of the scan's columns.
  py::list fields() const {
    py::list out;
    for (const Field& f : s_->schema().fields) {
      out.append(py::make_tuple(f.name, f.type.ToString(), f.nullable));
    }
    return out;
  }

  // The next batch's columns, or None at the end.
  py::object next() {
    if (s_->gathering()) {
      Raise(Status::Internal("a scan started to gather is read with collect()"));
    }
    std::optional<RecordBatch> b = Take(s_->NextInterruptible());
    if (!b) return py::none();
    std::vector<std::vector<const Column*>> parts(b->columns.size());
    for (size_t k = 0; k < b->columns.size(); ++k) parts[k].push_back(&b->columns[k]);
    return Convert(s_->schema(), parts);
  }

  // Every remaining row's columns, each as one array (also when there is no row). Object
  // columns are converted batch by batch as they come, while the producer decodes the next
  // (on the other core); the others are copied once at the end.
  py::list collect() {
    const Schema& schema = s_->schema();
    const size_t n = schema.fields.size();
    std::vector<std::unique_ptr<ObjectColumn>> objects(n);
    for (size_t k = 0; k < n; ++k) {
      if (IsObjectColumn(schema.fields[k])) {
        objects[k] = std::make_unique<ObjectColumn>(schema.fields[k], s_->expected_rows());
      }
    }
    std::vector<RecordBatch> all;
    for (;;) {
      std::optional<RecordBatch> b = Take(s_->NextInterruptible());
      if (!b) break;
      for (size_t k = 0; k < n; ++k) {
        if (!objects[k]) continue;
        objects[k]->Add(b->columns[k]);
        b->columns[k] = Column();  // converted: free it now
      }
      all.push_back(std::move(*b));
    }
    py::list out;
    for (size_t k = 0; k < n; ++k) {
      const Field& f = schema.fields[k];
      py::tuple col;
      if (objects[k]) {
        col = objects[k]->Finish();
      } else if (NumpyColumn* g = s_->gathered(k)) {
        col = g->Finish();
      } else {
        std::vector<const Column*> parts;
        for (const RecordBatch& b : all) parts.push_back(&b.columns[k]);
        col = ColumnToPython(f, parts);
        for (RecordBatch& b : all) b.columns[k] = Column();  // converted: free it now
      }
      out.append(py::make_tuple(f.name, f.type.ToString(), col[0], col[1], col[2]));
    }
    return out;
  }

  void close() {
    py::gil_scoped_release release;
    s_->Close();
  }

 private:
  std::shared_ptr<ScanStream> s_;
};

}  // namespace

Result<std::shared_ptr<ScanStream>> ScanStream::Start(std::shared_ptr<Client> client,
                                                      std::string name, ScanOptions options,
                                                      int64_t max_bytes, bool gather) {
  TARN_ASSIGN_OR_RETURN(DatasetInfo ds, client->LoadDataset(name, options.at));
  Schema schema;
  if (options.columns.empty()) {
    schema = ds.schema;
  } else {
    for (const std::string& c : options.columns) {
      // A name the schema lacks: the scan itself reports it (column_not_found) before any batch.
      const int i = ds.schema.FieldIndex(c);
      if (i >= 0) schema.fields.push_back(ds.schema.fields[static_cast<size_t>(i)]);
    }
  }
  std::shared_ptr<ScanStream> s(
      new ScanStream(client, std::move(schema), max_bytes, std::max<int64_t>(0, ds.total_records)));
  bool queued = true;  // whether a batch has a column to queue
  if (gather) {
    queued = false;
    for (const Field& f : s->schema_.fields) {
      const bool object = IsObjectColumn(f);
      s->gathered_.push_back(object ? nullptr
                                    : std::make_unique<NumpyColumn>(f, s->expected_rows_));
      queued = queued || object;
    }
  }
  ScanStream* raw = s.get();  // the stream outlives its producer: Close joins it
  s->producer_ = std::thread([raw, queued, name = std::move(name), options = std::move(options)] {
    const size_t width = raw->schema_.fields.size();
    Status st = raw->client_->Scan(name, options, [&](const RecordBatch& b) -> Status {
      if (b.num_rows == 0) return Status::OK();
      if (b.columns.size() != width) {
        return Status::Internal("the scan yielded " + std::to_string(b.columns.size()) +
                                " columns, not " + std::to_string(width));
      }
      RecordBatch copy;
      copy.schema = b.schema;
      copy.num_rows = b.num_rows;
      int64_t bytes = 0;
      for (size_t k = 0; k < width; ++k) {
        const Column& c = b.columns[k];
        if (NumpyColumn* g = raw->gathered(k)) {
          TARN_RETURN_NOT_OK(g->Add(c));
          copy.columns.emplace_back();
          continue;
        }
        copy.columns.push_back(c.Clone());
        bytes += Bytes(c);
      }
      if (!queued) {
        // Nothing to push: a closed stream (Ctrl-C) is noticed here instead.
        return raw->queue_.cancelled() ? Status::Cancelled("the scan was closed") : Status::OK();
      }
      if (!raw->queue_.Push(std::move(copy), bytes)) {
        return Status::Cancelled("the scan was closed");
      }
      return Status::OK();
    });
    raw->queue_.Finish(std::move(st));
  });
  return s;
}

ScanStream::~ScanStream() { Close(); }

void ScanStream::Close() {
  queue_.Cancel();
  if (producer_.joinable()) producer_.join();
}

Result<std::optional<RecordBatch>> ScanStream::Next() { return queue_.Pop(); }

Result<std::optional<RecordBatch>> ScanStream::NextInterruptible() {
  for (;;) {
    std::optional<Result<std::optional<RecordBatch>>> got;
    {
      py::gil_scoped_release release;
      got = queue_.PopFor(std::chrono::milliseconds(50));
    }
    if (got) return std::move(*got);
    if (PyErr_CheckSignals() != 0) {
      {
        py::gil_scoped_release release;
        Close();
      }
      throw py::error_already_set();
    }
  }
}

py::object MakeScan(std::shared_ptr<ScanStream> s) { return py::cast(PyScan(std::move(s))); }

void RegisterScan(py::module_& m) {
  py::class_<PyScan>(m, "Scan")
      .def("fields", &PyScan::fields)
      .def("next", &PyScan::next)
      .def("collect", &PyScan::collect)
      .def("close", &PyScan::close);
}

}  // namespace tarn::python
