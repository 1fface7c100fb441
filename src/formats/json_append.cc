#include "formats/json_append.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "formats/reader_common.h"
#include "types/value_text.h"

namespace tarn::formats::internal {

namespace {

using Json = nlohmann::json;

// Parses delimited JSON text (its depth already checked by LineScanner::Nested) and returns its
// compact form; false when it is not JSON.
bool CompactJson(std::string_view raw, std::string* out) {
  Json j = Json::parse(raw.begin(), raw.end(), nullptr, false);
  if (j.is_discarded()) return false;
  try {
    *out = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  } catch (...) {
    *out = "null";
  }
  return true;
}

const char* KindOf(char c) {
  switch (c) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    case 't':
    case 'f':
      return "a boolean";
    default:
      return "a number";
  }
}

// What is left of the nesting allowed for a column's value inside a value at `depth`.
int DepthLeft(int depth) { return kMaxJsonDepth - (depth - 1); }

}  // namespace

bool JsonAppender::Append(LineScanner& sc, Column* col, bool nullable) {
  failure_ = Failure::kNone;
  path_.clear();
  return Value(sc, col, nullable, 1);
}

std::string JsonAppender::message() const {
  if (failure_ != Failure::kValue || path_.empty()) return why_;
  return path_ + ": " + why_;
}

bool JsonAppender::Malformed(std::string why) {
  failure_ = Failure::kMalformed;
  why_ = std::move(why);
  return false;
}

bool JsonAppender::Bad(std::string_view value, std::string why) {
  failure_ = Failure::kValue;
  value_.assign(value);
  why_ = std::move(why);
  path_.clear();
  return false;
}

bool JsonAppender::InMember(std::string_view name) {
  if (failure_ != Failure::kValue) return false;
  if (path_.empty() || path_[0] == '[') {
    path_.insert(0, name);
  } else {
    path_.insert(0, std::string(name) + ".");
  }
  return false;
}

bool JsonAppender::InElement(int64_t index) {
  if (failure_ != Failure::kValue) return false;
  std::string step = "[" + std::to_string(index) + "]";
  if (!path_.empty() && path_[0] != '[') step += ".";
  path_.insert(0, step);
  return false;
}

bool JsonAppender::InMapValue(const Column& keys, int64_t index) {
  if (failure_ != Failure::kValue) return false;
  std::string step = "[";
  AppendValueText(keys, index, &step);
  step += "]";
  if (!path_.empty() && path_[0] != '[') step += ".";
  path_.insert(0, step);
  return false;
}

bool JsonAppender::Value(LineScanner& sc, Column* col, bool nullable, int depth) {
  const char c = sc.Peek();
  if (c == 'n') {
    if (!sc.Literal("null")) return Malformed("a bad literal");
    if (!nullable) {
      return Bad("null", depth == 1 ? "null in a NOT NULL column" : "null in a NOT NULL field");
    }
    col->AppendNull();
    return true;
  }
  switch (col->type.id()) {
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
      return NestedValue(sc, col, nullable, c, depth);
    case TypeId::kJson:
      return JsonText(sc, col, c, depth);
    case TypeId::kVariant:
      return VariantValue(sc, col, c, depth);
    default:
      return Scalar(sc, col, c, depth);
  }
}

bool JsonAppender::Scalar(LineScanner& sc, Column* col, char c, int depth) {
  std::string_view raw;
  Status st;
  if (c == '"') {
    std::string_view value;
    if (const char* why = sc.String(&raw, &value, &scratch_)) return Malformed(why);
    st = AppendParsedValue(value, col);
    if (!st.ok()) return Bad(value, st.message());
    return true;
  }
  if (c == '{' || c == '[') {
    if (const char* why = sc.Nested(&raw, DepthLeft(depth))) return Malformed(why);
    std::string compact;
    if (!CompactJson(raw, &compact)) return Malformed("a nested value is not valid JSON");
    if (col->type.id() != TypeId::kVarchar) {
      return Bad(raw, std::string(KindOf(c)) + " is not a value of " + col->type.ToString());
    }
    col->AppendBytes(compact);
    return true;
  }
  if (c == 't' || c == 'f') {
    raw = c == 't' ? "true" : "false";
    if (!sc.Literal(raw)) return Malformed("a bad literal");
  } else if (const char* why = sc.Number(&raw)) {
    return Malformed(why);
  }
  st = AppendParsedValue(raw, col);
  if (!st.ok()) return Bad(raw, st.message());
  return true;
}

bool JsonAppender::RawValue(LineScanner& sc, char c, int depth, std::string_view* raw) {
  if (c == '"') {
    std::string_view value;
    if (const char* why = sc.String(raw, &value, &scratch_)) return Malformed(why);
    if (!IsValidUtf8(*raw)) return Bad(*raw, "the value is not valid UTF-8");
  } else if (c == '{' || c == '[') {
    if (const char* why = sc.Nested(raw, DepthLeft(depth))) return Malformed(why);
  } else if (c == 't' || c == 'f') {
    *raw = c == 't' ? "true" : "false";
    if (!sc.Literal(*raw)) return Malformed("a bad literal");
  } else if (const char* why = sc.Number(raw)) {
    return Malformed(why);
  }
  return true;
}

bool JsonAppender::JsonText(LineScanner& sc, Column* col, char c, int depth) {
  std::string_view raw;
  if (!RawValue(sc, c, depth, &raw)) return false;
  if (c == '{' || c == '[') {
    std::string compact;
    if (!CompactJson(raw, &compact)) return Malformed("a nested value is not valid JSON");
    col->AppendBytes(compact);
    return true;
  }
  col->AppendBytes(raw);
  return true;
}

bool JsonAppender::VariantValue(LineScanner& sc, Column* col, char c, int depth) {
  std::string_view raw;
  if (!RawValue(sc, c, depth, &raw)) return false;
  // Any JSON value is a VARIANT value: a string stays a string (it is not parsed again).
  Status st = AppendParsedValue(raw, col);
  if (!st.ok()) return Bad(raw, st.message());
  return true;
}

bool JsonAppender::NestedValue(LineScanner& sc, Column* col, bool nullable, char c, int depth) {
  if (depth > kMaxJsonDepth) return Malformed(kTooDeep);
  const TypeId id = col->type.id();
  if (c == '[' && id == TypeId::kArray) return Array(sc, col, depth);
  if (c == '{' && id == TypeId::kStruct) return Struct(sc, col, depth);
  if (c == '{' && id == TypeId::kMap) return MapObject(sc, col, depth);
  if (c == '[' && id == TypeId::kMap) return MapEntries(sc, col, depth);
  if (c != '"') return WrongKind(sc, *col, c, depth);
  // JSON text in a string: parsed as the value (a copy: the scanner's buffers are reused below).
  std::string_view raw, value;
  if (const char* why = sc.String(&raw, &value, &scratch_)) return Malformed(why);
  const std::string text(value);
  LineScanner inner(text);
  if (!Value(inner, col, nullable, depth + 1)) {
    if (failure_ == Failure::kValue) return false;
    return Bad(text, "the string is not JSON text: " + why_);
  }
  if (!inner.AtEnd()) return Bad(text, "the string is not JSON text: text after the value");
  return true;
}

bool JsonAppender::WrongKind(LineScanner& sc, const Column& col, char c, int depth) {
  std::string_view raw;
  if (c == '{' || c == '[') {
    if (const char* why = sc.Nested(&raw, DepthLeft(depth))) return Malformed(why);
  } else if (c == 't' || c == 'f') {
    raw = c == 't' ? "true" : "false";
    if (!sc.Literal(raw)) return Malformed("a bad literal");
  } else if (const char* why = sc.Number(&raw)) {
    return Malformed(why);
  }
  return Bad(raw, std::string(KindOf(c)) + " is not a value of " + col.type.ToString());
}

bool JsonAppender::Array(LineScanner& sc, Column* col, int depth) {
  sc.Consume('[');
  Column* child = col->child.get();
  const bool nullable = col->type.element_field().nullable;
  if (!sc.Consume(']')) {
    for (int64_t i = 0;; ++i) {
      if (!Value(sc, child, nullable, depth + 1)) return InElement(i);
      if (sc.Consume(',')) continue;
      if (sc.Consume(']')) break;
      return Malformed("expected ',' or ']'");
    }
  }
  col->AppendArrayRow();
  return true;
}

bool JsonAppender::Struct(LineScanner& sc, Column* col, int depth) {
  sc.Consume('{');
  const std::vector<Field>& fields = col->type.children();
  // A member with a value in this row is one longer than the struct column.
  const int64_t base = col->length;
  size_t hint = 0;
  if (!sc.Consume('}')) {
    while (true) {
      sc.SkipWs();
      std::string_view raw_key, key;
      if (const char* why = sc.String(&raw_key, &key, &key_scratch_)) return Malformed(why);
      if (!sc.Consume(':')) return Malformed("expected ':' after a key");
      const int m = MatchName(fields, key, hint);
      if (m < 0) {
        return Bad(key, "the key '" + std::string(key) + "' is not a member of the STRUCT");
      }
      Column* member = &col->members[m];
      if (member->length != base) {
        return Malformed("the key '" + std::string(key) + "' appears twice");
      }
      if (!Value(sc, member, fields[m].nullable, depth + 1)) return InMember(fields[m].name);
      hint = static_cast<size_t>(m) + 1;
      if (sc.Consume(',')) continue;
      if (sc.Consume('}')) break;
      return Malformed("expected ',' or '}'");
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    Column& member = col->members[i];
    if (member.length != base) continue;
    if (!fields[i].nullable) {
      Bad("", "missing, and the member is NOT NULL");
      return InMember(fields[i].name);
    }
    member.AppendNull();
  }
  col->AppendStructRow();
  return true;
}

bool JsonAppender::MapObject(LineScanner& sc, Column* col, int depth) {
  sc.Consume('{');
  Column* keys = &col->members[0];
  Column* values = &col->members[1];
  const bool nullable = col->type.value_field().nullable;
  const int64_t start = keys->length;
  if (!sc.Consume('}')) {
    while (true) {
      sc.SkipWs();
      std::string_view raw_key, key;
      if (const char* why = sc.String(&raw_key, &key, &key_scratch_)) return Malformed(why);
      if (!sc.Consume(':')) return Malformed("expected ':' after a key");
      Status st = AppendParsedValue(key, keys);
      if (!st.ok()) return Bad(key, "a MAP key: " + st.message());
      if (!Value(sc, values, nullable, depth + 1)) return InMapValue(*keys, keys->length - 1);
      if (sc.Consume(',')) continue;
      if (sc.Consume('}')) break;
      return Malformed("expected ',' or '}'");
    }
  }
  if (!UniqueKeys(*keys, start)) return false;
  col->AppendArrayRow();
  return true;
}

bool JsonAppender::MapEntries(LineScanner& sc, Column* col, int depth) {
  sc.Consume('[');
  Column* keys = &col->members[0];
  Column* values = &col->members[1];
  const bool nullable = col->type.value_field().nullable;
  const int64_t start = keys->length;
  if (!sc.Consume(']')) {
    for (int64_t i = 0;; ++i) {
      const char c = sc.Peek();
      if (c != '{') {
        WrongKind(sc, *col, c, depth + 1);
        if (failure_ == Failure::kValue) {
          why_ = "an entry of a MAP is " + std::string(KindOf(c)) +
                 ", not an object {\"key\": .., \"value\": ..}";
        }
        return InElement(i);
      }
      sc.Consume('{');
      const int64_t entry = keys->length;
      bool has_value = false;
      if (!sc.Consume('}')) {
        while (true) {
          sc.SkipWs();
          std::string_view raw_key, key;
          if (const char* why = sc.String(&raw_key, &key, &key_scratch_)) return Malformed(why);
          if (!sc.Consume(':')) return Malformed("expected ':' after a key");
          if (key == "key" && keys->length == entry) {
            if (!Value(sc, keys, false, depth + 2)) {
              InMember("key");
              return InElement(i);
            }
          } else if (key == "value" && !has_value) {
            has_value = true;
            if (!Value(sc, values, nullable, depth + 2)) {
              InMember("value");
              return InElement(i);
            }
          } else if (key == "key" || key == "value") {
            return Malformed("the key '" + std::string(key) + "' appears twice");
          } else {
            Bad(key, "an entry of a MAP holds only \"key\" and \"value\", not '" +
                         std::string(key) + "'");
            return InElement(i);
          }
          if (sc.Consume(',')) continue;
          if (sc.Consume('}')) break;
          return Malformed("expected ',' or '}'");
        }
      }
      if (keys->length == entry) {
        Bad("", "an entry of a MAP without a \"key\"");
        return InElement(i);
      }
      if (!has_value) {
        if (!nullable) {
          Bad("", "an entry without a \"value\", and the MAP's values are NOT NULL");
          return InElement(i);
        }
        values->AppendNull();
      }
      if (sc.Consume(',')) continue;
      if (sc.Consume(']')) break;
      return Malformed("expected ',' or ']'");
    }
  }
  if (!UniqueKeys(*keys, start)) return false;
  col->AppendArrayRow();
  return true;
}

bool JsonAppender::UniqueKeys(const Column& keys, int64_t start) {
  const int64_t n = keys.length - start;
  if (n < 2) return true;
  const int width = keys.type.PhysicalWidth();
  auto at = [&](int64_t i) -> std::string_view {
    if (width > 0) {
      return {reinterpret_cast<const char*>(keys.data.data()) + i * width,
              static_cast<size_t>(width)};
    }
    return keys.StringAt(i);
  };
  int64_t dup = -1;
  if (n <= 16) {
    for (int64_t i = start + 1; i < keys.length && dup < 0; ++i) {
      for (int64_t j = start; j < i; ++j) {
        if (at(i) == at(j)) {
          dup = i;
          break;
        }
      }
    }
  } else {
    key_views_.clear();
    for (int64_t i = start; i < keys.length; ++i) key_views_.push_back(at(i));
    std::sort(key_views_.begin(), key_views_.end());
    auto it = std::adjacent_find(key_views_.begin(), key_views_.end());
    if (it != key_views_.end()) {
      for (int64_t i = start; i < keys.length; ++i) {
        if (at(i) == *it) dup = i;
      }
    }
  }
  if (dup < 0) return true;
  std::string shown;
  AppendValueText(keys, dup, &shown);
  return Bad(shown, "the key '" + shown + "' appears twice in a MAP");
}

}  // namespace tarn::formats::internal
