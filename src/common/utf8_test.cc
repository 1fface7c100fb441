#include "common/utf8.h"

#include <gtest/gtest.h>

#include <iterator>

namespace tarn {
namespace {

// "aé€😀": code points of 1, 2, 3 and 4 bytes.
constexpr std::string_view kMixed = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";

TEST(Utf8Boundaries, CutNeverSplitsACodePoint) {
  const size_t want[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10};
  for (size_t max = 0; max < std::size(want); ++max) {
    EXPECT_EQ(Utf8Cut(kMixed, max), want[max]) << max;
  }
  EXPECT_EQ(Utf8Cut("", 0), 0u);
  // Stray continuation bytes are cut past, down to the start of the text at worst.
  EXPECT_EQ(Utf8Cut("\x80\x80\x80", 2), 0u);
}

TEST(Utf8Boundaries, CodePointStart) {
  EXPECT_EQ(Utf8CodePointStart(kMixed, 0), 0u);
  EXPECT_EQ(Utf8CodePointStart(kMixed, 2), 1u);
  EXPECT_EQ(Utf8CodePointStart(kMixed, 5), 3u);
  EXPECT_EQ(Utf8CodePointStart(kMixed, 9), 6u);
  EXPECT_EQ(Utf8CodePointStart("\x80\x80", 1), 0u);
  EXPECT_TRUE(IsUtf8Continuation('\x80'));
  EXPECT_TRUE(IsUtf8Continuation('\xbf'));
  EXPECT_FALSE(IsUtf8Continuation('a'));
  EXPECT_FALSE(IsUtf8Continuation('\xc3'));
}

TEST(Utf8Boundaries, CountsCodePoints) {
  EXPECT_EQ(Utf8CodePointCount(""), 0u);
  EXPECT_EQ(Utf8CodePointCount(kMixed), 4u);
  // Every byte that is not a continuation byte counts, valid or not.
  EXPECT_EQ(Utf8CodePointCount("\x80\xff\xc3"), 2u);
}

TEST(Utf8Boundaries, PrefixOfNCodePoints) {
  const size_t want[] = {0, 1, 3, 6, 10, 10};
  for (size_t n = 0; n < std::size(want); ++n) {
    EXPECT_EQ(Utf8PrefixBytes(kMixed, n), want[n]) << n;
    EXPECT_EQ(Utf8PrefixBytes(kMixed, n, /*first_byte_starts=*/true), want[n]) << n;
  }
  EXPECT_EQ(Utf8PrefixBytes("", 3), 0u);
  EXPECT_EQ(Utf8PrefixBytes("abc", SIZE_MAX), 3u);
  // Leading continuation bytes: part of the first code point, or one of their own.
  EXPECT_EQ(Utf8PrefixBytes("\x80\x80"
                            "ab",
                            0),
            2u);
  EXPECT_EQ(Utf8PrefixBytes("\x80\x80"
                            "ab",
                            1),
            3u);
  EXPECT_EQ(Utf8PrefixBytes("\x80\x80"
                            "ab",
                            0, true),
            0u);
  EXPECT_EQ(Utf8PrefixBytes("\x80\x80"
                            "ab",
                            1, true),
            2u);
  EXPECT_EQ(Utf8PrefixBytes("\x80\x80"
                            "ab",
                            2, true),
            3u);
}

}  // namespace
}  // namespace tarn
