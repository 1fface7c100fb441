// Non-cryptographic hashes with fixed, documented output (they end up in partition values and
// file layouts, so they must never change).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tarn {

// MurmurHash3 x86_32 (Austin Appleby's reference algorithm), as used by Iceberg's bucket
// transform with seed 0. Reads the bytes little-endian whatever the host order.
uint32_t MurmurHash3_x86_32(const void* data, size_t len, uint32_t seed = 0);

// XXH64 (Yann Collet's xxHash, 64-bit, specification 0.1.1), as Parquet's bloom filters hash
// values with seed 0. Reads the bytes little-endian whatever the host order.
uint64_t XxHash64(const void* data, size_t len, uint64_t seed = 0);

}  // namespace tarn
