// The exported structures read as a foreign consumer reads them: the spec's format strings,
// buffer counts, bitmaps, offsets and metadata bytes, checked by hand (test_util.h's own
// readers), and the buffers tarn shares instead of copying.
#include <gtest/gtest.h>

#include <climits>

#include "arrow/arrow_c.h"
#include "arrow/test_util.h"

namespace tarn::arrow {
namespace {

using testing::ArrayHolder;
using testing::At;
using testing::BitAt;
using testing::MakeBatch;
using testing::ReadMetadata;
using testing::SchemaHolder;
using Pairs = std::vector<std::pair<std::string, std::string>>;

const ArrowSchema* Child(const ArrowSchema* s, int i) { return s->children[i]; }

TEST(ExportSchema, FormatsNamesFlagsAndFieldIds) {
  ASSERT_OK_AND_ASSIGN(
      Schema schema,
      Schema::Parse("id INT64 NOT NULL, name VARCHAR, tags ARRAY<VARCHAR NOT NULL>, "
                    "attrs MAP<VARCHAR, INT32>, p STRUCT<x: FLOAT64, y: DECIMAL(10,2) NOT NULL>, "
                    "u UUID, ip IPV4, doc JSON, v VARIANT, ts TIMESTAMPTZ[ns]"));
  SchemaHolder h;
  ASSERT_OK(ExportSchema(schema, &h.s));
  const ArrowSchema* s = &h.s;
  EXPECT_STREQ(s->format, "+s");
  EXPECT_STREQ(s->name, "");
  EXPECT_EQ(s->metadata, nullptr);
  EXPECT_EQ(s->flags, 0);
  EXPECT_EQ(s->dictionary, nullptr);
  ASSERT_EQ(s->n_children, 10);

  const ArrowSchema* id = Child(s, 0);
  EXPECT_STREQ(id->format, "l");
  EXPECT_STREQ(id->name, "id");
  EXPECT_EQ(id->flags, 0);  // NOT NULL
  EXPECT_EQ(id->n_children, 0);
  EXPECT_EQ(ReadMetadata(id->metadata), (Pairs{{"PARQUET:field_id", "1"}}));

  const ArrowSchema* name = Child(s, 1);
  EXPECT_STREQ(name->format, "U");
  EXPECT_EQ(name->flags, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(ReadMetadata(name->metadata), (Pairs{{"PARQUET:field_id", "2"}}));

  // Nested ids: Schema::Parse numbers columns 1..10, then nested fields from 11 in order.
  const ArrowSchema* tags = Child(s, 2);
  EXPECT_STREQ(tags->format, "+L");
  ASSERT_EQ(tags->n_children, 1);
  EXPECT_STREQ(Child(tags, 0)->format, "U");
  EXPECT_STREQ(Child(tags, 0)->name, "element");
  EXPECT_EQ(Child(tags, 0)->flags, 0);
  EXPECT_EQ(ReadMetadata(Child(tags, 0)->metadata), (Pairs{{"PARQUET:field_id", "11"}}));

  const ArrowSchema* attrs = Child(s, 3);
  EXPECT_STREQ(attrs->format, "+m");
  EXPECT_EQ(attrs->flags & ARROW_FLAG_MAP_KEYS_SORTED, 0);
  ASSERT_EQ(attrs->n_children, 1);
  const ArrowSchema* entries = Child(attrs, 0);
  EXPECT_STREQ(entries->format, "+s");
  EXPECT_STREQ(entries->name, "entries");
  EXPECT_EQ(entries->flags, 0);
  ASSERT_EQ(entries->n_children, 2);
  EXPECT_STREQ(Child(entries, 0)->name, "key");
  EXPECT_STREQ(Child(entries, 0)->format, "U");
  EXPECT_EQ(Child(entries, 0)->flags, 0);
  EXPECT_EQ(ReadMetadata(Child(entries, 0)->metadata), (Pairs{{"PARQUET:field_id", "12"}}));
  EXPECT_STREQ(Child(entries, 1)->name, "value");
  EXPECT_STREQ(Child(entries, 1)->format, "i");
  EXPECT_EQ(Child(entries, 1)->flags, ARROW_FLAG_NULLABLE);
  EXPECT_EQ(ReadMetadata(Child(entries, 1)->metadata), (Pairs{{"PARQUET:field_id", "13"}}));

  const ArrowSchema* p = Child(s, 4);
  EXPECT_STREQ(p->format, "+s");
  ASSERT_EQ(p->n_children, 2);
  EXPECT_STREQ(Child(p, 0)->name, "x");
  EXPECT_STREQ(Child(p, 0)->format, "g");
  EXPECT_STREQ(Child(p, 1)->name, "y");
  EXPECT_STREQ(Child(p, 1)->format, "d:10,2");
  EXPECT_EQ(Child(p, 1)->flags, 0);
  EXPECT_EQ(ReadMetadata(Child(p, 1)->metadata), (Pairs{{"PARQUET:field_id", "15"}}));

  const ArrowSchema* u = Child(s, 5);
  EXPECT_STREQ(u->format, "w:16");
  EXPECT_EQ(ReadMetadata(u->metadata), (Pairs{{"PARQUET:field_id", "6"},
                                              {"ARROW:extension:name", "arrow.uuid"},
                                              {"ARROW:extension:metadata", ""}}));
  const ArrowSchema* ip = Child(s, 6);
  EXPECT_STREQ(ip->format, "I");
  EXPECT_EQ(ReadMetadata(ip->metadata), (Pairs{{"PARQUET:field_id", "7"}, {"tarn:type", "IPV4"}}));
  const ArrowSchema* doc = Child(s, 7);
  EXPECT_STREQ(doc->format, "U");
  EXPECT_EQ(ReadMetadata(doc->metadata), (Pairs{{"PARQUET:field_id", "8"},
                                                {"ARROW:extension:name", "arrow.json"},
                                                {"ARROW:extension:metadata", ""}}));
  const ArrowSchema* v = Child(s, 8);
  EXPECT_STREQ(v->format, "+s");
  EXPECT_EQ(ReadMetadata(v->metadata), (Pairs{{"PARQUET:field_id", "9"},
                                              {"ARROW:extension:name", "arrow.parquet.variant"},
                                              {"ARROW:extension:metadata", ""}}));
  ASSERT_EQ(v->n_children, 2);
  EXPECT_STREQ(Child(v, 0)->name, "metadata");
  EXPECT_STREQ(Child(v, 0)->format, "Z");
  EXPECT_EQ(Child(v, 0)->flags, 0);
  EXPECT_STREQ(Child(v, 1)->name, "value");
  EXPECT_STREQ(Child(v, 1)->format, "Z");
  EXPECT_EQ(Child(v, 1)->flags, ARROW_FLAG_NULLABLE);
  EXPECT_STREQ(Child(s, 9)->format, "tsn:UTC");
}

// The metadata bytes themselves: int32 count, then int32 length + bytes of each key and value.
TEST(ExportSchema, MetadataBytesAreTheSpecsEncoding) {
  ASSERT_OK_AND_ASSIGN(Schema schema, Schema::Parse("a INT8"));
  schema.fields[0].field_id = 258;
  SchemaHolder h;
  ASSERT_OK(ExportSchema(schema, &h.s));
  const char* md = h.s.children[0]->metadata;
  std::string expected;
  auto i32 = [&](int32_t v) { expected.append(reinterpret_cast<const char*>(&v), 4); };
  i32(1);
  i32(16);
  expected += "PARQUET:field_id";
  i32(3);
  expected += "258";
  EXPECT_EQ(std::string(md, expected.size()), expected);
}

TEST(ExportSchema, NoFieldIdNoMetadata) {
  Schema schema;
  schema.fields.push_back(Field{"a", DataType::Int8()});  // field_id -1
  SchemaHolder h;
  ASSERT_OK(ExportSchema(schema, &h.s));
  EXPECT_EQ(h.s.children[0]->metadata, nullptr);
}

TEST(ExportBatch, Int64SharesItsBufferAndConvertsValidity) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch("a INT64", {{"1"}, {std::nullopt}, {"3"}}));
  const void* values = b.columns[0].data.data();
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  const ArrowArray* top = &h.a;
  EXPECT_EQ(top->length, 3);
  EXPECT_EQ(top->null_count, 0);
  EXPECT_EQ(top->offset, 0);
  EXPECT_EQ(top->n_buffers, 1);
  EXPECT_EQ(top->buffers[0], nullptr);
  ASSERT_EQ(top->n_children, 1);
  const ArrowArray* a = top->children[0];
  EXPECT_EQ(a->length, 3);
  EXPECT_EQ(a->offset, 0);
  EXPECT_EQ(a->null_count, 1);
  ASSERT_EQ(a->n_buffers, 2);
  EXPECT_EQ(a->n_children, 0);
  ASSERT_NE(a->buffers[0], nullptr);
  EXPECT_EQ(static_cast<const uint8_t*>(a->buffers[0])[0] & 0x7, 0b101);
  EXPECT_EQ(a->buffers[1], values);  // zero-copy
  EXPECT_EQ(At<int64_t>(a, 1, 0), 1);
  EXPECT_EQ(At<int64_t>(a, 1, 2), 3);
}

TEST(ExportBatch, VarcharSharesOffsetsAndBytes) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b,
                       MakeBatch("s VARCHAR", {{"a"}, {""}, {std::nullopt}, {"dé"}}));
  const void* offsets = b.columns[0].offsets.data();
  const void* bytes = b.columns[0].data.data();
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  const ArrowArray* a = h.a.children[0];
  ASSERT_EQ(a->n_buffers, 3);
  EXPECT_EQ(a->null_count, 1);
  EXPECT_EQ(a->buffers[1], offsets);
  EXPECT_EQ(a->buffers[2], bytes);
  const int64_t expected[] = {0, 1, 1, 1, 4};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(At<int64_t>(a, 1, i), expected[i]) << i;
  EXPECT_EQ(std::string(static_cast<const char*>(a->buffers[2]), 4), "adé");
  EXPECT_TRUE(BitAt(a->buffers[0], 0));
  EXPECT_TRUE(BitAt(a->buffers[0], 1));
  EXPECT_FALSE(BitAt(a->buffers[0], 2));
  EXPECT_TRUE(BitAt(a->buffers[0], 3));
}

TEST(ExportBatch, BooleanValuesBecomeABitmap) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch("b BOOLEAN", {{"true"},
                                                              {"false"},
                                                              {std::nullopt},
                                                              {"true"},
                                                              {"true"},
                                                              {"false"},
                                                              {"true"},
                                                              {"true"},
                                                              {"true"}}));
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  const ArrowArray* a = h.a.children[0];
  ASSERT_EQ(a->n_buffers, 2);
  EXPECT_EQ(a->length, 9);
  EXPECT_EQ(a->null_count, 1);
  const auto* values = static_cast<const uint8_t*>(a->buffers[1]);
  EXPECT_EQ(values[0], 0b11011001);  // rows 0..7, LSB first; the null row's value is 0
  EXPECT_EQ(values[1] & 1, 1);
  const auto* validity = static_cast<const uint8_t*>(a->buffers[0]);
  EXPECT_EQ(validity[0], 0b11111011);
  EXPECT_EQ(validity[1] & 1, 1);
}

// A column without nulls exports no bitmap, whether its validity is empty or all ones.
TEST(ExportBatch, NoNullsNoBitmap) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch("a INT32, b INT32", {{"1", "2"}, {"3", "4"}}));
  ASSERT_TRUE(b.columns[0].validity.empty());
  b.columns[1].validity.assign(2, 1);
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(h.a.children[i]->buffers[0], nullptr) << i;
    EXPECT_EQ(h.a.children[i]->null_count, 0) << i;
  }
}

TEST(ExportBatch, FixedWidthTypesShareTheirBuffers) {
  ASSERT_OK_AND_ASSIGN(
      RecordBatch b, MakeBatch("d DECIMAL(38,10), u UUID, ip IPV4, day DATE, t TIME[ns], blob BLOB",
                               {{"-12.5", "00112233-4455-6677-8899-aabbccddeeff", "10.0.0.1",
                                 "2024-02-29", "23:59:59.999999999", "AAEC"}}));
  std::vector<const void*> data;
  for (const Column& c : b.columns) data.push_back(c.data.data());
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  EXPECT_EQ(h.a.children[0]->buffers[1], data[0]);
  EXPECT_EQ(At<int128>(h.a.children[0], 1, 0), static_cast<int128>(-125000000000));
  EXPECT_EQ(h.a.children[1]->buffers[1], data[1]);
  EXPECT_EQ(static_cast<const uint8_t*>(h.a.children[1]->buffers[1])[15], 0xff);
  EXPECT_EQ(h.a.children[2]->buffers[1], data[2]);
  EXPECT_EQ(At<uint32_t>(h.a.children[2], 1, 0), (10u << 24) | 1u);
  EXPECT_EQ(h.a.children[3]->buffers[1], data[3]);
  EXPECT_EQ(At<int32_t>(h.a.children[3], 1, 0), 19782);
  EXPECT_EQ(h.a.children[4]->buffers[1], data[4]);
  EXPECT_EQ(h.a.children[5]->n_buffers, 3);
  EXPECT_EQ(h.a.children[5]->buffers[2], data[5]);
}

// ARRAY: int64 offsets shared, one child. MAP: int32 offsets (converted), one entries struct.
TEST(ExportBatch, ListAndMapLayouts) {
  ASSERT_OK_AND_ASSIGN(
      RecordBatch b,
      MakeBatch("l ARRAY<INT64>, m MAP<VARCHAR, INT32>",
                {{"[1, 2]", R"([{"key": "a", "value": 1}])"},
                 {std::nullopt, std::nullopt},
                 {"[]", R"([{"key": "b", "value": null}, {"key": "c", "value": 3}])"},
                 {"[3]", "[]"}}));
  const void* list_offsets = b.columns[0].offsets.data();
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  const ArrowArray* l = h.a.children[0];
  ASSERT_EQ(l->n_buffers, 2);
  EXPECT_EQ(l->null_count, 1);
  EXPECT_EQ(l->buffers[1], list_offsets);
  const int64_t lo[] = {0, 2, 2, 2, 3};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(At<int64_t>(l, 1, i), lo[i]) << i;
  ASSERT_EQ(l->n_children, 1);
  EXPECT_EQ(l->children[0]->length, 3);

  const ArrowArray* m = h.a.children[1];
  ASSERT_EQ(m->n_buffers, 2);
  EXPECT_EQ(m->null_count, 1);
  const int32_t mo[] = {0, 1, 1, 3, 3};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(At<int32_t>(m, 1, i), mo[i]) << i;
  ASSERT_EQ(m->n_children, 1);
  const ArrowArray* entries = m->children[0];
  EXPECT_EQ(entries->length, 3);
  EXPECT_EQ(entries->null_count, 0);
  EXPECT_EQ(entries->n_buffers, 1);
  EXPECT_EQ(entries->buffers[0], nullptr);
  ASSERT_EQ(entries->n_children, 2);
  EXPECT_EQ(entries->children[0]->null_count, 0);
  EXPECT_EQ(entries->children[1]->null_count, 1);
  EXPECT_FALSE(BitAt(entries->children[1]->buffers[0], 1));
}

// A null STRUCT row is a 0 bit in the struct's bitmap; tarn's members hold nulls there too.
TEST(ExportBatch, StructWithANullRow) {
  ASSERT_OK_AND_ASSIGN(
      RecordBatch b,
      MakeBatch("p STRUCT<x: INT32, y: VARCHAR>",
                {{R"({"x": 1, "y": "a"})"}, {std::nullopt}, {R"({"x": null, "y": "c"})"}}));
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  const ArrowArray* p = h.a.children[0];
  EXPECT_EQ(p->n_buffers, 1);
  EXPECT_EQ(p->null_count, 1);
  EXPECT_FALSE(BitAt(p->buffers[0], 1));
  ASSERT_EQ(p->n_children, 2);
  EXPECT_EQ(p->children[0]->length, 3);
  EXPECT_EQ(p->children[0]->null_count, 2);  // the struct's null row and row 2's x
  EXPECT_EQ(p->children[1]->null_count, 1);
}

TEST(ExportBatch, EmptyBatch) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b,
                       MakeBatch("a INT64, s VARCHAR, l ARRAY<INT32>, m MAP<INT32, INT32>", {}));
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  EXPECT_EQ(h.a.length, 0);
  for (int i = 0; i < 4; ++i) {
    const ArrowArray* c = h.a.children[i];
    EXPECT_EQ(c->length, 0);
    EXPECT_EQ(c->null_count, 0);
    // Buffers other than the bitmap are never NULL, and an offsets buffer holds its one 0.
    for (int64_t k = 1; k < c->n_buffers; ++k) EXPECT_NE(c->buffers[k], nullptr) << i << k;
  }
  EXPECT_EQ(At<int64_t>(h.a.children[1], 1, 0), 0);
  EXPECT_EQ(At<int32_t>(h.a.children[3], 1, 0), 0);
}

// Offsets of a column not built by appending (not starting at 0) are exported from 0.
TEST(ExportBatch, OffsetsStartAtZero) {
  RecordBatch b;
  ASSERT_OK_AND_ASSIGN(b.schema, Schema::Parse("s VARCHAR, l ARRAY<INT32>"));
  Column s(DataType::Varchar());
  s.data = {'x', 'x', 'a', 'b', 'c'};
  s.offsets = {2, 3, 5};
  s.length = 2;
  Column l(b.schema.fields[1].type);
  for (int32_t v : {9, 9, 1, 2, 3}) l.child->AppendFixed<int32_t>(v);
  l.offsets = {2, 4, 5};
  l.length = 2;
  b.columns.push_back(std::move(s));
  b.columns.push_back(std::move(l));
  b.num_rows = 2;
  ArrayHolder h;
  ASSERT_OK(ExportBatch(std::move(b), &h.a));
  const ArrowArray* sa = h.a.children[0];
  EXPECT_EQ(At<int64_t>(sa, 1, 0), 0);
  EXPECT_EQ(At<int64_t>(sa, 1, 2), 3);
  EXPECT_EQ(std::string(static_cast<const char*>(sa->buffers[2]), 3), "abc");
  const ArrowArray* la = h.a.children[1];
  EXPECT_EQ(At<int64_t>(la, 1, 0), 0);
  EXPECT_EQ(At<int64_t>(la, 1, 1), 2);
  EXPECT_EQ(At<int64_t>(la, 1, 2), 3);
  ASSERT_EQ(la->children[0]->length, 3);
  EXPECT_EQ(At<int32_t>(la->children[0], 1, 0), 1);
}

// Arrow's map offsets are int32. The column here is not a whole map (its entries would need
// 2^31 keys): the offsets are checked before anything else.
TEST(ExportBatch, RefusesAMapBeyondInt32Offsets) {
  RecordBatch b;
  ASSERT_OK_AND_ASSIGN(b.schema, Schema::Parse("m MAP<INT32, INT32>"));
  Column m(b.schema.fields[0].type);
  m.offsets = {0, int64_t{INT32_MAX} + 1};
  m.length = 1;
  b.columns.push_back(std::move(m));
  b.num_rows = 1;
  ArrowArray out;
  Status st = ExportBatch(std::move(b), &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.message().find("int32"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("column m"), std::string::npos) << st.message();
  EXPECT_EQ(out.release, nullptr);
}

TEST(ExportBatch, RefusesColumnsThatDoNotMatchTheSchema) {
  ASSERT_OK_AND_ASSIGN(RecordBatch b, MakeBatch("a INT64", {{"1"}}));
  b.schema.fields[0].type = DataType::Int32();
  ArrowArray out;
  Status st = ExportBatch(std::move(b), &out);
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(out.release, nullptr);

  ASSERT_OK_AND_ASSIGN(RecordBatch short_rows, MakeBatch("a INT64", {{"1"}}));
  ByteBuffer& values = short_rows.columns[0].data;
  values.erase(values.begin() + 4, values.end());  // half a value
  st = ExportBatch(std::move(short_rows), &out);
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.message().find("malformed"), std::string::npos) << st.message();
  EXPECT_EQ(out.release, nullptr);
}

}  // namespace
}  // namespace tarn::arrow
