// Block compression codecs used by Parquet pages (and by file formats for whole-file codecs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tarn/buffer.h"
#include "tarn/status.h"

namespace tarn {

enum class CompressionCodec : uint8_t {
  kNone,
  kSnappy,
  kGzip,
  kZstd,
  kLz4Raw,
  kBrotli,
  kLz4Hadoop
};

// "none"/"uncompressed", "snappy", "gzip", "zstd", "lz4_raw", "brotli" (case-insensitive).
Result<CompressionCodec> ParseCompressionCodec(std::string_view name);
std::string_view CompressionCodecName(CompressionCodec codec);

// Compresses `n` bytes and appends the result to *out. `level` < 0 means the codec's default
// (zstd 3, gzip 6, brotli 5).
Status Compress(CompressionCodec codec, const uint8_t* in, size_t n, ByteBuffer* out,
                int level = -1);
// Decompresses into exactly `out_len` bytes at `out` (Parquet records the uncompressed size).
// Malformed input or a size mismatch is kCorruption.
Status Decompress(CompressionCodec codec, const uint8_t* in, size_t n, uint8_t* out,
                  size_t out_len);

// Raw deflate (RFC 1951: no zlib or gzip wrapper), the "deflate" codec of Avro container files.
// Compresses `n` bytes and appends the stream to *out. `level` < 0 means zlib's default (6).
Status DeflateRaw(const uint8_t* in, size_t n, ByteBuffer* out, int level = -1);
// Inflates one complete raw deflate stream of `n` bytes and appends its output to *out. Output
// past `max_out` bytes is kTooLarge (a decompression bomb stops there); malformed or truncated
// data, or bytes after the stream's end, is kCorruption.
Status InflateRaw(const uint8_t* in, size_t n, size_t max_out, ByteBuffer* out);

}  // namespace tarn
