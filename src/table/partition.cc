#include "tarn/partition.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "common/hex.h"
#include "common/text.h"
#include "common/utf8.h"
#include "table/field_path.h"
#include "table/ordered_key.h"
#include "table/schema_json.h"
#include "types/iceberg.h"
#include "types/value_text.h"

namespace tarn {

using nlohmann::json;

namespace {

std::string Lower(std::string_view s) { return AsciiLower(s); }
std::string_view Trim(std::string_view s) { return TrimSpace(s); }

bool ParsePositiveInt(std::string_view s, int32_t* out) {
  s = Trim(s);
  if (s.empty() || s.size() > 10) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v <= 0 || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

bool IsTimeLike(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampTz;
}

// Floor division for a positive divisor.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Floor of v to a multiple of w (w > 0), wrapping like Java's int/long arithmetic.
template <typename T>
inline T TruncateInt(T v, T w) {
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    T rem = static_cast<T>(((v % w) + w) % w);
    return static_cast<T>(static_cast<U>(v) - static_cast<U>(rem));
  } else {
    return static_cast<T>(v - v % w);
  }
}

inline int128 TruncateInt128(int128 v, int128 w) {
  int128 rem = ((v % w) + w) % w;
  return static_cast<int128>(static_cast<uint128>(v) - static_cast<uint128>(rem));
}

template <typename T>
void TruncateFixed(const Column& src, int64_t w, Column* out) {
  T* dst = out->mutable_values<T>();
  const T* in = src.values<T>();
  const T wt = static_cast<T>(w);
  for (int64_t i = 0; i < src.length; ++i) {
    T v;
    std::memcpy(&v, in + i, sizeof(T));
    T r = TruncateInt<T>(v, wt);
    std::memcpy(dst + i, &r, sizeof(T));
  }
}

// Days (DATE) or units since the epoch -> the time transform's value.
int32_t TimeTransform(TransformKind kind, int64_t v, TypeId id, TimeUnit unit) {
  if (kind == TransformKind::kHour) {
    return static_cast<int32_t>(FloorDiv(v, 3600 * UnitsPerSecond(unit)));
  }
  int64_t days = id == TypeId::kDate ? v : FloorDiv(v, 86400 * UnitsPerSecond(unit));
  if (kind == TransformKind::kDay) return static_cast<int32_t>(days);
  CivilDate d = CivilFromDays(days);
  if (kind == TransformKind::kYear) return static_cast<int32_t>(d.year - 1970);
  return static_cast<int32_t>((d.year - 1970) * 12 + (d.month - 1));
}

}  // namespace

// ---- Transform ----

Result<Transform> Transform::Parse(std::string_view text) {
  std::string t = Lower(Trim(text));
  Transform tr;
  auto with_param = [&](std::string_view prefix, TransformKind kind) -> bool {
    if (t.size() <= prefix.size() + 2 || t.compare(0, prefix.size(), prefix) != 0 ||
        t[prefix.size()] != '[' || t.back() != ']') {
      return false;
    }
    int32_t p;
    if (!ParsePositiveInt(
            std::string_view(t).substr(prefix.size() + 1, t.size() - prefix.size() - 2), &p)) {
      return false;
    }
    tr.kind = kind;
    tr.param = p;
    return true;
  };
  if (t == "identity") return tr;
  if (t == "year")
    tr.kind = TransformKind::kYear;
  else if (t == "month")
    tr.kind = TransformKind::kMonth;
  else if (t == "day")
    tr.kind = TransformKind::kDay;
  else if (t == "hour")
    tr.kind = TransformKind::kHour;
  else if (t == "void")
    tr.kind = TransformKind::kVoid;
  else if (!with_param("bucket", TransformKind::kBucket) &&
           !with_param("truncate", TransformKind::kTruncate)) {
    return Status::InvalidArgument("unknown partition transform \"" +
                                   std::string(text.substr(0, 60)) +
                                   "\" (expected identity, bucket[N], truncate[W], year, month, "
                                   "day, hour or void)");
  }
  return tr;
}

std::string Transform::ToString() const {
  switch (kind) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return "bucket[" + std::to_string(param) + "]";
    case TransformKind::kTruncate:
      return "truncate[" + std::to_string(param) + "]";
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
  }
  return "identity";
}

bool Transform::IsMonotone() const {
  return kind != TransformKind::kBucket && kind != TransformKind::kVoid;
}

Result<DataType> Transform::ResultType(const DataType& source) const {
  auto refuse = [&]() -> Status {
    return Status::InvalidArgument("partition transform " + ToString() + " does not apply to " +
                                   source.ToString());
  };
  if (source.id() == TypeId::kVariant) {
    // Iceberg v3 allows no transform of a variant (not even void), and its values have no
    // order or identity a partition could hold.
    return Status::InvalidArgument("a VARIANT column cannot be a partition source");
  }
  TypeId id = source.id();
  switch (kind) {
    case TransformKind::kIdentity:
      if (source.is_nested()) return refuse();
      return source;
    case TransformKind::kVoid:
      return source;
    case TransformKind::kBucket:
      if (param <= 0 || !IsIcebergBucketable(source)) return refuse();
      return DataType::Int32();
    case TransformKind::kTruncate:
      if (param <= 0) return refuse();
      if (source.is_integer() || id == TypeId::kDecimal || source.is_variable_width()) {
        return source;
      }
      return refuse();
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      if (!IsTimeLike(id)) return refuse();
      return DataType::Int32();
    case TransformKind::kHour:
      if (id != TypeId::kTimestamp && id != TypeId::kTimestampTz) return refuse();
      return DataType::Int32();
  }
  return refuse();
}

// ---- ApplyTransform ----

Result<Column> ApplyTransform(const Transform& transform, const Column& source) {
  TARN_ASSIGN_OR_RETURN(DataType rtype, transform.ResultType(source.type));
  const int64_t n = source.length;
  if (transform.kind == TransformKind::kIdentity) return source.Clone();
  Column out(rtype);
  out.length = n;
  if (transform.kind == TransformKind::kVoid) {
    out.validity.assign(n, 0);
    if (rtype.is_variable_width() || rtype.is_nested()) {
      out.offsets.assign(n + 1, 0);
      if (rtype.is_nested()) out.child = std::make_unique<Column>(rtype.element());
    } else {
      out.data.assign(n * rtype.PhysicalWidth(), 0);
    }
    return out;
  }
  out.validity = source.validity;
  const TypeId id = source.type.id();
  if (transform.kind == TransformKind::kBucket) {
    out.data.resize(n * 4);
    int32_t* dst = out.mutable_values<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      dst[i] =
          source.IsValid(i) ? BucketTransform(IcebergBucketHash(source, i), transform.param) : 0;
    }
    return out;
  }
  if (transform.kind == TransformKind::kTruncate) {
    const int64_t w = transform.param;
    if (source.type.is_variable_width()) {
      out.offsets.resize(n + 1);
      out.offsets[0] = 0;
      out.data.reserve(source.data.size());
      for (int64_t i = 0; i < n; ++i) {
        std::string_view s = source.StringAt(i);
        size_t len = id == TypeId::kBlob ? std::min<size_t>(s.size(), w)
                                         : Utf8PrefixBytes(s, static_cast<size_t>(w));
        out.data.insert(out.data.end(), s.data(), s.data() + len);
        out.offsets[i + 1] = static_cast<int64_t>(out.data.size());
      }
      return out;
    }
    out.data.resize(source.data.size());
    switch (id) {
      case TypeId::kInt8:
        // W beyond the type's range: every value floors to itself or wraps like Java's int.
        if (w > INT8_MAX) return ApplyTransform(Transform{TransformKind::kIdentity, 0}, source);
        TruncateFixed<int8_t>(source, w, &out);
        break;
      case TypeId::kInt16:
        if (w > INT16_MAX) return source.Clone();
        TruncateFixed<int16_t>(source, w, &out);
        break;
      case TypeId::kInt32:
        TruncateFixed<int32_t>(source, w, &out);
        break;
      case TypeId::kInt64:
        TruncateFixed<int64_t>(source, w, &out);
        break;
      case TypeId::kUInt8:
        if (w > UINT8_MAX) return source.Clone();
        TruncateFixed<uint8_t>(source, w, &out);
        break;
      case TypeId::kUInt16:
        if (w > UINT16_MAX) return source.Clone();
        TruncateFixed<uint16_t>(source, w, &out);
        break;
      case TypeId::kUInt32:
        TruncateFixed<uint32_t>(source, w, &out);
        break;
      case TypeId::kUInt64:
        TruncateFixed<uint64_t>(source, w, &out);
        break;
      case TypeId::kDecimal: {
        for (int64_t i = 0; i < n; ++i) {
          int128 v = source.Value<int128>(i);
          int128 r = TruncateInt128(v, w);
          std::memcpy(out.data.data() + i * 16, &r, 16);
        }
        break;
      }
      default:
        return Status::Internal("truncate: unhandled type");
    }
    return out;
  }
  // year / month / day / hour
  out.data.resize(n * 4);
  int32_t* dst = out.mutable_values<int32_t>();
  const TimeUnit unit = source.type.unit();
  const TransformKind kind = transform.kind;
  if (id == TypeId::kDate) {
    const int32_t* in = source.values<int32_t>();
    for (int64_t i = 0; i < n; ++i) dst[i] = TimeTransform(kind, in[i], id, unit);
  } else {
    const int64_t* in = source.values<int64_t>();
    for (int64_t i = 0; i < n; ++i) dst[i] = TimeTransform(kind, in[i], id, unit);
  }
  return out;
}

// ---- PartitionSpec ----

namespace {

// Splits on commas outside parentheses and double quotes.
std::vector<std::string_view> SplitTopLevel(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  items.push_back(text.substr(start));
  return items;
}

// A column reference: a bare name or a "double-quoted" one.
// A column, or a STRUCT member by its dotted path (`p.user_id`, `"p"."odd name"`): each
// segment bare (no spaces, dots, parentheses or quotes) or "double-quoted" ("" escapes).
bool ParseNamePath(std::string_view s, std::vector<std::string>* out) {
  s = Trim(s);
  out->clear();
  size_t i = 0;
  while (true) {
    std::string seg;
    if (i < s.size() && s[i] == '"') {
      ++i;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') {
            seg.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        seg.push_back(s[i++]);
      }
      if (!closed) return false;
    } else {
      while (i < s.size() && s[i] != '.') {
        const char c = s[i++];
        if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '"') {
          return false;
        }
        seg.push_back(c);
      }
      if (seg.empty()) return false;
    }
    out->push_back(std::move(seg));
    if (i == s.size()) return true;
    if (s[i] != '.') return false;
    ++i;
  }
}

std::string DefaultName(const std::string& source, const Transform& t) {
  switch (t.kind) {
    case TransformKind::kIdentity:
      return source;
    case TransformKind::kBucket:
      return source + "_bucket";
    case TransformKind::kTruncate:
      return source + "_trunc";
    case TransformKind::kYear:
      return source + "_year";
    case TransformKind::kMonth:
      return source + "_month";
    case TransformKind::kDay:
      return source + "_day";
    case TransformKind::kHour:
      return source + "_hour";
    case TransformKind::kVoid:
      return source + "_null";
  }
  return source;
}

}  // namespace

Result<PartitionSpec> PartitionSpec::Parse(std::string_view text, const Schema& schema,
                                           int32_t spec_id) {
  PartitionSpec spec;
  spec.spec_id = spec_id;
  if (Trim(text).empty()) return spec;
  auto bad = [&](std::string_view item, std::string why) {
    return Status::InvalidArgument("partition spec item \"" + std::string(Trim(item)) +
                                   "\": " + why);
  };
  int32_t next_id = 1000;
  for (std::string_view item : SplitTopLevel(text)) {
    std::string_view it = Trim(item);
    if (it.empty()) return Status::InvalidArgument("partition spec: empty item");
    Transform tr;
    std::vector<std::string> column;
    size_t open = it.front() == '"' ? std::string_view::npos : it.find('(');
    if (open == std::string_view::npos) {
      if (!ParseNamePath(it, &column)) return bad(item, "expected a column or transform(column)");
    } else {
      if (it.back() != ')') return bad(item, "missing ')'");
      std::string fn = Lower(Trim(it.substr(0, open)));
      std::string_view args = it.substr(open + 1, it.size() - open - 2);
      std::vector<std::string_view> parts = SplitTopLevel(args);
      if (fn == "years") fn = "year";
      if (fn == "months") fn = "month";
      if (fn == "days") fn = "day";
      if (fn == "hours") fn = "hour";
      if (fn == "bucket" || fn == "truncate") {
        if (parts.size() != 2) return bad(item, fn + " takes (N, column)");
        int32_t p;
        std::string_view col_part;
        if (ParsePositiveInt(parts[0], &p)) {
          col_part = parts[1];
        } else if (ParsePositiveInt(parts[1], &p)) {
          col_part = parts[0];
        } else {
          return bad(item, fn + " needs a positive integer parameter");
        }
        tr.kind = fn == "bucket" ? TransformKind::kBucket : TransformKind::kTruncate;
        tr.param = p;
        if (!ParseNamePath(col_part, &column)) return bad(item, "bad column name");
      } else {
        if (parts.size() != 1) return bad(item, fn + " takes one column");
        if (fn == "identity")
          tr.kind = TransformKind::kIdentity;
        else if (fn == "year")
          tr.kind = TransformKind::kYear;
        else if (fn == "month")
          tr.kind = TransformKind::kMonth;
        else if (fn == "day")
          tr.kind = TransformKind::kDay;
        else if (fn == "hour")
          tr.kind = TransformKind::kHour;
        else if (fn == "void")
          tr.kind = TransformKind::kVoid;
        else
          return bad(item, "unknown transform " + fn);
        if (!ParseNamePath(parts[0], &column)) return bad(item, "bad column name");
      }
    }
    // A source inside a STRUCT is allowed (Iceberg: any primitive reached through structs).
    Result<FieldPath> path = ResolveFieldPath(schema, column);
    if (!path.ok()) return bad(item, path.status().message());
    const Field& f = *path->field;
    Result<DataType> rt = tr.ResultType(f.type);
    if (!rt.ok()) return bad(item, rt.status().message());
    PartitionField pf;
    pf.source_id = f.field_id;
    pf.field_id = next_id++;
    // Named like Iceberg's: the source's full dotted name (`p.user_id_bucket`).
    std::string source_name;
    for (const std::string& n : path->names) source_name += (source_name.empty() ? "" : ".") + n;
    pf.name = DefaultName(source_name, tr);
    pf.transform = tr;
    for (const PartitionField& other : spec.fields) {
      if (other.source_id == pf.source_id && other.transform == pf.transform) {
        return bad(item, "duplicate partition field");
      }
      if (other.name == pf.name) return bad(item, "duplicate partition field name " + pf.name);
    }
    if (tr.kind != TransformKind::kIdentity && schema.FieldIndex(pf.name) >= 0) {
      return bad(item, "partition field name " + pf.name + " collides with a column");
    }
    spec.fields.push_back(std::move(pf));
  }
  return spec;
}

std::string PartitionSpec::ToString(const Schema& schema) const {
  std::string out;
  for (const PartitionField& pf : fields) {
    if (!out.empty()) out += ", ";
    const std::optional<FieldPath> path = FindFieldPath(schema, pf.source_id);
    std::string col = path ? path->Text() : "\"#" + std::to_string(pf.source_id) + "\"";
    switch (pf.transform.kind) {
      case TransformKind::kIdentity:
        out += col;
        break;
      case TransformKind::kBucket:
        out += "bucket(" + std::to_string(pf.transform.param) + ", " + col + ")";
        break;
      case TransformKind::kTruncate:
        out += "truncate(" + std::to_string(pf.transform.param) + ", " + col + ")";
        break;
      case TransformKind::kYear:
        out += "year(" + col + ")";
        break;
      case TransformKind::kMonth:
        out += "month(" + col + ")";
        break;
      case TransformKind::kDay:
        out += "day(" + col + ")";
        break;
      case TransformKind::kHour:
        out += "hour(" + col + ")";
        break;
      case TransformKind::kVoid:
        out += "void(" + col + ")";
        break;
    }
  }
  return out;
}

std::string PartitionSpec::ToJson() const {
  json arr = json::array();
  for (const PartitionField& pf : fields) {
    arr.push_back({{"source-id", pf.source_id},
                   {"field-id", pf.field_id},
                   {"name", pf.name},
                   {"transform", pf.transform.ToString()}});
  }
  json root = {{"spec-id", spec_id}, {"fields", std::move(arr)}};
  return root.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<PartitionSpec> PartitionSpec::FromJson(std::string_view text) {
  auto bad = [](std::string what) {
    return Status::InvalidArgument("partition spec JSON: " + what);
  };
  json root = json::parse(text.begin(), text.end(), nullptr, false);
  if (root.is_discarded() || !root.is_object()) return bad("not a JSON object");
  auto int32_of = [](const json& o, const char* key, int32_t* out) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_number_integer()) return false;
    if (it->is_number_unsigned() && it->get<uint64_t>() > INT32_MAX) return false;
    int64_t v = it->get<int64_t>();
    if (v < 0 || v > INT32_MAX) return false;
    *out = static_cast<int32_t>(v);
    return true;
  };
  PartitionSpec spec;
  if (!int32_of(root, "spec-id", &spec.spec_id)) return bad("no valid \"spec-id\"");
  auto fit = root.find("fields");
  if (fit == root.end() || !fit->is_array()) return bad("no \"fields\" array");
  for (const json& jf : *fit) {
    if (!jf.is_object()) return bad("a field is not an object");
    PartitionField pf;
    if (!int32_of(jf, "source-id", &pf.source_id)) return bad("field without a valid source-id");
    if (!int32_of(jf, "field-id", &pf.field_id)) return bad("field without a valid field-id");
    auto n = jf.find("name");
    if (n == jf.end() || !n->is_string()) return bad("field without a name");
    pf.name = n->get<std::string>();
    auto t = jf.find("transform");
    if (t == jf.end() || !t->is_string()) return bad("field without a transform");
    Result<Transform> tr = Transform::Parse(t->get<std::string>());
    if (!tr.ok()) return tr.status().WithContext("partition spec JSON");
    pf.transform = *tr;
    spec.fields.push_back(std::move(pf));
  }
  return spec;
}

// ---- Partition values ----

std::string PartitionValuesToJson(const PartitionValues& values) {
  json arr = json::array();
  for (const auto& v : values) {
    if (v) {
      arr.push_back(*v);
    } else {
      arr.push_back(nullptr);
    }
  }
  return arr.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<PartitionValues> PartitionValuesFromJson(std::string_view text) {
  json arr = json::parse(text.begin(), text.end(), nullptr, false);
  if (arr.is_discarded() || !arr.is_array()) {
    return Status::InvalidArgument("partition values JSON: not a JSON array");
  }
  PartitionValues out;
  for (const json& v : arr) {
    if (v.is_null()) {
      out.push_back(std::nullopt);
    } else if (v.is_string()) {
      out.push_back(v.get<std::string>());
    } else {
      return Status::InvalidArgument("partition values JSON: values must be strings or null");
    }
  }
  return out;
}

Result<std::vector<PartitionGroup>> GroupByPartition(const PartitionSpec& spec,
                                                     const RecordBatch& batch) {
  std::vector<PartitionGroup> groups;
  const int64_t n = batch.num_rows;
  if (spec.unpartitioned()) {
    if (n > 0) {
      groups.emplace_back();
      groups[0].rows.resize(n);
      for (int64_t i = 0; i < n; ++i) groups[0].rows[i] = i;
    }
    return groups;
  }
  std::vector<Column> parts;
  for (const PartitionField& pf : spec.fields) {
    Column member;  // a source inside a STRUCT: its values
    const Column* src = FindFieldColumn(batch, pf.source_id, &member);
    if (src == nullptr) {
      return Status::InvalidArgument("partition source column with field id " +
                                     std::to_string(pf.source_id) + " is not in the batch");
    }
    if (src->length != n) return Status::InvalidArgument("column length differs from num_rows");
    Result<Column> c = ApplyTransform(pf.transform, *src);
    if (!c.ok()) return c.status().WithContext("partition field " + pf.name);
    parts.push_back(std::move(c).value());
  }
  std::vector<int32_t> group_of(n);
  if (parts.size() == 1 && parts[0].type.id() == TypeId::kInt32) {
    // Fast path: one INT32 partition value (bucket, year, month, day, hour).
    std::unordered_map<int64_t, int32_t> index;
    const Column& p = parts[0];
    const int32_t* v = p.values<int32_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t key = p.IsValid(i) ? v[i] : INT64_MIN;
      auto [it, inserted] = index.emplace(key, static_cast<int32_t>(groups.size()));
      if (inserted) groups.emplace_back();
      group_of[i] = it->second;
    }
  } else {
    std::unordered_map<std::string, int32_t> index;
    std::string key;
    for (int64_t i = 0; i < n; ++i) {
      key.clear();
      for (const Column& p : parts) {
        if (!p.IsValid(i)) {
          key.push_back('\0');
          continue;
        }
        key.push_back('\1');
        size_t at = key.size();
        key.append(8, '\0');
        AppendOrderedKey(p, i, &key);
        uint64_t len = key.size() - at - 8;
        std::memcpy(key.data() + at, &len, 8);
      }
      auto it = index.find(key);
      if (it == index.end()) {
        it = index.emplace(key, static_cast<int32_t>(groups.size())).first;
        groups.emplace_back();
      }
      group_of[i] = it->second;
    }
  }
  std::vector<int64_t> sizes(groups.size(), 0);
  for (int64_t i = 0; i < n; ++i) ++sizes[group_of[i]];
  for (size_t g = 0; g < groups.size(); ++g) groups[g].rows.reserve(sizes[g]);
  for (int64_t i = 0; i < n; ++i) {
    PartitionGroup& g = groups[group_of[i]];
    if (g.rows.empty()) {
      for (const Column& p : parts) {
        if (p.IsValid(i)) {
          g.values.push_back(ValueText(p, i));
        } else {
          g.values.push_back(std::nullopt);
        }
      }
    }
    g.rows.push_back(i);
  }
  return groups;
}

std::string PartitionPath(const PartitionSpec& spec, const Schema& schema,
                          const PartitionValues& values) {
  // Letters, digits and "._-" as they are; '~' stays %7E, as in the paths already written.
  auto escape = [](std::string_view s, std::string* out) { AppendPercentEncoded(s, out, "._-"); };
  std::string out;
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    const PartitionField& pf = spec.fields[i];
    if (!out.empty()) out.push_back('/');
    escape(pf.name, &out);
    out.push_back('=');
    if (i >= values.size() || !values[i]) {
      out += "null";
      continue;
    }
    const std::string& v = *values[i];
    TransformKind k = pf.transform.kind;
    if (k == TransformKind::kYear || k == TransformKind::kMonth || k == TransformKind::kDay ||
        k == TransformKind::kHour) {
      Result<int32_t> n = ParseInteger<int32_t>(v);
      if (n.ok()) {
        std::string human;
        if (k == TransformKind::kYear) {
          AppendInt64(1970 + static_cast<int64_t>(*n), &human);
        } else if (k == TransformKind::kMonth) {
          int64_t y = 1970 + FloorDiv(*n, 12);
          int m = static_cast<int>(*n - FloorDiv(*n, 12) * 12) + 1;
          AppendDate(DaysFromCivil(y, m, 1), &human);
          human.resize(human.size() - 3);
        } else if (k == TransformKind::kDay) {
          AppendDate(*n, &human);
        } else {
          AppendDate(FloorDiv(*n, 24), &human);
          int h = static_cast<int>(*n - FloorDiv(*n, 24) * 24);
          human += h < 10 ? "-0" : "-";
          human += std::to_string(h);
        }
        escape(human, &out);
        continue;
      }
    }
    escape(v, &out);
  }
  (void)schema;
  return out;
}

}  // namespace tarn
