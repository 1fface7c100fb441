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

// Owns a logical type the C API returned (destroyed at scope end).
class OwnedType {
 public:
  OwnedType(const DuckDbApi& api, duckdb_logical_type type) : api_(&api), type_(type) {}
  OwnedType(OwnedType&& o) noexcept : api_(o.api_), type_(o.type_) { o.type_ = nullptr; }
  OwnedType(const OwnedType&) = delete;
  OwnedType& operator=(const OwnedType&) = delete;
  OwnedType& operator=(OwnedType&&) = delete;
  ~OwnedType() {
    if (type_) api_->duckdb_destroy_logical_type(&type_);
  }
  duckdb_logical_type get() const { return type_; }

 private:
  const DuckDbApi* api_;
  duckdb_logical_type type_;
};

// Marks row `row` of `vec` (of tarn type `type`) null, and, for a STRUCT, the row of every
// member: DuckDB expects a null struct to hold nulls.
void SetNullDeep(const DuckDbApi& api, duckdb_vector vec, const DataType& type, int64_t row) {
  api.duckdb_vector_ensure_validity_writable(vec);
  uint64_t* mask = api.duckdb_vector_get_validity(vec);
  mask[row >> 6] &= ~(uint64_t{1} << (row & 63));
  if (type.id() != TypeId::kStruct) return;
  const std::vector<Field>& members = type.children();
  for (size_t k = 0; k < members.size(); ++k) {
    SetNullDeep(api, api.duckdb_struct_vector_get_child(vec, k), members[k].type, row);
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
    case TypeId::kJson:
    case TypeId::kVariant: {
      // The DuckDB tarn loads (1.4) has no VARIANT in its C API: a VARIANT is its JSON text.
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
    case TypeId::kStruct: {
      std::vector<duckdb_logical_type> types;
      std::vector<const char*> names;
      for (const Field& m : type.children()) {
        types.push_back(DuckTypeOf(api, m.type));
        names.push_back(m.name.c_str());
      }
      duckdb_logical_type t = api.duckdb_create_struct_type(types.data(), names.data(),
                                                            static_cast<idx_t>(types.size()));
      for (duckdb_logical_type& m : types) api.duckdb_destroy_logical_type(&m);
      return t;
    }
    case TypeId::kMap: {
      duckdb_logical_type key = DuckTypeOf(api, type.key_field().type);
      duckdb_logical_type value = DuckTypeOf(api, type.value_field().type);
      duckdb_logical_type map = api.duckdb_create_map_type(key, value);
      api.duckdb_destroy_logical_type(&key);
      api.duckdb_destroy_logical_type(&value);
      return map;
    }
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
    case TypeId::kIpv4:
    case TypeId::kVariant: {
      std::string text;
      for (int64_t i = 0; i < n; ++i) {
        if (!col.IsValid(from + i)) continue;
        text.clear();
        AppendValueText(col, from + i, &text);  // IPV4's dotted quad, a VARIANT's JSON
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
    case TypeId::kArray:
    case TypeId::kMap: {
      // A chunk's vectors are fresh (the list's child is empty) when the scan fills them. A
      // MAP is a list of STRUCT(key, value).
      auto* entries = static_cast<duckdb_list_entry*>(out);
      const int64_t* off = col.offsets.data() + from;
      const int64_t first = off[0];
      const int64_t total = off[n] - first;
      if (api.duckdb_list_vector_reserve(vec, static_cast<idx_t>(total)) != DuckDBSuccess) return;
      for (int64_t i = 0; i < n; ++i) {
        entries[i].offset = static_cast<uint64_t>(off[i] - first);
        entries[i].length = static_cast<uint64_t>(off[i + 1] - off[i]);
      }
      duckdb_vector child = api.duckdb_list_vector_get_child(vec);
      if (type.id() == TypeId::kArray) {
        WriteVector(api, child, *col.child, first, total);
      } else {
        WriteVector(api, api.duckdb_struct_vector_get_child(child, 0), col.members[0], first,
                    total);
        WriteVector(api, api.duckdb_struct_vector_get_child(child, 1), col.members[1], first,
                    total);
      }
      if (api.duckdb_list_vector_set_size(vec, static_cast<idx_t>(total)) != DuckDBSuccess) return;
      return;
    }
    case TypeId::kStruct: {
      const std::vector<Field>& members = type.children();
      for (size_t k = 0; k < members.size(); ++k) {
        WriteVector(api, api.duckdb_struct_vector_get_child(vec, k), col.members[k], from, n);
      }
      if (col.validity.empty()) return;
      for (int64_t i = 0; i < n; ++i) {
        if (col.IsValid(from + i)) continue;
        for (size_t k = 0; k < members.size(); ++k) {
          SetNullDeep(api, api.duckdb_struct_vector_get_child(vec, k), members[k].type, i);
        }
      }
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

namespace {

// TarnTypeOf for the value at `path` of result column `column` (the column itself, or a nested
// field of it: "s.a", "l[]", "m.key").
Result<DataType> TarnTypeAt(const DuckDbApi& api, duckdb_logical_type type, std::string_view column,
                            const std::string& path) {
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
      OwnedType child(api, api.duckdb_list_type_child_type(type));
      TARN_ASSIGN_OR_RETURN(DataType element, TarnTypeAt(api, child.get(), column, path + "[]"));
      return DataType::Array(std::move(element));
    }
    case DUCKDB_TYPE_STRUCT: {
      const idx_t count = api.duckdb_struct_type_child_count(type);
      std::vector<Field> members;
      members.reserve(count);
      for (idx_t k = 0; k < count; ++k) {
        Field f;
        char* name = api.duckdb_struct_type_child_name(type, k);
        f.name = name ? name : "";
        if (name) api.duckdb_free(name);
        // An unnamed struct (ROW(1, 2), (1, 2)): its members by position, as v1, v2 ...
        if (f.name.empty()) f.name = "v" + std::to_string(k + 1);
        OwnedType member(api, api.duckdb_struct_type_child_type(type, k));
        TARN_ASSIGN_OR_RETURN(f.type, TarnTypeAt(api, member.get(), column, path + "." + f.name));
        members.push_back(std::move(f));
      }
      return DataType::Struct(std::move(members));
    }
    case DUCKDB_TYPE_MAP: {
      OwnedType key_type(api, api.duckdb_map_type_key_type(type));
      OwnedType value_type(api, api.duckdb_map_type_value_type(type));
      TARN_ASSIGN_OR_RETURN(DataType key, TarnTypeAt(api, key_type.get(), column, path + ".key"));
      TARN_ASSIGN_OR_RETURN(DataType value,
                            TarnTypeAt(api, value_type.get(), column, path + ".value"));
      return DataType::Map(std::move(key), std::move(value));
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
  const std::string where =
      path == column ? "column '" + std::string(column) + "' is of"
                     : "column '" + std::string(column) + "' holds at " + path + " a value of";
  return Status::Of(codes::kSqlUnsupportedType,
                    where + " DuckDB type " + name +
                        ", which tarn has no type for yet: cast it in the query (e.g. " +
                        std::string(column) + "::VARCHAR)")
      .WithField("column", std::string(column));
}

}  // namespace

Result<DataType> TarnTypeOf(const DuckDbApi& api, duckdb_logical_type type,
                            std::string_view column) {
  return TarnTypeAt(api, type, column, std::string(column));
}

namespace {

bool RowValid(const uint64_t* mask, idx_t row) {
  return !mask || (mask[row >> 6] >> (row & 63)) & 1;
}

// Appends the validity of rows [from, from + n) of a vector to `out` (which held `before` rows).
void AppendValidity(const uint64_t* mask, int64_t from, int64_t n, int64_t before, Column* out) {
  auto valid = [&](int64_t i) { return RowValid(mask, static_cast<idx_t>(from + i)); };
  if (!mask) {
    if (!out->validity.empty()) out->validity.resize(before + n, 1);
    return;
  }
  bool any_null = false;
  for (int64_t i = 0; i < n && !any_null; ++i) any_null = !valid(i);
  if (!any_null && out->validity.empty()) return;
  if (out->validity.empty()) out->validity.assign(before, 1);
  out->validity.resize(before + n);
  for (int64_t i = 0; i < n; ++i) out->validity[before + i] = valid(i) ? 1 : 0;
}

void AppendStringRows(const duckdb_string_t* src, const uint64_t* mask, int64_t from, int64_t n,
                      Column* out) {
  if (out->offsets.empty()) out->offsets.push_back(0);
  for (int64_t i = 0; i < n; ++i) {
    if (RowValid(mask, static_cast<idx_t>(from + i))) {
      std::string_view v = StringOf(src[from + i]);
      out->data.insert(out->data.end(), v.begin(), v.end());
    }
    out->offsets.push_back(static_cast<int64_t>(out->data.size()));
  }
}

// Appends rows [from, from + n) of `vec` (of `logical`, as TarnTypeOf mapped it to out->type)
// to `out`. Nested vectors recurse: a list's or map's elements are read in runs of rows whose
// elements follow one another in the child vector (usually one run), a struct's members in runs
// of valid rows (a null struct row appends a null to every member).
Status ReadRows(const DuckDbApi& api, duckdb_vector vec, duckdb_logical_type logical, int64_t from,
                int64_t n, Column* out) {
  const int64_t before = out->length;
  if (n == 0) return Status::OK();
  const uint64_t* mask = api.duckdb_vector_get_validity(vec);
  auto valid = [&](int64_t i) { return RowValid(mask, static_cast<idx_t>(from + i)); };
  const void* data = api.duckdb_vector_get_data(vec);
  const DataType& type = out->type;
  duckdb_type id = api.duckdb_get_type_id(logical);
  switch (type.id()) {
    case TypeId::kVarchar:
    case TypeId::kJson:
    case TypeId::kBlob:
      if (id == DUCKDB_TYPE_ENUM) {
        duckdb_type storage = api.duckdb_enum_internal_type(logical);
        if (out->offsets.empty()) out->offsets.push_back(0);
        for (int64_t i = 0; i < n; ++i) {
          if (valid(i)) {
            const int64_t r = from + i;
            uint64_t code = storage == DUCKDB_TYPE_UTINYINT ? static_cast<const uint8_t*>(data)[r]
                            : storage == DUCKDB_TYPE_USMALLINT
                                ? static_cast<const uint16_t*>(data)[r]
                                : static_cast<const uint32_t*>(data)[r];
            char* v = api.duckdb_enum_dictionary_value(logical, code);
            std::string_view text(v ? v : "");
            out->data.insert(out->data.end(), text.begin(), text.end());
            if (v) api.duckdb_free(v);
          }
          out->offsets.push_back(static_cast<int64_t>(out->data.size()));
        }
      } else {
        AppendStringRows(static_cast<const duckdb_string_t*>(data), mask, from, n, out);
      }
      break;
    case TypeId::kDecimal: {
      size_t at = out->data.size();
      out->data.resize(at + n * 16);
      uint8_t* dst = out->data.data() + at;
      if (id == DUCKDB_TYPE_HUGEINT || id == DUCKDB_TYPE_UHUGEINT) {
        const auto* h = static_cast<const duckdb_hugeint*>(data) + from;
        static const uint128 kLimit = [] {
          uint128 v = 1;
          for (int i = 0; i < 38; ++i) v *= 10;
          return v;
        }();
        for (int64_t i = 0; i < n; ++i) {
          int128 v = FromHuge(h[i]);
          bool unsigned_big = id == DUCKDB_TYPE_UHUGEINT && (h[i].upper < 0);
          uint128 magnitude = v < 0 ? static_cast<uint128>(-(v + 1)) + 1 : static_cast<uint128>(v);
          if (valid(i) && (unsigned_big || magnitude >= kLimit)) {
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
          const T* s = static_cast<const T*>(data) + from;
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
      const auto* h = static_cast<const duckdb_hugeint*>(data) + from;
      for (int64_t i = 0; i < n; ++i) {
        StoreBigEndian64(static_cast<uint64_t>(h[i].upper) ^ kUuidSignBit, dst + i * 16);
        StoreBigEndian64(h[i].lower, dst + i * 16 + 8);
      }
      break;
    }
    case TypeId::kArray:
    case TypeId::kMap: {
      const auto* entries = static_cast<const duckdb_list_entry*>(data) + from;
      duckdb_vector child = api.duckdb_list_vector_get_child(vec);
      const bool is_map = type.id() == TypeId::kMap;
      if (out->offsets.empty()) out->offsets.push_back(0);
      if (!is_map && !out->child) out->child = std::make_unique<Column>(type.element());
      // ARRAY: the element type; MAP: the key and value types (the child is STRUCT(key, value)).
      std::vector<OwnedType> types;
      if (is_map) {
        types.emplace_back(api, api.duckdb_map_type_key_type(logical));
        types.emplace_back(api, api.duckdb_map_type_value_type(logical));
      } else {
        types.emplace_back(api, api.duckdb_list_type_child_type(logical));
      }
      auto read_elements = [&](uint64_t start, uint64_t count) -> Status {
        if (count == 0) return Status::OK();
        if (!is_map) {
          return ReadRows(api, child, types[0].get(), static_cast<int64_t>(start),
                          static_cast<int64_t>(count), out->child.get());
        }
        for (idx_t k = 0; k < 2; ++k) {
          TARN_RETURN_NOT_OK(ReadRows(api, api.duckdb_struct_vector_get_child(child, k),
                                      types[k].get(), static_cast<int64_t>(start),
                                      static_cast<int64_t>(count), &out->members[k]));
        }
        return Status::OK();
      };
      uint64_t run_start = 0;
      uint64_t run_end = 0;
      int64_t end = out->offsets.back();
      for (int64_t i = 0; i < n; ++i) {
        if (valid(i) && entries[i].length > 0) {
          if (entries[i].offset != run_end) {
            TARN_RETURN_NOT_OK(read_elements(run_start, run_end - run_start));
            run_start = entries[i].offset;
          }
          run_end = entries[i].offset + entries[i].length;
          end += static_cast<int64_t>(entries[i].length);
        }
        out->offsets.push_back(end);
      }
      TARN_RETURN_NOT_OK(read_elements(run_start, run_end - run_start));
      break;
    }
    case TypeId::kStruct: {
      const idx_t count = api.duckdb_struct_type_child_count(logical);
      std::vector<OwnedType> types;
      for (idx_t k = 0; k < count; ++k) {
        types.emplace_back(api, api.duckdb_struct_type_child_type(logical, k));
      }
      for (int64_t i = 0; i < n;) {
        if (!valid(i)) {
          for (Column& m : out->members) m.AppendNull();
          ++i;
          continue;
        }
        int64_t j = i + 1;
        while (j < n && valid(j)) ++j;
        for (idx_t k = 0; k < count; ++k) {
          TARN_RETURN_NOT_OK(ReadRows(api, api.duckdb_struct_vector_get_child(vec, k),
                                      types[k].get(), from + i, j - i, &out->members[k]));
        }
        i = j;
      }
      break;
    }
    case TypeId::kVariant:
      // TarnTypeOf never gives VARIANT (DuckDB hands VARIANT values over as JSON text).
      return Status::Internal("a DuckDB vector read into a VARIANT column");
    case TypeId::kBoolean: {
      size_t at = out->data.size();
      out->data.resize(at + n);
      const auto* b = static_cast<const bool*>(data) + from;
      for (int64_t i = 0; i < n; ++i) out->data[at + i] = b[i] ? 1 : 0;
      break;
    }
    default: {
      const size_t width = static_cast<size_t>(type.PhysicalWidth());
      size_t at = out->data.size();
      out->data.resize(at + n * width);
      std::memcpy(out->data.data() + at, static_cast<const uint8_t*>(data) + from * width,
                  n * width);
      break;
    }
  }
  AppendValidity(mask, from, n, before, out);
  out->length = before + n;
  return Status::OK();
}

}  // namespace

std::string_view StringOf(const duckdb_string_t& s) {
  uint32_t len = s.value.inlined.length;
  if (len <= 12) return {s.value.inlined.inlined, len};
  return {s.value.pointer.ptr, len};
}

Status ReadVector(const DuckDbApi& api, duckdb_vector vec, duckdb_logical_type logical, int64_t n,
                  Column* out) {
  return ReadRows(api, vec, logical, 0, n, out);
}

}  // namespace tarn::sql
