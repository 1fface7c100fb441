// Fuzzes OpenID Connect ID token verification (auth::VerifyIdToken) and JWKS parsing. The
// first byte picks a mode:
//   0: the rest is a token, verified against a fixed issuer with one RSA and one P-256 key.
//   1: the rest is a signing input ("header.payload", any bytes), signed with the P-256 key
//      (JOSE r||s) and verified: this reaches the claim checks behind the signature.
//   2: the rest is a JWKS document (auth::ParseJwks).
// Nothing may crash; every refusal is kUnauthenticated with code=invalid_token and a reason
// (or kUnavailable from the key lookup, which never fails here); an accepted token has the
// fixed issuer, a subject, the audience, and is current.
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "auth/auth_internal.h"
#include "auth/oidc.h"

namespace {

using tarn::auth::PublicKey;

constexpr char kIssuer[] = "https://issuer.example";
constexpr char kAudience[] = "tarn";
constexpr int64_t kNow = 1'700'000'000;  // the seeds' tokens are valid then

[[noreturn]] void Fail(const char* what, std::string_view token) {
  std::fprintf(stderr, "id_token_fuzz: %s: %.*s\n", what, static_cast<int>(token.size()),
               token.data());
  std::abort();
}

std::string Param(EVP_PKEY* pkey, const char* name, int pad) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) std::abort();
  int n = pad > 0 ? pad : BN_num_bytes(bn);
  std::string out(static_cast<size_t>(n), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), n);
  BN_free(bn);
  return out;
}

struct Keys {
  EVP_PKEY* ec = nullptr;
  std::shared_ptr<const PublicKey> ec_public;
  std::shared_ptr<const PublicKey> rsa_public;
};

const Keys& TheKeys() {
  static const Keys* keys = [] {
    auto* k = new Keys;
    k->ec = EVP_EC_gen("P-256");
    EVP_PKEY* rsa = EVP_RSA_gen(2048);
    if (k->ec == nullptr || rsa == nullptr) std::abort();
    using tarn::auth::internal::Base64UrlEncode;
    nlohmann::json ec = {{"kty", "EC"},
                         {"kid", "ec1"},
                         {"crv", "P-256"},
                         {"x", Base64UrlEncode(Param(k->ec, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
                         {"y", Base64UrlEncode(Param(k->ec, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
    nlohmann::json r = {{"kty", "RSA"},
                        {"kid", "rsa1"},
                        {"n", Base64UrlEncode(Param(rsa, OSSL_PKEY_PARAM_RSA_N, 0))},
                        {"e", Base64UrlEncode(Param(rsa, OSSL_PKEY_PARAM_RSA_E, 0))}};
    EVP_PKEY_free(rsa);
    auto e = PublicKey::FromJwk(ec.dump());
    auto p = PublicKey::FromJwk(r.dump());
    if (!e.ok() || !p.ok()) std::abort();
    k->ec_public = *e;
    k->rsa_public = *p;
    return k;
  }();
  return *keys;
}

// JOSE ES256 signature of `input` with the fixed P-256 key.
std::string SignEs256(std::string_view input) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  size_t len = 0;
  EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, TheKeys().ec);
  auto in = reinterpret_cast<const unsigned char*>(input.data());
  EVP_DigestSign(md, nullptr, &len, in, input.size());
  std::string der(len, '\0');
  EVP_DigestSign(md, reinterpret_cast<unsigned char*>(der.data()), &len, in, input.size());
  EVP_MD_CTX_free(md);
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len));
  std::string rs(64, '\0');
  BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(rs.data()), 32);
  BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(rs.data()) + 32, 32);
  ECDSA_SIG_free(sig);
  return rs;
}

void Verify(std::string_view token) {
  tarn::auth::IdTokenCheck check;
  check.audience = kAudience;
  check.now_s = kNow;
  auto trusted = [](std::string_view iss) -> tarn::Status {
    if (iss == kIssuer) return tarn::Status::OK();
    return tarn::Status::Unauthenticated("untrusted")
        .WithField("code", "invalid_token")
        .WithField("reason", "wrong_issuer");
  };
  auto keys = [](std::string_view iss,
                 std::string_view kid) -> tarn::Result<std::shared_ptr<const PublicKey>> {
    if (iss != kIssuer) std::abort();  // keys are only looked up for a trusted issuer
    if (kid == "ec1") return TheKeys().ec_public;
    if (kid == "rsa1") return TheKeys().rsa_public;
    return std::shared_ptr<const PublicKey>();
  };
  auto r = tarn::auth::VerifyIdToken(token, check, trusted, keys);
  if (!r.ok()) {
    if (r.status().kind() != tarn::ErrorKind::kUnauthenticated)
      Fail("refused as another kind", token);
    bool code = false, reason = false;
    for (const auto& [k, v] : r.status().fields()) {
      code |= k == "code" && v == "invalid_token";
      reason |= k == "reason" && !v.empty();
    }
    if (!code || !reason) Fail("refused without code and reason", token);
    return;
  }
  if (r->issuer != kIssuer || r->subject.empty()) Fail("accepted without issuer/subject", token);
  bool audience = false;
  for (const auto& a : r->audience) audience |= a == kAudience;
  if (!audience) Fail("accepted for another audience", token);
  if (r->expires_at_s + 60 <= kNow) Fail("accepted an expired token", token);
  if (r->alg != tarn::auth::JwsAlg::kES256 && r->alg != tarn::auth::JwsAlg::kRS256) {
    Fail("accepted another algorithm", token);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      Verify(rest);
      break;
    case 1:
      Verify(std::string(rest) + "." + tarn::auth::internal::Base64UrlEncode(SignEs256(rest)));
      break;
    default: {
      auto keys = tarn::auth::ParseJwks(rest);
      if (keys.ok() && keys->size() > 32) Fail("kept more keys than the bound", rest);
      break;
    }
  }
  return 0;
}
