#include "common/hash.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

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

TEST(XxHash64Test, ReferenceVectors) {
  // Values of the reference implementation (libxxhash 0.8.1's XXH64).
  EXPECT_EQ(XxHash64("", 0), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(XxHash64("a", 1), 0xD24EC4F1A98C6E5Bull);
  EXPECT_EQ(XxHash64("abc", 3), 0x44BC2CF5AD770999ull);
  std::string s = "Nobody inspects the spammish repetition";
  EXPECT_EQ(XxHash64(s.data(), s.size()), 0xFBCEA83C8A378BF1ull);
  EXPECT_EQ(XxHash64("", 0, 1), 0xD5AFBA1336A3BE4Bull);
  // Every tail path (8-, 4- and 1-byte steps) and the 32-byte stripes, bytes (7i+3) mod 256.
  uint8_t data[200];
  for (int i = 0; i < 200; ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);
  const std::pair<size_t, uint64_t> vectors[] = {
      {1, 0x1F25C8D0BC1F4BB6ull},  {3, 0x31D2363F52E564C9ull},  {4, 0x9BB64B7D66EE9FDAull},
      {7, 0x9A7B149959CE60D8ull},  {8, 0xDAB99D95C6F90092ull},  {12, 0xD52E407833AF5133ull},
      {31, 0xA2AA5F33CC4A6119ull}, {32, 0x23C3C17EF790FD97ull}, {33, 0x50A7CFC7BA588784ull},
      {63, 0x5E3E54B431C7493Cull}, {64, 0x0EB64B3EF6EEB01Full}, {100, 0xA61F8D4C170FE531ull},
      {200, 0xA6CB3C09BC829B24ull}};
  for (auto [n, want] : vectors) EXPECT_EQ(XxHash64(data, n), want) << n << " bytes";
  EXPECT_EQ(XxHash64(data, 40, 0x9E3779B185EBCA87ull), 0x628871683636A74Cull);
  // Plain-encoded integers, as a Parquet bloom filter hashes an INT32 / INT64 value.
  const int32_t i32 = 42;
  const int64_t i64 = -1;
  EXPECT_EQ(XxHash64(&i32, 4), 0xD756D7B62FC50BF1ull);
  EXPECT_EQ(XxHash64(&i64, 8), 0x85D136ADB773C6C9ull);
}

}  // namespace
}  // namespace tarn
