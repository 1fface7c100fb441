// Fuzzes the input readers `tarn append` (and the upload service) run on files people give:
// CSV and NDJSON converted to a declared schema. The first byte picks the format and options;
// every batch is read to the end. Errors are fine; crashes, hangs and overflows are not.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/io.h"
#include "formats/format.h"

namespace {

const tarn::Schema& TheSchema() {
  static const tarn::Schema* schema = [] {
    auto s = tarn::Schema::Parse(
        "id INT64, name VARCHAR, amount DECIMAL(10,2), ts TIMESTAMP[us], ok BOOLEAN, "
        "score FLOAT64, doc JSON, tags ARRAY<INT32>, day DATE, u UUID, "
        "rec STRUCT<a: INT64 NOT NULL, b: ARRAY<STRUCT<c: VARCHAR, d: DECIMAL(10,2)>>, "
        "j: JSON>, m MAP<VARCHAR, ARRAY<INT64>>");
    if (!s.ok()) std::abort();
    return new tarn::Schema(*s);
  }();
  return *schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  tarn::formats::ReadOptions options;
  options.batch_rows = 1 + (mode >> 3);  // small batches exercise the batch boundaries
  if (mode & 2) options.delimiter = (mode & 4) ? ';' : '\t';
  if (mode & 4) options.header = true;
  bool ndjson = mode & 1;
  auto reader = tarn::formats::OpenBatchReader(
      tarn::MemoryFile(std::move(bytes)), ndjson ? "input.ndjson" : "input.csv",
      ndjson ? tarn::formats::Format::kNdjson : tarn::formats::Format::kCsv, TheSchema(), options);
  if (!reader.ok()) return 0;
  for (int i = 0; i < 100000; ++i) {
    auto batch = (*reader)->Next();
    if (!batch.ok() || !batch->has_value()) break;
  }
  return 0;
}
