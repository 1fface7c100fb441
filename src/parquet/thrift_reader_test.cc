#include "parquet/thrift_reader.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "parquet/metadata.h"
#include "parquet/reader_test_util.h"

namespace tarn::parquet {
namespace {

using testing::CompactWriter;

const uint8_t* U8(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(ThriftReaderTest, VarintsAndZigZag) {
  CompactWriter w;
  w.Varint(0);
  w.Varint(127);
  w.Varint(128);
  w.Varint(UINT64_MAX);
  w.ZigZag(-1);
  w.ZigZag(INT64_MIN);
  w.ZigZag(INT32_MAX);
  ThriftReader r(U8(w.out), w.out.size());
  uint64_t u;
  ASSERT_TRUE(r.ReadVarint(&u));
  EXPECT_EQ(u, 0u);
  ASSERT_TRUE(r.ReadVarint(&u));
  EXPECT_EQ(u, 127u);
  ASSERT_TRUE(r.ReadVarint(&u));
  EXPECT_EQ(u, 128u);
  ASSERT_TRUE(r.ReadVarint(&u));
  EXPECT_EQ(u, UINT64_MAX);
  int64_t v;
  ASSERT_TRUE(r.ReadZigZag(&v));
  EXPECT_EQ(v, -1);
  ASSERT_TRUE(r.ReadI64(&v));
  EXPECT_EQ(v, INT64_MIN);
  int32_t i;
  ASSERT_TRUE(r.ReadI32(&i));
  EXPECT_EQ(i, INT32_MAX);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.ReadVarint(&u));
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(r.status().message().find("truncated varint"), std::string::npos);
}

TEST(ThriftReaderTest, RejectsOverlongVarintAndOutOfRangeInts) {
  std::string eleven(11, '\x80');
  ThriftReader r(U8(eleven), eleven.size());
  uint64_t u;
  EXPECT_FALSE(r.ReadVarint(&u));
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);

  CompactWriter w;
  w.ZigZag(int64_t{1} << 40);
  ThriftReader r2(U8(w.out), w.out.size());
  int32_t i;
  EXPECT_FALSE(r2.ReadI32(&i));
  EXPECT_NE(r2.status().message().find("i32 value out of range"), std::string::npos);
}

TEST(ThriftReaderTest, FieldHeadersShortAndLongForm) {
  CompactWriter w;
  w.I32(1, 5);
  w.I32(16, 6);  // delta 15: short form
  w.I32(40, 7);  // delta 24: long form
  w.I32(-3, 8);  // negative id: long form
  w.Bool(41, true);
  w.Bool(42, false);
  w.Byte(kThriftStop);
  ThriftReader r(U8(w.out), w.out.size());
  int16_t last = 0, id;
  uint8_t t;
  std::vector<int16_t> ids;
  std::vector<int32_t> vals;
  for (;;) {
    ASSERT_TRUE(r.ReadFieldHeader(&last, &id, &t));
    if (t == kThriftStop) break;
    ids.push_back(id);
    if (t == kThriftI32) {
      int32_t v = 0;
      ASSERT_TRUE(r.ReadI32(&v));
      vals.push_back(v);
    } else {
      vals.push_back(t == kThriftTrue ? 1 : 0);
    }
  }
  EXPECT_EQ(ids, (std::vector<int16_t>{1, 16, 40, -3, 41, 42}));
  EXPECT_EQ(vals, (std::vector<int32_t>{5, 6, 7, 8, 1, 0}));
}

TEST(ThriftReaderTest, ListHeaderRefusesSizesThatCannotFit) {
  CompactWriter w;
  w.ListHeader(kThriftI32, 1000000);
  w.Byte(0);
  ThriftReader r(U8(w.out), w.out.size());
  uint8_t et;
  uint32_t n;
  EXPECT_FALSE(r.ReadListHeader(&et, &n));
  Status st = r.status();
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
  EXPECT_NE(st.message().find("cannot fit"), std::string::npos) << st.message();

  CompactWriter d;
  d.ListHeader(kThriftDouble, 2);
  d.Raw(std::string(15, '\0'));  // 2 doubles need 16 bytes
  ThriftReader r2(U8(d.out), d.out.size());
  EXPECT_FALSE(r2.ReadListHeader(&et, &n));
}

TEST(ThriftReaderTest, SkipsEveryWireTypeIncludingNesting) {
  CompactWriter w;
  w.FieldHeader(1, kThriftByte);
  w.Byte(0x7f);
  w.FieldHeader(2, kThriftI16);
  w.ZigZag(-300);
  w.FieldHeader(3, kThriftDouble);
  w.Raw(std::string(8, '\x11'));
  w.Binary(4, "skip me");
  w.BeginList(5, kThriftStruct, 2);
  w.BeginElement();
  w.I32(1, 1);
  w.BeginList(2, kThriftTrue, 3);  // bools in a list: one byte each
  w.Byte(1);
  w.Byte(2);
  w.Byte(1);
  w.EndStruct();
  w.BeginElement();
  w.EndStruct();
  w.FieldHeader(6, kThriftSet);
  w.ListHeader(kThriftBinary, 2);
  w.Varint(1);
  w.Raw("a");
  w.Varint(0);
  w.FieldHeader(7, kThriftMap);
  w.Varint(2);
  w.Byte(kThriftBinary << 4 | kThriftStruct);
  for (int i = 0; i < 2; ++i) {
    w.Varint(1);
    w.Raw("k");
    w.BeginElement();
    w.I64(1, 99);
    w.EndStruct();
  }
  w.FieldHeader(8, kThriftMap);
  w.Varint(0);  // empty map: no type byte
  w.FieldHeader(9, kThriftUuid);
  w.Raw(std::string(16, '\x22'));
  w.Bool(10, true);
  w.I32(11, 77);
  w.Byte(kThriftStop);

  ThriftReader r(U8(w.out), w.out.size());
  int16_t last = 0, id;
  uint8_t t;
  int32_t seen = 0;
  for (;;) {
    ASSERT_TRUE(r.ReadFieldHeader(&last, &id, &t));
    if (t == kThriftStop) break;
    if (id == 11) {
      ASSERT_TRUE(r.ReadI32(&seen));
    } else {
      ASSERT_TRUE(r.SkipField(t)) << "field " << id << ": " << r.status().ToString();
    }
  }
  EXPECT_EQ(seen, 77);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ThriftReaderTest, SkipRefusesDeepNesting) {
  CompactWriter w;
  for (int i = 0; i < 200; ++i) w.BeginStruct(1);
  for (int i = 0; i < 200; ++i) w.EndStruct();
  ThriftReader r(U8(w.out), w.out.size());
  int16_t last = 0, id;
  uint8_t t;
  ASSERT_TRUE(r.ReadFieldHeader(&last, &id, &t));
  EXPECT_FALSE(r.SkipField(t));
  Status st = r.status();
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
  EXPECT_NE(st.message().find("nesting"), std::string::npos) << st.message();

  // Nested lists too.
  std::string lists;
  for (int i = 0; i < 200; ++i) lists.push_back(static_cast<char>(0x10 | kThriftList));
  ThriftReader r2(U8(lists), lists.size());
  EXPECT_FALSE(r2.SkipField(kThriftList));
  EXPECT_EQ(r2.status().kind(), ErrorKind::kCorruption);
}

TEST(ThriftReaderTest, SkipRefusesUnknownTypesAndTruncation) {
  std::string bad = "\x0e";  // field header with wire type 14
  ThriftReader r(U8(bad), bad.size());
  int16_t last = 0, id;
  uint8_t t;
  EXPECT_FALSE(r.ReadFieldHeader(&last, &id, &t));
  EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);

  CompactWriter w;
  w.FieldHeader(1, kThriftBinary);
  w.Varint(100);
  w.Raw("short");
  ThriftReader r2(U8(w.out), w.out.size());
  last = 0;
  ASSERT_TRUE(r2.ReadFieldHeader(&last, &id, &t));
  EXPECT_FALSE(r2.SkipField(t));
  uint64_t after;
  EXPECT_FALSE(r2.ReadVarint(&after));  // after a failure every read fails
  EXPECT_NE(r2.status().message().find("binary length 100"), std::string::npos);
}

// ---- FileMetaData / PageHeader decoding ------------------------------------------------------

FileMetaData SampleMetaData() {
  FileMetaData md;
  md.version = 2;
  md.schema.push_back(testing::Root(2));
  SchemaElement a = testing::Leaf("a", Type::INT64, Repetition::OPTIONAL);
  a.field_id = 7;
  LogicalType ts;
  ts.kind = LogicalType::TIMESTAMP;
  ts.unit = TimeUnitKind::NANOS;
  ts.is_adjusted_to_utc = true;
  a.logical_type = ts;
  md.schema.push_back(a);
  SchemaElement b = testing::Leaf("b", Type::FIXED_LEN_BYTE_ARRAY, Repetition::REQUIRED);
  b.type_length = 16;
  b.converted_type = ConvertedType::DECIMAL;
  b.precision = 38;
  b.scale = 5;
  LogicalType dec;
  dec.kind = LogicalType::DECIMAL;
  dec.decimal_precision = 38;
  dec.decimal_scale = 5;
  b.logical_type = dec;
  md.schema.push_back(b);
  md.num_rows = 12345678901LL;
  RowGroup rg;
  rg.num_rows = 12345678901LL;
  rg.total_byte_size = 99;
  for (int c = 0; c < 2; ++c) {
    ColumnChunk cc;
    ColumnMetaData m;
    m.type = c == 0 ? Type::INT64 : Type::FIXED_LEN_BYTE_ARRAY;
    m.encodings = {Encoding::PLAIN, Encoding::RLE_DICTIONARY};
    m.path_in_schema = {c == 0 ? "a" : "b"};
    m.codec = Codec::ZSTD;
    m.num_values = 5;
    m.total_compressed_size = 100 + c;
    m.total_uncompressed_size = 200 + c;
    m.data_page_offset = 4 + 1000 * c;
    m.dictionary_page_offset = 3 + 1000 * c;
    Statistics st;
    st.min_value = std::string("\x01\x02", 2);
    st.max_value = "zz";
    st.null_count = 3;
    m.statistics = st;
    cc.meta_data = m;
    rg.columns.push_back(cc);
  }
  md.row_groups.push_back(rg);
  md.key_value_metadata.push_back({"k", std::string("v")});
  md.key_value_metadata.push_back({"novalue", std::nullopt});
  md.created_by = "hand made";
  return md;
}

TEST(MetadataDecodeTest, DecodesHandMadeFooter) {
  std::string bytes = testing::EncodeMetaData(SampleMetaData());
  auto md = DecodeFileMetaData(U8(bytes), bytes.size());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->version, 2);
  EXPECT_EQ(md->num_rows, 12345678901LL);
  ASSERT_EQ(md->schema.size(), 3u);
  EXPECT_EQ(md->schema[0].num_children, 2);
  EXPECT_FALSE(md->schema[0].type.has_value());
  const SchemaElement& a = md->schema[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.type, Type::INT64);
  EXPECT_EQ(a.repetition_type, Repetition::OPTIONAL);
  EXPECT_EQ(a.field_id, 7);
  ASSERT_TRUE(a.logical_type.has_value());
  EXPECT_EQ(a.logical_type->kind, LogicalType::TIMESTAMP);
  EXPECT_EQ(a.logical_type->unit, TimeUnitKind::NANOS);
  EXPECT_TRUE(a.logical_type->is_adjusted_to_utc);
  const SchemaElement& b = md->schema[2];
  EXPECT_EQ(b.type_length, 16);
  EXPECT_EQ(b.converted_type, ConvertedType::DECIMAL);
  EXPECT_EQ(b.precision, 38);
  EXPECT_EQ(b.scale, 5);
  EXPECT_EQ(b.logical_type->decimal_precision, 38);
  EXPECT_EQ(b.logical_type->decimal_scale, 5);
  ASSERT_EQ(md->row_groups.size(), 1u);
  const RowGroup& rg = md->row_groups[0];
  EXPECT_EQ(rg.num_rows, 12345678901LL);
  ASSERT_EQ(rg.columns.size(), 2u);
  const ColumnMetaData& m = *rg.columns[1].meta_data;
  EXPECT_EQ(m.type, Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(m.encodings, (std::vector<Encoding>{Encoding::PLAIN, Encoding::RLE_DICTIONARY}));
  EXPECT_EQ(m.path_in_schema, std::vector<std::string>{"b"});
  EXPECT_EQ(m.codec, Codec::ZSTD);
  EXPECT_EQ(m.total_compressed_size, 101);
  EXPECT_EQ(m.total_uncompressed_size, 201);
  EXPECT_EQ(m.data_page_offset, 1004);
  EXPECT_EQ(m.dictionary_page_offset, 1003);
  ASSERT_TRUE(m.statistics.has_value());
  EXPECT_EQ(m.statistics->min_value, std::string("\x01\x02", 2));
  EXPECT_EQ(m.statistics->max_value, "zz");
  EXPECT_EQ(m.statistics->null_count, 3);
  EXPECT_FALSE(m.statistics->min.has_value());
  ASSERT_EQ(md->key_value_metadata.size(), 2u);
  EXPECT_EQ(md->key_value_metadata[0].value, "v");
  EXPECT_FALSE(md->key_value_metadata[1].value.has_value());
  EXPECT_EQ(md->created_by, "hand made");
  EXPECT_FALSE(md->encrypted);
}

TEST(MetadataDecodeTest, SkipsUnknownFieldsEverywhere) {
  // A footer from the future: unknown fields of every shape before, between and after the
  // known ones, at the top level and inside nested structs.
  auto junk = [](CompactWriter& w, int16_t id) {
    w.BeginStruct(id);
    w.BeginList(1, kThriftStruct, 1);
    w.BeginElement();
    w.FieldHeader(3, kThriftMap);
    w.Varint(1);
    w.Byte(kThriftI32 << 4 | kThriftList);
    w.ZigZag(5);
    w.ListHeader(kThriftDouble, 1);
    w.Raw(std::string(8, '\0'));
    w.EndStruct();
    w.Binary(2, "xyz");
    w.Bool(3, true);
    w.EndStruct();
  };
  CompactWriter w;
  junk(w, 0);  // field id 0 before everything (long form)
  w.I32(1, 1);
  w.BeginList(2, kThriftStruct, 2);
  w.BeginElement();
  w.Binary(4, "root");
  w.I32(5, 1);
  junk(w, 50);
  w.EndStruct();
  w.BeginElement();
  w.I32(1, static_cast<int32_t>(Type::INT32));
  w.I32(3, static_cast<int32_t>(Repetition::REQUIRED));
  w.Binary(4, "x");
  w.I32(11, 4);  // vector_length, newer than tarn
  w.BeginStruct(10);
  w.BeginStruct(17);  // GEOMETRY: an unknown logical type
  w.Binary(1, "crs");
  w.EndStruct();
  w.EndStruct();
  w.EndStruct();
  w.I64(3, 0);
  junk(w, 20);
  w.BeginList(4, kThriftStruct, 0);
  w.FieldHeader(30, kThriftDouble);
  w.Raw(std::string(8, '\x01'));
  w.Byte(kThriftStop);

  auto md = DecodeFileMetaData(U8(w.out), w.out.size());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  ASSERT_EQ(md->schema.size(), 2u);
  EXPECT_EQ(md->schema[0].name, "root");
  EXPECT_EQ(md->schema[1].name, "x");
  EXPECT_EQ(md->schema[1].type, Type::INT32);
  EXPECT_FALSE(md->schema[1].logical_type.has_value());  // unknown kind: unannotated
}

TEST(MetadataDecodeTest, ColumnOrdersAndEncryptionFlag) {
  std::string base = testing::EncodeMetaData(SampleMetaData());
  base.pop_back();  // drop the stop byte to append fields
  CompactWriter w;
  w.Raw(base);
  w.SetLastFieldId(6);  // the sample's last field is created_by (6)
  w.FieldHeader(7, kThriftList);
  w.ListHeader(kThriftStruct, 2);
  for (int i = 0; i < 2; ++i) {
    w.BeginElement();
    w.BeginStruct(1);
    w.EndStruct();
    w.EndStruct();
  }
  w.Byte(kThriftStop);
  auto md = DecodeFileMetaData(U8(w.out), w.out.size());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_TRUE(md->column_orders_type_defined);

  CompactWriter e;
  e.Raw(base);
  e.SetLastFieldId(6);
  e.BeginStruct(8);
  e.BeginStruct(1);
  e.EndStruct();
  e.EndStruct();
  e.Byte(kThriftStop);
  auto enc = DecodeFileMetaData(U8(e.out), e.out.size());
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  EXPECT_TRUE(enc->encrypted);
}

TEST(MetadataDecodeTest, EveryTruncationIsCorruption) {
  std::string bytes = testing::EncodeMetaData(SampleMetaData());
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string cut = bytes.substr(0, n);  // exact-size copy so ASan sees over-reads
    auto md = DecodeFileMetaData(U8(cut), cut.size());
    ASSERT_FALSE(md.ok()) << "prefix of " << n << " bytes decoded";
    EXPECT_EQ(md.status().kind(), ErrorKind::kCorruption);
  }
}

TEST(MetadataDecodeTest, MissingRequiredAndWrongTypes) {
  CompactWriter w;  // no schema, num_rows, row_groups
  w.I32(1, 1);
  w.Byte(kThriftStop);
  auto md = DecodeFileMetaData(U8(w.out), w.out.size());
  EXPECT_EQ(md.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(md.status().message().find("required"), std::string::npos);

  CompactWriter t;  // version as a binary
  t.Binary(1, "one");
  t.Byte(kThriftStop);
  md = DecodeFileMetaData(U8(t.out), t.out.size());
  EXPECT_EQ(md.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(md.status().message().find("FileMetaData.version"), std::string::npos);

  CompactWriter p;  // physical type out of range
  p.I32(1, 1);
  p.BeginList(2, kThriftStruct, 1);
  p.BeginElement();
  p.I32(1, 42);
  p.Binary(4, "x");
  p.EndStruct();
  p.I64(3, 0);
  p.BeginList(4, kThriftStruct, 0);
  p.Byte(kThriftStop);
  md = DecodeFileMetaData(U8(p.out), p.out.size());
  EXPECT_EQ(md.status().kind(), ErrorKind::kCorruption);
}

// A one-column, one-row-group footer; each callback appends fields to the struct it names
// (after that struct's last regular field).
struct FooterExtras {
  std::function<void(CompactWriter&)> statistics, column_meta, column_chunk, row_group, file;
};

std::string FooterWith(const FooterExtras& x) {
  CompactWriter w;
  w.I32(1, 2);
  w.BeginList(2, kThriftStruct, 2);
  w.BeginElement();
  w.Binary(4, "schema");
  w.I32(5, 1);
  w.EndStruct();
  w.BeginElement();
  w.I32(1, static_cast<int32_t>(Type::INT32));
  w.I32(3, static_cast<int32_t>(Repetition::OPTIONAL));
  w.Binary(4, "x");
  w.EndStruct();
  w.I64(3, 3);
  w.BeginList(4, kThriftStruct, 1);
  w.BeginElement();  // RowGroup
  w.BeginList(1, kThriftStruct, 1);
  w.BeginElement();  // ColumnChunk
  w.I64(2, 4);
  w.BeginStruct(3);  // ColumnMetaData
  w.I32(1, static_cast<int32_t>(Type::INT32));
  w.BeginList(2, kThriftI32, 1);
  w.ZigZag(0);
  w.BeginList(3, kThriftBinary, 1);
  w.Varint(1);
  w.Raw("x");
  w.I32(4, 0);
  w.I64(5, 3);
  w.I64(6, 30);
  w.I64(7, 30);
  w.I64(9, 4);
  w.BeginStruct(12);
  w.I64(3, 1);
  if (x.statistics) x.statistics(w);
  w.EndStruct();
  if (x.column_meta) x.column_meta(w);
  w.EndStruct();
  if (x.column_chunk) x.column_chunk(w);
  w.EndStruct();
  w.I64(2, 30);
  w.I64(3, 3);
  if (x.row_group) x.row_group(w);
  w.EndStruct();
  if (x.file) x.file(w);
  w.Byte(kThriftStop);
  return w.out;
}

// Other writers put some optional fields with another wire type than parquet.thrift's (one
// wrote ColumnMetaData.bloom_filter_length as an i64): fields tarn does not use are skipped
// then; the footer still decodes.
TEST(MetadataDecodeTest, UnusedOptionalFieldsOfAnotherWireTypeAreSkipped) {
  FooterExtras x;
  x.statistics = [](CompactWriter& w) { w.Binary(4, "distinct"); };
  x.column_meta = [](CompactWriter& w) {
    w.Binary(10, "index page");
    w.BeginList(13, kThriftI32, 2);  // encoding_stats of ints instead of structs
    w.ZigZag(1);
    w.ZigZag(2);
    w.Binary(14, "bloom offset");
    w.I64(15, 5000000000LL);            // bloom_filter_length as an i64 (beyond i32, too)
    w.Binary(8, "key_value_metadata");  // ids going down: long-form headers
  };
  x.column_chunk = [](CompactWriter& w) {
    w.Binary(4, "offset index");
    w.I64(5, 12);
    w.Binary(6, "column index");
    w.I64(7, 13);
  };
  x.row_group = [](CompactWriter& w) {
    w.BeginList(4, kThriftBinary, 1);  // sorting_columns of strings
    w.Varint(1);
    w.Raw("a");
    w.Binary(5, "file offset");
    w.Binary(6, "compressed");
    w.I32(7, 0);  // ordinal as an i32
  };
  x.file = [](CompactWriter& w) { w.I32(6, 12); };  // created_by as an i32
  std::string bytes = FooterWith(x);
  auto md = DecodeFileMetaData(U8(bytes), bytes.size());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  ASSERT_EQ(md->row_groups.size(), 1u);
  const RowGroup& rg = md->row_groups[0];
  EXPECT_EQ(rg.num_rows, 3);
  EXPECT_TRUE(rg.sorting_columns.empty());
  EXPECT_FALSE(rg.file_offset.has_value());
  EXPECT_FALSE(rg.total_compressed_size.has_value());
  EXPECT_FALSE(rg.ordinal.has_value());
  ASSERT_EQ(rg.columns.size(), 1u);
  const ColumnChunk& cc = rg.columns[0];
  EXPECT_FALSE(cc.offset_index_offset.has_value());
  EXPECT_FALSE(cc.offset_index_length.has_value());
  EXPECT_FALSE(cc.column_index_offset.has_value());
  EXPECT_FALSE(cc.column_index_length.has_value());
  ASSERT_TRUE(cc.meta_data.has_value());
  const ColumnMetaData& m = *cc.meta_data;
  EXPECT_EQ(m.num_values, 3);
  EXPECT_EQ(m.data_page_offset, 4);
  EXPECT_FALSE(m.index_page_offset.has_value());
  EXPECT_TRUE(m.encoding_stats.empty());
  EXPECT_FALSE(m.bloom_filter_offset.has_value());
  EXPECT_FALSE(m.bloom_filter_length.has_value());
  EXPECT_TRUE(m.key_value_metadata.empty());
  ASSERT_TRUE(m.statistics.has_value());
  EXPECT_EQ(m.statistics->null_count, 1);
  EXPECT_FALSE(m.statistics->distinct_count.has_value());
  EXPECT_FALSE(md->created_by.has_value());

  // The same fields with their proper types are still read.
  FooterExtras ok;
  ok.column_meta = [](CompactWriter& w) {
    w.I64(14, 77);
    w.I32(15, 88);
  };
  ok.row_group = [](CompactWriter& w) {
    w.FieldHeader(7, kThriftI16);
    w.ZigZag(0);
  };
  bytes = FooterWith(ok);
  md = DecodeFileMetaData(U8(bytes), bytes.size());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->row_groups[0].columns[0].meta_data->bloom_filter_offset, 77);
  EXPECT_EQ(md->row_groups[0].columns[0].meta_data->bloom_filter_length, 88);
  EXPECT_EQ(md->row_groups[0].ordinal, 0);
}

// Fields tarn reads data or statistics with stay strict about their wire type.
TEST(MetadataDecodeTest, UsedFieldsOfAnotherWireTypeAreCorruption) {
  auto fails = [](const FooterExtras& x, const std::string& field) {
    std::string bytes = FooterWith(x);
    auto md = DecodeFileMetaData(U8(bytes), bytes.size());
    ASSERT_FALSE(md.ok()) << field;
    EXPECT_EQ(md.status().kind(), ErrorKind::kCorruption);
    EXPECT_NE(md.status().message().find(field), std::string::npos) << md.status().ToString();
  };
  FooterExtras dict;
  dict.column_meta = [](CompactWriter& w) { w.Binary(11, "dictionary"); };
  fails(dict, "ColumnMetaData.dictionary_page_offset");
  FooterExtras min;
  min.statistics = [](CompactWriter& w) { w.I64(6, 1); };
  fails(min, "Statistics.min_value");
  FooterExtras exact;
  exact.statistics = [](CompactWriter& w) { w.I32(8, 1); };
  fails(exact, "Statistics.is_min_value_exact");
  FooterExtras path;
  path.column_chunk = [](CompactWriter& w) { w.I64(1, 1); };
  fails(path, "ColumnChunk.file_path");
  FooterExtras kv;
  kv.file = [](CompactWriter& w) { w.Binary(5, "tarn.schema"); };
  fails(kv, "FileMetaData.key_value_metadata");
}

TEST(MetadataDecodeTest, HugeListSizeIsRefusedWithoutAllocation) {
  CompactWriter w;
  w.I32(1, 1);
  w.FieldHeader(2, kThriftList);
  w.ListHeader(kThriftStruct, 0x7fffffff);
  w.Byte(kThriftStop);
  auto md = DecodeFileMetaData(U8(w.out), w.out.size());
  EXPECT_EQ(md.status().kind(), ErrorKind::kCorruption);
}

TEST(PageHeaderDecodeTest, DataPagesAndDictionary) {
  PageHeader h;
  h.type = PageType::DATA_PAGE_V2;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 60;
  DataPageHeaderV2 v2;
  v2.num_values = 10;
  v2.num_nulls = 2;
  v2.num_rows = 9;
  v2.encoding = Encoding::DELTA_BINARY_PACKED;
  v2.definition_levels_byte_length = 3;
  v2.repetition_levels_byte_length = 4;
  v2.is_compressed = false;
  h.data_page_header_v2 = v2;
  std::string bytes = testing::EncodePage(h, "BODY");
  size_t header_len = 0;
  auto d = DecodePageHeader(U8(bytes), bytes.size(), &header_len);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(header_len, bytes.size() - 4);
  EXPECT_EQ(d->type, PageType::DATA_PAGE_V2);
  EXPECT_EQ(d->uncompressed_page_size, 100);
  EXPECT_EQ(d->compressed_page_size, 60);
  ASSERT_TRUE(d->data_page_header_v2.has_value());
  EXPECT_EQ(d->data_page_header_v2->num_nulls, 2);
  EXPECT_EQ(d->data_page_header_v2->num_rows, 9);
  EXPECT_EQ(d->data_page_header_v2->encoding, Encoding::DELTA_BINARY_PACKED);
  EXPECT_EQ(d->data_page_header_v2->definition_levels_byte_length, 3);
  EXPECT_EQ(d->data_page_header_v2->repetition_levels_byte_length, 4);
  EXPECT_FALSE(d->data_page_header_v2->is_compressed);

  std::string dict = testing::DictionaryPage(7, "xx");
  auto dd = DecodePageHeader(U8(dict), dict.size(), &header_len);
  ASSERT_TRUE(dd.ok());
  EXPECT_EQ(dd->dictionary_page_header->num_values, 7);
  EXPECT_EQ(header_len, dict.size() - 2);

  std::string v1 = testing::DataPageV1(5, Encoding::RLE_DICTIONARY, "abc", Encoding::BIT_PACKED);
  auto d1 = DecodePageHeader(U8(v1), v1.size(), &header_len);
  ASSERT_TRUE(d1.ok());
  EXPECT_EQ(d1->data_page_header->num_values, 5);
  EXPECT_EQ(d1->data_page_header->encoding, Encoding::RLE_DICTIONARY);
  EXPECT_EQ(d1->data_page_header->definition_level_encoding, Encoding::BIT_PACKED);
  for (size_t n = 0; n < header_len; ++n) {
    std::string cut = v1.substr(0, n);
    EXPECT_FALSE(DecodePageHeader(U8(cut), cut.size(), &header_len).ok()) << n;
  }
}

TEST(PageHeaderDecodeTest, NegativeSizesAreCorruption) {
  CompactWriter w;
  w.I32(1, 0);
  w.I32(2, -5);
  w.I32(3, 10);
  w.Byte(kThriftStop);
  size_t n;
  auto h = DecodePageHeader(U8(w.out), w.out.size(), &n);
  EXPECT_EQ(h.status().kind(), ErrorKind::kCorruption);
}

}  // namespace
}  // namespace tarn::parquet
