// The one hex encoder: lower-case digits, two per byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tarn {

// The digit of a value 0..15; upper case when asked (percent-encoding wants it).
inline char HexDigit(unsigned nibble, bool upper = false) {
  return (upper ? "0123456789ABCDEF" : "0123456789abcdef")[nibble & 15];
}
// Appends the two digits of `byte`.
inline void AppendHex(uint8_t byte, std::string* out, bool upper = false) {
  out->push_back(HexDigit(byte >> 4, upper));
  out->push_back(HexDigit(byte & 15, upper));
}
// Two lower-case digits per byte.
std::string HexEncode(const void* data, size_t n);
inline std::string HexEncode(std::string_view bytes) {
  return HexEncode(bytes.data(), bytes.size());
}

}  // namespace tarn
