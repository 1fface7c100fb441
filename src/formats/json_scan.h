// A scanner for the top-level object of one NDJSON line, shared by the reader and schema
// inference: strings are decoded, numbers keep their text, nested values are delimited (not
// parsed) so the caller parses them only when needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/hex.h"
#include "common/utf8.h"

namespace tarn::formats::internal {

// Deepest nesting of objects/arrays accepted.
inline constexpr int kMaxJsonDepth = 256;
inline constexpr const char* kTooDeep = "JSON nested more than 256 levels deep";

inline bool IsJsonWs(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

inline bool Hex4(std::string_view s, size_t i, uint32_t* v) {
  if (i + 4 > s.size()) return false;
  uint32_t r = 0;
  for (size_t k = i; k < i + 4; ++k) {
    const int d = HexValue(s[k]);
    if (d < 0) return false;
    r = r << 4 | static_cast<uint32_t>(d);
  }
  *v = r;
  return true;
}

// A hand-written scanner for one line's top-level object; nested values are delimited here
// and parsed by nlohmann only when needed.
class LineScanner {
 public:
  explicit LineScanner(std::string_view s) : s_(s) {}
  void SkipWs() {
    while (i_ < s_.size() && IsJsonWs(s_[i_])) ++i_;
  }
  bool Consume(char c) {
    SkipWs();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    SkipWs();
    return i_ == s_.size();
  }
  char Peek() {
    SkipWs();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  size_t pos() const { return i_; }

  // A string at the cursor: its raw literal (with quotes) and its value (a view of the input
  // when there are no escapes, else written to *scratch).
  const char* String(std::string_view* raw, std::string_view* value, std::string* scratch) {
    const size_t begin = i_;
    if (i_ >= s_.size() || s_[i_] != '"') return "expected a string";
    ++i_;
    const size_t content = i_;
    bool escaped = false;
    while (true) {
      if (i_ >= s_.size()) return "a string is not closed";
      const char c = s_[i_];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) return "a control character in a string";
      if (c == '\\') {
        escaped = true;
        i_ += 2;
      } else {
        ++i_;
      }
    }
    if (i_ >= s_.size()) return "a string is not closed";
    const size_t close = i_++;
    *raw = s_.substr(begin, i_ - begin);
    if (!escaped) {
      *value = s_.substr(content, close - content);
      return nullptr;
    }
    scratch->clear();
    for (size_t k = content; k < close; ++k) {
      const char c = s_[k];
      if (c != '\\') {
        scratch->push_back(c);
        continue;
      }
      const char e = s_[++k];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          scratch->push_back(e);
          break;
        case 'b':
          scratch->push_back('\b');
          break;
        case 'f':
          scratch->push_back('\f');
          break;
        case 'n':
          scratch->push_back('\n');
          break;
        case 'r':
          scratch->push_back('\r');
          break;
        case 't':
          scratch->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(s_, k + 1, &cp)) return "a bad \\u escape";
          k += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (k + 2 < close && s_[k + 1] == '\\' && s_[k + 2] == 'u' && Hex4(s_, k + 3, &lo) &&
                lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              k += 6;
            } else {
              return "an unpaired surrogate in a \\u escape";
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return "an unpaired surrogate in a \\u escape";
          }
          AppendUtf8(cp, scratch);
          break;
        }
        default:
          return "a bad escape in a string";
      }
    }
    *value = *scratch;
    return nullptr;
  }

  const char* Number(std::string_view* raw) {
    const size_t begin = i_;
    auto digits = [&]() {
      const size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ > d;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (!digits()) {
      return "a bad number";
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digits()) return "a bad number";
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) return "a bad number";
    }
    *raw = s_.substr(begin, i_ - begin);
    return nullptr;
  }

  bool Literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  // An object or array at the cursor: its raw text (validated later by the JSON parser).
  // `max_depth` is the nesting allowed inside it (less than kMaxJsonDepth for a value that is
  // itself nested in others: the limit holds for a column's whole value).
  const char* Nested(std::string_view* raw, int max_depth = kMaxJsonDepth) {
    const size_t begin = i_;
    int depth = 0;
    bool in_string = false;
    for (; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      if (in_string) {
        if (c == '\\') {
          ++i_;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > max_depth) return kTooDeep;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) {
          ++i_;
          *raw = s_.substr(begin, i_ - begin);
          return nullptr;
        }
      }
    }
    return "an object or array is not closed";
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace tarn::formats::internal
