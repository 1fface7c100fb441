#include "parquet/decoding.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "parquet/reader_test_util.h"

namespace tarn::parquet {
namespace {

using testing::CompactWriter;
using testing::EncodeDbp;
using testing::PackLsb;

uint64_t Mask(int width) { return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

TEST(UnpackBitsTest, EveryWidthMatchesReferencePacker) {
  std::mt19937_64 rng(42);
  for (int width = 0; width <= 64; ++width) {
    for (int64_t n : {0, 1, 7, 8, 9, 31, 64, 100, 257}) {
      std::vector<uint64_t> values(n);
      for (auto& v : values) v = rng() & Mask(width);
      std::vector<uint8_t> packed = PackLsb(values, width);
      // Exact-size heap buffer: any over-read shows up under ASan.
      std::vector<uint8_t> exact(packed);
      std::vector<uint64_t> out64(n + 1, 0xdeadbeef);
      UnpackBits(exact.data(), exact.size(), width, out64.data(), n);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out64[i], values[i]) << "w=" << width << " i=" << i;
      EXPECT_EQ(out64[n], 0xdeadbeefu) << "wrote past n";
      if (width <= 32) {
        std::vector<uint32_t> out32(n);
        UnpackBits(exact.data(), exact.size(), width, out32.data(), n);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out32[i], values[i]) << "w=" << width;
      }
      if (width <= 15) {
        std::vector<int16_t> out16(n);
        UnpackBits(exact.data(), exact.size(), width, out16.data(), n);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<uint64_t>(out16[i]), values[i]);
      }
    }
  }
}

TEST(RleBitPackedTest, SpecBitPackedExample) {
  // Encodings.md: values 0..7 with bit width 3 pack to 10001000 11000110 11111010.
  std::vector<uint8_t> data = {0x03, 0x88, 0xC6, 0xFA};  // header: 1 group, bit-packed
  RleBitPackedDecoder dec(data.data(), data.size(), 3);
  std::vector<uint32_t> out(8);
  ASSERT_EQ(dec.GetBatch(out.data(), 8), 8);
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(dec.GetBatch(out.data(), 1), 0);
}

TEST(RleBitPackedTest, MixedRunsInOddBatches) {
  // RLE run of 5 x 300 (width 10: two value bytes), bit-packed 16 values, RLE run of 3 x 0.
  const int w = 10;
  std::vector<uint64_t> bp(16);
  for (int i = 0; i < 16; ++i) bp[i] = (i * 97) & Mask(w);
  CompactWriter c;
  c.Varint(5 << 1);
  c.Byte(300 & 0xff);
  c.Byte(300 >> 8);
  c.Varint((2 << 1) | 1);
  for (uint8_t b : PackLsb(bp, w)) c.Byte(b);
  c.Varint(3 << 1);
  c.Byte(0);
  c.Byte(0);
  std::vector<uint8_t> data(c.out.begin(), c.out.end());
  std::vector<uint32_t> expect(5, 300);
  for (auto v : bp) expect.push_back(static_cast<uint32_t>(v));
  for (int i = 0; i < 3; ++i) expect.push_back(0);
  for (int batch : {1, 2, 3, 5, 7, 24, 100}) {
    RleBitPackedDecoder dec(data.data(), data.size(), w);
    std::vector<uint32_t> got;
    std::vector<uint32_t> buf(batch);
    for (;;) {
      int64_t k = dec.GetBatch(buf.data(), batch);
      got.insert(got.end(), buf.begin(), buf.begin() + k);
      if (k < batch) break;
    }
    EXPECT_EQ(got, expect) << "batch " << batch;
  }
  // Levels decode into int16.
  RleBitPackedDecoder dec(data.data(), data.size(), w);
  std::vector<int16_t> levels(expect.size());
  ASSERT_EQ(dec.GetBatch(levels.data(), static_cast<int64_t>(levels.size())),
            static_cast<int64_t>(levels.size()));
  EXPECT_EQ(levels[0], 300);
  EXPECT_EQ(levels[6], static_cast<int16_t>(bp[1]));
}

TEST(RleBitPackedTest, TruncatedRunsDecodeWhatIsPresent) {
  // A bit-packed run declaring 4 groups (32 values, 4 bytes at width 1) with only 1 byte.
  std::vector<uint8_t> data = {(4 << 1) | 1, 0xA5};
  RleBitPackedDecoder dec(data.data(), data.size(), 1);
  std::vector<uint8_t> out(32);
  EXPECT_EQ(dec.GetBatch(out.data(), 32), 8);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 0);
  // An RLE run missing its value byte decodes nothing.
  std::vector<uint8_t> rle = {4 << 1};
  RleBitPackedDecoder dec2(rle.data(), rle.size(), 8);
  EXPECT_EQ(dec2.GetBatch(out.data(), 4), 0);
  // Width zero: bit-packed runs carry no bytes.
  std::vector<uint8_t> zero = {(2 << 1) | 1};
  RleBitPackedDecoder dec3(zero.data(), zero.size(), 0);
  std::vector<uint32_t> z(16, 9);
  EXPECT_EQ(dec3.GetBatch(z.data(), 16), 16);
  EXPECT_EQ(z, std::vector<uint32_t>(16, 0));
}

TEST(LegacyBitPackedTest, SpecExample) {
  // Encodings.md BIT_PACKED: 0..7 with width 3 -> 00000101 00111001 01110111 (MSB first).
  std::vector<uint8_t> data = {0x05, 0x39, 0x77};
  std::vector<int16_t> out(8);
  ASSERT_TRUE(DecodeBitPackedLegacy(data.data(), data.size(), 3, out.data(), 8).ok());
  EXPECT_EQ(out, (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(DecodeBitPackedLegacy(data.data(), 2, 3, out.data(), 8).kind(), ErrorKind::kCorruption);
}

TEST(PlainTest, Booleans) {
  std::vector<uint8_t> data = {0b10110001, 0b00000001};
  std::vector<uint8_t> out(9);
  size_t consumed;
  ASSERT_TRUE(DecodePlainBoolean(data.data(), data.size(), 9, out.data(), &consumed).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 0, 0, 1, 1, 0, 1, 1}));
  EXPECT_EQ(consumed, 2u);
  EXPECT_EQ(DecodePlainBoolean(data.data(), 1, 9, out.data(), &consumed).kind(),
            ErrorKind::kCorruption);
}

TEST(PlainTest, ByteArrays) {
  std::string page = testing::PlainByteArrays({"a", "", "hello"});
  std::vector<uint8_t> data(page.begin(), page.end());
  ByteBuffer out{'x'};
  std::vector<int64_t> offsets = {0, 1};
  size_t consumed;
  ASSERT_TRUE(DecodePlainByteArray(data.data(), data.size(), 3, &out, &offsets, &consumed).ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), "xahello");
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 1, 2, 2, 7}));
  EXPECT_EQ(consumed, data.size());
  // Every truncation is an error, never an over-read.
  for (size_t n = 0; n < data.size(); ++n) {
    std::vector<uint8_t> cut(data.begin(), data.begin() + n);
    ByteBuffer o;
    std::vector<int64_t> off = {0};
    EXPECT_EQ(DecodePlainByteArray(cut.data(), cut.size(), 3, &o, &off, &consumed).kind(),
              ErrorKind::kCorruption);
  }
  // A length past the end.
  std::vector<uint8_t> bad = {0xff, 0xff, 0xff, 0x7f, 'a'};
  ByteBuffer o;
  std::vector<int64_t> off = {0};
  EXPECT_EQ(DecodePlainByteArray(bad.data(), bad.size(), 1, &o, &off, &consumed).kind(),
            ErrorKind::kCorruption);
}

TEST(DeltaBinaryPackedTest, SpecExampleOne) {
  // 1, 2, 3, 4, 5: one block, min delta 1, all widths 0, no miniblock data.
  std::vector<uint8_t> data = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
  std::vector<int32_t> out(5);
  size_t consumed;
  ASSERT_TRUE(
      DecodeDeltaBinaryPacked<int32_t>(data.data(), data.size(), 5, out.data(), &consumed).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, data.size());
}

TEST(DeltaBinaryPackedTest, SpecExampleTwo) {
  // 7, 5, 3, 1, 2, 3, 4, 5: min delta -2, relative deltas 0 0 0 3 3 3 3 at width 2.
  std::vector<uint8_t> data = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 2, 0, 0,
                               0,    0xC0, 0x3F, 0,    0,    0,    0, 0, 0};
  std::vector<int64_t> out(8);
  size_t consumed;
  ASSERT_TRUE(
      DecodeDeltaBinaryPacked<int64_t>(data.data(), data.size(), 8, out.data(), &consumed).ok());
  EXPECT_EQ(out, (std::vector<int64_t>{7, 5, 3, 1, 2, 3, 4, 5}));
  EXPECT_EQ(consumed, data.size());
  EXPECT_EQ(EncodeDbp<int64_t>({7, 5, 3, 1, 2, 3, 4, 5}), data);  // the reference agrees
}

template <typename T>
void RoundTrip(const std::vector<T>& v, int block, int minis) {
  std::vector<uint8_t> data = EncodeDbp(v, block, minis);
  std::vector<T> out(v.size());
  size_t consumed;
  Status st = DecodeDeltaBinaryPacked<T>(data.data(), data.size(), static_cast<int64_t>(v.size()),
                                         out.data(), &consumed);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, v);
  EXPECT_EQ(consumed, data.size());
  // Fewer values than the stream holds: still the stream's full length.
  if (v.size() > 3) {
    std::vector<T> part(3);
    ASSERT_TRUE(
        DecodeDeltaBinaryPacked<T>(data.data(), data.size(), 3, part.data(), &consumed).ok());
    EXPECT_EQ(part, std::vector<T>(v.begin(), v.begin() + 3));
    EXPECT_EQ(consumed, data.size());
  }
}

TEST(DeltaBinaryPackedTest, RoundTripsIncludingWrapAround) {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 2, 33, 128, 129, 1000}) {
    std::vector<int64_t> v64(n);
    std::vector<int32_t> v32(n);
    for (size_t i = 0; i < n; ++i) {
      v64[i] = static_cast<int64_t>(rng());
      v32[i] = static_cast<int32_t>(rng());
    }
    if (n > 2) {
      v64[1] = std::numeric_limits<int64_t>::min();
      v64[2] = std::numeric_limits<int64_t>::max();
      v32[1] = std::numeric_limits<int32_t>::min();
      v32[2] = std::numeric_limits<int32_t>::max();
    }
    RoundTrip(v64, 128, 4);
    RoundTrip(v32, 128, 4);
    RoundTrip(v64, 256, 2);
    std::vector<int64_t> sorted(n);
    for (size_t i = 0; i < n; ++i) sorted[i] = static_cast<int64_t>(i * 3 + (i % 5));
    RoundTrip(sorted, 128, 4);
  }
}

TEST(DeltaBinaryPackedTest, MalformedStreams) {
  std::vector<int32_t> out(8);
  size_t consumed;
  auto decode = [&](const std::vector<uint8_t>& d, int64_t n) {
    return DecodeDeltaBinaryPacked<int32_t>(d.data(), d.size(), n, out.data(), &consumed);
  };
  // Fewer values than needed.
  EXPECT_EQ(decode({0x80, 0x01, 0x04, 0x02, 0x02, 0x02, 0, 0, 0, 0}, 5).kind(),
            ErrorKind::kCorruption);
  // Block size not a multiple of 128; miniblock size not a multiple of 32; zero miniblocks.
  EXPECT_EQ(decode({0x64, 0x04, 0x01, 0x02}, 1).kind(), ErrorKind::kCorruption);
  EXPECT_EQ(decode({0x80, 0x01, 0x05, 0x01, 0x02}, 1).kind(), ErrorKind::kCorruption);
  EXPECT_EQ(decode({0x80, 0x01, 0x00, 0x01, 0x02}, 1).kind(), ErrorKind::kCorruption);
  // Bit width above 64.
  EXPECT_EQ(decode({0x80, 0x01, 0x04, 0x03, 0x02, 0x02, 65, 0, 0, 0}, 3).kind(),
            ErrorKind::kCorruption);
  // Every truncation of a valid stream fails, except cutting only the padding of the last
  // miniblock, which some writers omit: then the values must still be right.
  const std::vector<int32_t> values = {1, 100, -100, 5, 6, 7, 8, 9};
  std::vector<uint8_t> good = EncodeDbp<int32_t>(values);
  int failures = 0;
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    std::fill(out.begin(), out.end(), 0);
    Status st = decode(cut, 8);
    if (st.ok()) {
      EXPECT_EQ(out, values) << n;
    } else {
      EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
      ++failures;
    }
  }
  // Header (4 bytes), min delta, 4 widths and 7 values at width 8 are needed: 17 bytes.
  EXPECT_GE(failures, 17);
  // A huge declared count with a tiny body fails without allocating.
  CompactWriter w;
  w.Varint(128);
  w.Varint(4);
  w.Varint(uint64_t{1} << 60);
  w.ZigZag(0);
  std::vector<uint8_t> huge(w.out.begin(), w.out.end());
  EXPECT_EQ(decode(huge, 2).kind(), ErrorKind::kCorruption);
}

TEST(DeltaLengthByteArrayTest, SpecExample) {
  std::vector<uint8_t> data = EncodeDbp<int32_t>({5, 5, 6, 6});
  const std::string body = "HelloWorldFoobarABCDEF";
  data.insert(data.end(), body.begin(), body.end());
  ByteBuffer out;
  std::vector<int64_t> offsets = {0};
  std::vector<int32_t> scratch;
  size_t consumed;
  ASSERT_TRUE(
      DecodeDeltaLengthByteArray(data.data(), data.size(), 4, &out, &offsets, &scratch, &consumed)
          .ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), body);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 5, 10, 16, 22}));
  EXPECT_EQ(consumed, data.size());
  data.pop_back();
  ByteBuffer o2;
  std::vector<int64_t> off2 = {0};
  EXPECT_EQ(DecodeDeltaLengthByteArray(data.data(), data.size(), 4, &o2, &off2, &scratch, &consumed)
                .kind(),
            ErrorKind::kCorruption);
  // Negative lengths.
  std::vector<uint8_t> neg = EncodeDbp<int32_t>({3, -1});
  neg.push_back('a');
  EXPECT_EQ(
      DecodeDeltaLengthByteArray(neg.data(), neg.size(), 2, &o2, &off2, &scratch, &consumed).kind(),
      ErrorKind::kCorruption);
}

TEST(DeltaByteArrayTest, SpecExample) {
  // axis, axle, babble, babyhood -> prefixes 0 2 0 3, suffixes axis le babble yhood.
  std::vector<uint8_t> data = EncodeDbp<int32_t>({0, 2, 0, 3});
  std::vector<uint8_t> suffixes = EncodeDbp<int32_t>({4, 2, 6, 5});
  data.insert(data.end(), suffixes.begin(), suffixes.end());
  const std::string body = "axislebabbleyhood";
  data.insert(data.end(), body.begin(), body.end());
  ByteBuffer out;
  std::vector<int64_t> offsets = {0};
  std::vector<int32_t> scratch;
  ASSERT_TRUE(DecodeDeltaByteArray(data.data(), data.size(), 4, &out, &offsets, &scratch).ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), "axisaxlebabblebabyhood");
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 4, 8, 14, 22}));
}

TEST(DeltaByteArrayTest, PrefixLongerThanPreviousIsCorruption) {
  std::vector<uint8_t> data = EncodeDbp<int32_t>({0, 9});
  std::vector<uint8_t> suffixes = EncodeDbp<int32_t>({2, 1});
  data.insert(data.end(), suffixes.begin(), suffixes.end());
  data.push_back('a');
  data.push_back('b');
  data.push_back('c');
  ByteBuffer out;
  std::vector<int64_t> offsets = {0};
  std::vector<int32_t> scratch;
  Status st = DecodeDeltaByteArray(data.data(), data.size(), 2, &out, &offsets, &scratch);
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
  EXPECT_NE(st.message().find("prefix"), std::string::npos) << st.message();
  // First value with a prefix.
  std::vector<uint8_t> first = EncodeDbp<int32_t>({1});
  std::vector<uint8_t> s1 = EncodeDbp<int32_t>({1});
  first.insert(first.end(), s1.begin(), s1.end());
  first.push_back('z');
  EXPECT_EQ(DecodeDeltaByteArray(first.data(), first.size(), 1, &out, &offsets, &scratch).kind(),
            ErrorKind::kCorruption);
}

TEST(ByteStreamSplitTest, Widths) {
  for (int width : {2, 3, 4, 8, 16}) {
    const int64_t n = 5;
    std::vector<uint8_t> values(n * width);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<uint8_t> encoded(values.size());
    for (int64_t i = 0; i < n; ++i) {
      for (int b = 0; b < width; ++b) encoded[b * n + i] = values[i * width + b];
    }
    std::vector<uint8_t> out(values.size());
    ASSERT_TRUE(DecodeByteStreamSplit(encoded.data(), encoded.size(), width, n, out.data()).ok());
    EXPECT_EQ(out, values) << width;
    EXPECT_EQ(
        DecodeByteStreamSplit(encoded.data(), encoded.size() - 1, width, n, out.data()).kind(),
        ErrorKind::kCorruption);
  }
  // Floats as the spec describes: streams of byte 0, byte 1, ...
  std::vector<float> f = {1.5f, -2.25f, 3e10f};
  std::vector<uint8_t> enc(12);
  for (int i = 0; i < 3; ++i) {
    uint8_t b[4];
    std::memcpy(b, &f[i], 4);
    for (int k = 0; k < 4; ++k) enc[k * 3 + i] = b[k];
  }
  std::vector<float> out(3);
  ASSERT_TRUE(
      DecodeByteStreamSplit(enc.data(), enc.size(), 4, 3, reinterpret_cast<uint8_t*>(out.data()))
          .ok());
  EXPECT_EQ(out, f);
}

TEST(GatherTest, FixedAndBinary) {
  std::vector<int64_t> dict = {10, 20, 30};
  std::vector<uint32_t> idx = {2, 0, 1, 2};
  std::vector<int64_t> out(4);
  ASSERT_TRUE(GatherFixed(8, reinterpret_cast<const uint8_t*>(dict.data()), 3, idx.data(), 4,
                          reinterpret_cast<uint8_t*>(out.data()))
                  .ok());
  EXPECT_EQ(out, (std::vector<int64_t>{30, 10, 20, 30}));
  idx[3] = 3;
  Status st = GatherFixed(8, reinterpret_cast<const uint8_t*>(dict.data()), 3, idx.data(), 4,
                          reinterpret_cast<uint8_t*>(out.data()));
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption);
  EXPECT_NE(st.message().find("dictionary index 3 out of range"), std::string::npos);

  std::string d = "abcdef";
  std::vector<int64_t> doff = {0, 1, 3, 6};
  std::vector<uint32_t> bi = {2, 2, 0};
  ByteBuffer data;
  std::vector<int64_t> offsets = {0};
  ASSERT_TRUE(GatherBinary(reinterpret_cast<const uint8_t*>(d.data()), doff.data(), 3, bi.data(), 3,
                           &data, &offsets)
                  .ok());
  EXPECT_EQ(std::string(data.begin(), data.end()), "defdefa");
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 6, 7}));
  bi[1] = 1000;
  EXPECT_EQ(GatherBinary(reinterpret_cast<const uint8_t*>(d.data()), doff.data(), 3, bi.data(), 3,
                         &data, &offsets)
                .kind(),
            ErrorKind::kCorruption);
  EXPECT_EQ(offsets.size(), 4u);  // nothing appended on error
}

}  // namespace
}  // namespace tarn::parquet
