// Federated sign-in (docs/design/federation.md): verifying OpenID Connect ID tokens (RS256 and
// ES256 JWTs) against the keys an issuer publishes, and caching those keys.
//
// VerifyIdToken is pure (no I/O; fuzzed by fuzz/id_token_fuzz.cc). IssuerKeys fetches an
// issuer's discovery document and JWKS through an HttpFetcher and caches them. The
// TokenAuthority (auth.h) puts the two together with the federation rules of the catalog.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tarn/status.h"

namespace tarn::auth {

// The only signature algorithms accepted; anything else (none, HS256, RS384, PS256, ...) is
// refused with reason bad_algorithm before a key is looked up.
enum class JwsAlg : uint8_t { kRS256, kES256 };

// One public key of an issuer (an RSA key of at least 2048 bits or an EC P-256 point), ready
// to verify signatures. Immutable and thread-safe.
class PublicKey {
 public:
  // From one JWK object's JSON text. kInvalidArgument for anything but an RSA key (kty RSA,
  // n, e) or a P-256 key (kty EC, crv P-256, x, y: 32 bytes each, on the curve); a key whose
  // `use` is not "sig" or whose `alg` is not RS256/ES256 is refused too.
  static Result<std::shared_ptr<const PublicKey>> FromJwk(std::string_view jwk_json);
  ~PublicKey();

  const std::string& kid() const { return kid_; }
  JwsAlg alg() const { return alg_; }
  // Whether `signature` (JOSE form: PKCS#1 v1.5 for RS256, r||s of 64 bytes for ES256) signs
  // `data` with SHA-256 under this key.
  bool Verify(std::string_view data, std::string_view signature) const;

 private:
  friend struct PublicKeyMaker;  // jwt.cc
  struct Key;
  PublicKey(std::string kid, JwsAlg alg, std::unique_ptr<Key> key);
  std::string kid_;
  JwsAlg alg_;
  std::unique_ptr<Key> key_;
};

// The usable keys of a JWKS document ({"keys": [...]}): keys that do not parse, have no kid or
// are not for signatures are skipped; at most `max_keys` are kept. kInvalidArgument when the
// document is not a JSON object with a "keys" array.
Result<std::vector<std::shared_ptr<const PublicKey>>> ParseJwks(std::string_view body,
                                                                size_t max_keys = 32);

// What a verified ID token says.
struct IdToken {
  std::string issuer;
  std::string subject;
  std::vector<std::string> audience;
  std::string kid;
  JwsAlg alg = JwsAlg::kRS256;
  int64_t issued_at_s = 0;
  int64_t expires_at_s = 0;
};

struct IdTokenCheck {
  std::string audience;  // must equal `aud` (a string) or one element of it (an array)
  int64_t now_s = 0;
  // Tolerated clock difference with the issuer, for exp, nbf and iat.
  int64_t leeway_s = 60;
};

// The issuer's key of this kid, nullptr when it has none (reason unknown_key). An error
// (the issuer cannot be reached) is returned as is.
using KeyLookup = std::function<Result<std::shared_ptr<const PublicKey>>(std::string_view issuer,
                                                                         std::string_view kid)>;
// Whether the server trusts `issuer` at all: an error (reason wrong_issuer) stops the
// verification before any key is looked up, so untrusted issuers are never contacted.
using IssuerCheck = std::function<Status(std::string_view issuer)>;

// Verifies a compact JWS ID token. Refusals are kUnauthenticated with code=invalid_token and a
// `reason`: malformed (over 16 KiB, not three base64url parts, JSON that is not an object or
// repeats a key, crit header), bad_algorithm (alg not RS256/ES256, or the key's type differs),
// wrong_issuer, unknown_key (no kid, or not in the issuer's keys), bad_signature, bad_claims
// (iss, sub, aud, exp or iat missing or ill-typed), wrong_audience, expired (now - leeway >=
// exp), not_yet_valid (nbf or iat after now + leeway). The signature is checked before any
// claim but iss is trusted.
Result<IdToken> VerifyIdToken(std::string_view token, const IdTokenCheck& check,
                              const IssuerCheck& trusted, const KeyLookup& keys);

// The issuer named by an ID token, unverified (for logs and error messages); "" when the
// token does not parse.
std::string UnverifiedIssuer(std::string_view token);

// GETs over HTTP(S) for IssuerKeys: the body of a 200 response. Thread-safe. Refused,
// unreachable or slow servers are kUnavailable; a body over `max_bytes` is kTooLarge; any
// status but 200 is kUnavailable naming it.
class HttpFetcher {
 public:
  virtual ~HttpFetcher() = default;
  virtual Result<std::string> Get(const std::string& url, size_t max_bytes) = 0;
};

// libcurl with the given timeouts (connect, and the whole transfer); no redirects followed;
// TLS peers verified.
std::shared_ptr<HttpFetcher> MakeCurlFetcher(int connect_timeout_ms = 2000,
                                             int total_timeout_ms = 5000);

// Whether a URL an issuer names (its jwks_uri) may be fetched: https, or http on loopback when
// the issuer itself is http on loopback.
Status ValidateJwksUri(std::string_view issuer, std::string_view jwks_uri);

struct IssuerKeysOptions {
  int64_t ttl_s = 3600;  // fetched keys are used this long, then fetched again
  // An unknown kid (a rotation at the issuer) refetches at most this often per issuer; failed
  // fetches are retried no more often either.
  int64_t min_refetch_interval_s = 30;
  size_t max_issuers = 64;  // least recently used issuers are forgotten beyond this
  size_t max_keys_per_issuer = 32;
  size_t max_response_bytes = 256 << 10;  // discovery document and JWKS, each
  std::function<int64_t()> clock;         // seconds since the epoch; default the system clock
};

// The JWKS of each issuer: `<issuer>/.well-known/openid-configuration` (whose "issuer" must be
// the issuer exactly) names `jwks_uri`. Thread-safe; fetches of one issuer are serialized, so
// concurrent callers wait for one fetch instead of each making one.
class IssuerKeys {
 public:
  IssuerKeys(IssuerKeysOptions options, std::shared_ptr<HttpFetcher> fetcher);
  ~IssuerKeys();

  // The issuer's key of `kid` (nullptr when the issuer has none, even after a refetch allowed
  // by min_refetch_interval_s). kUnavailable (code=issuer_unavailable) when the keys cannot be
  // fetched and none are cached; cached keys past their ttl are used while the issuer is down.
  Result<std::shared_ptr<const PublicKey>> Find(std::string_view issuer, std::string_view kid);
  // How many issuers are cached (for tests of the bound).
  size_t cached_issuers() const;

 private:
  struct Entry;
  Status Fetch(const std::string& issuer, Entry& e);
  int64_t Now() const;

  IssuerKeysOptions options_;
  std::shared_ptr<HttpFetcher> fetcher_;
  mutable std::mutex mu_;  // guards entries_ and tick_
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
  uint64_t tick_ = 0;  // LRU clock
};

}  // namespace tarn::auth
