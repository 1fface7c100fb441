// Fuzzes schema inference (formats/infer.h) on samples people upload, and its promise: a whole
// CSV or NDJSON file that inference accepts reads back with the inferred schema. The first byte
// picks the file name (format, compression) and options; the rest is the sample. Errors are
// fine; crashes, hangs, overflows and a broken round trip are not.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/io.h"
#include "formats/format.h"
#include "formats/infer.h"
#include "types/value_text.h"

namespace {

constexpr const char* kNames[] = {"in.csv",     "in.tsv",    "in.ndjson",     "in.jsonl",
                                  "in.parquet", "in.csv.gz", "in.ndjson.zst", "in.csv.br"};

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "infer_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

void CheckRoundTrip(const std::string& name, const std::string& bytes,
                    const tarn::formats::InferredSchema& s) {
  using namespace tarn::formats;
  ReadOptions options;
  options.delimiter = s.delimiter;
  options.header = s.header;
  options.compression = s.compression;
  options.batch_rows = 7;
  auto reader =
      OpenBatchReader(tarn::MemoryFile(bytes, name), name, s.format, s.ToSchema(), options);
  if (!reader.ok()) Fail("open with the inferred schema", reader.status().ToString());
  int64_t rows = 0;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) Fail("read with the inferred schema", batch.status().ToString());
    if (!batch->has_value()) break;
    rows += (*batch)->num_rows;
  }
  if (rows != s.rows) {
    Fail("row count", std::to_string(rows) + " read, " + std::to_string(s.rows) + " inferred");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string name = kNames[mode & 7];
  const bool whole = mode & 8;
  tarn::formats::InferOptions options;
  if (mode & 16) options.header = (mode & 32) != 0;
  if (mode & 64) options.delimiter = ';';
  const bool small = mode & 128;
  if (small) options.max_rows = 3;

  auto s = tarn::formats::InferSample(name, bytes, whole, options);
  if (s.ok()) {
    if (s->sample_bytes < 0 || s->rows < 0) Fail("negative counts", name);
    for (const auto& c : s->columns) {
      if (c.values < 0 || c.nulls < 0 || (c.all_null && c.values != 0))
        Fail("column counts", c.name);
    }
    if (whole && !small && s->format != tarn::formats::Format::kParquet) {
      CheckRoundTrip(name, bytes, *s);
    }
  }

  // A single value's inferred type parses it.
  const std::string_view value(bytes.data(), std::min<size_t>(bytes.size(), 64));
  const tarn::DataType type = tarn::formats::InferTextValue(value);
  if (type.id() != tarn::TypeId::kVarchar) {
    tarn::Column col(type);
    tarn::Status st = tarn::AppendParsedValue(value, &col);
    if (!st.ok())
      Fail("InferTextValue",
           type.ToString() + " does not parse '" + std::string(value) + "': " + st.message());
  }
  return 0;
}
