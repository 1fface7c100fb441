// Fuzzes the Parquet reader end to end: footer, schema resolution, pages, the page index,
// decoding, bloom filters.
// Any input must give either a batch or an error Status; crashes, sanitizer reports, leaks and
// timeouts are bugs. A batch that comes back must be internally consistent.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/io.h"
#include "parquet/bloom_filter.h"
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

  // The same rows in small batches (row groups streamed a few pages at a time): well formed,
  // and, where the whole read succeeded, as many rows in all.
  auto batches = r.Batches({}, 7);
  if (batches.ok()) {
    int64_t rows_in_batches = 0;
    bool failed = false;
    for (int guard = 0; guard < 1 << 20; ++guard) {
      auto next = (*batches)->Next();
      if (!next.ok()) {
        failed = true;
        break;
      }
      if (!*next) break;
      Require((*next)->num_rows <= 7, "a batch larger than asked");
      for (const auto& col : (*next)->columns) {
        Require(col.length == (*next)->num_rows, "batch column length differs from num_rows");
        RequireWellFormed(col);
      }
      rows_in_batches += (*next)->num_rows;
    }
    if (all.ok() && !failed) {
      Require(rows_in_batches == all->num_rows, "batches hold another number of rows");
    }
  }

  // The page index, and reads through it: the middle row of each row group and its last one
  // (pages skipped around them), checked like the batches above.
  std::vector<std::pair<int, int>> chunks;
  tarn::parquet::RowSelection selection(static_cast<size_t>(r.num_row_groups()));
  int64_t selected = 0;
  for (int rg = 0; rg < r.num_row_groups(); ++rg) {
    const int64_t n = r.metadata().row_groups[rg].num_rows;
    for (size_t c = 0; c < r.metadata().row_groups[rg].columns.size(); ++c) {
      chunks.emplace_back(rg, static_cast<int>(c));
    }
    if (n >= 3) {
      selection[rg] = {{n / 2, n / 2 + 1}, {n - 1, n}};
      selected += 2;
    }
  }
  auto indexes = r.ReadPageIndex(chunks, true);
  if (indexes.ok()) {
    for (const auto& ix : *indexes) {
      Require(!ix.column_index || ix.offset_index, "a column index without an offset index");
    }
  }
  auto rows = r.ReadRows(selection);
  if (rows.ok()) {
    Require(rows->num_rows == selected, "ReadRows returned another number of rows");
    for (const auto& col : rows->columns) {
      Require(col.length == rows->num_rows, "column length differs from num_rows");
    }
  }

  // Every chunk's bloom filter: read (bounded by the input) or refused, then asked about a value.
  tarn::Column probe(tarn::DataType::Int64());
  probe.AppendFixed<int64_t>(static_cast<int64_t>(size));
  for (const auto& rg : r.metadata().row_groups) {
    for (const auto& chunk : rg.columns) {
      if (!chunk.meta_data) continue;
      auto filter = tarn::parquet::ReadBloomFilter(*file, *chunk.meta_data);
      if (!filter.ok() || !filter->has_value()) continue;
      Require((*filter)->num_bytes() >= 32 && (*filter)->num_bytes() <= static_cast<int64_t>(size),
              "a bloom filter larger than the file");
      (void)tarn::parquet::BloomFilterMightContain(**filter, probe, 0);
    }
  }
  return 0;
}
