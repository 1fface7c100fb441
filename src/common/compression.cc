#include "common/compression.h"

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace tarn {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Status SizeMismatch(std::string_view codec, size_t got, size_t want) {
  return Status::Corruption(std::string(codec) + " decompressed to " + std::to_string(got) +
                            " bytes, expected " + std::to_string(want));
}

// zlib's deflate of `in` appended to *out: windowBits 15 + 16 is the gzip wrapper, -15 a raw
// stream (no header or checksum).
Status Deflate(const uint8_t* in, size_t n, ByteBuffer* out, int level, int window_bits,
               const char* what) {
  z_stream zs{};
  if (deflateInit2(&zs, level < 0 ? 6 : level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return Status::Internal("deflateInit2 failed");
  }
  size_t at = out->size();
  uLong bound = deflateBound(&zs, static_cast<uLong>(n));
  out->resize(at + bound);
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(n);
  zs.next_out = out->data() + at;
  zs.avail_out = static_cast<uInt>(bound);
  int rc = deflate(&zs, Z_FINISH);
  size_t produced = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::Internal(std::string(what) + " compression failed");
  out->resize(at + produced);
  return Status::OK();
}

Status GzipCompress(const uint8_t* in, size_t n, ByteBuffer* out, int level) {
  return Deflate(in, n, out, level, 15 + 16, "gzip");  // the gzip wrapper Parquet's GZIP requires
}

Status GzipDecompress(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  z_stream zs{};
  // 32 + 15: accept gzip or zlib headers (some writers emit zlib streams).
  if (inflateInit2(&zs, 32 + 15) != Z_OK) return Status::Internal("inflateInit2 failed");
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(n);
  zs.next_out = out;
  zs.avail_out = static_cast<uInt>(out_len);
  int rc = Z_OK;
  // Concatenated gzip members are legal; keep inflating while input and room remain.
  while (true) {
    rc = inflate(&zs, Z_FINISH);
    if (rc == Z_STREAM_END && zs.avail_in > 0 && zs.avail_out > 0) {
      if (inflateReset(&zs) != Z_OK) break;
      continue;
    }
    break;
  }
  size_t produced = out_len - zs.avail_out;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) {
    if (rc == Z_BUF_ERROR && zs.avail_out == 0) return SizeMismatch("gzip", out_len + 1, out_len);
    return Status::Corruption("malformed gzip data");
  }
  if (produced != out_len) return SizeMismatch("gzip", produced, out_len);
  return Status::OK();
}

Status BrotliCompress(const uint8_t* in, size_t n, ByteBuffer* out, int level) {
  size_t at = out->size();
  size_t bound = BrotliEncoderMaxCompressedSize(n);
  if (bound == 0) bound = n + 1024;
  out->resize(at + bound);
  size_t produced = bound;
  if (!BrotliEncoderCompress(level < 0 ? 5 : level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, n,
                             in, &produced, out->data() + at)) {
    return Status::Internal("brotli compression failed");
  }
  out->resize(at + produced);
  return Status::OK();
}

Status BrotliDecompress(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  BrotliDecoderState* st = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (st == nullptr) return Status::Internal("brotli decoder allocation failed");
  size_t avail_in = n;
  const uint8_t* next_in = in;
  size_t avail_out = out_len;
  uint8_t* next_out = out;
  BrotliDecoderResult r =
      BrotliDecoderDecompressStream(st, &avail_in, &next_in, &avail_out, &next_out, nullptr);
  BrotliDecoderDestroyInstance(st);
  if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
    return Status::Corruption("brotli data decompresses to more than " + std::to_string(out_len) +
                              " bytes");
  }
  if (r != BROTLI_DECODER_RESULT_SUCCESS) return Status::Corruption("malformed brotli data");
  if (avail_out != 0) return SizeMismatch("brotli", out_len - avail_out, out_len);
  return Status::OK();
}

// zstd contexts are expensive to create (ZSTD_compress allocates and clears one per call), and
// pages are often small: keep one compression and one decompression context per thread.
struct ZstdContexts {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
  }
};
ZstdContexts& Zstd() {
  thread_local ZstdContexts contexts;
  return contexts;
}

uint32_t LoadBE32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Hadoop's LZ4 framing (Parquet codec LZ4=5): blocks of [BE32 raw size][BE32 compressed
// size][lz4 block]. Some old writers used raw LZ4 blocks under the same id; fall back to that.
Status Lz4HadoopDecompress(const uint8_t* in, size_t n, uint8_t* out, size_t out_len) {
  size_t ip = 0, op = 0;
  bool framed = true;
  while (ip < n) {
    if (n - ip < 8) {
      framed = false;
      break;
    }
    uint32_t raw = LoadBE32(in + ip);
    uint32_t comp = LoadBE32(in + ip + 4);
    ip += 8;
    if (comp > n - ip || raw > out_len - op) {
      framed = false;
      break;
    }
    int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in + ip),
                                  reinterpret_cast<char*>(out + op), static_cast<int>(comp),
                                  static_cast<int>(raw));
    if (got < 0 || static_cast<uint32_t>(got) != raw) {
      framed = false;
      break;
    }
    ip += comp;
    op += raw;
  }
  if (framed && op == out_len) return Status::OK();
  int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                static_cast<int>(n), static_cast<int>(out_len));
  if (got < 0) return Status::Corruption("malformed LZ4 data");
  if (static_cast<size_t>(got) != out_len) return SizeMismatch("lz4", got, out_len);
  return Status::OK();
}

}  // namespace

Result<CompressionCodec> ParseCompressionCodec(std::string_view name) {
  std::string n = Lower(name);
  if (n == "none" || n == "uncompressed") return CompressionCodec::kNone;
  if (n == "snappy") return CompressionCodec::kSnappy;
  if (n == "gzip") return CompressionCodec::kGzip;
  if (n == "zstd") return CompressionCodec::kZstd;
  if (n == "lz4_raw" || n == "lz4") return CompressionCodec::kLz4Raw;
  if (n == "brotli") return CompressionCodec::kBrotli;
  return Status::InvalidArgument("unknown compression codec '" + std::string(name) +
                                 "' (expected zstd, snappy, gzip, lz4_raw, brotli or none)");
}

std::string_view CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kNone:
      return "none";
    case CompressionCodec::kSnappy:
      return "snappy";
    case CompressionCodec::kGzip:
      return "gzip";
    case CompressionCodec::kZstd:
      return "zstd";
    case CompressionCodec::kLz4Raw:
      return "lz4_raw";
    case CompressionCodec::kBrotli:
      return "brotli";
    case CompressionCodec::kLz4Hadoop:
      return "lz4";
  }
  return "none";
}

Status Compress(CompressionCodec codec, const uint8_t* in, size_t n, ByteBuffer* out, int level) {
  size_t at = out->size();
  switch (codec) {
    case CompressionCodec::kNone:
      out->insert(out->end(), in, in + n);
      return Status::OK();
    case CompressionCodec::kSnappy: {
      out->resize(at + snappy::MaxCompressedLength(n));
      size_t produced = 0;
      snappy::RawCompress(reinterpret_cast<const char*>(in), n,
                          reinterpret_cast<char*>(out->data() + at), &produced);
      out->resize(at + produced);
      return Status::OK();
    }
    case CompressionCodec::kGzip:
      return GzipCompress(in, n, out, level);
    case CompressionCodec::kZstd: {
      size_t bound = ZSTD_compressBound(n);
      out->resize(at + bound);
      size_t r = ZSTD_compressCCtx(Zstd().c, out->data() + at, bound, in, n, level < 0 ? 3 : level);
      if (ZSTD_isError(r)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(r));
      out->resize(at + r);
      return Status::OK();
    }
    case CompressionCodec::kLz4Raw:
    case CompressionCodec::kLz4Hadoop: {
      if (n > static_cast<size_t>(LZ4_MAX_INPUT_SIZE))
        return Status::TooLarge("lz4 input too large");
      bool hadoop = codec == CompressionCodec::kLz4Hadoop;
      size_t header = hadoop ? 8 : 0;
      int bound = LZ4_compressBound(static_cast<int>(n));
      out->resize(at + header + bound);
      int r = LZ4_compress_default(reinterpret_cast<const char*>(in),
                                   reinterpret_cast<char*>(out->data() + at + header),
                                   static_cast<int>(n), bound);
      if (r <= 0) return Status::Internal("lz4 compression failed");
      if (hadoop) {
        uint8_t* h = out->data() + at;
        uint32_t raw = static_cast<uint32_t>(n), comp = static_cast<uint32_t>(r);
        for (int i = 0; i < 4; ++i) {
          h[i] = static_cast<uint8_t>(raw >> (24 - 8 * i));
          h[4 + i] = static_cast<uint8_t>(comp >> (24 - 8 * i));
        }
      }
      out->resize(at + header + r);
      return Status::OK();
    }
    case CompressionCodec::kBrotli:
      return BrotliCompress(in, n, out, level);
  }
  return Status::InvalidArgument("unknown codec");
}

Status Decompress(CompressionCodec codec, const uint8_t* in, size_t n, uint8_t* out,
                  size_t out_len) {
  // An empty page may come with no buffer at all; zlib refuses a null output pointer even with
  // no room asked for (Z_STREAM_ERROR), so give every codec a valid one.
  uint8_t no_room = 0;
  if (out == nullptr && out_len == 0) out = &no_room;
  switch (codec) {
    case CompressionCodec::kNone:
      if (n != out_len) return SizeMismatch("uncompressed page", n, out_len);
      if (n > 0) std::copy(in, in + n, out);
      return Status::OK();
    case CompressionCodec::kSnappy: {
      size_t len = 0;
      if (!snappy::GetUncompressedLength(reinterpret_cast<const char*>(in), n, &len)) {
        return Status::Corruption("malformed snappy data");
      }
      if (len != out_len) return SizeMismatch("snappy", len, out_len);
      if (!snappy::RawUncompress(reinterpret_cast<const char*>(in), n,
                                 reinterpret_cast<char*>(out))) {
        return Status::Corruption("malformed snappy data");
      }
      return Status::OK();
    }
    case CompressionCodec::kGzip:
      return GzipDecompress(in, n, out, out_len);
    case CompressionCodec::kZstd: {
      size_t r = ZSTD_decompressDCtx(Zstd().d, out, out_len, in, n);
      if (ZSTD_isError(r)) {
        return Status::Corruption(std::string("malformed zstd data: ") + ZSTD_getErrorName(r));
      }
      if (r != out_len) return SizeMismatch("zstd", r, out_len);
      return Status::OK();
    }
    case CompressionCodec::kLz4Raw: {
      if (n > static_cast<size_t>(INT32_MAX) || out_len > static_cast<size_t>(INT32_MAX)) {
        return Status::TooLarge("lz4 block too large");
      }
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out),
                                    static_cast<int>(n), static_cast<int>(out_len));
      if (got < 0) return Status::Corruption("malformed lz4_raw data");
      if (static_cast<size_t>(got) != out_len) return SizeMismatch("lz4_raw", got, out_len);
      return Status::OK();
    }
    case CompressionCodec::kLz4Hadoop:
      if (n > static_cast<size_t>(INT32_MAX) || out_len > static_cast<size_t>(INT32_MAX)) {
        return Status::TooLarge("lz4 block too large");
      }
      return Lz4HadoopDecompress(in, n, out, out_len);
    case CompressionCodec::kBrotli:
      return BrotliDecompress(in, n, out, out_len);
  }
  return Status::InvalidArgument("unknown codec");
}

Status DeflateRaw(const uint8_t* in, size_t n, ByteBuffer* out, int level) {
  if (n > (size_t{1} << 31)) return Status::TooLarge("deflate input over 2 GiB");
  return Deflate(in, n, out, level, -15, "deflate");
}

Status InflateRaw(const uint8_t* in, size_t n, size_t max_out, ByteBuffer* out) {
  if (n > (size_t{1} << 31)) return Status::TooLarge("deflate input over 2 GiB");
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Status::Internal("inflateInit2 failed");
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(n);
  const size_t start = out->size();
  Status st;
  while (true) {
    size_t have = out->size() - start;
    // One byte more than the limit allows, so that output past it is seen.
    size_t room = std::min({std::max<size_t>(n * 4, 4096), max_out - have + 1, size_t{1} << 30});
    out->resize(start + have + room);
    zs.next_out = out->data() + start + have;
    zs.avail_out = static_cast<uInt>(room);
    int rc = inflate(&zs, Z_NO_FLUSH);
    out->resize(start + have + (room - zs.avail_out));
    if (out->size() - start > max_out) {
      st = Status::TooLarge("deflate data inflates past " + std::to_string(max_out) + " bytes");
    } else if (rc == Z_STREAM_END) {
      if (zs.avail_in > 0) st = Status::Corruption("bytes after the end of the deflate data");
    } else if (rc == Z_OK) {
      continue;
    } else if (rc == Z_BUF_ERROR) {  // no progress: the input ended inside the stream
      st = Status::Corruption("truncated deflate data");
    } else {
      st = Status::Corruption("malformed deflate data");
    }
    break;
  }
  inflateEnd(&zs);
  if (!st.ok()) out->resize(start);
  return st;
}

}  // namespace tarn
