// OpenID Connect ID tokens (RFC 7515/7517/7518/7519, OpenID Connect Core 1.0 section 3.1.3.7):
// JWK public keys over OpenSSL 3, strict JSON, and the checks of VerifyIdToken.
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "api/error_codes.h"
#include "auth/auth_internal.h"
#include "auth/error_codes.h"
#include "auth/oidc.h"

namespace tarn::auth {

using internal::DateMember;
using internal::kMaxNumericDate;
using internal::StringMember;

namespace {

using nlohmann::json;

constexpr size_t kMaxIdTokenBytes = 16 << 10;
constexpr size_t kMaxIssuerBytes = 512;
constexpr size_t kMaxSubjectBytes = 1024;
constexpr size_t kMaxKidBytes = 256;
constexpr int kMaxJsonDepth = 16;
constexpr int kMinRsaBits = 2048;
constexpr int kMaxRsaBits = 8192;
constexpr size_t kEcCoordinateBytes = 32;
// NumericDates past year 9999 are refused.

Status Invalid(std::string_view reason, std::string_view detail) {
  return Status::Of(codes::kInvalidToken, "invalid ID token: " + std::string(detail))
      .WithField("reason", std::string(reason));
}

Status BadKey(std::string_view why) {
  return Status::Of(codes::kBadJwk, "unusable JWK: " + std::string(why));
}

}  // namespace

namespace internal {

std::optional<json> ParseStrictJsonObject(std::string_view text) {
  std::vector<std::unordered_set<std::string>> keys;
  bool bad = false;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxJsonDepth) bad = true;
    switch (event) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::key:
        if (keys.empty() || !keys.back().insert(parsed.get<std::string>()).second) bad = true;
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      default:
        break;
    }
    return !bad;  // drops what is refused anyway instead of building it
  };
  json j = json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
  if (bad || j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

}  // namespace internal

namespace {

// Base64url bytes of a JWK member; nullopt when absent or not canonical base64url.
std::optional<std::string> BytesMember(const json& o, const char* key) {
  const std::string* s = StringMember(o, key, 4096);
  if (s == nullptr || s->empty()) return std::nullopt;
  return internal::Base64UrlDecode(*s);
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct ParamBldFree {
  void operator()(OSSL_PARAM_BLD* p) const { OSSL_PARAM_BLD_free(p); }
};
struct ParamFree {
  void operator()(OSSL_PARAM* p) const { OSSL_PARAM_free(p); }
};
struct BnFree {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};

using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

const unsigned char* Bytes(const std::string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// A public key from OSSL parameters of `type` ("RSA" or "EC").
Result<PkeyPtr> FromData(const char* type, OSSL_PARAM_BLD* bld) {
  std::unique_ptr<OSSL_PARAM, ParamFree> params(OSSL_PARAM_BLD_to_param(bld));
  std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) {
    return Status::Internal("OpenSSL could not build a public key");
  }
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return BadKey("OpenSSL refused the key parameters");
  }
  PkeyPtr pkey(raw);
  std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> check(
      EVP_PKEY_CTX_new_from_pkey(nullptr, pkey.get(), nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) return BadKey("not a valid public key");
  return pkey;
}

Result<PkeyPtr> RsaKey(const json& jwk) {
  auto n = BytesMember(jwk, "n");
  auto e = BytesMember(jwk, "e");
  if (!n || !e) return BadKey("an RSA key needs n and e in base64url");
  if (e->size() > 8) return BadKey("the RSA exponent is too large");
  std::unique_ptr<BIGNUM, BnFree> bn_n(BN_bin2bn(Bytes(*n), static_cast<int>(n->size()), nullptr));
  std::unique_ptr<BIGNUM, BnFree> bn_e(BN_bin2bn(Bytes(*e), static_cast<int>(e->size()), nullptr));
  if (!bn_n || !bn_e) return Status::Internal("OpenSSL could not allocate a number");
  int bits = BN_num_bits(bn_n.get());
  if (bits < kMinRsaBits || bits > kMaxRsaBits) {
    return BadKey("the RSA modulus must have 2048 to 8192 bits");
  }
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
  if (!bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return Status::Internal("OpenSSL could not build RSA parameters");
  }
  return FromData("RSA", bld.get());
}

Result<PkeyPtr> EcKey(const json& jwk) {
  const std::string* crv = StringMember(jwk, "crv", 16);
  if (crv == nullptr || *crv != "P-256") return BadKey("an EC key must be on curve P-256");
  auto x = BytesMember(jwk, "x");
  auto y = BytesMember(jwk, "y");
  if (!x || !y || x->size() != kEcCoordinateBytes || y->size() != kEcCoordinateBytes) {
    return BadKey("a P-256 key needs x and y of 32 bytes each");
  }
  std::string point = "\x04" + *x + *y;  // uncompressed SEC 1 point
  std::unique_ptr<OSSL_PARAM_BLD, ParamBldFree> bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return Status::Internal("OpenSSL could not build EC parameters");
  }
  return FromData("EC", bld.get());
}

// JOSE's r||s (RFC 7518 section 3.4) as the DER ECDSA-Sig-Value OpenSSL verifies.
std::optional<std::string> EcdsaDer(std::string_view rs) {
  if (rs.size() != 2 * kEcCoordinateBytes) return std::nullopt;
  auto u = reinterpret_cast<const unsigned char*>(rs.data());
  std::unique_ptr<ECDSA_SIG, EcdsaSigFree> sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(u, kEcCoordinateBytes, nullptr);
  BIGNUM* s = BN_bin2bn(u + kEcCoordinateBytes, kEcCoordinateBytes, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

std::optional<JwsAlg> ParseAlg(std::string_view alg) {
  if (alg == "RS256") return JwsAlg::kRS256;
  if (alg == "ES256") return JwsAlg::kES256;
  return std::nullopt;
}

}  // namespace

struct PublicKey::Key {
  PkeyPtr pkey;
};

// Builds PublicKeys (their constructor and Key are private).
struct PublicKeyMaker {
  static std::shared_ptr<const PublicKey> Make(std::string kid, JwsAlg alg, PkeyPtr pkey) {
    auto key = std::make_unique<PublicKey::Key>();
    key->pkey = std::move(pkey);
    return std::shared_ptr<const PublicKey>(new PublicKey(std::move(kid), alg, std::move(key)));
  }
};

PublicKey::PublicKey(std::string kid, JwsAlg alg, std::unique_ptr<Key> key)
    : kid_(std::move(kid)), alg_(alg), key_(std::move(key)) {}

PublicKey::~PublicKey() = default;

bool PublicKey::Verify(std::string_view data, std::string_view signature) const {
  std::string der;
  std::string_view sig = signature;
  if (alg_ == JwsAlg::kES256) {
    auto converted = EcdsaDer(signature);
    if (!converted) return false;
    der = std::move(*converted);
    sig = der;
  }
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> md(EVP_MD_CTX_new());
  if (!md ||
      EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key_->pkey.get()) != 1) {
    return false;
  }
  return EVP_DigestVerify(md.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

namespace {

Result<std::shared_ptr<const PublicKey>> KeyFromJson(const json& jwk) {
  if (!jwk.is_object()) return BadKey("not a JSON object");
  const std::string* kty = StringMember(jwk, "kty", 16);
  const std::string* kid = StringMember(jwk, "kid", kMaxKidBytes);
  if (kid == nullptr || kid->empty()) return BadKey("no kid");
  if (jwk.contains("use")) {
    const std::string* use = StringMember(jwk, "use", 16);
    if (use == nullptr || *use != "sig") return BadKey("use is not sig");
  }
  if (kty == nullptr) return BadKey("no kty");
  JwsAlg alg;
  if (*kty == "RSA") {
    alg = JwsAlg::kRS256;
  } else if (*kty == "EC") {
    alg = JwsAlg::kES256;
  } else {
    return BadKey("kty must be RSA or EC");
  }
  if (jwk.contains("alg")) {
    const std::string* a = StringMember(jwk, "alg", 16);
    auto parsed = a ? ParseAlg(*a) : std::nullopt;
    if (!parsed || *parsed != alg) return BadKey("alg does not fit the key type");
  }
  Result<PkeyPtr> pkey = alg == JwsAlg::kRS256 ? RsaKey(jwk) : EcKey(jwk);
  if (!pkey.ok()) return pkey.status();
  return PublicKeyMaker::Make(*kid, alg, std::move(*pkey));
}

}  // namespace

Result<std::shared_ptr<const PublicKey>> PublicKey::FromJwk(std::string_view jwk_json) {
  auto j = internal::ParseStrictJsonObject(jwk_json);
  if (!j) return BadKey("not a JSON object without repeated keys");
  return KeyFromJson(*j);
}

Result<std::vector<std::shared_ptr<const PublicKey>>> ParseJwks(std::string_view body,
                                                                size_t max_keys) {
  auto j = internal::ParseStrictJsonObject(body);
  if (!j) {
    return Status::Of(codes::kBadJwks, "the JWKS is not a JSON object without repeated keys");
  }
  auto keys = j->find("keys");
  if (keys == j->end() || !keys->is_array()) {
    return Status::Of(codes::kBadJwks, "the JWKS has no keys array");
  }
  std::vector<std::shared_ptr<const PublicKey>> out;
  for (const json& k : *keys) {
    if (out.size() >= max_keys) break;
    auto key = KeyFromJson(k);
    if (key.ok()) out.push_back(std::move(*key));
  }
  return out;
}

Result<IdToken> VerifyIdToken(std::string_view token, const IdTokenCheck& check,
                              const IssuerCheck& trusted, const KeyLookup& keys) {
  if (token.empty()) return Invalid("malformed", "empty");
  if (token.size() > kMaxIdTokenBytes) return Invalid("malformed", "longer than 16 KiB");
  size_t dot1 = token.find('.');
  size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return Invalid("malformed", "not three dot-separated parts");
  }
  auto header_text = internal::Base64UrlDecode(token.substr(0, dot1));
  auto payload_text = internal::Base64UrlDecode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = internal::Base64UrlDecode(token.substr(dot2 + 1));
  if (!header_text || !payload_text || !signature) {
    return Invalid("malformed", "a part is not base64url without padding");
  }
  auto header = internal::ParseStrictJsonObject(*header_text);
  if (!header) return Invalid("malformed", "the header is not a JSON object without repeated keys");
  auto payload = internal::ParseStrictJsonObject(*payload_text);
  if (!payload) {
    return Invalid("malformed", "the payload is not a JSON object without repeated keys");
  }

  const std::string* alg_name = StringMember(*header, "alg", 16);
  auto alg = alg_name ? ParseAlg(*alg_name) : std::nullopt;
  if (!alg) return Invalid("bad_algorithm", "alg must be RS256 or ES256");
  if (header->contains("crit")) return Invalid("malformed", "critical header parameters");

  const std::string* iss = StringMember(*payload, "iss", kMaxIssuerBytes);
  if (iss == nullptr || iss->empty()) return Invalid("bad_claims", "iss missing");
  if (trusted) {
    Status st = trusted(*iss);
    if (!st.ok()) return st;
  }
  const std::string* kid = StringMember(*header, "kid", kMaxKidBytes);
  if (kid == nullptr || kid->empty()) return Invalid("unknown_key", "kid missing");
  std::shared_ptr<const PublicKey> key;
  if (keys) {
    TARN_ASSIGN_OR_RETURN(key, keys(*iss, *kid));
  }
  if (!key) return Invalid("unknown_key", "the issuer has no key '" + kid->substr(0, 64) + "'");
  if (key->alg() != *alg) return Invalid("bad_algorithm", "alg does not fit the issuer's key");
  if (!key->Verify(token.substr(0, dot2), *signature)) {
    return Invalid("bad_signature", "bad signature");
  }

  IdToken out;
  out.issuer = *iss;
  out.kid = *kid;
  out.alg = *alg;
  const std::string* sub = StringMember(*payload, "sub", kMaxSubjectBytes);
  if (sub == nullptr || sub->empty()) return Invalid("bad_claims", "sub missing");
  out.subject = *sub;
  auto aud = payload->find("aud");
  if (aud != payload->end() && aud->is_string()) {
    out.audience.push_back(aud->get<std::string>());
  } else if (aud != payload->end() && aud->is_array() && !aud->empty() && aud->size() <= 64) {
    for (const json& a : *aud) {
      if (!a.is_string()) return Invalid("bad_claims", "aud must be strings");
      out.audience.push_back(a.get<std::string>());
    }
  } else {
    return Invalid("bad_claims", "aud missing");
  }
  auto exp = DateMember(*payload, "exp");
  auto iat = DateMember(*payload, "iat");
  if (!exp || !iat) return Invalid("bad_claims", "exp and iat must be integer NumericDates");
  std::optional<int64_t> nbf;
  if (payload->contains("nbf")) {
    nbf = DateMember(*payload, "nbf");
    if (!nbf) return Invalid("bad_claims", "nbf must be an integer NumericDate");
  }
  out.expires_at_s = *exp;
  out.issued_at_s = *iat;

  bool audience_ok = false;
  for (const std::string& a : out.audience) audience_ok = audience_ok || a == check.audience;
  if (!audience_ok || check.audience.empty()) {
    return Invalid("wrong_audience", "the token is not for this server's audience");
  }
  if (check.now_s - check.leeway_s >= *exp) return Invalid("expired", "expired");
  if ((nbf && *nbf > check.now_s + check.leeway_s) || *iat > check.now_s + check.leeway_s) {
    return Invalid("not_yet_valid", "not valid yet");
  }
  return out;
}

std::string UnverifiedIssuer(std::string_view token) {
  if (token.size() > kMaxIdTokenBytes) return "";
  size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return "";
  size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return "";
  auto text = internal::Base64UrlDecode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  if (!text) return "";
  auto payload = internal::ParseStrictJsonObject(*text);
  if (!payload) return "";
  const std::string* iss = StringMember(*payload, "iss", kMaxIssuerBytes);
  return iss ? *iss : "";
}

}  // namespace tarn::auth
