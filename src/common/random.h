// Random identifiers and secrets.
#pragma once

#include <cstdint>
#include <string>

#include "tarn/status.h"

namespace tarn {

// A random (version 4) UUID in its canonical 36-character lower-case text form, from the
// kernel's random source (getrandom). Thread-safe.
std::string NewUuidV4();
// 64 random bits from the same source.
uint64_t RandomU64();
// `n` bytes for secrets and salts, from getrandom only: kInternal if the kernel's source fails.
Result<std::string> SecureRandomBytes(size_t n);
// `n` characters of the base32 alphabet a-z2-7 (secrets, key ids, token ids), each uniform:
// one secure random byte each, 256 being a multiple of 32.
Result<std::string> RandomBase32(size_t n);

}  // namespace tarn
