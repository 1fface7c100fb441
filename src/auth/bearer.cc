// HS256 JSON Web Tokens (RFC 7519 / RFC 7515 compact form) for tarn's bearer tokens.

#include <nlohmann/json.hpp>

#include "api/error_codes.h"
#include "auth/auth.h"
#include "auth/auth_internal.h"
#include "common/digest.h"

namespace tarn::auth {

namespace {

using nlohmann::json;

constexpr size_t kMaxTokenBytes = 4096;
constexpr size_t kSignatureBytes = 32;
constexpr size_t kMaxClaimBytes = 512;
constexpr int64_t kMicros = 1'000'000;
// NumericDates past year 9999 are refused (and keep seconds * 10^6 inside int64).

Status Invalid(std::string_view reason, std::string_view detail) {
  return Status::Of(codes::kInvalidToken, "invalid bearer token: " + std::string(detail))
      .WithField("reason", std::string(reason));
}

const std::string* StringClaim(const json& claims, const char* key) {
  return internal::StringMember(claims, key, kMaxClaimBytes);
}

}  // namespace

namespace internal {

const std::string* StringMember(const json& o, const char* key, size_t max) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return nullptr;
  const std::string& s = it->get_ref<const std::string&>();
  return s.size() <= max ? &s : nullptr;
}

std::optional<int64_t> DateMember(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return std::nullopt;
  if (it->is_number_unsigned()) {
    uint64_t v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(kMaxNumericDate)) return std::nullopt;
    return static_cast<int64_t>(v);
  }
  if (it->is_number_integer()) {
    int64_t v = it->get<int64_t>();
    if (v < 0 || v > kMaxNumericDate) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

}  // namespace internal

std::string SignBearer(const Principal& p, const SigningKey& key) {
  json header = {{"alg", "HS256"}, {"typ", "JWT"}, {"kid", key.kid}};
  json claims = {{"iss", "tarn"},
                 {"sub", p.client_id},
                 {"ws", p.workspace},
                 {"role", std::string(RoleName(p.role))},
                 {"pat", p.pattern},
                 {"iat", p.issued_at_us / kMicros},
                 {"exp", p.expires_at_us / kMicros},
                 {"jti", p.token_id}};
  if (!p.audience.empty()) claims["aud"] = p.audience;
  if (!p.job.empty()) claims["job"] = p.job;
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string signing_input =
      internal::Base64UrlEncode(dump(header)) + "." + internal::Base64UrlEncode(dump(claims));
  std::string mac = HmacSha256(key.secret, signing_input);
  return signing_input + "." + internal::Base64UrlEncode(mac);
}

Result<Principal> VerifyBearer(std::string_view token,
                               const std::function<const SigningKey*(std::string_view)>& keys,
                               int64_t now_us, int64_t skew_us) {
  if (token.empty()) return Invalid("malformed", "empty");
  if (token.size() > kMaxTokenBytes) return Invalid("malformed", "longer than 4096 bytes");
  size_t dot1 = token.find('.');
  size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return Invalid("malformed", "not three dot-separated parts");
  }
  std::string_view header_b64 = token.substr(0, dot1);
  std::string_view claims_b64 = token.substr(dot1 + 1, dot2 - dot1 - 1);
  std::string_view sig_b64 = token.substr(dot2 + 1);

  auto header_text = internal::Base64UrlDecode(header_b64);
  if (!header_text) return Invalid("malformed", "header is not base64url");
  json header = json::parse(*header_text, nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) return Invalid("malformed", "header is not a JSON object");
  for (const auto& [k, v] : header.items()) {
    if (k != "alg" && k != "typ" && k != "kid") {
      return Invalid("malformed", "unsupported header parameter");
    }
  }
  const std::string* alg = StringClaim(header, "alg");
  if (!alg || *alg != "HS256") return Invalid("malformed", "alg must be HS256");
  if (header.contains("typ")) {
    const std::string* typ = StringClaim(header, "typ");
    if (!typ || *typ != "JWT") return Invalid("malformed", "typ must be JWT");
  }
  const std::string* kid = StringClaim(header, "kid");
  if (!kid || kid->empty()) return Invalid("malformed", "kid missing");

  auto signature = internal::Base64UrlDecode(sig_b64);
  if (!signature || signature->size() != kSignatureBytes) {
    return Invalid("malformed", "signature is not 32 bytes of base64url");
  }
  const SigningKey* key = keys ? keys(*kid) : nullptr;
  if (!key) return Invalid("unknown_key", "unknown signing key");
  std::string expected = HmacSha256(key->secret, token.substr(0, dot2));
  if (expected.size() != kSignatureBytes || !ConstantTimeEquals(expected, *signature)) {
    return Invalid("bad_signature", "bad signature");
  }

  // Signed by us: the claims are ours, but still checked as if they were not.
  auto claims_text = internal::Base64UrlDecode(claims_b64);
  if (!claims_text) return Invalid("malformed", "claims are not base64url");
  json claims = json::parse(*claims_text, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object()) return Invalid("malformed", "claims are not a JSON object");
  const std::string* iss = StringClaim(claims, "iss");
  const std::string* sub = StringClaim(claims, "sub");
  const std::string* ws = StringClaim(claims, "ws");
  const std::string* role = StringClaim(claims, "role");
  const std::string* pat = StringClaim(claims, "pat");
  const std::string* jti = StringClaim(claims, "jti");
  auto iat = internal::DateMember(claims, "iat");
  auto exp = internal::DateMember(claims, "exp");
  if (!iss || *iss != "tarn") return Invalid("bad_claims", "iss must be tarn");
  if (!sub || sub->empty()) return Invalid("bad_claims", "sub missing");
  if (!ws || ws->empty()) return Invalid("bad_claims", "ws missing");
  if (!pat || pat->empty()) return Invalid("bad_claims", "pat missing");
  if (!jti) return Invalid("bad_claims", "jti missing");
  if (!iat || !exp) return Invalid("bad_claims", "iat and exp must be integer NumericDates");
  if (*exp <= *iat) return Invalid("bad_claims", "exp is not after iat");
  auto parsed_role = role ? ParseRole(*role) : Result<Role>(Status::InvalidArgument("no role"));
  if (!parsed_role.ok()) return Invalid("bad_claims", "role missing or unknown");
  std::optional<int64_t> nbf;
  if (claims.contains("nbf")) {
    nbf = internal::DateMember(claims, "nbf");
    if (!nbf) return Invalid("bad_claims", "nbf must be an integer NumericDate");
  }

  if (now_us >= *exp * kMicros) return Invalid("expired", "expired");
  if (*iat * kMicros > now_us + skew_us || (nbf && *nbf * kMicros > now_us + skew_us)) {
    return Invalid("not_yet_valid", "issued in the future");
  }

  Principal p;
  p.client_id = *sub;
  p.workspace = *ws;
  p.role = *parsed_role;
  p.pattern = *pat;
  p.issued_at_us = *iat * kMicros;
  p.expires_at_us = *exp * kMicros;
  p.token_id = *jti;
  for (auto [name, field] :
       {std::pair<const char*, std::string*>{"aud", &p.audience}, {"job", &p.job}}) {
    if (!claims.contains(name)) continue;
    const std::string* v = StringClaim(claims, name);
    if (!v || v->empty()) return Invalid("bad_claims", std::string(name) + " must be a string");
    *field = *v;
  }
  return p;
}

}  // namespace tarn::auth
