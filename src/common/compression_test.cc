#include "common/compression.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace tarn {
namespace {

const CompressionCodec kAll[] = {CompressionCodec::kNone,     CompressionCodec::kSnappy,
                                 CompressionCodec::kGzip,     CompressionCodec::kZstd,
                                 CompressionCodec::kLz4Raw,   CompressionCodec::kBrotli,
                                 CompressionCodec::kLz4Hadoop};

std::string Sample(size_t n) {
  std::mt19937 rng(7);
  std::string s;
  s.reserve(n);
  const char* words[] = {"lake", "tarn", "parquet", "snapshot", "row", "0123456789"};
  while (s.size() < n) {
    s += words[rng() % 6];
    if (rng() % 5 == 0) s.push_back(static_cast<char>(rng()));
  }
  s.resize(n);
  return s;
}

TEST(Compression, RoundTripsEveryCodec) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{1} << 20}) {
    std::string in = Sample(n);
    for (CompressionCodec c : kAll) {
      ByteBuffer out;
      ASSERT_TRUE(Compress(c, reinterpret_cast<const uint8_t*>(in.data()), n, &out).ok());
      std::string back(n, '\0');
      Status st = Decompress(c, out.data(), out.size(), reinterpret_cast<uint8_t*>(back.data()), n);
      ASSERT_TRUE(st.ok()) << CompressionCodecName(c) << " n=" << n << " " << st.ToString();
      EXPECT_EQ(back, in) << CompressionCodecName(c);
      if (n == (size_t{1} << 20) && c != CompressionCodec::kNone) {
        EXPECT_LT(out.size(), n / 2) << CompressionCodecName(c);
      }
    }
  }
}

// An empty page (a dictionary of no values) may have no output buffer at all: arrow-rs writes
// gzip-compressed empty pages, and zlib refused a null output pointer.
TEST(Compression, EmptyOutputWithoutABuffer) {
  for (CompressionCodec c : kAll) {
    ByteBuffer packed;
    ASSERT_TRUE(Compress(c, nullptr, 0, &packed).ok()) << CompressionCodecName(c);
    Status st = Decompress(c, packed.data(), packed.size(), nullptr, 0);
    EXPECT_TRUE(st.ok()) << CompressionCodecName(c) << ": " << st.ToString();
  }
}

TEST(Compression, CompressAppends) {
  ByteBuffer out = {1, 2, 3};
  std::string in = Sample(1000);
  ASSERT_TRUE(
      Compress(CompressionCodec::kZstd, reinterpret_cast<const uint8_t*>(in.data()), 1000, &out)
          .ok());
  EXPECT_EQ(out[0], 1);
  std::string back(1000, '\0');
  ASSERT_TRUE(Decompress(CompressionCodec::kZstd, out.data() + 3, out.size() - 3,
                         reinterpret_cast<uint8_t*>(back.data()), 1000)
                  .ok());
  EXPECT_EQ(back, in);
}

TEST(Compression, WrongSizeAndGarbageAreCorruption) {
  std::string in = Sample(5000);
  for (CompressionCodec c : kAll) {
    ByteBuffer out;
    ASSERT_TRUE(Compress(c, reinterpret_cast<const uint8_t*>(in.data()), in.size(), &out).ok());
    std::string small(4999, '\0'), big(5001, '\0');
    Status a =
        Decompress(c, out.data(), out.size(), reinterpret_cast<uint8_t*>(small.data()), 4999);
    EXPECT_EQ(a.kind(), ErrorKind::kCorruption) << CompressionCodecName(c) << a.ToString();
    Status b = Decompress(c, out.data(), out.size(), reinterpret_cast<uint8_t*>(big.data()), 5001);
    EXPECT_EQ(b.kind(), ErrorKind::kCorruption) << CompressionCodecName(c) << b.ToString();
    // Flip bytes in the middle: must not crash; either Corruption or (rarely) decodes to junk
    // of the right size.
    for (size_t i = 0; i < out.size(); i += 7) out[i] ^= 0x5a;
    std::string junk(5000, '\0');
    Status d = Decompress(c, out.data(), out.size(), reinterpret_cast<uint8_t*>(junk.data()), 5000);
    if (!d.ok()) {
      EXPECT_EQ(d.kind(), ErrorKind::kCorruption) << CompressionCodecName(c);
    }
  }
}

TEST(Compression, RawDeflateRoundTripsAndHasNoWrapper) {
  ByteBuffer empty;
  ASSERT_TRUE(DeflateRaw(nullptr, 0, &empty).ok());
  EXPECT_EQ(empty, (ByteBuffer{0x03, 0x00}));  // one final fixed-Huffman block, no header
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{1} << 20}) {
    std::string in = Sample(n);
    ByteBuffer z{0xAB};  // appends after what is there
    ASSERT_TRUE(DeflateRaw(reinterpret_cast<const uint8_t*>(in.data()), n, &z).ok());
    ASSERT_EQ(z[0], 0xAB);
    ByteBuffer back{0xCD};
    ASSERT_TRUE(InflateRaw(z.data() + 1, z.size() - 1, n, &back).ok()) << n;
    ASSERT_EQ(back.size(), n + 1);
    EXPECT_EQ(std::string(back.begin() + 1, back.end()), in);
    if (n > 0) {
      ByteBuffer small;
      Status s = InflateRaw(z.data() + 1, z.size() - 1, n - 1, &small);
      EXPECT_EQ(s.kind(), ErrorKind::kTooLarge) << n;
      EXPECT_TRUE(small.empty());
    }
  }
}

TEST(Compression, RawDeflateErrorsAreCorruption) {
  std::string in = Sample(10000);
  ByteBuffer z;
  ASSERT_TRUE(DeflateRaw(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &z).ok());
  ByteBuffer out;
  EXPECT_EQ(InflateRaw(z.data(), z.size() / 2, 1 << 20, &out).kind(), ErrorKind::kCorruption);
  EXPECT_TRUE(out.empty());
  ByteBuffer longer = z;
  longer.push_back(0);
  EXPECT_EQ(InflateRaw(longer.data(), longer.size(), 1 << 20, &out).kind(), ErrorKind::kCorruption);
  const uint8_t bad[] = {0xFF, 0xFF, 0xFF, 0xFF};  // block type 3: reserved
  EXPECT_EQ(InflateRaw(bad, sizeof bad, 1 << 20, &out).kind(), ErrorKind::kCorruption);
  EXPECT_EQ(InflateRaw(nullptr, 0, 1 << 20, &out).kind(), ErrorKind::kCorruption);
}

TEST(Compression, ParseNames) {
  EXPECT_EQ(*ParseCompressionCodec("ZSTD"), CompressionCodec::kZstd);
  EXPECT_EQ(*ParseCompressionCodec("uncompressed"), CompressionCodec::kNone);
  EXPECT_EQ(*ParseCompressionCodec("lz4_raw"), CompressionCodec::kLz4Raw);
  EXPECT_EQ(ParseCompressionCodec("lzo").status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace tarn
