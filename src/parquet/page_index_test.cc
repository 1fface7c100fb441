#include "parquet/page_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "common/io.h"
#include "parquet/reader.h"
#include "parquet/stat_value.h"
#include "parquet/writer.h"

namespace tarn::parquet {
namespace {

// ---- helpers -----------------------------------------------------------------------------------

Result<std::string> WriteFile(const RecordBatch& batch, WriterOptions options = {}) {
  auto mem = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* raw = mem.get();
  TARN_ASSIGN_OR_RETURN(auto w, FileWriter::Open(std::move(mem), batch.schema, options));
  TARN_RETURN_NOT_OK(w->Write(batch));
  TARN_RETURN_NOT_OK(w->Close());
  return raw->bytes();
}

// Counts the bytes read through it.
class CountingFile : public RandomAccessFile {
 public:
  explicit CountingFile(std::shared_ptr<RandomAccessFile> f) : f_(std::move(f)) {}
  uint64_t Size() const override { return f_->Size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    bytes_ += static_cast<int64_t>(n);
    return f_->ReadAt(offset, n, out);
  }
  const std::string& name() const override { return f_->name(); }
  int64_t bytes() const { return bytes_.load(); }

 private:
  std::shared_ptr<RandomAccessFile> f_;
  mutable std::atomic<int64_t> bytes_{0};
};

std::unique_ptr<FileReader> Open(const std::string& bytes, int threads = 2) {
  ReaderOptions ro;
  ro.threads = threads;
  auto r = FileReader::Open(MemoryFile(bytes), ro);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

Schema MustParse(const char* text) {
  auto s = Schema::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

RecordBatch EmptyBatch(const Schema& schema) {
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  return b;
}

// One INT64 column `v` with the given values (nullopt: null).
RecordBatch Int64Batch(const std::vector<std::optional<int64_t>>& values) {
  RecordBatch b = EmptyBatch(MustParse("v INT64"));
  for (const auto& v : values) {
    if (v) {
      b.columns[0].AppendFixed<int64_t>(*v);
    } else {
      b.columns[0].AppendNull();
    }
  }
  b.num_rows = static_cast<int64_t>(values.size());
  return b;
}

// Whether value i of a equals value j of b (lists element by element).
::testing::AssertionResult SameValue(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.IsValid(i) != b.IsValid(j)) return ::testing::AssertionFailure() << "validity differs";
  if (!a.IsValid(i)) return ::testing::AssertionSuccess();
  if (a.type.id() == TypeId::kArray || a.type.id() == TypeId::kMap) {
    const int64_t na = a.offsets[i + 1] - a.offsets[i], nb = b.offsets[j + 1] - b.offsets[j];
    if (na != nb) return ::testing::AssertionFailure() << "array length " << na << " vs " << nb;
    for (int64_t k = 0; k < na; ++k) {
      if (a.type.id() == TypeId::kArray) {
        auto r = SameValue(*a.child, a.offsets[i] + k, *b.child, b.offsets[j] + k);
        if (!r) return r << " (element " << k << ")";
        continue;
      }
      for (size_t m = 0; m < 2; ++m) {
        auto r = SameValue(a.members[m], a.offsets[i] + k, b.members[m], b.offsets[j] + k);
        if (!r) return r << (m == 0 ? " (key " : " (value ") << k << ")";
      }
    }
    return ::testing::AssertionSuccess();
  }
  if (a.type.id() == TypeId::kStruct) {
    for (size_t m = 0; m < a.members.size(); ++m) {
      auto r = SameValue(a.members[m], i, b.members[m], j);
      if (!r) return r << " (member " << m << ")";
    }
    return ::testing::AssertionSuccess();
  }
  if (a.type.is_variable_width()) {
    if (a.StringAt(i) != b.StringAt(j)) return ::testing::AssertionFailure() << "bytes differ";
    return ::testing::AssertionSuccess();
  }
  const int w = a.type.PhysicalWidth();
  if (std::memcmp(a.data.data() + i * w, b.data.data() + j * w, w) != 0) {
    return ::testing::AssertionFailure() << "value differs";
  }
  return ::testing::AssertionSuccess();
}

// Checks that `got` holds exactly the rows of `all` (the whole file) that `sel` selects.
void ExpectSelected(const FileMetaData& md, const RecordBatch& all, const RowSelection& sel,
                    const RecordBatch& got) {
  std::vector<int64_t> rows;
  int64_t group_start = 0;
  for (size_t g = 0; g < sel.size(); ++g) {
    for (const RowRange& r : sel[g]) {
      for (int64_t i = r.begin; i < r.end; ++i) rows.push_back(group_start + i);
    }
    group_start += md.row_groups[g].num_rows;
  }
  ASSERT_EQ(got.num_rows, static_cast<int64_t>(rows.size()));
  ASSERT_EQ(got.columns.size(), all.columns.size());
  for (size_t c = 0; c < got.columns.size(); ++c) {
    SCOPED_TRACE(all.schema.fields[c].name);
    ASSERT_EQ(got.columns[c].length, got.num_rows);
    for (size_t k = 0; k < rows.size(); ++k) {
      ASSERT_TRUE(SameValue(all.columns[c], rows[k], got.columns[c], static_cast<int64_t>(k)))
          << "selected row " << k << " (file row " << rows[k] << ")";
    }
  }
}

// The page index of every chunk of the file.
std::vector<ChunkPageIndex> AllIndexes(const FileReader& r) {
  std::vector<std::pair<int, int>> chunks;
  for (int g = 0; g < r.num_row_groups(); ++g) {
    for (size_t c = 0; c < r.metadata().row_groups[g].columns.size(); ++c) {
      chunks.emplace_back(g, static_cast<int>(c));
    }
  }
  auto idx = r.ReadPageIndex(chunks, true);
  EXPECT_TRUE(idx.ok()) << idx.status().ToString();
  return idx.ok() ? *idx : std::vector<ChunkPageIndex>();
}

int64_t DecodeInt64(const std::string& bytes) {
  int64_t v = 0;
  EXPECT_EQ(bytes.size(), 8u);
  std::memcpy(&v, bytes.data(), std::min<size_t>(8, bytes.size()));
  return v;
}

// ---- Thrift ------------------------------------------------------------------------------------

TEST(PageIndexThrift, ColumnIndexRoundTrips) {
  ColumnIndex ci;
  ci.null_pages = {false, true, false};
  ci.min_values = {"a", "", std::string(70, 'z')};
  ci.max_values = {"b", "", std::string("\xff\x00", 2)};
  ci.boundary_order = BoundaryOrder::DESCENDING;
  ci.null_counts = std::vector<int64_t>{0, 12, 1ll << 40};
  ByteBuffer buf;
  EncodeColumnIndex(ci, &buf);
  auto back = DecodeColumnIndex(buf.data(), buf.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->null_pages, ci.null_pages);
  EXPECT_EQ(back->min_values, ci.min_values);
  EXPECT_EQ(back->max_values, ci.max_values);
  EXPECT_EQ(back->boundary_order, BoundaryOrder::DESCENDING);
  EXPECT_EQ(back->null_counts, ci.null_counts);

  // null_counts is optional: absent stays absent (readers must not assume zeros).
  ci.null_counts.reset();
  buf.clear();
  EncodeColumnIndex(ci, &buf);
  back = DecodeColumnIndex(buf.data(), buf.size());
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->null_counts.has_value());
}

TEST(PageIndexThrift, OffsetIndexRoundTrips) {
  OffsetIndex oi;
  for (int i = 0; i < 40; ++i) {  // more than 14 elements: the long list header
    oi.page_locations.push_back({4 + i * 1000ll, 1000, i * 4096ll});
  }
  oi.page_locations.back().offset = 1ll << 42;
  ByteBuffer buf;
  EncodeOffsetIndex(oi, &buf);
  auto back = DecodeOffsetIndex(buf.data(), buf.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->page_locations.size(), 40u);
  for (size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(back->page_locations[i].offset, oi.page_locations[i].offset);
    EXPECT_EQ(back->page_locations[i].compressed_page_size, 1000);
    EXPECT_EQ(back->page_locations[i].first_row_index, oi.page_locations[i].first_row_index);
  }
}

TEST(PageIndexThrift, BoolListElementsAsOtherWritersWriteThem) {
  // null_pages with element type BOOLEAN_FALSE (2) and elements 1, 0 and 2 (1 is true; 0, which
  // older libraries wrote, and 2 are false), then min/max/boundary_order.
  std::string b = {0x19, 0x32, 0x01, 0x00, 0x02,  // field 1 list<bool> of 3
                   0x19, 0x38, 0x00, 0x00, 0x00,  // field 2 list<binary> of 3 empty
                   0x19, 0x38, 0x00, 0x00, 0x00,  // field 3
                   0x15, 0x02,                    // field 4 i32 1 (ASCENDING)
                   0x00};
  auto ci = DecodeColumnIndex(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  ASSERT_TRUE(ci.ok()) << ci.status().ToString();
  EXPECT_EQ(ci->null_pages, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(ci->boundary_order, BoundaryOrder::ASCENDING);
  b[3] = 0x07;  // not a bool
  ci = DecodeColumnIndex(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  EXPECT_EQ(ci.status().kind(), ErrorKind::kCorruption);
}

TEST(PageIndexThrift, MalformedBytesAreCorruptionNeverACrash) {
  ColumnIndex ci;
  ci.null_pages = {false, false};
  ci.min_values = {"aaaa", "bbbb"};
  ci.max_values = {"cccc", "dddd"};
  ci.null_counts = std::vector<int64_t>{1, 2};
  ByteBuffer good;
  EncodeColumnIndex(ci, &good);
  // Every truncation fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    auto r = DecodeColumnIndex(good.data(), n);
    EXPECT_FALSE(r.ok()) << n;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption) << n;
    }
  }
  OffsetIndex oi;
  oi.page_locations = {{4, 10, 0}, {14, 10, 5}};
  ByteBuffer good_oi;
  EncodeOffsetIndex(oi, &good_oi);
  for (size_t n = 0; n < good_oi.size(); ++n) {
    EXPECT_FALSE(DecodeOffsetIndex(good_oi.data(), n).ok()) << n;
  }
  // A hostile list size is refused before anything is allocated.
  const std::string huge = {0x19,
                            static_cast<char>(0xfc),
                            static_cast<char>(0xff),
                            static_cast<char>(0xff),
                            static_cast<char>(0xff),
                            0x0f,
                            0x00};
  auto r = DecodeOffsetIndex(reinterpret_cast<const uint8_t*>(huge.data()), huge.size());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot fit"), std::string::npos) << r.status().ToString();
  // Required fields.
  const std::string empty = {0x00};
  EXPECT_FALSE(DecodeOffsetIndex(reinterpret_cast<const uint8_t*>(empty.data()), 1).ok());
  EXPECT_FALSE(DecodeColumnIndex(reinterpret_cast<const uint8_t*>(empty.data()), 1).ok());
  // A PageLocation without first_row_index.
  const std::string no_row = {0x19, 0x1c, 0x16, 0x08, 0x15, 0x14, 0x00, 0x00};
  r = DecodeOffsetIndex(reinterpret_cast<const uint8_t*>(no_row.data()), no_row.size());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("PageLocation"), std::string::npos);
}

TEST(PageIndexThrift, UnknownFieldsAreSkipped) {
  // An OffsetIndex with unencoded_byte_array_data_bytes (2: list<i64>) and a field from the
  // future (9: a struct).
  OffsetIndex oi;
  oi.page_locations = {{4, 10, 0}};
  ByteBuffer buf;
  EncodeOffsetIndex(oi, &buf);
  buf.pop_back();  // the stop byte
  const uint8_t extra[] = {0x19, 0x16, 0x08, 0x7c, 0x15, 0x02, 0x00, 0x00};
  buf.insert(buf.end(), extra, extra + sizeof(extra));
  auto back = DecodeOffsetIndex(buf.data(), buf.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->page_locations.size(), 1u);
  EXPECT_EQ(back->page_locations[0].compressed_page_size, 10);
}

// ---- building the index ------------------------------------------------------------------------

TEST(PageIndexBuild, BoundaryOrderAndRules) {
  auto entry = [](int64_t lo, int64_t hi) {
    PageIndexEntry e;
    e.min = StatBytes(lo);
    e.max = StatBytes(hi);
    return e;
  };
  PageIndexEntry null_page;
  null_page.null_page = true;
  null_page.null_count = 7;
  auto order = [&](std::vector<PageIndexEntry> pages) {
    return BuildColumnIndex(pages, Type::INT64, StatsOrder::kSigned)->boundary_order;
  };
  EXPECT_EQ(order({entry(-5, 1), null_page, entry(1, 3), entry(2, 9)}), BoundaryOrder::ASCENDING);
  EXPECT_EQ(order({entry(9, 12), entry(-3, 9), null_page}), BoundaryOrder::DESCENDING);
  EXPECT_EQ(order({entry(1, 5), entry(0, 6)}), BoundaryOrder::UNORDERED);
  EXPECT_EQ(order({entry(4, 4), entry(4, 4)}), BoundaryOrder::ASCENDING);
  // Signed, not byte order: -1 sorts first.
  EXPECT_EQ(order({entry(-1, -1), entry(1, 1)}), BoundaryOrder::ASCENDING);
  // Unsigned order: 0xFFFF... is the largest.
  auto u = BuildColumnIndex({entry(1, 1), entry(-1, -1)}, Type::INT64, StatsOrder::kUnsigned);
  EXPECT_EQ(u->boundary_order, BoundaryOrder::ASCENDING);

  auto ci = BuildColumnIndex({entry(1, 2), null_page}, Type::INT64, StatsOrder::kSigned);
  ASSERT_TRUE(ci.has_value());
  EXPECT_EQ(ci->null_pages, (std::vector<bool>{false, true}));
  EXPECT_EQ(ci->min_values[1], "");
  EXPECT_EQ(ci->max_values[1], "");
  EXPECT_EQ(ci->null_counts, (std::vector<int64_t>{0, 7}));
  // A page with values but no bounds: no column index at all.
  PageIndexEntry unbounded;
  EXPECT_FALSE(BuildColumnIndex({entry(1, 2), unbounded}, Type::INT64, StatsOrder::kSigned));
  EXPECT_FALSE(BuildColumnIndex({}, Type::INT64, StatsOrder::kSigned));
}

TEST(PageIndexBuild, ValidationOfOffsetIndexes) {
  OffsetIndex oi;
  oi.page_locations = {{100, 50, 0}, {150, 50, 10}, {200, 50, 20}};
  EXPECT_TRUE(ValidateOffsetIndex(oi, 30, 90, 250).ok());
  EXPECT_FALSE(ValidateOffsetIndex(oi, 20, 90, 250).ok());   // first row past the group
  EXPECT_FALSE(ValidateOffsetIndex(oi, 30, 110, 250).ok());  // page before the chunk
  EXPECT_FALSE(ValidateOffsetIndex(oi, 30, 90, 249).ok());   // page past the chunk
  OffsetIndex bad = oi;
  bad.page_locations[0].first_row_index = 1;
  EXPECT_FALSE(ValidateOffsetIndex(bad, 30, 90, 250).ok());
  bad = oi;
  bad.page_locations[2].first_row_index = 10;
  EXPECT_FALSE(ValidateOffsetIndex(bad, 30, 90, 250).ok());
  bad = oi;
  bad.page_locations[1].offset = 140;  // overlaps page 0
  EXPECT_FALSE(ValidateOffsetIndex(bad, 30, 90, 250).ok());
  bad = oi;
  bad.page_locations[1].compressed_page_size = 0;
  EXPECT_FALSE(ValidateOffsetIndex(bad, 30, 90, 250).ok());
  EXPECT_FALSE(ValidateOffsetIndex(OffsetIndex(), 30, 90, 250).ok());

  EXPECT_EQ(PageRows(oi, 2, 30), (RowRange{20, 30}));
  EXPECT_EQ(PagesForRanges(oi, 30, {{5, 6}, {25, 26}}), (std::vector<size_t>{0, 2}));
  EXPECT_EQ(PagesForRanges(oi, 30, {{9, 11}}), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(PagesForRanges(oi, 30, {{0, 30}}), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(PagesForRanges(oi, 30, {}).empty());
}

// ---- the writer --------------------------------------------------------------------------------

// A writer option set that cuts pages small.
WriterOptions SmallPages(int64_t page_bytes = 1024) {
  WriterOptions o;
  o.data_page_bytes = page_bytes;
  o.enable_dictionary = false;
  return o;
}

TEST(PageIndexWriter, EveryChunkGetsBothIndexesMatchingItsPages) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 100000; ++i) values.push_back(i * 3);
  RecordBatch b = Int64Batch(values);
  WriterOptions o = SmallPages();
  o.row_group_rows = 40000;
  auto bytes = WriteFile(b, o);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto r = Open(*bytes);
  ASSERT_EQ(r->num_row_groups(), 3);
  auto idx = AllIndexes(*r);
  ASSERT_EQ(idx.size(), 3u);
  int64_t row = 0;
  for (int g = 0; g < 3; ++g) {
    const RowGroup& rg = r->metadata().row_groups[g];
    const ColumnMetaData& m = *rg.columns[0].meta_data;
    ASSERT_TRUE(idx[g].offset_index.has_value());
    ASSERT_TRUE(idx[g].column_index.has_value());
    const OffsetIndex& oi = *idx[g].offset_index;
    const ColumnIndex& ci = *idx[g].column_index;
    // Pages end on the writer's steps of 4,096 rows once past ~1 KiB.
    ASSERT_GE(oi.page_locations.size(), 5u);
    EXPECT_EQ(oi.page_locations[0].offset, m.data_page_offset);
    // Each location is one whole page whose header says how many rows it has.
    for (size_t p = 0; p < oi.page_locations.size(); ++p) {
      const PageLocation& l = oi.page_locations[p];
      size_t hl = 0;
      auto h = DecodePageHeader(reinterpret_cast<const uint8_t*>(bytes->data()) + l.offset,
                                bytes->size() - l.offset, &hl);
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(static_cast<int64_t>(hl) + h->compressed_page_size, l.compressed_page_size);
      const RowRange rows = PageRows(oi, p, rg.num_rows);
      EXPECT_EQ(h->data_page_header->num_values, rows.end - rows.begin);
      // min/max are the page's first and last values (ascending data).
      EXPECT_FALSE(ci.null_pages[p]);
      EXPECT_EQ(DecodeInt64(ci.min_values[p]), (row + rows.begin) * 3);
      EXPECT_EQ(DecodeInt64(ci.max_values[p]), (row + rows.end - 1) * 3);
      EXPECT_EQ((*ci.null_counts)[p], 0);
    }
    EXPECT_EQ(ci.boundary_order, BoundaryOrder::ASCENDING);
    row += rg.num_rows;
  }
}

TEST(PageIndexWriter, PagesHoldAtMostDataPageRowsRows) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 100000; ++i) values.push_back(i);
  auto bytes = WriteFile(Int64Batch(values));  // 1 MiB pages: the row limit cuts them
  ASSERT_TRUE(bytes.ok());
  auto idx = AllIndexes(*Open(*bytes));
  ASSERT_TRUE(idx[0].offset_index.has_value());
  const auto& locs = idx[0].offset_index->page_locations;
  ASSERT_EQ(locs.size(), 5u);
  for (size_t p = 0; p < locs.size(); ++p) EXPECT_EQ(locs[p].first_row_index, 20000 * p);
  WriterOptions o;
  o.data_page_rows = 30000;
  bytes = WriteFile(Int64Batch(values), o);
  ASSERT_TRUE(bytes.ok());
  idx = AllIndexes(*Open(*bytes));
  EXPECT_EQ(idx[0].offset_index->page_locations.size(), 4u);
  o.data_page_rows = 0;
  EXPECT_EQ(WriteFile(Int64Batch(values), o).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(PageIndexWriter, NullsAllNullPagesAndDescendingOrder) {
  // Descending values; rows 8192..32767 all null (whole pages of nulls), a few nulls elsewhere.
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 60000; ++i) {
    if ((i >= 8192 && i < 32768) || i % 97 == 0) {
      values.push_back(std::nullopt);
    } else {
      values.push_back(100000 - i);
    }
  }
  auto bytes = WriteFile(Int64Batch(values), SmallPages());
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  auto idx = AllIndexes(*r);
  ASSERT_TRUE(idx[0].column_index.has_value());
  const ColumnIndex& ci = *idx[0].column_index;
  const OffsetIndex& oi = *idx[0].offset_index;
  EXPECT_EQ(ci.boundary_order, BoundaryOrder::DESCENDING);
  int null_pages = 0;
  for (size_t p = 0; p < ci.null_pages.size(); ++p) {
    const RowRange rows = PageRows(oi, p, 60000);
    int64_t nulls = 0;
    for (int64_t i = rows.begin; i < rows.end; ++i) nulls += !values[i].has_value();
    EXPECT_EQ((*ci.null_counts)[p], nulls) << p;
    EXPECT_EQ(ci.null_pages[p], nulls == rows.end - rows.begin) << p;
    if (ci.null_pages[p]) {
      ++null_pages;
      EXPECT_EQ(ci.min_values[p], "");
      EXPECT_EQ(ci.max_values[p], "");
    }
  }
  EXPECT_GE(null_pages, 2);
}

TEST(PageIndexWriter, LongStringsAreTruncatedAsInThePageStatistics) {
  RecordBatch b = EmptyBatch(MustParse("s VARCHAR"));
  for (int i = 0; i < 2000; ++i) {
    b.columns[0].AppendBytes(std::string(100, static_cast<char>('a' + i / 100)) +
                             std::to_string(i));
  }
  b.num_rows = 2000;
  auto bytes = WriteFile(b, SmallPages(4096));
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  auto idx = AllIndexes(*r);
  ASSERT_TRUE(idx[0].column_index.has_value());
  const ColumnIndex& ci = *idx[0].column_index;
  ASSERT_GT(ci.min_values.size(), 10u);
  for (size_t p = 0; p < ci.min_values.size(); ++p) {
    EXPECT_EQ(ci.min_values[p].size(), kMaxStatBytes) << p;
    EXPECT_LE(ci.max_values[p].size(), kMaxStatBytes) << p;
    // The truncated max is above every value of the page: a prefix with its last byte raised.
    const RowRange rows = PageRows(*idx[0].offset_index, p, 2000);
    const std::string last = std::string(100, static_cast<char>('a' + (rows.end - 1) / 100)) +
                             std::to_string(rows.end - 1);
    EXPECT_GT(CompareBytes(ci.max_values[p], last), 0) << p;
    EXPECT_LE(CompareBytes(ci.min_values[p], last), 0) << p;
  }
  EXPECT_EQ(ci.boundary_order, BoundaryOrder::ASCENDING);
}

TEST(PageIndexWriter, NanPageMeansNoColumnIndexButAnOffsetIndex) {
  RecordBatch b = EmptyBatch(MustParse("f FLOAT64, i INT32"));
  for (int i = 0; i < 5000; ++i) {
    b.columns[0].AppendFixed<double>(i == 4000 ? NAN : i * 0.5);
    b.columns[1].AppendFixed<int32_t>(i);
  }
  b.num_rows = 5000;
  auto bytes = WriteFile(b, SmallPages());
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  const ColumnChunk& f = r->metadata().row_groups[0].columns[0];
  const ColumnChunk& i = r->metadata().row_groups[0].columns[1];
  EXPECT_FALSE(f.column_index_offset.has_value());
  EXPECT_FALSE(f.column_index_length.has_value());
  EXPECT_TRUE(f.offset_index_offset.has_value());
  EXPECT_TRUE(i.column_index_offset.has_value());
  auto idx = AllIndexes(*r);
  EXPECT_TRUE(idx[0].offset_index.has_value());
  EXPECT_FALSE(idx[0].column_index.has_value());
  EXPECT_TRUE(idx[1].column_index.has_value());
}

TEST(PageIndexWriter, OffOnRequestAndWithoutStatisticsStillIndexed) {
  RecordBatch b = Int64Batch({1, 2, 3, std::nullopt});
  WriterOptions off;
  off.page_index = false;
  auto bytes = WriteFile(b, off);
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  const ColumnChunk& cc = r->metadata().row_groups[0].columns[0];
  EXPECT_FALSE(cc.offset_index_offset || cc.offset_index_length || cc.column_index_offset ||
               cc.column_index_length);
  // Without statistics, the page index still has its bounds.
  WriterOptions no_stats;
  no_stats.write_statistics = false;
  bytes = WriteFile(b, no_stats);
  ASSERT_TRUE(bytes.ok());
  r = Open(*bytes);
  EXPECT_FALSE(r->metadata().row_groups[0].columns[0].meta_data->statistics.has_value());
  auto idx = AllIndexes(*r);
  ASSERT_TRUE(idx[0].column_index.has_value());
  EXPECT_EQ(DecodeInt64(idx[0].column_index->min_values[0]), 1);
  EXPECT_EQ(DecodeInt64(idx[0].column_index->max_values[0]), 3);
  EXPECT_EQ((*idx[0].column_index->null_counts)[0], 1);
}

TEST(PageIndexWriter, BytesDoNotDependOnThreads) {
  RecordBatch b = EmptyBatch(MustParse("a INT64, s VARCHAR, d DOUBLE, l ARRAY<INT32>"));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 30000; ++i) {
    b.columns[0].AppendFixed<int64_t>(static_cast<int64_t>(rng() % 1000));
    b.columns[1].AppendBytes(std::to_string(rng() % 100000));
    b.columns[2].AppendFixed<double>(static_cast<double>(rng() % 1000) / 7);
    for (int k = 0; k < static_cast<int>(rng() % 3); ++k) {
      b.columns[3].child->AppendFixed<int32_t>(static_cast<int32_t>(rng()));
    }
    b.columns[3].AppendArrayRow();
  }
  b.num_rows = 30000;
  WriterOptions o = SmallPages(2048);
  o.row_group_rows = 7000;
  o.threads = 1;
  auto one = WriteFile(b, o);
  o.threads = 4;
  auto four = WriteFile(b, o);
  ASSERT_TRUE(one.ok() && four.ok());
  EXPECT_TRUE(*one == *four);
}

// ---- the reader --------------------------------------------------------------------------------

TEST(PageIndexReader, ReadRowsReadsOnlyThePagesItNeeds) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 100000; ++i) values.push_back(i);
  auto bytes = WriteFile(Int64Batch(values), SmallPages(4096));
  ASSERT_TRUE(bytes.ok());
  auto counting = std::make_shared<CountingFile>(MemoryFile(*bytes));
  auto opened = FileReader::Open(counting);
  ASSERT_TRUE(opened.ok());
  const FileReader& r = **opened;
  const int64_t after_open = counting->bytes();
  RowSelection sel(1);
  sel[0] = {{54321, 54322}};
  auto got = r.ReadRows(sel);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->num_rows, 1);
  EXPECT_EQ(got->columns[0].Value<int64_t>(0), 54321);
  const ReadStats st = r.stats();
  EXPECT_EQ(st.data_pages_read, 1);
  EXPECT_GE(st.data_pages_skipped, 20);  // pages of 4,096 rows
  // One page and the offset index, not the chunk.
  const int64_t chunk = r.metadata().row_groups[0].columns[0].meta_data->total_compressed_size;
  EXPECT_LT(counting->bytes() - after_open, chunk / 10);

  // A whole row group reads as before: every page.
  sel[0] = {{0, 100000}};
  got = r.ReadRows(sel);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->num_rows, 100000);
  EXPECT_EQ(r.stats().data_pages_read - st.data_pages_read, st.data_pages_skipped + 1);
}

// Every read counts its pages, ReadRowGroupSubset (the bloom filters' read) too.
TEST(PageIndexReader, ReadRowGroupSubsetCountsPages) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 30000; ++i) values.push_back(i);
  WriterOptions o = SmallPages(4096);
  o.row_group_rows = 10000;
  auto bytes = WriteFile(Int64Batch(values), o);
  ASSERT_TRUE(bytes.ok());
  auto opened = FileReader::Open(MemoryFile(*bytes));
  ASSERT_TRUE(opened.ok());
  const FileReader& r = **opened;
  ASSERT_EQ(r.num_row_groups(), 3);
  auto got = r.ReadRowGroupSubset({0, 2});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->num_rows, 20000);
  EXPECT_EQ(got->columns[0].Value<int64_t>(10000), 20000);
  EXPECT_GT(r.stats().data_pages_read, 2);
}

// Every type, lists, nulls, dictionary and plain, V1 and V2 pages, several row groups: reading a
// random selection gives exactly the selected rows of a full read.
// `rows` rows of a column of every kind the reader decodes differently, with nulls (whole
// stretches of them in `n`), random by `rng`.
RecordBatch MixedBatch(int64_t rows, std::mt19937_64& rng) {
  const Schema schema = MustParse(
      "i INT64, s VARCHAR, d DECIMAL(38,4), u UUID, f FLOAT32, b BOOLEAN, n INT32, "
      "l ARRAY<VARCHAR>, ll ARRAY<ARRAY<INT16>>, t TIMESTAMP[ms], "
      "p STRUCT<a: INT32, l: ARRAY<VARCHAR>>, m MAP<VARCHAR, INT64>, q STRUCT<x: INT64>");
  RecordBatch b = EmptyBatch(schema);
  for (int64_t i = 0; i < rows; ++i) {
    auto maybe_null = [&](Column& c, auto append) {
      if (rng() % 10 == 0) {
        c.AppendNull();
      } else {
        append(c);
      }
    };
    maybe_null(b.columns[0], [&](Column& c) { c.AppendFixed<int64_t>(i); });
    maybe_null(b.columns[1], [&](Column& c) { c.AppendBytes("v" + std::to_string(rng() % 50)); });
    maybe_null(b.columns[2], [&](Column& c) {
      c.AppendFixed<int128>(static_cast<int128>(static_cast<int64_t>(rng() % 2000000)) - 1000000);
    });
    maybe_null(b.columns[3], [&](Column& c) {
      uint8_t u[16];
      for (uint8_t& x : u) x = static_cast<uint8_t>(rng());
      c.AppendFixedBytes(u, 16);
    });
    maybe_null(b.columns[4], [&](Column& c) { c.AppendFixed<float>(rng() % 3 ? 1.5f : NAN); });
    maybe_null(b.columns[5], [&](Column& c) { c.AppendFixed<uint8_t>(rng() & 1); });
    // n: whole stretches of nulls (all-null pages).
    if ((i / 3000) % 2 == 1) {
      b.columns[6].AppendNull();
    } else {
      b.columns[6].AppendFixed<int32_t>(static_cast<int32_t>(i % 1000));
    }
    maybe_null(b.columns[7], [&](Column& c) {
      const int n = static_cast<int>(rng() % 4);
      for (int k = 0; k < n; ++k) {
        if (rng() % 5 == 0) {
          c.child->AppendNull();
        } else {
          c.child->AppendBytes(std::string(rng() % 8, 'x'));
        }
      }
      c.AppendArrayRow();
    });
    maybe_null(b.columns[8], [&](Column& c) {
      const int n = static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) {
        Column& inner = *c.child;
        const int m = static_cast<int>(rng() % 3);
        for (int j = 0; j < m; ++j) inner.child->AppendFixed<int16_t>(static_cast<int16_t>(rng()));
        inner.AppendArrayRow();
      }
      c.AppendArrayRow();
    });
    maybe_null(b.columns[9], [&](Column& c) { c.AppendFixed<int64_t>(i * 1000); });
    // Fields of several leaves (decoded whole, then cut) and a struct of one leaf.
    maybe_null(b.columns[10], [&](Column& c) {
      maybe_null(c.members[0], [&](Column& a) { a.AppendFixed<int32_t>(static_cast<int32_t>(i)); });
      maybe_null(c.members[1], [&](Column& l) {
        for (uint64_t k = rng() % 3; k > 0; --k) l.child->AppendBytes("e" + std::to_string(k));
        l.AppendArrayRow();
      });
      c.AppendStructRow();
    });
    maybe_null(b.columns[11], [&](Column& c) {
      for (uint64_t k = rng() % 4; k > 0; --k) {
        c.members[0].AppendBytes("k" + std::to_string(k));
        maybe_null(c.members[1], [&](Column& v) { v.AppendFixed<int64_t>(i + k); });
      }
      c.AppendArrayRow();
    });
    maybe_null(b.columns[12], [&](Column& c) {
      c.members[0].AppendFixed<int64_t>(-i);
      c.AppendStructRow();
    });
  }
  b.num_rows = rows;
  return b;
}

TEST(PageIndexReader, RandomSelectionsEqualTheFullReadCut) {
  std::mt19937_64 rng(42);
  const RecordBatch b = MixedBatch(20000, rng);
  for (int version : {1, 2}) {
    for (bool dict : {true, false}) {
      SCOPED_TRACE("V" + std::to_string(version) + (dict ? " dictionary" : " plain"));
      WriterOptions o;
      o.data_page_bytes = 2048;
      o.row_group_rows = 7000;
      o.enable_dictionary = dict;
      o.data_page_version = version;
      auto bytes = WriteFile(b, o);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      auto r = Open(*bytes);
      auto all = r->ReadAll();
      ASSERT_TRUE(all.ok());
      for (int trial = 0; trial < 12; ++trial) {
        RowSelection sel(r->num_row_groups());
        for (int g = 0; g < r->num_row_groups(); ++g) {
          const int64_t n = r->metadata().row_groups[g].num_rows;
          if (trial % 4 == 3 && g == 1) continue;  // a whole group left out
          if (trial == 0) {                        // one row per group
            sel[g].push_back({n / 2, n / 2 + 1});
            continue;
          }
          int64_t at = static_cast<int64_t>(rng() % 50);
          while (at < n) {
            const int64_t len = trial % 2 ? 1 : 1 + static_cast<int64_t>(rng() % 300);
            sel[g].push_back({at, std::min(n, at + len)});
            at += len + static_cast<int64_t>(rng() % (trial < 6 ? 4000 : 200));
          }
        }
        const ReadStats before = r->stats();
        auto got = r->ReadRows(sel);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ExpectSelected(r->metadata(), *all, sel, *got);
        if (trial == 0) {
          EXPECT_GT(r->stats().data_pages_skipped, before.data_pages_skipped);
        }
      }
    }
  }
}

// Every row of `all`, in order, across `batches`, each of at most `most` rows (unless 0).
void ExpectConcatenation(const RecordBatch& all, const std::vector<RecordBatch>& batches,
                         int64_t most) {
  int64_t at = 0;
  for (const RecordBatch& got : batches) {
    ASSERT_GT(got.num_rows, 0);
    if (most > 0) {
      ASSERT_LE(got.num_rows, most);
    }
    ASSERT_EQ(got.columns.size(), all.columns.size());
    for (size_t k = 0; k < all.columns.size(); ++k) {
      ASSERT_EQ(got.columns[k].length, got.num_rows) << "column " << k;
      ASSERT_EQ(got.columns[k].type, all.columns[k].type);
      for (int64_t r = 0; r < got.num_rows; ++r) {
        ASSERT_TRUE(SameValue(got.columns[k], r, all.columns[k], at + r))
            << "column " << k << ", row " << at + r;
      }
    }
    at += got.num_rows;
  }
  EXPECT_EQ(at, all.num_rows);
}

TEST(ReadBatches, ConcatenateToTheWholeReadAtEveryBatchSize) {
  std::mt19937_64 rng(7);
  const RecordBatch b = MixedBatch(20000, rng);
  for (int version : {1, 2}) {
    for (bool dict : {true, false}) {
      SCOPED_TRACE("V" + std::to_string(version) + (dict ? " dictionary" : " plain"));
      WriterOptions o;
      o.data_page_bytes = 2048;  // pages of unlike rows in each column
      o.row_group_rows = 7000;
      o.enable_dictionary = dict;
      o.data_page_version = version;
      auto bytes = WriteFile(b, o);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      for (int threads : {1, 2}) {
        auto r = Open(*bytes, threads);
        auto all = r->ReadAll();
        ASSERT_TRUE(all.ok());
        // Below a page, across pages, around a row group, and several groups in one batch.
        for (int64_t most : {int64_t{97}, int64_t{2048}, int64_t{6999}, int64_t{7000},
                             int64_t{7001}, int64_t{50000}, int64_t{0}}) {
          SCOPED_TRACE("batches of " + std::to_string(most) + ", threads " +
                       std::to_string(threads));
          std::vector<RecordBatch> got;
          const ReadStats before = r->stats();
          Status st = r->ReadBatches({}, most, [&](RecordBatch&& batch) {
            got.push_back(std::move(batch));
            return Status::OK();
          });
          ASSERT_TRUE(st.ok()) << st.ToString();
          ExpectConcatenation(*all, got, most);
          const int64_t groups = most == 0 || most >= 20000 ? 1 : most > 7000 ? 3 : -1;
          if (groups > 0) {
            EXPECT_EQ(static_cast<int64_t>(got.size()), groups);
          }
          if (most == 97) {
            EXPECT_EQ(static_cast<int64_t>(got.size()), 73 + 73 + 62);  // 7000, 7000, 6000 rows
            // Each data page decoded once, whatever the batches.
            const ReadStats whole_before = r->stats();
            ASSERT_TRUE(r->ReadAll().ok());
            EXPECT_EQ(r->stats().data_pages_read - whole_before.data_pages_read,
                      whole_before.data_pages_read - before.data_pages_read);
          }
        }
        // Some fields, in another order.
        std::vector<RecordBatch> got;
        ASSERT_TRUE(r->ReadBatches({11, 1, 0}, 1000, [&](RecordBatch&& batch) {
                       got.push_back(std::move(batch));
                       return Status::OK();
                     }).ok());
        auto some = r->ReadAll({11, 1, 0});
        ASSERT_TRUE(some.ok());
        ExpectConcatenation(*some, got, 1000);
      }
    }
  }
}

TEST(ReadBatches, PulledOneAtATimeAsTheyAreHandedOver) {
  std::mt19937_64 rng(11);
  const RecordBatch b = MixedBatch(9000, rng);
  WriterOptions o;
  o.row_group_rows = 2500;  // groups of 2,500, 2,500, 2,500 and 1,500 rows
  auto bytes = WriteFile(b, o);
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  auto all = r->ReadAll();
  ASSERT_TRUE(all.ok());
  for (int64_t most : {int64_t{1000}, int64_t{5000}, int64_t{0}}) {
    SCOPED_TRACE("batches of " + std::to_string(most));
    auto batches = r->Batches({}, most);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    std::vector<RecordBatch> got;
    for (;;) {
      auto next = (*batches)->Next();
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      if (!*next) break;
      got.push_back(std::move(**next));
    }
    ExpectConcatenation(*all, got, most);
    EXPECT_EQ(got.size(), most == 1000 ? 11u : most == 5000 ? 2u : 1u);  // 3+3+3+2; 2+2
    auto again = (*batches)->Next();                                     // the end stays the end
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(*again);
  }
  // Dropped half way: nothing else to do.
  auto batches = r->Batches({}, 700);
  ASSERT_TRUE(batches.ok());
  ASSERT_TRUE((*batches)->Next().ok());
  EXPECT_EQ(r->Batches({99}, 700).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(ReadBatches, StopsAtTheCallersErrorAndReportsACorruptChunk) {
  std::mt19937_64 rng(3);
  const RecordBatch b = MixedBatch(5000, rng);
  auto bytes = WriteFile(b);
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  int calls = 0;
  Status st = r->ReadBatches({}, 1000, [&](RecordBatch&&) {
    return ++calls == 2 ? Status::Cancelled("enough") : Status::OK();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kCancelled);
  EXPECT_EQ(calls, 2);
  // The first data page header of the first column overwritten: an error naming the column,
  // never a crash.
  const ColumnMetaData& m = *r->metadata().row_groups[0].columns[0].meta_data;
  std::string broken = *bytes;
  const size_t at = static_cast<size_t>(m.data_page_offset);
  for (size_t k = at; k < at + 16; ++k) broken[k] = static_cast<char>(0xff);
  auto bad = Open(broken);
  ASSERT_NE(bad, nullptr);
  st = bad->ReadBatches({}, 1000, [](RecordBatch&&) { return Status::OK(); });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("column 'i'"), std::string::npos) << st.ToString();
}

TEST(PageIndexReader, AFileWithoutPageIndexReadsTheSameRows) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 30000; ++i)
    values.push_back(i % 7 == 0 ? std::nullopt : std::optional(i));
  WriterOptions o = SmallPages();
  o.page_index = false;
  o.row_group_rows = 10000;
  auto bytes = WriteFile(Int64Batch(values), o);
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  auto all = r->ReadAll();
  ASSERT_TRUE(all.ok());
  RowSelection sel = {{{5, 6}, {9000, 9100}}, {}, {{0, 1}, {9999, 10000}}};
  auto got = r->ReadRows(sel);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectSelected(r->metadata(), *all, sel, *got);
  EXPECT_EQ(r->stats().data_pages_skipped, 0);
  EXPECT_EQ(r->stats().row_groups_skipped, 1);
  auto idx = AllIndexes(*r);
  for (const ChunkPageIndex& c : idx) EXPECT_FALSE(c.offset_index || c.column_index);
}

TEST(PageIndexReader, SelectionsAreChecked) {
  auto bytes = WriteFile(Int64Batch({1, 2, 3}));
  ASSERT_TRUE(bytes.ok());
  auto r = Open(*bytes);
  for (const RowSelection& bad : std::vector<RowSelection>{
           {}, {{{0, 4}}}, {{{1, 1}}}, {{{2, 3}, {0, 1}}}, {{{0, 2}, {1, 3}}}, {{{-1, 1}}}}) {
    auto got = r->ReadRows(bad);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().kind(), ErrorKind::kInvalidArgument) << got.status().ToString();
  }
}

// Rewrites the page index region of a tarn file: `edit` changes the decoded indexes, then the
// indexes and the footer are written again after the last column chunk.
std::string RewritePageIndex(const std::string& bytes,
                             const std::function<void(std::vector<ChunkPageIndex>&)>& edit) {
  auto r = Open(bytes);
  std::vector<ChunkPageIndex> idx = AllIndexes(*r);
  edit(idx);
  FileMetaData md = r->metadata();
  int64_t end = 0;
  for (const RowGroup& rg : md.row_groups) {
    for (const ColumnChunk& cc : rg.columns) {
      end = std::max(end, cc.meta_data->data_page_offset + cc.meta_data->total_compressed_size);
    }
  }
  std::string out = bytes.substr(0, static_cast<size_t>(end));
  size_t k = 0;
  for (RowGroup& rg : md.row_groups) {
    for (ColumnChunk& cc : rg.columns) {
      ByteBuffer ob, cb;
      EncodeOffsetIndex(*idx[k].offset_index, &ob);
      cc.offset_index_offset = static_cast<int64_t>(out.size());
      cc.offset_index_length = static_cast<int32_t>(ob.size());
      out.append(reinterpret_cast<const char*>(ob.data()), ob.size());
      if (idx[k].column_index) {
        EncodeColumnIndex(*idx[k].column_index, &cb);
        cc.column_index_offset = static_cast<int64_t>(out.size());
        cc.column_index_length = static_cast<int32_t>(cb.size());
        out.append(reinterpret_cast<const char*>(cb.data()), cb.size());
      }
      ++k;
    }
  }
  ByteBuffer footer;
  EncodeFileMetaData(md, &footer);
  const uint32_t len = static_cast<uint32_t>(footer.size());
  out.append(reinterpret_cast<const char*>(footer.data()), footer.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += "PAR1";
  return out;
}

TEST(PageIndexReader, AnIndexThatDisagreesWithItsChunkIsNotUsedOrIsCorruption) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 20000; ++i) values.push_back(i);
  auto bytes = WriteFile(Int64Batch(values), SmallPages());
  ASSERT_TRUE(bytes.ok());
  RowSelection sel = {{{12345, 12346}}};

  // The rewrite itself keeps the file good.
  auto same = Open(RewritePageIndex(*bytes, [](auto&) {}));
  auto got = same->ReadRows(sel);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->columns[0].Value<int64_t>(0), 12345);
  EXPECT_EQ(same->stats().data_pages_read, 1);

  // Pages outside the chunk: the index is ignored and the whole chunk read.
  auto outside = Open(RewritePageIndex(*bytes, [](std::vector<ChunkPageIndex>& idx) {
    idx[0].offset_index->page_locations.back().compressed_page_size += 100000;
  }));
  got = outside->ReadRows(sel);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->columns[0].Value<int64_t>(0), 12345);
  EXPECT_EQ(outside->stats().data_pages_read, 5);  // pages of 4,096 rows
  EXPECT_EQ(outside->stats().data_pages_skipped, 0);

  // A first row that lies (still in order): the page holds another number of rows than the
  // index gives it, which the read reports instead of returning wrong rows. (An index shifting
  // every page by the same amount cannot be told from a true one.)
  auto lying = Open(RewritePageIndex(*bytes, [](std::vector<ChunkPageIndex>& idx) {
    idx[0].offset_index->page_locations[3].first_row_index += 1;
  }));
  got = lying->ReadRows(sel);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(got.status().message().find("disagrees with the offset index"), std::string::npos)
      << got.status().ToString();
}

}  // namespace
}  // namespace tarn::parquet
