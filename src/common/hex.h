// The one hex codec (lower-case digits, two per byte; either case read back) and the one
// percent-encoding (%XX in upper case) built on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

namespace hex_internal {
// Digit values by byte, -1 for a byte that is no digit: a table, as UUIDs are parsed in bulk.
struct ValueTable {
  int8_t value[256];
  constexpr ValueTable() : value() {
    for (int i = 0; i < 256; ++i) value[i] = -1;
    for (int i = 0; i < 10; ++i) value['0' + i] = static_cast<int8_t>(i);
    for (int i = 0; i < 6; ++i) {
      value['a' + i] = static_cast<int8_t>(10 + i);
      value['A' + i] = static_cast<int8_t>(10 + i);
    }
  }
};
inline constexpr ValueTable kValues;
}  // namespace hex_internal

// The value 0..15 of a hex digit of either case, or -1 for any other byte.
inline int HexValue(char c) { return hex_internal::kValues.value[static_cast<uint8_t>(c)]; }
// The bytes of an even number of hex digits (either case); nullopt for anything else.
std::optional<std::string> HexDecode(std::string_view hex);

// What percent-encoding leaves as it is besides ASCII letters and digits: RFC 3986's unreserved.
inline constexpr std::string_view kUriUnreserved = "-._~";
// Appends `s` percent-encoded: ASCII letters, digits and the bytes of `keep` as they are, every
// other byte as %XX (upper case, as RFC 3986 recommends and SigV4 requires).
void AppendPercentEncoded(std::string_view s, std::string* out,
                          std::string_view keep = kUriUnreserved);
inline std::string PercentEncode(std::string_view s, std::string_view keep = kUriUnreserved) {
  std::string out;
  out.reserve(s.size());
  AppendPercentEncoded(s, &out, keep);
  return out;
}

// What PercentDecode does with a '%' that is not followed by two hex digits.
enum class BadPercentEscape {
  kFail,  // nullopt: a request target or form must be well-formed
  kKeep,  // the '%' stays as it is (file URIs written by hand)
};
// Decodes %XX escapes (either case), and '+' as a space when `plus_is_space` (forms, queries).
std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space = false,
                                         BadPercentEscape bad = BadPercentEscape::kFail);

}  // namespace tarn
