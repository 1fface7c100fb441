#include "common/hash.h"

namespace tarn {

namespace {

inline uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

inline uint32_t Load32Le(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

inline uint32_t FinalMix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace

uint32_t MurmurHash3_x86_32(const void* data, size_t len, uint32_t seed) {
  constexpr uint32_t kC1 = 0xcc9e2d51u;
  constexpr uint32_t kC2 = 0x1b873593u;
  const auto* bytes = static_cast<const uint8_t*>(data);
  const size_t nblocks = len / 4;
  uint32_t h = seed;

  for (size_t i = 0; i < nblocks; ++i) {
    uint32_t k = Load32Le(bytes + i * 4);
    k *= kC1;
    k = Rotl32(k, 15);
    k *= kC2;
    h ^= k;
    h = Rotl32(h, 13);
    h = h * 5 + 0xe6546b64u;
  }

  const uint8_t* tail = bytes + nblocks * 4;
  uint32_t k = 0;
  switch (len & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= kC1;
      k = Rotl32(k, 15);
      k *= kC2;
      h ^= k;
  }

  h ^= static_cast<uint32_t>(len);
  return FinalMix(h);
}

}  // namespace tarn
