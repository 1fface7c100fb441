// Digests and MACs: SHA-256, HMAC-SHA256, MD5 (S3's Content-MD5), and a constant-time
// comparison. OpenSSL's libcrypto wrapped here (and, for public-key signatures, in src/auth).
#pragma once

#include <string>
#include <string_view>

namespace tarn {

// The raw SHA-256 of `data` (32 bytes).
std::string Sha256(std::string_view data);
// The raw HMAC-SHA256 of `data` under `key` (32 bytes).
std::string HmacSha256(std::string_view key, std::string_view data);
// The raw MD5 of `data` (16 bytes): integrity checks where a protocol asks for it, never security.
std::string Md5(std::string_view data);
// Whether `a` and `b` are equal, in time that depends on their sizes only (for secrets).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace tarn
