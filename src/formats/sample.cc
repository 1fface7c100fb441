#include "formats/sample.h"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <climits>

#include "formats/error_codes.h"

namespace tarn::formats::internal {

namespace {

constexpr size_t kOutChunk = 256 * 1024;

Status Unreadable(std::string_view name, std::string_view what) {
  return Status::Of(codes::kFormatUnreadable, std::string(name) + ": " + std::string(what));
}

// Grows `out` by up to one chunk (not past `max_bytes`); returns the room made.
size_t Grow(std::string* out, size_t used, size_t max_bytes) {
  const size_t room = std::min(kOutChunk, max_bytes - used);
  out->resize(used + room);
  return room;
}

Result<DecodedSample> Zlib(std::string_view name, std::string_view in, bool raw, bool whole_file,
                           size_t max_bytes) {
  const char* what = raw ? "deflate" : "gzip";
  DecodedSample r;
  z_stream zs{};
  if (inflateInit2(&zs, raw ? -15 : 32 + 15) != Z_OK) return Status::Internal("inflateInit2");
  size_t used = 0;
  size_t in_pos = 0;
  bool in_member = false;
  bool done = false;
  Status st;
  while (!done) {
    if (used >= max_bytes) {
      r.cut = true;
      break;
    }
    const size_t room = Grow(&r.bytes, used, max_bytes);
    zs.next_out = reinterpret_cast<Bytef*>(r.bytes.data() + used);
    zs.avail_out = static_cast<uInt>(room);
    const size_t avail_in = std::min<size_t>(in.size() - in_pos, UINT_MAX);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + in_pos));
    zs.avail_in = static_cast<uInt>(avail_in);
    if (avail_in > 0) in_member = true;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    in_pos += avail_in - zs.avail_in;
    used += room - zs.avail_out;
    if (rc == Z_STREAM_END) {
      in_member = false;
      // Another gzip member may follow; raw deflate has one stream.
      if (raw || in_pos >= in.size()) break;
      if (inflateReset(&zs) != Z_OK) {
        st = Status::Internal("inflateReset failed");
        break;
      }
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && zs.avail_out > 0 && in_pos >= in.size())) {
      if (zs.avail_out == 0) continue;  // out of room only
      // The input ran out inside a stream.
      if (in_member) r.cut = true;
      done = true;
    } else if (rc != Z_OK) {
      st = Unreadable(name, std::string("malformed ") + what + " data" +
                                (zs.msg ? std::string(": ") + zs.msg : std::string()));
      break;
    }
  }
  inflateEnd(&zs);
  TARN_RETURN_NOT_OK(st);
  r.bytes.resize(used);
  if (r.cut && whole_file && used < max_bytes) {
    return Unreadable(name, std::string(what) + " data is truncated");
  }
  return r;
}

Result<DecodedSample> Zstd(std::string_view name, std::string_view in, bool whole_file,
                           size_t max_bytes) {
  DecodedSample r;
  ZSTD_DStream* ctx = ZSTD_createDStream();
  if (ctx == nullptr) return Status::Internal("ZSTD_createDStream failed");
  ZSTD_initDStream(ctx);
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t used = 0;
  size_t last = 0;  // 0: at a frame boundary
  Status st;
  while (true) {
    if (used >= max_bytes) {
      r.cut = true;
      break;
    }
    const size_t room = Grow(&r.bytes, used, max_bytes);
    ZSTD_outBuffer ob{r.bytes.data() + used, room, 0};
    last = ZSTD_decompressStream(ctx, &ob, &ib);
    used += ob.pos;
    if (ZSTD_isError(last)) {
      st = Unreadable(name, std::string("malformed zstd data: ") + ZSTD_getErrorName(last));
      break;
    }
    // Done when all input is consumed and the decoder had room to spare (nothing held back).
    if (ib.pos >= ib.size && ob.pos < ob.size) {
      if (last != 0) r.cut = true;
      break;
    }
  }
  ZSTD_freeDStream(ctx);
  TARN_RETURN_NOT_OK(st);
  r.bytes.resize(used);
  if (r.cut && whole_file && used < max_bytes) return Unreadable(name, "zstd data is truncated");
  return r;
}

Result<DecodedSample> Brotli(std::string_view name, std::string_view in, bool whole_file,
                             size_t max_bytes) {
  DecodedSample r;
  BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (state == nullptr) return Status::Internal("BrotliDecoderCreateInstance failed");
  size_t avail_in = in.size();
  const uint8_t* next_in = reinterpret_cast<const uint8_t*>(in.data());
  size_t used = 0;
  Status st;
  while (true) {
    if (used >= max_bytes) {
      r.cut = true;
      break;
    }
    const size_t room = Grow(&r.bytes, used, max_bytes);
    size_t avail_out = room;
    uint8_t* next_out = reinterpret_cast<uint8_t*>(r.bytes.data() + used);
    const BrotliDecoderResult rc =
        BrotliDecoderDecompressStream(state, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    used += room - avail_out;
    if (rc == BROTLI_DECODER_RESULT_SUCCESS) break;
    if (rc == BROTLI_DECODER_RESULT_ERROR) {
      st = Unreadable(name, std::string("malformed brotli data: ") +
                                BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)));
      break;
    }
    if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      r.cut = true;
      break;
    }
  }
  BrotliDecoderDestroyInstance(state);
  TARN_RETURN_NOT_OK(st);
  r.bytes.resize(used);
  if (r.cut && whole_file && used < max_bytes) return Unreadable(name, "brotli data is truncated");
  return r;
}

}  // namespace

Result<DecodedSample> DecodeSample(std::string_view name, std::string_view stored,
                                   InputCompression compression, bool whole_file,
                                   size_t max_bytes) {
  switch (compression) {
    case InputCompression::kGzip:
    case InputCompression::kDeflate:
      return Zlib(name, stored, compression == InputCompression::kDeflate, whole_file, max_bytes);
    case InputCompression::kZstd:
      return Zstd(name, stored, whole_file, max_bytes);
    case InputCompression::kBrotli:
      return Brotli(name, stored, whole_file, max_bytes);
    case InputCompression::kNone:
      break;
  }
  DecodedSample r;
  r.bytes.assign(stored.substr(0, std::min(stored.size(), max_bytes)));
  r.cut = stored.size() > max_bytes;
  return r;
}

}  // namespace tarn::formats::internal
