#include "types/cast.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn {

namespace {

// ---- Type families ----

bool IsTemporal(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampTz;
}

bool IsNumeric(const DataType& t) {
  return t.id() == TypeId::kBoolean || t.is_integer() || t.is_floating() ||
         t.id() == TypeId::kDecimal;
}

// Decimal digits needed for every value of an integer type.
int IntegerDigits(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 3;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 5;
    case TypeId::kInt32:
    case TypeId::kUInt32:
      return 10;
    case TypeId::kInt64:
      return 19;
    case TypeId::kUInt64:
      return 20;
    default:
      return 0;
  }
}

// Value bits of an integer type (magnitude bits, not counting the sign).
int IntegerValueBits(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return 7;
    case TypeId::kInt16:
      return 15;
    case TypeId::kInt32:
      return 31;
    case TypeId::kInt64:
      return 63;
    case TypeId::kUInt8:
      return 8;
    case TypeId::kUInt16:
      return 16;
    case TypeId::kUInt32:
      return 32;
    case TypeId::kUInt64:
      return 64;
    default:
      return 0;
  }
}

bool IsSignedInteger(TypeId id) { return id >= TypeId::kInt8 && id <= TypeId::kInt64; }

// ---- Numeric conversion, one value at a time ----

enum class NumKind { kBool, kInt, kDecimal, kFloat };

template <typename T, NumKind K>
struct Num {
  using Type = T;
  static constexpr NumKind kKind = K;
};

// Calls f(Num<...>{}) for a numeric type id; false for any other type.
template <typename F>
bool VisitNumeric(TypeId id, F&& f) {
  switch (id) {
    case TypeId::kBoolean:
      f(Num<uint8_t, NumKind::kBool>{});
      return true;
    case TypeId::kInt8:
      f(Num<int8_t, NumKind::kInt>{});
      return true;
    case TypeId::kInt16:
      f(Num<int16_t, NumKind::kInt>{});
      return true;
    case TypeId::kInt32:
      f(Num<int32_t, NumKind::kInt>{});
      return true;
    case TypeId::kInt64:
      f(Num<int64_t, NumKind::kInt>{});
      return true;
    case TypeId::kUInt8:
      f(Num<uint8_t, NumKind::kInt>{});
      return true;
    case TypeId::kUInt16:
      f(Num<uint16_t, NumKind::kInt>{});
      return true;
    case TypeId::kUInt32:
      f(Num<uint32_t, NumKind::kInt>{});
      return true;
    case TypeId::kUInt64:
      f(Num<uint64_t, NumKind::kInt>{});
      return true;
    case TypeId::kFloat32:
      f(Num<float, NumKind::kFloat>{});
      return true;
    case TypeId::kFloat64:
      f(Num<double, NumKind::kFloat>{});
      return true;
    case TypeId::kDecimal:
      f(Num<int128, NumKind::kDecimal>{});
      return true;
    default:
      return false;
  }
}

struct Pow10Table {
  int128 value[39];
  constexpr Pow10Table() : value() {
    value[0] = 1;
    for (int i = 1; i < 39; ++i) value[i] = value[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;

template <typename F>
bool ParseFloatChars(const char* begin, const char* end, F* out) {
  auto r = std::from_chars(begin, end, *out, std::chars_format::general);
  return r.ec == std::errc() && r.ptr == end;
}

// Converts `v` (an exact number: unscaled `v` * 10^-scale) to D. On failure sets *why to a
// phrase that follows the quoted value ("is out of range for INT8").
template <typename D>
bool ExactTo(int128 v, int scale, const DataType& to, typename D::Type* out, std::string* why) {
  using DT = typename D::Type;
  if constexpr (D::kKind == NumKind::kBool) {
    if (v != 0 && v != kPow10.value[scale]) {
      *why = "is not 0 or 1";
      return false;
    }
    *out = v != 0;
    return true;
  } else if constexpr (D::kKind == NumKind::kInt) {
    if (scale > 0) {
      if (v % kPow10.value[scale] != 0) {
        *why = "has a fraction, " + to.ToString() + " has none";
        return false;
      }
      v /= kPow10.value[scale];
    }
    if (v < static_cast<int128>(std::numeric_limits<DT>::min()) ||
        v > static_cast<int128>(std::numeric_limits<DT>::max())) {
      *why = "is out of range for " + to.ToString();
      return false;
    }
    *out = static_cast<DT>(v);
    return true;
  } else if constexpr (D::kKind == NumKind::kDecimal) {
    const int to_scale = to.scale();
    if (to_scale >= scale) {
      const int up = to_scale - scale;
      const int room = to.precision() - up;  // digits v may have before scaling up
      if (room <= 0 ? v != 0 : (v >= kPow10.value[room] || v <= -kPow10.value[room])) {
        *why = "is out of range for " + to.ToString();
        return false;
      }
      *out = v * kPow10.value[up];
    } else {
      const int128 divisor = kPow10.value[scale - to_scale];
      if (v % divisor != 0) {
        *why = "has more than " + std::to_string(to_scale) + " fraction digits, the scale of " +
               to.ToString();
        return false;
      }
      v /= divisor;
      if (v >= kPow10.value[to.precision()] || v <= -kPow10.value[to.precision()]) {
        *why = "is out of range for " + to.ToString();
        return false;
      }
      *out = v;
    }
    return true;
  } else {  // float: round to nearest
    if (scale == 0) {
      *out = static_cast<DT>(v);  // int128 -> float rounds to nearest
    } else {
      char buf[kMaxDecimalChars];
      size_t len = FormatDecimal(v, scale, buf);
      if (!ParseFloatChars(buf, buf + len, out)) {
        *why = "is out of range for " + to.ToString();
        return false;
      }
    }
    return true;
  }
}

template <typename S, typename D>
bool Convert(typename S::Type v, const DataType& from, const DataType& to, typename D::Type* out,
             std::string* why) {
  using DT = typename D::Type;
  if constexpr (S::kKind == NumKind::kBool || S::kKind == NumKind::kInt) {
    return ExactTo<D>(static_cast<int128>(v), 0, to, out, why);
  } else if constexpr (S::kKind == NumKind::kDecimal) {
    return ExactTo<D>(v, from.scale(), to, out, why);
  } else {  // from a float
    if constexpr (D::kKind == NumKind::kFloat) {
      *out = static_cast<DT>(v);
      if (std::isinf(*out) && !std::isinf(v)) {
        *why = "is out of range for " + to.ToString();
        return false;
      }
      return true;
    } else {
      if (!std::isfinite(v)) {
        *why = "is not a finite number";
        return false;
      }
      if constexpr (D::kKind == NumKind::kBool) {
        if (v != 0 && v != 1) {
          *why = "is not 0 or 1";
          return false;
        }
        *out = v != 0;
        return true;
      } else if constexpr (D::kKind == NumKind::kInt) {
        const double d = static_cast<double>(v);
        if (std::trunc(d) != d) {
          *why = "has a fraction, " + to.ToString() + " has none";
          return false;
        }
        constexpr int kBits = std::numeric_limits<DT>::digits;  // value bits
        const double limit = std::ldexp(1.0, kBits);            // exclusive upper bound
        const double lowest = std::is_signed_v<DT> ? -limit : 0.0;
        if (!(d >= lowest && d < limit)) {
          *why = "is out of range for " + to.ToString();
          return false;
        }
        *out = static_cast<DT>(d);
        return true;
      } else {  // float -> DECIMAL through the shortest text, so 0.1 is 0.1
        char buf[kMaxFloatChars];
        auto r = std::to_chars(buf, buf + sizeof(buf), v);
        int128 unscaled = 0;
        switch (TryParseDecimal(std::string_view(buf, r.ptr - buf), to.precision(), to.scale(),
                                &unscaled)) {
          case DecimalParseError::kOk:
            *out = unscaled;
            return true;
          case DecimalParseError::kTooManyFractionDigits:
            *why = "has more than " + std::to_string(to.scale()) +
                   " fraction digits, the scale of " + to.ToString();
            return false;
          default:
            *why = "is out of range for " + to.ToString();
            return false;
        }
      }
    }
  }
}

// The error for row `row` of `in`; CastColumn adds the "row N: cannot cast" context.
Status ValueError(const Column& in, int64_t row, std::string_view why) {
  std::string value = ValueText(in, row);
  constexpr size_t kMax = 64;
  std::string shown = value.size() <= kMax ? value : value.substr(0, kMax) + "...";
  return Status::InvalidArgument("'" + shown + "' " + std::string(why))
      .WithField("row", std::to_string(row))
      .WithField("value", std::move(value));
}

// Output column of a fixed-width type with the input's length and nulls; data uninitialised.
Column NewFixedOutput(const DataType& to, const Column& in) {
  Column out(to);
  out.length = in.length;
  out.validity = in.validity;
  out.data.resize(static_cast<size_t>(in.length) * to.PhysicalWidth());
  return out;
}

template <typename S, typename D>
Status CastNumericLoop(const Column& in, const DataType& to, Column* out) {
  using ST = typename S::Type;
  using DT = typename D::Type;
  const uint8_t* src = in.data.data();
  uint8_t* dst = out->data.data();
  std::string why;
  for (int64_t i = 0; i < in.length; ++i) {
    DT result{};
    if (in.IsValid(i)) {
      ST v;
      std::memcpy(&v, src + i * sizeof(ST), sizeof(ST));
      if (!Convert<S, D>(v, in.type, to, &result, &why)) return ValueError(in, i, why);
    }
    std::memcpy(dst + i * sizeof(DT), &result, sizeof(DT));
  }
  return Status::OK();
}

Status CastNumeric(const Column& in, const DataType& to, Column* out) {
  *out = NewFixedOutput(to, in);
  Status status;
  VisitNumeric(in.type.id(), [&](auto s) {
    VisitNumeric(to.id(),
                 [&](auto d) { status = CastNumericLoop<decltype(s), decltype(d)>(in, to, out); });
  });
  return status;
}

// ---- DATE / TIMESTAMP / TIMESTAMPTZ ----

constexpr int64_t kSecondsPerDay = 86400;

// Units of `type` per day (DATE counts days). CastTemporal also changes TIME's unit (TIME never
// meets DATE or TIMESTAMP): a TIME value is far from int64's limits in either unit.
int64_t TemporalUnitsPerDay(const DataType& type) {
  if (type.id() == TypeId::kDate) return 1;
  return kSecondsPerDay * UnitsPerSecond(type.unit());
}

Status CastTemporal(const Column& in, const DataType& to, Column* out) {
  *out = NewFixedOutput(to, in);
  const bool from_date = in.type.id() == TypeId::kDate;
  const bool to_date = to.id() == TypeId::kDate;
  // Both sides as units per day; the ratio is a power of ten times 86400 or its inverse.
  const int64_t from_per_day = TemporalUnitsPerDay(in.type);
  const int64_t to_per_day = TemporalUnitsPerDay(to);
  const bool finer = to_per_day >= from_per_day;
  const int64_t factor = finer ? to_per_day / from_per_day : from_per_day / to_per_day;
  for (int64_t i = 0; i < in.length; ++i) {
    int64_t v = 0;
    if (in.IsValid(i)) {
      v = from_date ? in.Value<int32_t>(i) : in.Value<int64_t>(i);
      if (finer) {
        if (__builtin_mul_overflow(v, factor, &v)) {
          return ValueError(in, i, "is out of range for " + to.ToString());
        }
      } else {
        if (v % factor != 0) {
          return ValueError(in, i,
                            to_date ? "is not at midnight, DATE has no time of day"
                                    : "has a fraction finer than " + to.ToString());
        }
        v /= factor;
      }
    }
    if (to_date) {
      if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
        return ValueError(in, i, "is out of range for DATE");
      }
      int32_t d = static_cast<int32_t>(v);
      std::memcpy(out->data.data() + i * 4, &d, 4);
    } else {
      std::memcpy(out->data.data() + i * 8, &v, 8);
    }
  }
  return Status::OK();
}

// ---- Text ----

// T -> VARCHAR (canonical text) and ARRAY -> VARCHAR/JSON (JSON rendering).
Status FormatToText(const Column& in, const DataType& to, Column* out) {
  *out = Column(to);
  out->data.reserve(static_cast<size_t>(in.length) * 8);
  out->offsets.reserve(static_cast<size_t>(in.length) + 1);
  std::string text;
  for (int64_t i = 0; i < in.length; ++i) {
    if (!in.IsValid(i)) {
      out->AppendNull();
      continue;
    }
    text.clear();
    if (in.type.is_nested()) {
      AppendJsonValue(in, i, &text);
    } else {
      AppendValueText(in, i, &text);
    }
    out->AppendBytes(text);
  }
  return Status::OK();
}

// VARCHAR -> T by parsing.
Status ParseFromText(const Column& in, const DataType& to, Column* out) {
  *out = Column(to);
  if (to.PhysicalWidth() > 0)
    out->data.reserve(static_cast<size_t>(in.length) * to.PhysicalWidth());
  for (int64_t i = 0; i < in.length; ++i) {
    if (!in.IsValid(i)) {
      out->AppendNull();
      continue;
    }
    Status st = AppendParsedValue(in.StringAt(i), out);
    if (!st.ok()) {
      return Status::InvalidArgument(st.message())
          .WithField("row", std::to_string(i))
          .WithField("value", std::string(in.StringAt(i)));
    }
  }
  return Status::OK();
}

Status CastImpl(const Column& in, const DataType& to, Column* out);

// A failure of an element (of an ARRAY or MAP entry) reported for the row that holds it.
Status ElementFailure(const Column& in, const Status& st) {
  int64_t element = -1;
  std::string value;
  for (const auto& [key, field_value] : st.fields()) {
    if (key == "row") {
      std::from_chars(field_value.data(), field_value.data() + field_value.size(), element);
    }
    if (key == "value") value = field_value;
  }
  int64_t row = -1;
  if (element >= 0 && !in.offsets.empty()) {
    auto it = std::upper_bound(in.offsets.begin(), in.offsets.end(), element);
    row = static_cast<int64_t>(it - in.offsets.begin()) - 1;
    if (row >= in.length) row = -1;
  }
  return Status::InvalidArgument("element " + std::to_string(element) + ": " + st.message())
      .WithField("row", std::to_string(row))
      .WithField("value", std::move(value));
}

// ARRAY -> ARRAY, MAP -> MAP, STRUCT -> STRUCT (CanCast checked the shapes).
Status CastNested(const Column& in, const DataType& to, Column* out) {
  Column cast(to);
  cast.length = in.length;
  cast.validity = in.validity;
  if (to.id() == TypeId::kArray) {
    Status st = CastImpl(*in.child, to.element(), cast.child.get());
    if (!st.ok()) return ElementFailure(in, st);
  } else {
    for (size_t i = 0; i < in.members.size(); ++i) {
      Status st = CastImpl(in.members[i], to.children()[i].type, &cast.members[i]);
      if (!st.ok() && to.id() == TypeId::kMap) return ElementFailure(in, st);
      if (!st.ok()) {
        Status member =
            Status::InvalidArgument("member " + to.children()[i].name + ": " + st.message());
        for (const auto& [key, value] : st.fields())
          member = std::move(member).WithField(key, value);
        return member;
      }
    }
  }
  if (to.is_repeated()) cast.offsets = in.offsets;
  *out = std::move(cast);
  return Status::OK();
}

Status CastImpl(const Column& in, const DataType& to, Column* out) {
  const DataType& from = in.type;
  if (from == to) {
    *out = in.Clone();
    return Status::OK();
  }
  if (from.id() == TypeId::kVariant) return FormatToText(in, to, out);  // VARCHAR or JSON
  if (to.id() == TypeId::kVariant) return ParseFromText(in, to, out);   // from VARCHAR or JSON
  if (from.is_nested()) {
    if (to.is_nested()) return CastNested(in, to, out);
    return FormatToText(in, to, out);  // VARCHAR or JSON
  }
  if (to.id() == TypeId::kVarchar) {
    if (from.id() == TypeId::kJson) {  // same bytes
      *out = in.Clone();
      out->type = to;
      return Status::OK();
    }
    return FormatToText(in, to, out);
  }
  if (from.id() == TypeId::kVarchar) return ParseFromText(in, to, out);
  if (from.id() == TypeId::kJson && to.is_nested()) return ParseFromText(in, to, out);
  if (IsNumeric(from) && IsNumeric(to)) return CastNumeric(in, to, out);
  if (IsTemporal(from.id()) && IsTemporal(to.id())) return CastTemporal(in, to, out);
  if (from.id() == TypeId::kTime && to.id() == TypeId::kTime) return CastTemporal(in, to, out);
  return Status::Internal("no cast from " + from.ToString() + " to " + to.ToString());
}

}  // namespace

bool IsLosslessWidening(const DataType& from, const DataType& to) {
  if (from == to) return false;
  const TypeId f = from.id();
  const TypeId t = to.id();
  if (from.is_integer()) {
    if (to.is_integer()) {
      // Signed targets need a spare sign bit; unsigned targets take no negatives.
      if (IsSignedInteger(f) && !IsSignedInteger(t)) return false;
      return IntegerValueBits(t) >= IntegerValueBits(f);
    }
    if (t == TypeId::kFloat32) return IntegerValueBits(f) <= 24;
    if (t == TypeId::kFloat64) return IntegerValueBits(f) <= 53;
    if (t == TypeId::kDecimal) return to.precision() - to.scale() >= IntegerDigits(f);
    return false;
  }
  if (f == TypeId::kFloat32) return t == TypeId::kFloat64;
  if (f == TypeId::kDecimal) {
    if (t == TypeId::kDecimal) {
      return to.precision() - to.scale() >= from.precision() - from.scale() &&
             to.scale() >= from.scale();
    }
    // DECIMAL(p,0) fits a signed integer of more than p digits.
    if (IsSignedInteger(t) && from.scale() == 0) return from.precision() < IntegerDigits(t);
    return false;
  }
  if (f == TypeId::kJson) return t == TypeId::kVarchar;
  if (f == TypeId::kArray) {
    return t == TypeId::kArray && IsLosslessWidening(from.element(), to.element());
  }
  if (f == TypeId::kMap) {  // keys stay as they are: a key's type is part of its identity
    return t == TypeId::kMap && from.key_field().type == to.key_field().type &&
           IsLosslessWidening(from.value_field().type, to.value_field().type);
  }
  if (f == TypeId::kStruct) {
    // The same members by name and order, each the same or widened (from != to, so one is).
    if (t != TypeId::kStruct || from.children().size() != to.children().size()) return false;
    for (size_t i = 0; i < from.children().size(); ++i) {
      const Field& a = from.children()[i];
      const Field& b = to.children()[i];
      if (a.name != b.name || !(a.type == b.type || IsLosslessWidening(a.type, b.type))) {
        return false;
      }
    }
    return true;
  }
  return false;
}

bool CanCast(const DataType& from, const DataType& to) {
  if (from == to) return true;
  if (from.id() == TypeId::kVariant || to.id() == TypeId::kVariant) {
    // JSON text both ways; a VARIANT holds values of every type, so no other type takes it.
    const TypeId other = from.id() == TypeId::kVariant ? to.id() : from.id();
    return other == TypeId::kVarchar || other == TypeId::kJson;
  }
  if (from.is_nested()) {
    if (!to.is_nested()) return to.id() == TypeId::kVarchar || to.id() == TypeId::kJson;
    // Same kind; STRUCT members matched by name and position (renames are schema evolution).
    if (from.id() != to.id() || from.children().size() != to.children().size()) return false;
    for (size_t i = 0; i < from.children().size(); ++i) {
      if (from.id() == TypeId::kStruct && from.children()[i].name != to.children()[i].name) {
        return false;
      }
      if (!CanCast(from.children()[i].type, to.children()[i].type)) return false;
    }
    return true;
  }
  if (to.is_nested()) return from.id() == TypeId::kVarchar || from.id() == TypeId::kJson;
  if (to.id() == TypeId::kVarchar || from.id() == TypeId::kVarchar) return true;
  if (IsNumeric(from) && IsNumeric(to)) return true;
  if (IsTemporal(from.id()) && IsTemporal(to.id())) return true;
  if (from.id() == TypeId::kTime && to.id() == TypeId::kTime) return true;  // us <-> ns
  return false;
}

Result<Column> CastColumn(const Column& input, const DataType& to) {
  if (!CanCast(input.type, to)) {
    return Status::InvalidArgument("cannot cast " + input.type.ToString() + " to " + to.ToString());
  }
  Column out;
  Status st = CastImpl(input, to, &out);
  if (!st.ok()) {
    std::string row = "?";
    for (const auto& [key, value] : st.fields()) {
      if (key == "row") row = value;
    }
    std::string message = "row " + row + ": cannot cast " + input.type.ToString() + " to " +
                          to.ToString() + ": " + st.message();
    Status result(st.kind(), std::move(message));
    for (const auto& [key, value] : st.fields()) result = std::move(result).WithField(key, value);
    return result;
  }
  return out;
}

}  // namespace tarn
