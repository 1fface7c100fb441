// Small ASCII text helpers shared by parsers of names and settings.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace tarn {

// `s` with ASCII letters lower-cased (other bytes unchanged).
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `s` without leading and trailing ASCII whitespace.
inline std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Whether every byte of `s` is ASCII (checked 8 bytes at a time).
inline bool AllAscii(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  uint64_t acc = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    acc |= w;
  }
  for (; i < n; ++i) acc |= p[i];
  return (acc & 0x8080808080808080ull) == 0;
}

// `s` cut at every `sep`: n separators give n + 1 parts (empty ones kept).
inline std::vector<std::string> SplitOn(std::string_view s, char sep) {
  std::vector<std::string> parts;
  for (size_t at = 0;;) {
    const size_t next = s.find(sep, at);
    parts.emplace_back(s.substr(at, next == std::string_view::npos ? s.size() - at : next - at));
    if (next == std::string_view::npos) return parts;
    at = next + 1;
  }
}

}  // namespace tarn
