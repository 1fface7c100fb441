#include "common/hash.h"

namespace tarn {

namespace {

inline uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

inline uint32_t Load32Le(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

inline uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t Load64Le(const uint8_t* p) {
  return static_cast<uint64_t>(Load32Le(p)) | static_cast<uint64_t>(Load32Le(p + 4)) << 32;
}

constexpr uint64_t kXxP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kXxP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kXxP3 = 0x165667B19E3779F9ull;
constexpr uint64_t kXxP4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kXxP5 = 0x27D4EB2F165667C5ull;

inline uint64_t XxRound(uint64_t acc, uint64_t input) {
  acc += input * kXxP2;
  acc = Rotl64(acc, 31);
  return acc * kXxP1;
}

inline uint64_t XxMerge(uint64_t acc, uint64_t v) {
  acc ^= XxRound(0, v);
  return acc * kXxP1 + kXxP4;
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

uint64_t XxHash64(const void* data, size_t len, uint64_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  const uint8_t* const end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + kXxP1 + kXxP2;
    uint64_t v2 = seed + kXxP2;
    uint64_t v3 = seed;
    uint64_t v4 = seed - kXxP1;
    const uint8_t* const limit = end - 32;
    do {
      v1 = XxRound(v1, Load64Le(p));
      v2 = XxRound(v2, Load64Le(p + 8));
      v3 = XxRound(v3, Load64Le(p + 16));
      v4 = XxRound(v4, Load64Le(p + 24));
      p += 32;
    } while (p <= limit);
    h = Rotl64(v1, 1) + Rotl64(v2, 7) + Rotl64(v3, 12) + Rotl64(v4, 18);
    h = XxMerge(h, v1);
    h = XxMerge(h, v2);
    h = XxMerge(h, v3);
    h = XxMerge(h, v4);
  } else {
    h = seed + kXxP5;
  }
  h += static_cast<uint64_t>(len);
  for (; end - p >= 8; p += 8) {
    h ^= XxRound(0, Load64Le(p));
    h = Rotl64(h, 27) * kXxP1 + kXxP4;
  }
  if (end - p >= 4) {
    h ^= static_cast<uint64_t>(Load32Le(p)) * kXxP1;
    h = Rotl64(h, 23) * kXxP2 + kXxP3;
    p += 4;
  }
  for (; p < end; ++p) {
    h ^= static_cast<uint64_t>(*p) * kXxP5;
    h = Rotl64(h, 11) * kXxP1;
  }
  h ^= h >> 33;
  h *= kXxP2;
  h ^= h >> 29;
  h *= kXxP3;
  h ^= h >> 32;
  return h;
}

}  // namespace tarn
