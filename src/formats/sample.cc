#include "formats/sample.h"

#include <algorithm>

#include "common/stream_decoder.h"
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

// Decodes `in` with `codec` into at most `max_bytes`.
Result<DecodedSample> Decode(std::string_view name, std::string_view in, StreamCodec codec,
                             bool whole_file, size_t max_bytes) {
  DecodedSample r;
  TARN_ASSIGN_OR_RETURN(auto decoder, StreamDecoder::Create(codec));
  const auto* bytes = reinterpret_cast<const uint8_t*>(in.data());
  size_t used = 0;
  size_t in_pos = 0;
  while (true) {
    if (used >= max_bytes) {
      r.cut = true;
      break;
    }
    const size_t room = Grow(&r.bytes, used, max_bytes);
    auto step = decoder->Decode(bytes + in_pos, in.size() - in_pos,
                                reinterpret_cast<uint8_t*>(r.bytes.data() + used), room);
    if (!step.ok()) {
      if (step.status().kind() != ErrorKind::kCorruption) return step.status();
      return Unreadable(name, step.status().message());
    }
    in_pos += step->consumed;
    used += step->produced;
    if (decoder->finished()) break;
    // All input consumed and the decoder had room to spare: nothing is held back.
    if (in_pos >= in.size() && step->produced < room) {
      if (decoder->mid_stream()) r.cut = true;  // the input ran out inside a stream
      break;
    }
  }
  r.bytes.resize(used);
  if (r.cut && whole_file && used < max_bytes) {
    return Unreadable(name, std::string(StreamCodecName(codec)) + " data is truncated");
  }
  return r;
}

}  // namespace

Result<DecodedSample> DecodeSample(std::string_view name, std::string_view stored,
                                   InputCompression compression, bool whole_file,
                                   size_t max_bytes) {
  if (const auto codec = ToStreamCodec(compression)) {
    return Decode(name, stored, *codec, whole_file, max_bytes);
  }
  DecodedSample r;
  r.bytes.assign(stored.substr(0, std::min(stored.size(), max_bytes)));
  r.cut = stored.size() > max_bytes;
  return r;
}

}  // namespace tarn::formats::internal
