// Durations and sizes as people write them: "7d", "12h", "30m", "0s", "250ms", "1w", "1d12h";
// "1048576", "64KiB", "16MiB", "1GiB".
#pragma once

#include <cstdint>
#include <string_view>

#include "tarn/status.h"

namespace tarn {

// Microseconds. Errors: kInvalidArgument naming the text for anything else (an empty text, a
// number without a unit, an unknown unit, an overflow).
Result<int64_t> ParseDuration(std::string_view text);

// Bytes: a positive number, optionally followed by B, K/KB/KiB, M/MB/MiB or G/GB/GiB (powers of
// 1024), at most 2^50 bytes. Errors: kInvalidArgument naming the text (not a number, an unknown
// unit, zero or out of range).
Result<int64_t> ParseByteSize(std::string_view text);

}  // namespace tarn
