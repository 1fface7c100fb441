// Small ASCII text helpers shared by parsers of names and settings.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

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

}  // namespace tarn
