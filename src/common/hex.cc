#include "common/hex.h"

namespace tarn {

std::string HexEncode(const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) AppendHex(p[i], &out);
  return out;
}

}  // namespace tarn
