#include "common/text.h"

#include <gtest/gtest.h>

namespace tarn {
namespace {

TEST(Text, SplitOnKeepsEmptyParts) {
  using V = std::vector<std::string>;
  EXPECT_EQ(SplitOn("a.b.c", '.'), (V{"a", "b", "c"}));
  EXPECT_EQ(SplitOn("", '.'), (V{""}));
  EXPECT_EQ(SplitOn(".a.", '.'), (V{"", "a", ""}));
  EXPECT_EQ(SplitOn("no dots", '.'), (V{"no dots"}));
}

TEST(Text, TrimAndLower) {
  EXPECT_EQ(TrimSpace("  a b \t\n"), "a b");
  EXPECT_EQ(AsciiLower("AbC-\xc3\x89"), "abc-\xc3\x89");
}

}  // namespace
}  // namespace tarn
