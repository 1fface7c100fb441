// Durations as people write them: "7d", "12h", "30m", "0s", "250ms", "1w", also "1d12h".
#pragma once

#include <cstdint>
#include <string_view>

#include "tarn/status.h"

namespace tarn {

// Microseconds. Errors: kInvalidArgument naming the text for anything else (an empty text, a
// number without a unit, an unknown unit, an overflow).
Result<int64_t> ParseDuration(std::string_view text);

}  // namespace tarn
