// Decoding of the Parquet footer (FileMetaData) and page headers from the Thrift compact
// protocol. Only the fields in metadata.h are kept; everything else is skipped.
#include <cstring>

#include "parquet/metadata.h"
#include "parquet/thrift_reader.h"

namespace tarn::parquet {
namespace {

// Returns false from the enclosing decoder when a read fails (the reader keeps the error).
#define TRY_READ(expr)         \
  do {                         \
    if (!(expr)) return false; \
  } while (false)

#define EXPECT_WIRE(want, name) TRY_READ(ExpectWireType(r, t, want, name))

// For an optional field tarn does not use: when its wire type is not `want`, the value is
// skipped (and the field left unset) instead of failing the whole struct. Other writers have
// been seen to write such fields with another type (bloom_filter_length as an i64); the fields
// tarn uses stay strict. Only for use directly in a `case` of the field switch.
#define SKIP_UNLESS_WIRE(want)     \
  if (!WireTypeMatches(t, want)) { \
    TRY_READ(r.SkipField(t));      \
    break;                         \
  }

// Iterates the fields of a struct: `body` sees `id` and `t` (wire type) and must consume the
// value (or call r.SkipField(t)).
#define FOR_EACH_FIELD(...)                                     \
  do {                                                          \
    int16_t last_id_ = 0;                                       \
    for (;;) {                                                  \
      int16_t id = 0;                                           \
      uint8_t t = 0;                                            \
      if (!r.ReadFieldHeader(&last_id_, &id, &t)) return false; \
      if (t == kThriftStop) break;                              \
      __VA_ARGS__                                               \
    }                                                           \
  } while (false)

bool Missing(ThriftReader& r, const char* field) {
  return r.Fail(std::string("required field ") + field + " missing");
}

bool ReadI32Field(ThriftReader& r, uint8_t t, const char* name, int32_t* out) {
  EXPECT_WIRE(kThriftI32, name);
  return r.ReadI32(out);
}

bool ReadI64Field(ThriftReader& r, uint8_t t, const char* name, int64_t* out) {
  EXPECT_WIRE(kThriftI64, name);
  return r.ReadI64(out);
}

bool ReadBoolField(ThriftReader& r, uint8_t t, const char* name, bool* out) {
  EXPECT_WIRE(kThriftTrue, name);
  *out = t == kThriftTrue;
  return true;
}

bool ReadStringField(ThriftReader& r, uint8_t t, const char* name, std::string* out) {
  EXPECT_WIRE(kThriftBinary, name);
  return r.ReadString(out);
}

template <typename E>
bool ReadEnumField(ThriftReader& r, uint8_t t, const char* name, E* out) {
  int32_t v = 0;
  TRY_READ(ReadI32Field(r, t, name, &v));
  *out = static_cast<E>(v);
  return true;
}

bool ReadListHeaderField(ThriftReader& r, uint8_t t, const char* name, uint8_t want_elem,
                         uint32_t* n) {
  EXPECT_WIRE(kThriftList, name);
  uint8_t et;
  TRY_READ(r.ReadListHeader(&et, n));
  if (*n > 0 && et != want_elem) {
    return r.Fail(std::string("list ") + name + " has element type " + std::to_string(et));
  }
  return true;
}

bool DecodeStatistics(ThriftReader& r, Statistics* s) {
  FOR_EACH_FIELD({
    switch (id) {
      case 1:
        TRY_READ(ReadStringField(r, t, "Statistics.max", &s->max.emplace()));
        break;
      case 2:
        TRY_READ(ReadStringField(r, t, "Statistics.min", &s->min.emplace()));
        break;
      case 3:
        TRY_READ(ReadI64Field(r, t, "Statistics.null_count", &s->null_count.emplace()));
        break;
      case 4:  // shown by `tarn parquet meta` only
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "Statistics.distinct_count", &s->distinct_count.emplace()));
        break;
      case 5:
        TRY_READ(ReadStringField(r, t, "Statistics.max_value", &s->max_value.emplace()));
        break;
      case 6:
        TRY_READ(ReadStringField(r, t, "Statistics.min_value", &s->min_value.emplace()));
        break;
      case 7:
        TRY_READ(
            ReadBoolField(r, t, "Statistics.is_max_value_exact", &s->is_max_value_exact.emplace()));
        break;
      case 8:
        TRY_READ(
            ReadBoolField(r, t, "Statistics.is_min_value_exact", &s->is_min_value_exact.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  return true;
}

bool DecodeKeyValue(ThriftReader& r, KeyValue* kv) {
  bool has_key = false;
  FOR_EACH_FIELD({
    switch (id) {
      case 1:
        TRY_READ(ReadStringField(r, t, "KeyValue.key", &kv->key));
        has_key = true;
        break;
      case 2:
        TRY_READ(ReadStringField(r, t, "KeyValue.value", &kv->value.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if (!has_key) return Missing(r, "KeyValue.key");
  return true;
}

bool DecodeKeyValues(ThriftReader& r, uint8_t t, const char* name, std::vector<KeyValue>* out) {
  uint32_t n = 0;
  TRY_READ(ReadListHeaderField(r, t, name, kThriftStruct, &n));
  out->resize(n);
  for (uint32_t i = 0; i < n; ++i) TRY_READ(DecodeKeyValue(r, &(*out)[i]));
  return true;
}

// TimeUnit union: the id of the member that is set.
bool DecodeTimeUnit(ThriftReader& r, TimeUnitKind* unit) {
  FOR_EACH_FIELD({
    if (t == kThriftStruct && id >= 1 && id <= 3) *unit = static_cast<TimeUnitKind>(id);
    TRY_READ(r.SkipField(t));
  });
  return true;
}

// TimeType and TimestampType share their shape.
bool DecodeTimeLike(ThriftReader& r, LogicalType* lt) {
  FOR_EACH_FIELD({
    switch (id) {
      case 1:
        TRY_READ(ReadBoolField(r, t, "isAdjustedToUTC", &lt->is_adjusted_to_utc));
        break;
      case 2:
        EXPECT_WIRE(kThriftStruct, "unit");
        TRY_READ(DecodeTimeUnit(r, &lt->unit));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  return true;
}

bool DecodeLogicalType(ThriftReader& r, LogicalType* lt) {
  FOR_EACH_FIELD({
    if (t != kThriftStruct) {
      TRY_READ(r.SkipField(t));
      continue;
    }
    switch (id) {
      case LogicalType::DECIMAL:
        lt->kind = LogicalType::DECIMAL;
        FOR_EACH_FIELD({
          switch (id) {
            case 1:
              TRY_READ(ReadI32Field(r, t, "DecimalType.scale", &lt->decimal_scale));
              break;
            case 2:
              TRY_READ(ReadI32Field(r, t, "DecimalType.precision", &lt->decimal_precision));
              break;
            default:
              TRY_READ(r.SkipField(t));
          }
        });
        break;
      case LogicalType::TIME:
      case LogicalType::TIMESTAMP:
        lt->kind = static_cast<LogicalType::Kind>(id);
        TRY_READ(DecodeTimeLike(r, lt));
        break;
      case LogicalType::INTEGER:
        lt->kind = LogicalType::INTEGER;
        FOR_EACH_FIELD({
          switch (id) {
            case 1:
              EXPECT_WIRE(kThriftByte, "IntType.bitWidth");
              TRY_READ(r.ReadByte(&lt->bit_width));
              break;
            case 2:
              TRY_READ(ReadBoolField(r, t, "IntType.isSigned", &lt->is_signed));
              break;
            default:
              TRY_READ(r.SkipField(t));
          }
        });
        break;
      case LogicalType::VARIANT:
        lt->kind = LogicalType::VARIANT;
        FOR_EACH_FIELD({
          if (id == 1) {
            EXPECT_WIRE(kThriftByte, "VariantType.specification_version");
            int8_t v = 0;
            TRY_READ(r.ReadByte(&v));
            lt->variant_version = v;
          } else {
            TRY_READ(r.SkipField(t));
          }
        });
        break;
      case LogicalType::STRING:
      case LogicalType::MAP:
      case LogicalType::LIST:
      case LogicalType::ENUM:
      case LogicalType::DATE:
      case LogicalType::UNKNOWN:
      case LogicalType::JSON:
      case LogicalType::BSON:
      case LogicalType::UUID:
      case LogicalType::FLOAT16:
        lt->kind = static_cast<LogicalType::Kind>(id);
        TRY_READ(r.SkipField(t));
        break;
      default:  // a logical type tarn does not know: treated as unannotated
        TRY_READ(r.SkipField(t));
    }
  });
  return true;
}

bool DecodeSchemaElement(ThriftReader& r, SchemaElement* e) {
  bool has_name = false;
  FOR_EACH_FIELD({
    switch (id) {
      case 1: {
        int32_t v = 0;
        TRY_READ(ReadI32Field(r, t, "SchemaElement.type", &v));
        if (v < 0 || v > 7) return r.Fail("unknown physical type " + std::to_string(v));
        e->type = static_cast<Type>(v);
        break;
      }
      case 2:
        TRY_READ(ReadI32Field(r, t, "SchemaElement.type_length", &e->type_length.emplace()));
        break;
      case 3:
        TRY_READ(
            ReadEnumField(r, t, "SchemaElement.repetition_type", &e->repetition_type.emplace()));
        break;
      case 4:
        TRY_READ(ReadStringField(r, t, "SchemaElement.name", &e->name));
        has_name = true;
        break;
      case 5:
        TRY_READ(ReadI32Field(r, t, "SchemaElement.num_children", &e->num_children.emplace()));
        break;
      case 6: {
        int32_t v = 0;
        TRY_READ(ReadI32Field(r, t, "SchemaElement.converted_type", &v));
        if (v >= 0 && v <= static_cast<int32_t>(ConvertedType::INTERVAL)) {
          e->converted_type = static_cast<ConvertedType>(v);
        }
        break;
      }
      case 7:
        TRY_READ(ReadI32Field(r, t, "SchemaElement.scale", &e->scale.emplace()));
        break;
      case 8:
        TRY_READ(ReadI32Field(r, t, "SchemaElement.precision", &e->precision.emplace()));
        break;
      case 9:
        TRY_READ(ReadI32Field(r, t, "SchemaElement.field_id", &e->field_id.emplace()));
        break;
      case 10: {
        EXPECT_WIRE(kThriftStruct, "SchemaElement.logicalType");
        LogicalType lt;
        TRY_READ(DecodeLogicalType(r, &lt));
        if (lt.kind != LogicalType::NONE) e->logical_type = lt;
        break;
      }
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if (!has_name) return Missing(r, "SchemaElement.name");
  return true;
}

bool DecodePageEncodingStats(ThriftReader& r, PageEncodingStats* s) {
  FOR_EACH_FIELD({
    switch (id) {
      case 1:
        TRY_READ(ReadEnumField(r, t, "PageEncodingStats.page_type", &s->page_type));
        break;
      case 2:
        TRY_READ(ReadEnumField(r, t, "PageEncodingStats.encoding", &s->encoding));
        break;
      case 3:
        TRY_READ(ReadI32Field(r, t, "PageEncodingStats.count", &s->count));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  return true;
}

bool DecodeColumnMetaData(ThriftReader& r, ColumnMetaData* m) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1: {
        int32_t v = 0;
        TRY_READ(ReadI32Field(r, t, "ColumnMetaData.type", &v));
        if (v < 0 || v > 7) return r.Fail("unknown physical type " + std::to_string(v));
        m->type = static_cast<Type>(v);
        break;
      }
      case 2: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "ColumnMetaData.encodings", kThriftI32, &n));
        m->encodings.resize(n);
        for (uint32_t i = 0; i < n; ++i) {
          int32_t v = 0;
          TRY_READ(r.ReadI32(&v));
          m->encodings[i] = static_cast<Encoding>(v);
        }
        break;
      }
      case 3: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "ColumnMetaData.path_in_schema", kThriftBinary, &n));
        m->path_in_schema.resize(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(r.ReadString(&m->path_in_schema[i]));
        break;
      }
      case 4:
        TRY_READ(ReadEnumField(r, t, "ColumnMetaData.codec", &m->codec));
        break;
      case 5:
        TRY_READ(ReadI64Field(r, t, "ColumnMetaData.num_values", &m->num_values));
        break;
      case 6:
        TRY_READ(ReadI64Field(r, t, "ColumnMetaData.total_uncompressed_size",
                              &m->total_uncompressed_size));
        break;
      case 7:
        TRY_READ(
            ReadI64Field(r, t, "ColumnMetaData.total_compressed_size", &m->total_compressed_size));
        break;
      // Fields 8, 10, 13, 14 and 15 are not used when reading: lenient about their type.
      case 8:
        SKIP_UNLESS_WIRE(kThriftList);
        TRY_READ(
            DecodeKeyValues(r, t, "ColumnMetaData.key_value_metadata", &m->key_value_metadata));
        break;
      case 9:
        TRY_READ(ReadI64Field(r, t, "ColumnMetaData.data_page_offset", &m->data_page_offset));
        break;
      case 10:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "ColumnMetaData.index_page_offset",
                              &m->index_page_offset.emplace()));
        break;
      case 11:
        TRY_READ(ReadI64Field(r, t, "ColumnMetaData.dictionary_page_offset",
                              &m->dictionary_page_offset.emplace()));
        break;
      case 12:
        EXPECT_WIRE(kThriftStruct, "ColumnMetaData.statistics");
        TRY_READ(DecodeStatistics(r, &m->statistics.emplace()));
        break;
      case 13: {
        SKIP_UNLESS_WIRE(kThriftList);
        uint32_t n = 0;
        uint8_t et = kThriftStruct;
        TRY_READ(r.ReadListHeader(&et, &n));
        if (n > 0 && et != kThriftStruct) {
          TRY_READ(r.SkipElements(et, n));
          break;
        }
        m->encoding_stats.resize(n);
        for (uint32_t i = 0; i < n; ++i) {
          TRY_READ(DecodePageEncodingStats(r, &m->encoding_stats[i]));
        }
        break;
      }
      case 14:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "ColumnMetaData.bloom_filter_offset",
                              &m->bloom_filter_offset.emplace()));
        break;
      case 15:
        SKIP_UNLESS_WIRE(kThriftI32);
        TRY_READ(ReadI32Field(r, t, "ColumnMetaData.bloom_filter_length",
                              &m->bloom_filter_length.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  constexpr uint32_t kRequired =
      (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 9);
  if ((seen & kRequired) != kRequired) return Missing(r, "of ColumnMetaData");
  return true;
}

bool DecodeColumnChunk(ThriftReader& r, ColumnChunk* c) {
  FOR_EACH_FIELD({
    switch (id) {
      case 1:
        TRY_READ(ReadStringField(r, t, "ColumnChunk.file_path", &c->file_path.emplace()));
        break;
      // Field 2 (deprecated) is not used, and 4..7 (the page index) only save work (a chunk
      // whose index is not usable is read whole): lenient.
      case 2:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "ColumnChunk.file_offset", &c->file_offset));
        break;
      case 3:
        EXPECT_WIRE(kThriftStruct, "ColumnChunk.meta_data");
        TRY_READ(DecodeColumnMetaData(r, &c->meta_data.emplace()));
        break;
      case 4:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "ColumnChunk.offset_index_offset",
                              &c->offset_index_offset.emplace()));
        break;
      case 5:
        SKIP_UNLESS_WIRE(kThriftI32);
        TRY_READ(ReadI32Field(r, t, "ColumnChunk.offset_index_length",
                              &c->offset_index_length.emplace()));
        break;
      case 6:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "ColumnChunk.column_index_offset",
                              &c->column_index_offset.emplace()));
        break;
      case 7:
        SKIP_UNLESS_WIRE(kThriftI32);
        TRY_READ(ReadI32Field(r, t, "ColumnChunk.column_index_length",
                              &c->column_index_length.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  return true;
}

bool DecodeSortingColumn(ThriftReader& r, SortingColumn* s) {
  FOR_EACH_FIELD({
    switch (id) {
      case 1:
        TRY_READ(ReadI32Field(r, t, "SortingColumn.column_idx", &s->column_idx));
        break;
      case 2:
        TRY_READ(ReadBoolField(r, t, "SortingColumn.descending", &s->descending));
        break;
      case 3:
        TRY_READ(ReadBoolField(r, t, "SortingColumn.nulls_first", &s->nulls_first));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  return true;
}

bool DecodeRowGroup(ThriftReader& r, RowGroup* g) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "RowGroup.columns", kThriftStruct, &n));
        g->columns.resize(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(DecodeColumnChunk(r, &g->columns[i]));
        break;
      }
      case 2:
        TRY_READ(ReadI64Field(r, t, "RowGroup.total_byte_size", &g->total_byte_size));
        break;
      case 3:
        TRY_READ(ReadI64Field(r, t, "RowGroup.num_rows", &g->num_rows));
        break;
      // Fields 4..7 are not used when reading: lenient about their type.
      case 4: {
        SKIP_UNLESS_WIRE(kThriftList);
        uint32_t n = 0;
        uint8_t et = kThriftStruct;
        TRY_READ(r.ReadListHeader(&et, &n));
        if (n > 0 && et != kThriftStruct) {
          TRY_READ(r.SkipElements(et, n));
          break;
        }
        g->sorting_columns.resize(n);
        for (uint32_t i = 0; i < n; ++i) {
          TRY_READ(DecodeSortingColumn(r, &g->sorting_columns[i]));
        }
        break;
      }
      case 5:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "RowGroup.file_offset", &g->file_offset.emplace()));
        break;
      case 6:
        SKIP_UNLESS_WIRE(kThriftI64);
        TRY_READ(ReadI64Field(r, t, "RowGroup.total_compressed_size",
                              &g->total_compressed_size.emplace()));
        break;
      case 7:
        SKIP_UNLESS_WIRE(kThriftI16);
        TRY_READ(r.ReadI16(&g->ordinal.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if ((seen & 0xe) != 0xe) return Missing(r, "of RowGroup");
  return true;
}

// ColumnOrder list: true when every entry is TYPE_ORDER (union member 1).
bool DecodeColumnOrders(ThriftReader& r, uint8_t t, bool* all_type_order) {
  uint32_t n = 0;
  TRY_READ(ReadListHeaderField(r, t, "FileMetaData.column_orders", kThriftStruct, &n));
  bool all = n > 0;
  for (uint32_t i = 0; i < n; ++i) {
    bool type_order = false;
    FOR_EACH_FIELD({
      if (id == 1) type_order = true;
      TRY_READ(r.SkipField(t));
    });
    all = all && type_order;
  }
  *all_type_order = all;
  return true;
}

bool DecodeDataPageHeader(ThriftReader& r, DataPageHeader* h) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1:
        TRY_READ(ReadI32Field(r, t, "DataPageHeader.num_values", &h->num_values));
        break;
      case 2:
        TRY_READ(ReadEnumField(r, t, "DataPageHeader.encoding", &h->encoding));
        break;
      case 3:
        TRY_READ(ReadEnumField(r, t, "DataPageHeader.definition_level_encoding",
                               &h->definition_level_encoding));
        break;
      case 4:
        TRY_READ(ReadEnumField(r, t, "DataPageHeader.repetition_level_encoding",
                               &h->repetition_level_encoding));
        break;
      case 5:  // page statistics are not used
        SKIP_UNLESS_WIRE(kThriftStruct);
        TRY_READ(DecodeStatistics(r, &h->statistics.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if ((seen & 0x6) != 0x6) return Missing(r, "of DataPageHeader");
  return true;
}

bool DecodeDictionaryPageHeader(ThriftReader& r, DictionaryPageHeader* h) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1:
        TRY_READ(ReadI32Field(r, t, "DictionaryPageHeader.num_values", &h->num_values));
        break;
      case 2:
        TRY_READ(ReadEnumField(r, t, "DictionaryPageHeader.encoding", &h->encoding));
        break;
      case 3:  // not used
        SKIP_UNLESS_WIRE(kThriftTrue);
        TRY_READ(ReadBoolField(r, t, "DictionaryPageHeader.is_sorted", &h->is_sorted.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if ((seen & 0x2) != 0x2) return Missing(r, "DictionaryPageHeader.num_values");
  return true;
}

bool DecodeDataPageHeaderV2(ThriftReader& r, DataPageHeaderV2* h) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1:
        TRY_READ(ReadI32Field(r, t, "DataPageHeaderV2.num_values", &h->num_values));
        break;
      case 2:
        TRY_READ(ReadI32Field(r, t, "DataPageHeaderV2.num_nulls", &h->num_nulls));
        break;
      case 3:
        TRY_READ(ReadI32Field(r, t, "DataPageHeaderV2.num_rows", &h->num_rows));
        break;
      case 4:
        TRY_READ(ReadEnumField(r, t, "DataPageHeaderV2.encoding", &h->encoding));
        break;
      case 5:
        TRY_READ(ReadI32Field(r, t, "DataPageHeaderV2.definition_levels_byte_length",
                              &h->definition_levels_byte_length));
        break;
      case 6:
        TRY_READ(ReadI32Field(r, t, "DataPageHeaderV2.repetition_levels_byte_length",
                              &h->repetition_levels_byte_length));
        break;
      case 7:
        TRY_READ(ReadBoolField(r, t, "DataPageHeaderV2.is_compressed", &h->is_compressed));
        break;
      case 8:  // page statistics are not used
        SKIP_UNLESS_WIRE(kThriftStruct);
        TRY_READ(DecodeStatistics(r, &h->statistics.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  constexpr uint32_t kRequired = 0x7e;  // fields 1..6
  if ((seen & kRequired) != kRequired) return Missing(r, "of DataPageHeaderV2");
  return true;
}

bool DecodeFileMetaDataBody(ThriftReader& r, FileMetaData& md) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1:
        TRY_READ(ReadI32Field(r, t, "FileMetaData.version", &md.version));
        break;
      case 2: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "FileMetaData.schema", kThriftStruct, &n));
        md.schema.resize(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(DecodeSchemaElement(r, &md.schema[i]));
        break;
      }
      case 3:
        TRY_READ(ReadI64Field(r, t, "FileMetaData.num_rows", &md.num_rows));
        break;
      case 4: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "FileMetaData.row_groups", kThriftStruct, &n));
        md.row_groups.resize(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(DecodeRowGroup(r, &md.row_groups[i]));
        break;
      }
      case 5:
        TRY_READ(DecodeKeyValues(r, t, "FileMetaData.key_value_metadata", &md.key_value_metadata));
        break;
      case 6:  // shown by `tarn parquet meta` only
        SKIP_UNLESS_WIRE(kThriftBinary);
        TRY_READ(ReadStringField(r, t, "FileMetaData.created_by", &md.created_by.emplace()));
        break;
      case 7:
        TRY_READ(DecodeColumnOrders(r, t, &md.column_orders_type_defined));
        break;
      case 8:
        md.encrypted = true;
        TRY_READ(r.SkipField(t));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if ((seen & 0x1e) != 0x1e) return Missing(r, "of FileMetaData");
  return true;
}

bool DecodePageHeaderBody(ThriftReader& r, PageHeader& h) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1:
        TRY_READ(ReadEnumField(r, t, "PageHeader.type", &h.type));
        break;
      case 2:
        TRY_READ(
            ReadI32Field(r, t, "PageHeader.uncompressed_page_size", &h.uncompressed_page_size));
        break;
      case 3:
        TRY_READ(ReadI32Field(r, t, "PageHeader.compressed_page_size", &h.compressed_page_size));
        break;
      case 4:  // CRCs are not checked
        SKIP_UNLESS_WIRE(kThriftI32);
        TRY_READ(ReadI32Field(r, t, "PageHeader.crc", &h.crc.emplace()));
        break;
      case 5:
        EXPECT_WIRE(kThriftStruct, "PageHeader.data_page_header");
        TRY_READ(DecodeDataPageHeader(r, &h.data_page_header.emplace()));
        break;
      case 7:
        EXPECT_WIRE(kThriftStruct, "PageHeader.dictionary_page_header");
        TRY_READ(DecodeDictionaryPageHeader(r, &h.dictionary_page_header.emplace()));
        break;
      case 8:
        EXPECT_WIRE(kThriftStruct, "PageHeader.data_page_header_v2");
        TRY_READ(DecodeDataPageHeaderV2(r, &h.data_page_header_v2.emplace()));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if ((seen & 0xe) != 0xe) return Missing(r, "of PageHeader");
  if (h.uncompressed_page_size < 0 || h.compressed_page_size < 0) {
    return r.Fail("negative page size in page header");
  }
  return true;
}

// ---- page index ----

bool DecodeColumnIndexBody(ThriftReader& r, ColumnIndex& ci) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1: {
        EXPECT_WIRE(kThriftList, "ColumnIndex.null_pages");
        uint8_t et = 0;
        uint32_t n = 0;
        TRY_READ(r.ReadListHeader(&et, &n));
        if (n > 0 && et != kThriftTrue && et != kThriftFalse) {
          return r.Fail("list ColumnIndex.null_pages has element type " + std::to_string(et));
        }
        ci.null_pages.resize(n);
        for (uint32_t i = 0; i < n; ++i) {
          // 1 is true; 2 (what the spec says) and 0 (what older libraries wrote) are false.
          int8_t b = 0;
          TRY_READ(r.ReadByte(&b));
          if (b < 0 || b > 2) return r.Fail("bool list element " + std::to_string(b));
          ci.null_pages[i] = b == 1;
        }
        break;
      }
      case 2:
      case 3: {
        const char* name = id == 2 ? "ColumnIndex.min_values" : "ColumnIndex.max_values";
        std::vector<std::string>& out = id == 2 ? ci.min_values : ci.max_values;
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, name, kThriftBinary, &n));
        out.resize(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(r.ReadString(&out[i]));
        break;
      }
      case 4: {
        int32_t v = 0;
        TRY_READ(ReadI32Field(r, t, "ColumnIndex.boundary_order", &v));
        // An order from the future promises nothing: treated as unordered.
        ci.boundary_order = v == 1   ? BoundaryOrder::ASCENDING
                            : v == 2 ? BoundaryOrder::DESCENDING
                                     : BoundaryOrder::UNORDERED;
        break;
      }
      case 5: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "ColumnIndex.null_counts", kThriftI64, &n));
        std::vector<int64_t>& out = ci.null_counts.emplace(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(r.ReadI64(&out[i]));
        break;
      }
      default:  // level histograms and nan_counts are not used
        TRY_READ(r.SkipField(t));
    }
  });
  constexpr uint32_t kRequired = 0x1e;  // fields 1..4
  if ((seen & kRequired) != kRequired) return Missing(r, "of ColumnIndex");
  return true;
}

bool DecodePageLocation(ThriftReader& r, PageLocation* p) {
  uint32_t seen = 0;
  FOR_EACH_FIELD({
    if (id > 0 && id < 32) seen |= 1u << id;
    switch (id) {
      case 1:
        TRY_READ(ReadI64Field(r, t, "PageLocation.offset", &p->offset));
        break;
      case 2:
        TRY_READ(ReadI32Field(r, t, "PageLocation.compressed_page_size", &p->compressed_page_size));
        break;
      case 3:
        TRY_READ(ReadI64Field(r, t, "PageLocation.first_row_index", &p->first_row_index));
        break;
      default:
        TRY_READ(r.SkipField(t));
    }
  });
  if ((seen & 0xe) != 0xe) return Missing(r, "of PageLocation");
  return true;
}

bool DecodeOffsetIndexBody(ThriftReader& r, OffsetIndex& oi) {
  bool has_locations = false;
  FOR_EACH_FIELD({
    switch (id) {
      case 1: {
        uint32_t n = 0;
        TRY_READ(ReadListHeaderField(r, t, "OffsetIndex.page_locations", kThriftStruct, &n));
        oi.page_locations.resize(n);
        for (uint32_t i = 0; i < n; ++i) TRY_READ(DecodePageLocation(r, &oi.page_locations[i]));
        has_locations = true;
        break;
      }
      default:  // unencoded_byte_array_data_bytes is not used
        TRY_READ(r.SkipField(t));
    }
  });
  if (!has_locations) return Missing(r, "OffsetIndex.page_locations");
  return true;
}

}  // namespace

Result<FileMetaData> DecodeFileMetaData(const uint8_t* data, size_t len) {
  ThriftReader r(data, len);
  FileMetaData md;
  if (!DecodeFileMetaDataBody(r, md)) return r.status();
  return md;
}

Result<PageHeader> DecodePageHeader(const uint8_t* data, size_t len, size_t* header_len) {
  ThriftReader r(data, len);
  PageHeader h;
  if (!DecodePageHeaderBody(r, h)) return r.status();
  *header_len = r.position();
  return h;
}

Result<ColumnIndex> DecodeColumnIndex(const uint8_t* data, size_t len) {
  ThriftReader r(data, len);
  ColumnIndex ci;
  if (!DecodeColumnIndexBody(r, ci)) return r.status();
  return ci;
}

Result<OffsetIndex> DecodeOffsetIndex(const uint8_t* data, size_t len) {
  ThriftReader r(data, len);
  OffsetIndex oi;
  if (!DecodeOffsetIndexBody(r, oi)) return r.status();
  return oi;
}

}  // namespace tarn::parquet
