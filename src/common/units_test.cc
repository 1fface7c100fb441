#include "common/units.h"

#include <gtest/gtest.h>

namespace tarn {
namespace {

TEST(Duration, ParsesUnitsAndSums) {
  EXPECT_EQ(*ParseDuration("0s"), 0);
  EXPECT_EQ(*ParseDuration("250ms"), 250'000);
  EXPECT_EQ(*ParseDuration("30m"), 1'800'000'000);
  EXPECT_EQ(*ParseDuration("7d"), int64_t{7} * 86'400'000'000);
  EXPECT_EQ(*ParseDuration("1d12h"), int64_t{36} * 3'600'000'000);
  EXPECT_EQ(*ParseDuration("2w"), int64_t{14} * 86'400'000'000);
}

TEST(Duration, RefusesWhatIsNotADuration) {
  for (const char* bad : {"", "7", "d", "7x", "7 d", "-1d", "99999999999999999999d", "1d 2h"}) {
    auto r = ParseDuration(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << bad;
    }
  }
}

TEST(ByteSize, ParsesUnitsInPowersOf1024) {
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576);
  EXPECT_EQ(*ParseByteSize("100B"), 100);
  EXPECT_EQ(*ParseByteSize("64KiB"), 64 << 10);
  EXPECT_EQ(*ParseByteSize("64KB"), 64 << 10);
  EXPECT_EQ(*ParseByteSize("16M"), 16 << 20);
  EXPECT_EQ(*ParseByteSize("1GiB"), int64_t{1} << 30);
  for (const char* bad : {"", "MiB", "0", "12XB", "1.5GiB", "-1", "16 MiB", "2000000GiB"}) {
    auto r = ParseByteSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
}

}  // namespace
}  // namespace tarn
