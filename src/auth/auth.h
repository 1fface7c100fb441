// Bearer tokens and roles (docs/features.md V5, docs/design/serve.md "Access control").
//
// SignBearer/VerifyBearer are pure (no I/O, fuzzed by fuzz/bearer_token_fuzz.cc). The
// TokenAuthority holds the signing keys of one metastore (shared by every server on it) and
// exchanges client credentials for bearer tokens. Authorize decides what a principal may do.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/oidc.h"
#include "common/clock.h"
#include "tarn/access.h"
#include "tarn/status.h"

namespace tarn {
class Catalog;
}

namespace tarn::auth {

// Who a verified bearer token speaks for.
struct Principal {
  std::string client_id;
  std::string workspace;  // a workspace name or "*"
  Role role = Role::kReader;
  std::string pattern = "*";
  int64_t issued_at_us = 0;
  int64_t expires_at_us = 0;
  std::string token_id;  // jti
  // A job token's (IssueJobToken): the worker URL it was minted for ("aud") and the job it
  // carries ("job"); empty for a token of POST /v1/token.
  std::string audience;
  std::string job;
};

struct SigningKey {
  std::string kid;
  std::string secret;  // 32 random bytes
};

// An HS256 JWT for `p` (p.issued_at_us / p.expires_at_us are its iat / exp).
std::string SignBearer(const Principal& p, const SigningKey& key);
// The clock drift between servers a bearer token's iat is allowed (VerifyBearer's default; the
// authority's kept tokens are checked with it too).
constexpr int64_t kBearerSkewUs = 60'000'000;
// Verifies a JWT: kUnauthenticated (code=invalid_token, with a reason field: malformed,
// bad_signature, unknown_key, expired, not_yet_valid, bad_claims) for anything not a valid,
// current token signed by one of `keys` (looked up by kid; nullptr = unknown). Constant-time
// signature comparison. `skew_us` tolerates clock drift between servers for iat.
Result<Principal> VerifyBearer(std::string_view token,
                               const std::function<const SigningKey*(std::string_view)>& keys,
                               int64_t now_us, int64_t skew_us = kBearerSkewUs);

struct IssuedToken {
  std::string access_token;
  int64_t expires_in_s = 0;
  Principal principal;
  std::string federation_rule;  // the rule's id, for a federated sign-in
};

struct AuthorityOptions {
  int64_t token_ttl_s = 900;
  // How often the sets of existing unrevoked and of revoked client ids are re-read from the
  // metastore: a revocation (or a deleted row) stops tokens already issued within this bound
  // on every server. A client in neither set (created since) costs one point read, and is
  // then cached.
  int64_t revocation_refresh_s = 10;
  // Federated sign-in: tolerated clock difference with an issuer (exp, nbf, iat), the JWKS
  // cache, and how keys are fetched (nullptr: libcurl, MakeCurlFetcher()).
  int64_t id_token_leeway_s = 60;
  IssuerKeysOptions issuer_keys{};
  std::shared_ptr<HttpFetcher> fetcher{};
  // Token lifetimes, refresh intervals and the JWKS cache read this clock (nullptr: the
  // catalog's, Catalog::clock()).
  std::shared_ptr<Clock> clock = nullptr;
};

// Thread-safe.
class TokenAuthority {
 public:
  // Loads the signing keys (creating the first one when the metastore has none; concurrent
  // servers agree on one).
  static Result<std::unique_ptr<TokenAuthority>> Open(Catalog& catalog,
                                                      AuthorityOptions options = {});
  // client_credentials: kUnauthenticated (code=invalid_client) for a wrong, unknown or revoked
  // credential.
  Result<IssuedToken> Exchange(std::string_view client_id, std::string_view client_secret);
  // token-exchange (RFC 8693) of an OpenID Connect ID token (docs/design/federation.md):
  // VerifyIdToken against the keys of its issuer, which a federation rule must name, with
  // `audience` (the server's --oidc-audience); then the rule of its issuer and exact subject
  // names the client. kUnauthenticated (code=invalid_token) with the reasons of VerifyIdToken,
  // or no_mapping (no rule), client_revoked (the rule's client is revoked); kInvalidArgument
  // (code=unsupported_grant_type) when `audience` is empty (federation not enabled);
  // kUnavailable (code=issuer_unavailable) when the issuer's keys cannot be fetched.
  Result<IssuedToken> ExchangeIdToken(std::string_view id_token, std::string_view audience);
  // A bearer token from an Authorization header value "Bearer <jwt>" (scheme in any case).
  // kUnauthenticated: code=unauthenticated (empty), invalid_token (reason not_bearer for a
  // bare token or another scheme, unknown_client when the subject is no client of this
  // metastore, or a VerifyBearer reason), token_revoked.
  Result<Principal> Verify(std::string_view authorization);
  // A job token (docs/design/views.md, "Delivery"): a bearer token of `client_id` (the job's
  // fired_by) with that client's role, workspace and pattern as they are now, audience
  // `audience` (the worker URL) and the claim job = `job_id`, valid `ttl_s`. The catalog takes
  // it like any bearer token (revocation included), so the job runs with the committer's
  // rights. kPermissionDenied (code=permission_denied) when the client does not exist or is
  // revoked.
  Result<IssuedToken> IssueJobToken(std::string_view client_id, std::string_view job_id,
                                    std::string_view audience, int64_t ttl_s);
  // When the metastore holds no access token: creates an owner of "*" (from
  // TARN_BOOTSTRAP_CLIENT_ID / TARN_BOOTSTRAP_CLIENT_SECRET when set) and returns it, so the
  // caller can show the secret once. nullopt when tokens exist already.
  Result<std::optional<NewAccessToken>> EnsureBootstrapOwner();

  ~TokenAuthority();

 private:
  class Impl;
  explicit TokenAuthority(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `pattern` (glob: `*` any run, `?` one character) matches `name`.
bool GlobMatch(std::string_view pattern, std::string_view name);

// Whether `p` may act with role `needed` on `workspace` and `target`: "" (the workspace
// itself), "coll" or "coll.ds". kPermissionDenied (code=permission_denied, with fields
// needed_role, workspace, target) otherwise. A collection-level target matches when the
// pattern's collection part (before the first '.') matches it. Workspace-level writes need the
// pattern "*".
// Details (policy.cc): a pattern is a collection glob and a dataset glob ("sales" means
// "sales.*"), matched part by part, so '*' never spans the dot; `workspace` "*" (global
// operations) needs a token of "*"; writes to a collection itself need the dataset glob "*".
Status Authorize(const Principal& p, Role needed, std::string_view workspace,
                 std::string_view target);
// The same as a yes/no, for filtering lists.
bool MayAccess(const Principal& p, Role needed, std::string_view workspace,
               std::string_view target);
// Whether `p` may create the token `spec` (POST /v1/tokens): owner role for spec.workspace
// (a token of one workspace cannot grant "*"), spec.role no higher than its own, and
// spec.pattern no wider (its own collection/dataset globs are "*" or equal to the spec's).
// kPermissionDenied (code=permission_denied) otherwise.
Status AuthorizeGrant(const Principal& p, const AccessTokenSpec& spec);

}  // namespace tarn::auth
