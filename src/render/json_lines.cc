#include "render/json_lines.h"

#include <algorithm>
#include <thread>
#include <utility>

namespace tarn::render {

namespace {

// Rows per slice: large enough that a thread's start is noise, small enough to bound memory
// (a slice's text) and keep output flowing.
constexpr int64_t kSliceRows = 16384;

}  // namespace

JsonLines::JsonLines(std::function<Status(std::string_view)> write, int threads)
    : write_(std::move(write)), threads_(std::max(1, threads)), slices_(threads_) {}

Status JsonLines::Write(const RecordBatch& batch, int64_t rows) {
  if (!rows_) rows_.emplace(batch.schema);
  const JsonRowWriter& writer = *rows_;
  auto render = [&](int64_t begin, int64_t end, std::string* out) {
    out->clear();
    for (int64_t r = begin; r < end; ++r) {
      writer.AppendRow(batch, r, out);
      out->push_back('\n');
    }
  };
  for (int64_t at = 0; at < rows;) {
    // One round: up to threads_ slices, the first on this thread.
    const int64_t left = rows - at;
    const int n = static_cast<int>(
        std::min<int64_t>(threads_, (left + kSliceRows - 1) / kSliceRows));
    std::vector<std::thread> helpers;
    for (int k = 1; k < n; ++k) {
      const int64_t begin = at + k * kSliceRows;
      const int64_t end = std::min(rows, begin + kSliceRows);
      helpers.emplace_back(render, begin, end, &slices_[k]);
    }
    render(at, std::min(rows, at + kSliceRows), &slices_[0]);
    for (std::thread& t : helpers) t.join();
    for (int k = 0; k < n; ++k) TARN_RETURN_NOT_OK(write_(slices_[k]));
    at = std::min(rows, at + static_cast<int64_t>(n) * kSliceRows);
  }
  return Status::OK();
}

}  // namespace tarn::render
