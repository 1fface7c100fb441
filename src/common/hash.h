// Non-cryptographic hashes with fixed, documented output (they end up in partition values and
// file layouts, so they must never change).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tarn {

// MurmurHash3 x86_32 (Austin Appleby's reference algorithm), as used by Iceberg's bucket
// transform with seed 0. Reads the bytes little-endian whatever the host order.
uint32_t MurmurHash3_x86_32(const void* data, size_t len, uint32_t seed = 0);

}  // namespace tarn
