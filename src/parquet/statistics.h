// Column statistics for the writer: min/max under Parquet's sort order for the column's type,
// accumulated over arrays of physical values, and their encoding into a Statistics struct.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "parquet/metadata.h"

namespace tarn::parquet {

// Sort orders (parquet.thrift ColumnOrder / LogicalTypes.md).
enum class StatsOrder : uint8_t {
  kSigned,    // INT32/INT64 signed, BOOLEAN (false < true)
  kUnsigned,  // INT(n,false)
  kFloat,     // IEEE 754; zeros written as -0.0 (min) and +0.0 (max); see MakeFloatStatistics
  kBytes,     // unsigned lexicographic (BYTE_ARRAY, UUID)
  kSignedBigEndian,  // FLBA/BYTE_ARRAY decimals: two's complement big-endian by value
};

// Longest BYTE_ARRAY min/max written; longer values are truncated and marked not exact.
inline constexpr size_t kMaxStatBytes = 64;

// Min/max of fixed-width values compared as T. Floats skip NaN but remember seeing one.
template <typename T>
struct MinMax {
  bool has = false;
  bool nan = false;  // a NaN was seen (floats only)
  T min{};
  T max{};

  void Update(const T* v, int64_t n) {
    int64_t i = 0;
    if (!has) {
      while (i < n && IsNan(v[i])) ++i;
      if (i > 0) nan = true;
      if (i == n) return;
      min = max = v[i];
      has = true;
    }
    T lo = min, hi = max;
    bool saw_nan = false;
    for (; i < n; ++i) {
      T x = v[i];
      if (IsNan(x)) {
        saw_nan = true;
        continue;
      }
      lo = x < lo ? x : lo;
      hi = hi < x ? x : hi;
    }
    min = lo;
    max = hi;
    nan |= saw_nan;
  }
  void Merge(const MinMax& o) {
    nan |= o.nan;
    if (!o.has) return;
    if (!has) {
      min = o.min;
      max = o.max;
      has = true;
      return;
    }
    if (o.min < min) min = o.min;
    if (max < o.max) max = o.max;
  }

 private:
  static bool IsNan(T x) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::isnan(x);
    } else {
      return false;
    }
  }
};

// Min/max of byte strings, owned (safe to keep after the input is gone).
struct BytesMinMax {
  bool has = false;
  bool signed_big_endian = false;  // compare as two's complement big-endian numbers
  std::string min;
  std::string max;

  void Update(const std::string_view* v, int64_t n);
  void Merge(const BytesMinMax& o);
  // a < b under this order.
  bool Less(std::string_view a, std::string_view b) const;
};

// Compares as unsigned bytes, shorter prefix first.
int CompareBytes(std::string_view a, std::string_view b);
// Compares equal-or-different-width big-endian two's complement integers by value.
int CompareSignedBigEndian(std::string_view a, std::string_view b);

// PLAIN bytes of a fixed-width value (the stats encoding).
template <typename T>
std::string StatBytes(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

// Builds Statistics with min_value/max_value (exact) and null_count.
Statistics MakeStatistics(std::string min, std::string max, int64_t null_count);
Statistics MakeNullOnlyStatistics(int64_t null_count);
// BYTE_ARRAY: truncates min/max longer than kMaxStatBytes (min to a prefix, max to a prefix
// with its last byte below 0xFF incremented, or no max when impossible) and marks them not exact.
Statistics MakeByteArrayStatistics(std::string_view min, std::string_view max, int64_t null_count);
// Floats: zeros are widened to -0.0 (min) / +0.0 (max). Callers write no min/max at all when the
// values include NaN: the spec says to ignore NaN, but DuckDB orders NaN above every number and
// would prune NaN rows for `x > c` with such bounds (DuckDB's own writer omits them too).
template <typename T>
Statistics MakeFloatStatistics(T min, T max, int64_t null_count) {
  if (min == 0) min = -T(0);
  if (max == 0) max = T(0);
  return MakeStatistics(StatBytes(min), StatBytes(max), null_count);
}

}  // namespace tarn::parquet
