#include "parquet/thrift_writer.h"

#include <gtest/gtest.h>

#include <vector>

#include "parquet/metadata.h"

namespace tarn::parquet {
namespace {

using thrift::CompactWriter;
using thrift::CType;

std::vector<uint8_t> Bytes(const ByteBuffer& b) { return {b.begin(), b.end()}; }

TEST(CompactWriter, FieldHeaderDeltasAndZigZag) {
  ByteBuffer out;
  CompactWriter w(&out);
  w.I32(1, 5);     // delta 1, i32: 0x15, zigzag(5) = 10
  w.I64(3, -1);    // delta 2, i64: 0x26, zigzag(-1) = 1
  w.I32(20, 1);    // delta 17 > 15: long form 0x05, zigzag(20) = 40, then zigzag(1) = 2
  w.I32(2, 0);     // going backwards: long form again
  w.I16(3, -300);  // delta 1, i16: 0x14, zigzag(-300) = 599 = 0xD7 0x04
  w.I8(4, -2);     // byte fields are raw: 0x13, 0xFE
  w.End();
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x15, 0x0A, 0x26, 0x01, 0x05, 0x28, 0x02, 0x05, 0x04,
                                              0x00, 0x14, 0xD7, 0x04, 0x13, 0xFE, 0x00}));
}

TEST(CompactWriter, BoolsAndBinary) {
  ByteBuffer out;
  CompactWriter w(&out);
  w.Bool(1, true);   // type 1 in the header, no payload
  w.Bool(2, false);  // type 2
  w.Binary(3, "ab");
  w.Binary(4, "");
  w.End();
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x11, 0x12, 0x18, 0x02, 'a', 'b', 0x18, 0x00, 0x00}));
}

TEST(CompactWriter, NestedStructsRestoreTheParentsLastId) {
  ByteBuffer out;
  CompactWriter w(&out);
  w.I32(4, 1);
  w.BeginStruct(5);  // delta 1 from 4
  w.I32(1, 1);       // ids restart at 0 inside
  w.BeginStruct(2);
  w.End();
  w.End();
  w.I32(6, 3);  // delta 1 from 5, not from the inner ids
  w.End();
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x45, 0x02, 0x1C, 0x15, 0x02, 0x1C, 0x00, 0x00, 0x15,
                                              0x06, 0x00}));
}

TEST(CompactWriter, Lists) {
  ByteBuffer out;
  CompactWriter w(&out);
  w.BeginList(1, CType::kI32, 3);  // 0x19, size 3 << 4 | 5
  w.ListI32(1);
  w.ListI32(-2);
  w.ListI32(300);  // zigzag 600 = 0xD8 0x04
  w.BeginList(2, CType::kStruct, 2);
  w.BeginListStruct();
  w.I32(1, 7);
  w.End();
  w.BeginListStruct();
  w.End();
  w.BeginList(3, CType::kBinary, 20);  // 15 or more: 0xF8 then varint size
  for (int i = 0; i < 20; ++i) w.ListBinary("x");
  w.End();
  std::vector<uint8_t> want = {0x19, 0x35, 0x02, 0x03, 0xD8, 0x04, 0x19, 0x2C,
                               0x15, 0x0E, 0x00, 0x00, 0x19, 0xF8, 0x14};
  for (int i = 0; i < 20; ++i) {
    want.push_back(0x01);
    want.push_back('x');
  }
  want.push_back(0x00);
  EXPECT_EQ(Bytes(out), want);
}

TEST(CompactWriter, VarintExtremes) {
  ByteBuffer out;
  CompactWriter w(&out);
  w.ZigZagVarint(INT64_MIN);  // zigzag: 2^64 - 1, ten bytes
  w.ZigZagVarint(INT64_MAX);  // zigzag: 2^64 - 2
  w.Varint(127);
  w.Varint(128);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                              0xFF, 0x01, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                              0xFF, 0xFF, 0xFF, 0x01, 0x7F, 0x80, 0x01}));
}

TEST(EncodePageHeader, HandComputedDataPage) {
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.uncompressed_page_size = 100;
  h.compressed_page_size = 50;
  DataPageHeader d;
  d.num_values = 10;
  d.encoding = Encoding::PLAIN;
  h.data_page_header = d;
  ByteBuffer out;
  EncodePageHeader(h, &out);
  EXPECT_EQ(Bytes(out),
            (std::vector<uint8_t>{0x15, 0x00, 0x15, 0xC8, 0x01, 0x15, 0x64, 0x2C, 0x15, 0x14, 0x15,
                                  0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00}));
}

TEST(EncodePageHeader, DictionaryPageSkipsFieldSix) {
  PageHeader h;
  h.type = PageType::DICTIONARY_PAGE;
  h.uncompressed_page_size = 8;
  h.compressed_page_size = 8;
  DictionaryPageHeader d;
  d.num_values = 2;
  d.is_sorted = false;
  h.dictionary_page_header = d;
  ByteBuffer out;
  EncodePageHeader(h, &out);
  // Field 7 follows field 3: delta 4, struct = 0x4C.
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x15, 0x04, 0x15, 0x10, 0x15, 0x10, 0x4C, 0x15, 0x04,
                                              0x15, 0x00, 0x12, 0x00, 0x00}));
}

TEST(EncodePageHeader, StatisticsAndV2RoundTripThroughTheDecoder) {
  PageHeader h;
  h.type = PageType::DATA_PAGE_V2;
  h.uncompressed_page_size = 1234;
  h.compressed_page_size = 567;
  DataPageHeaderV2 d;
  d.num_values = 9;
  d.num_nulls = 2;
  d.num_rows = 4;
  d.encoding = Encoding::RLE_DICTIONARY;
  d.definition_levels_byte_length = 3;
  d.repetition_levels_byte_length = 5;
  d.is_compressed = false;
  Statistics s;
  s.null_count = 2;
  s.min_value = std::string("\x00\xff", 2);
  s.max_value = "zz";
  s.is_min_value_exact = true;
  s.is_max_value_exact = false;
  d.statistics = s;
  h.data_page_header_v2 = d;
  ByteBuffer out;
  EncodePageHeader(h, &out);
  out.push_back(0xAB);  // trailing page bytes must not be consumed
  size_t used = 0;
  auto back = DecodePageHeader(out.data(), out.size(), &used);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(used, out.size() - 1);
  ASSERT_TRUE(back->data_page_header_v2.has_value());
  const DataPageHeaderV2& b = *back->data_page_header_v2;
  EXPECT_EQ(back->type, PageType::DATA_PAGE_V2);
  EXPECT_EQ(back->uncompressed_page_size, 1234);
  EXPECT_EQ(back->compressed_page_size, 567);
  EXPECT_EQ(b.num_values, 9);
  EXPECT_EQ(b.num_nulls, 2);
  EXPECT_EQ(b.num_rows, 4);
  EXPECT_EQ(b.encoding, Encoding::RLE_DICTIONARY);
  EXPECT_EQ(b.definition_levels_byte_length, 3);
  EXPECT_EQ(b.repetition_levels_byte_length, 5);
  EXPECT_FALSE(b.is_compressed);
  ASSERT_TRUE(b.statistics.has_value());
  EXPECT_EQ(b.statistics->min_value, std::string("\x00\xff", 2));
  EXPECT_EQ(b.statistics->max_value, "zz");
  EXPECT_EQ(b.statistics->null_count, 2);
  EXPECT_EQ(b.statistics->is_max_value_exact, false);
}

TEST(EncodeFileMetaData, LogicalTypesColumnOrdersAndKeyValuesRoundTrip) {
  FileMetaData md;
  md.version = 1;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;
  md.schema.push_back(root);
  SchemaElement ts;
  ts.name = "ts";
  ts.type = Type::INT64;
  ts.repetition_type = Repetition::OPTIONAL;
  ts.converted_type = ConvertedType::TIMESTAMP_MICROS;
  ts.field_id = 300;
  LogicalType lt;
  lt.kind = LogicalType::TIMESTAMP;
  lt.unit = TimeUnitKind::NANOS;
  lt.is_adjusted_to_utc = true;
  ts.logical_type = lt;
  md.schema.push_back(ts);
  SchemaElement dec;
  dec.name = "d";
  dec.type = Type::FIXED_LEN_BYTE_ARRAY;
  dec.type_length = 9;
  dec.repetition_type = Repetition::REQUIRED;
  dec.converted_type = ConvertedType::DECIMAL;
  dec.precision = 20;
  dec.scale = 3;
  LogicalType dl;
  dl.kind = LogicalType::DECIMAL;
  dl.decimal_precision = 20;
  dl.decimal_scale = 3;
  dec.logical_type = dl;
  md.schema.push_back(dec);
  SchemaElement u;
  u.name = "u";
  u.type = Type::INT32;
  u.repetition_type = Repetition::OPTIONAL;
  LogicalType il;
  il.kind = LogicalType::INTEGER;
  il.bit_width = 16;
  il.is_signed = false;
  u.logical_type = il;
  md.schema.push_back(u);
  md.num_rows = 1ll << 40;
  RowGroup rg;
  rg.num_rows = 7;
  rg.total_byte_size = 99;
  rg.ordinal = 0;
  ColumnChunk cc;
  cc.file_offset = 4;
  ColumnMetaData m;
  m.type = Type::INT64;
  m.encodings = {Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY};
  m.path_in_schema = {"ts"};
  m.codec = Codec::ZSTD;
  m.num_values = 7;
  m.total_compressed_size = 50;
  m.total_uncompressed_size = 60;
  m.data_page_offset = 20;
  m.dictionary_page_offset = 4;
  m.statistics = Statistics();
  m.statistics->null_count = 1;
  m.encoding_stats.push_back({PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1});
  cc.meta_data = m;
  rg.columns = {cc, cc, cc};
  md.row_groups.push_back(rg);
  md.key_value_metadata.push_back({"k", std::string("v")});
  md.key_value_metadata.push_back({"only-key", std::nullopt});
  md.created_by = "tarn test";
  md.column_orders_type_defined = true;

  ByteBuffer out;
  EncodeFileMetaData(md, &out);
  auto back = DecodeFileMetaData(out.data(), out.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->version, 1);
  EXPECT_EQ(back->num_rows, 1ll << 40);
  ASSERT_EQ(back->schema.size(), 4u);
  const SchemaElement& bts = back->schema[1];
  EXPECT_EQ(bts.field_id, 300);
  ASSERT_TRUE(bts.logical_type.has_value());
  EXPECT_EQ(bts.logical_type->kind, LogicalType::TIMESTAMP);
  EXPECT_EQ(bts.logical_type->unit, TimeUnitKind::NANOS);
  EXPECT_TRUE(bts.logical_type->is_adjusted_to_utc);
  const SchemaElement& bd = back->schema[2];
  EXPECT_EQ(bd.type_length, 9);
  EXPECT_EQ(bd.precision, 20);
  ASSERT_TRUE(bd.logical_type.has_value());
  EXPECT_EQ(bd.logical_type->decimal_precision, 20);
  EXPECT_EQ(bd.logical_type->decimal_scale, 3);
  const SchemaElement& bu = back->schema[3];
  ASSERT_TRUE(bu.logical_type.has_value());
  EXPECT_EQ(bu.logical_type->kind, LogicalType::INTEGER);
  EXPECT_EQ(bu.logical_type->bit_width, 16);
  EXPECT_FALSE(bu.logical_type->is_signed);
  ASSERT_EQ(back->row_groups.size(), 1u);
  ASSERT_EQ(back->row_groups[0].columns.size(), 3u);
  const ColumnMetaData& bm = *back->row_groups[0].columns[2].meta_data;
  EXPECT_EQ(bm.encodings, m.encodings);
  EXPECT_EQ(bm.codec, Codec::ZSTD);
  EXPECT_EQ(bm.dictionary_page_offset, 4);
  EXPECT_EQ(bm.statistics->null_count, 1);
  ASSERT_EQ(bm.encoding_stats.size(), 1u);
  EXPECT_EQ(bm.encoding_stats[0].page_type, PageType::DICTIONARY_PAGE);
  ASSERT_EQ(back->key_value_metadata.size(), 2u);
  EXPECT_EQ(back->key_value_metadata[0].value, "v");
  EXPECT_FALSE(back->key_value_metadata[1].value.has_value());
  EXPECT_EQ(back->created_by, "tarn test");
  EXPECT_TRUE(back->column_orders_type_defined);
}

TEST(EncodeFileMetaData, ColumnOrdersHoldOneEntryPerLeaf) {
  FileMetaData md;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement list;
  list.name = "l";
  list.num_children = 1;
  SchemaElement rep;
  rep.name = "list";
  rep.num_children = 1;
  SchemaElement leaf;
  leaf.name = "element";
  leaf.type = Type::INT32;
  md.schema = {root, list, rep, leaf};
  md.column_orders_type_defined = true;
  ByteBuffer out;
  EncodeFileMetaData(md, &out);
  // Fields 1-4 are written, 5 and 6 are absent, so 7 has delta 3 (0x39); a list of one struct
  // (0x1C) whose element is {1: {}} (0x1C 0x00 0x00); then the struct's stop.
  std::vector<uint8_t> tail(out.end() - 6, out.end());
  EXPECT_EQ(tail, (std::vector<uint8_t>{0x39, 0x1C, 0x1C, 0x00, 0x00, 0x00}));
}

}  // namespace
}  // namespace tarn::parquet
