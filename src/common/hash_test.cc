#include "common/hash.h"

#include <gtest/gtest.h>

#include <string>

namespace tarn {
namespace {

int32_t Signed(uint32_t h) { return static_cast<int32_t>(h); }

TEST(MurmurHash3Test, KnownVectors) {
  // Published reference values of MurmurHash3_x86_32.
  EXPECT_EQ(MurmurHash3_x86_32("", 0, 0), 0u);
  EXPECT_EQ(MurmurHash3_x86_32("", 0, 1), 0x514E28B7u);
  EXPECT_EQ(MurmurHash3_x86_32("", 0, 0xffffffffu), 0x81F16F39u);
  const uint8_t zeros[4] = {0, 0, 0, 0};
  EXPECT_EQ(MurmurHash3_x86_32(zeros, 4, 0), 0x2362F9DEu);
  const uint8_t b4[4] = {0x21, 0x43, 0x65, 0x87};
  EXPECT_EQ(MurmurHash3_x86_32(b4, 4, 0), 0xF55B516Bu);
  EXPECT_EQ(MurmurHash3_x86_32(b4, 4, 0x5082EDEEu), 0x2362F9DEu);
  EXPECT_EQ(MurmurHash3_x86_32(b4, 3, 0), 0x7E4A8634u);
  EXPECT_EQ(MurmurHash3_x86_32(b4, 2, 0), 0xA0F7B07Au);
  EXPECT_EQ(MurmurHash3_x86_32(b4, 1, 0), 0x72661CF4u);
  std::string s = "Hello, world!";
  EXPECT_EQ(MurmurHash3_x86_32(s.data(), s.size(), 1234), 0xFAF6CDB3u);
  std::string fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(MurmurHash3_x86_32(fox.data(), fox.size(), 0x9747b28c), 0x2FA826CDu);
}

TEST(MurmurHash3Test, IcebergStringAndBinaryVectors) {
  std::string s = "iceberg";
  EXPECT_EQ(Signed(MurmurHash3_x86_32(s.data(), s.size(), 0)), 1210000089);
  const uint8_t bin[4] = {0, 1, 2, 3};
  EXPECT_EQ(Signed(MurmurHash3_x86_32(bin, 4, 0)), -188683207);
}

}  // namespace
}  // namespace tarn
