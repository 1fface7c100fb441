// Import of structures a foreign producer built by hand: the layouts tarn does not export
// (int32 offsets, date64, time32, narrow decimals, fixed-size binaries and lists), slices
// (`offset` at every level, bitmaps not byte-aligned), null ranges that are not empty, and the
// refusals. Each structure's release counts its calls: Import releases exactly once.
#include <gtest/gtest.h>

#include <cstring>

#include "arrow/arrow_c.h"
#include "arrow/test_util.h"

namespace tarn::arrow {
namespace {

using testing::Rows;

int g_schema_releases = 0;
int g_array_releases = 0;

// A release as a producer writes it: releases the children still there, marks itself released.
void ReleaseForeignSchema(ArrowSchema* s) {
  for (int64_t i = 0; i < s->n_children; ++i) {
    if (s->children[i]->release != nullptr) s->children[i]->release(s->children[i]);
  }
  s->release = nullptr;
  ++g_schema_releases;
}

void ReleaseForeignArray(ArrowArray* a) {
  for (int64_t i = 0; i < a->n_children; ++i) {
    if (a->children[i]->release != nullptr) a->children[i]->release(a->children[i]);
  }
  a->release = nullptr;
  ++g_array_releases;
}

// A hand-built schema node; `children` must outlive it.
ArrowSchema S(const char* format, const char* name, int64_t flags = ARROW_FLAG_NULLABLE,
              std::vector<ArrowSchema*>* children = nullptr, const char* metadata = nullptr) {
  ArrowSchema s{};
  s.format = format;
  s.name = name;
  s.metadata = metadata;
  s.flags = flags;
  s.n_children = children != nullptr ? static_cast<int64_t>(children->size()) : 0;
  s.children = children != nullptr ? children->data() : nullptr;
  s.release = ReleaseForeignSchema;
  return s;
}

// A hand-built array node; `buffers` and `children` must outlive it.
ArrowArray A(int64_t length, int64_t null_count, int64_t offset, std::vector<const void*>* buffers,
             std::vector<ArrowArray*>* children = nullptr) {
  ArrowArray a{};
  a.length = length;
  a.null_count = null_count;
  a.offset = offset;
  a.n_buffers = static_cast<int64_t>(buffers->size());
  a.buffers = buffers->data();
  a.n_children = children != nullptr ? static_cast<int64_t>(children->size()) : 0;
  a.children = children != nullptr ? children->data() : nullptr;
  a.release = ReleaseForeignArray;
  return a;
}

// Imports a one-column batch: field `field` (schema), `column` (array) under a struct of
// `rows` rows at `top_offset`.
Result<RecordBatch> ImportOne(ArrowSchema field, ArrowArray column, int64_t rows,
                              int64_t top_offset = 0) {
  std::vector<ArrowSchema*> fields = {&field};
  ArrowSchema top = S("+s", "", 0, &fields);
  TARN_ASSIGN_OR_RETURN(ImportedSchema schema, ImportSchema(&top));
  std::vector<const void*> top_buffers = {nullptr};
  std::vector<ArrowArray*> columns = {&column};
  ArrowArray batch = A(rows, 0, top_offset, &top_buffers, &columns);
  return ImportBatch(&batch, schema);
}

std::string Text(const RecordBatch& b, int64_t row) {
  return b.columns[0].IsValid(row) ? ValueText(b.columns[0], row) : "null";
}

class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_schema_releases = 0;
    g_array_releases = 0;
  }
};

// utf8 with int32 offsets, sliced (offset 1 into five values), an unknown null_count (-1).
TEST_F(ImportTest, Utf8Int32OffsetsSlicedWithABitmap) {
  const int32_t offsets[] = {0, 1, 3, 3, 7, 8};
  const char data[] = "abbdddde";
  const uint8_t bits[] = {0b11011};  // "a", "bb", null, "dddd", "e"
  std::vector<const void*> buffers = {bits, offsets, data};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("u", "s"), A(3, -1, 1, &buffers), 3));
  EXPECT_EQ(b.schema.ToString(), "s VARCHAR");
  ASSERT_EQ(b.num_rows, 3);
  EXPECT_EQ(Text(b, 0), "bb");
  EXPECT_EQ(Text(b, 1), "null");
  EXPECT_EQ(Text(b, 2), "dddd");
  EXPECT_EQ(b.columns[0].offsets, (std::vector<int64_t>{0, 2, 2, 6}));
  EXPECT_EQ(g_schema_releases, 2);  // the struct and its field
  EXPECT_EQ(g_array_releases, 2);
}

// The batch's own offset reaches its columns (struct children are indexed by the parent's
// offset), and a boolean bitmap read from a bit that is not byte-aligned.
TEST_F(ImportTest, TopLevelOffsetAndUnalignedBits) {
  const uint8_t values[] = {0b10100000, 0b1};  // bits 5, 7, 8 set
  const uint8_t valid[] = {0b11011111, 0b1};   // bit 5 null
  std::vector<const void*> buffers = {valid, values};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("b", "flag"), A(9, 1, 0, &buffers), 4, 5));
  ASSERT_EQ(b.num_rows, 4);
  EXPECT_EQ(Text(b, 0), "null");  // bit 5
  EXPECT_EQ(Text(b, 1), "false");
  EXPECT_EQ(Text(b, 2), "true");
  EXPECT_EQ(Text(b, 3), "true");
}

// "+l" with a non-zero offset, and a null row whose range is not empty: tarn keeps a null row
// as an empty range, so the elements under it are not copied.
TEST_F(ImportTest, ListWithOffsetAndANullRowOverValues) {
  const int32_t values[] = {1, 2, 3, 4, 5, 6};
  std::vector<const void*> child_buffers = {nullptr, values};
  ArrowArray child = A(6, 0, 0, &child_buffers);
  const int32_t offsets[] = {0, 2, 2, 5, 6};
  const uint8_t bits[] = {0b1011};  // physical row 2 (range 2..5) null
  std::vector<const void*> buffers = {bits, offsets};
  std::vector<ArrowArray*> children = {&child};
  ArrowSchema item = S("i", "item");
  std::vector<ArrowSchema*> fields = {&item};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("+l", "l", ARROW_FLAG_NULLABLE, &fields),
                                                A(3, 1, 1, &buffers, &children), 3));
  EXPECT_EQ(b.schema.ToString(), "l ARRAY<INT32>");
  EXPECT_EQ(Rows(b), (std::vector<std::string>{R"({"l":[]})", R"({"l":null})", R"({"l":[6]})"}));
  EXPECT_EQ(b.columns[0].offsets, (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(b.columns[0].child->length, 1);
  EXPECT_EQ(g_array_releases, 3);
}

// A child array with its own offset under a list: list offsets index the child's logical
// positions, which start at the child's offset.
TEST_F(ImportTest, ListChildWithItsOwnOffset) {
  const int64_t values[] = {100, 1, 2, 3};
  std::vector<const void*> child_buffers = {nullptr, values};
  ArrowArray child = A(3, 0, 1, &child_buffers);
  const int64_t offsets[] = {0, 1, 3};
  std::vector<const void*> buffers = {nullptr, offsets};
  std::vector<ArrowArray*> children = {&child};
  ArrowSchema item = S("l", "item", 0);
  std::vector<ArrowSchema*> fields = {&item};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("+L", "l", ARROW_FLAG_NULLABLE, &fields),
                                                A(2, 0, 0, &buffers, &children), 2));
  EXPECT_EQ(b.schema.ToString(), "l ARRAY<INT64 NOT NULL>");
  EXPECT_EQ(Rows(b), (std::vector<std::string>{R"({"l":[1]})", R"({"l":[2,3]})"}));
}

TEST_F(ImportTest, Date64WholeDays) {
  const int64_t ms[] = {0, 3 * 86'400'000LL, 0, -86'400'000LL};
  const uint8_t bits[] = {0b1011};
  std::vector<const void*> buffers = {bits, ms};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("tdm", "d"), A(4, 1, 0, &buffers), 4));
  EXPECT_EQ(b.schema.ToString(), "d DATE");
  EXPECT_EQ(Text(b, 0), "1970-01-01");
  EXPECT_EQ(Text(b, 1), "1970-01-04");
  EXPECT_EQ(Text(b, 2), "null");
  EXPECT_EQ(Text(b, 3), "1969-12-31");
}

TEST_F(ImportTest, Date64NotAWholeDayIsRefused) {
  const int64_t ms[] = {86'400'000LL, 86'400'001LL};
  std::vector<const void*> buffers = {nullptr, ms};
  Result<RecordBatch> b = ImportOne(S("tdm", "d"), A(2, 0, 0, &buffers), 2);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(b.status().message().find("field d: value 1"), std::string::npos)
      << b.status().message();
  EXPECT_NE(b.status().message().find("whole day"), std::string::npos);
  EXPECT_EQ(g_array_releases, 2);  // consumed on error too
}

TEST_F(ImportTest, Time32AndTimestampWithAZone) {
  const int32_t secs[] = {3661};
  std::vector<const void*> b1 = {nullptr, secs};
  ASSERT_OK_AND_ASSIGN(RecordBatch t, ImportOne(S("tts", "t"), A(1, 0, 0, &b1), 1));
  EXPECT_EQ(t.schema.ToString(), "t TIME");
  EXPECT_EQ(Text(t, 0), "01:01:01");
  const int32_t millis[] = {1};
  std::vector<const void*> b2 = {nullptr, millis};
  ASSERT_OK_AND_ASSIGN(RecordBatch tm, ImportOne(S("ttm", "t"), A(1, 0, 0, &b2), 1));
  EXPECT_EQ(Text(tm, 0), "00:00:00.001");
  const int64_t us[] = {1'000'000};
  std::vector<const void*> b3 = {nullptr, us};
  ASSERT_OK_AND_ASSIGN(RecordBatch ts, ImportOne(S("tsu:Europe/Paris", "at"), A(1, 0, 0, &b3), 1));
  EXPECT_EQ(ts.schema.ToString(), "at TIMESTAMPTZ[us]");
  EXPECT_EQ(Text(ts, 0), "1970-01-01T00:00:01Z");
}

TEST_F(ImportTest, NarrowDecimalsAndPrecision) {
  const int32_t d32[] = {-12345, 99999};
  std::vector<const void*> b1 = {nullptr, d32};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("d:5,2,32", "x"), A(2, 0, 0, &b1), 2));
  EXPECT_EQ(b.schema.ToString(), "x DECIMAL(5,2)");
  EXPECT_EQ(Text(b, 0), "-123.45");
  EXPECT_EQ(Text(b, 1), "999.99");
  // A decimal128 value with more digits than its precision.
  int128 too_big[] = {100000};
  std::vector<const void*> b2 = {nullptr, too_big};
  Result<RecordBatch> r = ImportOne(S("d:5,2", "x"), A(1, 0, 0, &b2), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("DECIMAL(5,2)"), std::string::npos) << r.status().message();
}

TEST_F(ImportTest, FixedSizeBinaryAndFixedSizeList) {
  const char bytes[] = "abcdef";
  std::vector<const void*> b1 = {nullptr, bytes};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("w:3", "x"), A(2, 0, 0, &b1), 2));
  EXPECT_EQ(b.schema.ToString(), "x BLOB");
  EXPECT_EQ(b.columns[0].StringAt(1), "def");

  const int16_t values[] = {1, 2, 3, 4, 5, 6};
  std::vector<const void*> child_buffers = {nullptr, values};
  ArrowArray child = A(6, 0, 0, &child_buffers);
  std::vector<const void*> buffers = {nullptr};
  std::vector<ArrowArray*> children = {&child};
  ArrowSchema item = S("s", "item");
  std::vector<ArrowSchema*> fields = {&item};
  ASSERT_OK_AND_ASSIGN(RecordBatch l, ImportOne(S("+w:2", "l", ARROW_FLAG_NULLABLE, &fields),
                                                A(2, 0, 1, &buffers, &children), 2));
  EXPECT_EQ(Rows(l), (std::vector<std::string>{R"({"l":[3,4]})", R"({"l":[5,6]})"}));
}

// A map as producers send it, keys sorted flag and all; a null key is refused.
TEST_F(ImportTest, MapAndANullKey) {
  const int32_t key_offsets[] = {0, 1, 2, 3};
  const char key_data[] = "abc";
  const int64_t values[] = {1, 2, 3};
  uint8_t key_bits[] = {0b111};
  std::vector<const void*> kb = {key_bits, key_offsets, key_data};
  std::vector<const void*> vb = {nullptr, values};
  ArrowArray keys = A(3, -1, 0, &kb);
  ArrowArray vals = A(3, 0, 0, &vb);
  std::vector<ArrowArray*> kv = {&keys, &vals};
  std::vector<const void*> eb = {nullptr};
  ArrowArray entries = A(3, 0, 0, &eb, &kv);
  const int32_t offsets[] = {0, 2, 3};
  std::vector<const void*> mb = {nullptr, offsets};
  std::vector<ArrowArray*> mc = {&entries};
  ArrowSchema ks = S("u", "key", 0);
  ArrowSchema vs = S("l", "value");
  std::vector<ArrowSchema*> kvs = {&ks, &vs};
  ArrowSchema es = S("+s", "entries", 0, &kvs);
  std::vector<ArrowSchema*> ms = {&es};
  ASSERT_OK_AND_ASSIGN(
      RecordBatch b, ImportOne(S("+m", "m", ARROW_FLAG_NULLABLE | ARROW_FLAG_MAP_KEYS_SORTED, &ms),
                               A(2, 0, 0, &mb, &mc), 2));
  EXPECT_EQ(b.schema.ToString(), "m MAP<VARCHAR, INT64>");
  EXPECT_EQ(Rows(b),
            (std::vector<std::string>{R"({"m":[{"key":"a","value":1},{"key":"b","value":2}]})",
                                      R"({"m":[{"key":"c","value":3}]})"}));

  key_bits[0] = 0b101;  // the key of entry 1 is null
  for (ArrowArray* a : {&keys, &vals, &entries}) a->release = ReleaseForeignArray;
  for (ArrowSchema* s : {&ks, &vs, &es}) s->release = ReleaseForeignSchema;
  Result<RecordBatch> r =
      ImportOne(S("+m", "m", ARROW_FLAG_NULLABLE, &ms), A(2, 0, 0, &mb, &mc), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("m.key"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("NOT NULL"), std::string::npos) << r.status().message();
}

TEST_F(ImportTest, NullInANotNullField) {
  const int32_t values[] = {1, 2};
  const uint8_t bits[] = {0b01};
  std::vector<const void*> buffers = {bits, values};
  Result<RecordBatch> r = ImportOne(S("i", "n", 0), A(2, 1, 0, &buffers), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field n: value 1 is null"), std::string::npos)
      << r.status().message();
}

TEST_F(ImportTest, TextThatIsNotUtf8OrJson) {
  const int32_t offsets[] = {0, 2};
  const char bad_utf8[] = "\xc3\x28";
  std::vector<const void*> b1 = {nullptr, offsets, bad_utf8};
  Result<RecordBatch> r = ImportOne(S("u", "s"), A(1, 0, 0, &b1), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not UTF-8"), std::string::npos) << r.status().message();

  const char* json_md = nullptr;
  std::string md;
  auto put = [&](const std::string& s) {
    int32_t n = static_cast<int32_t>(s.size());
    md.append(reinterpret_cast<const char*>(&n), 4);
    md += s;
  };
  int32_t one = 1;
  md.append(reinterpret_cast<const char*>(&one), 4);
  put("ARROW:extension:name");
  put("arrow.json");
  json_md = md.data();
  const char not_json[] = "{x";
  std::vector<const void*> b2 = {nullptr, offsets, not_json};
  r = ImportOne(S("u", "j", ARROW_FLAG_NULLABLE, nullptr, json_md), A(1, 0, 0, &b2), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field j: value 0"), std::string::npos)
      << r.status().message();
  const char json[] = "{}";
  std::vector<const void*> b3 = {nullptr, offsets, json};
  ASSERT_OK_AND_ASSIGN(RecordBatch ok, ImportOne(S("u", "j", ARROW_FLAG_NULLABLE, nullptr, json_md),
                                                 A(1, 0, 0, &b3), 1));
  EXPECT_EQ(ok.schema.ToString(), "j JSON");
}

// A 16-byte view: the length, then the bytes inline (<= 12) or a prefix, buffer index, offset.
struct View {
  uint8_t bytes[16] = {};
  explicit View(std::string_view inline_value) {
    const int32_t len = static_cast<int32_t>(inline_value.size());
    std::memcpy(bytes, &len, 4);
    std::memcpy(bytes + 4, inline_value.data(), inline_value.size());
  }
  View(int32_t len, std::string_view prefix, int32_t index, int32_t offset) {
    std::memcpy(bytes, &len, 4);
    std::memcpy(bytes + 4, prefix.data(), 4);
    std::memcpy(bytes + 8, &index, 4);
    std::memcpy(bytes + 12, &offset, 4);
  }
};

// String views (Polars's strings): inline values, values in two data buffers, a null, and the
// sizes buffer the C Data Interface appends; sliced by one.
TEST_F(ImportTest, Utf8View) {
  const std::string data0 = "xxa string longer than twelve";
  const std::string data1 = "another long value, in buffer 1";
  const View views[] = {View("skipped"),
                        View("short"),
                        View(static_cast<int32_t>(data0.size() - 2), "a st", 0, 2),
                        View(""),
                        View(static_cast<int32_t>(data1.size()), "anot", 1, 0),
                        View("null")};
  const int64_t sizes[] = {static_cast<int64_t>(data0.size()), static_cast<int64_t>(data1.size())};
  const uint8_t bits[] = {0b011111};
  std::vector<const void*> buffers = {bits, views, data0.data(), data1.data(), sizes};
  ASSERT_OK_AND_ASSIGN(RecordBatch b, ImportOne(S("vu", "s"), A(5, 1, 1, &buffers), 5));
  EXPECT_EQ(b.schema.ToString(), "s VARCHAR");
  EXPECT_EQ(Text(b, 0), "short");
  EXPECT_EQ(Text(b, 1), "a string longer than twelve");
  EXPECT_EQ(Text(b, 2), "");
  EXPECT_EQ(Text(b, 3), data1);
  EXPECT_EQ(Text(b, 4), "null");
  EXPECT_FALSE(b.columns[0].IsValid(4));

  // A view past the end of its buffer (by the sizes buffer) is refused, not read.
  const View bad[] = {View(static_cast<int32_t>(data1.size()), "anot", 1, 1)};
  std::vector<const void*> bad_buffers = {nullptr, bad, data0.data(), data1.data(), sizes};
  Result<RecordBatch> r = ImportOne(S("vz", "s"), A(1, 0, 0, &bad_buffers), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("outside its data buffer"), std::string::npos)
      << r.status().message();
  const View no_buffer[] = {View(20, "abcd", 2, 0)};
  std::vector<const void*> nb = {nullptr, no_buffer, data0.data(), data1.data(), sizes};
  EXPECT_FALSE(ImportOne(S("vz", "s"), A(1, 0, 0, &nb), 1).ok());
}

// Formats tarn refuses: the error names the field and the format; the schema is released.
TEST_F(ImportTest, RefusedFormatsNameTheFieldAndFormat) {
  for (const char* format : {"n", "+vl", "+ud:0,1", "xyz", "e", "tDs"}) {
    SCOPED_TRACE(format);
    g_schema_releases = 0;
    ArrowSchema f = S(format, "col");
    std::vector<ArrowSchema*> fields = {&f};
    ArrowSchema top = S("+s", "", 0, &fields);
    Result<ImportedSchema> r = ImportSchema(&top);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(r.status().message().find("field col"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("\"" + std::string(format) + "\""), std::string::npos)
        << r.status().message();
    EXPECT_EQ(top.release, nullptr);
    EXPECT_EQ(g_schema_releases, 2);
  }
}

TEST_F(ImportTest, RefusedSchemas) {
  // Not a struct at the top.
  ArrowSchema leaf = S("i", "x");
  Result<ImportedSchema> r = ImportSchema(&leaf);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"i\""), std::string::npos);
  // Dictionary-encoded.
  ArrowSchema dict_values = S("u", "");
  ArrowSchema f = S("i", "x");
  f.dictionary = &dict_values;
  std::vector<ArrowSchema*> fields = {&f};
  ArrowSchema top = S("+s", "", 0, &fields);
  r = ImportSchema(&top);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("dictionary"), std::string::npos);
  // Two names that differ in case only.
  ArrowSchema a = S("i", "Name");
  ArrowSchema b = S("i", "name");
  std::vector<ArrowSchema*> two = {&a, &b};
  ArrowSchema top2 = S("+s", "", 0, &two);
  r = ImportSchema(&top2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("case-insensitive"), std::string::npos);
  // A released schema.
  ArrowSchema released{};
  r = ImportSchema(&released);
  ASSERT_FALSE(r.ok());
}

TEST_F(ImportTest, FieldIdsFromMetadata) {
  std::string md;
  auto put = [&](const std::string& s) {
    int32_t n = static_cast<int32_t>(s.size());
    md.append(reinterpret_cast<const char*>(&n), 4);
    md += s;
  };
  int32_t two = 2;
  md.append(reinterpret_cast<const char*>(&two), 4);
  put("PARQUET:field_id");
  put("42");
  put("pandas");
  put("{}");
  ArrowSchema f = S("l", "x", 0, nullptr, md.data());
  std::vector<ArrowSchema*> fields = {&f};
  ArrowSchema top = S("+s", "", 0, &fields);
  ASSERT_OK_AND_ASSIGN(ImportedSchema s, ImportSchema(&top));
  EXPECT_EQ(s.schema.fields[0].field_id, 42);
  EXPECT_FALSE(s.schema.fields[0].nullable);
}

// Arrays whose buffers or children do not match their format are refused before a read.
TEST_F(ImportTest, MalformedArrays) {
  const int32_t values[] = {1, 2};
  std::vector<const void*> one_buffer = {nullptr};
  Result<RecordBatch> r = ImportOne(S("i", "x"), A(2, 0, 0, &one_buffer), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("buffers"), std::string::npos) << r.status().message();

  std::vector<const void*> ok_buffers = {nullptr, values};
  r = ImportOne(S("i", "x"), A(2, 0, 0, &ok_buffers), 3);  // the column is shorter than the batch
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("shorter"), std::string::npos) << r.status().message();

  const int32_t backwards[] = {0, 2, 1};
  std::vector<const void*> text = {nullptr, backwards, "ab"};
  r = ImportOne(S("u", "x"), A(2, 0, 0, &text), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("out of order"), std::string::npos) << r.status().message();

  // A list whose offsets run past its child.
  std::vector<const void*> child_buffers = {nullptr, values};
  ArrowArray child = A(2, 0, 0, &child_buffers);
  const int32_t offsets[] = {0, 3};
  std::vector<const void*> lb = {nullptr, offsets};
  std::vector<ArrowArray*> children = {&child};
  ArrowSchema item = S("i", "item");
  std::vector<ArrowSchema*> fields = {&item};
  r = ImportOne(S("+l", "l", ARROW_FLAG_NULLABLE, &fields), A(1, 0, 0, &lb, &children), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("past the end"), std::string::npos) << r.status().message();
  EXPECT_EQ(g_array_releases, 2 + 2 + 2 + 3);
}

TEST_F(ImportTest, ReleasedArrayIsRefused) {
  ASSERT_OK_AND_ASSIGN(Schema schema, Schema::Parse("a INT32"));
  ArrowArray released{};
  Result<RecordBatch> r = ImportBatch(&released, schema);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("released"), std::string::npos);
}

}  // namespace
}  // namespace tarn::arrow
