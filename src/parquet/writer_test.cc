#include "parquet/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "common/io.h"
#include "parquet/decoding.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "parquet/stat_value.h"
#include "parquet/statistics.h"
#include "types/json_render.h"

namespace tarn::parquet {
namespace {

// A written file and its decoded footer.
struct Written {
  std::string bytes;
  FileMetaData md;
};

Result<Written> WriteBatches(const Schema& schema, const std::vector<const RecordBatch*>& batches,
                             WriterOptions options = {}) {
  auto mem = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* raw = mem.get();
  TARN_ASSIGN_OR_RETURN(auto w, FileWriter::Open(std::move(mem), schema, options));
  for (const RecordBatch* b : batches) TARN_RETURN_NOT_OK(w->Write(*b));
  TARN_RETURN_NOT_OK(w->Close());
  EXPECT_TRUE(raw->closed());
  Written out;
  out.bytes = raw->bytes();
  if (out.bytes.size() < 12) return Status::Corruption("short file");
  uint32_t len;
  std::memcpy(&len, out.bytes.data() + out.bytes.size() - 8, 4);
  EXPECT_EQ(out.bytes.substr(0, 4), "PAR1");
  EXPECT_EQ(out.bytes.substr(out.bytes.size() - 4), "PAR1");
  TARN_ASSIGN_OR_RETURN(
      out.md,
      DecodeFileMetaData(
          reinterpret_cast<const uint8_t*>(out.bytes.data()) + out.bytes.size() - 8 - len, len));
  return out;
}

RecordBatch EmptyBatch(const Schema& schema) {
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  return b;
}

// Appends one random value of a scalar type (valid per the type's invariants).
void AppendRandom(Column& c, std::mt19937_64& rng) {
  const DataType& t = c.type;
  switch (t.id()) {
    case TypeId::kBoolean:
      c.AppendFixed<uint8_t>(rng() & 1);
      break;
    case TypeId::kInt8:
      c.AppendFixed<int8_t>(static_cast<int8_t>(rng()));
      break;
    case TypeId::kInt16:
      c.AppendFixed<int16_t>(static_cast<int16_t>(rng()));
      break;
    case TypeId::kInt32:
      c.AppendFixed<int32_t>(static_cast<int32_t>(rng() % 50));
      break;
    case TypeId::kInt64:
      c.AppendFixed<int64_t>(static_cast<int64_t>(rng()));
      break;
    case TypeId::kUInt8:
      c.AppendFixed<uint8_t>(static_cast<uint8_t>(rng()));
      break;
    case TypeId::kUInt16:
      c.AppendFixed<uint16_t>(static_cast<uint16_t>(rng()));
      break;
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      c.AppendFixed<uint32_t>(static_cast<uint32_t>(rng()));
      break;
    case TypeId::kUInt64:
      c.AppendFixed<uint64_t>(rng());
      break;
    case TypeId::kFloat32: {
      static const float kSpecial[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f};
      c.AppendFixed<float>(rng() % 5 == 0 ? kSpecial[rng() % 6]
                                          : static_cast<float>(static_cast<int64_t>(rng())) / 1e9f);
      break;
    }
    case TypeId::kFloat64: {
      static const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 5e-324};
      c.AppendFixed<double>(rng() % 5 == 0
                                ? kSpecial[rng() % 6]
                                : static_cast<double>(static_cast<int64_t>(rng())) / 7.0);
      break;
    }
    case TypeId::kDecimal: {
      int128 limit = 1;
      for (int i = 0; i < t.precision(); ++i) limit *= 10;
      uint128 r = (static_cast<uint128>(rng()) << 64) | rng();
      int128 v = static_cast<int128>(r % static_cast<uint128>(limit));
      if (rng() & 1) v = -v;
      if (rng() % 10 == 0) v = (rng() & 1) ? limit - 1 : -(limit - 1);
      c.AppendFixed<int128>(v);
      break;
    }
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson: {
      std::string s;
      size_t len = rng() % 4 == 0 ? rng() % 100 : rng() % 6;
      for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>('a' + rng() % 3));
      if (t.id() == TypeId::kBlob && !s.empty()) s[0] = static_cast<char>(rng());
      c.AppendBytes(s);
      break;
    }
    case TypeId::kDate:
      c.AppendFixed<int32_t>(static_cast<int32_t>(rng() % 40000) - 20000);
      break;
    case TypeId::kTime:
      c.AppendFixed<int64_t>(static_cast<int64_t>(
          rng() % (t.unit() == TimeUnit::kNano ? 86400000000000ull : 86400000000ull)));
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      c.AppendFixed<int64_t>(static_cast<int64_t>(rng() % 4000000000000ull) - 2000000000000);
      break;
    case TypeId::kUuid: {
      uint8_t u[16];
      for (uint8_t& b : u) b = static_cast<uint8_t>(rng());
      c.data.insert(c.data.end(), u, u + 16);
      if (!c.validity.empty()) c.validity.push_back(1);
      ++c.length;
      break;
    }
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      break;
  }
}

// Appends one row: null with probability null_pct/100 when nullable; arrays and maps of 0..4
// elements; nested fields nullable as their types say.
void AppendRandomRow(Column& c, bool nullable, int null_pct, std::mt19937_64& rng) {
  if (nullable && static_cast<int>(rng() % 100) < null_pct) {
    c.AppendNull();
    return;
  }
  const std::vector<Field>& kids = c.type.children();
  switch (c.type.id()) {
    case TypeId::kArray: {
      int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) AppendRandomRow(*c.child, kids[0].nullable, null_pct, rng);
      c.AppendArrayRow();
      return;
    }
    case TypeId::kMap: {
      int n = static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) {
        AppendRandomRow(c.members[0], false, null_pct, rng);
        AppendRandomRow(c.members[1], kids[1].nullable, null_pct, rng);
      }
      c.AppendArrayRow();
      return;
    }
    case TypeId::kStruct:
      for (size_t k = 0; k < kids.size(); ++k) {
        AppendRandomRow(c.members[k], kids[k].nullable, null_pct, rng);
      }
      c.AppendStructRow();
      return;
    default:
      AppendRandom(c, rng);
  }
}

RecordBatch RandomBatch(const Schema& schema, int64_t rows, int null_pct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  RecordBatch b = EmptyBatch(schema);
  for (size_t f = 0; f < schema.fields.size(); ++f) {
    const Field& field = schema.fields[f];
    for (int64_t r = 0; r < rows; ++r) AppendRandomRow(b.columns[f], field.nullable, null_pct, rng);
  }
  b.num_rows = rows;
  return b;
}

// Compares value i of a with value j of b (both valid).
::testing::AssertionResult SameValue(const Column& a, int64_t i, const Column& b, int64_t j) {
  if (a.IsValid(i) != b.IsValid(j)) {
    return ::testing::AssertionFailure() << "validity differs at " << i;
  }
  if (!a.IsValid(i)) return ::testing::AssertionSuccess();
  if (a.type.id() == TypeId::kStruct) {
    for (size_t k = 0; k < a.members.size(); ++k) {
      auto r = SameValue(a.members[k], i, b.members[k], j);
      if (!r) return r << " (member " << a.type.children()[k].name << " of row " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  if (a.type.id() == TypeId::kMap) {
    int64_t na = a.offsets[i + 1] - a.offsets[i], nb = b.offsets[j + 1] - b.offsets[j];
    if (na != nb) {
      return ::testing::AssertionFailure() << "map size " << na << " vs " << nb << " at " << i;
    }
    for (int64_t k = 0; k < na; ++k) {
      for (int m = 0; m < 2; ++m) {
        auto r = SameValue(a.members[m], a.offsets[i] + k, b.members[m], b.offsets[j] + k);
        if (!r) return r << " (" << (m ? "value" : "key") << " " << k << " of row " << i << ")";
      }
    }
    return ::testing::AssertionSuccess();
  }
  if (a.type.id() == TypeId::kArray) {
    int64_t na = a.offsets[i + 1] - a.offsets[i], nb = b.offsets[j + 1] - b.offsets[j];
    if (na != nb) {
      return ::testing::AssertionFailure() << "array length " << na << " vs " << nb << " at " << i;
    }
    for (int64_t k = 0; k < na; ++k) {
      auto r = SameValue(*a.child, a.offsets[i] + k, *b.child, b.offsets[j] + k);
      if (!r) return r << " (element " << k << " of row " << i << ")";
    }
    return ::testing::AssertionSuccess();
  }
  if (a.type.is_variable_width()) {
    if (a.StringAt(i) != b.StringAt(j)) {
      return ::testing::AssertionFailure() << "bytes differ at " << i;
    }
    return ::testing::AssertionSuccess();
  }
  int w = a.type.PhysicalWidth();
  if (std::memcmp(a.data.data() + i * w, b.data.data() + j * w, w) != 0) {
    return ::testing::AssertionFailure() << "value differs at " << i;
  }
  return ::testing::AssertionSuccess();
}

void ExpectBatchesEqual(const std::vector<const RecordBatch*>& written, const RecordBatch& read) {
  int64_t total = 0;
  for (const RecordBatch* b : written) total += b->num_rows;
  ASSERT_EQ(read.num_rows, total);
  ASSERT_EQ(read.columns.size(), written[0]->columns.size());
  for (size_t c = 0; c < read.columns.size(); ++c) {
    SCOPED_TRACE(written[0]->schema.fields[c].name);
    ASSERT_EQ(read.columns[c].type, written[0]->columns[c].type) << read.columns[c].type.ToString();
    int64_t row = 0;
    for (const RecordBatch* b : written) {
      for (int64_t i = 0; i < b->num_rows; ++i, ++row) {
        ASSERT_TRUE(SameValue(b->columns[c], i, read.columns[c], row)) << "row " << row;
      }
    }
  }
}

Result<RecordBatch> ReadBack(const Written& w) {
  TARN_ASSIGN_OR_RETURN(auto reader, FileReader::Open(MemoryFile(w.bytes)));
  return reader->ReadAll();
}

const char* kAllTypes =
    "b BOOLEAN, i8 INT8, i16 INT16, i32 INT32, i64 INT64 NOT NULL, u8 UINT8, u16 UINT16, "
    "u32 UINT32, u64 UINT64, f32 FLOAT32, f64 FLOAT64, d4 DECIMAL(4,1), d18 DECIMAL(18,6), "
    "d20 DECIMAL(20,2), d38 DECIMAL(38,0), s VARCHAR, bl BLOB, j JSON, dt DATE, tm TIME, tm9 "
    "TIME[ns], "
    "ts0 TIMESTAMP[s], ts3 TIMESTAMP[ms], ts6 TIMESTAMP[us], ts9 TIMESTAMP[ns], "
    "tz TIMESTAMPTZ[us], tz9 TIMESTAMPTZ[ns], u UUID, ip IPV4, a ARRAY<INT64>, "
    "as ARRAY<VARCHAR>, aa ARRAY<ARRAY<DECIMAL(25,3)>>, au ARRAY<UUID>";

Schema AllTypes() {
  auto s = Schema::Parse(kAllTypes);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

TEST(FileWriter, FooterLayoutAndRowGroups) {
  Schema schema = AllTypes();
  RecordBatch b = RandomBatch(schema, 2500, 10, 1);
  WriterOptions o;
  o.row_group_rows = 1000;
  auto w = WriteBatches(schema, {&b}, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const FileMetaData& md = w->md;
  EXPECT_EQ(md.num_rows, 2500);
  ASSERT_EQ(md.row_groups.size(), 3u);
  EXPECT_EQ(md.row_groups[0].num_rows, 1000);
  EXPECT_EQ(md.row_groups[2].num_rows, 500);
  EXPECT_EQ(md.created_by, "tarn version 0.1.0");
  EXPECT_TRUE(md.column_orders_type_defined);
  ASSERT_FALSE(md.key_value_metadata.empty());
  EXPECT_EQ(md.key_value_metadata.back().key, kTarnSchemaKey);
  EXPECT_EQ(md.key_value_metadata.back().value, schema.ToString());
  // Chunks are contiguous, in schema order, between the magic and the footer.
  int64_t pos = 4;
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const RowGroup& rg = md.row_groups[g];
    EXPECT_EQ(rg.ordinal, static_cast<int16_t>(g));
    EXPECT_EQ(rg.file_offset, pos);
    ASSERT_EQ(rg.columns.size(), 33u);  // one leaf per field
    int64_t compressed = 0;
    for (const ColumnChunk& cc : rg.columns) {
      const ColumnMetaData& m = *cc.meta_data;
      int64_t start = m.dictionary_page_offset ? *m.dictionary_page_offset : m.data_page_offset;
      EXPECT_EQ(start, pos);
      EXPECT_EQ(cc.file_offset, pos);
      EXPECT_EQ(m.codec, Codec::ZSTD);
      pos += m.total_compressed_size;
      compressed += m.total_compressed_size;
      ASSERT_TRUE(m.statistics.has_value());
      EXPECT_TRUE(m.statistics->null_count.has_value());
      // Walk the pages: their headers and bodies add up to the chunk.
      int64_t p = start, values = 0;
      int pages = 0;
      while (p < start + m.total_compressed_size) {
        size_t hl = 0;
        auto h = DecodePageHeader(reinterpret_cast<const uint8_t*>(w->bytes.data()) + p,
                                  w->bytes.size() - p, &hl);
        ASSERT_TRUE(h.ok()) << h.status().ToString();
        if (pages == 0 && m.dictionary_page_offset) {
          EXPECT_EQ(h->type, PageType::DICTIONARY_PAGE);
        } else {
          EXPECT_EQ(h->type, PageType::DATA_PAGE);
          ASSERT_TRUE(h->data_page_header.has_value());
          values += h->data_page_header->num_values;
        }
        if (pages == 1 && m.dictionary_page_offset) {
          EXPECT_EQ(p, m.data_page_offset);
        }
        p += static_cast<int64_t>(hl) + h->compressed_page_size;
        ++pages;
      }
      EXPECT_EQ(p, start + m.total_compressed_size);
      EXPECT_EQ(values, m.num_values);
    }
    EXPECT_EQ(rg.total_compressed_size, compressed);
  }
  // Then the page index: every column index, then every offset index, in chunk order.
  for (bool offsets : {false, true}) {
    for (const RowGroup& rg : md.row_groups) {
      for (const ColumnChunk& cc : rg.columns) {
        const auto& off = offsets ? cc.offset_index_offset : cc.column_index_offset;
        const auto& len = offsets ? cc.offset_index_length : cc.column_index_length;
        ASSERT_EQ(off.has_value(), len.has_value());
        if (!off) {
          EXPECT_FALSE(offsets) << "every chunk has an offset index";
          continue;
        }
        EXPECT_EQ(*off, pos);
        pos += *len;
      }
    }
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, w->bytes.data() + w->bytes.size() - 8, 4);
  EXPECT_EQ(static_cast<size_t>(pos), w->bytes.size() - 8 - footer_len);  // footer follows
}

TEST(FileWriter, RoundTripEveryTypeWithNullsAndArrays) {
  Schema schema = AllTypes();
  RecordBatch b1 = RandomBatch(schema, 1500, 15, 11);
  RecordBatch b2 = RandomBatch(schema, 10, 0, 12);
  RecordBatch b3 = RandomBatch(schema, 900, 50, 13);
  WriterOptions o;
  o.row_group_rows = 700;
  o.data_page_bytes = 2000;  // many pages
  auto w = WriteBatches(schema, {&b1, &b2, &b3}, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->md.row_groups.size(), 4u);
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b1, &b2, &b3}, *back);
}

TEST(FileWriter, RoundTripEveryCodecWithAndWithoutDictionary) {
  Schema schema = AllTypes();
  RecordBatch b = RandomBatch(schema, 300, 20, 5);
  for (CompressionCodec codec :
       {CompressionCodec::kNone, CompressionCodec::kSnappy, CompressionCodec::kGzip,
        CompressionCodec::kZstd, CompressionCodec::kLz4Raw, CompressionCodec::kBrotli}) {
    for (int variant = 0; variant < 4; ++variant) {
      bool dict = variant % 2 == 0;
      int version = variant < 2 ? 1 : 2;
      SCOPED_TRACE(std::string(CompressionCodecName(codec)) + (dict ? " dict" : " plain") + " v" +
                   std::to_string(version));
      WriterOptions o;
      o.codec = codec;
      o.enable_dictionary = dict;
      o.data_page_version = version;
      o.data_page_bytes = 3000;
      o.threads = dict ? 1 : 3;
      auto w = WriteBatches(schema, {&b}, o);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      EXPECT_EQ(w->md.version, version);
      for (const ColumnChunk& cc : w->md.row_groups[0].columns) {
        if (!dict) {
          EXPECT_FALSE(cc.meta_data->dictionary_page_offset.has_value());
        }
      }
      auto back = ReadBack(*w);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      ExpectBatchesEqual({&b}, *back);
    }
  }
  WriterOptions lz4;
  lz4.codec = CompressionCodec::kLz4Hadoop;
  auto bad = FileWriter::Open(std::make_unique<MemoryOutputStream>(), schema, lz4);
  EXPECT_EQ(bad.status().kind(), ErrorKind::kInvalidArgument);
}

TEST(FileWriter, ArraysEmptyNullAndNullElements) {
  auto schema = Schema::Parse("a ARRAY<INT32>, r ARRAY<VARCHAR> NOT NULL, n ARRAY<ARRAY<INT8>>");
  ASSERT_TRUE(schema.ok());
  schema->fields[1].type = DataType::Array(schema->fields[1].type.element(), -1, false);
  RecordBatch b = EmptyBatch(*schema);
  Column& a = b.columns[0];
  a.AppendNull();      // null list
  a.AppendArrayRow();  // empty list
  a.child->AppendNull();
  a.AppendArrayRow();  // [null]
  a.child->AppendFixed<int32_t>(1);
  a.child->AppendNull();
  a.child->AppendFixed<int32_t>(3);
  a.AppendArrayRow();  // [1, null, 3]
  Column& r = b.columns[1];
  r.AppendArrayRow();
  r.child->AppendBytes("x");
  r.AppendArrayRow();
  r.child->AppendBytes("");
  r.child->AppendBytes("yz");
  r.AppendArrayRow();
  r.AppendArrayRow();
  Column& n = b.columns[2];
  n.AppendArrayRow();  // []
  n.child->AppendNull();
  n.child->AppendArrayRow();
  n.AppendArrayRow();  // [null, []]
  n.child->child->AppendFixed<int8_t>(-5);
  n.child->AppendArrayRow();
  n.AppendNull();  // null: its range is empty, so [-5] belongs to the next row
  n.child->child->AppendNull();
  n.child->child->AppendFixed<int8_t>(7);
  n.child->AppendArrayRow();
  n.AppendArrayRow();  // [[-5], [null, 7]]
  b.num_rows = 4;
  auto w = WriteBatches(*schema, {&b});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const ColumnMetaData& m0 = *w->md.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(m0.num_values, 1 + 1 + 1 + 3);
  EXPECT_EQ(m0.statistics->null_count, 4);  // null list, empty list, two null elements
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b}, *back);
}

TEST(FileWriter, DataPageV2UsesDeltaAndByteStreamSplit) {
  auto schema = Schema::Parse("i INT32, l INT64 NOT NULL, d DOUBLE, s VARCHAR, u UUID, b BOOLEAN");
  ASSERT_TRUE(schema.ok());
  RecordBatch b = RandomBatch(*schema, 3000, 10, 21);
  WriterOptions o;
  o.data_page_version = 2;
  o.enable_dictionary = false;
  o.data_page_bytes = 4096;
  auto w = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto encodings = [&](int col) { return w->md.row_groups[0].columns[col].meta_data->encodings; };
  EXPECT_EQ(encodings(0), (std::vector<Encoding>{Encoding::RLE, Encoding::DELTA_BINARY_PACKED}));
  EXPECT_EQ(encodings(1), (std::vector<Encoding>{Encoding::DELTA_BINARY_PACKED}));
  EXPECT_EQ(encodings(2), (std::vector<Encoding>{Encoding::RLE, Encoding::BYTE_STREAM_SPLIT}));
  EXPECT_EQ(encodings(3),
            (std::vector<Encoding>{Encoding::RLE, Encoding::DELTA_LENGTH_BYTE_ARRAY}));
  EXPECT_EQ(encodings(4), (std::vector<Encoding>{Encoding::PLAIN, Encoding::RLE}));
  const ColumnMetaData& m = *w->md.row_groups[0].columns[0].meta_data;
  ASSERT_EQ(m.encoding_stats.size(), 1u);
  EXPECT_EQ(m.encoding_stats[0].page_type, PageType::DATA_PAGE_V2);
  // Page headers: V2 with row and null counts.
  size_t hl = 0;
  auto h = DecodePageHeader(reinterpret_cast<const uint8_t*>(w->bytes.data()) + m.data_page_offset,
                            w->bytes.size() - m.data_page_offset, &hl);
  ASSERT_TRUE(h.ok());
  ASSERT_TRUE(h->data_page_header_v2.has_value());
  EXPECT_EQ(h->data_page_header_v2->num_rows, h->data_page_header_v2->num_values);
  EXPECT_GT(h->data_page_header_v2->num_nulls, 0);
  EXPECT_GT(h->data_page_header_v2->definition_levels_byte_length, 0);
  EXPECT_EQ(h->data_page_header_v2->repetition_levels_byte_length, 0);
  EXPECT_TRUE(h->data_page_header_v2->is_compressed);
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b}, *back);
}

TEST(FileWriter, DictionaryForFewDistinctPlainForUnique) {
  auto schema = Schema::Parse("few VARCHAR, many INT64, fewd DOUBLE");
  ASSERT_TRUE(schema.ok());
  RecordBatch b = EmptyBatch(*schema);
  for (int i = 0; i < 50000; ++i) {
    b.columns[0].AppendBytes(i % 3 == 0 ? "red" : i % 3 == 1 ? "green" : "blue");
    b.columns[1].AppendFixed<int64_t>(i * 7919LL);
    b.columns[2].AppendFixed<double>(i % 10 * 0.5);
  }
  b.num_rows = 50000;
  auto w = WriteBatches(*schema, {&b});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const ColumnMetaData& few = *w->md.row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(few.dictionary_page_offset.has_value());
  EXPECT_EQ(few.encodings,
            (std::vector<Encoding>{Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY}));
  ASSERT_EQ(few.encoding_stats.size(), 2u);
  EXPECT_EQ(few.encoding_stats[0].page_type, PageType::DICTIONARY_PAGE);
  EXPECT_EQ(few.encoding_stats[1].encoding, Encoding::RLE_DICTIONARY);
  EXPECT_LT(few.total_compressed_size, 2000);
  EXPECT_EQ(few.statistics->min_value, "blue");
  EXPECT_EQ(few.statistics->max_value, "red");
  const ColumnMetaData& many = *w->md.row_groups[0].columns[1].meta_data;
  EXPECT_FALSE(many.dictionary_page_offset.has_value());
  EXPECT_EQ(many.encodings, (std::vector<Encoding>{Encoding::PLAIN, Encoding::RLE}));
  EXPECT_TRUE(w->md.row_groups[0].columns[2].meta_data->dictionary_page_offset.has_value());
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b}, *back);
}

TEST(FileWriter, DictionaryFallsBackToPlainWhenItOutgrowsItsLimit) {
  auto schema = Schema::Parse("k VARCHAR NOT NULL");
  ASSERT_TRUE(schema.ok());
  RecordBatch b = EmptyBatch(*schema);
  // Few distinct values at first (dictionary pays), then all distinct.
  for (int i = 0; i < 40000; ++i) b.columns[0].AppendBytes("k" + std::to_string(i % 10));
  for (int i = 0; i < 40000; ++i) b.columns[0].AppendBytes("unique_" + std::to_string(i));
  b.num_rows = 80000;
  WriterOptions o;
  o.dictionary_page_bytes = 20000;
  o.data_page_bytes = 8192;
  auto w = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const ColumnMetaData& m = *w->md.row_groups[0].columns[0].meta_data;
  ASSERT_TRUE(m.dictionary_page_offset.has_value());
  ASSERT_EQ(m.encoding_stats.size(), 3u);
  EXPECT_EQ(m.encoding_stats[0].page_type, PageType::DICTIONARY_PAGE);
  EXPECT_EQ(m.encoding_stats[1].encoding, Encoding::RLE_DICTIONARY);
  EXPECT_EQ(m.encoding_stats[2].encoding, Encoding::PLAIN);
  EXPECT_GT(m.encoding_stats[2].count, 1);
  EXPECT_EQ(m.encodings, (std::vector<Encoding>{Encoding::PLAIN, Encoding::RLE_DICTIONARY}));
  // The dictionary page stays within (about) its limit.
  size_t hl = 0;
  auto h = DecodePageHeader(
      reinterpret_cast<const uint8_t*>(w->bytes.data()) + *m.dictionary_page_offset,
      w->bytes.size(), &hl);
  ASSERT_TRUE(h.ok());
  EXPECT_LT(h->uncompressed_page_size, 20000 + 4096 * 20);
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b}, *back);
}

TEST(FileWriter, StatisticsFollowEachTypesOrder) {
  auto schema = Schema::Parse(
      "u32 UINT32, u64 UINT64, i32 INT32, f DOUBLE, fnan FLOAT32, z DOUBLE, d DECIMAL(25,2), "
      "d9 DECIMAL(9,2), s VARCHAR, long VARCHAR, allnull INT64, ip IPV4, b BOOLEAN");
  ASSERT_TRUE(schema.ok());
  RecordBatch b = EmptyBatch(*schema);
  auto& c = b.columns;
  c[0].AppendFixed<uint32_t>(5);
  c[0].AppendFixed<uint32_t>(0xFFFFFFF0u);
  c[0].AppendNull();
  c[1].AppendFixed<uint64_t>(1);
  c[1].AppendFixed<uint64_t>(0x8000000000000000ull);
  c[1].AppendFixed<uint64_t>(7);
  c[2].AppendFixed<int32_t>(-5);
  c[2].AppendFixed<int32_t>(3);
  c[2].AppendFixed<int32_t>(-7);
  c[3].AppendFixed<double>(0.5);
  c[3].AppendFixed<double>(2.5);
  c[3].AppendFixed<double>(-1.5);
  c[4].AppendFixed<float>(NAN);
  c[4].AppendFixed<float>(1.0f);
  c[4].AppendNull();
  c[5].AppendFixed<double>(0.0);
  c[5].AppendFixed<double>(-0.0);
  c[5].AppendFixed<double>(0.0);
  c[6].AppendFixed<int128>(-12345);
  c[6].AppendFixed<int128>(100);
  c[6].AppendFixed<int128>(-1);
  c[7].AppendFixed<int128>(-999);
  c[7].AppendFixed<int128>(5);
  c[7].AppendNull();
  c[8].AppendBytes("\xC3\xA9t\xC3\xA9");
  c[8].AppendBytes("zebra");
  c[8].AppendBytes("Zebra");
  c[9].AppendBytes(std::string(70, 'm'));
  c[9].AppendBytes(std::string(80, 'n') + "\xFF");
  c[9].AppendBytes(std::string(65, 'a'));
  for (int i = 0; i < 3; ++i) c[10].AppendNull();
  c[11].AppendFixed<uint32_t>(0xC0A80001u);
  c[11].AppendFixed<uint32_t>(0x0A000001u);
  c[11].AppendFixed<uint32_t>(0xFF000000u);
  c[12].AppendFixed<uint8_t>(1);
  c[12].AppendFixed<uint8_t>(1);
  c[12].AppendNull();
  b.num_rows = 3;
  auto w = WriteBatches(*schema, {&b});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto stats = [&](int col) { return *w->md.row_groups[0].columns[col].meta_data->statistics; };
  auto le32 = [](uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); };
  auto le64 = [](uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  auto f64 = [](const std::string& s) {
    double d;
    std::memcpy(&d, s.data(), 8);
    return d;
  };
  EXPECT_EQ(stats(0).min_value, le32(5));
  EXPECT_EQ(stats(0).max_value, le32(0xFFFFFFF0u));
  EXPECT_EQ(stats(0).null_count, 1);
  EXPECT_EQ(stats(1).min_value, le64(1));
  EXPECT_EQ(stats(1).max_value, le64(0x8000000000000000ull));
  EXPECT_EQ(stats(2).min_value, le32(static_cast<uint32_t>(-7)));
  EXPECT_EQ(stats(2).max_value, le32(3));
  EXPECT_EQ(f64(*stats(3).min_value), -1.5);
  EXPECT_EQ(f64(*stats(3).max_value), 2.5);
  // With a NaN present no bounds are written (DuckDB sorts NaN above every number).
  EXPECT_FALSE(stats(4).min_value.has_value());
  EXPECT_FALSE(stats(4).max_value.has_value());
  EXPECT_EQ(stats(4).null_count, 1);
  EXPECT_TRUE(std::signbit(f64(*stats(5).min_value)));
  EXPECT_FALSE(std::signbit(f64(*stats(5).max_value)));
  // DECIMAL(25,2): 11-byte big-endian two's complement, ordered by value.
  EXPECT_EQ(stats(6).min_value, std::string(9, '\xFF') + "\xCF\xC7");  // -12345
  EXPECT_EQ(stats(6).max_value, std::string(10, '\0') + "\x64");       // 100
  EXPECT_EQ(stats(7).min_value, le32(static_cast<uint32_t>(-999)));
  EXPECT_EQ(stats(8).min_value, "Zebra");
  EXPECT_EQ(stats(8).max_value, "\xC3\xA9t\xC3\xA9");  // high bytes sort last
  EXPECT_EQ(stats(9).min_value, std::string(64, 'a'));
  EXPECT_EQ(stats(9).is_min_value_exact, false);
  EXPECT_EQ(stats(9).max_value, std::string(63, 'n') + "o");
  EXPECT_EQ(stats(9).is_max_value_exact, false);
  EXPECT_FALSE(stats(10).min_value.has_value());
  EXPECT_EQ(stats(10).null_count, 3);
  EXPECT_EQ(stats(11).min_value, le32(0x0A000001u));  // IPv4 orders unsigned
  EXPECT_EQ(stats(11).max_value, le32(0xFF000000u));
  EXPECT_EQ(stats(12).min_value, std::string("\x01", 1));
  EXPECT_EQ(stats(12).max_value, std::string("\x01", 1));
  WriterOptions no_stats;
  no_stats.write_statistics = false;
  auto w2 = WriteBatches(*schema, {&b}, no_stats);
  ASSERT_TRUE(w2.ok());
  EXPECT_FALSE(w2->md.row_groups[0].columns[0].meta_data->statistics.has_value());
}

TEST(FileWriter, TimeNanosecondsAsTimeNanosExactly) {
  auto schema = Schema::Parse("t TIME[ns], tu TIME");
  ASSERT_TRUE(schema.ok());
  RecordBatch b = EmptyBatch(*schema);
  b.columns[0].AppendFixed<int64_t>(86399999999999);  // 23:59:59.999999999
  b.columns[0].AppendFixed<int64_t>(1);
  b.columns[0].AppendNull();
  for (int i = 0; i < 3; ++i) b.columns[1].AppendFixed<int64_t>(86399999999);
  b.num_rows = 3;
  auto w = WriteBatches(*schema, {&b});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // INT64 TIME(NANOS, not adjusted to UTC); no converted type exists for nanoseconds.
  const SchemaElement& e = w->md.schema[1];
  EXPECT_EQ(e.type, Type::INT64);
  ASSERT_TRUE(e.logical_type.has_value());
  EXPECT_EQ(e.logical_type->kind, LogicalType::TIME);
  EXPECT_EQ(e.logical_type->unit, TimeUnitKind::NANOS);
  EXPECT_FALSE(e.logical_type->is_adjusted_to_utc);
  EXPECT_FALSE(e.converted_type.has_value());
  // TIME keeps its microsecond layout.
  const SchemaElement& eu = w->md.schema[2];
  EXPECT_EQ(eu.logical_type->unit, TimeUnitKind::MICROS);
  EXPECT_EQ(eu.converted_type, ConvertedType::TIME_MICROS);
  const Statistics& st = *w->md.row_groups[0].columns[0].meta_data->statistics;
  auto le64 = [](int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  EXPECT_EQ(st.min_value, le64(1));
  EXPECT_EQ(st.max_value, le64(86399999999999));
  EXPECT_EQ(st.null_count, 1);
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->columns[0].type.ToString(), "TIME[ns]");
  EXPECT_EQ(back->columns[1].type.ToString(), "TIME");
  EXPECT_EQ(back->columns[0].Value<int64_t>(0), 86399999999999);
  EXPECT_EQ(back->columns[0].Value<int64_t>(1), 1);
  EXPECT_FALSE(back->columns[0].IsValid(2));
  EXPECT_EQ(back->columns[1].Value<int64_t>(0), 86399999999);
  // Statistics decode in the column's unit.
  auto ps = SchemaFromParquet(w->md);
  ASSERT_TRUE(ps.ok()) << ps.status().ToString();
  auto max = DecodeStatValue(w->md, ps->leaves[0], ps->schema.fields[0].type, *st.max_value);
  ASSERT_TRUE(max.ok()) << max.status().ToString();
  EXPECT_EQ(max->type.ToString(), "TIME[ns]");
  EXPECT_EQ(max->Value<int64_t>(0), 86399999999999);
}

TEST(FileWriter, RejectsBatchesThatDoNotMatchAndStaysUsable) {
  auto schema = Schema::Parse("id INT64 NOT NULL, d DECIMAL(5,2), t ARRAY<INT32>");
  ASSERT_TRUE(schema.ok());
  schema->fields[2].type = DataType::Array(schema->fields[2].type.element(), -1, false);
  auto mem = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* raw = mem.get();
  auto w = FileWriter::Open(std::move(mem), *schema);
  ASSERT_TRUE(w.ok());

  RecordBatch good = EmptyBatch(*schema);
  good.columns[0].AppendFixed<int64_t>(1);
  good.columns[1].AppendFixed<int128>(99999);
  good.columns[2].child->AppendFixed<int32_t>(4);
  good.columns[2].AppendArrayRow();
  good.num_rows = 1;

  RecordBatch missing = EmptyBatch(*schema);
  missing.columns.pop_back();
  EXPECT_EQ((*w)->Write(missing).kind(), ErrorKind::kInvalidArgument);

  RecordBatch null_id = EmptyBatch(*schema);
  null_id.columns[0].AppendFixed<int64_t>(1);
  null_id.columns[0].AppendNull();
  null_id.columns[1].AppendNull();
  null_id.columns[1].AppendNull();
  null_id.columns[2].AppendNull();
  null_id.columns[2].AppendNull();
  null_id.num_rows = 2;
  Status st = (*w)->Write(null_id);
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.message().find("id"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("row 1"), std::string::npos) << st.message();

  RecordBatch wide = EmptyBatch(*schema);
  wide.columns[0].AppendFixed<int64_t>(1);
  wide.columns[1].AppendFixed<int128>(100000);  // 1000.00 does not fit DECIMAL(5,2)
  wide.columns[2].AppendNull();
  wide.num_rows = 1;
  st = (*w)->Write(wide);
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.message().find("DECIMAL(5,2)"), std::string::npos) << st.message();

  RecordBatch null_elem = EmptyBatch(*schema);
  null_elem.columns[0].AppendFixed<int64_t>(1);
  null_elem.columns[1].AppendNull();
  null_elem.columns[2].child->AppendNull();
  null_elem.columns[2].AppendArrayRow();
  null_elem.num_rows = 1;
  EXPECT_EQ((*w)->Write(null_elem).kind(), ErrorKind::kInvalidArgument);

  RecordBatch wrong_type = EmptyBatch(*schema);
  wrong_type.columns[1] = Column(DataType::Decimal(6, 2));
  wrong_type.columns[0].AppendFixed<int64_t>(1);
  wrong_type.columns[1].AppendFixed<int128>(1);
  wrong_type.columns[2].AppendNull();
  wrong_type.num_rows = 1;
  EXPECT_EQ((*w)->Write(wrong_type).kind(), ErrorKind::kInvalidArgument);

  RecordBatch short_col = EmptyBatch(*schema);
  short_col.columns[0].AppendFixed<int64_t>(1);
  short_col.columns[1].AppendNull();
  short_col.num_rows = 1;  // column t has no rows
  EXPECT_EQ((*w)->Write(short_col).kind(), ErrorKind::kInvalidArgument);

  RecordBatch bad_offsets = EmptyBatch(*schema);
  bad_offsets.columns[0].AppendFixed<int64_t>(1);
  bad_offsets.columns[1].AppendNull();
  bad_offsets.columns[2].AppendArrayRow();
  bad_offsets.columns[2].offsets.back() = 5;  // past the (empty) child
  bad_offsets.num_rows = 1;
  EXPECT_EQ((*w)->Write(bad_offsets).kind(), ErrorKind::kInvalidArgument);

  ASSERT_TRUE((*w)->Write(good).ok());
  EXPECT_EQ((*w)->rows_written(), 1);
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ((*w)->Close().kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ((*w)->Write(good).kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ((*w)->metadata().num_rows, 1);
  auto reader = FileReader::Open(MemoryFile(raw->bytes()));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto back = (*reader)->ReadAll();
  ASSERT_TRUE(back.ok());
  ExpectBatchesEqual({&good}, *back);
}

TEST(FileWriter, EmptyFileAndRowGroupByteLimit) {
  EXPECT_EQ(FileWriter::Open(std::make_unique<MemoryOutputStream>(), Schema{}).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(FileWriter::Open(nullptr, AllTypes()).status().kind(), ErrorKind::kInvalidArgument);
  auto schema = Schema::Parse("x INT64");
  ASSERT_TRUE(schema.ok());
  auto w = WriteBatches(*schema, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->md.num_rows, 0);
  EXPECT_TRUE(w->md.row_groups.empty());
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->num_rows, 0);

  // Unique values, no compression: 8 bytes a row, row groups cut at about 1 MiB.
  RecordBatch b = EmptyBatch(*schema);
  for (int64_t i = 0; i < 300000; ++i) b.columns[0].AppendFixed<int64_t>(i * 1000003);
  b.num_rows = 300000;
  WriterOptions o;
  o.codec = CompressionCodec::kNone;
  o.row_group_bytes = 1 << 20;
  auto w2 = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(w2.ok()) << w2.status().ToString();
  ASSERT_EQ(w2->md.row_groups.size(), 3u);
  for (size_t g = 0; g + 1 < w2->md.row_groups.size(); ++g) {
    EXPECT_GE(w2->md.row_groups[g].total_byte_size, 1 << 20);
    EXPECT_LE(w2->md.row_groups[g].total_byte_size, (1 << 20) + (1 << 18) + 4096);
  }
  auto back2 = ReadBack(*w2);
  ASSERT_TRUE(back2.ok());
  ExpectBatchesEqual({&b}, *back2);
}

TEST(FileWriter, OutputDoesNotDependOnThreadsOrBatching) {
  Schema schema = AllTypes();
  RecordBatch whole = RandomBatch(schema, 2000, 10, 77);
  WriterOptions o;
  o.row_group_rows = 900;
  o.data_page_bytes = 1500;
  o.threads = 1;
  auto one = WriteBatches(schema, {&whole}, o);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  o.threads = 4;
  auto four = WriteBatches(schema, {&whole}, o);
  ASSERT_TRUE(four.ok());
  EXPECT_TRUE(one->bytes == four->bytes);
}

TEST(FileWriter, UserKeyValuesAndFieldIds) {
  auto schema = Schema::Parse("a INT32, l ARRAY<VARCHAR>");
  ASSERT_TRUE(schema.ok());
  schema->fields[0].field_id = 100;
  schema->fields[1].field_id = 200;
  schema->fields[1].type = DataType::Array(schema->fields[1].type.element(), 201);
  WriterOptions o;
  o.key_value_metadata.push_back({"owner", std::string("me")});
  o.key_value_metadata.push_back({kTarnSchemaKey, std::string("ignored")});
  RecordBatch b = RandomBatch(*schema, 10, 10, 3);
  auto w = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->md.key_value_metadata.size(), 2u);
  EXPECT_EQ(w->md.key_value_metadata[0].key, "owner");
  EXPECT_EQ(w->md.key_value_metadata[1].value, schema->ToString());
  EXPECT_EQ(w->md.schema[1].field_id, 100);
  EXPECT_EQ(w->md.schema[2].field_id, 200);
  EXPECT_EQ(w->md.schema[4].field_id, 201);
}

TEST(FileWriter, WritesToALocalFile) {
  auto schema = Schema::Parse("a VARCHAR, b DOUBLE");
  ASSERT_TRUE(schema.ok());
  std::string path = ::testing::TempDir() + "/tarn_writer_test.parquet";
  auto sink = CreateLocalFile(path);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  auto w = FileWriter::Open(std::move(*sink), *schema);
  ASSERT_TRUE(w.ok());
  RecordBatch b = RandomBatch(*schema, 1000, 5, 9);
  ASSERT_TRUE((*w)->Write(b).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto file = OpenLocalFile(path);
  ASSERT_TRUE(file.ok());
  auto reader = FileReader::Open(*file);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto back = (*reader)->ReadAll();
  ASSERT_TRUE(back.ok());
  ExpectBatchesEqual({&b}, *back);
  std::remove(path.c_str());
}

// ---- nested columns --------------------------------------------------------------------------

const char* kNestedShapes =
    "p STRUCT<a: INT64, tags: ARRAY<VARCHAR>>, m MAP<VARCHAR, INT64>, "
    "ls ARRAY<STRUCT<x: INT32, y: VARCHAR NOT NULL>>, "
    "sl STRUCT<l: ARRAY<INT64 NOT NULL> NOT NULL, s: STRUCT<d: DECIMAL(20,2), u: UUID>>, "
    "mal MAP<VARCHAR, ARRAY<STRUCT<k: INT64, v: ARRAY<VARCHAR>>>>, "
    "req STRUCT<a: INT32 NOT NULL, b: BOOLEAN> NOT NULL, mm MAP<INT32, MAP<VARCHAR, FLOAT64>>, "
    "am ARRAY<MAP<VARCHAR, TIMESTAMP[s]> NOT NULL>, flat INT64";

TEST(NestedWriter, RoundTripsEveryShapeWithNullsAtEveryLevel) {
  auto schema = Schema::Parse(kNestedShapes);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  for (int null_pct : {0, 25, 60}) {
    for (int version : {1, 2}) {
      for (bool dict : {true, false}) {
        SCOPED_TRACE("nulls " + std::to_string(null_pct) + "% v" + std::to_string(version) +
                     (dict ? " dict" : ""));
        RecordBatch b1 = RandomBatch(*schema, 900, null_pct, 100 + null_pct);
        RecordBatch b2 = RandomBatch(*schema, 300, null_pct, 200 + null_pct);
        WriterOptions o;
        o.data_page_version = version;
        o.enable_dictionary = dict;
        o.data_page_bytes = 700;
        o.row_group_rows = 500;
        auto w = WriteBatches(*schema, {&b1, &b2}, o);
        ASSERT_TRUE(w.ok()) << w.status().ToString();
        auto back = ReadBack(*w);
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        ExpectBatchesEqual({&b1, &b2}, *back);
        // Ids and nullability at every level come back too.
        for (size_t f = 0; f < schema->fields.size(); ++f) {
          EXPECT_TRUE(SameNestedFields(back->schema.fields[f].type, schema->fields[f].type))
              << schema->fields[f].name;
          EXPECT_EQ(back->schema.fields[f].field_id, schema->fields[f].field_id);
        }
      }
    }
  }
}

TEST(NestedWriter, OutputDoesNotDependOnThreads) {
  auto schema = Schema::Parse(kNestedShapes);
  ASSERT_TRUE(schema.ok());
  RecordBatch b = RandomBatch(*schema, 3000, 20, 5);
  WriterOptions o;
  o.row_group_rows = 1100;
  o.data_page_bytes = 2000;
  o.threads = 1;
  auto one = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  o.threads = 4;
  auto four = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(four.ok());
  EXPECT_TRUE(one->bytes == four->bytes);
  // Reading with one thread or several gives the same batch.
  for (int threads : {1, 3}) {
    ReaderOptions ro;
    ro.threads = threads;
    auto reader = FileReader::Open(MemoryFile(one->bytes), ro);
    ASSERT_TRUE(reader.ok());
    auto back = (*reader)->ReadAll();
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectBatchesEqual({&b}, *back);
  }
}

// The levels of one column chunk of a file written without compression or dictionary (v1).
struct ChunkLevels {
  std::vector<int> rep, def;
};

ChunkLevels LevelsOf(const Written& w, size_t column) {
  ChunkLevels out;
  auto ps = SchemaFromParquet(w.md);
  EXPECT_TRUE(ps.ok());
  if (!ps.ok()) return out;
  const LeafColumn& leaf = ps->leaves[column];
  const ColumnMetaData& m = *w.md.row_groups[0].columns[column].meta_data;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(w.bytes.data()) + m.data_page_offset;
  size_t header_len = 0;
  auto h = DecodePageHeader(p, static_cast<size_t>(m.total_compressed_size), &header_len);
  EXPECT_TRUE(h.ok() && h->data_page_header);
  if (!h.ok() || !h->data_page_header) return out;
  const int64_t n = h->data_page_header->num_values;
  p += header_len;
  auto levels = [&](int max, std::vector<int>* dst) {
    uint32_t len;
    std::memcpy(&len, p, 4);
    RleBitPackedDecoder dec(p + 4, len, BitWidthOf(static_cast<uint64_t>(max)));
    std::vector<int16_t> v(static_cast<size_t>(n));
    EXPECT_EQ(dec.GetBatch(v.data(), n), n);
    dst->assign(v.begin(), v.end());
    p += 4 + len;
  };
  if (leaf.max_rep_level > 0) levels(leaf.max_rep_level, &out.rep);
  if (leaf.max_def_level > 0) levels(leaf.max_def_level, &out.def);
  return out;
}

// The Document example of the Dremel paper (Melnik et al., 2010), in tarn's types: Parquet's
// 3-level lists of NOT NULL lists and elements have the paper's levels exactly.
TEST(NestedWriter, DremelPaperLevels) {
  auto schema = Schema::Parse(
      "DocId INT64 NOT NULL, "
      "Links STRUCT<Backward: ARRAY<INT64 NOT NULL> NOT NULL, "
      "Forward: ARRAY<INT64 NOT NULL> NOT NULL>, "
      "Name ARRAY<STRUCT<Language: ARRAY<STRUCT<Code: VARCHAR NOT NULL, Country: VARCHAR> "
      "NOT NULL> NOT NULL, Url: VARCHAR> NOT NULL> NOT NULL");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  RecordBatch b = EmptyBatch(*schema);
  Column& doc = b.columns[0];
  Column& links = b.columns[1];
  Column& backward = links.members[0];
  Column& forward = links.members[1];
  Column& name = b.columns[2];
  Column& entry = *name.child;
  Column& language = entry.members[0];
  Column& code = language.child->members[0];
  Column& country = language.child->members[1];
  Column& url = entry.members[1];
  auto lang = [&](const char* c, const char* k) {
    code.AppendBytes(c);
    if (k) {
      country.AppendBytes(k);
    } else {
      country.AppendNull();
    }
    language.child->AppendStructRow();
  };
  auto name_entry = [&](const char* u) {
    language.AppendArrayRow();
    if (u) {
      url.AppendBytes(u);
    } else {
      url.AppendNull();
    }
    entry.AppendStructRow();
  };
  // r1
  doc.AppendFixed<int64_t>(10);
  backward.AppendArrayRow();
  for (int64_t v : {20, 40, 60}) forward.child->AppendFixed<int64_t>(v);
  forward.AppendArrayRow();
  links.AppendStructRow();
  lang("en-us", "us");
  lang("en", nullptr);
  name_entry("http://A");
  name_entry("http://B");
  lang("en-gb", "gb");
  name_entry(nullptr);
  name.AppendArrayRow();
  // r2
  doc.AppendFixed<int64_t>(20);
  for (int64_t v : {10, 30}) backward.child->AppendFixed<int64_t>(v);
  backward.AppendArrayRow();
  forward.child->AppendFixed<int64_t>(80);
  forward.AppendArrayRow();
  links.AppendStructRow();
  name_entry("http://C");
  name.AppendArrayRow();
  b.num_rows = 2;

  WriterOptions o;
  o.codec = CompressionCodec::kNone;
  o.enable_dictionary = false;
  auto w = WriteBatches(*schema, {&b}, o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::vector<SchemaElement>& el = w->md.schema;
  ASSERT_EQ(w->md.row_groups[0].columns.size(), 6u);
  struct Expect {
    std::vector<std::string> path;
    int max_def, max_rep;
    std::vector<int> rep, def;
    int64_t nulls;
  };
  const Expect want[] = {
      {{"DocId"}, 0, 0, {}, {}, 0},
      {{"Links", "Backward", "list", "element"}, 2, 1, {0, 0, 1}, {1, 2, 2}, 1},
      {{"Links", "Forward", "list", "element"}, 2, 1, {0, 1, 1, 0}, {2, 2, 2, 2}, 0},
      {{"Name", "list", "element", "Language", "list", "element", "Code"},
       2,
       2,
       {0, 2, 1, 1, 0},
       {2, 2, 1, 2, 1},
       2},
      {{"Name", "list", "element", "Language", "list", "element", "Country"},
       3,
       2,
       {0, 2, 1, 1, 0},
       {3, 2, 1, 3, 1},
       3},
      {{"Name", "list", "element", "Url"}, 2, 1, {0, 1, 1, 0}, {2, 2, 1, 2}, 1},
  };
  auto ps = SchemaFromParquet(w->md);
  ASSERT_TRUE(ps.ok());
  for (size_t c = 0; c < 6; ++c) {
    SCOPED_TRACE(c);
    const ColumnMetaData& m = *w->md.row_groups[0].columns[c].meta_data;
    EXPECT_EQ(m.path_in_schema, want[c].path);
    EXPECT_EQ(ps->leaves[c].max_def_level, want[c].max_def);
    EXPECT_EQ(ps->leaves[c].max_rep_level, want[c].max_rep);
    ChunkLevels l = LevelsOf(*w, c);
    EXPECT_EQ(l.rep, want[c].rep);
    EXPECT_EQ(l.def, want[c].def);
    ASSERT_TRUE(m.statistics && m.statistics->null_count);
    EXPECT_EQ(*m.statistics->null_count, want[c].nulls);  // entries below the max def level
  }
  // Leaf statistics: min and max of each leaf's values.
  const ColumnMetaData& code_meta = *w->md.row_groups[0].columns[3].meta_data;
  EXPECT_EQ(code_meta.statistics->min_value, "en");
  EXPECT_EQ(code_meta.statistics->max_value, "en-us");
  const ColumnMetaData& fwd = *w->md.row_groups[0].columns[2].meta_data;
  EXPECT_EQ(fwd.statistics->min_value, StatBytes<int64_t>(20));
  EXPECT_EQ(fwd.statistics->max_value, StatBytes<int64_t>(80));
  // The schema: groups with ids at every level (Schema::Parse numbered them).
  EXPECT_EQ(el[2].name, "Links");
  EXPECT_FALSE(el[2].converted_type.has_value());
  EXPECT_EQ(el[2].num_children, 2);
  EXPECT_TRUE(el[3].field_id.has_value());
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b}, *back);
  EXPECT_EQ(RenderRowJson(*back, 0),
            R"({"DocId":10,"Links":{"Backward":[],"Forward":[20,40,60]},"Name":[)"
            R"({"Language":[{"Code":"en-us","Country":"us"},{"Code":"en","Country":null}],)"
            R"("Url":"http://A"},{"Language":[],"Url":"http://B"},)"
            R"({"Language":[{"Code":"en-gb","Country":"gb"}],"Url":null}]})");
}

TEST(NestedWriter, MapOfListsOfStructsWithEmptyAndNullAtEveryLevel) {
  auto schema = Schema::Parse("m MAP<VARCHAR, ARRAY<STRUCT<k: INT64, v: ARRAY<VARCHAR>>>>");
  ASSERT_TRUE(schema.ok());
  RecordBatch b = EmptyBatch(*schema);
  Column& m = b.columns[0];
  Column& keys = m.members[0];
  Column& lists = m.members[1];
  Column& st = *lists.child;
  Column& k = st.members[0];
  Column& v = st.members[1];
  m.AppendNull();      // null map
  m.AppendArrayRow();  // empty map
  keys.AppendBytes("a");
  lists.AppendNull();  // null value
  keys.AppendBytes("b");
  lists.AppendArrayRow();  // empty list
  keys.AppendBytes("c");
  st.AppendNull();  // null struct
  k.AppendNull();   // a null member
  v.AppendArrayRow();
  st.AppendStructRow();
  k.AppendFixed<int64_t>(7);  // empty inner list
  v.AppendArrayRow();
  st.AppendStructRow();
  k.AppendFixed<int64_t>(8);
  v.child->AppendNull();
  v.child->AppendBytes("x");
  v.AppendArrayRow();
  st.AppendStructRow();
  v.AppendNull();
  k.AppendFixed<int64_t>(9);
  st.AppendStructRow();
  lists.AppendArrayRow();
  m.AppendArrayRow();
  b.num_rows = 3;
  auto w = WriteBatches(*schema, {&b});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  auto back = ReadBack(*w);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectBatchesEqual({&b}, *back);
  EXPECT_EQ(RenderRowJson(*back, 0), R"({"m":null})");
  EXPECT_EQ(RenderRowJson(*back, 1), R"({"m":[]})");
  EXPECT_EQ(RenderRowJson(*back, 2),
            R"({"m":[{"key":"a","value":null},{"key":"b","value":[]},{"key":"c","value":[null,)"
            R"({"k":null,"v":[]},{"k":7,"v":[]},{"k":8,"v":[null,"x"]},{"k":9,"v":null}]}]})");
  // A null struct's members hold nulls after reading, as in memory.
  const Column& rst = *back->columns[0].members[1].child;
  ASSERT_EQ(rst.length, 5);
  EXPECT_FALSE(rst.IsValid(0));
  EXPECT_FALSE(rst.members[0].IsValid(0));
  EXPECT_FALSE(rst.members[1].IsValid(0));
  EXPECT_EQ(rst.members[1].offsets[0], rst.members[1].offsets[1]);
}

TEST(NestedWriter, ProjectionOfOneNestedField) {
  auto schema = Schema::Parse(kNestedShapes);
  ASSERT_TRUE(schema.ok());
  RecordBatch b = RandomBatch(*schema, 400, 20, 8);
  auto w = WriteBatches(*schema, {&b});
  ASSERT_TRUE(w.ok());
  auto reader = FileReader::Open(MemoryFile(w->bytes));
  ASSERT_TRUE(reader.ok());
  auto part = (*reader)->ReadAll({4, 8, 0});
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  ASSERT_EQ(part->columns.size(), 3u);
  RecordBatch want;
  want.schema.fields = {schema->fields[4], schema->fields[8], schema->fields[0]};
  want.columns.push_back(b.columns[4].Clone());
  want.columns.push_back(b.columns[8].Clone());
  want.columns.push_back(b.columns[0].Clone());
  want.num_rows = b.num_rows;
  ExpectBatchesEqual({&want}, *part);
}

TEST(NestedWriter, ValidationOfNestedColumns) {
  auto schema = Schema::Parse("s STRUCT<a: INT64 NOT NULL, b: VARCHAR>, m MAP<VARCHAR, INT32>");
  ASSERT_TRUE(schema.ok());
  auto make = [&] {
    RecordBatch b = EmptyBatch(*schema);
    Column& s = b.columns[0];
    s.members[0].AppendFixed<int64_t>(1);
    s.members[1].AppendBytes("x");
    s.AppendStructRow();
    s.AppendNull();  // a null struct: its NOT NULL member holds a null, which is fine
    Column& m = b.columns[1];
    m.members[0].AppendBytes("k");
    m.members[1].AppendFixed<int32_t>(3);
    m.AppendArrayRow();
    m.AppendNull();
    b.num_rows = 2;
    return b;
  };
  auto write = [&](const RecordBatch& b) {
    auto w = WriteBatches(*schema, {&b});
    return w.ok() ? Status::OK() : w.status();
  };
  EXPECT_TRUE(write(make()).ok()) << write(make()).ToString();
  {
    RecordBatch b = make();  // a null in the NOT NULL member of a present struct
    b.columns[0].members[0].validity = {0, 0};
    Status st = write(b);
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(st.message().find("field s.a: row 0 is null"), std::string::npos) << st.ToString();
  }
  {
    RecordBatch b = make();  // a member shorter than the struct
    b.columns[0].members[1] = Column(DataType::Varchar());
    Status st = write(b);
    EXPECT_NE(st.message().find("s.b: 0 values for 2 struct rows"), std::string::npos)
        << st.ToString();
  }
  {
    RecordBatch b = make();  // a null key
    b.columns[1].members[0].AppendNull();
    b.columns[1].members[1].AppendFixed<int32_t>(4);
    b.columns[1].offsets.back() = 2;
    Status st = write(b);
    EXPECT_NE(st.message().find("m.key: entry 1 is null"), std::string::npos) << st.ToString();
  }
  {
    RecordBatch b = make();  // more values than keys
    b.columns[1].members[1].AppendFixed<int32_t>(4);
    Status st = write(b);
    EXPECT_NE(st.message().find("1 keys and 2 values"), std::string::npos) << st.ToString();
  }
}

}  // namespace
}  // namespace tarn::parquet
