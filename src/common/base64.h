// RFC 4648 section 5 base64url without padding (JWTs: auth signs and checks them, the worker
// peeks at a job token's claims), and section 4 base64 with padding (S3's Content-MD5).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tarn {

std::string Base64UrlEncode(std::string_view bytes);
// The inverse; nullopt for padding, characters outside the alphabet, an impossible length or
// non-zero unused bits (only the canonical encoding of a byte string decodes).
std::optional<std::string> Base64UrlDecode(std::string_view text);
// The standard alphabet (+/), padded with '=' to a multiple of 4 characters.
std::string Base64Encode(std::string_view bytes);

}  // namespace tarn
