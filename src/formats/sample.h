// Decoding of a sample: the stored prefix of a possibly compressed file, decompressed as far as
// its bytes go.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "formats/decompress.h"
#include "tarn/status.h"

namespace tarn::formats::internal {

struct DecodedSample {
  std::string bytes;
  // The decoded text stops before the end of the data: the compressed stream was cut short, or
  // `max_bytes` was reached.
  bool cut = false;
};

// Decompresses `stored` (not kNone) into at most `max_bytes`. A stream that stops mid-way is not
// an error (cut = true) unless `whole_file` says the bytes are the entire file; malformed data
// is kInvalidArgument code=format_unreadable.
Result<DecodedSample> DecodeSample(std::string_view name, std::string_view stored,
                                   InputCompression compression, bool whole_file, size_t max_bytes);

}  // namespace tarn::formats::internal
