// RFC 4648 section 5 base64url without padding (JWTs: auth signs and checks them, the worker
// peeks at a job token's claims).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tarn {

std::string Base64UrlEncode(std::string_view bytes);
// The inverse; nullopt for padding, characters outside the alphabet, an impossible length or
// non-zero unused bits (only the canonical encoding of a byte string decodes).
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace tarn
