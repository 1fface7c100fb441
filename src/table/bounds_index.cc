#include "table/bounds_index.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

#include "table/ordered_key.h"
#include "types/iceberg.h"

namespace tarn::bounds_index {

namespace {

// Up to 8 bytes of `key` from `at`, big-endian, missing bytes zero.
uint64_t BigEndian(std::string_view key, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = at + i < key.size() ? static_cast<uint8_t>(key[at + i]) : 0;
    v = (v << 8) | b;
  }
  return v;
}

// Points of the unsigned 64-bit scale: the top 62 bits, moved off zero.
int64_t FromUnsigned(uint64_t u) { return static_cast<int64_t>(u >> 2) + 1; }

// Points of signed values: offset binary, then as above.
int64_t FromSigned(int64_t v) {
  return FromUnsigned(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63));
}

// The signed value of an OrderedKey of a `width`-byte signed integer (sign bit flipped).
int64_t SignedKey(std::string_view key, size_t width) {
  uint64_t u = BigEndian(key, 0, width);
  const int bits = static_cast<int>(8 * width);
  u ^= uint64_t{1} << (bits - 1);
  if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~uint64_t{0} << bits;  // sign-extend
  return static_cast<int64_t>(u);
}

// A double's OrderedKey bits (sign flipped for positives, all bits for negatives).
uint64_t DoubleKey(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  constexpr uint64_t kSign = uint64_t{1} << 63;
  return (bits & kSign) ? ~bits : (bits | kSign);
}

// The float a FLOAT32 OrderedKey holds.
float FloatOfKey(std::string_view key) {
  auto bits = static_cast<uint32_t>(BigEndian(key, 0, 4));
  constexpr uint32_t kSign = uint32_t{1} << 31;
  bits = (bits & kSign) ? (bits & ~kSign) : ~bits;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Whether any IS [NOT] NULL test of `field_id` appears (under a NOT, either may become the
// other).
bool TestsNull(const BoundPredicate& p, int32_t field_id) {
  if (p.op == PredicateOp::kIsNull || p.op == PredicateOp::kIsNotNull) {
    return p.field_id == field_id;
  }
  for (const BoundPredicate& c : p.children) {
    if (TestsNull(c, field_id)) return true;
  }
  return false;
}

// The type of the first leaf on `field_id`, or nullptr.
const DataType* LeafType(const BoundPredicate& p, int32_t field_id) {
  if (p.children.empty()) {
    const bool leaf = p.op != PredicateOp::kTrue && p.op != PredicateOp::kFalse;
    return leaf && p.field_id == field_id ? &p.type : nullptr;
  }
  for (const BoundPredicate& c : p.children) {
    if (const DataType* t = LeafType(c, field_id)) return t;
  }
  return nullptr;
}

// More points than this in an IN list are asked as one interval from the first to the last.
constexpr size_t kMaxPoints = 16;

}  // namespace

int64_t Point(const DataType& type, std::string_view key) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return FromSigned(key.empty() ? 0 : static_cast<uint8_t>(key[0]));
    case TypeId::kInt8:
      return FromSigned(SignedKey(key, 1));
    case TypeId::kInt16:
      return FromSigned(SignedKey(key, 2));
    case TypeId::kInt32:
    case TypeId::kDate:
      return FromSigned(SignedKey(key, 4));
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return FromSigned(SignedKey(key, 8));
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kIpv4:
    case TypeId::kUInt64: {
      const uint64_t u = BigEndian(key, 0, std::min<size_t>(key.size(), 8));
      return FromSigned(static_cast<int64_t>(
          std::min<uint64_t>(u, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))));
    }
    case TypeId::kFloat32:
      return FromUnsigned(DoubleKey(static_cast<double>(FloatOfKey(key))));
    case TypeId::kFloat64:
      return FromUnsigned(BigEndian(key, 0, 8));
    case TypeId::kDecimal: {
      // 16 bytes, two's complement with the sign bit flipped: the high word says whether the
      // value fits 64 bits (all sign bits), else it saturates.
      const uint64_t high = BigEndian(key, 0, 8) ^ (uint64_t{1} << 63);
      const uint64_t low = BigEndian(key, 8, 8);
      const auto h = static_cast<int64_t>(high);
      const bool negative = h < 0;
      if (h == (negative ? -1 : 0) && ((low >> 63) != 0) == negative) {
        return FromSigned(static_cast<int64_t>(low));
      }
      return negative ? FromSigned(std::numeric_limits<int64_t>::min())
                      : FromSigned(std::numeric_limits<int64_t>::max());
    }
    default:
      return FromUnsigned(BigEndian(key, 0, 8));
  }
}

int64_t Fork(Interval iv) {
  const auto l = static_cast<uint64_t>(iv.lo);
  const auto u = static_cast<uint64_t>(iv.hi);
  if (l == u) return iv.lo;
  const int d = 63 - __builtin_clzll(l ^ u);      // the highest bit where they differ (l has 0)
  const uint64_t below = (uint64_t{2} << d) - 1;  // d <= 62
  if ((l & below) == 0) return iv.lo;             // l itself is the higher node
  return static_cast<int64_t>((u >> d) << d);
}

Probe ProbeOf(Interval q) {
  Probe p;
  p.span = q;
  // The ancestors of x: for each level k from x's own (its lowest set bit) to the root's, the
  // node of that level whose subtree holds x.
  auto ancestors = [](uint64_t x, const std::function<void(int64_t)>& fn) {
    for (int k = __builtin_ctzll(x); k <= 62; ++k) {
      const uint64_t high = (x >> (k + 1)) << (k + 1);  // k <= 62
      fn(static_cast<int64_t>(high | (uint64_t{1} << k)));
    }
  };
  ancestors(static_cast<uint64_t>(q.lo), [&](int64_t v) {
    if (v < q.lo) p.left.push_back(v);
  });
  ancestors(static_cast<uint64_t>(q.hi), [&](int64_t v) {
    if (v > q.hi) p.right.push_back(v);
  });
  return p;
}

std::optional<Entry> FileEntry(const DataFile& file, int32_t field_id, const DataType& type) {
  if (file.record_count == 0) return std::nullopt;
  const ColumnStats* s = file.FindStats(field_id);
  if (s == nullptr) return Entry{};
  // As MightMatch reads them: counts that say every value is null rule out every comparison.
  if (s->value_count > 0 && s->null_count >= s->value_count) return std::nullopt;
  if (!s->lower || !s->upper) return Entry{};
  Result<Column> lo = DecodeBound(type, *s->lower);
  Result<Column> hi = DecodeBound(type, *s->upper);
  if (!lo.ok() || !hi.ok() || lo->length != 1 || hi->length != 1) return Entry{};
  const std::string lo_key = OrderedKey(*lo, 0);
  const std::string hi_key = OrderedKey(*hi, 0);
  if (lo_key.empty() || hi_key.empty() || lo_key > hi_key) return Entry{};
  return Entry{Interval{Point(type, lo_key), Point(type, hi_key)}};
}

std::optional<std::vector<Interval>> Confine(const BoundPredicate& predicate, int32_t field_id) {
  const DataType* type = LeafType(predicate, field_id);
  if (type == nullptr || type->is_nested() || type->id() == TypeId::kVariant) return std::nullopt;
  if (TestsNull(predicate, field_id)) return std::nullopt;
  PartitionSpec identity;
  PartitionField f;
  f.source_id = field_id;
  f.field_id = 1000;
  f.name = "bounds";
  identity.fields.push_back(f);
  std::optional<KeyRange> range = PartitionKeyRange(predicate, identity, Schema{});
  if (!range) return std::nullopt;
  std::vector<Interval> out;
  if (range->empty) return out;
  if (!range->in.empty() && range->in.size() <= kMaxPoints) {
    for (const std::string& k : range->in) {
      const int64_t p = Point(*type, k);
      if (out.empty() || out.back().hi != p) out.push_back(Interval{p, p});
    }
    return out;
  }
  const std::optional<std::string> lo = range->in.empty() ? range->lo : range->in.front();
  const std::optional<std::string> hi = range->in.empty() ? range->hi : range->in.back();
  Interval iv;
  if (lo) iv.lo = Point(*type, *lo);
  if (hi) iv.hi = Point(*type, *hi);
  if (iv.lo > iv.hi) return out;
  out.push_back(iv);
  return out;
}

}  // namespace tarn::bounds_index
