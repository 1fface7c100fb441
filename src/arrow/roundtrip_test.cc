// Export then Import gives back the same batch, for every type with nulls; release semantics
// (children moved out, any order); streams both ways.
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <stdexcept>

#include "arrow/arrow_c.h"
#include "arrow/test_util.h"
#include "types/batch.h"

namespace tarn::arrow {
namespace {

using testing::ArrayHolder;
using testing::At;
using testing::Cell;
using testing::ExpectSameColumn;
using testing::ExpectSameSchema;
using testing::MakeBatch;
using testing::Rows;
using testing::SchemaHolder;
using testing::StreamHolder;

constexpr std::nullopt_t null = std::nullopt;

// Every tarn type, each column with a null (but the NOT NULL one), nested types nested.
constexpr std::string_view kAllTypes =
    "b BOOLEAN, i8 INT8, i16 INT16, i32 INT32, i64 INT64 NOT NULL, u8 UINT8, u16 UINT16, "
    "u32 UINT32, u64 UINT64, f32 FLOAT32, f64 FLOAT64, dec DECIMAL(38,10), dec2 DECIMAL(5,2), "
    "s VARCHAR, bl BLOB, j JSON, d DATE, t TIME, tn TIME[ns], ts_s TIMESTAMP[s], "
    "ts_ms TIMESTAMP[ms], ts_us TIMESTAMP[us], ts_ns TIMESTAMP[ns], tz_s TIMESTAMPTZ[s], "
    "tz_ms TIMESTAMPTZ[ms], tz_us TIMESTAMPTZ[us], tz_ns TIMESTAMPTZ[ns], id UUID, ip IPV4, "
    "arr ARRAY<INT64>, aos ARRAY<STRUCT<x: INT32, y: VARCHAR NOT NULL>>, "
    "m MAP<VARCHAR, ARRAY<INT64>>, st STRUCT<a: INT64 NOT NULL, b: VARCHAR>, v VARIANT";

std::vector<std::vector<Cell>> AllTypesRows() {
  return {
      {"true",
       "-128",
       "-32768",
       "-2147483648",
       "-9223372036854775808",
       "255",
       "65535",
       "4294967295",
       "18446744073709551615",
       "1.5",
       "-0.1",
       "-1234567890123456789012345678.0123456789",
       "999.99",
       "héllo",
       "AAEC/w==",
       R"({"a":[1,null]})",
       "2024-02-29",
       "23:59:59.999999",
       "00:00:00.000000001",
       "1969-12-31T23:59:59",
       "2000-01-01T00:00:00.001",
       "2262-04-11T23:47:16.854775",
       "1677-09-21T00:12:43.145224192",
       "1970-01-01T00:00:00Z",
       "1999-12-31T23:59:59.999Z",
       "2024-06-01T12:00:00.000001Z",
       "2024-06-01T12:00:00.000000001Z",
       "00112233-4455-6677-8899-aabbccddeeff",
       "192.168.0.1",
       "[1, null, 3]",
       R"([{"x": 1, "y": "a"}, null, {"x": null, "y": "c"}])",
       R"([{"key": "k", "value": [1, 2]}, {"key": "n", "value": null}])",
       R"({"a": 7, "b": "x"})",
       R"({"k": [1, "two", null], "n": 1.5})"},
      {null, null, null, null, "0",  null, null, null, null, null, null, null,
       null, null, null, null, null, null, null, null, null, null, null, null,
       null, null, null, null, null, null, null, null, null, null},
      {"false",
       "127",
       "32767",
       "2147483647",
       "9223372036854775807",
       "0",
       "0",
       "0",
       "0",
       "NaN",
       "-Infinity",
       "0.0000000001",
       "-0.01",
       "",
       "",
       "null",
       "0001-01-01",
       "00:00:00",
       "12:34:56.789",
       "9999-12-31T23:59:59",
       "1970-01-01T00:00:00",
       "1970-01-01T00:00:00",
       "1970-01-01T00:00:00",
       "2000-02-29T00:00:00Z",
       "1970-01-01T00:00:00Z",
       "1970-01-01T00:00:00Z",
       "1970-01-01T00:00:00Z",
       "ffffffff-ffff-ffff-ffff-ffffffffffff",
       "0.0.0.0",
       "[]",
       "[]",
       "[]",
       R"({"a": -1, "b": null})",
       "null"},
  };
}

// Export, import, compare: schema (ids at every level), rows, and every buffer.
void ExpectRoundTrip(const RecordBatch& original) {
  SchemaHolder s;
  ASSERT_OK(ExportSchema(original.schema, &s.s));
  ASSERT_OK_AND_ASSIGN(ImportedSchema schema, ImportSchema(&s.s));
  EXPECT_EQ(s.s.release, nullptr);  // consumed
  ExpectSameSchema(schema.schema, original.schema);

  ArrayHolder a;
  ASSERT_OK(ExportBatch(CloneBatch(original), &a.a));
  ASSERT_OK_AND_ASSIGN(RecordBatch back, ImportBatch(&a.a, schema));
  EXPECT_EQ(a.a.release, nullptr);
  ASSERT_EQ(back.num_rows, original.num_rows);
  EXPECT_EQ(Rows(back), Rows(original));
  ASSERT_EQ(back.columns.size(), original.columns.size());
  for (size_t i = 0; i < back.columns.size(); ++i) {
    ExpectSameColumn(back.columns[i], original.columns[i], original.schema.fields[i].name);
  }
}

TEST(RoundTrip, EveryTypeWithNulls) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch(kAllTypes, AllTypesRows()));
  ExpectRoundTrip(b);
}

TEST(RoundTrip, EmptyBatch) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch(kAllTypes, {}));
  ExpectRoundTrip(b);
}

TEST(RoundTrip, NoNullsEmptyValidity) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch("a INT64, s VARCHAR, l ARRAY<INT32>",
                                                {{"1", "x", "[1]"}, {"2", "yy", "[]"}}));
  for (const Column& c : b.columns) ASSERT_TRUE(c.validity.empty());
  ExpectRoundTrip(b);
}

TEST(RoundTrip, ThroughTheCanonicalSchemaOverload) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch(kAllTypes, AllTypesRows()));
  ArrayHolder a;
  ASSERT_OK(ExportBatch(CloneBatch(b), &a.a));
  ASSERT_OK_AND_ASSIGN(RecordBatch back, ImportBatch(&a.a, b.schema));
  EXPECT_EQ(Rows(back), Rows(b));
}

// The test's own check that a round trip can fail: a changed value shows.
TEST(RoundTrip, ADifferenceShows) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch("a INT64", {{"1"}, {"2"}}));
  ArrayHolder a;
  ASSERT_OK(ExportBatch(CloneBatch(b), &a.a));
  const_cast<int64_t*>(static_cast<const int64_t*>(a.a.children[0]->buffers[1]))[1] = 5;
  ASSERT_OK_AND_ASSIGN(RecordBatch back, ImportBatch(&a.a, b.schema));
  EXPECT_NE(Rows(back), Rows(b));
}

// ---- Release ----

RecordBatch Nested() {
  Result<RecordBatch> b =
      MakeBatch("aos ARRAY<STRUCT<x: INT32, y: VARCHAR>>, m MAP<VARCHAR, ARRAY<INT64>>",
                {{R"([{"x": 1, "y": "a"}])", R"([{"key": "k", "value": [1, 2]}])"}, {null, null}});
  EXPECT_TRUE(b.ok());
  return std::move(b).value();
}

// The spec lets a consumer move a child out (copy the struct, mark the source released), then
// release the parent (it asks for that at once) and the child whenever it is done; tarn's nodes
// own their buffers alone, so the two can go in either order. Each buffer is freed once (ASan
// checks), nothing leaks (LeakSanitizer), and the moved child stays readable after its parent
// is gone.
TEST(Release, ChildMovedOutThenParentFirst) {
  ArrowArray top;
  ASSERT_OK(ExportBatch(Nested(), &top));
  ArrowArray moved = *top.children[1];  // the map column
  top.children[1]->release = nullptr;
  top.release(&top);
  EXPECT_EQ(top.release, nullptr);
  ASSERT_EQ(moved.n_children, 1);
  const ArrowArray* keys = moved.children[0]->children[0];
  EXPECT_EQ(std::string(static_cast<const char*>(keys->buffers[2]), 1), "k");
  EXPECT_EQ(At<int32_t>(&moved, 1, 1), 1);
  moved.release(&moved);
  EXPECT_EQ(moved.release, nullptr);
}

TEST(Release, ChildMovedOutThenChildFirst) {
  ArrowArray top;
  ASSERT_OK(ExportBatch(Nested(), &top));
  ArrowArray moved = *top.children[0];
  top.children[0]->release = nullptr;
  // And a grandchild moved out of the moved child.
  ArrowArray element = *moved.children[0];
  moved.children[0]->release = nullptr;
  moved.release(&moved);
  element.release(&element);
  EXPECT_EQ(top.children[1]->children[0]->length, 1);  // the rest is still there
  top.release(&top);
}

TEST(Release, SchemaChildMovedOut) {
  SchemaHolder s;
  ASSERT_OK(ExportSchema(Nested().schema, &s.s));
  ArrowSchema moved = *s.s.children[1];
  s.s.children[1]->release = nullptr;
  s.s.release(&s.s);
  EXPECT_STREQ(moved.format, "+m");
  EXPECT_STREQ(moved.children[0]->children[0]->name, "key");
  moved.release(&moved);
}

// ---- Streams ----

// A producer of `n` batches of one INT64 column, then the end; or the error `fail` at batch
// `fail_at`. `alive` expires when the stream drops the producer.
std::function<Result<std::optional<RecordBatch>>()> Producer(int n, std::shared_ptr<int> alive,
                                                             int fail_at = -1) {
  auto next = std::make_shared<int>(0);
  return [n, alive, fail_at, next]() -> Result<std::optional<RecordBatch>> {
    const int i = (*next)++;
    if (i == fail_at) return Status::Corruption("batch " + std::to_string(i) + " is broken");
    if (i >= n) return std::optional<RecordBatch>();
    Result<RecordBatch> b = MakeBatch("a INT64", {{std::to_string(i)}, {null}});
    if (!b.ok()) return b.status();
    return std::optional<RecordBatch>(std::move(b).value());
  };
}

Schema OneInt64() { return Schema::Parse("a INT64").ValueOr(Schema()); }

TEST(ExportStream, ThreeBatchesThenTheEnd) {
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  StreamHolder h;
  ASSERT_OK(ExportStream(Producer(3, std::move(alive)), OneInt64(), &h.s));
  ArrowSchema schema;
  ASSERT_EQ(h.s.get_schema(&h.s, &schema), 0);
  EXPECT_STREQ(schema.format, "+s");
  EXPECT_STREQ(schema.children[0]->format, "l");
  schema.release(&schema);
  for (int i = 0; i < 3; ++i) {
    ArrowArray a;
    ASSERT_EQ(h.s.get_next(&h.s, &a), 0);
    ASSERT_NE(a.release, nullptr) << i;
    EXPECT_EQ(a.length, 2);
    EXPECT_EQ(At<int64_t>(a.children[0], 1, 0), i);
    EXPECT_EQ(a.children[0]->null_count, 1);
    a.release(&a);
  }
  ArrowArray end;
  ASSERT_EQ(h.s.get_next(&h.s, &end), 0);
  EXPECT_EQ(end.release, nullptr);
  EXPECT_TRUE(watch.expired());            // the producer is dropped at the end, not at release
  ASSERT_EQ(h.s.get_next(&h.s, &end), 0);  // and the end stays the end
  EXPECT_EQ(end.release, nullptr);
  EXPECT_EQ(h.s.get_last_error(&h.s), nullptr);
}

TEST(ExportStream, AnErrorFromNext) {
  StreamHolder h;
  ASSERT_OK(ExportStream(Producer(3, nullptr, 1), OneInt64(), &h.s));
  ArrowArray a;
  ASSERT_EQ(h.s.get_next(&h.s, &a), 0);
  a.release(&a);
  EXPECT_EQ(h.s.get_next(&h.s, &a), EIO);
  EXPECT_EQ(a.release, nullptr);
  ASSERT_NE(h.s.get_last_error(&h.s), nullptr);
  EXPECT_EQ(std::string(h.s.get_last_error(&h.s)), "corruption: batch 1 is broken");
  EXPECT_EQ(h.s.get_next(&h.s, &a), EIO);  // the stream stays in its error
}

TEST(ExportStream, ABatchOfAnotherSchemaAndAnException) {
  StreamHolder h;
  ASSERT_OK(ExportStream(
      []() -> Result<std::optional<RecordBatch>> {
        Result<RecordBatch> b = MakeBatch("a VARCHAR", {{"x"}});
        return std::optional<RecordBatch>(std::move(b).value());
      },
      OneInt64(), &h.s));
  ArrowArray a;
  EXPECT_EQ(h.s.get_next(&h.s, &a), EIO);
  EXPECT_NE(std::string(h.s.get_last_error(&h.s)).find("column a is a VARCHAR column"),
            std::string::npos)
      << h.s.get_last_error(&h.s);

  StreamHolder t;
  ASSERT_OK(
      ExportStream([]() -> Result<std::optional<RecordBatch>> { throw std::runtime_error("boom"); },
                   OneInt64(), &t.s));
  EXPECT_EQ(t.s.get_next(&t.s, &a), EIO);
  EXPECT_NE(t.s.get_last_error(&t.s), nullptr);
}

TEST(ExportStream, ReleasedMidStream) {
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  ArrowArrayStream s;
  ASSERT_OK(ExportStream(Producer(10, std::move(alive)), OneInt64(), &s));
  ArrowArray a;
  ASSERT_EQ(s.get_next(&s, &a), 0);
  s.release(&s);  // before the end, with a batch still held
  EXPECT_EQ(s.release, nullptr);
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(At<int64_t>(a.children[0], 1, 0), 0);  // the batch outlives its stream
  a.release(&a);
}

TEST(ImportStream, ReadsAnExportedStream) {
  StreamHolder h;
  ASSERT_OK(ExportStream(Producer(3, nullptr), OneInt64(), &h.s));
  std::vector<std::string> rows;
  ASSERT_OK(ImportStream(&h.s, [&](RecordBatch b) {
    for (const std::string& r : Rows(b)) rows.push_back(r);
    return Status::OK();
  }));
  EXPECT_EQ(h.s.release, nullptr);
  EXPECT_EQ(rows, (std::vector<std::string>{R"({"a":0})", R"({"a":null})", R"({"a":1})",
                                            R"({"a":null})", R"({"a":2})", R"({"a":null})"}));
}

TEST(ImportStream, AProducerErrorCarriesItsText) {
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  StreamHolder h;
  ASSERT_OK(ExportStream(Producer(3, std::move(alive), 2), OneInt64(), &h.s));
  int batches = 0;
  Status st = ImportStream(&h.s, [&](RecordBatch) {
    ++batches;
    return Status::OK();
  });
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(st.kind(), ErrorKind::kIOError);
  EXPECT_NE(st.message().find("batch 2 is broken"), std::string::npos) << st.message();
  EXPECT_EQ(h.s.release, nullptr);
  EXPECT_TRUE(watch.expired());
}

TEST(ImportStream, AnErrorFromTheCallbackStopsAndReleases) {
  auto alive = std::make_shared<int>(0);
  std::weak_ptr<int> watch = alive;
  StreamHolder h;
  ASSERT_OK(ExportStream(Producer(100, std::move(alive)), OneInt64(), &h.s));
  int batches = 0;
  Status st = ImportStream(&h.s, [&](RecordBatch) {
    return ++batches == 2 ? Status::Cancelled("enough") : Status::OK();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kCancelled);
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(h.s.release, nullptr);
  EXPECT_TRUE(watch.expired());
}

TEST(ImportStream, EveryTypeThroughAStream) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch(kAllTypes, AllTypesRows()));
  auto sent = std::make_shared<bool>(false);
  auto copy = std::make_shared<RecordBatch>(CloneBatch(b));
  StreamHolder h;
  ASSERT_OK(ExportStream(
      [sent, copy]() -> Result<std::optional<RecordBatch>> {
        if (*sent) return std::optional<RecordBatch>();
        *sent = true;
        return std::optional<RecordBatch>(CloneBatch(*copy));
      },
      b.schema, &h.s));
  std::vector<RecordBatch> got;
  ASSERT_OK(ImportStream(&h.s, [&](RecordBatch r) {
    got.push_back(std::move(r));
    return Status::OK();
  }));
  ASSERT_EQ(got.size(), 1u);
  ExpectSameSchema(got[0].schema, b.schema);
  EXPECT_EQ(Rows(got[0]), Rows(b));
}

}  // namespace
}  // namespace tarn::arrow
