#include "formats/decompress.h"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <string>

#include "formats/reader_common.h"
#include "tarn/buffer.h"

namespace tarn::formats {

using internal::EndsWithIgnoreCase;

namespace {

constexpr size_t kInputChunk = 256 * 1024;

// The raw bytes of a file, read sequentially with ReadAt.
class FileStream final : public InputStream {
 public:
  explicit FileStream(std::shared_ptr<RandomAccessFile> file)
      : file_(std::move(file)), size_(file_->Size()) {}
  Result<size_t> Read(uint8_t* out, size_t n) override {
    const uint64_t left = size_ - pos_;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left, n));
    if (take == 0) return size_t{0};
    TARN_RETURN_NOT_OK(file_->ReadAt(pos_, take, out));
    pos_ += take;
    return take;
  }

 private:
  std::shared_ptr<RandomAccessFile> file_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

// Common input buffering for the decompressors.
class DecompressingStream : public InputStream {
 protected:
  explicit DecompressingStream(std::unique_ptr<InputStream> source)
      : source_(std::move(source)), in_(kInputChunk) {}
  // Makes input available; false at the end of the compressed input.
  Result<bool> Fill() {
    if (in_pos_ < in_len_) return true;
    if (source_eof_) return false;
    TARN_ASSIGN_OR_RETURN(size_t got, source_->Read(in_.data(), in_.size()));
    in_pos_ = 0;
    in_len_ = got;
    if (got == 0) source_eof_ = true;
    return got > 0;
  }
  std::unique_ptr<InputStream> source_;
  ByteBuffer in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  bool source_eof_ = false;
};

// gzip (concatenated members allowed, zlib headers accepted) or raw deflate.
class ZlibStream final : public DecompressingStream {
 public:
  ZlibStream(std::unique_ptr<InputStream> source, bool raw)
      : DecompressingStream(std::move(source)), raw_(raw) {}
  ~ZlibStream() override {
    if (initialized_) inflateEnd(&zs_);
  }
  Status Init() {
    if (inflateInit2(&zs_, raw_ ? -15 : 32 + 15) != Z_OK) {
      return Status::Internal("inflateInit2 failed");
    }
    initialized_ = true;
    return Status::OK();
  }
  Result<size_t> Read(uint8_t* out, size_t n) override {
    if (n == 0 || done_) return size_t{0};
    n = std::min<size_t>(n, 1u << 30);
    zs_.next_out = out;
    zs_.avail_out = static_cast<uInt>(n);
    while (zs_.avail_out > 0) {
      TARN_ASSIGN_OR_RETURN(bool more, Fill());
      if (!more) {
        if (in_member_) return Status::Corruption(Name() + " data is truncated");
        done_ = true;
        break;
      }
      zs_.next_in = in_.data() + in_pos_;
      zs_.avail_in = static_cast<uInt>(in_len_ - in_pos_);
      in_member_ = true;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      in_pos_ = in_len_ - zs_.avail_in;
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        if (raw_) {
          done_ = true;
          break;
        }
        // Another gzip member may follow.
        if (inflateReset(&zs_) != Z_OK) return Status::Internal("inflateReset failed");
      } else if (rc == Z_BUF_ERROR) {
        // No progress possible with the input given: loop to fetch more.
        continue;
      } else if (rc != Z_OK) {
        return Status::Corruption("malformed " + Name() + " data" +
                                  (zs_.msg ? std::string(": ") + zs_.msg : std::string()));
      }
    }
    return n - zs_.avail_out;
  }

 private:
  std::string Name() const { return raw_ ? "deflate" : "gzip"; }
  bool raw_;
  z_stream zs_{};
  bool initialized_ = false;
  bool in_member_ = false;
  bool done_ = false;
};

class ZstdStream final : public DecompressingStream {
 public:
  explicit ZstdStream(std::unique_ptr<InputStream> source)
      : DecompressingStream(std::move(source)), ctx_(ZSTD_createDStream()) {}
  ~ZstdStream() override { ZSTD_freeDStream(ctx_); }
  Status Init() {
    if (ctx_ == nullptr) return Status::Internal("ZSTD_createDStream failed");
    ZSTD_initDStream(ctx_);
    return Status::OK();
  }
  Result<size_t> Read(uint8_t* out, size_t n) override {
    if (n == 0) return size_t{0};
    ZSTD_outBuffer ob{out, n, 0};
    while (ob.pos < ob.size) {
      // Flush what the decoder still holds before asking for input.
      if (in_pos_ >= in_len_ && !pending_) {
        TARN_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) {
          if (in_frame_) return Status::Corruption("zstd data is truncated");
          break;
        }
      }
      ZSTD_inBuffer ib{in_.data() + in_pos_, in_len_ - in_pos_, 0};
      size_t rc = ZSTD_decompressStream(ctx_, &ob, &ib);
      in_pos_ += ib.pos;
      if (ZSTD_isError(rc)) {
        return Status::Corruption(std::string("malformed zstd data: ") + ZSTD_getErrorName(rc));
      }
      in_frame_ = rc != 0;
      // The output buffer filled up: the decoder may hold more.
      pending_ = ob.pos == ob.size;
    }
    return ob.pos;
  }

 private:
  ZSTD_DStream* ctx_;
  bool in_frame_ = false;
  bool pending_ = false;
};

class BrotliStream final : public DecompressingStream {
 public:
  explicit BrotliStream(std::unique_ptr<InputStream> source)
      : DecompressingStream(std::move(source)),
        state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {}
  ~BrotliStream() override {
    if (state_) BrotliDecoderDestroyInstance(state_);
  }
  Status Init() {
    if (state_ == nullptr) return Status::Internal("BrotliDecoderCreateInstance failed");
    return Status::OK();
  }
  Result<size_t> Read(uint8_t* out, size_t n) override {
    if (n == 0 || done_) return size_t{0};
    size_t avail_out = n;
    uint8_t* next_out = out;
    while (avail_out > 0) {
      size_t avail_in = in_len_ - in_pos_;
      const uint8_t* next_in = in_.data() + in_pos_;
      BrotliDecoderResult rc = BrotliDecoderDecompressStream(state_, &avail_in, &next_in,
                                                             &avail_out, &next_out, nullptr);
      in_pos_ = in_len_ - avail_in;
      if (rc == BROTLI_DECODER_RESULT_SUCCESS) {
        done_ = true;
        break;
      }
      if (rc == BROTLI_DECODER_RESULT_ERROR) {
        return Status::Corruption(std::string("malformed brotli data: ") +
                                  BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
      }
      if (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
        TARN_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) return Status::Corruption("brotli data is truncated");
      }
      // NEEDS_MORE_OUTPUT: avail_out is 0 now, the loop ends.
    }
    return n - avail_out;
  }

 private:
  BrotliDecoderState* state_;
  bool done_ = false;
};

}  // namespace

InputCompression CompressionFromSuffix(std::string_view name, std::string_view* stem) {
  struct Suffix {
    std::string_view text;
    InputCompression c;
  };
  static constexpr Suffix kSuffixes[] = {
      {".gz", InputCompression::kGzip},   {".gzip", InputCompression::kGzip},
      {".zst", InputCompression::kZstd},  {".zstd", InputCompression::kZstd},
      {".br", InputCompression::kBrotli}, {".deflate", InputCompression::kDeflate}};
  for (const Suffix& s : kSuffixes) {
    if (EndsWithIgnoreCase(name, s.text)) {
      if (stem) *stem = name.substr(0, name.size() - s.text.size());
      return s.c;
    }
  }
  if (stem) *stem = name;
  return InputCompression::kNone;
}

std::string_view InputCompressionName(InputCompression c) {
  switch (c) {
    case InputCompression::kNone:
      return "none";
    case InputCompression::kGzip:
      return "gzip";
    case InputCompression::kZstd:
      return "zstd";
    case InputCompression::kBrotli:
      return "brotli";
    case InputCompression::kDeflate:
      return "deflate";
  }
  return "none";
}

Result<std::unique_ptr<InputStream>> OpenInputStream(std::shared_ptr<RandomAccessFile> file,
                                                     InputCompression compression) {
  if (file == nullptr) return Status::InvalidArgument("no input file");
  return OpenInputStream(std::make_unique<FileStream>(std::move(file)), compression);
}

Result<std::unique_ptr<InputStream>> OpenInputStream(std::unique_ptr<InputStream> raw,
                                                     InputCompression compression) {
  if (raw == nullptr) return Status::InvalidArgument("no input stream");
  switch (compression) {
    case InputCompression::kNone:
      return raw;
    case InputCompression::kGzip:
    case InputCompression::kDeflate: {
      auto s =
          std::make_unique<ZlibStream>(std::move(raw), compression == InputCompression::kDeflate);
      TARN_RETURN_NOT_OK(s->Init());
      return std::unique_ptr<InputStream>(std::move(s));
    }
    case InputCompression::kZstd: {
      auto s = std::make_unique<ZstdStream>(std::move(raw));
      TARN_RETURN_NOT_OK(s->Init());
      return std::unique_ptr<InputStream>(std::move(s));
    }
    case InputCompression::kBrotli: {
      auto s = std::make_unique<BrotliStream>(std::move(raw));
      TARN_RETURN_NOT_OK(s->Init());
      return std::unique_ptr<InputStream>(std::move(s));
    }
  }
  return Status::InvalidArgument("unknown compression");
}

}  // namespace tarn::formats
