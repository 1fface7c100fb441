#include "parquet/encoding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "parquet/decoding.h"

namespace tarn::parquet {
namespace {

std::vector<uint8_t> Bytes(const ByteBuffer& b) { return {b.begin(), b.end()}; }

// A deliberately simple decoder of the RLE/bit-packed hybrid, independent of the reader's.
std::vector<uint32_t> ReferenceDecode(const ByteBuffer& in, int width, size_t n) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  auto varint = [&] {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      uint8_t b = in.at(pos++);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  while (out.size() < n) {
    uint64_t header = varint();
    if (header & 1) {
      size_t count = (header >> 1) * 8;
      size_t bit = 0;
      for (size_t k = 0; k < count; ++k) {
        uint32_t v = 0;
        for (int b = 0; b < width; ++b, ++bit) {
          v |= static_cast<uint32_t>((in.at(pos + bit / 8) >> (bit % 8)) & 1) << b;
        }
        out.push_back(v);
      }
      pos += (header >> 1) * width;
    } else {
      uint32_t v = 0;
      for (int b = 0; b < (width + 7) / 8; ++b) v |= static_cast<uint32_t>(in.at(pos++)) << (8 * b);
      out.insert(out.end(), header >> 1, v);
    }
  }
  EXPECT_EQ(pos, in.size()) << "trailing bytes";
  out.resize(n);
  return out;
}

template <typename T>
void ExpectRoundTrip(const std::vector<T>& values, int width) {
  ByteBuffer out;
  EncodeRleBitPacked(values.data(), static_cast<int64_t>(values.size()), width, &out);
  std::vector<uint32_t> want(values.begin(), values.end());
  EXPECT_EQ(ReferenceDecode(out, width, values.size()), want) << "width " << width;
  // And through the reader's decoder.
  RleBitPackedDecoder dec(out.data(), out.size(), width);
  std::vector<uint32_t> got(values.size());
  EXPECT_EQ(dec.GetBatch(got.data(), static_cast<int64_t>(got.size())),
            static_cast<int64_t>(got.size()));
  EXPECT_EQ(got, want);
}

TEST(RleBitPacked, SpecExampleBitPacksZeroToSeven) {
  std::vector<uint32_t> v = {0, 1, 2, 3, 4, 5, 6, 7};
  ByteBuffer out;
  EncodeRleBitPacked(v.data(), 8, 3, &out);
  // One group: header (1 << 1) | 1, then the spec's 10001000 11000110 11111010.
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x03, 0x88, 0xC6, 0xFA}));
}

TEST(RleBitPacked, LongRepeatsBecomeOneRleRun) {
  std::vector<uint8_t> v(20, 1);
  ByteBuffer out;
  EncodeRleBitPacked(v.data(), 20, 1, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{40, 0x01}));
  std::vector<uint32_t> wide(1000, 0x12345);
  out.clear();
  EncodeRleBitPacked(wide.data(), 1000, 17, &out);  // value in 3 bytes, little-endian
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xD0, 0x0F, 0x45, 0x23, 0x01}));
}

TEST(RleBitPacked, ShortRepeatsStayBitPacked) {
  // Runs of 7 never pay for an RLE header.
  std::vector<uint8_t> v;
  for (int r = 0; r < 4; ++r) v.insert(v.end(), 7, static_cast<uint8_t>(r % 2));
  ByteBuffer out;
  EncodeRleBitPacked(v.data(), static_cast<int64_t>(v.size()), 1, &out);
  ASSERT_EQ(out.size(), 1u + 4u);  // one header, 28 values padded to 32 bits
  EXPECT_EQ(out[0], (4 << 1) | 1);
  ExpectRoundTrip(v, 1);
}

TEST(RleBitPacked, LiteralsBeforeARunBorrowFromItToFillAGroup) {
  std::vector<uint8_t> v = {1, 2, 3};
  v.insert(v.end(), 20, 3);
  ByteBuffer out;
  EncodeRleBitPacked(v.data(), static_cast<int64_t>(v.size()), 2, &out);
  // 8 bit-packed values (1, 2, 3 and five 3s), then an RLE run of the remaining 15 threes.
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x03, 0xF9, 0xFF, 30, 0x03}));
  ExpectRoundTrip(v, 2);
}

TEST(RleBitPacked, RunTooShortAfterBorrowingStaysLiteral) {
  std::vector<uint8_t> v = {1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};  // 3 + 10 zeros + 1
  ByteBuffer out;
  EncodeRleBitPacked(v.data(), static_cast<int64_t>(v.size()), 3, &out);
  EXPECT_EQ(out[0], (2 << 1) | 1);  // everything bit-packed in two groups
  EXPECT_EQ(out.size(), 1u + 2 * 3);
  ExpectRoundTrip(v, 3);
}

TEST(RleBitPacked, EmptyAndWidthZero) {
  ByteBuffer out;
  std::vector<uint32_t> none;
  EncodeRleBitPacked(none.data(), 0, 5, &out);
  EXPECT_TRUE(out.empty());
  std::vector<uint32_t> zeros(100, 0);
  EncodeRleBitPacked(zeros.data(), 100, 0, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xC8, 0x01}));  // RLE run of 100, no value bytes
}

TEST(RleBitPacked, RandomMixturesRoundTripAtEveryWidth) {
  std::mt19937 rng(7);
  for (int width = 1; width <= 32; ++width) {
    uint64_t mask = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    std::vector<uint32_t> v;
    while (v.size() < 3000) {
      uint32_t x = static_cast<uint32_t>(rng() & mask);
      size_t run = rng() % 4 == 0 ? rng() % 40 : 1;
      v.insert(v.end(), run, x);
    }
    ExpectRoundTrip(v, width);
  }
  std::vector<uint16_t> levels(777);
  for (auto& l : levels) l = static_cast<uint16_t>(rng() % 3);
  ExpectRoundTrip(levels, 2);
}

TEST(Levels, V1HasALengthPrefix) {
  std::vector<uint8_t> v(10, 1);
  ByteBuffer out;
  out.push_back(0xEE);  // appends after existing bytes
  EncodeLevelsV1(v.data(), 10, 1, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xEE, 2, 0, 0, 0, 20, 1}));
}

TEST(Plain, Booleans) {
  std::vector<uint8_t> v = {1, 0, 1, 1, 0, 0, 0, 1, 1, 2};  // any non-zero is true
  ByteBuffer out;
  PlainEncodeBooleans(v.data(), 10, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x8D, 0x03}));
}

TEST(Plain, ByteArraysAndFixed) {
  std::vector<std::string_view> v = {"ab", "", std::string_view("\x00\xff", 2)};
  ByteBuffer out;
  PlainEncodeByteArrays(v.data(), 3, &out);
  EXPECT_EQ(Bytes(out),
            (std::vector<uint8_t>{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 2, 0, 0, 0, 0, 0xFF}));
  out.clear();
  std::vector<std::string_view> f = {"abc", "def"};
  PlainEncodeFixedLenByteArrays(f.data(), 2, &out);
  EXPECT_EQ(std::string(out.begin(), out.end()), "abcdef");
  out.clear();
  std::vector<int32_t> ints = {1, -1};
  PlainEncodeFixed(ints.data(), 2, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST(DeltaBinaryPacked, ConstantStepHasZeroWidthMiniblocks) {
  std::vector<int32_t> v = {1, 2, 3, 4, 5};
  ByteBuffer out;
  EncodeDeltaBinaryPacked(v.data(), 5, &out);
  // Header: block 128, 4 miniblocks, 5 values, first value 1; block: min delta 1, widths 0.
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0}));
}

template <typename T>
void ExpectDeltaRoundTrip(const std::vector<T>& v) {
  ByteBuffer out;
  EncodeDeltaBinaryPacked(v.data(), static_cast<int64_t>(v.size()), &out);
  std::vector<T> back(v.size());
  size_t consumed = 0;
  Status st = DecodeDeltaBinaryPacked<T>(out.data(), out.size(), static_cast<int64_t>(v.size()),
                                         back.data(), &consumed);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(consumed, out.size());
  EXPECT_EQ(back, v);
}

TEST(DeltaBinaryPacked, ExtremesWrapAround) {
  ExpectDeltaRoundTrip<int64_t>({});
  ExpectDeltaRoundTrip<int64_t>({42});
  std::vector<int64_t> v64;
  std::vector<int32_t> v32;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) {
    v64.push_back(i % 3 == 0   ? std::numeric_limits<int64_t>::min()
                  : i % 3 == 1 ? std::numeric_limits<int64_t>::max()
                               : static_cast<int64_t>(rng()));
    v32.push_back(i % 2 ? std::numeric_limits<int32_t>::min() : static_cast<int32_t>(rng()));
  }
  ExpectDeltaRoundTrip(v64);
  ExpectDeltaRoundTrip(v32);
  std::vector<int64_t> sorted(300);
  for (int i = 0; i < 300; ++i) sorted[i] = 1700000000000000 + i * 1000 + (i % 7);
  ExpectDeltaRoundTrip(sorted);
}

TEST(DeltaLengthByteArray, RoundTrip) {
  std::vector<std::string_view> v = {"hello", "", "world!", std::string_view("\0x", 2)};
  ByteBuffer out;
  EncodeDeltaLengthByteArray(v.data(), 4, &out);
  ByteBuffer data;
  std::vector<int64_t> offsets = {0};
  std::vector<int32_t> scratch;
  size_t consumed = 0;
  ASSERT_TRUE(
      DecodeDeltaLengthByteArray(out.data(), out.size(), 4, &data, &offsets, &scratch, &consumed)
          .ok());
  EXPECT_EQ(consumed, out.size());
  ASSERT_EQ(offsets.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(data.data()) + offsets[i],
                               offsets[i + 1] - offsets[i]),
              v[i]);
  }
}

TEST(ByteStreamSplit, Layout) {
  std::vector<uint8_t> v = {1, 2, 3, 4, 5, 6};  // two 3-byte values
  ByteBuffer out;
  EncodeByteStreamSplit(v.data(), 2, 3, &out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(FixedDictionary, IndicesInFirstSeenOrderAndBitIdentity) {
  FixedDictionary<uint64_t> d;
  auto bits = [](double x) {
    uint64_t b;
    std::memcpy(&b, &x, 8);
    return b;
  };
  std::vector<uint64_t> v = {bits(1.5), bits(0.0), bits(-0.0), bits(NAN), bits(1.5), bits(NAN)};
  std::vector<uint32_t> idx(v.size());
  d.Put(v.data(), 6, idx.data());
  EXPECT_EQ(idx, (std::vector<uint32_t>{0, 1, 2, 3, 0, 3}));
  EXPECT_EQ(d.size(), 4);
  EXPECT_EQ(d.plain_bytes(), 32);
  ByteBuffer page;
  d.WritePlain(&page);
  ASSERT_EQ(page.size(), 32u);
  EXPECT_EQ(std::memcmp(page.data() + 16, &v[2], 8), 0);
}

TEST(FixedDictionary, GrowsPastItsInitialTableAndClears) {
  FixedDictionary<uint32_t> d;
  std::vector<uint32_t> v;
  for (uint32_t i = 0; i < 100000; ++i) v.push_back(i * 2654435761u);
  for (uint32_t i = 0; i < 100000; ++i) v.push_back(i * 2654435761u);
  std::vector<uint32_t> idx(v.size());
  d.Put(v.data(), static_cast<int64_t>(v.size()), idx.data());
  EXPECT_EQ(d.size(), 100000);
  for (uint32_t i = 0; i < 100000; ++i) {
    ASSERT_EQ(idx[i], i);
    ASSERT_EQ(idx[100000 + i], i);
    ASSERT_EQ(d.values()[i], v[i]);
  }
  d.Clear();
  EXPECT_EQ(d.size(), 0);
  d.Put(v.data() + 5, 1, idx.data());
  EXPECT_EQ(idx[0], 0u);
}

TEST(BytesDictionary, StringsIncludingEmptyAndLong) {
  BytesDictionary d;
  std::string long_value(1000, 'z');
  std::vector<std::string_view> v = {"a", "", "b", "a", long_value, "", long_value};
  std::vector<uint32_t> idx(v.size());
  d.Put(v.data(), 7, idx.data());
  EXPECT_EQ(idx, (std::vector<uint32_t>{0, 1, 2, 0, 3, 1, 3}));
  EXPECT_EQ(d.Get(3), long_value);
  EXPECT_EQ(d.plain_bytes(), 4 * 4 + 1 + 0 + 1 + 1000);
  ByteBuffer page;
  d.WritePlain(&page);
  ASSERT_EQ(static_cast<int64_t>(page.size()), d.plain_bytes());
  EXPECT_EQ(Bytes(page).at(4), 'a');
  // Many distinct values force several table growths.
  std::vector<std::string> many;
  for (int i = 0; i < 50000; ++i) many.push_back("key_" + std::to_string(i));
  std::vector<std::string_view> views(many.begin(), many.end());
  std::vector<uint32_t> idx2(views.size());
  d.Put(views.data(), static_cast<int64_t>(views.size()), idx2.data());
  for (int i = 0; i < 50000; ++i) ASSERT_EQ(d.Get(idx2[i]), many[i]);
  EXPECT_EQ(d.size(), 4 + 50000);
}

TEST(BytesDictionary, FixedLengthPlainHasNoLengthPrefix) {
  BytesDictionary d(2);
  std::vector<std::string_view> v = {"ab", "cd", "ab"};
  std::vector<uint32_t> idx(3);
  d.Put(v.data(), 3, idx.data());
  EXPECT_EQ(d.plain_bytes(), 4);
  ByteBuffer page;
  d.WritePlain(&page);
  EXPECT_EQ(std::string(page.begin(), page.end()), "abcd");
}

TEST(HashBytes, DependsOnEveryByteAndTheLength) {
  std::string a(40, 'x');
  uint64_t base = HashBytes(a.data(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    std::string b = a;
    b[i] = 'y';
    EXPECT_NE(HashBytes(b.data(), b.size()), base) << i;
  }
  EXPECT_NE(HashBytes(a.data(), 39), base);
  EXPECT_NE(HashBytes("", 0), HashBytes("\0", 1));
}

}  // namespace
}  // namespace tarn::parquet
