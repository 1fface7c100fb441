// avro::Value: one generic value of any Avro type, what the encoder writes and the decoder reads.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "avro/schema.h"
#include "tarn/status.h"

namespace tarn::avro {

class Value;

struct Null {};
struct Bytes {
  std::string data;
};
struct Fixed {
  std::string data;  // exactly the fixed type's size
};
struct Enum {
  int32_t index = 0;  // into the enum's symbols
};
struct Record {
  std::vector<Value> fields;  // by field position
};
struct Array {
  std::vector<Value> items;
};
struct Map {
  std::vector<std::pair<std::string, Value>> entries;  // in order; keys as written
};
// A value of a union: which branch, and the value of that branch's type.
struct Union {
  int32_t branch = 0;
  std::unique_ptr<Value> value;  // never null

  Union();
  Union(int32_t branch, Value value);
  Union(const Union& other);
  Union& operator=(const Union& other);
  Union(Union&&) noexcept = default;
  Union& operator=(Union&&) noexcept = default;
};

// A value. Its alternatives are in the order of avro::Type, so type() is the alternative's
// index: Null, bool, int32_t (int), int64_t (long), float, double, Bytes, std::string (string),
// Record, Enum, Array, Map, Union, Fixed. Which schema node it belongs to is the caller's to
// know; Encode checks the two agree.
class Value {
 public:
  using Data = std::variant<Null, bool, int32_t, int64_t, float, double, Bytes, std::string, Record,
                            Enum, Array, Map, Union, Fixed>;

  Value() = default;  // null
  explicit Value(Null v) : data_(v) {}
  explicit Value(bool v) : data_(v) {}
  explicit Value(int32_t v) : data_(v) {}
  explicit Value(int64_t v) : data_(v) {}
  explicit Value(float v) : data_(v) {}
  explicit Value(double v) : data_(v) {}
  explicit Value(Bytes v) : data_(std::move(v)) {}
  explicit Value(std::string v) : data_(std::move(v)) {}
  explicit Value(const char* v) : data_(std::string(v)) {}
  explicit Value(Record v) : data_(std::move(v)) {}
  explicit Value(Enum v) : data_(v) {}
  explicit Value(Array v) : data_(std::move(v)) {}
  explicit Value(Map v) : data_(std::move(v)) {}
  explicit Value(Union v) : data_(std::move(v)) {}
  explicit Value(Fixed v) : data_(std::move(v)) {}

  Type type() const { return static_cast<Type>(data_.index()); }
  const Data& data() const { return data_; }
  Data& data() { return data_; }
  // The value as alternative T; T must be the one held (a programmer error otherwise: aborts).
  template <typename T>
  const T& as() const {
    const T* p = std::get_if<T>(&data_);
    if (!p) std::abort();
    return *p;
  }
  template <typename T>
  T& as() {
    T* p = std::get_if<T>(&data_);
    if (!p) std::abort();
    return *p;
  }

  // Same type and same value; floats and doubles compare by bits (NaN equals the same NaN).
  bool operator==(const Value& other) const;

 private:
  Data data_;
};

// A union value: branch `branch` holding `value`.
inline Value MakeUnion(int32_t branch, Value value) {
  return Value(Union(branch, std::move(value)));
}

// `value` of type `schema` in Avro's JSON encoding (the spec's "JSON Encoding": bytes and fixed
// as strings of code points U+0000..U+00FF, a union as null or {"<branch name>": value}, enum as
// its symbol), for people and tests. kInvalidArgument when the value does not match the schema;
// NaN and infinities (which JSON cannot carry) as the strings "NaN", "Infinity", "-Infinity".
Result<std::string> ToJson(const Value& value, const Node& schema);

}  // namespace tarn::avro
