#include "common/stream_decoder.h"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <string>

namespace tarn {

namespace {

// zlib counts in uInt.
constexpr size_t kZlibMaxChunk = size_t{1} << 30;

class ZlibDecoder final : public StreamDecoder {
 public:
  explicit ZlibDecoder(StreamCodec codec) : StreamDecoder(codec) {}
  ~ZlibDecoder() override {
    if (initialized_) inflateEnd(&zs_);
  }
  Status Init() {
    const bool raw = codec() == StreamCodec::kDeflate;
    if (inflateInit2(&zs_, raw ? -15 : 32 + 15) != Z_OK) {
      return Status::Internal("inflateInit2 failed");
    }
    initialized_ = true;
    return Status::OK();
  }
  Result<Step> Decode(const uint8_t* in, size_t in_n, uint8_t* out, size_t out_n) override {
    Step step;
    if (finished_) return step;
    in_n = std::min(in_n, kZlibMaxChunk);
    out_n = std::min(out_n, kZlibMaxChunk);
    zs_.next_in = const_cast<Bytef*>(in);
    zs_.avail_in = static_cast<uInt>(in_n);
    zs_.next_out = out;
    zs_.avail_out = static_cast<uInt>(out_n);
    if (in_n > 0) in_member_ = true;
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    step.consumed = in_n - zs_.avail_in;
    step.produced = out_n - zs_.avail_out;
    if (rc == Z_STREAM_END) {
      in_member_ = false;
      if (codec() == StreamCodec::kDeflate) {
        finished_ = true;
      } else if (inflateReset(&zs_) != Z_OK) {  // another gzip member may follow
        return Status::Internal("inflateReset failed");
      }
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {  // Z_BUF_ERROR: no progress with this input
      return Status::Corruption("malformed " + std::string(StreamCodecName(codec())) + " data" +
                                (zs_.msg ? std::string(": ") + zs_.msg : std::string()));
    }
    return step;
  }
  bool finished() const override { return finished_; }
  bool mid_stream() const override { return in_member_; }

 private:
  z_stream zs_{};
  bool initialized_ = false;
  bool in_member_ = false;
  bool finished_ = false;
};

class ZstdDecoder final : public StreamDecoder {
 public:
  ZstdDecoder() : StreamDecoder(StreamCodec::kZstd), ctx_(ZSTD_createDStream()) {}
  ~ZstdDecoder() override { ZSTD_freeDStream(ctx_); }
  Status Init() {
    if (ctx_ == nullptr) return Status::Internal("ZSTD_createDStream failed");
    ZSTD_initDStream(ctx_);
    return Status::OK();
  }
  Result<Step> Decode(const uint8_t* in, size_t in_n, uint8_t* out, size_t out_n) override {
    ZSTD_inBuffer ib{in, in_n, 0};
    ZSTD_outBuffer ob{out, out_n, 0};
    const size_t rc = ZSTD_decompressStream(ctx_, &ob, &ib);
    if (ZSTD_isError(rc)) {
      return Status::Corruption(std::string("malformed zstd data: ") + ZSTD_getErrorName(rc));
    }
    // 0: a frame is complete and fully flushed.
    if (in_n > 0 || ob.pos > 0) in_frame_ = rc != 0;
    return Step{ib.pos, ob.pos};
  }
  bool finished() const override { return false; }
  bool mid_stream() const override { return in_frame_; }

 private:
  ZSTD_DStream* ctx_;
  bool in_frame_ = false;
};

class BrotliStreamDecoder final : public StreamDecoder {
 public:
  BrotliStreamDecoder()
      : StreamDecoder(StreamCodec::kBrotli),
        state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {}
  ~BrotliStreamDecoder() override {
    if (state_) BrotliDecoderDestroyInstance(state_);
  }
  Status Init() {
    if (state_ == nullptr) return Status::Internal("BrotliDecoderCreateInstance failed");
    return Status::OK();
  }
  Result<Step> Decode(const uint8_t* in, size_t in_n, uint8_t* out, size_t out_n) override {
    Step step;
    if (finished_) return step;
    size_t avail_in = in_n;
    const uint8_t* next_in = in;
    size_t avail_out = out_n;
    uint8_t* next_out = out;
    const BrotliDecoderResult rc =
        BrotliDecoderDecompressStream(state_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    step.consumed = in_n - avail_in;
    step.produced = out_n - avail_out;
    if (rc == BROTLI_DECODER_RESULT_SUCCESS) finished_ = true;
    if (rc == BROTLI_DECODER_RESULT_ERROR) {
      return Status::Corruption(std::string("malformed brotli data: ") +
                                BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
    }
    return step;
  }
  bool finished() const override { return finished_; }
  bool mid_stream() const override { return !finished_; }

 private:
  BrotliDecoderState* state_;
  bool finished_ = false;
};

}  // namespace

std::string_view StreamCodecName(StreamCodec codec) {
  switch (codec) {
    case StreamCodec::kGzip:
      return "gzip";
    case StreamCodec::kDeflate:
      return "deflate";
    case StreamCodec::kZstd:
      return "zstd";
    case StreamCodec::kBrotli:
      return "brotli";
  }
  return "gzip";
}

Result<std::unique_ptr<StreamDecoder>> StreamDecoder::Create(StreamCodec codec) {
  switch (codec) {
    case StreamCodec::kGzip:
    case StreamCodec::kDeflate: {
      auto d = std::make_unique<ZlibDecoder>(codec);
      TARN_RETURN_NOT_OK(d->Init());
      return std::unique_ptr<StreamDecoder>(std::move(d));
    }
    case StreamCodec::kZstd: {
      auto d = std::make_unique<ZstdDecoder>();
      TARN_RETURN_NOT_OK(d->Init());
      return std::unique_ptr<StreamDecoder>(std::move(d));
    }
    case StreamCodec::kBrotli: {
      auto d = std::make_unique<BrotliStreamDecoder>();
      TARN_RETURN_NOT_OK(d->Init());
      return std::unique_ptr<StreamDecoder>(std::move(d));
    }
  }
  return Status::InvalidArgument("unknown stream codec");
}

}  // namespace tarn
