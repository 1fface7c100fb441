#include "formats/decompress.h"

#include <algorithm>
#include <string>

#include "common/stream_decoder.h"
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

// The bytes of `source_` through a StreamDecoder, with one input buffer.
class DecodingStream final : public InputStream {
 public:
  DecodingStream(std::unique_ptr<InputStream> source, std::unique_ptr<StreamDecoder> decoder)
      : source_(std::move(source)), decoder_(std::move(decoder)), in_(kInputChunk) {}

  Result<size_t> Read(uint8_t* out, size_t n) override {
    size_t total = 0;
    while (total < n && !decoder_->finished()) {
      // Flush what the decoder may still hold (it filled the last buffer) before reading more.
      if (in_pos_ == in_len_ && !may_hold_output_) {
        TARN_ASSIGN_OR_RETURN(bool more, Fill());
        if (!more) {
          if (decoder_->mid_stream()) {
            return Status::Corruption(std::string(StreamCodecName(decoder_->codec())) +
                                      " data is truncated");
          }
          break;
        }
      }
      const size_t room = n - total;
      TARN_ASSIGN_OR_RETURN(
          auto step, decoder_->Decode(in_.data() + in_pos_, in_len_ - in_pos_, out + total, room));
      in_pos_ += step.consumed;
      total += step.produced;
      may_hold_output_ = step.produced == room;
      if (step.consumed == 0 && step.produced == 0 && in_pos_ < in_len_) {
        return Status::Internal(std::string(StreamCodecName(decoder_->codec())) +
                                " decoder made no progress");
      }
    }
    return total;
  }

 private:
  // Makes input available; false at the end of the compressed input.
  Result<bool> Fill() {
    if (source_eof_) return false;
    TARN_ASSIGN_OR_RETURN(size_t got, source_->Read(in_.data(), in_.size()));
    in_pos_ = 0;
    in_len_ = got;
    if (got == 0) source_eof_ = true;
    return got > 0;
  }

  std::unique_ptr<InputStream> source_;
  std::unique_ptr<StreamDecoder> decoder_;
  ByteBuffer in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  bool source_eof_ = false;
  bool may_hold_output_ = false;
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

std::optional<StreamCodec> ToStreamCodec(InputCompression c) {
  switch (c) {
    case InputCompression::kNone:
      return std::nullopt;
    case InputCompression::kGzip:
      return StreamCodec::kGzip;
    case InputCompression::kZstd:
      return StreamCodec::kZstd;
    case InputCompression::kBrotli:
      return StreamCodec::kBrotli;
    case InputCompression::kDeflate:
      return StreamCodec::kDeflate;
  }
  return std::nullopt;
}

Result<std::unique_ptr<InputStream>> OpenInputStream(std::shared_ptr<RandomAccessFile> file,
                                                     InputCompression compression) {
  if (file == nullptr) return Status::InvalidArgument("no input file");
  return OpenInputStream(std::make_unique<FileStream>(std::move(file)), compression);
}

Result<std::unique_ptr<InputStream>> OpenInputStream(std::unique_ptr<InputStream> raw,
                                                     InputCompression compression) {
  if (raw == nullptr) return Status::InvalidArgument("no input stream");
  const auto codec = ToStreamCodec(compression);
  if (!codec) return raw;
  TARN_ASSIGN_OR_RETURN(auto decoder, StreamDecoder::Create(*codec));
  return std::unique_ptr<InputStream>(
      std::make_unique<DecodingStream>(std::move(raw), std::move(decoder)));
}

}  // namespace tarn::formats
