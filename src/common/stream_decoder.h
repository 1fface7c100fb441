// Streaming decompression of whole compressed files (gzip, raw deflate, zstd, brotli), for the
// input formats: the one place, with compression.cc, that calls zlib, zstd and brotli.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "tarn/status.h"

namespace tarn {

enum class StreamCodec : uint8_t {
  kGzip,     // gzip members one after another (a zlib header is accepted too)
  kDeflate,  // one raw deflate stream
  kZstd,     // zstd frames one after another
  kBrotli,   // one brotli stream
};
// "gzip", "deflate", "zstd", "brotli".
std::string_view StreamCodecName(StreamCodec codec);

// Decodes a compressed stream in steps, from input chunks into output buffers. Not thread-safe.
class StreamDecoder {
 public:
  struct Step {
    size_t consumed = 0;  // input bytes used
    size_t produced = 0;  // output bytes written
  };

  // kInternal when the codec library cannot set up its state.
  static Result<std::unique_ptr<StreamDecoder>> Create(StreamCodec codec);
  virtual ~StreamDecoder() = default;

  // Decodes from in[0, in_n) into out[0, out_n) as far as either goes. With in_n == 0 it only
  // flushes what the decoder holds. Malformed data is kCorruption, "malformed <codec> data: ...".
  virtual Result<Step> Decode(const uint8_t* in, size_t in_n, uint8_t* out, size_t out_n) = 0;
  // The data has ended for good: the single stream of deflate or brotli is complete. (gzip and
  // zstd never end so: another member or frame may follow.)
  virtual bool finished() const = 0;
  // Input was read since the last complete member, frame or stream: if the input ends now, the
  // data is truncated. (An empty brotli input is truncated too: a brotli stream has a header.)
  virtual bool mid_stream() const = 0;

  StreamCodec codec() const { return codec_; }

 protected:
  explicit StreamDecoder(StreamCodec codec) : codec_(codec) {}

 private:
  StreamCodec codec_;
};

}  // namespace tarn
