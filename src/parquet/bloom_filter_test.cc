#include "parquet/bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include "parquet/reader.h"
#include "parquet/thrift_writer.h"
#include "parquet/writer.h"
#include "types/value_text.h"

namespace tarn::parquet {
namespace {

TEST(BloomFilterTest, SizesFollowTheSpecFormula) {
  EXPECT_EQ(BloomFilterBytes(0, 0.01), 32);
  EXPECT_EQ(BloomFilterBytes(1, 0.01), 32);
  // 1,000,000 values at 1%: 9.68 bits each, 1.21 MB, rounded up to 2 MiB.
  EXPECT_EQ(BloomFilterBytes(1000000, 0.01), int64_t{2} << 20);
  // 26,214 values in 1024 blocks is 10 bits each (the spec's example, about 1.26%).
  EXPECT_EQ(BloomFilterBytes(26214, 0.0126), 32 * 1024);
  EXPECT_EQ(BloomFilterBytes(1000000, 0.01, 1 << 20), 1 << 20);
  EXPECT_EQ(BloomFilterBytes(1000000, 0.01, 1000000), 1 << 19);  // the cap, rounded down
  EXPECT_EQ(BloomFilterBytes(int64_t{1} << 40, 0.01), kBloomFilterMaxBytes);
  EXPECT_EQ(BloomFilterBytes(1000, 0.01, 1), 32);
}

TEST(BloomFilterTest, NoFalseNegativesAndAboutTheAskedFalsePositives) {
  std::mt19937_64 rng(7);
  const int64_t n = 20000;
  BloomFilter f(BloomFilterBytes(n, 0.01));
  std::vector<uint64_t> in(n);
  for (uint64_t& h : in) {
    h = rng();
    f.Insert(h);
  }
  for (uint64_t h : in) ASSERT_TRUE(f.MightContain(h));
  int64_t false_positives = 0;
  const int64_t probes = 200000;
  for (int64_t i = 0; i < probes; ++i) false_positives += f.MightContain(rng());
  // Sized for 1% (rounded up to a power of two, so fewer).
  EXPECT_LT(static_cast<double>(false_positives) / probes, 0.01);
}

TEST(BloomFilterTest, BlockAndBitsAreTheSpecs) {
  // One block: hash 0 -> key 0 sets bit 0 of every word.
  BloomFilter one(32);
  one.Insert(0);
  ByteBuffer bits;
  one.AppendBitset(&bits);
  ASSERT_EQ(bits.size(), 32u);
  for (int w = 0; w < 8; ++w) {
    EXPECT_EQ(bits[w * 4], 1) << w;
    EXPECT_EQ(bits[w * 4 + 1] | bits[w * 4 + 2] | bits[w * 4 + 3], 0) << w;
  }
  // Key 1: bit (salt[i] >> 27) of word i; the top 32 bits pick block (top * z) >> 32.
  BloomFilter two(64);
  two.Insert((uint64_t{0x80000000} << 32) | 1);  // block 1 of 2
  bits.clear();
  two.AppendBitset(&bits);
  const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                            0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
  for (int w = 0; w < 8; ++w) {
    uint32_t first, second;
    std::memcpy(&first, bits.data() + w * 4, 4);
    std::memcpy(&second, bits.data() + 32 + w * 4, 4);
    EXPECT_EQ(first, 0u);
    EXPECT_EQ(second, uint32_t{1} << (salt[w] >> 27)) << w;
  }
  auto back = BloomFilter::FromBitset(bits.data(), bits.size());
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->MightContain((uint64_t{0x80000000} << 32) | 1));
  EXPECT_FALSE(back->MightContain(1));  // block 0
}

TEST(BloomFilterTest, HashesArePlainEncodingsUnderXxHash64) {
  // Reference XXH64 values of the little-endian bytes (libxxhash).
  EXPECT_EQ(BloomHash(int32_t{42}), 0xD756D7B62FC50BF1ull);
  EXPECT_EQ(BloomHash(int64_t{-1}), 0x85D136ADB773C6C9ull);
  EXPECT_EQ(BloomHash(std::string_view("abc")), 0x44BC2CF5AD770999ull);  // no length prefix
  EXPECT_NE(BloomHash(0.0), BloomHash(-0.0));
}

// A file of `rows` rows holding one column of `type` whose values are distinct per row (as far
// as the type allows), with a bloom filter per chunk.
Column DistinctValues(const DataType& t, int64_t from, int64_t n) {
  Column c(t);
  for (int64_t i = from; i < from + n; ++i) {
    switch (t.id()) {
      case TypeId::kInt8:
        c.AppendFixed<int8_t>(static_cast<int8_t>(i % 120));
        break;
      case TypeId::kInt16:
        c.AppendFixed<int16_t>(static_cast<int16_t>(i - 3000));
        break;
      case TypeId::kInt32:
      case TypeId::kDate:
        c.AppendFixed<int32_t>(static_cast<int32_t>(i * 3 - 5000));
        break;
      case TypeId::kUInt8:
        c.AppendFixed<uint8_t>(static_cast<uint8_t>(i % 250));
        break;
      case TypeId::kUInt16:
        c.AppendFixed<uint16_t>(static_cast<uint16_t>(60000 - i));
        break;
      case TypeId::kUInt32:
      case TypeId::kIpv4:
        c.AppendFixed<uint32_t>(static_cast<uint32_t>(i * 2654435761u));
        break;
      case TypeId::kUInt64:
        c.AppendFixed<uint64_t>(static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull);
        break;
      case TypeId::kInt64:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        c.AppendFixed<int64_t>(i * 1000003 - 77);
        break;
      case TypeId::kFloat32:
        c.AppendFixed<float>(i == from ? -0.0f : static_cast<float>(i) * 0.25f);
        break;
      case TypeId::kFloat64:
        c.AppendFixed<double>(i == from ? -0.0 : static_cast<double>(i) / 3);
        break;
      case TypeId::kDecimal:
        c.AppendFixed<int128>(t.precision() < 10
                                  ? static_cast<int128>(i * 3 - 4000)
                                  : static_cast<int128>(i * 7919 - 100000) * (i % 2 ? -1 : 1));
        break;
      case TypeId::kVarchar:
      case TypeId::kBlob:
      case TypeId::kJson:
        c.AppendBytes(t.id() == TypeId::kJson ? "{\"v\":" + std::to_string(i) + "}"
                                              : "value-" + std::to_string(i));
        break;
      case TypeId::kUuid: {
        uint8_t u[16] = {};
        uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
        std::memcpy(u + 3, &x, 8);
        c.AppendFixedBytes(u, 16);
        break;
      }
      case TypeId::kBoolean:
      case TypeId::kArray:
      case TypeId::kStruct:
      case TypeId::kMap:
      case TypeId::kVariant:
        break;
    }
  }
  return c;
}

std::shared_ptr<RandomAccessFile> WriteFile(const Schema& schema, const RecordBatch& batch,
                                            WriterOptions options) {
  auto mem = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* raw = mem.get();
  auto w = FileWriter::Open(std::move(mem), schema, options);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return nullptr;
  Status st = (*w)->Write(batch);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = (*w)->Close();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return MemoryFile(raw->bytes(), "bloom.parquet");
}

TEST(BloomFilterTest, WrittenFiltersHoldEveryValueOfTheirChunkForEveryType) {
  // The writer hashes the physical values it encodes; BloomFilterMightContain maps a tarn value
  // to them by itself. Every written value must be found: the two agree for every type.
  auto schema = Schema::Parse(
      "i8 INT8, i16 INT16, i32 INT32, i64 INT64, u8 UINT8, u16 UINT16, u32 UINT32, u64 UINT64, "
      "f32 FLOAT32, f64 FLOAT64, d4 DECIMAL(4,1), d15 DECIMAL(15,3), d30 DECIMAL(30,5), "
      "d38 DECIMAL(38,0), s VARCHAR, b BLOB, j JSON, dt DATE, t TIME, tn TIME[ns], "
      "ts_s TIMESTAMP[s], ts_ms TIMESTAMP[ms], ts TIMESTAMP, ts_ns TIMESTAMP[ns], "
      "tz TIMESTAMPTZ, u UUID, ip IPV4");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const int64_t rows = 3000, per_group = 1000;
  RecordBatch batch;
  batch.schema = *schema;
  batch.num_rows = rows;
  WriterOptions options;
  options.row_group_rows = per_group;
  for (const Field& f : schema->fields) {
    batch.columns.push_back(DistinctValues(f.type, 0, rows));
    options.bloom_filter_columns.push_back(f.name);
  }
  for (int dictionary = 0; dictionary < 2; ++dictionary) {
    options.enable_dictionary = dictionary == 1;
    auto file = WriteFile(*schema, batch, options);
    ASSERT_NE(file, nullptr);
    auto reader = FileReader::Open(file);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    const FileMetaData& md = (*reader)->metadata();
    ASSERT_EQ(md.row_groups.size(), 3u);
    for (size_t c = 0; c < schema->fields.size(); ++c) {
      const Field& f = schema->fields[c];
      const LeafColumn& leaf = (*reader)->schema().leaves[c];
      ASSERT_TRUE(BloomFilterApplies((*reader)->schema().schema.fields[c].type, leaf)) << f.name;
      const Column& values = batch.columns[c];
      int64_t maybe_elsewhere = 0, probed_elsewhere = 0;
      for (size_t g = 0; g < md.row_groups.size(); ++g) {
        const ColumnMetaData& cm = *md.row_groups[g].columns[c].meta_data;
        ASSERT_TRUE(cm.bloom_filter_offset.has_value()) << f.name;
        ASSERT_TRUE(cm.bloom_filter_length.has_value()) << f.name;
        auto filter = ReadBloomFilter(*file, cm);
        ASSERT_TRUE(filter.ok()) << f.name << ": " << filter.status().ToString();
        ASSERT_TRUE(filter->has_value());
        const int64_t begin = static_cast<int64_t>(g) * per_group;
        for (int64_t r = 0; r < rows; ++r) {
          const bool mine = r >= begin && r < begin + per_group;
          const bool maybe = BloomFilterMightContain(**filter, values, r);
          if (mine) {
            ASSERT_TRUE(maybe) << f.name << " row " << r << " row group " << g;
          } else {
            ++probed_elsewhere;
            maybe_elsewhere += maybe;
          }
        }
      }
      // Types with fewer distinct values than rows repeat them in every row group.
      if (f.type.id() != TypeId::kInt8 && f.type.id() != TypeId::kUInt8) {
        EXPECT_LT(maybe_elsewhere, probed_elsewhere / 50) << f.name;
      }
    }
  }
}

TEST(BloomFilterTest, AChunksFilterIsSizedForItsDistinctValues) {
  auto schema = Schema::Parse("id INT64");
  ASSERT_TRUE(schema.ok());
  RecordBatch batch;
  batch.schema = *schema;
  Column id(DataType::Int64());
  const int64_t rows = 300000;  // past several deduplications of the collected hashes
  for (int64_t i = 0; i < rows; ++i) id.AppendFixed<int64_t>(i % 1000);
  batch.columns.push_back(std::move(id));
  batch.num_rows = rows;
  WriterOptions options;
  options.bloom_filter_columns = {"id"};
  auto file = WriteFile(*schema, batch, options);
  ASSERT_NE(file, nullptr);
  auto md = FileReader::ReadFooter(*file);
  ASSERT_TRUE(md.ok());
  ASSERT_EQ(md->row_groups.size(), 1u);
  auto filter = ReadBloomFilter(*file, *md->row_groups[0].columns[0].meta_data);
  ASSERT_TRUE(filter.ok() && filter->has_value());
  EXPECT_EQ((*filter)->num_bytes(), BloomFilterBytes(1000, 0.01));
  EXPECT_EQ((*filter)->num_bytes(), 2048);
  // A smaller fpp makes a larger filter; max_bytes caps it.
  options.bloom_filter.fpp = 0.0001;
  file = WriteFile(*schema, batch, options);
  md = FileReader::ReadFooter(*file);
  filter = ReadBloomFilter(*file, *md->row_groups[0].columns[0].meta_data);
  ASSERT_TRUE(filter.ok() && filter->has_value());
  EXPECT_EQ((*filter)->num_bytes(), 4096);
  options.bloom_filter.max_bytes = 1024;
  file = WriteFile(*schema, batch, options);
  md = FileReader::ReadFooter(*file);
  filter = ReadBloomFilter(*file, *md->row_groups[0].columns[0].meta_data);
  ASSERT_TRUE(filter.ok() && filter->has_value());
  EXPECT_EQ((*filter)->num_bytes(), 1024);
}

TEST(BloomFilterTest, ZerosOfEitherSignAndNaN) {
  auto schema = Schema::Parse("f FLOAT64");
  ASSERT_TRUE(schema.ok());
  RecordBatch batch;
  batch.schema = *schema;
  Column f(DataType::Float64());
  f.AppendFixed<double>(-0.0);
  f.AppendFixed<double>(2.5);
  f.AppendNull();
  batch.columns.push_back(std::move(f));
  batch.num_rows = 3;
  WriterOptions options;
  options.bloom_filter_columns = {"f"};
  auto file = WriteFile(*schema, batch, options);
  ASSERT_NE(file, nullptr);
  auto md = FileReader::ReadFooter(*file);
  ASSERT_TRUE(md.ok());
  auto filter = ReadBloomFilter(*file, *md->row_groups[0].columns[0].meta_data);
  ASSERT_TRUE(filter.ok() && filter->has_value());
  Column probe(DataType::Float64());
  for (double v : {0.0, -0.0, 2.5, 7.0, std::nan("")}) probe.AppendFixed<double>(v);
  EXPECT_TRUE(BloomFilterMightContain(**filter, probe, 0));  // 0.0 = -0.0
  EXPECT_TRUE(BloomFilterMightContain(**filter, probe, 1));
  EXPECT_TRUE(BloomFilterMightContain(**filter, probe, 2));
  EXPECT_FALSE(BloomFilterMightContain(**filter, probe, 3));
  EXPECT_TRUE(BloomFilterMightContain(**filter, probe, 4));  // NaN: not ruled out
}

TEST(BloomFilterTest, ChunksWithoutFiltersAndWriterRefusals) {
  auto schema = Schema::Parse("id INT64, ok BOOLEAN, tags ARRAY<VARCHAR>, s VARCHAR");
  ASSERT_TRUE(schema.ok());
  RecordBatch batch;
  batch.schema = *schema;
  for (const Field& f : schema->fields) batch.columns.emplace_back(f.type);
  WriterOptions options;
  options.bloom_filter_columns = {"ID"};  // names match as FieldIndex does
  auto file = WriteFile(*schema, batch, options);
  ASSERT_NE(file, nullptr);
  auto md = FileReader::ReadFooter(*file);
  ASSERT_TRUE(md.ok());
  EXPECT_TRUE(md->row_groups.empty());  // no rows, no row groups, no filters

  for (const char* bad : {"ok", "tags", "nope"}) {
    options.bloom_filter_columns = {bad};
    auto w = FileWriter::Open(std::make_unique<MemoryOutputStream>(), *schema, options);
    ASSERT_FALSE(w.ok()) << bad;
    EXPECT_EQ(w.status().kind(), ErrorKind::kInvalidArgument) << bad;
  }
  options.bloom_filter_columns = {"s"};
  options.bloom_filter.fpp = 1;
  EXPECT_FALSE(FileWriter::Open(std::make_unique<MemoryOutputStream>(), *schema, options).ok());

  // A chunk without a filter reads as none.
  ColumnMetaData none;
  auto read = ReadBloomFilter(*MemoryFile("PAR1...."), none);
  ASSERT_TRUE(read.ok());
  EXPECT_FALSE(read->has_value());
}

// A STRUCT member by dotted path gets a filter on its own leaf (after the leaves before it,
// a MAP's two included), and only it.
TEST(BloomFilterTest, StructMembersByDottedPath) {
  auto schema =
      Schema::Parse("id INT64, p STRUCT<m: MAP<VARCHAR, INT64>, u: STRUCT<c: INT64>, s: VARCHAR>");
  ASSERT_TRUE(schema.ok());
  RecordBatch batch;
  batch.schema = *schema;
  batch.columns.emplace_back(DataType::Int64());
  batch.columns.emplace_back(schema->fields[1].type);
  batch.columns[0].AppendFixed<int64_t>(1);
  ASSERT_TRUE(AppendParsedValue(R"({"m":[{"key":"k","value":1}],"u":{"c":7},"s":"x"})",
                                &batch.columns[1])
                  .ok());
  batch.num_rows = 1;
  WriterOptions options;
  options.bloom_filter_columns = {"p.U.c", "p.s"};
  auto file = WriteFile(*schema, batch, options);
  ASSERT_NE(file, nullptr);
  auto md = FileReader::ReadFooter(*file);
  ASSERT_TRUE(md.ok());
  std::vector<std::string> with;
  for (const ColumnChunk& c : md->row_groups[0].columns) {
    if (!c.meta_data->bloom_filter_offset) continue;
    std::string path;
    for (const std::string& part : c.meta_data->path_in_schema) path += "/" + part;
    with.push_back(path);
  }
  EXPECT_EQ(with, (std::vector<std::string>{"/p/u/c", "/p/s"}));
  auto filter = ReadBloomFilter(*file, *md->row_groups[0].columns[3].meta_data);
  ASSERT_TRUE(filter.ok() && filter->has_value());
  Column probe(DataType::Int64());
  probe.AppendFixed<int64_t>(7);
  probe.AppendFixed<int64_t>(8);
  EXPECT_TRUE(BloomFilterMightContain(**filter, probe, 0));
  EXPECT_FALSE(BloomFilterMightContain(**filter, probe, 1));
  for (const char* bad : {"p", "p.m", "p.u", "p.x", "id.x", "p.u.c.d"}) {
    options.bloom_filter_columns = {bad};
    auto w = FileWriter::Open(std::make_unique<MemoryOutputStream>(), *schema, options);
    EXPECT_FALSE(w.ok()) << bad;
  }
}

// A file of `pad` bytes, then a filter's bytes as `header` and `bitset` say, then 8 bytes.
std::string Framed(const ByteBuffer& bytes, size_t pad = 16) {
  std::string s(pad, 'x');
  s.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return s + "tailPAR1";
}

ByteBuffer Header(int32_t num_bytes, int alg = 1, int hash = 1, int comp = 1) {
  ByteBuffer out;
  thrift::CompactWriter w(&out);
  w.I32(1, num_bytes);
  const std::pair<int, int> parts[] = {{2, alg}, {3, hash}, {4, comp}};
  for (auto [id, which] : parts) {
    if (which == 0) continue;
    w.BeginStruct(static_cast<int16_t>(id));
    w.BeginStruct(static_cast<int16_t>(which));
    w.End();
    w.End();
  }
  w.End();
  return out;
}

TEST(BloomFilterTest, ReadsWithAndWithoutLengthAndRefusesHostileBytes) {
  BloomFilter f(64);
  f.Insert(BloomHash(int64_t{5}));
  ByteBuffer bytes;
  EncodeBloomFilter(f, &bytes);
  auto file = MemoryFile(Framed(bytes));
  ColumnMetaData m;
  m.bloom_filter_offset = 16;
  for (bool with_length : {false, true}) {
    if (with_length) m.bloom_filter_length = static_cast<int32_t>(bytes.size());
    auto read = ReadBloomFilter(*file, m);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_TRUE(read->has_value());
    EXPECT_EQ((*read)->num_bytes(), 64);
    EXPECT_TRUE((*read)->MightContain(BloomHash(int64_t{5})));
  }
  // A length that counts only the header: the bitset is read after it.
  m.bloom_filter_length = static_cast<int32_t>(bytes.size() - 64);
  EXPECT_TRUE(ReadBloomFilter(*file, m).ok());
  // A header without the compression field (files before format 2.10) reads too.
  ByteBuffer old = Header(32, 1, 1, 0);
  old.resize(old.size() + 32, 0);
  m.bloom_filter_length.reset();
  EXPECT_TRUE(ReadBloomFilter(*MemoryFile(Framed(old)), m).ok());

  auto fails = [&](const std::string& bytes_of_file, ColumnMetaData meta, ErrorKind kind) {
    auto r = ReadBloomFilter(*MemoryFile(bytes_of_file, "hostile.parquet"), meta);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), kind) << r.status().ToString();
    EXPECT_NE(r.status().message().find("hostile.parquet"), std::string::npos);
  };
  ColumnMetaData at16;
  at16.bloom_filter_offset = 16;
  // Offsets and lengths outside the file.
  ColumnMetaData far = at16;
  far.bloom_filter_offset = 1 << 20;
  fails(Framed(bytes), far, ErrorKind::kCorruption);
  far.bloom_filter_offset = -3;
  fails(Framed(bytes), far, ErrorKind::kCorruption);
  ColumnMetaData long_length = at16;
  long_length.bloom_filter_length = 1 << 30;
  fails(Framed(bytes), long_length, ErrorKind::kCorruption);
  long_length.bloom_filter_length = -1;
  fails(Framed(bytes), long_length, ErrorKind::kCorruption);
  // Sizes refused before anything is allocated: huge, negative, not whole blocks, past the end.
  for (int32_t n : {INT32_MAX, -32, 0, 48, 1 << 20}) {
    fails(Framed(Header(n)), at16, ErrorKind::kCorruption);
  }
  // Other algorithms, hashes or compressions.
  ByteBuffer other = Header(32, 2);
  other.resize(other.size() + 32, 0);
  fails(Framed(other), at16, ErrorKind::kInvalidArgument);
  other = Header(32, 1, 1, 2);
  other.resize(other.size() + 32, 0);
  fails(Framed(other), at16, ErrorKind::kInvalidArgument);
  // Truncated or garbage headers.
  fails(Framed(ByteBuffer{0x15}), at16, ErrorKind::kCorruption);
  fails(std::string(16, 'x') + std::string(300, '\xff'), at16, ErrorKind::kCorruption);
}

}  // namespace
}  // namespace tarn::parquet
