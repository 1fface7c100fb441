// Fuzzes the Parquet reader end to end: footer, schema resolution, pages, decoding.
// Any input must give either a batch or an error Status; crashes, sanitizer reports, leaks and
// timeouts are bugs. A batch that comes back must be internally consistent.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/io.h"
#include "parquet/reader.h"
#include "tarn/column.h"

namespace {

// Inputs are capped so that a run explores structure rather than bulk; the reader must still
// refuse absurd sizes declared inside a small input by itself.
constexpr size_t kMaxInput = 1 << 20;

void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "parquet_reader_fuzz: invariant violated: %s\n", what);
    std::abort();
  }
}

// The structure every decoded column must have, at every nesting level.
void RequireWellFormed(const tarn::Column& c) {
  Require(c.validity.empty() || static_cast<int64_t>(c.validity.size()) == c.length,
          "validity size differs from length");
  const tarn::DataType& t = c.type;
  if (t.is_variable_width() || t.is_repeated()) {
    Require(static_cast<int64_t>(c.offsets.size()) == c.length + 1, "offsets size");
    for (int64_t i = 0; i < c.length; ++i) {
      Require(c.offsets[i] <= c.offsets[i + 1], "offsets decrease");
    }
    const int64_t end = c.offsets.empty() ? 0 : c.offsets.back();
    if (t.is_variable_width()) {
      Require(end <= static_cast<int64_t>(c.data.size()), "offsets past the data");
    } else if (t.id() == tarn::TypeId::kArray) {
      Require(c.child != nullptr && end <= c.child->length, "offsets past the elements");
      RequireWellFormed(*c.child);
    }
  }
  if (t.id() == tarn::TypeId::kStruct || t.id() == tarn::TypeId::kMap) {
    Require(c.members.size() == t.children().size(), "member count");
    const int64_t want = t.id() == tarn::TypeId::kMap ? c.offsets.back() : c.length;
    for (const tarn::Column& m : c.members) {
      Require(m.length == want, "member length differs from its struct or map");
      RequireWellFormed(m);
    }
  }
  if (t.PhysicalWidth() > 0) {
    Require(static_cast<int64_t>(c.data.size()) >= c.length * t.PhysicalWidth(), "data size");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxInput) return -1;  // not added to the corpus
  auto file = tarn::MemoryFile(std::string(reinterpret_cast<const char*>(data), size), "fuzz");

  // The footer-only path must agree with Open on whether the footer is readable.
  auto footer = tarn::parquet::FileReader::ReadFooter(*file);

  tarn::parquet::ReaderOptions options;
  options.threads = 1;  // deterministic; the parallel path is covered by unit tests
  auto reader = tarn::parquet::FileReader::Open(file, options);
  if (!reader.ok()) return 0;
  Require(footer.ok(), "Open succeeded where ReadFooter failed");

  const auto& r = **reader;
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    auto batch = r.ReadRowGroup(rg);
    if (!batch.ok()) continue;
    Require(batch->columns.size() == batch->schema.fields.size(),
            "batch has a different number of columns than fields");
    for (const auto& col : batch->columns) {
      Require(col.length == batch->num_rows, "column length differs from num_rows");
      RequireWellFormed(col);
    }
  }
  auto all = r.ReadAll();
  (void)all;
  return 0;
}
