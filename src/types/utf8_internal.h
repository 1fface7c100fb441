// UTF-8 decoding shared by validation (value_text.cc) and JSON escaping (json_render.cc).
#pragma once

#include <cstdint>

namespace tarn::internal {

// Length (2..4) of the well-formed multi-byte UTF-8 sequence at p (p < end, *p >= 0x80), or 0
// when it is ill-formed; then *bad_len is the length of its maximal ill-formed subpart, which
// Unicode's "U+FFFD substitution of maximal subparts" replaces by one U+FFFD.
inline int DecodeUtf8Multibyte(const uint8_t* p, const uint8_t* end, int* bad_len) {
  const uint8_t lead = p[0];
  int len;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    if (lead == 0xE0) lo = 0xA0;  // no overlongs
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    if (lead == 0xF0) lo = 0x90;  // no overlongs
    if (lead == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else {
    *bad_len = 1;
    return 0;
  }
  for (int k = 1; k < len; ++k) {
    if (p + k >= end) {
      *bad_len = k;
      return 0;
    }
    const uint8_t b = p[k];
    const uint8_t min = k == 1 ? lo : 0x80;
    const uint8_t max = k == 1 ? hi : 0xBF;
    if (b < min || b > max) {
      *bad_len = k;
      return 0;
    }
  }
  return len;
}

}  // namespace tarn::internal
