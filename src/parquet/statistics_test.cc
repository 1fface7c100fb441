#include "parquet/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tarn::parquet {
namespace {

TEST(MinMax, SignedAndUnsignedOrdersDiffer) {
  std::vector<int32_t> v = {5, -1, 7, 0};
  MinMax<int32_t> s;
  s.Update(v.data(), 4);
  EXPECT_EQ(s.min, -1);
  EXPECT_EQ(s.max, 7);
  // The same bits as UINT32: -1 is 0xFFFFFFFF, the largest.
  MinMax<uint32_t> u;
  u.Update(reinterpret_cast<const uint32_t*>(v.data()), 4);
  EXPECT_EQ(u.min, 0u);
  EXPECT_EQ(u.max, 0xFFFFFFFFu);
}

TEST(MinMax, UpdatesAccumulateAndMerge) {
  MinMax<int64_t> a, b;
  std::vector<int64_t> x = {3, 4}, y = {-9}, z = {100};
  a.Update(x.data(), 2);
  a.Update(y.data(), 1);
  a.Update(x.data(), 0);  // empty input changes nothing
  b.Update(z.data(), 1);
  a.Merge(b);
  EXPECT_EQ(a.min, -9);
  EXPECT_EQ(a.max, 100);
  MinMax<int64_t> empty;
  a.Merge(empty);
  EXPECT_EQ(a.max, 100);
}

TEST(MinMax, FloatsSkipNaN) {
  std::vector<double> v = {NAN, 2.5, NAN, -1.0, INFINITY};
  MinMax<double> m;
  m.Update(v.data(), 5);
  ASSERT_TRUE(m.has);
  EXPECT_TRUE(m.nan);
  EXPECT_EQ(m.min, -1.0);
  EXPECT_EQ(m.max, INFINITY);
  MinMax<double> clean;
  clean.Update(v.data() + 1, 1);
  EXPECT_FALSE(clean.nan);
  clean.Merge(m);
  EXPECT_TRUE(clean.nan);
  std::vector<float> nans = {NAN, NAN};
  MinMax<float> f;
  f.Update(nans.data(), 2);
  EXPECT_FALSE(f.has);  // all NaN: no min/max
  EXPECT_TRUE(f.nan);
}

TEST(MakeFloatStatistics, ZerosAreWidenedToBothSigns) {
  Statistics s = MakeFloatStatistics(0.0, 0.0, 3);
  double mn, mx;
  std::memcpy(&mn, s.min_value->data(), 8);
  std::memcpy(&mx, s.max_value->data(), 8);
  EXPECT_TRUE(std::signbit(mn));
  EXPECT_FALSE(std::signbit(mx));
  EXPECT_EQ(s.null_count, 3);
  Statistics t = MakeFloatStatistics(-0.0f, 1.0f, 0);
  float tmn;
  std::memcpy(&tmn, t.min_value->data(), 4);
  EXPECT_TRUE(std::signbit(tmn));
  Statistics u = MakeFloatStatistics(-2.0f, -0.0f, 0);
  float umx;
  std::memcpy(&umx, u.max_value->data(), 4);
  EXPECT_FALSE(std::signbit(umx));
}

TEST(CompareBytes, UnsignedLexicographic) {
  EXPECT_LT(CompareBytes("a", "b"), 0);
  EXPECT_LT(CompareBytes("ab", "abc"), 0);
  EXPECT_EQ(CompareBytes("", ""), 0);
  EXPECT_LT(CompareBytes("", std::string_view("\0", 1)), 0);
  // High bytes sort after ASCII (unsigned, not signed char).
  EXPECT_LT(CompareBytes("z", "\xC3\xA9"), 0);
  EXPECT_GT(CompareBytes("\xFF", "\x7F"), 0);
  // The 8-byte fast path agrees with memcmp.
  EXPECT_LT(CompareBytes("abcdefgh1", "abcdefgi0"), 0);
  EXPECT_GT(CompareBytes("\x80\x00\x00\x00\x00\x00\x00\x00", "\x7F\xFF\xFF\xFF\xFF\xFF\xFF\xFF"),
            0);
  EXPECT_LT(CompareBytes("abcdefgh", "abcdefgh\x01"), 0);
}

TEST(CompareSignedBigEndian, NegativeDecimals) {
  auto be = [](std::initializer_list<uint8_t> b) { return std::string(b.begin(), b.end()); };
  std::string minus_one = be({0xFF, 0xFF}), minus_two = be({0xFF, 0xFE}), one = be({0x00, 0x01});
  std::string big_neg = be({0x80, 0x00});
  EXPECT_LT(CompareSignedBigEndian(minus_two, minus_one), 0);
  EXPECT_LT(CompareSignedBigEndian(minus_one, one), 0);
  EXPECT_LT(CompareSignedBigEndian(big_neg, minus_two), 0);
  EXPECT_EQ(CompareSignedBigEndian(one, one), 0);
  // Different widths compare by value: 0xFF (-1) == 0xFFFF (-1) < 0x0001.
  EXPECT_EQ(CompareSignedBigEndian(be({0xFF}), minus_one), 0);
  EXPECT_GT(CompareSignedBigEndian(be({0x80}), be({0xFF, 0x00})), 0);  // -128 > -256
  EXPECT_LT(CompareSignedBigEndian(be({0x7F}), be({0x01, 0x00})), 0);  // 127 < 256
}

TEST(BytesMinMax, BytesAndSignedDecimals) {
  std::vector<std::string_view> v = {"b", "\xFF", "a", "ab"};
  BytesMinMax m;
  m.Update(v.data(), 4);
  EXPECT_EQ(m.min, "a");
  EXPECT_EQ(m.max, "\xFF");
  std::vector<std::string_view> w = {""};
  m.Update(w.data(), 1);
  EXPECT_EQ(m.min, "");

  std::string neg("\xFF\xF0", 2), pos("\x00\x10", 2), zero("\x00\x00", 2);
  std::vector<std::string_view> d = {pos, neg, zero};
  BytesMinMax s;
  s.signed_big_endian = true;
  s.Update(d.data(), 3);
  EXPECT_EQ(s.min, neg);
  EXPECT_EQ(s.max, pos);
  BytesMinMax t;
  t.signed_big_endian = true;
  std::string more_neg("\x80\x00", 2);
  std::vector<std::string_view> e = {more_neg};
  t.Update(e.data(), 1);
  s.Merge(t);
  EXPECT_EQ(s.min, more_neg);
  EXPECT_EQ(s.max, pos);
}

TEST(MakeByteArrayStatistics, ShortValuesAreExact) {
  Statistics s = MakeByteArrayStatistics("abc", "xyz", 1);
  EXPECT_EQ(s.min_value, "abc");
  EXPECT_EQ(s.max_value, "xyz");
  EXPECT_EQ(s.is_min_value_exact, true);
  EXPECT_EQ(s.is_max_value_exact, true);
  EXPECT_EQ(s.null_count, 1);
  EXPECT_FALSE(s.min.has_value());  // the deprecated fields are not written
  EXPECT_FALSE(s.max.has_value());
}

TEST(MakeByteArrayStatistics, LongValuesAreTruncatedAndMarked) {
  std::string min(100, 'a'), max(100, 'q');
  Statistics s = MakeByteArrayStatistics(min, max, 0);
  EXPECT_EQ(s.min_value, std::string(64, 'a'));
  EXPECT_EQ(s.is_min_value_exact, false);
  EXPECT_EQ(s.max_value, std::string(63, 'q') + "r");
  EXPECT_EQ(s.is_max_value_exact, false);
  // Trailing 0xFF bytes are dropped before incrementing.
  std::string hi = std::string(62, 'q') + std::string(38, '\xFF');
  Statistics t = MakeByteArrayStatistics("a", hi, 0);
  EXPECT_EQ(t.max_value, std::string(61, 'q') + "r");
  // All 0xFF: no upper bound can be written.
  Statistics u = MakeByteArrayStatistics("a", std::string(80, '\xFF'), 0);
  EXPECT_FALSE(u.max_value.has_value());
  EXPECT_FALSE(u.is_max_value_exact.has_value());
  EXPECT_EQ(u.min_value, "a");
  // Exactly 64 bytes is kept whole.
  Statistics e = MakeByteArrayStatistics(std::string(64, 'b'), std::string(64, 'c'), 0);
  EXPECT_EQ(e.is_max_value_exact, true);
  EXPECT_EQ(e.max_value->size(), 64u);
}

TEST(MakeStatistics, NullOnly) {
  Statistics s = MakeNullOnlyStatistics(5);
  EXPECT_EQ(s.null_count, 5);
  EXPECT_FALSE(s.min_value.has_value());
  EXPECT_FALSE(s.max_value.has_value());
}

}  // namespace
}  // namespace tarn::parquet
