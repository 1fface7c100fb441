// Text as a terminal shows it: UTF-8 code points and the columns they take. Wide (East Asian
// wide and fullwidth, most emoji) take 2 columns, combining marks and zero-width characters 0,
// controls are shown as U+FFFD (1 column), and so is each byte of invalid UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tarn::tui {

// Decodes the code point at s[i] (i < s.size()): sets *cp (0xFFFD for an invalid or truncated
// sequence) and returns the bytes it takes (>= 1).
size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp);
// Appends the UTF-8 encoding of cp.
void AppendUtf8(char32_t cp, std::string* out);
// Columns a code point takes: 0, 1 or 2 (controls count 1: they are drawn as U+FFFD).
int CodePointWidth(char32_t cp);
// Columns the whole text takes.
int TextWidth(std::string_view s);
// The longest prefix of `s` that fits in `width` columns. With `ellipsis`, a text that had to be
// cut ends in "…" (which takes the last column). Never splits a code point. width <= 0: "".
std::string FitText(std::string_view s, int width, bool ellipsis = true);
// `s` cut (with ellipsis) or padded with spaces to exactly `width` columns.
std::string PadText(std::string_view s, int width);

}  // namespace tarn::tui
