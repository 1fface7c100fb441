// TokenAuthority: the signing keys of one metastore, client_credentials exchange, bearer
// verification with revocations, and the bootstrap owner.
#include <chrono>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "api/error_codes.h"
#include "auth/auth.h"
#include "auth/error_codes.h"
#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "common/digest.h"
#include "common/discard.h"
#include "common/random.h"
#include "metastore/metastore.h"

namespace tarn::auth {

namespace {

constexpr int64_t kMicros = 1'000'000;
constexpr size_t kKeyBytes = 32;
// An unknown kid re-reads the keys at most this often (another server may have made one).
constexpr int64_t kKeyReloadIntervalUs = kMicros;
// A failing revocation refresh keeps the last good set for this many refresh intervals.
constexpr int64_t kRevocationGraceIntervals = 6;

struct KeySet {
  std::unordered_map<std::string, SigningKey> by_kid;  // every key that may verify
  std::string signing_kid;                             // the newest unretired one
};

// Tokens this authority verified, so a client's next request skips the signature and the
// claims' JSON (about 5% of a server's CPU for a small append; bench/README.md "The server's
// own cost per append"). Keyed by the whole token and compared in constant time. An entry is
// used only while its token is current and the key that signed it is still loaded; revocation
// is checked on every request after it, as for a token verified anew. Only tokens that
// verified are kept, so a client cannot fill it with its own strings; when full it starts
// again empty.
class VerifiedTokens {
 public:
  static constexpr size_t kMaxEntries = 8192;

  std::optional<Principal> Find(std::string_view token, const KeySet& keys, int64_t now_us,
                                int64_t skew_us) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(token);
    if (it == entries_.end()) return std::nullopt;
    const Entry& e = it->second;
    if (now_us >= e.principal.expires_at_us || e.principal.issued_at_us > now_us + skew_us ||
        !keys.by_kid.count(e.kid)) {
      entries_.erase(it);
      return std::nullopt;
    }
    return e.principal;
  }

  void Keep(std::string_view token, std::string kid, const Principal& p) {
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_.insert_or_assign(std::string(token), Entry{std::move(kid), p});
  }

 private:
  struct Entry {
    std::string kid;
    Principal principal;
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const {
      return ConstantTimeEquals(a, b);
    }
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::mutex mu_;
  std::unordered_map<std::string, Entry, Hash, Equal> entries_;
};

// The client ids of the access tokens, as last read: those that exist and are not revoked,
// and the revoked ones (a revocation is never undone).
struct ClientSets {
  std::unordered_set<std::string> active;
  std::unordered_set<std::string> revoked;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Status InvalidIdToken(std::string_view reason, const std::string& detail) {
  return Status::Of(codes::kInvalidToken, "invalid ID token: " + detail)
      .WithField("reason", std::string(reason));
}

}  // namespace

class TokenAuthority::Impl {
 public:
  Impl(Catalog& catalog, AuthorityOptions options)
      : catalog_(catalog),
        options_(options),
        clock_(options_.clock ? options_.clock : catalog.shared_clock()),
        issuer_keys_(IssuerKeysOn(options_.issuer_keys, clock_),
                     options_.fetcher ? options_.fetcher : MakeCurlFetcher()) {}

  // The JWKS cache reads the authority's clock unless it was given its own.
  static IssuerKeysOptions IssuerKeysOn(IssuerKeysOptions o, const std::shared_ptr<Clock>& clock) {
    if (!o.clock) o.clock = [clock] { return clock->NowSeconds(); };
    return o;
  }

  int64_t NowMicros() const { return clock_->NowMicros(); }

  // Creates the first signing key unless one exists. The serializable transaction makes
  // concurrent creators conflict; the retried one sees the winner's key.
  Status EnsureKey() {
    TARN_ASSIGN_OR_RETURN(std::string kid, RandomBase32(16));
    TARN_ASSIGN_OR_RETURN(std::string secret, SecureRandomBytes(kKeyBytes));
    return catalog_.metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(bool any, access_store::HasUnretiredSigningKey(tx));
      if (any) return Status::OK();
      return access_store::InsertSigningKey(tx, kid, secret, NowMicros());
    });
  }

  Status LoadKeys() {
    auto set = std::make_shared<KeySet>();
    int64_t now = NowMicros();
    int64_t newest = -1;
    TARN_RETURN_NOT_OK(catalog_.metastore().RunInTransaction(
        [&](Transaction& tx) -> Status {
          set->by_kid.clear();
          newest = -1;
          TARN_ASSIGN_OR_RETURN(auto rows, access_store::LoadSigningKeys(tx));
          for (const access_store::StoredSigningKey& r : rows) {
            const std::string& kid = r.kid;
            const std::string& secret = r.secret;
            const int64_t created = r.created_at_us;
            const std::optional<int64_t>& retired = r.retired_at_us;
            // A retired key still verifies the tokens it signed until they expire.
            if (retired && *retired < now - options_.token_ttl_s * kMicros) continue;
            set->by_kid[std::string(kid)] = SigningKey{std::string(kid), std::string(secret)};
            if (!retired &&
                (created > newest || (created == newest && std::string(kid) > set->signing_kid))) {
              newest = created;
              set->signing_kid = std::string(kid);
            }
          }
          return Status::OK();
        },
        TxMode::kReadOnly));
    if (set->signing_kid.empty()) return Status::Internal("no signing key in the metastore");
    std::lock_guard<std::mutex> lock(mu_);
    keys_ = std::move(set);
    keys_loaded_at_us_ = now;
    return Status::OK();
  }

  std::shared_ptr<const KeySet> Keys() {
    std::lock_guard<std::mutex> lock(mu_);
    return keys_;
  }

  // Re-reads the keys unless that happened less than a second ago; returns the current set.
  std::shared_ptr<const KeySet> ReloadKeysRateLimited() {
    std::lock_guard<std::mutex> reload(reload_mu_);
    int64_t loaded_at;
    {
      std::lock_guard<std::mutex> lock(mu_);
      loaded_at = keys_loaded_at_us_;
    }
    if (NowMicros() - loaded_at >= kKeyReloadIntervalUs) {
      // A failed reload keeps the old keys; the token is then refused as unknown_key.
      DiscardError(LoadKeys(), "reloading the signing keys");
    }
    return Keys();
  }

  Status LoadClients() {
    auto set = std::make_shared<ClientSets>();
    TARN_RETURN_NOT_OK(catalog_.metastore().RunInTransaction(
        [&](Transaction& tx) -> Status {
          *set = ClientSets();
          return access_store::ForEachClient(tx, [&](std::string_view id, bool revoked) -> Status {
            (revoked ? set->revoked : set->active).insert(std::string(id));
            return Status::OK();
          });
        },
        TxMode::kReadOnly));
    std::lock_guard<std::mutex> lock(mu_);
    clients_ = std::move(set);
    clients_loaded_at_us_ = NowMicros();
    return Status::OK();
  }

  // The client ids, re-read when older than the refresh interval.
  Result<std::shared_ptr<const ClientSets>> Clients() {
    int64_t interval = std::max<int64_t>(options_.revocation_refresh_s, 0) * kMicros;
    auto stale = [&] {
      std::lock_guard<std::mutex> lock(mu_);
      return NowMicros() - clients_loaded_at_us_ >= interval;
    };
    if (stale()) {
      std::lock_guard<std::mutex> refresh(revocation_mu_);
      if (stale()) {
        Status st = LoadClients();
        if (!st.ok()) {
          std::lock_guard<std::mutex> lock(mu_);
          int64_t grace = std::max<int64_t>(interval, kMicros) * kRevocationGraceIntervals;
          if (NowMicros() - clients_loaded_at_us_ > grace) {
            return Status::Unavailable("cannot check token revocations: " + st.message());
          }
        }
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    return std::shared_ptr<const ClientSets>(clients_);
  }

  static Status Revoked(const std::string& client_id) {
    return Status::Of(codes::kTokenRevoked, "access token '" + client_id + "' was revoked");
  }

  // Adds `client_id` to the cached set (copy on write: readers hold the old one).
  void MarkActive(const std::string& client_id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (clients_ && clients_->active.count(client_id)) return;
    auto set = clients_ ? std::make_shared<ClientSets>(*clients_) : std::make_shared<ClientSets>();
    set->active.insert(client_id);
    clients_ = std::move(set);
  }

  // A client the cached sets do not know: created since the last refresh (then it is added),
  // revoked since, or not there at all. One point read; only tokens with a valid signature of
  // a client that is neither active nor revoked when last read get here.
  Status CheckUncachedClient(const std::string& client_id) {
    std::optional<bool> revoked;
    TARN_RETURN_NOT_OK(catalog_.metastore().RunInTransaction(
        [&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(revoked, access_store::ClientRevoked(tx, client_id));
          return Status::OK();
        },
        TxMode::kReadOnly));
    if (!revoked) {
      return Status::Of(codes::kInvalidToken, "the token's client does not exist")
          .WithField("reason", "unknown_client");
    }
    if (*revoked) return Revoked(client_id);
    MarkActive(client_id);
    return Status::OK();
  }

  Result<IssuedToken> Exchange(std::string_view client_id, std::string_view client_secret) {
    TARN_ASSIGN_OR_RETURN(AccessTokenInfo info,
                          catalog_.VerifyClientSecret(client_id, client_secret));
    return Issue(info);
  }

  Result<IssuedToken> ExchangeIdToken(std::string_view id_token, std::string_view audience) {
    if (audience.empty()) {
      return Status::Of(
                 codes::kUnsupportedGrantType,
                 "federated sign-in is not enabled on this server (tarn serve --oidc-audience)")
          .WithField("field", "grant_type");
    }
    IdTokenCheck check;
    check.audience = std::string(audience);
    check.now_s = NowMicros() / kMicros;
    check.leeway_s = std::max<int64_t>(options_.id_token_leeway_s, 0);
    // Only issuers an owner named in a rule are ever contacted.
    auto trusted = [&](std::string_view issuer) -> Status {
      TARN_ASSIGN_OR_RETURN(bool known, catalog_.HasFederationIssuer(issuer));
      if (!known) return InvalidIdToken("wrong_issuer", "no federation rule trusts its issuer");
      return Status::OK();
    };
    auto keys = [&](std::string_view issuer, std::string_view kid) {
      return issuer_keys_.Find(issuer, kid);
    };
    TARN_ASSIGN_OR_RETURN(IdToken id, VerifyIdToken(id_token, check, trusted, keys));
    TARN_ASSIGN_OR_RETURN(auto rule, catalog_.FindFederationRule(id.issuer, id.subject));
    if (!rule) {
      return InvalidIdToken("no_mapping", "no federation rule maps its subject to a client");
    }
    auto info = catalog_.GetAccessToken(rule->client_id);
    if (!info.ok() && info.status().kind() == ErrorKind::kNotFound) {
      return InvalidIdToken("client_revoked", "the rule's client does not exist");
    }
    TARN_RETURN_NOT_OK(info.status());
    if (info->revoked_at_us) {
      return InvalidIdToken("client_revoked", "the rule's client was revoked");
    }
    TARN_RETURN_NOT_OK(catalog_.TouchAccessToken(info->client_id));
    TARN_ASSIGN_OR_RETURN(IssuedToken out, Issue(*info));
    out.federation_rule = rule->id;
    return out;
  }

  // A bearer token of `token_ttl_s` for the client `info`.
  Result<IssuedToken> Issue(const AccessTokenInfo& info) {
    std::shared_ptr<const KeySet> keys = Keys();
    const SigningKey& key = keys->by_kid.at(keys->signing_kid);
    IssuedToken out;
    Principal& p = out.principal;
    p.client_id = info.client_id;
    p.workspace = info.workspace;
    p.role = info.role;
    p.pattern = info.pattern;
    p.issued_at_us = NowMicros() / kMicros * kMicros;
    int64_t ttl = std::max<int64_t>(options_.token_ttl_s, 1);
    p.expires_at_us = p.issued_at_us + ttl * kMicros;
    TARN_ASSIGN_OR_RETURN(p.token_id, RandomBase32(16));
    out.access_token = SignBearer(p, key);
    out.expires_in_s = ttl;
    MarkActive(p.client_id);
    return out;
  }

  Result<IssuedToken> IssueJobToken(std::string_view client_id, std::string_view job_id,
                                    std::string_view audience, int64_t ttl_s) {
    auto info = catalog_.GetAccessToken(client_id);
    if (!info.ok() && info.status().kind() == ErrorKind::kNotFound) {
      return Status::Of(codes::kPermissionDenied,
                        "'" + std::string(client_id.substr(0, 200)) +
                            "', who committed, is no client of this catalog; the job runs with "
                            "the committer's rights");
    }
    TARN_RETURN_NOT_OK(info.status());
    if (info->revoked_at_us) {
      return Status::Of(codes::kPermissionDenied,
                        "the client '" + info->client_id + "', who committed, is revoked");
    }
    std::shared_ptr<const KeySet> keys = Keys();
    const SigningKey& key = keys->by_kid.at(keys->signing_kid);
    IssuedToken out;
    Principal& p = out.principal;
    p.client_id = info->client_id;
    p.workspace = info->workspace;
    p.role = info->role;
    p.pattern = info->pattern;
    p.issued_at_us = NowMicros() / kMicros * kMicros;
    int64_t ttl = std::max<int64_t>(ttl_s, 1);
    p.expires_at_us = p.issued_at_us + ttl * kMicros;
    TARN_ASSIGN_OR_RETURN(p.token_id, RandomBase32(16));
    p.audience = std::string(audience);
    p.job = std::string(job_id);
    out.access_token = SignBearer(p, key);
    out.expires_in_s = ttl;
    return out;
  }

  Result<Principal> Verify(std::string_view authorization) {
    std::string_view token = Trim(authorization);
    if (token.empty()) {
      return Status::Of(codes::kUnauthenticated, "no bearer token");
    }
    // RFC 6750: "Bearer" (any case), whitespace, the token. A bare token or another scheme is
    // refused, so a credential pasted into the wrong header is never taken for a bearer.
    static constexpr std::string_view kScheme = "bearer";
    bool scheme = token.size() > kScheme.size() &&
                  (token[kScheme.size()] == ' ' || token[kScheme.size()] == '\t');
    for (size_t i = 0; scheme && i < kScheme.size(); ++i) {
      char c = token[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != kScheme[i]) scheme = false;
    }
    if (!scheme) {
      return Status::Of(codes::kInvalidToken, "the Authorization header must be 'Bearer <token>'")
          .WithField("reason", "not_bearer");
    }
    token = Trim(token.substr(kScheme.size()));
    if (token.empty()) {
      return Status::Of(codes::kUnauthenticated, "no bearer token");
    }
    std::shared_ptr<const KeySet> held = Keys();
    const int64_t now = NowMicros();
    std::optional<Principal> found = verified_.Find(token, *held, now, kBearerSkewUs);
    if (!found) {
      std::string signed_by;
      auto lookup = [&](std::string_view kid) -> const SigningKey* {
        signed_by = std::string(kid);
        auto it = held->by_kid.find(signed_by);
        if (it != held->by_kid.end()) return &it->second;
        held = ReloadKeysRateLimited();
        it = held->by_kid.find(signed_by);
        return it == held->by_kid.end() ? nullptr : &it->second;
      };
      TARN_ASSIGN_OR_RETURN(Principal verified, VerifyBearer(token, lookup, now, kBearerSkewUs));
      verified_.Keep(token, std::move(signed_by), verified);
      found = std::move(verified);
    }
    Principal& p = *found;
    TARN_ASSIGN_OR_RETURN(auto clients, Clients());
    if (clients->active.count(p.client_id)) return p;
    if (clients->revoked.count(p.client_id)) return Revoked(p.client_id);
    TARN_RETURN_NOT_OK(CheckUncachedClient(p.client_id));
    return p;
  }

  Result<std::optional<NewAccessToken>> EnsureBootstrapOwner() {
    TARN_ASSIGN_OR_RETURN(bool any, catalog_.HasAccessTokens());
    if (any) return std::optional<NewAccessToken>();
    AccessTokenSpec spec;
    spec.workspace = "*";
    spec.role = Role::kOwner;
    spec.pattern = "*";
    spec.description = "bootstrap owner";
    const char* id = std::getenv("TARN_BOOTSTRAP_CLIENT_ID");
    const char* secret = std::getenv("TARN_BOOTSTRAP_CLIENT_SECRET");
    bool has_id = id && *id, has_secret = secret && *secret;
    if (has_id != has_secret) {
      return Status::InvalidArgument(
          "set both TARN_BOOTSTRAP_CLIENT_ID and TARN_BOOTSTRAP_CLIENT_SECRET, or neither");
    }
    if (has_id) {
      spec.client_id = id;
      spec.client_secret = secret;
    }
    auto created = catalog_.CreateFirstAccessToken(spec, "bootstrap");
    if (!created.ok()) return created.status().WithContext("creating the bootstrap owner");
    return std::move(created).value();
  }

 private:
  Catalog& catalog_;
  AuthorityOptions options_;
  std::shared_ptr<Clock> clock_;
  std::mutex mu_;  // guards the four fields below
  std::shared_ptr<const KeySet> keys_;
  int64_t keys_loaded_at_us_ = 0;
  std::shared_ptr<const ClientSets> clients_;
  int64_t clients_loaded_at_us_ = 0;
  std::mutex reload_mu_;      // one key reload at a time
  std::mutex revocation_mu_;  // one revocation refresh at a time
  VerifiedTokens verified_;
  IssuerKeys issuer_keys_;
};

TokenAuthority::TokenAuthority(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TokenAuthority::~TokenAuthority() = default;

Result<std::unique_ptr<TokenAuthority>> TokenAuthority::Open(Catalog& catalog,
                                                             AuthorityOptions options) {
  if (options.token_ttl_s <= 0) {
    return Status::InvalidArgument("token ttl must be positive").WithField("field", "token_ttl");
  }
  auto impl = std::make_unique<Impl>(catalog, options);
  TARN_RETURN_NOT_OK(impl->EnsureKey().WithContext("creating the signing key"));
  TARN_RETURN_NOT_OK(impl->LoadKeys().WithContext("loading the signing keys"));
  TARN_RETURN_NOT_OK(impl->LoadClients().WithContext("loading the access tokens"));
  return std::unique_ptr<TokenAuthority>(new TokenAuthority(std::move(impl)));
}

Result<IssuedToken> TokenAuthority::Exchange(std::string_view client_id,
                                             std::string_view client_secret) {
  return impl_->Exchange(client_id, client_secret);
}

Result<IssuedToken> TokenAuthority::ExchangeIdToken(std::string_view id_token,
                                                    std::string_view audience) {
  return impl_->ExchangeIdToken(id_token, audience);
}

Result<IssuedToken> TokenAuthority::IssueJobToken(std::string_view client_id,
                                                  std::string_view job_id,
                                                  std::string_view audience, int64_t ttl_s) {
  return impl_->IssueJobToken(client_id, job_id, audience, ttl_s);
}

Result<Principal> TokenAuthority::Verify(std::string_view authorization) {
  return impl_->Verify(authorization);
}

Result<std::optional<NewAccessToken>> TokenAuthority::EnsureBootstrapOwner() {
  return impl_->EnsureBootstrapOwner();
}

}  // namespace tarn::auth
