#include "tarn/data_type.h"

#include <cassert>
#include <cctype>
#include <string>
#include <unordered_set>
#include <utility>

namespace tarn {

DataType DataType::Decimal(int precision, int scale) {
  assert(precision >= 1 && precision <= 38 && scale >= 0 && scale <= precision);
  DataType t(TypeId::kDecimal);
  t.precision_ = static_cast<uint8_t>(precision);
  t.scale_ = static_cast<uint8_t>(scale);
  return t;
}

DataType DataType::Time(TimeUnit unit) {
  assert(unit == TimeUnit::kMicro || unit == TimeUnit::kNano);
  DataType t(TypeId::kTime);
  t.unit_ = unit;
  return t;
}

DataType DataType::Timestamp(TimeUnit unit) {
  DataType t(TypeId::kTimestamp);
  t.unit_ = unit;
  return t;
}

DataType DataType::TimestampTz(TimeUnit unit) {
  DataType t(TypeId::kTimestampTz);
  t.unit_ = unit;
  return t;
}

namespace {

Field NestedField(const char* name, DataType type, bool nullable, int32_t id) {
  Field f;
  f.name = name;
  f.type = std::move(type);
  f.nullable = nullable;
  f.field_id = id;
  return f;
}

}  // namespace

DataType DataType::Array(DataType element, int32_t element_id, bool element_nullable) {
  std::vector<Field> children;
  children.push_back(NestedField("element", std::move(element), element_nullable, element_id));
  DataType t(TypeId::kArray);
  t.children_ = std::make_shared<const std::vector<Field>>(std::move(children));
  return t;
}

DataType DataType::Struct(std::vector<Field> members) {
  DataType t(TypeId::kStruct);
  t.children_ = std::make_shared<const std::vector<Field>>(std::move(members));
  return t;
}

DataType DataType::Map(DataType key, DataType value, int32_t key_id, int32_t value_id,
                       bool value_nullable) {
  std::vector<Field> children;
  children.reserve(2);
  children.push_back(NestedField("key", std::move(key), false, key_id));
  children.push_back(NestedField("value", std::move(value), value_nullable, value_id));
  DataType t(TypeId::kMap);
  t.children_ = std::make_shared<const std::vector<Field>>(std::move(children));
  return t;
}

const std::vector<Field>& DataType::children() const {
  static const std::vector<Field> kNone;
  return children_ ? *children_ : kNone;
}

DataType DataType::WithChildren(std::vector<Field> children) const {
  assert(is_nested() && children.size() == this->children().size());
  DataType t = *this;
  if (id_ == TypeId::kMap) children[0].nullable = false;
  t.children_ = std::make_shared<const std::vector<Field>>(std::move(children));
  return t;
}

Result<DataType> AssignNestedIds(const DataType& type, int32_t* last_id) {
  if (!type.is_nested()) return type;
  std::vector<Field> children = type.children();
  for (Field& f : children) {
    if (f.field_id != -1) continue;
    if (*last_id == INT32_MAX) return Status::InvalidArgument("field ids exhausted");
    f.field_id = ++*last_id;
  }
  for (Field& f : children) {
    TARN_ASSIGN_OR_RETURN(f.type, AssignNestedIds(f.type, last_id));
  }
  return type.WithChildren(std::move(children));
}

DataType ClearNestedIds(const DataType& type) {
  if (!type.is_nested()) return type;
  std::vector<Field> children = type.children();
  for (Field& f : children) {
    f.field_id = -1;
    f.type = ClearNestedIds(f.type);
  }
  return type.WithChildren(std::move(children));
}

DataType WithNestedFieldsOf(const DataType& shape, const DataType& fields) {
  if (!shape.is_nested() || shape.id() != fields.id() ||
      shape.children().size() != fields.children().size()) {
    return shape;
  }
  std::vector<Field> children = shape.children();
  for (size_t i = 0; i < children.size(); ++i) {
    const Field& f = fields.children()[i];
    children[i].field_id = f.field_id;
    children[i].nullable = f.nullable;
    children[i].type = WithNestedFieldsOf(children[i].type, f.type);
  }
  return shape.WithChildren(std::move(children));
}

bool SameNestedFields(const DataType& a, const DataType& b) {
  if (!(a == b)) return false;
  const std::vector<Field>& ac = a.children();
  const std::vector<Field>& bc = b.children();
  for (size_t i = 0; i < ac.size(); ++i) {
    if (ac[i].field_id != bc[i].field_id || ac[i].nullable != bc[i].nullable ||
        !SameNestedFields(ac[i].type, bc[i].type)) {
      return false;
    }
  }
  return true;
}

bool DataType::is_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kUInt64; }
bool DataType::is_signed_integer() const { return id_ >= TypeId::kInt8 && id_ <= TypeId::kInt64; }
bool DataType::is_floating() const { return id_ == TypeId::kFloat32 || id_ == TypeId::kFloat64; }
bool DataType::is_variable_width() const {
  return id_ == TypeId::kVarchar || id_ == TypeId::kBlob || id_ == TypeId::kJson;
}

int DataType::PhysicalWidth() const {
  switch (id_) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate:
    case TypeId::kIpv4:
      return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return 8;
    case TypeId::kDecimal:
    case TypeId::kUuid:
      return 16;
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      return 0;
  }
  return 0;
}

bool operator==(const DataType& a, const DataType& b) {
  if (a.id_ != b.id_) return false;
  switch (a.id_) {
    case TypeId::kDecimal:
      return a.precision_ == b.precision_ && a.scale_ == b.scale_;
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return a.unit_ == b.unit_;
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap: {
      const std::vector<Field>& ac = a.children();
      const std::vector<Field>& bc = b.children();
      if (ac.size() != bc.size()) return false;
      for (size_t i = 0; i < ac.size(); ++i) {
        if (ac[i].name != bc[i].name || !(ac[i].type == bc[i].type)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

std::string_view TimeUnitSuffix(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "us";
}

namespace {

// Deepest nesting Parse accepts; bounds recursion on untrusted text.
constexpr int kMaxTypeDepth = 64;

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Bytes allowed in an unquoted field name: ASCII letters, digits, '_', and UTF-8 (>= 0x80).
bool IsBareNameChar(char c) { return IsWordChar(c) || static_cast<unsigned char>(c) >= 0x80; }

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

// ASCII case-insensitive equality (names and keywords; UTF-8 bytes compare exactly).
bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// Shortens text quoted in an error message.
std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 80;
  if (text.size() <= kMax) return std::string(text);
  return std::string(text.substr(0, kMax)) + "...";
}

struct NamedType {
  std::string_view name;
  TypeId id;
};

constexpr NamedType kTypeNames[] = {
    {"BOOLEAN", TypeId::kBoolean},
    {"BOOL", TypeId::kBoolean},
    {"INT8", TypeId::kInt8},
    {"TINYINT", TypeId::kInt8},
    {"INT16", TypeId::kInt16},
    {"SMALLINT", TypeId::kInt16},
    {"INT32", TypeId::kInt32},
    {"INT", TypeId::kInt32},
    {"INTEGER", TypeId::kInt32},
    {"INT64", TypeId::kInt64},
    {"BIGINT", TypeId::kInt64},
    {"UINT8", TypeId::kUInt8},
    {"UINT16", TypeId::kUInt16},
    {"UINT32", TypeId::kUInt32},
    {"UINT64", TypeId::kUInt64},
    {"FLOAT32", TypeId::kFloat32},
    {"FLOAT", TypeId::kFloat32},
    {"REAL", TypeId::kFloat32},
    {"FLOAT64", TypeId::kFloat64},
    {"DOUBLE", TypeId::kFloat64},
    {"DECIMAL", TypeId::kDecimal},
    {"VARCHAR", TypeId::kVarchar},
    {"STRING", TypeId::kVarchar},
    {"TEXT", TypeId::kVarchar},
    {"BLOB", TypeId::kBlob},
    {"BYTES", TypeId::kBlob},
    {"BINARY", TypeId::kBlob},
    {"DATE", TypeId::kDate},
    {"TIME", TypeId::kTime},
    {"TIMESTAMP", TypeId::kTimestamp},
    {"TIMESTAMPTZ", TypeId::kTimestampTz},
    {"UUID", TypeId::kUuid},
    {"IPV4", TypeId::kIpv4},
    {"JSON", TypeId::kJson},
    {"ARRAY", TypeId::kArray},
    {"LIST", TypeId::kArray},
    {"STRUCT", TypeId::kStruct},
    {"MAP", TypeId::kMap},
    {"VARIANT", TypeId::kVariant},
};

// Recursive-descent reader of type names and schemas over one text. Positions in messages are
// 1-based character offsets into the whole text.
class TypeTextParser {
 public:
  TypeTextParser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }

  void SkipSpaces() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }

  // Reads [A-Za-z0-9_]* at the cursor.
  std::string_view ReadWord() {
    size_t start = pos_;
    while (!AtEnd() && IsWordChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  bool Consume(char c) {
    SkipSpaces();
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }

  Status Error(size_t at, std::string_view problem) const {
    return Status::InvalidArgument("invalid " + std::string(what_) + " '" + Excerpt(text_) +
                                   "': " + std::string(problem) + " at character " +
                                   std::to_string(at + 1));
  }

  // Describes what is at `at` for "expected X, found Y" messages.
  std::string Found(size_t at) const {
    if (at >= text_.size()) return "end of text";
    size_t end = at;
    if (IsWordChar(text_[end])) {
      while (end < text_.size() && IsWordChar(text_[end]) && end - at < 40) ++end;
    } else {
      end = at + 1;
    }
    std::string found = "'";
    found.append(text_.substr(at, end - at));
    found.push_back('\'');
    return found;
  }

  Result<DataType> ParseType(int depth) {
    if (depth > kMaxTypeDepth) {
      return Error(pos_, "types nested deeper than " + std::to_string(kMaxTypeDepth));
    }
    SkipSpaces();
    size_t start = pos_;
    std::string_view word = ReadWord();
    if (word.empty()) return Error(start, "expected a type name, found " + Found(start));
    const NamedType* named = nullptr;
    for (const NamedType& n : kTypeNames) {
      if (EqualsIgnoreCase(word, n.name)) {
        named = &n;
        break;
      }
    }
    if (named == nullptr) {
      return Error(start, "unknown type name '" + Excerpt(word) + "'");
    }
    switch (named->id) {
      case TypeId::kDecimal:
        return ParseDecimalArgs(start);
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz: {
        TARN_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit());
        return named->id == TypeId::kTimestamp ? DataType::Timestamp(unit)
                                               : DataType::TimestampTz(unit);
      }
      case TypeId::kArray: {
        if (!Consume('<')) {
          SkipSpaces();
          return Error(pos_, "expected '<' after ARRAY, found " + Found(pos_));
        }
        TARN_ASSIGN_OR_RETURN(DataType element, ParseType(depth + 1));
        TARN_ASSIGN_OR_RETURN(bool nullable, ParseNullability());
        if (!Consume('>')) {
          SkipSpaces();
          return Error(pos_, "expected '>' to close ARRAY<, found " + Found(pos_));
        }
        return DataType::Array(std::move(element), -1, nullable);
      }
      case TypeId::kMap: {
        if (!Consume('<')) {
          SkipSpaces();
          return Error(pos_, "expected '<' after MAP, found " + Found(pos_));
        }
        TARN_ASSIGN_OR_RETURN(DataType key, ParseType(depth + 1));
        TARN_RETURN_NOT_OK(ParseNullability().status());  // a key is never null anyway
        if (!Consume(',')) {
          SkipSpaces();
          return Error(pos_,
                       "expected ',' between the MAP key and value types, found " + Found(pos_));
        }
        TARN_ASSIGN_OR_RETURN(DataType value, ParseType(depth + 1));
        TARN_ASSIGN_OR_RETURN(bool nullable, ParseNullability());
        if (!Consume('>')) {
          SkipSpaces();
          return Error(pos_, "expected '>' to close MAP<, found " + Found(pos_));
        }
        return DataType::Map(std::move(key), std::move(value), -1, -1, nullable);
      }
      case TypeId::kStruct:
        return ParseStructMembers(depth);
      case TypeId::kBoolean:
        return DataType::Boolean();
      case TypeId::kInt8:
        return DataType::Int8();
      case TypeId::kInt16:
        return DataType::Int16();
      case TypeId::kInt32:
        return DataType::Int32();
      case TypeId::kInt64:
        return DataType::Int64();
      case TypeId::kUInt8:
        return DataType::UInt8();
      case TypeId::kUInt16:
        return DataType::UInt16();
      case TypeId::kUInt32:
        return DataType::UInt32();
      case TypeId::kUInt64:
        return DataType::UInt64();
      case TypeId::kFloat32:
        return DataType::Float32();
      case TypeId::kFloat64:
        return DataType::Float64();
      case TypeId::kVarchar:
        return DataType::Varchar();
      case TypeId::kBlob:
        return DataType::Blob();
      case TypeId::kDate:
        return DataType::Date();
      case TypeId::kTime: {
        SkipSpaces();
        const size_t unit_at = Peek() == '[' ? pos_ + 1 : pos_;
        TARN_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit());
        if (unit != TimeUnit::kMicro && unit != TimeUnit::kNano) {
          size_t at = unit_at;
          while (at < text_.size() && IsSpace(text_[at])) ++at;
          return Error(at,
                       "TIME takes the unit us or ns, not " + std::string(TimeUnitSuffix(unit)));
        }
        return DataType::Time(unit);
      }
      case TypeId::kUuid:
        return DataType::Uuid();
      case TypeId::kIpv4:
        return DataType::Ipv4();
      case TypeId::kJson:
        return DataType::Json();
      case TypeId::kVariant:
        // Parquet's VARIANT is a group of its own two leaves, and Iceberg gives it one field
        // id: tarn keeps it a top-level column (DuckDB writes it only there too).
        if (depth > 0) return Error(start, "VARIANT is only allowed as a top-level column type");
        return DataType::Variant();
    }
    return Error(start, "unknown type name '" + Excerpt(word) + "'");
  }

  // Reads an optional NOT NULL / NULL after a type: false for NOT NULL.
  Result<bool> ParseNullability() {
    SkipSpaces();
    size_t save = pos_;
    std::string_view word = ReadWord();
    if (EqualsIgnoreCase(word, "NOT")) {
      SkipSpaces();
      size_t null_at = pos_;
      if (!EqualsIgnoreCase(ReadWord(), "NULL")) {
        return Error(null_at, "expected NULL after NOT, found " + Found(null_at));
      }
      return false;
    }
    if (!EqualsIgnoreCase(word, "NULL")) pos_ = save;
    return true;
  }

  // STRUCT<name: TYPE [NOT NULL], ...>, after the word STRUCT.
  Result<DataType> ParseStructMembers(int depth) {
    if (!Consume('<')) {
      SkipSpaces();
      return Error(pos_, "expected '<' after STRUCT, found " + Found(pos_));
    }
    std::vector<Field> members;
    std::unordered_set<std::string> seen;
    while (true) {
      SkipSpaces();
      size_t name_at = pos_;
      TARN_ASSIGN_OR_RETURN(std::string name, ParseFieldName());
      std::string key = name;
      for (char& c : key) c = AsciiLower(c);
      if (!seen.insert(std::move(key)).second) {
        return Error(name_at, "duplicate STRUCT member name '" + Excerpt(name) + "'");
      }
      Consume(':');
      Field member;
      member.name = std::move(name);
      TARN_ASSIGN_OR_RETURN(member.type, ParseType(depth + 1));
      TARN_ASSIGN_OR_RETURN(member.nullable, ParseNullability());
      members.push_back(std::move(member));
      if (Consume('>')) break;
      if (!Consume(',')) {
        SkipSpaces();
        return Error(pos_, "expected ',' or '>' in STRUCT<, found " + Found(pos_));
      }
    }
    return DataType::Struct(std::move(members));
  }

  // Reads a quoted ("...", "" escapes a quote) or bare field name.
  Result<std::string> ParseFieldName() {
    SkipSpaces();
    size_t start = pos_;
    std::string name;
    if (Peek() == '"') {
      ++pos_;
      while (true) {
        if (AtEnd()) return Error(start, "unterminated quoted name");
        char c = text_[pos_++];
        if (c == '"') {
          if (Peek() == '"') {
            name.push_back('"');
            ++pos_;
            continue;
          }
          break;
        }
        name.push_back(c);
      }
    } else {
      while (!AtEnd() && IsBareNameChar(text_[pos_])) name.push_back(text_[pos_++]);
      if (name.empty()) return Error(start, "expected a column name, found " + Found(start));
    }
    if (name.empty()) return Error(start, "empty column name");
    return name;
  }

 private:
  Result<int> ParseSmallInt(std::string_view label) {
    SkipSpaces();
    size_t start = pos_;
    int value = 0;
    while (!AtEnd() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (value < 1000) value = value * 10 + (text_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == start) {
      return Error(start, "expected the DECIMAL " + std::string(label) + ", found " + Found(start));
    }
    return value;
  }

  Result<DataType> ParseDecimalArgs(size_t type_start) {
    if (!Consume('(')) {
      SkipSpaces();
      return Error(pos_, "DECIMAL needs a precision, as in DECIMAL(10,2)");
    }
    size_t p_at = pos_;
    TARN_ASSIGN_OR_RETURN(int precision, ParseSmallInt("precision"));
    int scale = 0;
    size_t s_at = pos_;
    if (Consume(',')) {
      s_at = pos_;
      TARN_ASSIGN_OR_RETURN(scale, ParseSmallInt("scale"));
    }
    if (!Consume(')')) {
      SkipSpaces();
      return Error(pos_, "expected ')' to close DECIMAL(, found " + Found(pos_));
    }
    while (p_at < text_.size() && IsSpace(text_[p_at])) ++p_at;
    while (s_at < text_.size() && (IsSpace(text_[s_at]) || text_[s_at] == ',')) ++s_at;
    if (precision < 1 || precision > 38) {
      return Error(p_at, "DECIMAL precision " + std::to_string(precision) + " is outside 1..38");
    }
    if (scale > precision) {
      return Error(s_at, "DECIMAL scale " + std::to_string(scale) + " is outside 0.." +
                             std::to_string(precision));
    }
    return DataType::Decimal(precision, scale);
  }

  Result<TimeUnit> ParseUnit() {
    size_t save = pos_;
    if (!Consume('[')) {
      pos_ = save;
      return TimeUnit::kMicro;
    }
    SkipSpaces();
    size_t at = pos_;
    std::string_view unit = ReadWord();
    TimeUnit result;
    if (EqualsIgnoreCase(unit, "s")) {
      result = TimeUnit::kSecond;
    } else if (EqualsIgnoreCase(unit, "ms")) {
      result = TimeUnit::kMilli;
    } else if (EqualsIgnoreCase(unit, "us")) {
      result = TimeUnit::kMicro;
    } else if (EqualsIgnoreCase(unit, "ns")) {
      result = TimeUnit::kNano;
    } else {
      return Error(at, "expected a time unit s, ms, us or ns, found " + Found(at));
    }
    if (!Consume(']')) {
      SkipSpaces();
      return Error(pos_, "expected ']' after the time unit, found " + Found(pos_));
    }
    return result;
  }

  std::string_view text_;
  std::string_view what_;
  size_t pos_ = 0;
};

void AppendQuotedName(std::string_view name, std::string* out) {
  bool bare = !name.empty();
  for (char c : name) bare = bare && IsBareNameChar(c);
  if (bare) {
    out->append(name);
    return;
  }
  out->push_back('"');
  for (char c : name) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// A nested field's type as written inside ARRAY<>, MAP<> or STRUCT<>.
std::string NestedText(const Field& f) {
  return f.nullable ? f.type.ToString() : f.type.ToString() + " NOT NULL";
}

}  // namespace

Result<DataType> DataType::Parse(std::string_view text) {
  TypeTextParser parser(text, "type");
  TARN_ASSIGN_OR_RETURN(DataType type, parser.ParseType(0));
  parser.SkipSpaces();
  if (!parser.AtEnd()) {
    return parser.Error(parser.pos(), "unexpected " + parser.Found(parser.pos()));
  }
  return type;
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kBoolean:
      return "BOOLEAN";
    case TypeId::kInt8:
      return "INT8";
    case TypeId::kInt16:
      return "INT16";
    case TypeId::kInt32:
      return "INT32";
    case TypeId::kInt64:
      return "INT64";
    case TypeId::kUInt8:
      return "UINT8";
    case TypeId::kUInt16:
      return "UINT16";
    case TypeId::kUInt32:
      return "UINT32";
    case TypeId::kUInt64:
      return "UINT64";
    case TypeId::kFloat32:
      return "FLOAT32";
    case TypeId::kFloat64:
      return "FLOAT64";
    case TypeId::kDecimal:
      return "DECIMAL(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kVarchar:
      return "VARCHAR";
    case TypeId::kBlob:
      return "BLOB";
    case TypeId::kDate:
      return "DATE";
    case TypeId::kTime:
      // The microsecond TIME keeps the name catalogs and files already store.
      return unit_ == TimeUnit::kMicro ? "TIME"
                                       : "TIME[" + std::string(TimeUnitSuffix(unit_)) + "]";
    case TypeId::kTimestamp:
      return "TIMESTAMP[" + std::string(TimeUnitSuffix(unit_)) + "]";
    case TypeId::kTimestampTz:
      return "TIMESTAMPTZ[" + std::string(TimeUnitSuffix(unit_)) + "]";
    case TypeId::kUuid:
      return "UUID";
    case TypeId::kIpv4:
      return "IPV4";
    case TypeId::kJson:
      return "JSON";
    case TypeId::kVariant:
      return "VARIANT";
    case TypeId::kArray:
      return "ARRAY<" + NestedText(element_field()) + ">";
    case TypeId::kMap:
      return "MAP<" + key_field().type.ToString() + ", " + NestedText(value_field()) + ">";
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      for (size_t i = 0; i < children_->size(); ++i) {
        if (i > 0) out.append(", ");
        AppendQuotedName((*children_)[i].name, &out);
        out.append(": ");
        out.append(NestedText((*children_)[i]));
      }
      return out + ">";
    }
  }
  return "UNKNOWN";
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i].name, name)) {
      if (found >= 0) return -1;  // ambiguous without an exact match
      found = static_cast<int>(i);
    }
  }
  return found;
}

std::string Schema::ToString() const {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out.append(", ");
    AppendQuotedName(fields[i].name, &out);
    out.push_back(' ');
    out.append(fields[i].type.ToString());
    if (!fields[i].nullable) out.append(" NOT NULL");
  }
  return out;
}

Result<Schema> Schema::Parse(std::string_view text) {
  TypeTextParser parser(text, "schema");
  Schema schema;
  std::unordered_set<std::string> seen;  // lower-cased names, for the duplicate check
  parser.SkipSpaces();
  if (parser.AtEnd()) return parser.Error(0, "no columns");
  while (true) {
    parser.SkipSpaces();
    size_t name_at = parser.pos();
    TARN_ASSIGN_OR_RETURN(std::string name, parser.ParseFieldName());
    std::string key = name;
    for (char& c : key) c = AsciiLower(c);
    if (!seen.insert(std::move(key)).second) {
      return parser.Error(name_at, "duplicate column name '" + Excerpt(name) + "'");
    }
    Field field;
    field.name = std::move(name);
    TARN_ASSIGN_OR_RETURN(field.type, parser.ParseType(0));
    TARN_ASSIGN_OR_RETURN(field.nullable, parser.ParseNullability());
    parser.SkipSpaces();
    if (!parser.AtEnd() && IsWordChar(parser.Peek())) {
      return parser.Error(parser.pos(),
                          "expected ',', NOT NULL or the end, found " + parser.Found(parser.pos()));
    }
    schema.fields.push_back(std::move(field));
    parser.SkipSpaces();
    if (parser.AtEnd()) break;
    if (!parser.Consume(',')) {
      return parser.Error(parser.pos(),
                          "expected ',' between columns, found " + parser.Found(parser.pos()));
    }
  }
  int32_t last_id = 0;
  for (Field& f : schema.fields) f.field_id = ++last_id;
  for (Field& f : schema.fields) {
    TARN_ASSIGN_OR_RETURN(f.type, AssignNestedIds(f.type, &last_id));
  }
  return schema;
}

}  // namespace tarn
