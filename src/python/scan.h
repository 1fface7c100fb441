// A scan streamed to Python: a producer thread runs the SDK's Scan and hands copies of its
// batches through a BoundedQueue, so a consumer (the Python batch iterator, an Arrow C stream)
// holds at most the queue's bytes; closing or destroying the stream cancels the producer and
// joins it. A stream started to gather (to_pandas) keeps the columns of a numpy dtype in the
// producer, appended batch after batch (NumpyColumn), and queues only the object columns, which
// the main thread converts while the producer decodes the next batch.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "common/bounded_queue.h"
#include "python/columns.h"
#include "tarn/client.h"

namespace tarn::python {

namespace py = pybind11;

class ScanStream {
 public:
  // Reads the dataset's schema at options.at (the fields of options.columns, in that order),
  // then starts the producer. With `gather`, the columns of a numpy dtype stay in the producer
  // (gathered()) and the queued batches hold the other columns only (empty columns in their
  // places). Call without the GIL. Errors: LoadDataset's.
  static Result<std::shared_ptr<ScanStream>> Start(std::shared_ptr<Client> client, std::string name,
                                                   ScanOptions options, int64_t max_bytes,
                                                   bool gather = false);
  ~ScanStream();  // Close()
  ScanStream(const ScanStream&) = delete;
  ScanStream& operator=(const ScanStream&) = delete;

  const Schema& schema() const { return schema_; }
  // The next batch (nullopt at the end), waiting as long as it takes; the scan's error, once.
  Result<std::optional<RecordBatch>> Next();
  // The same with the GIL held on entry: the wait releases it and looks for a signal every 50
  // ms; on one (Ctrl-C), closes the stream and throws its exception (KeyboardInterrupt).
  Result<std::optional<RecordBatch>> NextInterruptible();
  // Cancels the producer and joins it (idempotent).
  void Close();
  // With `gather`: the gathered column of field k (null for an object column), complete once
  // Next gave the end.
  NumpyColumn* gathered(size_t k) { return gathered_.empty() ? nullptr : gathered_[k].get(); }
  bool gathering() const { return !gathered_.empty(); }
  // The rows the scan reads at most, as the dataset's snapshot counts them (its live rows; a
  // `where` keeps fewer): what a gathering consumer reserves.
  int64_t expected_rows() const { return expected_rows_; }

 private:
  ScanStream(std::shared_ptr<Client> client, Schema schema, int64_t max_bytes,
             int64_t expected_rows)
      : client_(std::move(client)),
        schema_(std::move(schema)),
        expected_rows_(expected_rows),
        queue_(max_bytes, 4) {}

  std::shared_ptr<Client> client_;
  Schema schema_;
  int64_t expected_rows_ = 0;
  BoundedQueue<RecordBatch> queue_;
  std::vector<std::unique_ptr<NumpyColumn>> gathered_;  // with `gather`, per field
  std::thread producer_;
  bool ended_ = false;
};

// A new _tarn.Scan (registered by RegisterScan, module.h) over `s`.
py::object MakeScan(std::shared_ptr<ScanStream> s);

}  // namespace tarn::python
