// SHA-256 and HMAC-SHA256 (OpenSSL's libcrypto, wrapped here only).
#pragma once

#include <string>
#include <string_view>

namespace tarn {

// The raw SHA-256 of `data` (32 bytes).
std::string Sha256(std::string_view data);
// The raw HMAC-SHA256 of `data` under `key` (32 bytes).
std::string HmacSha256(std::string_view key, std::string_view data);

}  // namespace tarn
