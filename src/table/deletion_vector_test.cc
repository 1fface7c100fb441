#include "table/deletion_vector.h"

#include <gtest/gtest.h>

#include <random>

namespace tarn {
namespace {

TEST(DeletionVectorTest, RoundTripAndCompact) {
  std::vector<uint64_t> p = {0, 1, 2, 100, 1000000, UINT64_MAX - 1, UINT64_MAX};
  std::string enc = EncodeDeletionVector(p);
  EXPECT_EQ(static_cast<uint8_t>(enc[0]), 1);
  EXPECT_EQ(*DecodeDeletionVector(enc), p);
  EXPECT_EQ(*DecodeDeletionVector(EncodeDeletionVector({})), std::vector<uint64_t>{});
  // Dense runs take one byte per position.
  std::vector<uint64_t> dense(10000);
  for (size_t i = 0; i < dense.size(); ++i) dense[i] = i * 3;
  std::string d = EncodeDeletionVector(dense);
  EXPECT_LE(d.size(), 10000u + 4);
  EXPECT_EQ(*DecodeDeletionVector(d), dense);
  // Exact bytes: version, count, first, deltas-1.
  EXPECT_EQ(EncodeDeletionVector({5, 6, 200}), std::string("\x01\x03\x05\x00\xc1\x01", 6));
  // Unsorted input with duplicates is normalised.
  EXPECT_EQ(*DecodeDeletionVector(EncodeDeletionVector({9, 3, 3, 1})),
            (std::vector<uint64_t>{1, 3, 9}));
}

TEST(DeletionVectorTest, RandomRoundTrip) {
  std::mt19937_64 rng(7);
  for (int r = 0; r < 50; ++r) {
    std::vector<uint64_t> p;
    uint64_t v = rng() % 1000;
    for (int i = 0; i < 200; ++i) {
      p.push_back(v);
      v += 1 + (rng() % (r % 2 ? uint64_t{3} : uint64_t{1} << (rng() % 40)));
    }
    EXPECT_EQ(*DecodeDeletionVector(EncodeDeletionVector(p)), p);
  }
}

TEST(DeletionVectorTest, CorruptInputIsRefused) {
  std::string good = EncodeDeletionVector({5, 6, 200});
  for (const std::string& bad : std::vector<std::string>{
           "", std::string("\x02\x00", 2), std::string("\x01", 1),
           std::string("\x01\x03\x05\x00", 4),  // truncated
           std::string("\x01\x01\x05\x00", 4),  // trailing byte
           std::string("\x01\x05\x80\x80", 4),  // count past the bytes
           std::string("\x01\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 12),      // >64 bits
           std::string("\x01\x02\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01\x01", 13),  // overflow
           std::string("\x01\x01\x80", 3),  // unterminated varint
       }) {
    Result<std::vector<uint64_t>> r = DecodeDeletionVector(bad);
    ASSERT_FALSE(r.ok()) << testing::PrintToString(bad);
    EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption);
  }
  // Every truncation of a valid vector fails cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(DecodeDeletionVector(good.substr(0, n)).ok()) << n;
  }
}

TEST(DeletionVectorTest, Union) {
  EXPECT_EQ(UnionPositions({1, 3, 5}, {2, 3, 9}), (std::vector<uint64_t>{1, 2, 3, 5, 9}));
  EXPECT_EQ(UnionPositions({}, {4}), std::vector<uint64_t>{4});
  EXPECT_EQ(UnionPositions({}, {}), std::vector<uint64_t>{});
}

}  // namespace
}  // namespace tarn
