#include "tui/text.h"

#include <gtest/gtest.h>

#include <string>

namespace tarn::tui {
namespace {

// Decodes all of `s`: the code points and the byte count of each.
std::vector<std::pair<char32_t, size_t>> DecodeAll(std::string_view s) {
  std::vector<std::pair<char32_t, size_t>> out;
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t n = DecodeUtf8(s, i, &cp);
    EXPECT_GE(n, 1u);
    out.emplace_back(cp, n);
    i += n;
  }
  return out;
}

using Decoded = std::vector<std::pair<char32_t, size_t>>;

TEST(Text, DecodeValidUtf8) {
  EXPECT_EQ(DecodeAll("a"), (Decoded{{U'a', 1}}));
  EXPECT_EQ(DecodeAll("\xC3\xA9"), (Decoded{{0xE9, 2}}));              // é
  EXPECT_EQ(DecodeAll("\xE5\xAD\x97"), (Decoded{{0x5B57, 3}}));        // 字
  EXPECT_EQ(DecodeAll("\xF0\x9F\x98\x80"), (Decoded{{0x1F600, 4}}));   // 😀
  EXPECT_EQ(DecodeAll("\xF4\x8F\xBF\xBF"), (Decoded{{0x10FFFF, 4}}));  // the last code point
  EXPECT_EQ(DecodeAll("\xEF\xBF\xBD"), (Decoded{{0xFFFD, 3}}));        // U+FFFD itself
  EXPECT_EQ(DecodeAll("x\xC2\x80y"), (Decoded{{U'x', 1}, {0x80, 2}, {U'y', 1}}));
}

TEST(Text, DecodeInvalidUtf8ByteByByte) {
  // A lone continuation byte, an impossible lead, a truncated sequence at the end.
  EXPECT_EQ(DecodeAll("\x80"), (Decoded{{0xFFFD, 1}}));
  EXPECT_EQ(DecodeAll("\xFF"), (Decoded{{0xFFFD, 1}}));
  EXPECT_EQ(DecodeAll("\xE5\xAD"), (Decoded{{0xFFFD, 1}, {0xFFFD, 1}}));
  // Overlong forms, a surrogate, above U+10FFFF.
  EXPECT_EQ(DecodeAll("\xC0\xAF"), (Decoded{{0xFFFD, 1}, {0xFFFD, 1}}));
  EXPECT_EQ(DecodeAll("\xE0\x80\xAF"), (Decoded{{0xFFFD, 1}, {0xFFFD, 1}, {0xFFFD, 1}}));
  EXPECT_EQ(DecodeAll("\xED\xA0\x80"), (Decoded{{0xFFFD, 1}, {0xFFFD, 1}, {0xFFFD, 1}}));
  EXPECT_EQ(DecodeAll("\xF4\x90\x80\x80").size(), 4u);
  EXPECT_EQ(DecodeAll("\xF0\x8F\xBF\xBF").size(), 4u);
  // A lead whose continuation is replaced by ASCII: the ASCII survives.
  EXPECT_EQ(DecodeAll("\xE5"
                      "a"),
            (Decoded{{0xFFFD, 1}, {U'a', 1}}));
}

TEST(Text, AppendUtf8RoundTrips) {
  for (char32_t cp : {char32_t{0x41}, char32_t{0x7F}, char32_t{0x80}, char32_t{0x7FF},
                      char32_t{0x800}, char32_t{0xFFFF}, char32_t{0x10000}, char32_t{0x10FFFF}}) {
    std::string s;
    AppendUtf8(cp, &s);
    EXPECT_EQ(DecodeAll(s), (Decoded{{cp, s.size()}})) << static_cast<uint32_t>(cp);
  }
  std::string s;
  AppendUtf8(0x110000, &s);
  AppendUtf8(0xD800, &s);
  EXPECT_EQ(s, "\uFFFD\uFFFD");
}

TEST(Text, CodePointWidth) {
  EXPECT_EQ(CodePointWidth(U'a'), 1);
  EXPECT_EQ(CodePointWidth(0xE9), 1);    // é
  EXPECT_EQ(CodePointWidth(0x2026), 1);  // …
  EXPECT_EQ(CodePointWidth(0x0), 1);     // controls are drawn as U+FFFD
  EXPECT_EQ(CodePointWidth(0x1B), 1);
  EXPECT_EQ(CodePointWidth(0x7F), 1);
  EXPECT_EQ(CodePointWidth(0x9B), 1);
  EXPECT_EQ(CodePointWidth(0x5B57), 2);  // 字
  EXPECT_EQ(CodePointWidth(0xAC00), 2);  // 가
  EXPECT_EQ(CodePointWidth(0xD7A3), 2);
  EXPECT_EQ(CodePointWidth(0xD7A4), 1);
  EXPECT_EQ(CodePointWidth(0x3042), 2);   // あ
  EXPECT_EQ(CodePointWidth(0xFF21), 2);   // Ａ fullwidth
  EXPECT_EQ(CodePointWidth(0xFF61), 1);   // ｡ halfwidth
  EXPECT_EQ(CodePointWidth(0x1F600), 2);  // 😀
  EXPECT_EQ(CodePointWidth(0x1F914), 2);  // 🤔
  EXPECT_EQ(CodePointWidth(0x1F680), 1);  // outside the table's emoji blocks
  EXPECT_EQ(CodePointWidth(0x20000), 2);
  EXPECT_EQ(CodePointWidth(0x3FFFD), 2);
  EXPECT_EQ(CodePointWidth(0x3FFFE), 1);
  EXPECT_EQ(CodePointWidth(0x10FFFF), 1);
  // The gap in the CJK block.
  EXPECT_EQ(CodePointWidth(0x303E), 2);
  EXPECT_EQ(CodePointWidth(0x303F), 1);
  EXPECT_EQ(CodePointWidth(0x3040), 2);
  // Zero width.
  EXPECT_EQ(CodePointWidth(0x0301), 0);  // combining acute
  EXPECT_EQ(CodePointWidth(0x0300), 0);
  EXPECT_EQ(CodePointWidth(0x036F), 0);
  EXPECT_EQ(CodePointWidth(0x0370), 1);
  EXPECT_EQ(CodePointWidth(0x200B), 0);
  EXPECT_EQ(CodePointWidth(0x200D), 0);  // zero-width joiner
  EXPECT_EQ(CodePointWidth(0x2010), 1);  // hyphen, right after
  EXPECT_EQ(CodePointWidth(0xFE0F), 0);  // variation selector 16
  EXPECT_EQ(CodePointWidth(0x20E3), 0);
  EXPECT_EQ(CodePointWidth(0x1AB0), 0);
  EXPECT_EQ(CodePointWidth(0x1DFF), 0);
  EXPECT_EQ(CodePointWidth(0xFE2F), 0);
  EXPECT_EQ(CodePointWidth(0xFE30), 2);  // right after a zero-width range
  EXPECT_EQ(CodePointWidth(0xFE4F), 2);
  EXPECT_EQ(CodePointWidth(0xFE50), 1);
  // Every edge of the wide ranges.
  for (auto [first, last] : std::vector<std::pair<uint32_t, uint32_t>>{{0x1100, 0x115F},
                                                                       {0x2E80, 0xA4CF},
                                                                       {0xF900, 0xFAFF},
                                                                       {0xFF00, 0xFF60},
                                                                       {0xFFE0, 0xFFE6},
                                                                       {0x1F300, 0x1F64F},
                                                                       {0x1F900, 0x1F9FF}}) {
    EXPECT_EQ(CodePointWidth(first - 1), 1) << std::hex << first;
    EXPECT_EQ(CodePointWidth(first), 2) << std::hex << first;
    EXPECT_EQ(CodePointWidth(last), 2) << std::hex << last;
    EXPECT_EQ(CodePointWidth(last + 1), 1) << std::hex << last;
  }
}

TEST(Text, TextWidth) {
  EXPECT_EQ(TextWidth(""), 0);
  EXPECT_EQ(TextWidth("hello"), 5);
  EXPECT_EQ(TextWidth("字字"), 4);
  EXPECT_EQ(TextWidth("e\u0301"), 1);   // e + combining acute
  EXPECT_EQ(TextWidth("a\tb"), 3);      // the tab is drawn as U+FFFD
  EXPECT_EQ(TextWidth("\xE5\xAD"), 2);  // two invalid bytes
  EXPECT_EQ(TextWidth("😀x"), 3);
}

TEST(Text, FitTextKeepsWhatFits) {
  EXPECT_EQ(FitText("hello", 5), "hello");
  EXPECT_EQ(FitText("hello", 10), "hello");
  EXPECT_EQ(FitText("", 3), "");
  EXPECT_EQ(FitText("hello", 0), "");
  EXPECT_EQ(FitText("hello", -2), "");
}

TEST(Text, FitTextCutsWithEllipsis) {
  EXPECT_EQ(FitText("hello", 4), "hel\u2026");
  EXPECT_EQ(FitText("hello", 1), "\u2026");
  EXPECT_EQ(FitText("hello", 4, false), "hell");
  EXPECT_EQ(FitText("hello", 1, false), "h");
  // A wide character never split: it is left out whole.
  EXPECT_EQ(FitText("字字字", 4), "字\u2026");  // 2 + 1, one column short
  EXPECT_EQ(FitText("字字字", 5), "字字\u2026");
  EXPECT_EQ(FitText("字字字", 3, false), "字");
  EXPECT_EQ(FitText("字", 1, false), "");
  EXPECT_EQ(FitText("字", 1), "\u2026");
  // Combining marks stay with their base.
  EXPECT_EQ(FitText("e\u0301e\u0301e\u0301", 2, false), "e\u0301e\u0301");
  EXPECT_EQ(FitText("e\u0301e\u0301e\u0301", 2), "e\u0301\u2026");
  // Never splits a multi-byte code point.
  EXPECT_EQ(FitText("ééé", 2, false), "éé");
  for (int w = 0; w < 8; ++w) {
    std::string cut = FitText("aé字😀b字", w);
    EXPECT_LE(TextWidth(cut), w);
    for (auto [c, n] : DecodeAll(cut)) EXPECT_NE(c, char32_t{0xFFFD}) << "split at width " << w;
  }
}

TEST(Text, PadText) {
  EXPECT_EQ(PadText("ab", 4), "ab  ");
  EXPECT_EQ(PadText("abcdef", 4), "abc\u2026");
  EXPECT_EQ(PadText("字字字", 4), "字\u2026 ");  // the wide character leaves a gap to fill
  EXPECT_EQ(PadText("", 2), "  ");
  EXPECT_EQ(PadText("abc", 0), "");
  for (int w = 1; w < 10; ++w) EXPECT_EQ(TextWidth(PadText("x字é😀\u0301y", w)), w) << w;
}

}  // namespace
}  // namespace tarn::tui
