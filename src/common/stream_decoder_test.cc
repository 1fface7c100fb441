#include "common/stream_decoder.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/compression.h"

namespace tarn {
namespace {

std::string Text(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  s.reserve(n);
  while (s.size() < n) s += "row " + std::to_string(rng() % 1000) + ",value\n";
  s.resize(n);
  return s;
}

std::string Packed(CompressionCodec codec, std::string_view plain) {
  ByteBuffer out;
  EXPECT_TRUE(
      Compress(codec, reinterpret_cast<const uint8_t*>(plain.data()), plain.size(), &out).ok());
  return std::string(reinterpret_cast<const char*>(out.data()), out.size());
}

struct Decoded {
  Status status;
  std::string bytes;
  bool finished = false;
  bool mid_stream = false;
};

// Feeds `in` in chunks of `in_chunk` bytes into outputs of `out_chunk` bytes until the input is
// used up and the decoder holds nothing more.
Decoded DecodeAll(StreamCodec codec, std::string_view in, size_t in_chunk, size_t out_chunk) {
  Decoded d;
  auto dec = StreamDecoder::Create(codec);
  if (!dec.ok()) {
    d.status = dec.status();
    return d;
  }
  std::string out(out_chunk, '\0');
  size_t pos = 0;
  while (!(*dec)->finished()) {
    const size_t n = std::min(in_chunk, in.size() - pos);
    auto step = (*dec)->Decode(reinterpret_cast<const uint8_t*>(in.data() + pos), n,
                               reinterpret_cast<uint8_t*>(out.data()), out.size());
    if (!step.ok()) {
      d.status = step.status();
      return d;
    }
    pos += step->consumed;
    d.bytes.append(out.data(), step->produced);
    if (pos >= in.size() && step->produced < out.size()) break;
  }
  d.finished = (*dec)->finished();
  d.mid_stream = (*dec)->mid_stream();
  return d;
}

TEST(StreamDecoder, DecodesEveryCodecInAnyChunking) {
  const std::string plain = Text(300'000, 7);
  const std::pair<StreamCodec, CompressionCodec> cases[] = {
      {StreamCodec::kGzip, CompressionCodec::kGzip},
      {StreamCodec::kZstd, CompressionCodec::kZstd},
      {StreamCodec::kBrotli, CompressionCodec::kBrotli}};
  for (const auto& [stream, block] : cases) {
    const std::string packed = Packed(block, plain);
    for (size_t in_chunk : {size_t{1}, size_t{7}, size_t{4096}, packed.size()}) {
      for (size_t out_chunk : {size_t{1}, size_t{1000}, size_t{1} << 20}) {
        if (in_chunk == 1 && out_chunk == 1) continue;  // slow, and covered by the others
        auto d = DecodeAll(stream, packed, in_chunk, out_chunk);
        ASSERT_TRUE(d.status.ok()) << StreamCodecName(stream) << ": " << d.status.ToString();
        EXPECT_EQ(d.bytes, plain) << StreamCodecName(stream) << " in " << in_chunk << " out "
                                  << out_chunk;
        EXPECT_FALSE(d.mid_stream) << StreamCodecName(stream);
        EXPECT_EQ(d.finished, stream == StreamCodec::kBrotli) << StreamCodecName(stream);
      }
    }
  }
}

TEST(StreamDecoder, ConcatenatedGzipMembersAndZstdFrames) {
  const std::string a = Text(5000, 1), b = Text(7000, 2);
  for (auto [stream, block] : {std::pair{StreamCodec::kGzip, CompressionCodec::kGzip},
                               std::pair{StreamCodec::kZstd, CompressionCodec::kZstd}}) {
    const std::string packed = Packed(block, a) + Packed(block, b);
    auto d = DecodeAll(stream, packed, 100, 333);
    ASSERT_TRUE(d.status.ok()) << d.status.ToString();
    EXPECT_EQ(d.bytes, a + b);
    EXPECT_FALSE(d.mid_stream);
  }
}

TEST(StreamDecoder, TruncatedInputIsMidStream) {
  const std::string plain = Text(50'000, 3);
  for (auto [stream, block] : {std::pair{StreamCodec::kGzip, CompressionCodec::kGzip},
                               std::pair{StreamCodec::kZstd, CompressionCodec::kZstd},
                               std::pair{StreamCodec::kBrotli, CompressionCodec::kBrotli}}) {
    const std::string packed = Packed(block, plain);
    auto d = DecodeAll(stream, std::string_view(packed).substr(0, packed.size() / 2), 512, 4096);
    ASSERT_TRUE(d.status.ok()) << d.status.ToString();
    EXPECT_TRUE(d.mid_stream) << StreamCodecName(stream);
    EXPECT_FALSE(d.finished);
    EXPECT_LT(d.bytes.size(), plain.size());
    EXPECT_EQ(d.bytes, plain.substr(0, d.bytes.size()));
  }
  // An empty input: nothing started, except brotli, whose stream has a header.
  EXPECT_FALSE(DecodeAll(StreamCodec::kGzip, "", 1, 10).mid_stream);
  EXPECT_FALSE(DecodeAll(StreamCodec::kZstd, "", 1, 10).mid_stream);
  EXPECT_TRUE(DecodeAll(StreamCodec::kBrotli, "", 1, 10).mid_stream);
}

TEST(StreamDecoder, MalformedInputIsCorruptionNamingTheCodec) {
  const std::string junk = "this is not compressed data at all, not even a little";
  for (StreamCodec c :
       {StreamCodec::kGzip, StreamCodec::kDeflate, StreamCodec::kZstd, StreamCodec::kBrotli}) {
    auto d = DecodeAll(c, junk, 64, 64);
    EXPECT_EQ(d.status.kind(), ErrorKind::kCorruption) << StreamCodecName(c);
    EXPECT_NE(d.status.message().find("malformed " + std::string(StreamCodecName(c)) + " data"),
              std::string::npos)
        << d.status.ToString();
  }
}

// A raw deflate stream is the gzip member without its 10-byte header and 8-byte trailer (the
// block codec writes no optional header fields).
TEST(StreamDecoder, RawDeflateEndsWithItsStream) {
  const std::string plain = Text(20'000, 4);
  const std::string member = Packed(CompressionCodec::kGzip, plain);
  const std::string raw = member.substr(10, member.size() - 18);
  auto d = DecodeAll(StreamCodec::kDeflate, raw + "trailing bytes", 300, 1000);
  ASSERT_TRUE(d.status.ok()) << d.status.ToString();
  EXPECT_EQ(d.bytes, plain);
  EXPECT_TRUE(d.finished);
  EXPECT_FALSE(d.mid_stream);
}

}  // namespace
}  // namespace tarn
