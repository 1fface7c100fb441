// Helpers of the auth module shared by its .cc files and tests. Not part of its interface.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/base64.h"

namespace tarn::auth::internal {

// RFC 4648 section 5 base64url without padding (common/base64.h).
using tarn::Base64UrlDecode;
using tarn::Base64UrlEncode;

// A JSON object parsed strictly: nullopt for anything but one object, for a key repeated in
// any object, or for nesting deeper than 16 (ID tokens and JWKS, oidc.h).
std::optional<nlohmann::json> ParseStrictJsonObject(std::string_view text);

// The largest NumericDate a token may carry (9999-12-31T23:59:59Z).
constexpr int64_t kMaxNumericDate = 253402300799;
// The string member `key` of at most `max` bytes; nullptr when absent, not a string or longer.
const std::string* StringMember(const nlohmann::json& o, const char* key, size_t max);
// An integer NumericDate member in [0, kMaxNumericDate]; nullopt when absent or anything else.
std::optional<int64_t> DateMember(const nlohmann::json& o, const char* key);

// A pattern split into its collection and dataset globs ("sales" is "sales.*").
struct PatternParts {
  std::string_view collection;
  std::string_view dataset;
};
PatternParts SplitPattern(std::string_view pattern);

}  // namespace tarn::auth::internal
