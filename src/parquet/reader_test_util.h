// Test-only helpers for the Parquet reader tests: a minimal Thrift compact protocol writer
// (independent of tarn's writer) and builders that craft page headers and whole files, including
// malformed ones.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "parquet/decoding.h"
#include "parquet/metadata.h"
#include "parquet/thrift_reader.h"

namespace tarn::parquet::testing {

class CompactWriter {
 public:
  void Byte(uint8_t b) { out.push_back(static_cast<char>(b)); }
  void Raw(const std::string& s) { out += s; }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      Byte(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    Byte(static_cast<uint8_t>(v));
  }
  void ZigZag(int64_t v) {
    Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }

  void FieldHeader(int16_t id, uint8_t type) {
    int16_t& last = last_.back();
    int delta = id - last;
    if (delta > 0 && delta <= 15) {
      Byte(static_cast<uint8_t>(delta << 4 | type));
    } else {
      Byte(type);
      ZigZag(id);
    }
    last = id;
  }
  // Continues a struct whose earlier fields were written elsewhere.
  void SetLastFieldId(int16_t id) { last_.back() = id; }
  void BeginStruct(int16_t id) {
    FieldHeader(id, kThriftStruct);
    last_.push_back(0);
  }
  // A struct that is a list element (no field header).
  void BeginElement() { last_.push_back(0); }
  void EndStruct() {
    Byte(kThriftStop);
    last_.pop_back();
  }
  void I32(int16_t id, int32_t v) {
    FieldHeader(id, kThriftI32);
    ZigZag(v);
  }
  void I64(int16_t id, int64_t v) {
    FieldHeader(id, kThriftI64);
    ZigZag(v);
  }
  void Bool(int16_t id, bool v) { FieldHeader(id, v ? kThriftTrue : kThriftFalse); }
  void Binary(int16_t id, const std::string& s) {
    FieldHeader(id, kThriftBinary);
    Varint(s.size());
    out += s;
  }
  void ListHeader(uint8_t elem_type, uint32_t n) {
    if (n < 15) {
      Byte(static_cast<uint8_t>(n << 4 | elem_type));
    } else {
      Byte(static_cast<uint8_t>(0xf0 | elem_type));
      Varint(n);
    }
  }
  void BeginList(int16_t id, uint8_t elem_type, uint32_t n) {
    FieldHeader(id, kThriftList);
    ListHeader(elem_type, n);
  }

  std::string out;

 private:
  std::vector<int16_t> last_{0};
};

inline void EncodeStatisticsFields(CompactWriter& w, const Statistics& s) {
  if (s.max) w.Binary(1, *s.max);
  if (s.min) w.Binary(2, *s.min);
  if (s.null_count) w.I64(3, *s.null_count);
  if (s.distinct_count) w.I64(4, *s.distinct_count);
  if (s.max_value) w.Binary(5, *s.max_value);
  if (s.min_value) w.Binary(6, *s.min_value);
}

inline void EncodeLogicalType(CompactWriter& w, const LogicalType& lt) {
  w.BeginStruct(10);
  w.BeginStruct(static_cast<int16_t>(lt.kind));
  switch (lt.kind) {
    case LogicalType::DECIMAL:
      w.I32(1, lt.decimal_scale);
      w.I32(2, lt.decimal_precision);
      break;
    case LogicalType::TIME:
    case LogicalType::TIMESTAMP:
      w.Bool(1, lt.is_adjusted_to_utc);
      w.BeginStruct(2);
      w.BeginStruct(static_cast<int16_t>(lt.unit));
      w.EndStruct();
      w.EndStruct();
      break;
    case LogicalType::INTEGER:
      w.FieldHeader(1, kThriftByte);
      w.Byte(static_cast<uint8_t>(lt.bit_width));
      w.Bool(2, lt.is_signed);
      break;
    default:
      break;
  }
  w.EndStruct();
  w.EndStruct();
}

inline void EncodeSchemaElement(CompactWriter& w, const SchemaElement& e) {
  w.BeginElement();
  if (e.type) w.I32(1, static_cast<int32_t>(*e.type));
  if (e.type_length) w.I32(2, *e.type_length);
  if (e.repetition_type) w.I32(3, static_cast<int32_t>(*e.repetition_type));
  w.Binary(4, e.name);
  if (e.num_children) w.I32(5, *e.num_children);
  if (e.converted_type) w.I32(6, static_cast<int32_t>(*e.converted_type));
  if (e.scale) w.I32(7, *e.scale);
  if (e.precision) w.I32(8, *e.precision);
  if (e.field_id) w.I32(9, *e.field_id);
  if (e.logical_type) EncodeLogicalType(w, *e.logical_type);
  w.EndStruct();
}

inline std::string EncodeMetaData(const FileMetaData& md) {
  CompactWriter w;
  w.I32(1, md.version);
  w.BeginList(2, kThriftStruct, static_cast<uint32_t>(md.schema.size()));
  for (const auto& e : md.schema) EncodeSchemaElement(w, e);
  w.I64(3, md.num_rows);
  w.BeginList(4, kThriftStruct, static_cast<uint32_t>(md.row_groups.size()));
  for (const auto& rg : md.row_groups) {
    w.BeginElement();
    w.BeginList(1, kThriftStruct, static_cast<uint32_t>(rg.columns.size()));
    for (const auto& cc : rg.columns) {
      w.BeginElement();
      w.I64(2, cc.file_offset);
      if (cc.meta_data) {
        const ColumnMetaData& m = *cc.meta_data;
        w.BeginStruct(3);
        w.I32(1, static_cast<int32_t>(m.type));
        w.BeginList(2, kThriftI32, static_cast<uint32_t>(m.encodings.size()));
        for (auto e : m.encodings) w.ZigZag(static_cast<int32_t>(e));
        w.BeginList(3, kThriftBinary, static_cast<uint32_t>(m.path_in_schema.size()));
        for (const auto& p : m.path_in_schema) {
          w.Varint(p.size());
          w.Raw(p);
        }
        w.I32(4, static_cast<int32_t>(m.codec));
        w.I64(5, m.num_values);
        w.I64(6, m.total_uncompressed_size);
        w.I64(7, m.total_compressed_size);
        w.I64(9, m.data_page_offset);
        if (m.dictionary_page_offset) w.I64(11, *m.dictionary_page_offset);
        if (m.statistics) {
          w.BeginStruct(12);
          EncodeStatisticsFields(w, *m.statistics);
          w.EndStruct();
        }
        w.EndStruct();
      }
      w.EndStruct();
    }
    w.I64(2, rg.total_byte_size);
    w.I64(3, rg.num_rows);
    w.EndStruct();
  }
  if (!md.key_value_metadata.empty()) {
    w.BeginList(5, kThriftStruct, static_cast<uint32_t>(md.key_value_metadata.size()));
    for (const auto& kv : md.key_value_metadata) {
      w.BeginElement();
      w.Binary(1, kv.key);
      if (kv.value) w.Binary(2, *kv.value);
      w.EndStruct();
    }
  }
  if (md.created_by) w.Binary(6, *md.created_by);
  w.Byte(kThriftStop);
  return w.out;
}

inline std::string EncodePage(const PageHeader& h, const std::string& body) {
  CompactWriter w;
  w.I32(1, static_cast<int32_t>(h.type));
  w.I32(2, h.uncompressed_page_size);
  w.I32(3, h.compressed_page_size);
  if (h.data_page_header) {
    const auto& d = *h.data_page_header;
    w.BeginStruct(5);
    w.I32(1, d.num_values);
    w.I32(2, static_cast<int32_t>(d.encoding));
    w.I32(3, static_cast<int32_t>(d.definition_level_encoding));
    w.I32(4, static_cast<int32_t>(d.repetition_level_encoding));
    w.EndStruct();
  }
  if (h.dictionary_page_header) {
    const auto& d = *h.dictionary_page_header;
    w.BeginStruct(7);
    w.I32(1, d.num_values);
    w.I32(2, static_cast<int32_t>(d.encoding));
    w.EndStruct();
  }
  if (h.data_page_header_v2) {
    const auto& d = *h.data_page_header_v2;
    w.BeginStruct(8);
    w.I32(1, d.num_values);
    w.I32(2, d.num_nulls);
    w.I32(3, d.num_rows);
    w.I32(4, static_cast<int32_t>(d.encoding));
    w.I32(5, d.definition_levels_byte_length);
    w.I32(6, d.repetition_levels_byte_length);
    w.Bool(7, d.is_compressed);
    w.EndStruct();
  }
  w.Byte(kThriftStop);
  return w.out + body;
}

// An uncompressed data page v1 with the given sections (levels already length-prefixed).
inline std::string DataPageV1(int32_t num_values, Encoding encoding, const std::string& body,
                              Encoding level_encoding = Encoding::RLE) {
  PageHeader h;
  h.type = PageType::DATA_PAGE;
  h.uncompressed_page_size = h.compressed_page_size = static_cast<int32_t>(body.size());
  DataPageHeader d;
  d.num_values = num_values;
  d.encoding = encoding;
  d.definition_level_encoding = level_encoding;
  d.repetition_level_encoding = level_encoding;
  h.data_page_header = d;
  return EncodePage(h, body);
}

inline std::string DictionaryPage(int32_t num_values, const std::string& body) {
  PageHeader h;
  h.type = PageType::DICTIONARY_PAGE;
  h.uncompressed_page_size = h.compressed_page_size = static_cast<int32_t>(body.size());
  DictionaryPageHeader d;
  d.num_values = num_values;
  d.encoding = Encoding::PLAIN;
  h.dictionary_page_header = d;
  return EncodePage(h, body);
}

// RLE/bit-packed hybrid levels with the v1 4-byte length prefix.
inline std::string Prefixed(const std::string& s) {
  uint32_t n = static_cast<uint32_t>(s.size());
  std::string out(4, '\0');
  std::memcpy(out.data(), &n, 4);
  return out + s;
}

// One RLE run of `count` copies of `value` (value in one byte).
inline std::string RleRun(uint32_t count, uint8_t value) {
  CompactWriter w;
  w.Varint(static_cast<uint64_t>(count) << 1);
  w.Byte(value);
  return w.out;
}

template <typename T>
std::string PlainValues(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

inline std::string PlainByteArrays(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += Prefixed(x);
  return s;
}

// One column chunk of a crafted file: its schema leaf path, physical type, and pages.
struct ChunkSpec {
  std::vector<std::string> path;
  Type type = Type::INT32;
  int64_t num_values = 0;
  std::string pages;
  Codec codec = Codec::UNCOMPRESSED;
};

// Builds a whole file: "PAR1", the chunks of each row group, the footer, its length, "PAR1".
inline std::string BuildFile(const std::vector<SchemaElement>& schema,
                             const std::vector<std::vector<ChunkSpec>>& row_groups,
                             const std::vector<int64_t>& rows, std::vector<KeyValue> kv = {}) {
  std::string file = "PAR1";
  FileMetaData md;
  md.version = 1;
  md.schema = schema;
  md.key_value_metadata = std::move(kv);
  for (size_t g = 0; g < row_groups.size(); ++g) {
    RowGroup rg;
    rg.num_rows = rows[g];
    md.num_rows += rows[g];
    for (const auto& c : row_groups[g]) {
      ColumnChunk cc;
      ColumnMetaData m;
      m.type = c.type;
      m.encodings = {Encoding::PLAIN, Encoding::RLE};
      m.path_in_schema = c.path;
      m.codec = c.codec;
      m.num_values = c.num_values;
      m.total_uncompressed_size = m.total_compressed_size = static_cast<int64_t>(c.pages.size());
      m.data_page_offset = static_cast<int64_t>(file.size());
      cc.file_offset = m.data_page_offset;
      cc.meta_data = m;
      file += c.pages;
      rg.columns.push_back(cc);
      rg.total_byte_size += static_cast<int64_t>(c.pages.size());
    }
    md.row_groups.push_back(rg);
  }
  std::string footer = EncodeMetaData(md);
  uint32_t n = static_cast<uint32_t>(footer.size());
  file += footer;
  file.append(reinterpret_cast<const char*>(&n), 4);
  file += "PAR1";
  return file;
}

inline SchemaElement Root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

inline SchemaElement Leaf(const std::string& name, Type type, Repetition rep) {
  SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = rep;
  return e;
}

inline SchemaElement Group(const std::string& name, int children, Repetition rep) {
  SchemaElement e;
  e.name = name;
  e.num_children = children;
  e.repetition_type = rep;
  return e;
}

// Reference LSB-first packer (as in the RLE/bit-packed hybrid), one bit at a time.
inline std::vector<uint8_t> PackLsb(const std::vector<uint64_t>& values, int width) {
  std::vector<uint8_t> out((values.size() * width + 7) / 8, 0);
  size_t bit = 0;
  for (uint64_t v : values) {
    for (int b = 0; b < width; ++b, ++bit) {
      if ((v >> b) & 1) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  return out;
}

// The values as one bit-packed run of the RLE/bit-packed hybrid (padded to whole groups).
inline std::string BitPackedRun(std::vector<uint64_t> values, int width) {
  CompactWriter w;
  const size_t groups = (values.size() + 7) / 8;
  values.resize(groups * 8, 0);
  w.Varint((groups << 1) | 1);
  for (uint8_t b : PackLsb(values, width)) w.Byte(b);
  return w.out;
}

// Reference DELTA_BINARY_PACKED encoder (blocks of `block` values in `minis` miniblocks).
template <typename T>
std::vector<uint8_t> EncodeDbp(const std::vector<T>& v, int block = 128, int minis = 4) {
  using U = std::make_unsigned_t<T>;
  CompactWriter w;
  w.Varint(block);
  w.Varint(minis);
  w.Varint(v.size());
  w.ZigZag(v.empty() ? 0 : static_cast<int64_t>(v[0]));
  const int per_mini = block / minis;
  for (size_t i = 1; i < v.size(); i += block) {
    const size_t n = std::min<size_t>(block, v.size() - i);
    std::vector<T> deltas(n);
    for (size_t j = 0; j < n; ++j) {
      deltas[j] = static_cast<T>(static_cast<U>(v[i + j]) - static_cast<U>(v[i + j - 1]));
    }
    T min_delta = *std::min_element(deltas.begin(), deltas.end());
    w.ZigZag(static_cast<int64_t>(min_delta));
    std::vector<int> widths(minis, 0);
    std::vector<std::vector<uint64_t>> rel(minis);
    for (int m = 0; m < minis; ++m) {
      if (static_cast<size_t>(m * per_mini) >= n) continue;
      uint64_t mx = 0;
      for (int k = 0; k < per_mini; ++k) {
        size_t j = m * per_mini + k;
        uint64_t r =
            j < n ? static_cast<U>(static_cast<U>(deltas[j]) - static_cast<U>(min_delta)) : 0;
        rel[m].push_back(r);
        mx = std::max(mx, r);
      }
      widths[m] = BitWidthOf(mx);
    }
    for (int m = 0; m < minis; ++m) w.Byte(static_cast<uint8_t>(widths[m]));
    for (int m = 0; m < minis; ++m) {
      if (rel[m].empty()) continue;
      for (uint8_t b : PackLsb(rel[m], widths[m])) w.Byte(b);
    }
  }
  return std::vector<uint8_t>(w.out.begin(), w.out.end());
}

inline std::string ToString(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}

}  // namespace tarn::parquet::testing
