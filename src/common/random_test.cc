#include "common/random.h"

#include <gtest/gtest.h>

#include <set>

namespace tarn {
namespace {

TEST(Random, UuidV4ShapeAndUniqueness) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string u = NewUuidV4();
    ASSERT_EQ(u.size(), 36u);
    EXPECT_EQ(u[8], '-');
    EXPECT_EQ(u[13], '-');
    EXPECT_EQ(u[14], '4');                                                           // version
    EXPECT_TRUE(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b') << u;  // variant
    EXPECT_TRUE(seen.insert(u).second) << "duplicate " << u;
  }
  EXPECT_NE(RandomU64(), RandomU64());
}

TEST(Random, SecureBytesAndBase32) {
  auto a = SecureRandomBytes(32);
  auto b = SecureRandomBytes(32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 32u);
  EXPECT_NE(*a, *b);
  ASSERT_TRUE(SecureRandomBytes(0).ok());
  EXPECT_TRUE(SecureRandomBytes(0)->empty());
  // Every character of the alphabet shows up in a long enough string, and nothing else does.
  auto s = RandomBase32(4096);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 4096u);
  std::set<char> chars(s->begin(), s->end());
  EXPECT_EQ(chars.size(), 32u);
  for (char c : chars) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7')) << c;
}

}  // namespace
}  // namespace tarn
