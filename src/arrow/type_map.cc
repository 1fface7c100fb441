// The one table between tarn types and Arrow format strings (README.md), read both ways:
// ArrowTypeOf picks a type's canonical row, MatchArrowType finds the row of a format (and the
// parameterized formats: decimals, zones, fixed sizes).
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "arrow/arrow_internal.h"

namespace tarn::arrow {
namespace {

constexpr std::string_view kUuidExtension = "arrow.uuid";
constexpr std::string_view kJsonExtension = "arrow.json";
constexpr std::string_view kVariantExtension = "arrow.parquet.variant";
constexpr std::string_view kIpv4TarnType = "IPV4";

struct Row {
  std::string_view format;
  std::string_view extension;
  std::string_view tarn_type;
  TypeId id;
  DataType (*make)();  // the exact type; NULL for nested types (built from their children)
  Layout layout;
  bool canonical;  // what ArrowTypeOf writes; the other rows are variants Import accepts
};

// Decimals are not rows: "d:p,s" carries the type's parameters (ArrowTypeOf, MatchDecimal).
// Import also reads "ts?:<any zone>" as TIMESTAMPTZ, "w:N" as BLOB and "+w:N" as ARRAY.
const Row kRows[] = {
    {"b", "", "", TypeId::kBoolean, [] { return DataType::Boolean(); }, Layout::kBoolean, true},
    {"c", "", "", TypeId::kInt8, [] { return DataType::Int8(); }, Layout::kFixed, true},
    {"s", "", "", TypeId::kInt16, [] { return DataType::Int16(); }, Layout::kFixed, true},
    {"i", "", "", TypeId::kInt32, [] { return DataType::Int32(); }, Layout::kFixed, true},
    {"l", "", "", TypeId::kInt64, [] { return DataType::Int64(); }, Layout::kFixed, true},
    {"C", "", "", TypeId::kUInt8, [] { return DataType::UInt8(); }, Layout::kFixed, true},
    {"S", "", "", TypeId::kUInt16, [] { return DataType::UInt16(); }, Layout::kFixed, true},
    {"I", "", "", TypeId::kUInt32, [] { return DataType::UInt32(); }, Layout::kFixed, true},
    {"L", "", "", TypeId::kUInt64, [] { return DataType::UInt64(); }, Layout::kFixed, true},
    {"f", "", "", TypeId::kFloat32, [] { return DataType::Float32(); }, Layout::kFixed, true},
    {"g", "", "", TypeId::kFloat64, [] { return DataType::Float64(); }, Layout::kFixed, true},
    {"U", "", "", TypeId::kVarchar, [] { return DataType::Varchar(); }, Layout::kBinary64, true},
    {"u", "", "", TypeId::kVarchar, [] { return DataType::Varchar(); }, Layout::kBinary32, false},
    {"Z", "", "", TypeId::kBlob, [] { return DataType::Blob(); }, Layout::kBinary64, true},
    {"z", "", "", TypeId::kBlob, [] { return DataType::Blob(); }, Layout::kBinary32, false},
    {"vu", "", "", TypeId::kVarchar, [] { return DataType::Varchar(); }, Layout::kBinaryView,
     false},
    {"vz", "", "", TypeId::kBlob, [] { return DataType::Blob(); }, Layout::kBinaryView, false},
    {"U", kJsonExtension, "", TypeId::kJson, [] { return DataType::Json(); }, Layout::kBinary64,
     true},
    {"u", kJsonExtension, "", TypeId::kJson, [] { return DataType::Json(); }, Layout::kBinary32,
     false},
    {"vu", kJsonExtension, "", TypeId::kJson, [] { return DataType::Json(); }, Layout::kBinaryView,
     false},
    {"tdD", "", "", TypeId::kDate, [] { return DataType::Date(); }, Layout::kFixed, true},
    {"tdm", "", "", TypeId::kDate, [] { return DataType::Date(); }, Layout::kDate64, false},
    {"ttu", "", "", TypeId::kTime, [] { return DataType::Time(TimeUnit::kMicro); }, Layout::kFixed,
     true},
    {"ttn", "", "", TypeId::kTime, [] { return DataType::Time(TimeUnit::kNano); }, Layout::kFixed,
     true},
    {"tts", "", "", TypeId::kTime, [] { return DataType::Time(TimeUnit::kMicro); },
     Layout::kTime32Seconds, false},
    {"ttm", "", "", TypeId::kTime, [] { return DataType::Time(TimeUnit::kMicro); },
     Layout::kTime32Millis, false},
    {"tss:", "", "", TypeId::kTimestamp, [] { return DataType::Timestamp(TimeUnit::kSecond); },
     Layout::kFixed, true},
    {"tsm:", "", "", TypeId::kTimestamp, [] { return DataType::Timestamp(TimeUnit::kMilli); },
     Layout::kFixed, true},
    {"tsu:", "", "", TypeId::kTimestamp, [] { return DataType::Timestamp(TimeUnit::kMicro); },
     Layout::kFixed, true},
    {"tsn:", "", "", TypeId::kTimestamp, [] { return DataType::Timestamp(TimeUnit::kNano); },
     Layout::kFixed, true},
    {"tss:UTC", "", "", TypeId::kTimestampTz,
     [] { return DataType::TimestampTz(TimeUnit::kSecond); }, Layout::kFixed, true},
    {"tsm:UTC", "", "", TypeId::kTimestampTz,
     [] { return DataType::TimestampTz(TimeUnit::kMilli); }, Layout::kFixed, true},
    {"tsu:UTC", "", "", TypeId::kTimestampTz,
     [] { return DataType::TimestampTz(TimeUnit::kMicro); }, Layout::kFixed, true},
    {"tsn:UTC", "", "", TypeId::kTimestampTz, [] { return DataType::TimestampTz(TimeUnit::kNano); },
     Layout::kFixed, true},
    {"w:16", kUuidExtension, "", TypeId::kUuid, [] { return DataType::Uuid(); }, Layout::kFixed,
     true},
    {"I", "", kIpv4TarnType, TypeId::kIpv4, [] { return DataType::Ipv4(); }, Layout::kFixed, true},
    {"+L", "", "", TypeId::kArray, nullptr, Layout::kList64, true},
    {"+l", "", "", TypeId::kArray, nullptr, Layout::kList32, false},
    {"+s", "", "", TypeId::kStruct, nullptr, Layout::kStruct, true},
    {"+m", "", "", TypeId::kMap, nullptr, Layout::kMap, true},
    {"+s", kVariantExtension, "", TypeId::kVariant, [] { return DataType::Variant(); },
     Layout::kVariant, true},
};

// Formats tarn knows and refuses, with what they are (the message names both).
struct Refused {
  std::string_view prefix;
  std::string_view what;
};
const Refused kRefused[] = {
    {"n", "the null type: tarn has no column type without values; cast it to a type first"},
    {"+vl", "list view: list views are not supported; cast to a list or large list"},
    {"+vL", "large list view: list views are not supported; cast to a list or large list"},
    {"e", "float16: tarn has no half-precision float; cast to float32"},
    {"tD", "duration: tarn has no duration type"},
    {"ti", "interval: tarn has no interval type"},
    {"+ud:", "dense union: tarn has no union type"},
    {"+us:", "sparse union: tarn has no union type"},
    {"+r", "run-end encoded: decode it first"},
};

Status Unsupported(std::string_view format, std::string_view why) {
  return Status::InvalidArgument("Arrow format \"" + std::string(format) + "\" is not supported" +
                                 (why.empty() ? "" : ": " + std::string(why)));
}

// Reads a decimal integer (a leading '-' allowed) that is the whole of `text`.
bool ReadInt(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "d:p,s" or "d:p,s,bits".
Result<ArrowMatch> MatchDecimal(std::string_view format) {
  std::vector<std::string_view> parts;
  std::string_view rest = format.substr(2);
  for (size_t comma; (comma = rest.find(',')) != std::string_view::npos;) {
    parts.push_back(rest.substr(0, comma));
    rest.remove_prefix(comma + 1);
  }
  parts.push_back(rest);
  int64_t p = 0, s = 0, bits = 128;
  if (parts.size() < 2 || parts.size() > 3 || !ReadInt(parts[0], &p) || !ReadInt(parts[1], &s) ||
      (parts.size() == 3 && !ReadInt(parts[2], &bits))) {
    return Unsupported(format, "not a decimal format (d:precision,scale[,bitwidth])");
  }
  if (bits == 256) return Unsupported(format, "decimal256: tarn's decimals hold 38 digits");
  if (bits != 32 && bits != 64 && bits != 128) {
    return Unsupported(format, "a decimal is 32, 64, 128 or 256 bits wide");
  }
  if (p < 1 || p > 38 || s < 0 || s > p) {
    return Unsupported(format, "tarn's DECIMAL(p,s) takes 1 <= p <= 38 and 0 <= s <= p");
  }
  ArrowMatch m;
  m.type = DataType::Decimal(static_cast<int>(p), static_cast<int>(s));
  m.layout = bits == 128 ? Layout::kFixed : bits == 64 ? Layout::kDecimal64 : Layout::kDecimal32;
  return m;
}

// "w:N" or "+w:N".
Result<int32_t> FixedSize(std::string_view format, size_t prefix) {
  int64_t n = 0;
  if (!ReadInt(format.substr(prefix), &n) || n < 1 || n > INT32_MAX) {
    return Unsupported(format, "a fixed size is a positive int32");
  }
  return static_cast<int32_t>(n);
}

const Row* FindRow(std::string_view format, std::string_view extension,
                   std::string_view tarn_type) {
  for (const Row& r : kRows) {
    if (r.format == format && r.extension == extension && r.tarn_type == tarn_type) return &r;
  }
  return nullptr;
}

ArrowMatch MatchOf(const Row& r) {
  ArrowMatch m;
  m.layout = r.layout;
  if (r.make != nullptr) m.type = r.make();
  return m;
}

}  // namespace

ArrowTypeName ArrowTypeOf(const DataType& type) {
  if (type.id() == TypeId::kDecimal) {
    return {"d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale()), "", ""};
  }
  for (const Row& r : kRows) {
    if (r.canonical && r.id == type.id() && (r.make == nullptr || r.make() == type)) {
      return {std::string(r.format), std::string(r.extension), std::string(r.tarn_type)};
    }
  }
  // Unreachable: every TypeId has a canonical row (type_map_test checks each).
  return {"", "", ""};
}

Result<ArrowMatch> MatchArrowType(const ArrowTypeName& name) {
  const std::string_view f = name.format;
  // An extension or tarn:type this table does not know names a type built on its storage.
  const Row* row = FindRow(f, name.extension, name.tarn_type);
  if (row == nullptr) row = FindRow(f, "", name.tarn_type);
  if (row == nullptr) row = FindRow(f, name.extension, "");
  if (row == nullptr) row = FindRow(f, "", "");
  if (row != nullptr) return MatchOf(*row);
  if (f.size() > 2 && f.substr(0, 2) == "d:") return MatchDecimal(f);
  if (f.size() > 4 && f[0] == 't' && f[1] == 's' && f[3] == ':') {
    // A timestamp with a zone other than UTC: Arrow's values are UTC instants whatever the zone.
    const Row* utc = FindRow(std::string(f.substr(0, 4)) + "UTC", "", "");
    if (utc != nullptr) return MatchOf(*utc);
  }
  if (f.size() > 2 && f.substr(0, 2) == "w:") {
    TARN_ASSIGN_OR_RETURN(int32_t n, FixedSize(f, 2));
    ArrowMatch m;
    m.layout = Layout::kFixedBinary;
    m.type = DataType::Blob();
    m.fixed_size = n;
    return m;
  }
  if (f.size() > 3 && f.substr(0, 3) == "+w:") {
    TARN_ASSIGN_OR_RETURN(int32_t n, FixedSize(f, 3));
    ArrowMatch m;
    m.layout = Layout::kFixedList;
    m.fixed_size = n;
    return m;
  }
  for (const Refused& r : kRefused) {
    if (f.substr(0, r.prefix.size()) == r.prefix &&
        (r.prefix.size() > 1 || f.size() == 1)) {  // "n", "e": the whole format
      return Unsupported(f, r.what);
    }
  }
  return Unsupported(f, "not a format tarn knows");
}

Result<DataType> TypeFromMatch(const ArrowMatch& m, std::vector<Field> children) {
  auto want = [&](size_t n, const char* what) -> Status {
    if (children.size() == n) return Status::OK();
    return Status::InvalidArgument(std::string(what) + " has " + std::to_string(children.size()) +
                                   " children, not " + std::to_string(n));
  };
  switch (m.layout) {
    case Layout::kList32:
    case Layout::kList64:
    case Layout::kFixedList: {
      TARN_RETURN_NOT_OK(want(1, "a list"));
      Field& e = children[0];
      return DataType::Array(std::move(e.type), e.field_id, e.nullable);
    }
    case Layout::kStruct:
      if (children.empty()) return Status::InvalidArgument("a struct without fields");
      return DataType::Struct(std::move(children));
    case Layout::kMap: {
      TARN_RETURN_NOT_OK(want(2, "a map's entries"));
      Field& k = children[0];
      Field& v = children[1];
      return DataType::Map(std::move(k.type), std::move(v.type), k.field_id, v.field_id,
                           v.nullable);
    }
    default:
      return m.type;
  }
}

Result<DataType> TarnTypeOf(const ArrowTypeName& name, std::vector<Field> children) {
  TARN_ASSIGN_OR_RETURN(ArrowMatch m, MatchArrowType(name));
  return TypeFromMatch(m, std::move(children));
}

std::string EncodeMetadata(const Metadata& pairs) {
  if (pairs.empty()) return {};
  std::string out;
  auto put = [&](int32_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(static_cast<int32_t>(pairs.size()));
  for (const auto& [k, v] : pairs) {
    put(static_cast<int32_t>(k.size()));
    out += k;
    put(static_cast<int32_t>(v.size()));
    out += v;
  }
  return out;
}

Result<Metadata> DecodeMetadata(const char* metadata) {
  Metadata out;
  if (metadata == nullptr) return out;
  const char* p = metadata;
  auto get = [&]() {
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  };
  const int32_t n = get();
  if (n < 0) return Status::InvalidArgument("metadata with a negative count");
  for (int32_t i = 0; i < n; ++i) {
    std::string kv[2];
    for (std::string& s : kv) {
      const int32_t len = get();
      if (len < 0) return Status::InvalidArgument("metadata with a negative length");
      s.assign(p, static_cast<size_t>(len));
      p += len;
    }
    out.emplace_back(std::move(kv[0]), std::move(kv[1]));
  }
  return out;
}

}  // namespace tarn::arrow
