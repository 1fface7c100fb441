// UTF-8: the one decoder (well-formed sequences only: no overlong forms, no surrogates, nothing
// above U+10FFFF), the encoder shared by the parsers that decode escapes (JSON \u, XML &#...;),
// and the byte-level boundaries that cut and count text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tarn {

// Length (1..4) of the well-formed UTF-8 sequence at p (p < end), or 0 when it is ill-formed;
// then *bad_len (when given) is the length of its maximal ill-formed subpart, which Unicode's
// "U+FFFD substitution of maximal subparts" replaces by one U+FFFD.
inline int Utf8SequenceLength(const uint8_t* p, const uint8_t* end, int* bad_len = nullptr) {
  int ignored;
  if (!bad_len) bad_len = &ignored;
  const uint8_t lead = p[0];
  if (lead < 0x80) return 1;
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

// The same for s[i] (i < s.size()).
inline size_t Utf8SequenceAt(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  return static_cast<size_t>(Utf8SequenceLength(p + i, p + s.size()));
}

// The code point of the well-formed sequence of `len` bytes at p (from Utf8SequenceLength).
inline char32_t DecodeUtf8Sequence(const uint8_t* p, int len) {
  static constexpr uint8_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t cp = p[0] & kLeadMask[len];
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (p[k] & 0x3F);
  return cp;
}

// Appends the UTF-8 encoding of code point `cp` (at most 0x10FFFF; callers check) to `out`.
void AppendUtf8(uint32_t cp, std::string* out);

// Boundaries without decoding: a code point starts at every byte that is not a continuation byte
// (10xxxxxx). Text that is not valid UTF-8 is cut and counted all the same (no byte is lost or
// replaced); where validity matters, the decoder above is the one to use.

// A continuation byte (10xxxxxx): never the first byte of a code point.
inline bool IsUtf8Continuation(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

// Where the code point holding s[i] (i < s.size()) starts: i, or the nearest byte before it that
// is not a continuation byte, else 0.
inline size_t Utf8CodePointStart(std::string_view s, size_t i) {
  while (i > 0 && IsUtf8Continuation(s[i])) --i;
  return i;
}

// Length of the longest prefix of `s` of at most `max` bytes that does not split a code point.
inline size_t Utf8Cut(std::string_view s, size_t max) {
  return s.size() <= max ? s.size() : Utf8CodePointStart(s, max);
}

// Number of code points: the bytes that are not continuation bytes.
size_t Utf8CodePointCount(std::string_view s);

// Length of the prefix of `s` that holds its first `n` code points as Utf8CodePointCount counts
// them, with the continuation bytes after the last (all of `s` when it has fewer). Continuation
// bytes at the start belong to the first code point, unless `first_byte_starts` (the CLI's cut):
// then s[0] starts one whatever it is.
size_t Utf8PrefixBytes(std::string_view s, size_t n, bool first_byte_starts = false);

}  // namespace tarn
