// Thrift compact encoding of FileMetaData and PageHeader (field ids as in parquet.thrift).
#include "parquet/metadata.h"
#include "parquet/thrift_writer.h"

namespace tarn::parquet {
namespace {

using thrift::CompactWriter;
using thrift::CType;

void EncodeStatistics(CompactWriter& w, const Statistics& s) {
  if (s.max) w.Binary(1, *s.max);
  if (s.min) w.Binary(2, *s.min);
  if (s.null_count) w.I64(3, *s.null_count);
  if (s.distinct_count) w.I64(4, *s.distinct_count);
  if (s.max_value) w.Binary(5, *s.max_value);
  if (s.min_value) w.Binary(6, *s.min_value);
  if (s.is_max_value_exact) w.Bool(7, *s.is_max_value_exact);
  if (s.is_min_value_exact) w.Bool(8, *s.is_min_value_exact);
}

// TimeUnit is a union of empty structs: {id: {}}.
void EncodeTimeUnit(CompactWriter& w, int16_t id, TimeUnitKind unit) {
  w.BeginStruct(id);
  w.BeginStruct(static_cast<int16_t>(unit));
  w.End();
  w.End();
}

void EncodeLogicalType(CompactWriter& w, const LogicalType& t) {
  // The union holds exactly one member, whose field id is the kind.
  w.BeginStruct(static_cast<int16_t>(t.kind));
  switch (t.kind) {
    case LogicalType::DECIMAL:
      w.I32(1, t.decimal_scale);
      w.I32(2, t.decimal_precision);
      break;
    case LogicalType::TIME:
    case LogicalType::TIMESTAMP:
      w.Bool(1, t.is_adjusted_to_utc);
      EncodeTimeUnit(w, 2, t.unit);
      break;
    case LogicalType::INTEGER:
      w.I8(1, t.bit_width);
      w.Bool(2, t.is_signed);
      break;
    case LogicalType::VARIANT:
      if (t.variant_version) w.I8(1, *t.variant_version);
      break;
    default:
      break;  // every other member is an empty struct
  }
  w.End();
}

void EncodeSchemaElement(CompactWriter& w, const SchemaElement& e) {
  if (e.type) w.I32(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.I32(2, *e.type_length);
  if (e.repetition_type) w.I32(3, static_cast<int32_t>(*e.repetition_type));
  w.Binary(4, e.name);
  if (e.num_children) w.I32(5, *e.num_children);
  if (e.converted_type) w.I32(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.I32(7, *e.scale);
  if (e.precision) w.I32(8, *e.precision);
  if (e.field_id) w.I32(9, *e.field_id);
  if (e.logical_type && e.logical_type->kind != LogicalType::NONE) {
    w.BeginStruct(10);
    EncodeLogicalType(w, *e.logical_type);
    w.End();
  }
}

void EncodeKeyValues(CompactWriter& w, int16_t id, const std::vector<KeyValue>& kvs) {
  if (kvs.empty()) return;
  w.BeginList(id, CType::kStruct, static_cast<uint32_t>(kvs.size()));
  for (const KeyValue& kv : kvs) {
    w.BeginListStruct();
    w.Binary(1, kv.key);
    if (kv.value) w.Binary(2, *kv.value);
    w.End();
  }
}

void EncodeColumnMetaData(CompactWriter& w, const ColumnMetaData& m) {
  w.I32(1, static_cast<int32_t>(m.type));
  w.BeginList(2, CType::kI32, static_cast<uint32_t>(m.encodings.size()));
  for (Encoding e : m.encodings) w.ListI32(static_cast<int32_t>(e));
  w.BeginList(3, CType::kBinary, static_cast<uint32_t>(m.path_in_schema.size()));
  for (const std::string& p : m.path_in_schema) w.ListBinary(p);
  w.I32(4, static_cast<int32_t>(m.codec));
  w.I64(5, m.num_values);
  w.I64(6, m.total_uncompressed_size);
  w.I64(7, m.total_compressed_size);
  EncodeKeyValues(w, 8, m.key_value_metadata);
  w.I64(9, m.data_page_offset);
  if (m.index_page_offset) w.I64(10, *m.index_page_offset);
  if (m.dictionary_page_offset) w.I64(11, *m.dictionary_page_offset);
  if (m.statistics) {
    w.BeginStruct(12);
    EncodeStatistics(w, *m.statistics);
    w.End();
  }
  if (!m.encoding_stats.empty()) {
    w.BeginList(13, CType::kStruct, static_cast<uint32_t>(m.encoding_stats.size()));
    for (const PageEncodingStats& s : m.encoding_stats) {
      w.BeginListStruct();
      w.I32(1, static_cast<int32_t>(s.page_type));
      w.I32(2, static_cast<int32_t>(s.encoding));
      w.I32(3, s.count);
      w.End();
    }
  }
  if (m.bloom_filter_offset) w.I64(14, *m.bloom_filter_offset);
  if (m.bloom_filter_length) w.I32(15, *m.bloom_filter_length);
}

void EncodeColumnChunk(CompactWriter& w, const ColumnChunk& c) {
  if (c.file_path) w.Binary(1, *c.file_path);
  w.I64(2, c.file_offset);
  if (c.meta_data) {
    w.BeginStruct(3);
    EncodeColumnMetaData(w, *c.meta_data);
    w.End();
  }
  if (c.offset_index_offset) w.I64(4, *c.offset_index_offset);
  if (c.offset_index_length) w.I32(5, *c.offset_index_length);
  if (c.column_index_offset) w.I64(6, *c.column_index_offset);
  if (c.column_index_length) w.I32(7, *c.column_index_length);
}

void EncodeRowGroup(CompactWriter& w, const RowGroup& rg) {
  w.BeginList(1, CType::kStruct, static_cast<uint32_t>(rg.columns.size()));
  for (const ColumnChunk& c : rg.columns) {
    w.BeginListStruct();
    EncodeColumnChunk(w, c);
    w.End();
  }
  w.I64(2, rg.total_byte_size);
  w.I64(3, rg.num_rows);
  if (!rg.sorting_columns.empty()) {
    w.BeginList(4, CType::kStruct, static_cast<uint32_t>(rg.sorting_columns.size()));
    for (const SortingColumn& s : rg.sorting_columns) {
      w.BeginListStruct();
      w.I32(1, s.column_idx);
      w.Bool(2, s.descending);
      w.Bool(3, s.nulls_first);
      w.End();
    }
  }
  if (rg.file_offset) w.I64(5, *rg.file_offset);
  if (rg.total_compressed_size) w.I64(6, *rg.total_compressed_size);
  if (rg.ordinal) w.I16(7, *rg.ordinal);
}

}  // namespace

void EncodeFileMetaData(const FileMetaData& md, ByteBuffer* out) {
  CompactWriter w(out);
  w.I32(1, md.version);
  w.BeginList(2, CType::kStruct, static_cast<uint32_t>(md.schema.size()));
  for (const SchemaElement& e : md.schema) {
    w.BeginListStruct();
    EncodeSchemaElement(w, e);
    w.End();
  }
  w.I64(3, md.num_rows);
  w.BeginList(4, CType::kStruct, static_cast<uint32_t>(md.row_groups.size()));
  for (const RowGroup& rg : md.row_groups) {
    w.BeginListStruct();
    EncodeRowGroup(w, rg);
    w.End();
  }
  EncodeKeyValues(w, 5, md.key_value_metadata);
  if (md.created_by) w.Binary(6, *md.created_by);
  if (md.column_orders_type_defined) {
    // One ColumnOrder per leaf column (schema elements without children), each the union
    // member TYPE_ORDER (id 1), an empty TypeDefinedOrder struct.
    uint32_t leaves = 0;
    for (size_t i = 1; i < md.schema.size(); ++i) {
      if (!md.schema[i].num_children || *md.schema[i].num_children == 0) ++leaves;
    }
    w.BeginList(7, CType::kStruct, leaves);
    for (uint32_t i = 0; i < leaves; ++i) {
      w.BeginListStruct();
      w.BeginStruct(1);
      w.End();
      w.End();
    }
  }
  w.End();
}

void EncodePageHeader(const PageHeader& h, ByteBuffer* out) {
  CompactWriter w(out);
  w.I32(1, static_cast<int32_t>(h.type));
  w.I32(2, h.uncompressed_page_size);
  w.I32(3, h.compressed_page_size);
  if (h.crc) w.I32(4, *h.crc);
  if (h.data_page_header) {
    const DataPageHeader& d = *h.data_page_header;
    w.BeginStruct(5);
    w.I32(1, d.num_values);
    w.I32(2, static_cast<int32_t>(d.encoding));
    w.I32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.I32(4, static_cast<int32_t>(d.repetition_level_encoding));
    if (d.statistics) {
      w.BeginStruct(5);
      EncodeStatistics(w, *d.statistics);
      w.End();
    }
    w.End();
  }
  if (h.dictionary_page_header) {
    const DictionaryPageHeader& d = *h.dictionary_page_header;
    w.BeginStruct(7);
    w.I32(1, d.num_values);
    w.I32(2, static_cast<int32_t>(d.encoding));
    if (d.is_sorted) w.Bool(3, *d.is_sorted);
    w.End();
  }
  if (h.data_page_header_v2) {
    const DataPageHeaderV2& d = *h.data_page_header_v2;
    w.BeginStruct(8);
    w.I32(1, d.num_values);
    w.I32(2, d.num_nulls);
    w.I32(3, d.num_rows);
    w.I32(4, static_cast<int32_t>(d.encoding));
    w.I32(5, d.definition_levels_byte_length);
    w.I32(6, d.repetition_levels_byte_length);
    w.Bool(7, d.is_compressed);
    if (d.statistics) {
      w.BeginStruct(8);
      EncodeStatistics(w, *d.statistics);
      w.End();
    }
    w.End();
  }
  w.End();
}

void EncodeColumnIndex(const ColumnIndex& index, ByteBuffer* out) {
  CompactWriter w(out);
  w.BeginList(1, CType::kBoolTrue, static_cast<uint32_t>(index.null_pages.size()));
  for (bool b : index.null_pages) w.ListBool(b);
  w.BeginList(2, CType::kBinary, static_cast<uint32_t>(index.min_values.size()));
  for (const std::string& v : index.min_values) w.ListBinary(v);
  w.BeginList(3, CType::kBinary, static_cast<uint32_t>(index.max_values.size()));
  for (const std::string& v : index.max_values) w.ListBinary(v);
  w.I32(4, static_cast<int32_t>(index.boundary_order));
  if (index.null_counts) {
    w.BeginList(5, CType::kI64, static_cast<uint32_t>(index.null_counts->size()));
    for (int64_t n : *index.null_counts) w.ListI64(n);
  }
  w.End();
}

void EncodeOffsetIndex(const OffsetIndex& index, ByteBuffer* out) {
  CompactWriter w(out);
  w.BeginList(1, CType::kStruct, static_cast<uint32_t>(index.page_locations.size()));
  for (const PageLocation& p : index.page_locations) {
    w.BeginListStruct();
    w.I64(1, p.offset);
    w.I32(2, p.compressed_page_size);
    w.I64(3, p.first_row_index);
    w.End();
  }
  w.End();
}

}  // namespace tarn::parquet
