#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "datafile/reader.h"
#include "datafile/writer.h"
#include "objectstore/fault/fault_store.h"
#include "objectstore/local/local_store.h"
#include "objectstore/memory/memory_store.h"
#include "objectstore/test_util.h"
#include "parquet/reader.h"
#include "parquet/reader_test_util.h"
#include "parquet/writer.h"
#include "table/predicate.h"
#include "table/schema_json.h"
#include "types/iceberg.h"
#include "types/value_text.h"

namespace tarn {
namespace {

Schema MustSchema(std::string_view text) {
  Result<Schema> s = Schema::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Schema{};
}

// Text of every cell ("NULL" for nulls), row-major, for whole-batch comparisons.
std::vector<std::string> Cells(const RecordBatch& b) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    for (const Column& c : b.columns) out.push_back(c.IsValid(r) ? ValueText(c, r) : "NULL");
  }
  return out;
}

std::vector<std::string> ColumnCells(const RecordBatch& b, size_t col) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < b.num_rows; ++r) {
    const Column& c = b.columns[col];
    out.push_back(c.IsValid(r) ? ValueText(c, r) : "NULL");
  }
  return out;
}

// A batch of `schema` filled by parsing text cells (nullptr = null).
RecordBatch BatchOf(const Schema& schema, const std::vector<std::vector<const char*>>& rows) {
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  for (const auto& row : rows) {
    EXPECT_EQ(row.size(), schema.fields.size());
    for (size_t i = 0; i < row.size(); ++i) {
      if (row[i] == nullptr) {
        b.columns[i].AppendNull();
      } else {
        Status st = AppendParsedValue(row[i], &b.columns[i]);
        EXPECT_TRUE(st.ok()) << st.ToString();
      }
    }
    ++b.num_rows;
  }
  return b;
}

RecordBatch Copy(const RecordBatch& b) {
  RecordBatch c;
  c.schema = b.schema;
  c.num_rows = b.num_rows;
  for (const Column& col : b.columns) c.columns.push_back(col.Clone());
  return c;
}

template <typename... B>
std::vector<RecordBatch> Vec(B&&... b) {
  std::vector<RecordBatch> v;
  (v.push_back(std::forward<B>(b)), ...);
  return v;
}

std::string Bound(const DataType& t, const char* text) {
  Column c(t);
  EXPECT_TRUE(AppendParsedValue(text, &c).ok());
  return EncodeBound(c, 0);
}

RecordBatch Read(ObjectStore& store, const DataFile& f, const Schema& schema,
                 const std::vector<uint64_t>& deleted = {}, const BoundPredicate* filter = nullptr,
                 ReadOptions opts = {}) {
  Result<RecordBatch> r = ReadDataFile(store, f, schema, deleted, filter, opts);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : RecordBatch{};
}

PartitionField PField(int32_t source, int32_t id, std::string name, TransformKind kind,
                      int32_t param = 0) {
  PartitionField f;
  f.source_id = source;
  f.field_id = id;
  f.name = std::move(name);
  f.transform.kind = kind;
  f.transform.param = param;
  return f;
}

const char* kAllTypes =
    "b BOOLEAN, i8 INT8, i16 INT16, i32 INT32 NOT NULL, i64 INT64, u8 UINT8, u16 UINT16, "
    "u32 UINT32, u64 UINT64, f32 FLOAT32, f64 FLOAT64, d1 DECIMAL(9,2), d2 DECIMAL(18,4), "
    "d3 DECIMAL(38,6), s VARCHAR, bl BLOB, dt DATE, tm TIME, ts TIMESTAMP[us], "
    "tss TIMESTAMP[s], tsn TIMESTAMP[ns], tz TIMESTAMPTZ[ms], u UUID, ip IPV4, j JSON, "
    "a ARRAY<INT32>";

// ---- Round trip ----

TEST(WriteDataFiles, RoundTripsEveryScalarType) {
  Schema schema = MustSchema(kAllTypes);
  // The last field (ARRAY) is filled separately.
  Schema scalars = schema;
  scalars.fields.pop_back();
  RecordBatch b = BatchOf(
      scalars, {{"true",
                 "-128",
                 "-32768",
                 "-2147483648",
                 "-9223372036854775808",
                 "0",
                 "0",
                 "0",
                 "0",
                 "-1.5",
                 "-Infinity",
                 "-9999999.99",
                 "-12345678901234.5678",
                 "-12345678901234567890123456789012.123456",
                 "",
                 "",
                 "0001-01-01",
                 "00:00:00",
                 "1970-01-01T00:00:00",
                 "1900-01-01T00:00:00",
                 "2262-04-11T23:47:16.854775807",
                 "1969-12-31T23:59:59.999Z",
                 "00000000-0000-0000-0000-000000000000",
                 "0.0.0.0",
                 "{}"},
                {"false",
                 "127",
                 "32767",
                 "2147483647",
                 "9223372036854775807",
                 "255",
                 "65535",
                 "4294967295",
                 "18446744073709551615",
                 "3.25",
                 "NaN",
                 "9999999.99",
                 "0.0001",
                 "1.000001",
                 "héllo wörld",
                 "AAECAwQ=",
                 "9999-12-31",
                 "23:59:59.999999",
                 "2024-02-29T12:34:56.789012",
                 "2100-01-01T00:00:01",
                 "1677-09-21T00:12:43.145224192",
                 "2024-07-01T10:00:00.123Z",
                 "123e4567-e89b-12d3-a456-426614174000",
                 "255.255.255.255",
                 "[1,{\"a\":null}]"},
                {nullptr, nullptr, nullptr, "7",     nullptr, nullptr, nullptr, nullptr, nullptr,
                 nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                 nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr}});
  Column arr(DataType::Array(DataType::Int32()));
  arr.child->AppendFixed<int32_t>(1);
  arr.child->AppendFixed<int32_t>(2);
  arr.AppendArrayRow();
  arr.AppendArrayRow();  // empty
  arr.AppendNull();
  b.schema = schema;
  b.columns.push_back(std::move(arr));

  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.prefix = "ds/data";
  ASSERT_OK_AND_ASSIGN(
      std::vector<DataFile> files,
      WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), opts));
  ASSERT_EQ(files.size(), 1u);
  const DataFile& f = files[0];
  EXPECT_EQ(f.record_count, 3);
  EXPECT_EQ(f.format, "parquet");
  EXPECT_TRUE(f.partition.empty());
  // <prefix>/<uuid v4>.parquet
  ASSERT_EQ(f.path.size(), std::string("ds/data/").size() + 36 + 8) << f.path;
  EXPECT_EQ(f.path.substr(0, 8), "ds/data/");
  EXPECT_EQ(f.path.substr(f.path.size() - 8), ".parquet");
  EXPECT_EQ(f.path[8 + 14], '4');
  EXPECT_NE(std::string("89ab").find(f.path[8 + 19]), std::string::npos);
  ASSERT_OK_AND_ASSIGN(ObjectInfo info, store.Head(f.path));
  EXPECT_EQ(static_cast<uint64_t>(f.file_size_bytes), info.size);
  ASSERT_EQ(f.columns.size(), schema.fields.size());
  for (size_t i = 0; i < f.columns.size(); ++i) {
    EXPECT_EQ(f.columns[i].field_id, static_cast<int32_t>(i + 1));
    EXPECT_EQ(f.columns[i].value_count, 3);
  }

  RecordBatch back = Read(store, f, schema);
  ASSERT_EQ(back.num_rows, 3);
  ASSERT_EQ(back.columns.size(), schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    EXPECT_EQ(back.columns[i].type, schema.fields[i].type) << schema.fields[i].name;
    EXPECT_EQ(back.schema.fields[i].field_id, schema.fields[i].field_id);
  }
  EXPECT_EQ(Cells(back), Cells(b));
  EXPECT_EQ(ColumnCells(back, 25), (std::vector<std::string>{"[1,2]", "[]", "NULL"}));

  // Two writes never collide.
  ASSERT_OK_AND_ASSIGN(
      std::vector<DataFile> again,
      WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), opts));
  EXPECT_NE(again[0].path, f.path);
}

TEST(WriteDataFiles, NoRowsNoFiles) {
  Schema schema = MustSchema("id INT64");
  MemoryObjectStore store;
  RecordBatch empty = BatchOf(schema, {});
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(Copy(empty)), {}));
  EXPECT_TRUE(files.empty());
  EXPECT_EQ(store.object_count(), 0u);
}

TEST(WriteDataFiles, MatchesColumnsByFieldIdAndFillsMissingNullable) {
  Schema schema = MustSchema("id INT64 NOT NULL, name VARCHAR, extra INT32");
  // Batch holds name then id, no `extra`, under the dataset's ids.
  Schema bs;
  bs.fields = {schema.fields[1], schema.fields[0]};
  bs.fields[0].name = "whatever";  // ids decide, not names
  RecordBatch b = BatchOf(bs, {{"x", "1"}, {nullptr, "2"}});
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(
      auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), {}));
  ASSERT_EQ(files.size(), 1u);
  RecordBatch back = Read(store, files[0], schema);
  EXPECT_EQ(Cells(back), (std::vector<std::string>{"1", "x", "NULL", "2", "NULL", "NULL"}));
  ASSERT_NE(files[0].FindStats(3), nullptr);
  EXPECT_EQ(files[0].FindStats(3)->null_count, 2);
}

TEST(DataFileWriter, BatchByBatchIsTheFileOfWriteDataFiles) {
  Schema schema = MustSchema("id INT64 NOT NULL, name VARCHAR, p STRUCT<a: INT32>, extra INT32");
  Schema bs;  // batches without `extra`, name before id
  bs.fields = {schema.fields[1], schema.fields[0]};
  std::vector<RecordBatch> batches;
  for (int b = 0; b < 3; ++b) {
    std::vector<std::vector<const char*>> rows;
    static const char* ids[] = {"1", "2", "3", "4", "5", "6"};
    for (int r = 0; r < 2; ++r) rows.push_back({r == 0 ? "x" : nullptr, ids[b * 2 + r]});
    batches.push_back(BatchOf(bs, rows));
  }
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.prefix = "d/data";
  ASSERT_OK_AND_ASSIGN(auto whole,
                       WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, batches, opts));
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_OK_AND_ASSIGN(
      auto w, DataFileWriter::Open(store, schema, PartitionSpec{}, PartitionValues{}, opts));
  EXPECT_EQ(w->path().rfind("d/data/", 0), 0u) << w->path();
  for (const RecordBatch& b : batches) ASSERT_OK(w->Write(b));
  EXPECT_EQ(w->rows(), 6);
  ASSERT_OK_AND_ASSIGN(DataFile streamed, w->Finish());
  EXPECT_EQ(w->Finish().status().kind(), ErrorKind::kInternal);  // once
  EXPECT_EQ(streamed.record_count, whole[0].record_count);
  EXPECT_EQ(streamed.file_size_bytes, whole[0].file_size_bytes);
  EXPECT_EQ(streamed.columns, whole[0].columns);  // the member `p.a` included
  EXPECT_EQ(Cells(Read(store, streamed, schema)), Cells(Read(store, whole[0], schema)));
  EXPECT_EQ(store.object_count(), 2u);
  // Dropped before Finish, or after a refused batch: no file stays.
  {
    ASSERT_OK_AND_ASSIGN(auto dropped, DataFileWriter::Open(store, schema, PartitionSpec{},
                                                            PartitionValues{}, opts));
    ASSERT_OK(dropped->Write(batches[0]));
  }
  {
    ASSERT_OK_AND_ASSIGN(auto refused, DataFileWriter::Open(store, schema, PartitionSpec{},
                                                            PartitionValues{}, opts));
    ASSERT_OK(refused->Write(batches[0]));
    RecordBatch null_id = BatchOf(bs, {{"y", nullptr}});
    EXPECT_EQ(refused->Write(null_id).kind(), ErrorKind::kInvalidArgument);
  }
  EXPECT_EQ(store.object_count(), 2u);
}

TEST(WriteDataFiles, RefusesBadBatches) {
  Schema schema = MustSchema("id INT64 NOT NULL, v INT32");
  MemoryObjectStore store;
  {
    Schema bs = MustSchema("id INT32 NOT NULL, v INT32");
    RecordBatch b = BatchOf(bs, {{"1", "2"}});
    auto r = WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(r.status().message().find("id"), std::string::npos) << r.status().message();
  }
  {
    Schema bs;
    bs.fields = {schema.fields[1]};
    RecordBatch b = BatchOf(bs, {{"2"}});
    auto r = WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  }
  {
    RecordBatch b = BatchOf(schema, {{"1", "2"}, {nullptr, "3"}});  // null in NOT NULL
    auto r = WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  }
  EXPECT_EQ(store.object_count(), 0u);
}

TEST(WriteDataFiles, SeveralBatchesUnpartitionedMakeOneFileWithMergedStats) {
  Schema schema = MustSchema("id INT64 NOT NULL, s VARCHAR");
  RecordBatch a = BatchOf(schema, {{"5", "m"}, {"9", nullptr}});
  RecordBatch b = BatchOf(schema, {{"-3", "z"}, {"4", "a"}});
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(Copy(a), Copy(b)), {}));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].record_count, 4);
  const ColumnStats* id = files[0].FindStats(1);
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->value_count, 4);
  EXPECT_EQ(id->lower, Bound(DataType::Int64(), "-3"));
  EXPECT_EQ(id->upper, Bound(DataType::Int64(), "9"));
  const ColumnStats* s = files[0].FindStats(2);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->null_count, 1);
  EXPECT_EQ(s->lower, std::string("a"));
  EXPECT_EQ(s->upper, std::string("z"));
  EXPECT_EQ(Cells(Read(store, files[0], schema)),
            (std::vector<std::string>{"5", "m", "9", "NULL", "-3", "z", "4", "a"}));
}

// ---- Sorting ----

TEST(WriteDataFiles, SortsRowsInsideTheFile) {
  Schema schema = MustSchema("id INT64 NOT NULL, k VARCHAR");
  RecordBatch a = BatchOf(schema, {{"3", "b"}, {"1", nullptr}, {"2", "a"}});
  RecordBatch b = BatchOf(schema, {{"1", "a"}, {"5", "a"}});
  SortOrder order;
  order.fields = {SortField{2, false, false},
                  SortField{1, true, true}};  // k ASC NULLS LAST, id DESC
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(
      auto files, WriteDataFiles(store, schema, PartitionSpec{}, order, Vec(Copy(a), Copy(b)), {}));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(Cells(Read(store, files[0], schema)),
            (std::vector<std::string>{"5", "a", "2", "a", "1", "a", "3", "b", "1", "NULL"}));
}

// ---- Partitioning ----

Schema EventSchema() { return MustSchema("id INT64 NOT NULL, ts TIMESTAMP[us], key VARCHAR"); }

// 60 rows: month (2024-01, -02, -03) by id % 3, key ("a", "b/c d") by id % 2; ids shuffled.
RecordBatch EventBatch(int first, int n) {
  Schema schema = EventSchema();
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  const int64_t jan = 19723LL * 86400 * 1000000;  // 2024-01-01
  const int64_t month_days[] = {0, 31, 60};
  for (int i = first; i < first + n; ++i) {
    int64_t id = (i * 37) % 60;
    b.columns[0].AppendFixed<int64_t>(id);
    b.columns[1].AppendFixed<int64_t>(jan + (month_days[id % 3] + id % 20) * 86400LL * 1000000 +
                                      id * 1000);
    b.columns[2].AppendBytes(id % 2 == 0 ? "a" : "b/c d");
    ++b.num_rows;
  }
  return b;
}

PartitionSpec MonthKeySpec() {
  PartitionSpec spec;
  spec.spec_id = 3;
  spec.fields = {PField(2, 1000, "ts_month", TransformKind::kMonth),
                 PField(3, 1001, "key", TransformKind::kIdentity)};
  return spec;
}

TEST(WriteDataFiles, OneFilePerPartition) {
  Schema schema = EventSchema();
  PartitionSpec spec = MonthKeySpec();
  SortOrder order;
  order.fields = {SortField{1, true, false}};  // id DESC
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.prefix = "uuid/data/";
  ASSERT_OK_AND_ASSIGN(
      auto files,
      WriteDataFiles(store, schema, spec, order, Vec(EventBatch(0, 25), EventBatch(25, 35)), opts));
  ASSERT_EQ(files.size(), 6u);
  EXPECT_EQ(store.object_count(), 6u);
  std::set<std::pair<std::string, std::string>> seen;
  int64_t total = 0;
  for (const DataFile& f : files) {
    EXPECT_EQ(f.spec_id, 3);
    ASSERT_EQ(f.partition.size(), 2u);
    ASSERT_TRUE(f.partition[0].has_value());
    ASSERT_TRUE(f.partition[1].has_value());
    const std::string& month = *f.partition[0];
    const std::string& key = *f.partition[1];
    EXPECT_TRUE(month == "648" || month == "649" || month == "650") << month;
    EXPECT_TRUE(key == "a" || key == "b/c d") << key;
    seen.emplace(month, key);
    EXPECT_EQ(f.record_count, 10);
    total += f.record_count;
    // The path carries the partition, escaped, under the prefix.
    EXPECT_EQ(f.path.rfind("uuid/data/ts_month=", 0), 0u) << f.path;
    EXPECT_NE(f.path.find(key == "a" ? "/key=a/" : "/key=b%2Fc%20d/"), std::string::npos) << f.path;
    EXPECT_EQ(std::count(f.path.begin(), f.path.end(), '/'), 4) << f.path;

    RecordBatch back = Read(store, f, schema);
    ASSERT_EQ(back.num_rows, 10);
    const int64_t* ids = back.columns[0].values<int64_t>();
    for (int64_t r = 0; r < back.num_rows; ++r) {
      if (r > 0) {
        EXPECT_GT(ids[r - 1], ids[r]) << "not sorted descending";
      }
      EXPECT_EQ(648 + ids[r] % 3, std::stoi(month));
      EXPECT_EQ(back.columns[2].StringAt(r), key);
    }
    // Stats are the file's own.
    const ColumnStats* st = f.FindStats(1);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->value_count, 10);
    EXPECT_EQ(st->lower,
              EncodeBoundPhysical(
                  DataType::Int64(),
                  std::string_view(reinterpret_cast<const char*>(&ids[back.num_rows - 1]), 8)));
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(total, 60);
}

TEST(WriteDataFiles, NullPartitionValueAndBucket) {
  Schema schema = MustSchema("id INT64 NOT NULL, key VARCHAR");
  RecordBatch b = BatchOf(schema, {{"1", "x"}, {"2", nullptr}, {"3", "x"}});
  PartitionSpec spec;
  spec.fields = {PField(2, 1000, "key", TransformKind::kIdentity)};
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(auto files,
                       WriteDataFiles(store, schema, spec, SortOrder{}, Vec(Copy(b)), {}));
  ASSERT_EQ(files.size(), 2u);
  std::map<std::optional<std::string>, int64_t> rows;
  for (const DataFile& f : files) rows[f.partition.at(0)] = f.record_count;
  EXPECT_EQ(rows[std::optional<std::string>("x")], 2);
  EXPECT_EQ(rows[std::nullopt], 1);
}

TEST(WriteDataFiles, DeletesWrittenFilesOnFailure) {
  Schema schema = MustSchema("id INT64 NOT NULL, key VARCHAR");
  Schema loose = schema;
  loose.fields[0].nullable = true;
  // Partition "a" is fine, partition "b" has a null id: its file fails after "a" was written.
  RecordBatch b = BatchOf(loose, {{"1", "a"}, {"2", "a"}, {nullptr, "b"}});
  b.schema = schema;
  PartitionSpec spec;
  spec.fields = {PField(2, 1000, "key", TransformKind::kIdentity)};
  MemoryObjectStore store;
  auto r = WriteDataFiles(store, schema, spec, SortOrder{}, Vec(Copy(b)), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << r.status().ToString();
  EXPECT_EQ(store.object_count(), 0u);
}

TEST(WriteDataFiles, DeletesWrittenFilesWhenTheStoreFails) {
  Schema schema = EventSchema();
  for (ObjectOp op : {ObjectOp::kClose, ObjectOp::kOpenWrite, ObjectOp::kWrite}) {
    SCOPED_TRACE(std::string(ObjectOpName(op)));
    auto base = std::make_shared<MemoryObjectStore>();
    FaultInjectingObjectStore store(base);
    store.FailNthCall(op == ObjectOp::kWrite ? 9 : 4, op);
    auto r = WriteDataFiles(store, schema, MonthKeySpec(), SortOrder{}, Vec(EventBatch(0, 60)), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), ErrorKind::kUnavailable) << r.status().ToString();
    EXPECT_EQ(store.faults_injected(), 1u);
    EXPECT_EQ(base->object_count(), 0u);
  }
}

TEST(ReadDataFile, ReportsStoreFailuresWithThePath) {
  Schema schema = MustSchema("id INT64 NOT NULL");
  auto base = std::make_shared<MemoryObjectStore>();
  FaultInjectingObjectStore store(base);
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(BatchOf(schema, {{"1"}, {"2"}})), {}));
  store.FailAll(ObjectOp::kReadAt);
  auto r = ReadDataFile(store, files[0], schema, {}, nullptr, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(r.status().message().find(files[0].path), std::string::npos);
  store.Reset();
  DataFile missing = files[0];
  missing.path = "nope.parquet";
  EXPECT_EQ(ReadDataFile(store, missing, schema, {}, nullptr, {}).status().kind(),
            ErrorKind::kNotFound);
  // Bytes that are not Parquet.
  ASSERT_OK(base->Put("bad.parquet", "PAR1garbagegarbagePAR1"));
  missing.path = "bad.parquet";
  EXPECT_EQ(ReadDataFile(store, missing, schema, {}, nullptr, {}).status().kind(),
            ErrorKind::kCorruption);
}

// ---- Statistics ----

TEST(WriteDataFiles, ComputesStats) {
  Schema schema = MustSchema("i INT32, f FLOAT64, s VARCHAR, d DATE, n INT64");
  RecordBatch b = BatchOf(schema, {{"5", "1.5", "pear", "2024-03-01", nullptr},
                                   {nullptr, "NaN", "apple", "2023-12-31", nullptr},
                                   {"-7", "-0.25", nullptr, nullptr, nullptr},
                                   {"12", "NaN", "zebra", "2024-01-01", nullptr}});
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(
      auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), {}));
  ASSERT_EQ(files.size(), 1u);
  const DataFile& f = files[0];
  ASSERT_EQ(f.columns.size(), 5u);
  const ColumnStats& i = f.columns[0];
  EXPECT_EQ(i.field_id, 1);
  EXPECT_EQ(i.value_count, 4);
  EXPECT_EQ(i.null_count, 1);
  EXPECT_FALSE(i.nan_count.has_value());
  EXPECT_EQ(i.lower, Bound(DataType::Int32(), "-7"));
  EXPECT_EQ(i.upper, Bound(DataType::Int32(), "12"));
  const ColumnStats& fl = f.columns[1];
  EXPECT_EQ(fl.null_count, 0);
  EXPECT_EQ(fl.nan_count, 2);
  EXPECT_EQ(fl.lower, Bound(DataType::Float64(), "-0.25"));
  EXPECT_EQ(fl.upper, Bound(DataType::Float64(), "1.5"));
  const ColumnStats& s = f.columns[2];
  EXPECT_EQ(s.null_count, 1);
  EXPECT_EQ(s.lower, std::string("apple"));
  EXPECT_EQ(s.upper, std::string("zebra"));
  const ColumnStats& d = f.columns[3];
  EXPECT_EQ(d.lower, Bound(DataType::Date(), "2023-12-31"));
  EXPECT_EQ(d.upper, Bound(DataType::Date(), "2024-03-01"));
  const ColumnStats& n = f.columns[4];
  EXPECT_EQ(n.null_count, 4);
  EXPECT_FALSE(n.lower.has_value());
  EXPECT_FALSE(n.upper.has_value());
}

// ---- Reading: schema evolution ----

// Writes `b` as a Parquet file of `schema` at `key` with tarn's writer (ids as in `schema`).
void PutParquet(ObjectStore& store, const std::string& key, const Schema& schema,
                const RecordBatch& b, parquet::WriterOptions wo = {}) {
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* raw = sink.get();
  auto w = parquet::FileWriter::Open(std::move(sink), schema, wo);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_OK((*w)->Write(b));
  ASSERT_OK((*w)->Close());
  ASSERT_OK(store.Put(key, raw->bytes()));
}

TEST(ReadDataFile, ResolvesEvolvedSchemaByFieldId) {
  Schema old_schema = MustSchema("id INT32 NOT NULL, name VARCHAR, x FLOAT32");
  RecordBatch b = BatchOf(old_schema, {{"1", "a", "1.5"}, {"-2", nullptr, "-0.25"}});
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, old_schema, PartitionSpec{}, SortOrder{},
                                                  Vec(Copy(b)), {}));
  ASSERT_EQ(files.size(), 1u);

  // Renamed (id 2), promoted (ids 1 and 3), reordered, one column added (id 4), one dropped.
  Schema now = MustSchema("full_name VARCHAR, id INT64 NOT NULL, added INT32, x FLOAT64");
  now.fields[0].field_id = 2;
  now.fields[1].field_id = 1;
  now.fields[2].field_id = 4;
  now.fields[3].field_id = 3;
  RecordBatch back = Read(store, files[0], now);
  ASSERT_EQ(back.columns.size(), 4u);
  EXPECT_EQ(back.columns[1].type, DataType::Int64());
  EXPECT_EQ(back.columns[3].type, DataType::Float64());
  EXPECT_EQ(back.schema.fields[0].name, "full_name");
  EXPECT_EQ(Cells(back),
            (std::vector<std::string>{"a", "1", "NULL", "1.5", "NULL", "-2", "NULL", "-0.25"}));

  // Projection in a chosen order.
  ReadOptions opts;
  opts.field_ids = {3, 2};
  RecordBatch proj = Read(store, files[0], now, {}, nullptr, opts);
  EXPECT_EQ(Cells(proj), (std::vector<std::string>{"1.5", "a", "-0.25", "NULL"}));
  opts.field_ids = {4};  // only a column the file lacks
  EXPECT_EQ(Cells(Read(store, files[0], now, {}, nullptr, opts)),
            (std::vector<std::string>{"NULL", "NULL"}));
  opts.field_ids = {99};
  EXPECT_EQ(ReadDataFile(store, files[0], now, {}, nullptr, opts).status().kind(),
            ErrorKind::kInvalidArgument);

  // An added NOT NULL column cannot be read from old files.
  Schema strict = now;
  strict.fields[2].nullable = false;
  auto r = ReadDataFile(store, files[0], strict, {}, nullptr, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(r.status().message().find("added"), std::string::npos);

  // Narrowing is not a promotion.
  Schema narrow = MustSchema("id INT16 NOT NULL");
  r = ReadDataFile(store, files[0], narrow, {}, nullptr, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(r.status().message().find("id"), std::string::npos);
}

TEST(ReadDataFile, FilesWithoutFieldIdsMatchByName) {
  Schema file_schema = MustSchema("b VARCHAR, a INT32");
  for (Field& f : file_schema.fields) f.field_id = -1;
  RecordBatch b = BatchOf(file_schema, {{"x", "1"}, {"y", "2"}});
  MemoryObjectStore store;
  PutParquet(store, "ext/f.parquet", file_schema, b);
  Schema schema = MustSchema("a INT64, b VARCHAR, c VARCHAR");
  DataFile f;
  f.path = "ext/f.parquet";
  f.record_count = 2;
  f.file_size_bytes = static_cast<int64_t>(store.Head(f.path)->size);
  EXPECT_EQ(Cells(Read(store, f, schema)),
            (std::vector<std::string>{"1", "x", "NULL", "2", "y", "NULL"}));
}

TEST(ReadDataFile, IdsTakePrecedenceOverNames) {
  // The file's column "a" has id 2; the dataset's "a" has id 1 (a different, dropped column).
  Schema file_schema = MustSchema("a INT32");
  file_schema.fields[0].field_id = 2;
  RecordBatch b = BatchOf(file_schema, {{"7"}});
  MemoryObjectStore store;
  PutParquet(store, "f.parquet", file_schema, b);
  Schema schema = MustSchema("a INT32, renamed INT32");
  DataFile f;
  f.path = "f.parquet";
  f.record_count = 1;
  f.file_size_bytes = static_cast<int64_t>(store.Head(f.path)->size);
  EXPECT_EQ(Cells(Read(store, f, schema)), (std::vector<std::string>{"NULL", "7"}));
}

TEST(ReadDataFile, AFileThatDisagreesWithItsCountsIsReportedNotServed) {
  Schema schema = MustSchema("a INT32");
  MemoryObjectStore store;
  PutParquet(store, "f.parquet", schema, BatchOf(schema, {{"1"}, {"2"}}));
  DataFile f;
  f.path = "f.parquet";
  f.record_count = 2;
  f.file_size_bytes = static_cast<int64_t>(store.Head(f.path)->size);
  ASSERT_TRUE(ReadDataFile(store, f, schema, {}, nullptr, {}).ok());
  for (auto [rows, bytes] : {std::pair<int64_t, int64_t>{1'000'000, f.file_size_bytes},
                             {0, f.file_size_bytes},
                             {2, f.file_size_bytes + 1},
                             {2, 0}}) {
    DataFile lying = f;
    lying.record_count = rows;
    lying.file_size_bytes = bytes;
    auto r = ReadDataFile(store, lying, schema, {}, nullptr, {});
    ASSERT_FALSE(r.ok()) << rows << " " << bytes;
    EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
    bool coded = false;
    for (const auto& [k, v] : r.status().fields())
      coded = coded || (k == "code" && v == "file_metadata_mismatch");
    EXPECT_TRUE(coded) << r.status().ToString();
    EXPECT_NE(r.status().message().find("'f.parquet'"), std::string::npos) << r.status().ToString();
  }
}

TEST(InspectDataFile, SaysHowEachFieldIsFoundFromTheFooterAlone) {
  Schema old_schema = MustSchema("id INT32 NOT NULL, name VARCHAR, x FLOAT32");
  RecordBatch b = BatchOf(old_schema, {{"1", "a", "1.5"}});
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, old_schema, PartitionSpec{}, SortOrder{},
                                                  Vec(Copy(b)), {}));
  // Renamed (id 2), promoted (1), narrowed (3), added nullable (4) and added NOT NULL (5).
  Schema now =
      MustSchema("label VARCHAR, id INT64 NOT NULL, x INT16, added INT32, strict INT32 NOT NULL");
  now.fields[0].field_id = 2;
  now.fields[1].field_id = 1;
  now.fields[2].field_id = 3;
  now.fields[3].field_id = 4;
  now.fields[4].field_id = 5;
  ASSERT_OK_AND_ASSIGN(FileColumns c, InspectDataFile(store, files[0], now));
  EXPECT_TRUE(c.by_field_id);
  EXPECT_EQ(c.fields,
            (std::vector<FileColumnMatch>{FileColumnMatch::kSame, FileColumnMatch::kWidened,
                                          FileColumnMatch::kUnreadable, FileColumnMatch::kAbsent,
                                          FileColumnMatch::kUnreadable}));
  EXPECT_EQ(c.file_types[1], DataType::Int32());
  // The catalog's checks, as ReadDataFile makes them.
  DataFile lying = files[0];
  lying.record_count += 1;
  auto r = InspectDataFile(store, lying, now);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
  // Without field ids: matched by name, and said so.
  Schema plain = MustSchema("a INT32");
  plain.fields[0].field_id = -1;
  PutParquet(store, "ext/f.parquet", plain, BatchOf(plain, {{"7"}}));
  DataFile ext;
  ext.path = "ext/f.parquet";
  ext.record_count = 1;
  ext.file_size_bytes = static_cast<int64_t>(store.Head(ext.path)->size);
  ASSERT_OK_AND_ASSIGN(FileColumns e, InspectDataFile(store, ext, MustSchema("a INT32")));
  EXPECT_FALSE(e.by_field_id);
  EXPECT_EQ(e.fields, (std::vector<FileColumnMatch>{FileColumnMatch::kSame}));
}

// ---- Reading: deletions, row ids, filters ----

TEST(ReadDataFile, DropsDeletedPositionsAndNumbersRows) {
  Schema schema = MustSchema("id INT64 NOT NULL, s VARCHAR");
  std::vector<std::vector<const char*>> rows;
  std::vector<std::string> texts;
  for (int i = 0; i < 10; ++i) texts.push_back(std::to_string(i));
  for (int i = 0; i < 10; ++i) rows.push_back({texts[i].c_str(), i % 2 ? "odd" : "even"});
  MemoryObjectStore store;
  parquet::WriterOptions small;
  small.row_group_rows = 3;  // several row groups
  DataWriteOptions opts;
  opts.parquet = small;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(BatchOf(schema, rows)), opts));
  DataFile f = files[0];
  f.first_row_id = 1000;
  ReadOptions ro;
  ro.with_row_ids = true;
  RecordBatch back = Read(store, f, schema, {0, 3, 4, 9}, nullptr, ro);
  ASSERT_EQ(back.num_rows, 6);
  ASSERT_EQ(back.columns.size(), 3u);
  EXPECT_EQ(back.schema.fields[2].name, kRowIdColumnName);
  EXPECT_EQ(back.schema.fields[2].field_id, kRowIdFieldId);
  EXPECT_EQ(ColumnCells(back, 0), (std::vector<std::string>{"1", "2", "5", "6", "7", "8"}));
  EXPECT_EQ(ColumnCells(back, 2),
            (std::vector<std::string>{"1001", "1002", "1005", "1006", "1007", "1008"}));

  // Row ids without deletions.
  RecordBatch all = Read(store, f, schema, {}, nullptr, ro);
  EXPECT_EQ(ColumnCells(all, 2).back(), "1009");

  // A position past the end is corrupt metadata.
  auto r = ReadDataFile(store, f, schema, {10}, nullptr, {});
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
  // Row ids need first_row_id.
  f.first_row_id = -1;
  r = ReadDataFile(store, f, schema, {}, nullptr, ro);
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  // A record count that disagrees with the file.
  f.record_count = 11;
  r = ReadDataFile(store, f, schema, {}, nullptr, {});
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
}

TEST(ReadDataFileBatches, SameRowsAsOneReadWithDeletesRowIdsAndNewColumns) {
  // 10,000 rows in row groups of 3,000 and pages of 500; read with a column the file lacks,
  // an INT32 widened to INT64, deletions around the group and batch edges, and row ids.
  Schema written = MustSchema("id INT64 NOT NULL, s VARCHAR, n INT32");
  RecordBatch b;
  b.schema = written;
  for (const Field& f : written.fields) b.columns.emplace_back(f.type);
  for (int64_t i = 0; i < 10000; ++i) {
    b.columns[0].AppendFixed<int64_t>(i);
    if (i % 7 == 0) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendBytes("s" + std::to_string(i % 300));
    }
    b.columns[2].AppendFixed<int32_t>(static_cast<int32_t>(i * 3));
  }
  b.num_rows = 10000;
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 3000;
  opts.parquet.data_page_rows = 500;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, written, PartitionSpec{}, SortOrder{},
                                                  Vec(std::move(b)), opts));
  DataFile f = files[0];
  f.first_row_id = 5000;
  Schema read = written;
  read.fields[2].type = DataType::Int64();
  Field extra;
  extra.name = "extra";
  extra.type = DataType::Int32();
  extra.field_id = 99;
  read.fields.push_back(extra);
  const std::vector<uint64_t> deleted = {0, 1, 99, 100, 2999, 3000, 4500, 6001, 9998, 9999};
  // A filter no page's statistics rule out: every row is read, the filter cuts each batch.
  Result<BoundPredicate> some = ParseAndBindPredicate("s IS NOT NULL", read);
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  const BoundPredicate* with_filter = &*some;
  for (const BoundPredicate* filter : {static_cast<const BoundPredicate*>(nullptr), with_filter}) {
    for (std::optional<int64_t> min_id : {std::optional<int64_t>{}, std::optional<int64_t>{9000}}) {
      ReadOptions ro;
      ro.with_row_ids = !min_id;
      ro.min_row_id = min_id;
      const RecordBatch whole = Read(store, f, read, deleted, filter, ro);
      ASSERT_GT(whole.num_rows, 0);
      for (int64_t most : {int64_t{100}, int64_t{999}, int64_t{3000}, int64_t{3001}, int64_t{0}}) {
        SCOPED_TRACE("batches of " + std::to_string(most) + (filter ? ", filtered" : "") +
                     (min_id ? ", min row id" : ""));
        RecordBatch all;
        int calls = 0;
        Status st =
            ReadDataFileBatches(store, f, read, deleted, filter, ro, most, [&](RecordBatch&& part) {
              ++calls;
              EXPECT_GT(part.num_rows, 0);
              if (most > 0) {
                EXPECT_LE(part.num_rows, most);
              }
              if (all.columns.empty()) {
                all = std::move(part);
                return Status::OK();
              }
              for (size_t k = 0; k < part.columns.size(); ++k) {
                all.columns[k].AppendColumn(part.columns[k]);
              }
              all.num_rows += part.num_rows;
              return Status::OK();
            });
        ASSERT_TRUE(st.ok()) << st.ToString();
        EXPECT_EQ(Cells(all), Cells(whole));
        EXPECT_EQ(all.schema.fields.size(), whole.schema.fields.size());
        if (most == 100 && !min_id) {
          EXPECT_GE(calls, filter ? 90 : 99);
        }
        if (most == 0) {
          EXPECT_EQ(calls, 1);
        }
      }
    }
  }
  // A position past the end is corrupt, before any batch; an error of the callback stops the
  // read and comes back as it was.
  int calls = 0;
  Status st = ReadDataFileBatches(store, f, read, {10000}, nullptr, {}, 100, [&](RecordBatch&&) {
    ++calls;
    return Status::OK();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
  EXPECT_EQ(calls, 0);
  st = ReadDataFileBatches(store, f, read, {}, nullptr, {}, 100,
                           [&](RecordBatch&&) { return Status::Cancelled("stop here"); });
  EXPECT_EQ(st.kind(), ErrorKind::kCancelled);
  EXPECT_EQ(st.message(), "stop here");
}

TEST(ReadDataFile, FiltersRowsAfterDeletions) {
  Schema schema = MustSchema("id INT64 NOT NULL, s VARCHAR");
  RecordBatch b = BatchOf(schema, {{"1", "a"}, {"2", nullptr}, {"3", "c"}, {"4", "d"}, {"5", "e"}});
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(
      auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)), {}));
  DataFile f = files[0];
  f.first_row_id = 0;
  ASSERT_OK_AND_ASSIGN(BoundPredicate pred,
                       ParseAndBindPredicate("id >= 2 AND s IS NOT NULL", schema));
  ReadOptions ro;
  ro.field_ids = {1};  // the filter reads s, which is not returned
  ro.with_row_ids = true;
  RecordBatch back = Read(store, f, schema, {3}, &pred, ro);
  ASSERT_EQ(back.columns.size(), 2u);
  EXPECT_EQ(Cells(back), (std::vector<std::string>{"3", "2", "5", "4"}));
}

// ---- Page index pruning ----

// 60,000 rows in row groups of 20,000 and pages of 4,096 rows: a sorted id, a descending column
// with nulls, strings whose bounds are truncated, a float with a NaN (its row group has no
// column index), a stretch of nulls (all-null pages), unsigned, decimal, seconds and a list.
const char* kPruneSchema =
    "id INT64 NOT NULL, dsc INT32, s VARCHAR, f FLOAT64, n INT32, u UINT64, d DECIMAL(38,2), "
    "t TIMESTAMP[s], tags ARRAY<INT32>";

RecordBatch PruneBatch(int64_t rows) {
  Schema schema = MustSchema(kPruneSchema);
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  char pad[32];
  for (int64_t i = 0; i < rows; ++i) {
    b.columns[0].AppendFixed<int64_t>(i);
    if (i % 1000 == 7) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendFixed<int32_t>(static_cast<int32_t>(100000 - i));
    }
    std::snprintf(pad, sizeof(pad), "%06lld", static_cast<long long>(i));
    b.columns[2].AppendBytes(std::string(i < rows / 2 ? "a" : "b") + std::string(70, 'x') + pad);
    b.columns[3].AppendFixed<double>(i == 12345 ? NAN : static_cast<double>(i) * 0.5);
    if (i >= 20000 && i < 36384) {  // one all-null page (16,384 rows of levels)
      b.columns[4].AppendNull();
    } else {
      b.columns[4].AppendFixed<int32_t>(static_cast<int32_t>(i % 100));
    }
    b.columns[5].AppendFixed<uint64_t>(static_cast<uint64_t>(i) * 1000000000000000ull);
    b.columns[6].AppendFixed<int128>(static_cast<int128>(i - 30000) * 100);
    b.columns[7].AppendFixed<int64_t>(i);
    b.columns[8].child->AppendFixed<int32_t>(static_cast<int32_t>(i % 3));
    b.columns[8].AppendArrayRow();
  }
  b.num_rows = rows;
  return b;
}

DataFile WritePruneFile(ObjectStore& store, bool page_index) {
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 20000;
  opts.parquet.data_page_bytes = 2048;
  opts.parquet.page_index = page_index;
  auto files = WriteDataFiles(store, MustSchema(kPruneSchema), PartitionSpec{}, SortOrder{},
                              Vec(PruneBatch(60000)), opts);
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  DataFile f = files.ok() ? (*files)[0] : DataFile{};
  f.first_row_id = 1000000;
  return f;
}

TEST(ReadDataFile, PointLookupReadsOnePagePerColumn) {
  MemoryObjectStore store;
  const Schema schema = MustSchema(kPruneSchema);
  ASSERT_OK_AND_ASSIGN(BoundPredicate pred, ParseAndBindPredicate("id = 45678", schema));
  ReadOptions ro;
  ro.field_ids = {1, 7};  // id and d: both in pages of 4,096 rows
  for (bool page_index : {true, false}) {
    SCOPED_TRACE(page_index ? "with page index" : "without page index");
    DataFile f = WritePruneFile(store, page_index);
    ReadStats pruned, full;
    ro.prune_pages = true;
    ro.stats = &pruned;
    RecordBatch back = Read(store, f, schema, {}, &pred, ro);
    ASSERT_EQ(back.num_rows, 1);
    EXPECT_EQ(ColumnCells(back, 0), (std::vector<std::string>{"45678"}));
    ro.prune_pages = false;
    ro.stats = &full;
    RecordBatch all = Read(store, f, schema, {}, &pred, ro);
    EXPECT_EQ(Cells(all), Cells(back));
    // Without pruning every page of both columns is decoded.
    EXPECT_EQ(full.row_groups_skipped_by_statistics, 0);
    EXPECT_EQ(pruned.row_groups_skipped_by_statistics, 2);  // row group statistics, either way
    if (page_index) {
      EXPECT_EQ(pruned.data_pages_read, 2);  // one page of id, one of d
      EXPECT_GT(pruned.data_pages_skipped, 0);
      EXPECT_GT(full.data_pages_read, 20);
    } else {
      EXPECT_EQ(pruned.data_pages_skipped, 0);
      EXPECT_EQ(pruned.data_pages_read * 3, full.data_pages_read);  // one row group of three
    }
  }
}

// Whatever the predicate, reading with pruning gives the rows of a full read and filter, with
// deletions and row ids in place.
TEST(ReadDataFile, PrunedReadsEqualFullReads) {
  MemoryObjectStore store;
  const Schema schema = MustSchema(kPruneSchema);
  DataFile with = WritePruneFile(store, true);
  DataFile without = WritePruneFile(store, false);
  const std::vector<uint64_t> deleted = {0, 5, 4100, 12345, 20000, 45678, 59999};
  const char* predicates[] = {
      "id = 12345",
      "id = -1",
      "id < 100",
      "id >= 59990",
      "id > 20000 AND id < 20010",
      "id IN (5, 4100, 40000, 59999)",
      "id NOT IN (1, 2)",
      "id <> 5",
      "id < 10 OR id > 59995",
      "NOT (id < 59000)",
      "dsc > 99990",
      "dsc <= 40001",
      "dsc IS NULL",
      "dsc = 99993",
      "s < 'b'",
      "s >= 'b'",
      "s = 'a'",
      "s > 'axxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx030000'",
      "f > 29000",
      "f < 1",
      "f <> 3",
      "f = 'NaN'",
      "f IS NULL",
      "n IS NULL",
      "n IS NOT NULL AND id > 19000 AND id < 37000",
      "n = 5",
      "n IN (1, 2) AND id >= 30000",
      "u >= 18000000000000000000",
      "u < 5000000000000000000",
      "d < -299.5",
      "d = 0",
      "t >= '1970-01-01 16:00:00'",
      "t < '1970-01-01 00:00:10'",
      "id = 100 AND s = 'zz'",
      "tags IS NULL",
  };
  ReadOptions ro;
  ro.with_row_ids = true;
  for (const DataFile* f : {&with, &without}) {
    int64_t skipped = 0;
    for (const char* text : predicates) {
      SCOPED_TRACE(std::string(text) + (f == &with ? " (page index)" : " (no page index)"));
      ASSERT_OK_AND_ASSIGN(BoundPredicate pred, ParseAndBindPredicate(text, schema));
      ReadStats st;
      ro.prune_pages = true;
      ro.stats = &st;
      RecordBatch pruned = Read(store, *f, schema, deleted, &pred, ro);
      ro.prune_pages = false;
      ro.stats = nullptr;
      RecordBatch full = Read(store, *f, schema, deleted, &pred, ro);
      ASSERT_EQ(pruned.num_rows, full.num_rows);
      EXPECT_EQ(Cells(pruned), Cells(full));
      skipped += st.data_pages_skipped + st.row_groups_skipped_by_statistics;
    }
    EXPECT_GT(skipped, 0);
  }
}

// STRUCT members prune by their own leaf's page index (and chunk statistics), like columns.
TEST(ReadDataFile, PrunesByStructMemberPages) {
  MemoryObjectStore store;
  Schema schema = MustSchema("id INT64 NOT NULL, p STRUCT<k: INT64, q: STRUCT<v: VARCHAR>>");
  int32_t last = 0;
  ASSERT_OK(AssignFieldIds(&schema, &last));
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  char text[32];
  for (int64_t i = 0; i < 60000; ++i) {
    b.columns[0].AppendFixed<int64_t>(i);
    Column& p = b.columns[1];
    if (i % 500 == 3) {
      p.AppendNull();
      continue;
    }
    if (i % 700 == 5) {
      p.members[0].AppendNull();
    } else {
      p.members[0].AppendFixed<int64_t>(i);
    }
    Column& q = p.members[1];
    if (i >= 30000 && i < 31000) {
      q.AppendNull();
    } else {
      std::snprintf(text, sizeof(text), "v%06lld", static_cast<long long>(i));
      q.members[0].AppendBytes(text);
      q.AppendStructRow();
    }
    p.AppendStructRow();
  }
  b.num_rows = 60000;
  for (bool page_index : {true, false}) {
    SCOPED_TRACE(page_index ? "page index" : "no page index");
    DataWriteOptions opts;
    opts.parquet.row_group_rows = 20000;
    opts.parquet.data_page_bytes = 2048;
    opts.parquet.page_index = page_index;
    ASSERT_OK_AND_ASSIGN(std::vector<DataFile> files,
                         WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{}, Vec(Copy(b)),
                                        opts));
    const DataFile& f = files[0];
    for (const char* text : {"p.k = 12345", "p.k < 100", "p.q.v >= 'v059990'", "p.k IS NULL",
                             "p IS NULL", "p.q IS NULL AND id > 30990", "p.q.v = 'nope'",
                             "p.k > 45000 OR p.q.v < 'v000010'", "NOT (p.k < 59000)"}) {
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(BoundPredicate pred, ParseAndBindPredicate(text, schema));
      ReadOptions ro;
      ReadStats st;
      ro.prune_pages = true;
      ro.stats = &st;
      RecordBatch pruned = Read(store, f, schema, {}, &pred, ro);
      ro.prune_pages = false;
      ro.stats = nullptr;
      RecordBatch full = Read(store, f, schema, {}, &pred, ro);
      EXPECT_EQ(Cells(pruned), Cells(full));
      if (std::string_view(text) == "p.k = 12345") {
        EXPECT_EQ(pruned.num_rows, 1);
        EXPECT_EQ(st.row_groups_skipped_by_statistics, 2);
        if (page_index) {
          EXPECT_GT(st.data_pages_skipped, 0);
        }
      }
    }
  }
}

// A file column of a narrower type than the dataset's (schema evolution): its page bounds are
// widened like its values.
TEST(ReadDataFile, PrunesOnWidenedColumns) {
  MemoryObjectStore store;
  const Schema narrow = MustSchema("v INT32, s VARCHAR");
  RecordBatch b;
  b.schema = narrow;
  for (const Field& f : narrow.fields) b.columns.emplace_back(f.type);
  for (int i = 0; i < 30000; ++i) {
    b.columns[0].AppendFixed<int32_t>(i - 15000);
    b.columns[1].AppendBytes(std::to_string(i));
  }
  b.num_rows = 30000;
  DataWriteOptions opts;
  opts.parquet.data_page_bytes = 1024;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, narrow, PartitionSpec{}, SortOrder{},
                                                  Vec(std::move(b)), opts));
  const Schema wide = MustSchema("v INT64, s VARCHAR");
  ASSERT_OK_AND_ASSIGN(BoundPredicate pred, ParseAndBindPredicate("v = -14990", wide));
  ReadStats st, full;
  ReadOptions ro;
  ro.stats = &st;
  RecordBatch back = Read(store, files[0], wide, {}, &pred, ro);
  EXPECT_EQ(Cells(back), (std::vector<std::string>{"-14990", "10"}));
  // The first page of v (4,096 rows) and the smaller pages of s over the same rows.
  EXPECT_GT(st.data_pages_skipped, 0);
  ro.stats = &full;
  ro.prune_pages = false;
  EXPECT_EQ(Cells(Read(store, files[0], wide, {}, &pred, ro)), Cells(back));
  EXPECT_LT(st.data_pages_read * 4, full.data_pages_read);
}

TEST(ReadDataFile, BloomFiltersSkipRowGroupsAndKeepPositions) {
  // Row groups of 4 rows whose ids interleave (0..3 are 10, 90, 20, 80; ...), so every row
  // group's min/max covers every probe below and only the bloom filters can rule one out.
  Schema schema = MustSchema("id INT64 NOT NULL, s VARCHAR, ok BOOLEAN");
  const int64_t ids[12] = {10, 90, 20, 80, 11, 91, 21, 81, 12, 92, 22, 82};
  std::vector<std::vector<const char*>> rows;
  std::vector<std::string> texts;
  for (int64_t id : ids) texts.push_back(std::to_string(id));
  for (int i = 0; i < 12; ++i) rows.push_back({texts[i].c_str(), i % 2 ? "odd" : "even", "true"});
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 4;
  opts.parquet.bloom_filter_columns = {"id", "s"};
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(BatchOf(schema, rows)), opts));
  DataFile f = files[0];
  f.first_row_id = 1000;
  ReadOptions ro;
  ro.with_row_ids = true;
  auto scan = [&](const std::string& where, const std::vector<uint64_t>& deleted,
                  ReadStats* stats) {
    Result<BoundPredicate> pred = ParseAndBindPredicate(where, schema);
    EXPECT_TRUE(pred.ok()) << pred.status().ToString();
    ReadOptions o = ro;
    o.stats = stats;
    RecordBatch b = Read(store, f, schema, deleted, &*pred, o);
    std::vector<std::string> out;
    for (int64_t r = 0; r < b.num_rows; ++r) {
      out.push_back(ValueText(b.columns[0], r) + "@" + ValueText(b.columns[3], r));
    }
    return out;
  };
  // id = 21 is in the third row group only: its rows keep their file positions (row ids).
  ReadStats stats;
  EXPECT_EQ(scan("id = 21", {}, &stats), (std::vector<std::string>{"21@1006"}));
  EXPECT_EQ(stats.files, 1);
  EXPECT_EQ(stats.row_groups, 3);
  EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 2);
  EXPECT_EQ(stats.files_skipped_by_bloom_filter, 0);
  EXPECT_EQ(stats.bloom_filters_read, 3);
  // Deleted positions map into the row groups read; those of skipped groups are ignored.
  stats = {};
  EXPECT_EQ(scan("id IN (21, 12, 50)", {6, 3}, &stats), (std::vector<std::string>{"12@1008"}));
  EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 1);
  EXPECT_EQ(scan("id IN (21, 12)", {0, 11}, nullptr),
            (std::vector<std::string>{"21@1006", "12@1008"}));
  // Nothing matches: no row group is read; the batch is empty but typed.
  stats = {};
  Result<BoundPredicate> none = ParseAndBindPredicate("id = 50 OR s = 'nope'", schema);
  ASSERT_TRUE(none.ok());
  ReadOptions counted = ro;
  counted.stats = &stats;
  RecordBatch empty = Read(store, f, schema, {1}, &*none, counted);
  EXPECT_EQ(empty.num_rows, 0);
  EXPECT_EQ(empty.schema.ToString(), "id INT64 NOT NULL, s VARCHAR, ok BOOLEAN, " +
                                         std::string(kRowIdColumnName) + " INT64 NOT NULL");
  ASSERT_EQ(empty.columns.size(), 4u);
  for (const Column& c : empty.columns) EXPECT_EQ(c.length, 0);
  EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 3);
  EXPECT_EQ(stats.files_skipped_by_bloom_filter, 1);
  // What bloom filters cannot answer reads every row group: ranges, <>, a column without
  // filters, an OR with such a side.
  for (const char* where : {"id > 85", "id <> 21", "ok = false", "id = 50 OR ok = false"}) {
    stats = {};
    scan(where, {}, &stats);
    EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 0) << where;
  }
  EXPECT_EQ(scan("id > 85 AND s = 'even'", {}, nullptr), (std::vector<std::string>{}));
  EXPECT_EQ(scan("s = 'odd' AND id = 91", {}, nullptr), (std::vector<std::string>{"91@1005"}));
  // A schema where the column was promoted (INT32 file -> INT64 dataset) is not asked: the
  // file's values are not the schema's type.
  Schema narrow = MustSchema("id INT32 NOT NULL, s VARCHAR, ok BOOLEAN");
  ASSERT_OK_AND_ASSIGN(auto nfiles, WriteDataFiles(store, narrow, PartitionSpec{}, SortOrder{},
                                                   Vec(BatchOf(narrow, rows)), opts));
  DataFile nf = nfiles[0];
  Result<BoundPredicate> p21 = ParseAndBindPredicate("id = 21", schema);
  ASSERT_TRUE(p21.ok());
  stats = {};
  ReadOptions plain;
  plain.stats = &stats;
  RecordBatch widened = Read(store, nf, schema, {}, &*p21, plain);
  EXPECT_EQ(widened.num_rows, 1);
  EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 0);
}

// STRUCT members by dotted path get filters too; reads and planning (MayMatchByBloomFilters)
// ask them about a member's = and IN values.
TEST(ReadDataFile, BloomFiltersOnStructMembers) {
  Schema schema = MustSchema("id INT64 NOT NULL, p STRUCT<s: VARCHAR, n: STRUCT<c: INT64>>");
  // Row groups of 2 rows whose members' bounds cover every probe below.
  std::vector<std::vector<const char*>> rows = {
      {"1", R"({"s":"a","n":{"c":10}})"}, {"2", R"({"s":"z","n":{"c":90}})"},
      {"3", R"({"s":"b","n":{"c":20}})"}, {"4", R"({"s":"y","n":{"c":80}})"},
      {"5", R"({"s":"c","n":null})"},     {"6", nullptr}};
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 2;
  opts.parquet.bloom_filter_columns = {"p.s", "P.N.C"};
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(BatchOf(schema, rows)), opts));
  const DataFile& f = files[0];
  auto ids = [&](const std::string& where, ReadStats* stats) {
    Result<BoundPredicate> pred = ParseAndBindPredicate(where, schema);
    EXPECT_TRUE(pred.ok()) << pred.status().ToString();
    ReadOptions o;
    o.stats = stats;
    RecordBatch b = Read(store, f, schema, {}, &*pred, o);
    std::vector<std::string> out;
    for (int64_t r = 0; r < b.num_rows; ++r) out.push_back(ValueText(b.columns[0], r));
    return out;
  };
  ReadStats stats;
  EXPECT_EQ(ids("p.s = 'b'", &stats), std::vector<std::string>{"3"});
  EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 2);
  stats = {};
  EXPECT_EQ(ids("p.n.c IN (90, 80)", &stats), (std::vector<std::string>{"2", "4"}));
  EXPECT_EQ(stats.row_groups_skipped_by_bloom_filter, 1);
  stats = {};
  EXPECT_TRUE(ids("p.n.c = 50 OR p.s = 'q'", &stats).empty());
  EXPECT_EQ(stats.files_skipped_by_bloom_filter, 1);
  EXPECT_EQ(ids("p.n.c IS NULL", nullptr), (std::vector<std::string>{"5", "6"}));

  auto may = [&](const std::string& where, ReadStats* st = nullptr) {
    Result<BoundPredicate> pred = ParseAndBindPredicate(where, schema);
    EXPECT_TRUE(pred.ok()) << pred.status().ToString();
    return MayMatchByBloomFilters(store, f, schema, *pred, st);
  };
  stats = {};
  EXPECT_FALSE(may("p.s = 'q'", &stats));
  EXPECT_EQ(stats.files, 1);
  EXPECT_EQ(stats.files_skipped_by_bloom_filter, 1);
  EXPECT_EQ(stats.bloom_filters_read, 3);
  EXPECT_EQ(stats.data_pages_read, 0);
  EXPECT_TRUE(may("p.s = 'y'"));
  EXPECT_TRUE(may("p.s = 'q' OR id = 7"));  // id has no filter
  EXPECT_TRUE(may("p.s > 'q'"));
  EXPECT_FALSE(may("p.n.c IN (11, 12) AND id > 0"));
  // A file that cannot be read is kept: the scan says what is wrong.
  DataFile missing = f;
  missing.path = "nowhere.parquet";
  Result<BoundPredicate> pred = ParseAndBindPredicate("p.s = 'q'", schema);
  ASSERT_TRUE(pred.ok());
  EXPECT_TRUE(MayMatchByBloomFilters(store, missing, schema, *pred));
  DataFile shorter = f;
  shorter.record_count += 1;
  EXPECT_TRUE(MayMatchByBloomFilters(store, shorter, schema, *pred));

  // Members inside lists, STRUCTs themselves and BOOLEANs get none.
  Schema nested = MustSchema("l ARRAY<STRUCT<s: VARCHAR>>, q STRUCT<b: BOOLEAN, s: VARCHAR>");
  for (const char* bad : {"l.s", "q", "q.b", "q.x"}) {
    DataWriteOptions o;
    o.parquet.bloom_filter_columns = {bad};
    EXPECT_FALSE(WriteDataFiles(store, nested, PartitionSpec{}, SortOrder{},
                                Vec(BatchOf(nested, {{nullptr, nullptr}})), o)
                     .ok())
        << bad;
  }
}

// Bloom filters rule out row groups first; the page index then prunes pages of the row groups
// left (and is not asked about the others). Deletions and row ids keep their file positions.
TEST(ReadDataFile, BloomFiltersAndPageIndexCompose) {
  // Three row groups of 1,000 rows in pages of 100: a sorted id, and k alternating between two
  // values per row group (10/90, 20/80, 11/91) so that every row group's bounds cover 10 and 20
  // and only the bloom filters can rule one out.
  const Schema schema = MustSchema("id INT64 NOT NULL, k INT64 NOT NULL");
  const int64_t kvals[3][2] = {{10, 90}, {20, 80}, {11, 91}};
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  for (int64_t i = 0; i < 3000; ++i) {
    b.columns[0].AppendFixed<int64_t>(i);
    b.columns[1].AppendFixed<int64_t>(kvals[i / 1000][i % 2]);
  }
  b.num_rows = 3000;
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 1000;
  opts.parquet.data_page_rows = 100;
  opts.parquet.bloom_filter_columns = {"k"};
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(std::move(b)), opts));
  DataFile f = files[0];
  f.first_row_id = 0;
  const std::vector<uint64_t> deleted = {0, 2, 600, 1500, 1502, 2950};
  ReadOptions ro;
  ro.with_row_ids = true;
  auto read = [&](const char* where, bool prune_pages, ReadStats* stats) {
    Result<BoundPredicate> pred = ParseAndBindPredicate(where, schema);
    EXPECT_TRUE(pred.ok()) << pred.status().ToString();
    ReadOptions o = ro;
    o.prune_pages = prune_pages;
    o.stats = stats;
    RecordBatch got = Read(store, f, schema, deleted, &*pred, o);
    std::vector<std::string> out;
    for (int64_t r = 0; r < got.num_rows; ++r) {
      out.push_back(ValueText(got.columns[0], r) + "@" + ValueText(got.columns[2], r));
    }
    return out;
  };
  // The rows the filter keeps, by brute force.
  auto expected = [&](auto keep) {
    std::vector<std::string> out;
    for (int64_t i = 0; i < 3000; ++i) {
      if (std::find(deleted.begin(), deleted.end(), static_cast<uint64_t>(i)) != deleted.end()) {
        continue;
      }
      if (keep(i, kvals[i / 1000][i % 2]))
        out.push_back(std::to_string(i) + "@" + std::to_string(i));
    }
    return out;
  };

  // Statistics keep every row group (the id ranges touch each); the bloom filters of k rule out
  // the third; the page index keeps one page of id and one of k in each of the other two.
  const char* where =
      "(k = 20 OR k = 10) AND (id < 50 OR (id >= 1500 AND id < 1550) OR id >= 2900)";
  const auto want = expected([](int64_t id, int64_t k) {
    return (k == 20 || k == 10) && (id < 50 || (id >= 1500 && id < 1550) || id >= 2900);
  });
  ASSERT_EQ(want.size(), 46u);
  ReadStats st;
  EXPECT_EQ(read(where, true, &st), want);
  EXPECT_EQ(st.files, 1);
  EXPECT_EQ(st.row_groups, 3);
  EXPECT_EQ(st.row_groups_skipped_by_bloom_filter, 1);
  EXPECT_EQ(st.files_skipped_by_bloom_filter, 0);
  EXPECT_EQ(st.bloom_filters_read, 3);
  EXPECT_EQ(st.row_groups_skipped_by_statistics, 0);
  EXPECT_EQ(st.data_pages_read, 4);
  EXPECT_EQ(st.data_pages_skipped, 36);
  // Without page pruning the bloom filters still rule out the third row group.
  ReadStats full;
  EXPECT_EQ(read(where, false, &full), want);
  EXPECT_EQ(full.row_groups_skipped_by_bloom_filter, 1);
  EXPECT_EQ(full.row_groups_skipped_by_statistics, 0);
  EXPECT_EQ(full.data_pages_read, 40);
  EXPECT_EQ(full.data_pages_skipped, 0);

  // A row group ruled out both ways is counted once, by the bloom filters (asked first).
  st = {};
  EXPECT_EQ(read("(k = 20 OR k = 10) AND id < 50", true, &st),
            expected([](int64_t id, int64_t k) { return (k == 20 || k == 10) && id < 50; }));
  EXPECT_EQ(st.row_groups_skipped_by_bloom_filter, 1);
  EXPECT_EQ(st.row_groups_skipped_by_statistics, 1);
  EXPECT_EQ(st.data_pages_read, 2);
  // Everything ruled out: by the bloom filters in one row group, the statistics in the others.
  st = {};
  EXPECT_EQ(read("k = 11 AND id < 1000", true, &st), std::vector<std::string>{});
  EXPECT_EQ(st.row_groups_skipped_by_bloom_filter, 2);
  EXPECT_EQ(st.row_groups_skipped_by_statistics, 1);
  EXPECT_EQ(st.files_skipped_by_bloom_filter, 0);
  EXPECT_EQ(st.data_pages_read, 0);
}

// ---- Footer statistics ----

void ExpectSameStats(const std::vector<ColumnStats>& got, const std::vector<ColumnStats>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("field " + std::to_string(want[i].field_id));
    EXPECT_EQ(got[i].field_id, want[i].field_id);
    EXPECT_EQ(got[i].value_count, want[i].value_count);
    EXPECT_EQ(got[i].null_count, want[i].null_count);
    EXPECT_EQ(got[i].lower, want[i].lower);
    EXPECT_EQ(got[i].upper, want[i].upper);
  }
}

TEST(DataFileFromFooter, MatchesWrittenStatsAcrossRowGroups) {
  Schema schema = MustSchema("id INT64 NOT NULL, s VARCHAR, f FLOAT32, d DECIMAL(20,3), u UINT32");
  std::vector<std::vector<const char*>> rows = {{"4", "m", "1.5", "12.345", "4000000000"},
                                                {"-9", nullptr, "-2", "-0.001", "1"},
                                                {"7", "b", nullptr, nullptr, nullptr},
                                                {"100", "zz", "0.5", "99999.999", "7"},
                                                {"0", "a", "3.25", "0", "0"}};
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 2;
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(BatchOf(schema, rows)), opts));
  ASSERT_OK_AND_ASSIGN(DataFile from_footer,
                       DataFileFromFooter(store, files[0].path, schema, PartitionSpec{}));
  EXPECT_EQ(from_footer.path, files[0].path);
  EXPECT_EQ(from_footer.record_count, 5);
  EXPECT_EQ(from_footer.file_size_bytes, files[0].file_size_bytes);
  ExpectSameStats(from_footer.columns, files[0].columns);
  EXPECT_FALSE(from_footer.columns[2].nan_count.has_value());
}

TEST(DataFileFromFooter, WidensTypesAndRefusesOthers) {
  Schema file_schema = MustSchema("a INT32, b VARCHAR");
  RecordBatch b = BatchOf(file_schema, {{"3", "x"}, {"-1", "y"}});
  MemoryObjectStore store;
  PutParquet(store, "f.parquet", file_schema, b);
  Schema wide = MustSchema("a INT64, b VARCHAR");
  ASSERT_OK_AND_ASSIGN(DataFile f, DataFileFromFooter(store, "f.parquet", wide, PartitionSpec{}));
  ASSERT_EQ(f.columns.size(), 2u);
  EXPECT_EQ(f.columns[0].lower, Bound(DataType::Int64(), "-1"));
  EXPECT_EQ(f.columns[0].upper, Bound(DataType::Int64(), "3"));
  EXPECT_EQ(f.columns[0].lower->size(), 8u);

  Schema bad = MustSchema("a DATE, b VARCHAR");
  auto r = DataFileFromFooter(store, "f.parquet", bad, PartitionSpec{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'a'"), std::string::npos) << r.status().message();

  Schema missing = MustSchema("a INT32, b VARCHAR, c INT32 NOT NULL");
  EXPECT_EQ(DataFileFromFooter(store, "f.parquet", missing, PartitionSpec{}).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(DataFileFromFooter(store, "nope.parquet", wide, PartitionSpec{}).status().kind(),
            ErrorKind::kNotFound);
  ASSERT_OK(store.Put("junk.parquet", "PAR1 not really a parquet file PAR1"));
  EXPECT_EQ(DataFileFromFooter(store, "junk.parquet", wide, PartitionSpec{}).status().kind(),
            ErrorKind::kCorruption);
}

TEST(DataFileFromFooter, TimeFilesInTimeNanosecondColumnsAndNotBack) {
  Schema micros = MustSchema("t TIME");
  RecordBatch b = BatchOf(micros, {{"23:59:59.999999"}, {"00:00:00.000001"}});
  MemoryObjectStore store;
  PutParquet(store, "us.parquet", micros, b);
  Schema nanos = MustSchema("t TIME[ns]");
  ASSERT_OK_AND_ASSIGN(DataFile f, DataFileFromFooter(store, "us.parquet", nanos, PartitionSpec{}));
  ASSERT_EQ(f.columns.size(), 1u);
  // Bounds in the column's unit: nanoseconds.
  EXPECT_EQ(f.columns[0].lower, Bound(DataType::Time(TimeUnit::kNano), "00:00:00.000001"));
  EXPECT_EQ(f.columns[0].upper, Bound(DataType::Time(TimeUnit::kNano), "23:59:59.999999"));
  RecordBatch got = Read(store, f, nanos);
  ASSERT_EQ(got.columns.size(), 1u);
  EXPECT_EQ(got.columns[0].type, DataType::Time(TimeUnit::kNano));
  EXPECT_EQ(got.columns[0].Value<int64_t>(0), 86399999999000);
  EXPECT_EQ(Cells(got), (std::vector<std::string>{"23:59:59.999999", "00:00:00.000001"}));
  // A TIME[ns] file does not fit a TIME column: refused by name, never cut.
  PutParquet(store, "ns.parquet", nanos, BatchOf(nanos, {{"12:00:00.000000001"}}));
  auto r = DataFileFromFooter(store, "ns.parquet", micros, PartitionSpec{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TIME[ns] in the file, which does not widen to the "
                                      "dataset's TIME"),
            std::string::npos)
      << r.status().ToString();
}

TEST(DataFileFromFooter, PartitionValuesFromBounds) {
  Schema schema = EventSchema();
  PartitionSpec spec = MonthKeySpec();
  MemoryObjectStore store;
  DataWriteOptions opts;
  opts.parquet.row_group_rows = 4;
  ASSERT_OK_AND_ASSIGN(
      auto files, WriteDataFiles(store, schema, spec, SortOrder{}, Vec(EventBatch(0, 60)), opts));
  ASSERT_EQ(files.size(), 6u);
  for (const DataFile& f : files) {
    ASSERT_OK_AND_ASSIGN(DataFile g, DataFileFromFooter(store, f.path, schema, spec));
    EXPECT_EQ(g.partition, f.partition);
    EXPECT_EQ(g.spec_id, 3);
    ExpectSameStats(g.columns, f.columns);
  }
  // A file holding several months.
  ASSERT_OK_AND_ASSIGN(auto whole, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                  Vec(EventBatch(0, 60)), {}));
  auto r = DataFileFromFooter(store, whole[0].path, schema, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(r.status().message().find("spans partitions"), std::string::npos)
      << r.status().message();

  // Bucket: a constant column gives its bucket; two values never do, even in one bucket.
  Schema ids = MustSchema("id INT64 NOT NULL, key VARCHAR");
  PartitionSpec bucket;
  bucket.fields = {PField(1, 1000, "id_bucket", TransformKind::kBucket, 1)};
  ASSERT_OK_AND_ASSIGN(auto one, WriteDataFiles(store, ids, PartitionSpec{}, SortOrder{},
                                                Vec(BatchOf(ids, {{"34", "x"}, {"34", "y"}})), {}));
  ASSERT_OK_AND_ASSIGN(DataFile g, DataFileFromFooter(store, one[0].path, ids, bucket));
  EXPECT_EQ(g.partition, PartitionValues{std::string("0")});
  ASSERT_OK_AND_ASSIGN(auto two, WriteDataFiles(store, ids, PartitionSpec{}, SortOrder{},
                                                Vec(BatchOf(ids, {{"34", "x"}, {"35", "y"}})), {}));
  EXPECT_EQ(DataFileFromFooter(store, two[0].path, ids, bucket).status().kind(),
            ErrorKind::kInvalidArgument);
  // An all-null source column gives a null partition value; a mixed one spans partitions.
  PartitionSpec by_key;
  by_key.fields = {PField(2, 1000, "key", TransformKind::kIdentity)};
  ASSERT_OK_AND_ASSIGN(auto nulls,
                       WriteDataFiles(store, ids, PartitionSpec{}, SortOrder{},
                                      Vec(BatchOf(ids, {{"1", nullptr}, {"2", nullptr}})), {}));
  ASSERT_OK_AND_ASSIGN(g, DataFileFromFooter(store, nulls[0].path, ids, by_key));
  EXPECT_EQ(g.partition, PartitionValues{std::nullopt});
  ASSERT_OK_AND_ASSIGN(auto mixed,
                       WriteDataFiles(store, ids, PartitionSpec{}, SortOrder{},
                                      Vec(BatchOf(ids, {{"1", "k"}, {"2", nullptr}})), {}));
  EXPECT_EQ(DataFileFromFooter(store, mixed[0].path, ids, by_key).status().kind(),
            ErrorKind::kInvalidArgument);
}

// The DuckDB fixture (testdata/README.md) holds rows i = 0..999 of these columns.
RecordBatch DuckDbFixtureRows(const Schema& schema) {
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  const int64_t day0 = 19723;  // 2024-01-01
  for (int64_t i = 0; i < 1000; ++i) {
    b.columns[0].AppendFixed<int64_t>(i);
    if (i % 7 == 0) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendFixed<int32_t>(static_cast<int32_t>(i * 3 - 500));
    }
    b.columns[2].AppendFixed<double>(static_cast<double>(i) * 0.5 - 100);
    if (i % 5 == 0) {
      b.columns[3].AppendNull();
    } else {
      b.columns[3].AppendBytes(std::string(1 + i % 80, static_cast<char>('a' + i % 26)));
    }
    b.columns[4].AppendFixed<int32_t>(static_cast<int32_t>(day0 + i));
    b.columns[5].AppendFixed<int64_t>(day0 * 86400 * 1000000 + i * 3600 * 1000000);
    b.columns[6].AppendFixed<int128>(static_cast<int128>(i * 125));
    b.columns[7].AppendFixed<uint8_t>(i % 3 == 0 ? 1 : 0);
    ++b.num_rows;
  }
  return b;
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DataFileFromFooter, DuckDbFileMatchesTarnStats) {
  Schema schema = MustSchema(
      "id INT64, n INT32, d FLOAT64, s VARCHAR, dt DATE, ts TIMESTAMP[us], dec DECIMAL(10,2), "
      "b BOOLEAN");
  const std::string bytes =
      ReadFileBytes(std::string(TARN_SOURCE_DIR) + "/src/datafile/testdata/duckdb_stats.parquet");
  ASSERT_GT(bytes.size(), 1000u);
  MemoryObjectStore store;
  ASSERT_OK(store.Put("ext/duck.parquet", bytes));
  ASSERT_OK_AND_ASSIGN(DataFile duck,
                       DataFileFromFooter(store, "ext/duck.parquet", schema, PartitionSpec{}));
  EXPECT_EQ(duck.record_count, 1000);
  EXPECT_EQ(duck.file_size_bytes, static_cast<int64_t>(bytes.size()));

  ASSERT_OK_AND_ASSIGN(auto ours, WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                                                 Vec(DuckDbFixtureRows(schema)), {}));
  ASSERT_EQ(ours.size(), 1u);
  ExpectSameStats(duck.columns, ours[0].columns);
  // Spot checks against values computed by hand.
  ASSERT_EQ(duck.columns.size(), 8u);
  EXPECT_EQ(duck.columns[1].null_count, 143);
  EXPECT_EQ(duck.columns[1].lower, Bound(DataType::Int32(), "-497"));
  EXPECT_EQ(duck.columns[3].null_count, 200);
  EXPECT_EQ(duck.columns[3].lower, std::string("aaa"));
  // The longest string is 80 'z's: the upper bound is cut to 64 bytes and incremented.
  EXPECT_EQ(duck.columns[3].upper, std::string(63, 'z') + "{");
  EXPECT_EQ(duck.columns[5].upper,
            Bound(DataType::Timestamp(TimeUnit::kMicro), "2024-02-11T15:00:00"));

  // And the rows read back equal ours (by name: DuckDB writes no field ids).
  RecordBatch back = Read(store, duck, schema);
  EXPECT_EQ(Cells(back), Cells(DuckDbFixtureRows(schema)));
}

// Arrow's Null type as arrow-rs writes a non-nullable one: REQUIRED INT32 with logical type
// UNKNOWN, zeros in the page, min = max = 0 and no nulls in the statistics. The reader makes
// every value null; the statistics say so too (no bounds that would prune `n IS NULL`).
TEST(DataFileFromFooter, UnknownLogicalTypeIsAllNulls) {
  namespace pq = parquet;
  using namespace parquet::testing;  // NOLINT: the crafting helpers
  const std::string page = DataPageV1(3, pq::Encoding::PLAIN, PlainValues<int32_t>({0, 0, 0}));
  pq::SchemaElement n = Leaf("n", pq::Type::INT32, pq::Repetition::REQUIRED);
  n.logical_type.emplace().kind = pq::LogicalType::UNKNOWN;
  pq::FileMetaData md;
  md.version = 1;
  md.schema = {Root(1), n};
  md.num_rows = 3;
  pq::ColumnMetaData m;
  m.type = pq::Type::INT32;
  m.encodings = {pq::Encoding::PLAIN};
  m.path_in_schema = {"n"};
  m.num_values = 3;
  m.total_compressed_size = m.total_uncompressed_size = static_cast<int64_t>(page.size());
  m.data_page_offset = 4;
  pq::Statistics st;
  st.null_count = 0;
  st.min_value = st.max_value = std::string(4, '\0');
  m.statistics = st;
  pq::ColumnChunk cc;
  cc.meta_data = m;
  pq::RowGroup rg;
  rg.num_rows = 3;
  rg.columns.push_back(cc);
  md.row_groups.push_back(rg);
  const std::string footer = EncodeMetaData(md);
  const uint32_t len = static_cast<uint32_t>(footer.size());
  MemoryObjectStore store;
  ASSERT_OK(store.Put(
      "null.parquet",
      "PAR1" + page + footer + std::string(reinterpret_cast<const char*>(&len), 4) + "PAR1"));
  Schema schema = MustSchema("n INT32");
  ASSERT_OK_AND_ASSIGN(DataFile f,
                       DataFileFromFooter(store, "null.parquet", schema, PartitionSpec{}));
  ASSERT_EQ(f.columns.size(), 1u);
  EXPECT_EQ(f.columns[0].value_count, 3);
  EXPECT_EQ(f.columns[0].null_count, 3);
  EXPECT_FALSE(f.columns[0].lower.has_value());
  EXPECT_FALSE(f.columns[0].upper.has_value());
  RecordBatch back = Read(store, f, schema);
  ASSERT_EQ(back.num_rows, 3);
  EXPECT_EQ(back.columns[0].null_count(), 3);
}

TEST(DataFileFromFooter, MalformedFilesFailCleanly) {
  Schema schema = MustSchema("id INT64 NOT NULL, s VARCHAR, f FLOAT64");
  MemoryObjectStore store;
  ASSERT_OK_AND_ASSIGN(
      auto files,
      WriteDataFiles(store, schema, PartitionSpec{}, SortOrder{},
                     Vec(BatchOf(schema, {{"1", "a", "0.5"}, {"2", nullptr, "-1"}})), {}));
  ASSERT_OK_AND_ASSIGN(std::string bytes, store.Get(files[0].path));
  DataFile f = files[0];
  f.path = "mangled.parquet";
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    ASSERT_OK(store.Put("mangled.parquet", bytes.substr(0, cut)));
    EXPECT_FALSE(DataFileFromFooter(store, "mangled.parquet", schema, PartitionSpec{}).ok());
    EXPECT_FALSE(ReadDataFile(store, f, schema, {}, nullptr, {}).ok());
  }
  // Flipped bytes anywhere: errors or (if the change is harmless) success, never a crash.
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string m = bytes;
    m[at] = static_cast<char>(m[at] ^ 0x5a);
    ASSERT_OK(store.Put("mangled.parquet", m));
    (void)DataFileFromFooter(store, "mangled.parquet", schema, PartitionSpec{});
    (void)ReadDataFile(store, f, schema, {}, nullptr, {});
  }
}

// ---- Local store ----

TEST(WriteDataFiles, WorksOnTheLocalStore) {
  std::string dir = testing::TempDir() + "/datafile_local_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  ASSERT_OK_AND_ASSIGN(auto store, LocalObjectStore::Open(dir));
  Schema schema = EventSchema();
  DataWriteOptions opts;
  opts.prefix = "ds/data/";
  ASSERT_OK_AND_ASSIGN(auto files, WriteDataFiles(*store, schema, MonthKeySpec(), SortOrder{},
                                                  Vec(EventBatch(0, 60)), opts));
  ASSERT_EQ(files.size(), 6u);
  int64_t rows = 0;
  for (const DataFile& f : files) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f.path)) << f.path;
    rows += Read(*store, f, schema).num_rows;
  }
  EXPECT_EQ(rows, 60);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tarn
