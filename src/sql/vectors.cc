#include "sql/vectors.h"

#include <cstring>
#include <string>

#include "sql/error_codes.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::sql {

namespace {

constexpr uint64_t kUuidSignBit = uint64_t{1} << 63;

uint64_t LoadBigEndian64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}
void StoreBigEndian64(uint64_t v, uint8_t* p) {
  for (int i = 7; i >= 0; --i) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

// DuckDB's decimal storage for a width: the integer type the unscaled value is kept in.
template <typename Fn>
void WithDecimalStorage(int width, Fn&& fn) {
  if (width <= 4) {
    fn(int16_t{});
  } else if (width <= 9) {
    fn(int32_t{});
  } else if (width <= 18) {
    fn(int64_t{});
  } else {
    fn(duckdb_hugeint{});
  }
}

int128 FromHuge(const duckdb_hugeint& h) {
  return static_cast<int128>(static_cast<uint128>(static_cast<uint64_t>(h.upper)) << 64 | h.lower);
}
duckdb_hugeint ToHuge(int128 v) {
  duckdb_hugeint h;
  h.lower = static_cast<uint64_t>(v);
  h.upper = static_cast<int64_t>(v >> 64);
  return h;
}

int64_t TimestampTzMicros(int64_t v, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return v * 1000000;
    case TimeUnit::kMilli:
      return v * 1000;
    case TimeUnit::kMicro:
      return v;
    case TimeUnit::kNano:
      return v >= 0 ? v / 1000 : -((-v + 999) / 1000);
  }
  return v;
}

void MarkNulls(const DuckDbApi& api, duckdb_vector vec, const Column& col, int64_t from,
               int64_t n) {
  if (col.validity.empty()) return;
  const uint8_t* valid = col.validity.data() + from;
  uint64_t* mask = nullptr;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) continue;
    if (!mask) {
      api.duckdb_vector_ensure_validity_writable(vec);
      mask = api.duckdb_vector_get_validity(vec);
    }
    mask[i >> 6] &= ~(uint64_t{1} << (i & 63));
  }
}

void WriteStrings(const DuckDbApi& api, duckdb_vector vec, const Column& col, int64_t from,
                  int64_t n) {
  const char* bytes = reinterpret_cast<const char*>(col.data.data());
  const int64_t* off = col.offsets.data() + from;
  for (int64_t i = 0; i < n; ++i) {
    if (!col.IsValid(from + i)) continue;
    api.duckdb_vector_assign_string_element_len(vec, i, bytes + off[i],
                                                static_cast<idx_t>(off[i + 1] - off[i]));
  }
}

}  // namespace

duckdb_logical_type DuckTypeOf(const DuckDbApi& api, const DataType& type) {
  auto simple = [&](duckdb_type t) { return api.duckdb_create_logical_type(t); };
  switch (type.id()) {
    case TypeId::kBoolean:
      return simple(DUCKDB_TYPE_BOOLEAN);
    case TypeId::kInt8:
      return simple(DUCKDB_TYPE_TINYINT);
    case TypeId::kInt16:
      return simple(DUCKDB_TYPE_SMALLINT);
    case TypeId::kInt32:
      return simple(DUCKDB_TYPE_INTEGER);
    case TypeId::kInt64:
      return simple(DUCKDB_TYPE_BIGINT);
    case TypeId::kUInt8:
      return simple(DUCKDB_TYPE_UTINYINT);
    case TypeId::kUInt16:
      return simple(DUCKDB_TYPE_USMALLINT);
    case TypeId::kUInt32:
      return simple(DUCKDB_TYPE_UINTEGER);
    case TypeId::kUInt64:
      return simple(DUCKDB_TYPE_UBIGINT);
    case TypeId::kFloat32:
      return simple(DUCKDB_TYPE_FLOAT);
    case TypeId::kFloat64:
      return simple(DUCKDB_TYPE_DOUBLE);
    case TypeId::kDecimal:
      return api.duckdb_create_decimal_type(static_cast<uint8_t>(type.precision()),
                                            static_cast<uint8_t>(type.scale()));
    case TypeId::kVarchar:
    case TypeId::kIpv4:
      return simple(DUCKDB_TYPE_VARCHAR);
    case TypeId::kJson: {
      duckdb_logical_type t = simple(DUCKDB_TYPE_VARCHAR);
      api.duckdb_logical_type_set_alias(t, "JSON");
      return t;
    }
    case TypeId::kBlob:
      return simple(DUCKDB_TYPE_BLOB);
    case TypeId::kDate:
      return simple(DUCKDB_TYPE_DATE);
    case TypeId::kTime:
      return simple(type.unit() == TimeUnit::kNano ? DUCKDB_TYPE_TIME_NS : DUCKDB_TYPE_TIME);
    case TypeId::kTimestamp:
      switch (type.unit()) {
        case TimeUnit::kSecond:
          return simple(DUCKDB_TYPE_TIMESTAMP_S);
        case TimeUnit::kMilli:
          return simple(DUCKDB_TYPE_TIMESTAMP_MS);
        case TimeUnit::kMicro:
          return simple(DUCKDB_TYPE_TIMESTAMP);
        case TimeUnit::kNano:
          return simple(DUCKDB_TYPE_TIMESTAMP_NS);
      }
      break;
    case TypeId::kTimestampTz:
      return simple(DUCKDB_TYPE_TIMESTAMP_TZ);
    case TypeId::kUuid:
      return simple(DUCKDB_TYPE_UUID);
    case TypeId::kArray: {
      duckdb_logical_type child = DuckTypeOf(api, type.element());
      duckdb_logical_type list = api.duckdb_create_list_type(child);
      api.duckdb_destroy_logical_type(&child);
      return list;
    }
    case TypeId::kStruct:  // TODO(issue 21): STRUCT and MAP as DuckDB's own types
    case TypeId::kMap:
      break;  // VARCHAR holding tarn's JSON rendering (WriteVector)
  }
  return simple(DUCKDB_TYPE_VARCHAR);
}

void WriteVector(const DuckDbApi& api, duckdb_vector vec, const Column& col, int64_t from,
                 int64_t n) {
  if (n <= 0) return;
  MarkNulls(api, vec, col, from, n);
  void* out = api.duckdb_vector_get_data(vec);
  const DataType& type = col.type;
  switch (type.id()) {
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
      WriteStrings(api, vec, col, from, n);
      return;
    case TypeId::kStruct:
    case TypeId::kMap: {
      std::string text;
      for (int64_t i = 0; i < n; ++i) {
        if (!col.IsValid(from + i)) continue;
        text.clear();
        AppendJsonValue(col, from + i, &text);
        api.duckdb_vector_assign_string_element_len(vec, i, text.data(), text.size());
      }
      return;
    }
    case TypeId::kIpv4: {
      std::string text;
      for (int64_t i = 0; i < n; ++i) {
        if (!col.IsValid(from + i)) continue;
        text.clear();
        AppendIpv4(col.Value<uint32_t>(from + i), &text);
        api.duckdb_vector_assign_string_element_len(vec, i, text.data(), text.size());
      }
      return;
    }
    case TypeId::kDecimal:
      WithDecimalStorage(type.precision(), [&](auto storage) {
        using T = decltype(storage);
        T* dst = static_cast<T*>(out);
        const uint8_t* src = col.data.data() + from * 16;
        for (int64_t i = 0; i < n; ++i) {
          int128 v;
          std::memcpy(&v, src + i * 16, 16);
          if constexpr (std::is_same_v<T, duckdb_hugeint>) {
            dst[i] = ToHuge(v);
          } else {
            dst[i] = static_cast<T>(v);
          }
        }
      });
      return;
    case TypeId::kTimestampTz: {
      auto* dst = static_cast<int64_t*>(out);
      if (type.unit() == TimeUnit::kMicro) {
        std::memcpy(dst, col.data.data() + from * 8, n * 8);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          dst[i] = TimestampTzMicros(col.Value<int64_t>(from + i), type.unit());
        }
      }
      return;
    }
    case TypeId::kUuid: {
      auto* dst = static_cast<duckdb_hugeint*>(out);
      const uint8_t* src = col.data.data() + from * 16;
      for (int64_t i = 0; i < n; ++i) {
        dst[i].upper = static_cast<int64_t>(LoadBigEndian64(src + i * 16) ^ kUuidSignBit);
        dst[i].lower = LoadBigEndian64(src + i * 16 + 8);
      }
      return;
    }
    case TypeId::kArray: {
      // A chunk's vectors are fresh (the list's child is empty) when the scan fills them.
      auto* entries = static_cast<duckdb_list_entry*>(out);
      const int64_t* off = col.offsets.data() + from;
      const int64_t first = off[0];
      const int64_t total = off[n] - first;
      if (api.duckdb_list_vector_reserve(vec, static_cast<idx_t>(total)) != DuckDBSuccess) return;
      for (int64_t i = 0; i < n; ++i) {
        entries[i].offset = static_cast<uint64_t>(off[i] - first);
        entries[i].length = static_cast<uint64_t>(off[i + 1] - off[i]);
      }
      WriteVector(api, api.duckdb_list_vector_get_child(vec), *col.child, first, total);
      if (api.duckdb_list_vector_set_size(vec, static_cast<idx_t>(total)) != DuckDBSuccess) return;
      return;
    }
    default: {
      // BOOLEAN (uint8 0/1 is DuckDB's bool), integers, floats, DATE (int32 days), TIME (TIME
      // or TIME_NS) and TIMESTAMP (int64 in the type's unit): the same bytes.
      const int width = type.PhysicalWidth();
      std::memcpy(out, col.data.data() + from * width, static_cast<size_t>(n) * width);
      return;
    }
  }
}

Result<DataType> TarnTypeOf(const DuckDbApi& api, duckdb_logical_type type,
                            std::string_view column) {
  duckdb_type id = api.duckdb_get_type_id(type);
  switch (id) {
    case DUCKDB_TYPE_BOOLEAN:
      return DataType::Boolean();
    case DUCKDB_TYPE_TINYINT:
      return DataType::Int8();
    case DUCKDB_TYPE_SMALLINT:
      return DataType::Int16();
    case DUCKDB_TYPE_INTEGER:
      return DataType::Int32();
    case DUCKDB_TYPE_BIGINT:
      return DataType::Int64();
    case DUCKDB_TYPE_UTINYINT:
      return DataType::UInt8();
    case DUCKDB_TYPE_USMALLINT:
      return DataType::UInt16();
    case DUCKDB_TYPE_UINTEGER:
      return DataType::UInt32();
    case DUCKDB_TYPE_UBIGINT:
      return DataType::UInt64();
    case DUCKDB_TYPE_FLOAT:
      return DataType::Float32();
    case DUCKDB_TYPE_DOUBLE:
      return DataType::Float64();
    case DUCKDB_TYPE_HUGEINT:
    case DUCKDB_TYPE_UHUGEINT:
      return DataType::Decimal(38, 0);
    case DUCKDB_TYPE_DECIMAL:
      return DataType::Decimal(api.duckdb_decimal_width(type), api.duckdb_decimal_scale(type));
    case DUCKDB_TYPE_VARCHAR: {
      char* alias = api.duckdb_logical_type_get_alias(type);
      bool json = alias && std::string_view(alias) == "JSON";
      if (alias) api.duckdb_free(alias);
      return json ? DataType::Json() : DataType::Varchar();
    }
    case DUCKDB_TYPE_ENUM:
      return DataType::Varchar();
    case DUCKDB_TYPE_BLOB:
      return DataType::Blob();
    case DUCKDB_TYPE_DATE:
      return DataType::Date();
    case DUCKDB_TYPE_TIME:
      return DataType::Time();
    case DUCKDB_TYPE_TIME_NS:
      return DataType::Time(TimeUnit::kNano);
    case DUCKDB_TYPE_TIMESTAMP_S:
      return DataType::Timestamp(TimeUnit::kSecond);
    case DUCKDB_TYPE_TIMESTAMP_MS:
      return DataType::Timestamp(TimeUnit::kMilli);
    case DUCKDB_TYPE_TIMESTAMP:
      return DataType::Timestamp(TimeUnit::kMicro);
    case DUCKDB_TYPE_TIMESTAMP_NS:
      return DataType::Timestamp(TimeUnit::kNano);
    case DUCKDB_TYPE_TIMESTAMP_TZ:
      return DataType::TimestampTz(TimeUnit::kMicro);
    case DUCKDB_TYPE_UUID:
      return DataType::Uuid();
    case DUCKDB_TYPE_LIST: {
      duckdb_logical_type child = api.duckdb_list_type_child_type(type);
      auto element = TarnTypeOf(api, child, column);
      api.duckdb_destroy_logical_type(&child);
      TARN_RETURN_NOT_OK(element.status());
      if (element->is_nested()) {
        return Status::Of(codes::kSqlUnsupportedType,
                          "column '" + std::string(column) +
                              "' is a list of lists, which tarn has no type for yet")
            .WithField("column", std::string(column));
      }
      return DataType::Array(*element);
    }
    default:
      break;
  }
  static const char* const kNames[] = {"INVALID",
                                       "BOOLEAN",
                                       "TINYINT",
                                       "SMALLINT",
                                       "INTEGER",
                                       "BIGINT",
                                       "UTINYINT",
                                       "USMALLINT",
                                       "UINTEGER",
                                       "UBIGINT",
                                       "FLOAT",
                                       "DOUBLE",
                                       "TIMESTAMP",
                                       "DATE",
                                       "TIME",
                                       "INTERVAL",
                                       "HUGEINT",
                                       "VARCHAR",
                                       "BLOB",
                                       "DECIMAL",
                                       "TIMESTAMP_S",
                                       "TIMESTAMP_MS",
                                       "TIMESTAMP_NS",
                                       "ENUM",
                                       "LIST",
                                       "STRUCT",
                                       "MAP",
                                       "UUID",
                                       "UNION",
                                       "BIT",
                                       "TIME WITH TIME ZONE",
                                       "TIMESTAMPTZ",
                                       "UHUGEINT",
                                       "ARRAY",
                                       "ANY",
                                       "BIGNUM",
                                       "NULL"};
  std::string name = id >= 0 && static_cast<size_t>(id) < std::size(kNames)
                         ? kNames[id]
                         : "type " + std::to_string(static_cast<int>(id));
  return Status::Of(codes::kSqlUnsupportedType,
                    "column '" + std::string(column) + "' is of DuckDB type " + name +
                        ", which tarn has no type for yet: cast it in the query (e.g. " +
                        std::string(column) + "::VARCHAR)")
      .WithField("column", std::string(column));
}

namespace {

bool RowValid(const uint64_t* mask, idx_t row) {
  return !mask || (mask[row >> 6] >> (row & 63)) & 1;
}

void AppendValidity(const uint64_t* mask, int64_t n, int64_t before, Column* out) {
  if (!mask) {
    if (!out->validity.empty()) out->validity.resize(before + n, 1);
    return;
  }
  bool any_null = false;
  for (int64_t i = 0; i < n && !any_null; ++i) any_null = !RowValid(mask, i);
  if (!any_null && out->validity.empty()) return;
  if (out->validity.empty()) out->validity.assign(before, 1);
  out->validity.resize(before + n);
  for (int64_t i = 0; i < n; ++i) out->validity[before + i] = RowValid(mask, i) ? 1 : 0;
}

void AppendStringRows(const duckdb_string_t* src, const uint64_t* mask, int64_t n, Column* out) {
  if (out->offsets.empty()) out->offsets.push_back(0);
  for (int64_t i = 0; i < n; ++i) {
    if (RowValid(mask, i)) {
      std::string_view v = StringOf(src[i]);
      out->data.insert(out->data.end(), v.begin(), v.end());
    }
    out->offsets.push_back(static_cast<int64_t>(out->data.size()));
  }
}

}  // namespace

std::string_view StringOf(const duckdb_string_t& s) {
  uint32_t len = s.value.inlined.length;
  if (len <= 12) return {s.value.inlined.inlined, len};
  return {s.value.pointer.ptr, len};
}

Status ReadVector(const DuckDbApi& api, duckdb_vector vec, duckdb_logical_type logical, int64_t n,
                  Column* out) {
  const int64_t before = out->length;
  if (n == 0) return Status::OK();
  const uint64_t* mask = api.duckdb_vector_get_validity(vec);
  const void* src = api.duckdb_vector_get_data(vec);
  const DataType& type = out->type;
  duckdb_type id = api.duckdb_get_type_id(logical);
  auto append_fixed = [&](const void* bytes, size_t width) {
    size_t at = out->data.size();
    out->data.resize(at + n * width);
    std::memcpy(out->data.data() + at, bytes, n * width);
  };
  switch (type.id()) {
    case TypeId::kVarchar:
    case TypeId::kJson:
    case TypeId::kBlob:
      if (id == DUCKDB_TYPE_ENUM) {
        duckdb_type storage = api.duckdb_enum_internal_type(logical);
        if (out->offsets.empty()) out->offsets.push_back(0);
        for (int64_t i = 0; i < n; ++i) {
          if (RowValid(mask, i)) {
            uint64_t code = storage == DUCKDB_TYPE_UTINYINT ? static_cast<const uint8_t*>(src)[i]
                            : storage == DUCKDB_TYPE_USMALLINT
                                ? static_cast<const uint16_t*>(src)[i]
                                : static_cast<const uint32_t*>(src)[i];
            char* v = api.duckdb_enum_dictionary_value(logical, code);
            std::string_view text(v ? v : "");
            out->data.insert(out->data.end(), text.begin(), text.end());
            if (v) api.duckdb_free(v);
          }
          out->offsets.push_back(static_cast<int64_t>(out->data.size()));
        }
      } else {
        AppendStringRows(static_cast<const duckdb_string_t*>(src), mask, n, out);
      }
      break;
    case TypeId::kDecimal: {
      size_t at = out->data.size();
      out->data.resize(at + n * 16);
      uint8_t* dst = out->data.data() + at;
      if (id == DUCKDB_TYPE_HUGEINT || id == DUCKDB_TYPE_UHUGEINT) {
        const auto* h = static_cast<const duckdb_hugeint*>(src);
        static const uint128 kLimit = [] {
          uint128 v = 1;
          for (int i = 0; i < 38; ++i) v *= 10;
          return v;
        }();
        for (int64_t i = 0; i < n; ++i) {
          int128 v = FromHuge(h[i]);
          bool unsigned_big = id == DUCKDB_TYPE_UHUGEINT && (h[i].upper < 0);
          uint128 magnitude = v < 0 ? static_cast<uint128>(-(v + 1)) + 1 : static_cast<uint128>(v);
          if (RowValid(mask, i) && (unsigned_big || magnitude >= kLimit)) {
            return Status::Of(codes::kSqlError,
                              "a HUGEINT value does not fit DECIMAL(38,0), tarn's widest "
                              "integer: cast it in the query (e.g. ::DOUBLE or ::VARCHAR)")
                .WithField("duckdb_error", "OUT_OF_RANGE");
          }
          std::memcpy(dst + i * 16, &v, 16);
        }
      } else {
        WithDecimalStorage(type.precision(), [&](auto storage) {
          using T = decltype(storage);
          const T* s = static_cast<const T*>(src);
          for (int64_t i = 0; i < n; ++i) {
            int128 v;
            if constexpr (std::is_same_v<T, duckdb_hugeint>) {
              v = FromHuge(s[i]);
            } else {
              v = s[i];
            }
            std::memcpy(dst + i * 16, &v, 16);
          }
        });
      }
      break;
    }
    case TypeId::kUuid: {
      size_t at = out->data.size();
      out->data.resize(at + n * 16);
      uint8_t* dst = out->data.data() + at;
      const auto* h = static_cast<const duckdb_hugeint*>(src);
      for (int64_t i = 0; i < n; ++i) {
        StoreBigEndian64(static_cast<uint64_t>(h[i].upper) ^ kUuidSignBit, dst + i * 16);
        StoreBigEndian64(h[i].lower, dst + i * 16 + 8);
      }
      break;
    }
    case TypeId::kArray: {
      const auto* entries = static_cast<const duckdb_list_entry*>(src);
      duckdb_vector child = api.duckdb_list_vector_get_child(vec);
      duckdb_logical_type child_type = api.duckdb_list_type_child_type(logical);
      if (out->offsets.empty()) out->offsets.push_back(0);
      if (!out->child) out->child = std::make_unique<Column>(type.element());
      // Usually the rows' lists lie one after another from the child's start: the child is
      // then copied once. Otherwise each row's elements are copied in row order.
      bool in_order = true;
      uint64_t end = 0;
      for (int64_t i = 0; i < n && in_order; ++i) {
        if (!RowValid(mask, i)) continue;
        in_order = entries[i].offset == end;
        end = entries[i].offset + entries[i].length;
      }
      Status st;
      const int64_t child_before = out->child->length;
      if (in_order) {
        st = ReadVector(api, child, child_type, static_cast<int64_t>(end), out->child.get());
        for (int64_t i = 0; i < n; ++i) {
          out->offsets.push_back(
              RowValid(mask, i)
                  ? child_before + static_cast<int64_t>(entries[i].offset + entries[i].length)
                  : out->offsets.back());
        }
      } else {
        Column all(type.element());
        st = ReadVector(api, child, child_type,
                        static_cast<int64_t>(api.duckdb_list_vector_get_size(vec)), &all);
        for (int64_t i = 0; i < n && st.ok(); ++i) {
          if (RowValid(mask, i)) {
            for (uint64_t k = 0; k < entries[i].length; ++k) {
              const int64_t r = static_cast<int64_t>(entries[i].offset + k);
              Column& c = *out->child;
              if (!all.IsValid(r)) {
                c.AppendNull();
              } else if (all.type.is_variable_width()) {
                c.AppendBytes(all.StringAt(r));
              } else {
                c.AppendFixedBytes(all.data.data() + r * all.type.PhysicalWidth(),
                                   all.type.PhysicalWidth());
              }
            }
          }
          out->offsets.push_back(out->child->length);
        }
      }
      api.duckdb_destroy_logical_type(&child_type);
      TARN_RETURN_NOT_OK(st);
      break;
    }
    case TypeId::kBoolean: {
      size_t at = out->data.size();
      out->data.resize(at + n);
      const auto* b = static_cast<const bool*>(src);
      for (int64_t i = 0; i < n; ++i) out->data[at + i] = b[i] ? 1 : 0;
      break;
    }
    default:
      append_fixed(src, static_cast<size_t>(type.PhysicalWidth()));
      break;
  }
  AppendValidity(mask, n, before, out);
  out->length = before + n;
  return Status::OK();
}

}  // namespace tarn::sql
