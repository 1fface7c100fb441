#include "common/hex.h"

#include <gtest/gtest.h>

namespace tarn {
namespace {

TEST(Hex, EncodesLowerAndDecodesEitherCase) {
  EXPECT_EQ(HexEncode(std::string_view("\x00\x7f\xab\xff", 4)), "007fabff");
  EXPECT_EQ(HexDecode("007fabff"), std::string("\x00\x7f\xab\xff", 4));
  EXPECT_EQ(HexDecode("ABcd"), "\xab\xcd");
  EXPECT_EQ(HexDecode(""), "");
  for (const char* bad : {"a", "abc", "0g", "g0", " 0", "0x00"}) {
    EXPECT_EQ(HexDecode(bad), std::nullopt) << bad;
  }
}

TEST(Hex, ValueOfEveryByte) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    int want = -1;
    if (c >= '0' && c <= '9') want = c - '0';
    if (c >= 'a' && c <= 'f') want = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') want = c - 'A' + 10;
    EXPECT_EQ(HexValue(c), want) << b;
  }
}

TEST(PercentEncode, KeepsLettersDigitsAndTheGivenBytes) {
  EXPECT_EQ(PercentEncode("abc-_.~XYZ019"), "abc-_.~XYZ019");
  EXPECT_EQ(PercentEncode("a b/c?d&e=f%"), "a%20b%2Fc%3Fd%26e%3Df%25");
  EXPECT_EQ(PercentEncode(std::string("\xc3\xbc\x00\xff", 4)), "%C3%BC%00%FF");
  // The set is the caller's: Hive-style partition paths escape '~', SigV4 paths keep '/'.
  EXPECT_EQ(PercentEncode("a~b/c.d", "._-"), "a%7Eb%2Fc.d");
  EXPECT_EQ(PercentEncode("a~b/c", "-._~/"), "a~b/c");
  std::string out = "x=";
  AppendPercentEncoded("1 2", &out);
  EXPECT_EQ(out, "x=1%202");
}

TEST(PercentDecode, DecodesOrRefusesBadEscapes) {
  EXPECT_EQ(PercentDecode("a%20b%2fc%2F"), "a b/c/");
  EXPECT_EQ(PercentDecode("a+b"), "a+b");
  EXPECT_EQ(PercentDecode("a+b%2B", /*plus_is_space=*/true), "a b+");
  for (const char* bad : {"%", "%4", "%g0", "%0g", "a%", "%-1"}) {
    EXPECT_EQ(PercentDecode(bad), std::nullopt) << bad;
    EXPECT_EQ(PercentDecode(bad, false, BadPercentEscape::kKeep), bad) << bad;
  }
  EXPECT_EQ(PercentDecode("%%41"), std::nullopt);
  EXPECT_EQ(PercentDecode("%%41%4", false, BadPercentEscape::kKeep), "%A%4");
  EXPECT_EQ(PercentDecode("100%", false, BadPercentEscape::kKeep), "100%");
}

TEST(PercentCodec, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_EQ(PercentDecode(PercentEncode(all)), all);
  EXPECT_EQ(HexDecode(HexEncode(all)), all);
}

}  // namespace
}  // namespace tarn
