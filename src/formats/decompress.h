// Sequential byte streams over a RandomAccessFile, optionally through a streaming
// decompressor (gzip, zstd, brotli, raw deflate). Memory use is a few fixed-size buffers,
// whatever the size of the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "common/io.h"
#include "common/stream_decoder.h"
#include "tarn/status.h"

namespace tarn::formats {

// Whole-file compression of an input (by suffix or, later, by Content-Encoding).
enum class InputCompression : uint8_t { kNone, kGzip, kZstd, kBrotli, kDeflate };

// The compression named by the last suffix of `name` (.gz .zst .br .deflate, any case), else
// kNone. When `stem` is given it receives `name` without that suffix.
InputCompression CompressionFromSuffix(std::string_view name, std::string_view* stem = nullptr);
std::string_view InputCompressionName(InputCompression c);
// The decoder of a compression; nullopt for kNone.
std::optional<StreamCodec> ToStreamCodec(InputCompression c);

// A sequential reader. Not thread-safe.
class InputStream {
 public:
  virtual ~InputStream() = default;
  // Reads up to `n` bytes into `out`; returns how many: fewer than `n` only at the end of the
  // stream, 0 once it has ended.
  // Malformed or truncated compressed data is kCorruption.
  virtual Result<size_t> Read(uint8_t* out, size_t n) = 0;
};

// Streams the bytes of `file`, decompressed by `compression`.
Result<std::unique_ptr<InputStream>> OpenInputStream(std::shared_ptr<RandomAccessFile> file,
                                                     InputCompression compression);
// Streams the bytes of `raw` (a sequential source of the stored bytes, e.g. an HTTP request
// body), decompressed by `compression`; kNone returns `raw` itself.
Result<std::unique_ptr<InputStream>> OpenInputStream(std::unique_ptr<InputStream> raw,
                                                     InputCompression compression);

}  // namespace tarn::formats
