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

}  // namespace
}  // namespace tarn
