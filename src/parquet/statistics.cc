#include "parquet/statistics.h"

#include <algorithm>

namespace tarn::parquet {

int CompareBytes(std::string_view a, std::string_view b) {
  if (a.size() >= 8 && b.size() >= 8) {
    // Most strings differ in their first 8 bytes: compare them as big-endian words.
    uint64_t x, y;
    std::memcpy(&x, a.data(), 8);
    std::memcpy(&y, b.data(), 8);
    if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y) ? -1 : 1;
  }
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

int CompareSignedBigEndian(std::string_view a, std::string_view b) {
  auto sign_byte = [](std::string_view s) -> uint8_t {
    return !s.empty() && (static_cast<uint8_t>(s[0]) & 0x80) ? 0xFF : 0x00;
  };
  bool neg_a = sign_byte(a) != 0, neg_b = sign_byte(b) != 0;
  if (neg_a != neg_b) return neg_a ? -1 : 1;
  // Same sign: sign-extend the shorter to the longer width, then compare as unsigned bytes.
  size_t width = std::max(a.size(), b.size());
  uint8_t ext = sign_byte(a);
  for (size_t k = 0; k < width; ++k) {
    size_t pa = a.size() + k, pb = b.size() + k;  // index from the left of the wider number
    uint8_t x = pa < width ? ext : static_cast<uint8_t>(a[pa - width]);
    uint8_t y = pb < width ? ext : static_cast<uint8_t>(b[pb - width]);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool BytesMinMax::Less(std::string_view a, std::string_view b) const {
  return signed_big_endian ? CompareSignedBigEndian(a, b) < 0 : CompareBytes(a, b) < 0;
}

void BytesMinMax::Update(const std::string_view* v, int64_t n) {
  if (n == 0) return;
  std::string_view lo = v[0], hi = v[0];
  if (signed_big_endian) {
    for (int64_t i = 1; i < n; ++i) {
      if (CompareSignedBigEndian(v[i], lo) < 0) lo = v[i];
      if (CompareSignedBigEndian(hi, v[i]) < 0) hi = v[i];
    }
  } else {
    for (int64_t i = 1; i < n; ++i) {
      if (CompareBytes(v[i], lo) < 0) lo = v[i];
      if (CompareBytes(hi, v[i]) < 0) hi = v[i];
    }
  }
  if (!has) {
    min.assign(lo);
    max.assign(hi);
    has = true;
    return;
  }
  if (Less(lo, min)) min.assign(lo);
  if (Less(max, hi)) max.assign(hi);
}

void BytesMinMax::Merge(const BytesMinMax& o) {
  if (!o.has) return;
  if (!has) {
    min = o.min;
    max = o.max;
    has = true;
    return;
  }
  if (Less(o.min, min)) min = o.min;
  if (Less(max, o.max)) max = o.max;
}

Statistics MakeStatistics(std::string min, std::string max, int64_t null_count) {
  Statistics s;
  s.null_count = null_count;
  s.min_value = std::move(min);
  s.max_value = std::move(max);
  s.is_min_value_exact = true;
  s.is_max_value_exact = true;
  return s;
}

Statistics MakeNullOnlyStatistics(int64_t null_count) {
  Statistics s;
  s.null_count = null_count;
  return s;
}

Statistics MakeByteArrayStatistics(std::string_view min, std::string_view max, int64_t null_count) {
  Statistics s;
  s.null_count = null_count;
  if (min.size() <= kMaxStatBytes) {
    s.min_value = std::string(min);
    s.is_min_value_exact = true;
  } else {
    s.min_value = std::string(min.substr(0, kMaxStatBytes));
    s.is_min_value_exact = false;
  }
  if (max.size() <= kMaxStatBytes) {
    s.max_value = std::string(max);
    s.is_max_value_exact = true;
  } else {
    // The smallest string above every string with this prefix: drop trailing 0xFF bytes and
    // increment the last remaining one.
    std::string upper(max.substr(0, kMaxStatBytes));
    while (!upper.empty() && static_cast<uint8_t>(upper.back()) == 0xFF) upper.pop_back();
    if (!upper.empty()) {
      upper.back() = static_cast<char>(static_cast<uint8_t>(upper.back()) + 1);
      s.max_value = std::move(upper);
      s.is_max_value_exact = false;
    }
  }
  return s;
}

}  // namespace tarn::parquet
