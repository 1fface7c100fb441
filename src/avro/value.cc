#include "avro/value.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "avro/avro_internal.h"
#include "common/utf8.h"

namespace tarn::avro {

using Json = nlohmann::ordered_json;

Union::Union() : value(std::make_unique<Value>()) {}
Union::Union(int32_t branch_, Value value_)
    : branch(branch_), value(std::make_unique<Value>(std::move(value_))) {}
Union::Union(const Union& other)
    : branch(other.branch), value(std::make_unique<Value>(*other.value)) {}
Union& Union::operator=(const Union& other) {
  if (this != &other) {
    branch = other.branch;
    value = std::make_unique<Value>(*other.value);
  }
  return *this;
}

namespace {

template <typename T>
bool SameBits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct Equal {
  const Value::Data& other;
  bool operator()(const Null&) const { return true; }
  template <typename T>
  const T& Other() const {
    return *std::get_if<T>(&other);
  }
  bool operator()(bool v) const { return v == Other<bool>(); }
  bool operator()(int32_t v) const { return v == Other<int32_t>(); }
  bool operator()(int64_t v) const { return v == Other<int64_t>(); }
  bool operator()(float v) const { return SameBits(v, Other<float>()); }
  bool operator()(double v) const { return SameBits(v, Other<double>()); }
  bool operator()(const Bytes& v) const { return v.data == Other<Bytes>().data; }
  bool operator()(const std::string& v) const { return v == Other<std::string>(); }
  bool operator()(const Record& v) const { return v.fields == Other<Record>().fields; }
  bool operator()(const Enum& v) const { return v.index == Other<Enum>().index; }
  bool operator()(const Array& v) const { return v.items == Other<Array>().items; }
  bool operator()(const Map& v) const { return v.entries == Other<Map>().entries; }
  bool operator()(const Union& v) const {
    const Union& o = Other<Union>();
    return v.branch == o.branch && *v.value == *o.value;
  }
  bool operator()(const Fixed& v) const { return v.data == Other<Fixed>().data; }
};

// Bytes as the code points U+0000..U+00FF, in UTF-8 (what the JSON encoding asks).
std::string Latin1(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) AppendUtf8(static_cast<uint8_t>(c), &out);
  return out;
}

template <typename F>
Json Number(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return static_cast<double>(v);
}

using internal::Mismatch;
using internal::ValidUtf8;

Result<Json> ToJsonValue(const Value& v, const Node& n, int depth) {
  if (depth > internal::kMaxValueDepth) {
    return Status::InvalidArgument("avro: value nested too deeply");
  }
  if (n.type == Type::kUnion) {
    TARN_ASSIGN_OR_RETURN(const Node* branch, internal::UnionBranch(v, n));
    const Union& u = v.as<Union>();
    const Node& b = *branch;
    TARN_ASSIGN_OR_RETURN(Json inner, ToJsonValue(*u.value, b, depth + 1));
    if (b.type == Type::kNull) return inner;
    Json out = Json::object();
    out[std::string(b.BranchName())] = std::move(inner);
    return out;
  }
  if (v.type() != n.type) return Mismatch(v, n);
  switch (n.type) {
    case Type::kNull:
      return Json(nullptr);
    case Type::kBoolean:
      return Json(v.as<bool>());
    case Type::kInt:
      return Json(v.as<int32_t>());
    case Type::kLong:
      return Json(v.as<int64_t>());
    case Type::kFloat:
      return Number(v.as<float>());
    case Type::kDouble:
      return Number(v.as<double>());
    case Type::kBytes:
      return Json(Latin1(v.as<Bytes>().data));
    case Type::kFixed:
      if (static_cast<int64_t>(v.as<Fixed>().data.size()) != n.size) {
        return Status::InvalidArgument("avro: a fixed value of the wrong size for " + n.name);
      }
      return Json(Latin1(v.as<Fixed>().data));
    case Type::kString:
      if (!ValidUtf8(v.as<std::string>())) {
        return Status::InvalidArgument("avro: a string that is not UTF-8");
      }
      return Json(v.as<std::string>());
    case Type::kEnum: {
      int32_t i = v.as<Enum>().index;
      if (i < 0 || static_cast<size_t>(i) >= n.symbols.size()) {
        return Status::InvalidArgument("avro: enum index " + std::to_string(i) + " of " + n.name);
      }
      return Json(n.symbols[i]);
    }
    case Type::kRecord: {
      const Record& r = v.as<Record>();
      if (r.fields.size() != n.fields.size()) {
        return Status::InvalidArgument("avro: a record of " + std::to_string(r.fields.size()) +
                                       " fields for " + n.name + " of " +
                                       std::to_string(n.fields.size()));
      }
      Json out = Json::object();
      for (size_t i = 0; i < r.fields.size(); ++i) {
        TARN_ASSIGN_OR_RETURN(out[n.fields[i].name],
                              ToJsonValue(r.fields[i], *n.fields[i].type, depth + 1));
      }
      return out;
    }
    case Type::kArray: {
      Json out = Json::array();
      for (const Value& item : v.as<Array>().items) {
        TARN_ASSIGN_OR_RETURN(Json j, ToJsonValue(item, *n.items, depth + 1));
        out.push_back(std::move(j));
      }
      return out;
    }
    case Type::kMap: {
      Json out = Json::object();
      for (const auto& [key, item] : v.as<Map>().entries) {
        if (!ValidUtf8(key)) return Status::InvalidArgument("avro: a map key that is not UTF-8");
        TARN_ASSIGN_OR_RETURN(out[key], ToJsonValue(item, *n.values, depth + 1));
      }
      return out;
    }
    case Type::kUnion:
      break;
  }
  return Mismatch(v, n);
}

}  // namespace

bool Value::operator==(const Value& other) const {
  if (data_.index() != other.data_.index()) return false;
  return std::visit(Equal{other.data_}, data_);
}

Result<std::string> ToJson(const Value& value, const Node& schema) {
  TARN_ASSIGN_OR_RETURN(Json j, ToJsonValue(value, schema, 0));
  return j.dump();
}

}  // namespace tarn::avro
