#include "common/units.h"

#include <limits>
#include <string>

namespace tarn {

Result<int64_t> ParseDuration(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument("expected a duration like 7d, 12h, 30m or 0s, got '" +
                                   std::string(text) + "'");
  };
  if (text.empty()) return bad();
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    int64_t n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) return bad();
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    if (i == start || i == text.size()) return bad();
    int64_t unit = 0;
    if (text.compare(i, 2, "ms") == 0) {
      unit = 1'000;
      i += 2;
    } else {
      switch (text[i]) {
        case 's':
          unit = 1'000'000;
          break;
        case 'm':
          unit = 60'000'000;
          break;
        case 'h':
          unit = 3'600'000'000;
          break;
        case 'd':
          unit = 86'400'000'000;
          break;
        case 'w':
          unit = 604'800'000'000;
          break;
        default:
          return bad();
      }
      ++i;
    }
    if (n > (std::numeric_limits<int64_t>::max() - total) / unit) return bad();
    total += n * unit;
  }
  return total;
}

Result<int64_t> ParseByteSize(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  const std::string_view unit = text.substr(i);
  if (i == 0 || i > 12) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a size (e.g. 16MiB)");
  }
  const int64_t n = std::stoll(std::string(text.substr(0, i)));
  int shift = 0;
  if (unit.empty() || unit == "B") {
    shift = 0;
  } else if (unit == "K" || unit == "KB" || unit == "KiB") {
    shift = 10;
  } else if (unit == "M" || unit == "MB" || unit == "MiB") {
    shift = 20;
  } else if (unit == "G" || unit == "GB" || unit == "GiB") {
    shift = 30;
  } else {
    return Status::InvalidArgument("unknown unit '" + std::string(unit) + "' (B, KiB, MiB, GiB)");
  }
  if (n <= 0 || n > (INT64_C(1) << (50 - shift))) {
    return Status::InvalidArgument("'" + std::string(text) + "' is out of range");
  }
  return n << shift;
}

}  // namespace tarn
