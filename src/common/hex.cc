#include "common/hex.h"

namespace tarn {

std::string HexEncode(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) AppendHex(p[i], &out);
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi << 4 | lo));
  }
  return out;
}

void AppendPercentEncoded(std::string_view s, std::string* out, std::string_view keep) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum || keep.find(ch) != std::string_view::npos) {
      out->push_back(ch);
    } else {
      out->push_back('%');
      AppendHex(c, out, /*upper=*/true);
    }
  }
}

std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space,
                                         BadPercentEscape bad) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '%') {
      const bool two = i + 2 < s.size();
      const int hi = two ? HexValue(s[i + 1]) : -1, lo = two ? HexValue(s[i + 2]) : -1;
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi << 4 | lo));
        i += 2;
        continue;
      }
      if (bad == BadPercentEscape::kFail) return std::nullopt;
      out.push_back(c);
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace tarn
