// Random identifiers.
#pragma once

#include <cstdint>
#include <string>

namespace tarn {

// A random (version 4) UUID in its canonical 36-character lower-case text form, from the
// kernel's random source (getrandom). Thread-safe.
std::string NewUuidV4();
// 64 random bits from the same source.
uint64_t RandomU64();

}  // namespace tarn
