// IssuerKeys: each trusted issuer's discovery document and JWKS, fetched over libcurl
// (objectstore/s3/http_client.h) and cached with a TTL, a per-issuer refetch limit and a bound
// on the number of issuers.
//
// Why the limits: keys are fetched only for issuers that a federation rule names (the caller
// checks that first), an unknown kid refetches at most once per min_refetch_interval_s per
// issuer (a rotation is picked up; a flood of made-up kids costs the issuer one request per
// interval), and a fetch that fails is not retried sooner either.
#include "auth/oidc.h"

#include <chrono>

#include "auth/auth_internal.h"
#include "auth/error_codes.h"
#include "common/clock.h"
#include "objectstore/s3/http_client.h"

namespace tarn::auth {

namespace {

Status Unavailable(std::string_view issuer, const std::string& why) {
  return Status::Of(
      codes::kIssuerUnavailable,
      "cannot get the signing keys of issuer '" + std::string(issuer.substr(0, 200)) + "': " + why);
}

bool LoopbackHttp(std::string_view url) {
  for (std::string_view prefix : {"http://127.0.0.1", "http://localhost", "http://[::1]"}) {
    if (url.rfind(prefix, 0) == 0) {
      char next = url.size() > prefix.size() ? url[prefix.size()] : '/';
      if (next == '/' || next == ':') return true;
    }
  }
  return false;
}

class CurlFetcher final : public HttpFetcher {
 public:
  CurlFetcher(int connect_timeout_ms, int total_timeout_ms)
      : client_(s3::HttpClientOptions{connect_timeout_ms, std::max(1, total_timeout_ms / 1000), 4}),
        total_timeout_ms_(total_timeout_ms) {}

  Result<std::string> Get(const std::string& url, size_t max_bytes) override {
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
      return Status::InvalidArgument("only http(s) URLs are fetched");
    }
    s3::HttpRequest req;
    req.method = "GET";
    req.url = url;
    req.headers = {{"Accept", "application/json"}};
    req.max_body = max_bytes;
    req.timeout_ms = total_timeout_ms_;
    TARN_ASSIGN_OR_RETURN(s3::HttpResponse resp, client_.Send(req));
    if (resp.status != 200) {
      return Status::Unavailable("GET " + url + " answered " + std::to_string(resp.status));
    }
    return std::move(resp.body);
  }

 private:
  s3::HttpClient client_;
  int total_timeout_ms_;
};

}  // namespace

std::shared_ptr<HttpFetcher> MakeCurlFetcher(int connect_timeout_ms, int total_timeout_ms) {
  return std::make_shared<CurlFetcher>(connect_timeout_ms, total_timeout_ms);
}

Status ValidateJwksUri(std::string_view issuer, std::string_view jwks_uri) {
  auto bad = [&](std::string_view why) {
    return Status::Of(codes::kBadDiscovery, "jwks_uri '" + std::string(jwks_uri.substr(0, 200)) +
                                                "' " + std::string(why));
  };
  if (jwks_uri.size() > 2048) return bad("is too long");
  for (char c : jwks_uri) {
    if (c <= ' ' || c >= 0x7f) return bad("is not a printable URL");
  }
  if (jwks_uri.rfind("https://", 0) == 0 && jwks_uri.size() > 8) return Status::OK();
  if (LoopbackHttp(jwks_uri) && LoopbackHttp(issuer)) return Status::OK();
  return bad("must be https (http only for an issuer on loopback)");
}

struct IssuerKeys::Entry {
  std::mutex fetch_mu;  // one fetch of this issuer at a time; guards the fields below
  std::vector<std::shared_ptr<const PublicKey>> keys;
  bool have_keys = false;
  int64_t fetched_at_s = 0;    // when `keys` were fetched
  int64_t attempted_at_s = 0;  // the last fetch, good or bad
  bool attempted = false;
  Status last_error;
  uint64_t used = 0;  // LRU tick, under IssuerKeys::mu_
};

IssuerKeys::IssuerKeys(IssuerKeysOptions options, std::shared_ptr<HttpFetcher> fetcher)
    : options_(std::move(options)), fetcher_(std::move(fetcher)) {}

IssuerKeys::~IssuerKeys() = default;

int64_t IssuerKeys::Now() const {
  if (options_.clock) return options_.clock();
  return Clock::Real()->NowSeconds();
}

size_t IssuerKeys::cached_issuers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

Status IssuerKeys::Fetch(const std::string& issuer, Entry& e) {
  e.attempted = true;
  e.attempted_at_s = Now();
  std::string base = issuer;
  if (!base.empty() && base.back() == '/') base.pop_back();
  auto fail = [&](const std::string& why) {
    e.last_error = Unavailable(issuer, why);
    return e.last_error;
  };
  auto doc_text =
      fetcher_->Get(base + "/.well-known/openid-configuration", options_.max_response_bytes);
  if (!doc_text.ok()) return fail("discovery document: " + doc_text.status().message());
  auto doc = internal::ParseStrictJsonObject(*doc_text);
  if (!doc) return fail("the discovery document is not a JSON object");
  auto iss = doc->find("issuer");
  if (iss == doc->end() || !iss->is_string() || iss->get<std::string>() != issuer) {
    // OpenID Connect Discovery 1.0 section 4.3: the document must name the issuer exactly.
    return fail("the discovery document names another issuer");
  }
  auto uri = doc->find("jwks_uri");
  if (uri == doc->end() || !uri->is_string()) return fail("the discovery document has no jwks_uri");
  std::string jwks_uri = uri->get<std::string>();
  Status ok_uri = ValidateJwksUri(issuer, jwks_uri);
  if (!ok_uri.ok()) return fail(ok_uri.message());
  auto jwks_text = fetcher_->Get(jwks_uri, options_.max_response_bytes);
  if (!jwks_text.ok()) return fail("JWKS: " + jwks_text.status().message());
  auto keys = ParseJwks(*jwks_text, options_.max_keys_per_issuer);
  if (!keys.ok()) return fail(keys.status().message());
  e.keys = std::move(*keys);
  e.have_keys = true;
  e.fetched_at_s = e.attempted_at_s;
  e.last_error = Status::OK();
  return Status::OK();
}

Result<std::shared_ptr<const PublicKey>> IssuerKeys::Find(std::string_view issuer_view,
                                                          std::string_view kid) {
  std::string issuer(issuer_view);
  std::shared_ptr<Entry> e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(issuer);
    if (it == entries_.end()) {
      while (entries_.size() >= std::max<size_t>(options_.max_issuers, 1)) {
        auto oldest = entries_.begin();
        for (auto i = entries_.begin(); i != entries_.end(); ++i) {
          if (i->second->used < oldest->second->used) oldest = i;
        }
        entries_.erase(oldest);
      }
      it = entries_.emplace(issuer, std::make_shared<Entry>()).first;
    }
    e = it->second;
    e->used = ++tick_;
  }
  std::lock_guard<std::mutex> fetch(e->fetch_mu);
  auto find = [&]() -> std::shared_ptr<const PublicKey> {
    for (const auto& k : e->keys) {
      if (k->kid() == kid) return k;
    }
    return nullptr;
  };
  int64_t now = Now();
  bool fresh = e->have_keys && now - e->fetched_at_s < options_.ttl_s;
  bool may_fetch = !e->attempted || now - e->attempted_at_s >= options_.min_refetch_interval_s;
  if (fresh) {
    if (auto k = find()) return k;
    if (!may_fetch) return std::shared_ptr<const PublicKey>();
  } else if (!may_fetch) {
    // Stale (or never fetched) and fetched too recently to try again: what is cached serves.
    if (e->have_keys) return find();
    return e->last_error.ok() ? Unavailable(issuer, "no keys") : e->last_error;
  }
  Status st = Fetch(issuer, *e);
  if (!st.ok() && !e->have_keys) return st;
  // A failed refetch keeps the old keys: an issuer outage does not stop sign-ins at once.
  return find();
}

}  // namespace tarn::auth
