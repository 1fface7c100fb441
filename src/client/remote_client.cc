#include "client/remote_client.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <mutex>

#include "api/error_codes.h"
#include "api/wire.h"
#include "client/error_codes.h"
#include "client/id_token_source.h"
#include "sdk/error_codes.h"

namespace tarn::client {

using api::Json;

// ---- URLs ----

bool IsRemoteTarget(std::string_view target) {
  auto starts = [&](std::string_view prefix) {
    if (target.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(target[i])) != prefix[i]) return false;
    }
    return true;
  };
  return starts("http://") || starts("https://");
}

Status BadResponse(std::string_view what, const Status& decode_error) {
  Status st(ErrorKind::kCorruption,
            "bad " + std::string(what) + " from the server: " + decode_error.message());
  for (const auto& [k, val] : decode_error.fields()) {
    st = std::move(st).WithField(k == "code" ? "decode_error" : k, val);
  }
  return std::move(st).WithCode(codes::kBadResponse);
}

Result<ServerUrl> ParseServerUrl(std::string_view url) {
  auto bad = [&](std::string_view why) {
    return Status::Of(codes::kInvalidUrl, "invalid server URL '" + std::string(url.substr(0, 200)) +
                                              "': " + std::string(why));
  };
  ServerUrl out;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return bad("expected http:// or https://");
  for (char c : url.substr(0, sep)) {
    out.scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (out.scheme != "http" && out.scheme != "https") return bad("expected http:// or https://");
  std::string_view rest = url.substr(sep + 3);
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return bad("a query or fragment is not allowed");
  }
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  if (authority.find('@') != std::string_view::npos) {
    return bad("user info is not allowed (pass credentials as options)");
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unterminated IPv6 address");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("unexpected text after the IPv6 address");
      port_text = after.substr(1);
      if (port_text.empty()) return bad("empty port");
    }
  } else {
    size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return bad("empty port");
    }
  }
  if (out.host.empty()) return bad("no host");
  for (char c : out.host) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == '[' || c == ']') {
      return bad("invalid host");
    }
  }
  out.port = out.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    int port = 0;
    auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || p != port_text.data() + port_text.size() || port < 1 || port > 65535) {
      return bad("invalid port '" + std::string(port_text) + "'");
    }
    out.port = port;
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  out.base_path = std::string(path);
  return out;
}

std::string ServerUrl::Origin() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return scheme + "://" + h + ":" + std::to_string(port);
}

std::string ServerUrl::ToString() const { return Origin() + base_path; }

std::string QueryString(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [k, v] : params) {
    out += out.empty() ? '?' : '&';
    out += PercentEncode(k) + "=" + PercentEncode(v);
  }
  return out;
}

// ---- transport ----

namespace {

constexpr size_t kMaxIdleConnections = 4;
constexpr size_t kMaxErrorBodyBytes = 1 << 20;
constexpr char kJsonType[] = "application/json";
constexpr char kFramesType[] = "application/vnd.tarn.frames";

struct HttpResponse {
  int status = 0;
  std::string body;
};

bool Is2xx(int status) { return status >= 200 && status < 300; }

// Whether a 401 body says the bearer token itself was refused (worth one refresh).
bool IsInvalidToken(const HttpResponse& r) {
  if (r.status != 401) return false;
  Status st = api::StatusFromErrorBody(r.status, r.body);
  for (const auto& [k, v] : st.fields()) {
    if (k == "code") return v == codes::kInvalidToken.name;
  }
  return false;
}

void SetTimeout(double seconds, const std::function<void(time_t, time_t)>& set) {
  if (seconds <= 0) seconds = 1e6;
  auto sec = static_cast<time_t>(seconds);
  auto usec = static_cast<time_t>((seconds - static_cast<double>(sec)) * 1e6);
  set(sec, usec);
}

}  // namespace

class RemoteClient::Transport {
 public:
  Transport(ServerUrl url, ClientOptions options, std::shared_ptr<Clock> clock)
      : url_(std::move(url)), options_(options) {
    TokenCache::Clock now = [clock = std::move(clock)] { return clock->NowMicros(); };
    if (!options_.client_id.empty() && !options_.client_secret.empty()) {
      tokens_ = std::make_unique<TokenCache>([this] { return FetchToken(); }, now);
    } else if (options_.token.empty() && options_.federated_sign_in) {
      id_tokens_ = IdTokenSourceFromEnvironment();
      if (id_tokens_) {
        tokens_ = std::make_unique<TokenCache>([this] { return FetchFederated(); }, now);
      }
    }
  }

  const ServerUrl& url() const { return url_; }

  // A JSON request; `body` nullptr = none. Retried once on a refused bearer token, and once on a
  // broken keep-alive connection when `idempotent`.
  Result<HttpResponse> Send(const char* method, const std::string& path, const Json* body,
                            bool idempotent) {
    httplib::Request req;
    req.method = method;
    req.path = url_.base_path + path;
    if (body != nullptr) {
      req.body = api::Dump(*body);
      req.set_header("Content-Type", kJsonType);
    }
    return Execute(req, idempotent, nullptr);
  }

  // The same with the body as JSON text.
  Result<HttpResponse> SendText(const char* method, const std::string& path,
                                const std::string* body, bool idempotent) {
    httplib::Request req;
    req.method = method;
    req.path = url_.base_path + path;
    if (body != nullptr) {
      req.body = *body;
      req.set_header("Content-Type", kJsonType);
    }
    return Execute(req, idempotent, nullptr);
  }

  // A JSON request whose 2xx body is JSON, returned parsed (an empty body reads as {}).
  Result<Json> Call(const char* method, const std::string& path, const Json* body,
                    bool idempotent) {
    TARN_ASSIGN_OR_RETURN(HttpResponse r, Send(method, path, body, idempotent));
    if (!Is2xx(r.status)) return api::StatusFromErrorBody(r.status, r.body);
    if (r.body.empty()) return Json::object();
    Json j = Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return Status::Of(codes::kBadResponse,
                        std::string(method) + " " + path + ": the server's response is not JSON");
    }
    return j;
  }

  // A GET whose 2xx body is consumed chunk by chunk by `on_chunk` (an error from it ends the
  // request and is returned). Error bodies are collected and decoded instead.
  Status Stream(const std::string& path, const std::function<Status(std::string_view)>& on_chunk) {
    httplib::Request req;
    req.method = "GET";
    req.path = url_.base_path + path;
    StreamState state;
    state.on_chunk = &on_chunk;
    TARN_ASSIGN_OR_RETURN(HttpResponse r, Execute(req, /*idempotent=*/true, &state));
    if (!Is2xx(r.status)) return api::StatusFromErrorBody(r.status, r.body);
    return Status::OK();
  }

  // POST of a body held in memory, sent with its length (the server reads a small one whole).
  Result<HttpResponse> PostBody(const std::string& path, const char* content_type, std::string body,
                                bool idempotent) {
    httplib::Request req;
    req.method = "POST";
    req.path = url_.base_path + path;
    req.body = std::move(body);
    req.set_header("Content-Type", content_type);
    return Execute(req, idempotent, nullptr);
  }

  // POST of a chunked body pulled from `provider` (returns false to abort; `started` tells
  // whether it has consumed any input, after which the request is never repeated).
  Result<HttpResponse> PostChunked(const std::string& path, const char* content_type,
                                   const httplib::ContentProviderWithoutLength& provider,
                                   const bool* started) {
    for (int attempt = 0;; ++attempt) {
      TARN_ASSIGN_OR_RETURN(std::string bearer, Bearer());
      httplib::Headers headers;
      if (!bearer.empty()) headers.emplace("Authorization", "Bearer " + bearer);
      auto conn = Acquire();
      auto res = conn->Post(url_.base_path + path, headers, provider, content_type);
      if (!res) {
        if (res.error() != httplib::Error::Canceled && attempt == 0 && !*started) continue;
        return ConnectionError(res.error(), "POST", path);
      }
      HttpResponse out{res->status, std::move(res->body)};
      Release(std::move(conn));
      if (attempt == 0 && !*started && tokens_ && IsInvalidToken(out)) {
        tokens_->Invalidate(bearer);
        continue;
      }
      return out;
    }
  }

  // A request with a body pulled from `read` (see RemoteClient::SendBody).
  Result<HttpResponse> SendBody(const std::string& method, const std::string& path,
                                const std::string& content_type, int64_t length,
                                const RemoteClient::BodyReader& read,
                                const std::function<Status()>& rewind) {
    constexpr size_t kChunkBytes = 1 << 20;
    std::string buf(kChunkBytes, '\0');
    for (int attempt = 0;; ++attempt) {
      TARN_ASSIGN_OR_RETURN(std::string bearer, Bearer());
      httplib::Headers headers;
      if (!bearer.empty()) headers.emplace("Authorization", "Bearer " + bearer);
      bool started = false;
      Status source_error;
      // Pulls up to `want` bytes into buf; false (with source_error) when the source failed.
      auto pull = [&](size_t want, size_t* got) -> bool {
        started = true;
        Result<size_t> n = read(buf.data(), std::min(want, buf.size()));
        if (!n.ok()) {
          source_error = n.status();
          return false;
        }
        *got = *n;
        return true;
      };
      auto conn = Acquire();
      httplib::Request req;
      req.method = method;
      req.path = url_.base_path + path;
      req.headers = headers;
      httplib::Result res = [&] {
        if (length >= 0) {
          httplib::ContentProvider provider = [&](size_t, size_t left, httplib::DataSink& sink) {
            size_t got = 0;
            if (!pull(left, &got)) return false;
            if (got == 0) {
              source_error =
                  Status::Of(codes::kTruncatedBody, "the body ended " + std::to_string(left) +
                                                        " bytes before its declared length");
              return false;
            }
            return sink.write(buf.data(), got);
          };
          return method == "PUT" ? conn->Put(req.path, headers, static_cast<size_t>(length),
                                             provider, content_type)
                                 : conn->Post(req.path, headers, static_cast<size_t>(length),
                                              provider, content_type);
        }
        httplib::ContentProviderWithoutLength provider = [&](size_t, httplib::DataSink& sink) {
          size_t got = 0;
          if (!pull(buf.size(), &got)) return false;
          if (got == 0) {
            sink.done();
            return true;
          }
          return sink.write(buf.data(), got);
        };
        return method == "PUT" ? conn->Put(req.path, headers, provider, content_type)
                               : conn->Post(req.path, headers, provider, content_type);
      }();
      if (!source_error.ok()) return source_error;
      if (!res) {
        if (res.error() != httplib::Error::Canceled && attempt == 0 && !started) continue;
        return ConnectionError(res.error(), method, path);
      }
      HttpResponse out{res->status, std::move(res->body)};
      Release(std::move(conn));
      if (attempt == 0 && tokens_ && IsInvalidToken(out) && (!started || rewind)) {
        tokens_->Invalidate(bearer);
        if (started) TARN_RETURN_NOT_OK(rewind());
        continue;
      }
      return out;
    }
  }

  Status ConnectionError(httplib::Error e, std::string_view method, std::string_view path) {
    if (e == httplib::Error::Canceled) {
      return Status::Cancelled(std::string(method) + " " + std::string(path) + " was cancelled");
    }
    return Status::Of(codes::kServerUnreachable, "cannot reach the tarn server at " +
                                                     url_.ToString() + " (" + std::string(method) +
                                                     " " + std::string(path) +
                                                     "): " + httplib::to_string(e))
        .WithField("url", url_.ToString());
  }

  Result<std::string> Bearer() {
    if (tokens_) return tokens_->Get();
    return options_.token;
  }

 private:
  struct StreamState {
    const std::function<Status(std::string_view)>* on_chunk = nullptr;
    int status = 0;
    bool delivered = false;  // a 2xx chunk went to on_chunk: never repeat the request
    Status error;            // from on_chunk
    std::string error_body;  // a non-2xx body
  };

  Result<HttpResponse> Execute(httplib::Request& req, bool idempotent, StreamState* stream) {
    for (int attempt = 0;; ++attempt) {
      TARN_ASSIGN_OR_RETURN(std::string bearer, Bearer());
      req.headers.erase("Authorization");  // set_header adds; a retry replaces
      if (!bearer.empty()) req.set_header("Authorization", "Bearer " + bearer);
      if (stream != nullptr) {
        stream->error_body.clear();
        req.response_handler = [stream](const httplib::Response& r) {
          stream->status = r.status;
          return true;
        };
        req.content_receiver = [stream](const char* data, size_t n, uint64_t, uint64_t) {
          if (!Is2xx(stream->status)) {
            size_t room =
                kMaxErrorBodyBytes - std::min(kMaxErrorBodyBytes, stream->error_body.size());
            stream->error_body.append(data, std::min(n, room));
            return true;
          }
          stream->delivered = true;
          stream->error = (*stream->on_chunk)(std::string_view(data, n));
          return stream->error.ok();
        };
      }
      auto conn = Acquire();
      auto res = conn->send(req);
      if (!res) {
        if (stream != nullptr && !stream->error.ok()) return stream->error;
        if (stream != nullptr && stream->delivered) {
          return Status::Of(codes::kTruncatedStream,
                            "the response stream of " + req.method + " " + req.path +
                                " was cut: " + httplib::to_string(res.error()));
        }
        bool replayable = idempotent && (stream == nullptr || !stream->delivered);
        if (replayable && attempt == 0) continue;
        return ConnectionError(res.error(), req.method, req.path);
      }
      HttpResponse out{res->status, stream != nullptr && !Is2xx(res->status)
                                        ? std::move(stream->error_body)
                                        : std::move(res->body)};
      Release(std::move(conn));
      if (attempt == 0 && tokens_ && IsInvalidToken(out) &&
          (stream == nullptr || !stream->delivered)) {
        tokens_->Invalidate(bearer);
        continue;
      }
      return out;
    }
  }

  Result<BearerToken> FetchToken() {
    return PostTokenForm(
        "grant_type=client_credentials&client_id=" + PercentEncode(options_.client_id) +
        "&client_secret=" + PercentEncode(options_.client_secret));
  }

  // RFC 8693 token exchange of an ID token from the environment (a fresh one each time).
  Result<BearerToken> FetchFederated() {
    std::string audience = options_.oidc_audience.empty() ? "tarn" : options_.oidc_audience;
    auto id_token = id_tokens_->Fetch(audience);
    if (!id_token.ok()) {
      return id_token.status().WithContext("federated sign-in (" + id_tokens_->name() + ")");
    }
    auto t = PostTokenForm(
        "grant_type=" + PercentEncode("urn:ietf:params:oauth:grant-type:token-exchange") +
        "&subject_token_type=" + PercentEncode("urn:ietf:params:oauth:token-type:id_token") +
        "&subject_token=" + PercentEncode(*id_token));
    if (!t.ok()) return t.status().WithContext("federated sign-in (" + id_tokens_->name() + ")");
    return t;
  }

  Result<BearerToken> PostTokenForm(std::string form) {
    httplib::Request req;
    req.method = "POST";
    req.path = url_.base_path + "/v1/token";
    req.body = std::move(form);
    req.set_header("Content-Type", "application/x-www-form-urlencoded");
    std::optional<httplib::Response> r;
    for (int attempt = 0; !r; ++attempt) {
      auto conn = Acquire();
      auto res = conn->send(req);
      if (!res) {
        if (attempt == 0) continue;  // a keep-alive connection the server had closed
        return ConnectionError(res.error(), "POST", "/v1/token");
      }
      r = std::move(*res);
      Release(std::move(conn));
    }
    if (!Is2xx(r->status)) {
      return api::StatusFromErrorBody(r->status, r->body).WithContext("getting a bearer token");
    }
    auto j = api::ParseObject(r->body);
    if (!j.ok()) return j.status().WithContext("the token endpoint's response");
    BearerToken t;
    auto tok = j->find("access_token");
    auto exp = j->find("expires_in");
    if (tok == j->end() || !tok->is_string() || exp == j->end() || !exp->is_number_integer()) {
      return Status::Of(codes::kBadResponse,
                        "the token endpoint's response lacks access_token/expires_in");
    }
    t.access_token = tok->get<std::string>();
    t.expires_in_s = exp->get<int64_t>();
    return t;
  }

  std::unique_ptr<httplib::Client> Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        return c;
      }
    }
    auto c = std::make_unique<httplib::Client>(url_.Origin());
    c->set_keep_alive(true);
    c->set_url_encode(false);  // paths and queries are encoded here
    c->set_tcp_nodelay(true);
    SetTimeout(options_.connect_timeout_s,
               [&](time_t s, time_t us) { c->set_connection_timeout(s, us); });
    SetTimeout(options_.request_timeout_s, [&](time_t s, time_t us) {
      c->set_read_timeout(s, us);
      c->set_write_timeout(s, us);
    });
    c->set_default_headers({{"User-Agent", options_.user_agent}});
    return c;
  }

  // Returns a connection whose last exchange completed to the pool (others are dropped).
  void Release(std::unique_ptr<httplib::Client> c) {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(c));
  }

  ServerUrl url_;
  ClientOptions options_;
  std::unique_ptr<IdTokenSource> id_tokens_;  // without a secret or token: federated sign-in
  std::unique_ptr<TokenCache> tokens_;
  std::mutex mu_;
  std::vector<std::unique_ptr<httplib::Client>> idle_;
};

// ---- helpers for the calls ----

namespace {

std::string Seg(std::string_view s) { return "/" + PercentEncode(s); }

Result<std::string> WorkspacePath(std::string_view name) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  return "/v1/workspaces" + Seg(name);
}

Result<std::string> CollectionPath(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(CollectionName n, ParseCollectionName(qualified));
  return "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection);
}

Result<std::string> DatasetPath(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  return "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) + "/datasets" +
         Seg(n.dataset);
}

// Decodes a response value; a bad one is kCorruption naming the route (the server and this
// client disagree), with the decoder's field pointer.
template <typename T, typename DecodeFn>
Result<T> Decode(const Json& j, DecodeFn decode, std::string_view what) {
  api::AllowUnknownFields lenient;  // responses may grow new fields
  auto v = decode(j);
  if (!v.ok()) return BadResponse(what, v.status());
  return std::move(v).value();
}

// A list response: {"<key>": [...]} (or a bare array).
template <typename T, typename DecodeFn>
Result<std::vector<T>> DecodeList(const Json& j, const char* key, DecodeFn decode) {
  const Json* arr = &j;
  if (j.is_object()) {
    auto it = j.find(key);
    if (it == j.end()) {
      return Status::Of(codes::kBadResponse,
                        std::string("bad response from the server: no \"") + key + "\" list");
    }
    arr = &*it;
  }
  if (!arr->is_array()) {
    return Status::Of(codes::kBadResponse,
                      std::string("bad response from the server: \"") + key + "\" is not a list");
  }
  std::vector<T> out;
  out.reserve(arr->size());
  for (const Json& e : *arr) {
    TARN_ASSIGN_OR_RETURN(T v, Decode<T>(e, decode, key));
    out.push_back(std::move(v));
  }
  return out;
}

Json PropertiesPatch(const PropertyMap& set, const std::vector<std::string>& unset) {
  Json u = Json::array();
  for (const auto& k : unset) u.push_back(k);
  return Json{{"set", api::ToJson(set)}, {"unset", std::move(u)}};
}

}  // namespace

// ---- RemoteClient ----

RemoteClient::RemoteClient(ServerUrl url, ClientOptions options, std::shared_ptr<Clock> clock)
    : url_(url),
      options_(options),
      transport_(std::make_unique<Transport>(url, options, std::move(clock))) {
  actor_ = options_.client_id;
}

RemoteClient::~RemoteClient() = default;

Result<RemoteClient::RawResponse> RemoteClient::SendJson(const char* method,
                                                         const std::string& path,
                                                         const std::string* json_body,
                                                         bool idempotent) {
  TARN_ASSIGN_OR_RETURN(HttpResponse r, transport_->SendText(method, path, json_body, idempotent));
  return RawResponse{r.status, std::move(r.body)};
}

Result<RemoteClient::RawResponse> RemoteClient::SendBody(const char* method,
                                                         const std::string& path,
                                                         const std::string& content_type,
                                                         int64_t length, const BodyReader& read,
                                                         const std::function<Status()>& rewind) {
  TARN_ASSIGN_OR_RETURN(HttpResponse r,
                        transport_->SendBody(method, path, content_type, length, read, rewind));
  return RawResponse{r.status, std::move(r.body)};
}

Result<std::unique_ptr<RemoteClient>> RemoteClient::Make(std::string_view url,
                                                         ClientOptions options) {
  TARN_ASSIGN_OR_RETURN(ServerUrl parsed, ParseServerUrl(url));
  return std::unique_ptr<RemoteClient>(
      new RemoteClient(std::move(parsed), std::move(options), Clock::Real()));
}

Result<std::unique_ptr<RemoteClient>> RemoteClient::Connect(std::string_view url,
                                                            ClientOptions options) {
  return Connect(url, std::move(options), Clock::Real());
}

Result<std::unique_ptr<RemoteClient>> RemoteClient::Connect(std::string_view url,
                                                            ClientOptions options,
                                                            std::shared_ptr<Clock> clock) {
  TARN_ASSIGN_OR_RETURN(ServerUrl parsed, ParseServerUrl(url));
  std::unique_ptr<RemoteClient> client(
      new RemoteClient(std::move(parsed), std::move(options), std::move(clock)));
  TARN_RETURN_NOT_OK(client->GetWhoAmI().status());
  return client;
}

std::string RemoteClient::actor() const {
  std::lock_guard<std::mutex> lock(actor_mu_);
  return actor_;
}

Result<WhoAmI> RemoteClient::GetWhoAmI() {
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", "/v1/whoami", nullptr, true));
  auto decode = [](const Json& body) -> Result<WhoAmI> {
    TARN_ASSIGN_OR_RETURN(api::ObjectReader r, api::ObjectReader::Make(body));
    WhoAmI w;
    TARN_ASSIGN_OR_RETURN(w.client_id, r.String("client_id"));
    TARN_ASSIGN_OR_RETURN(auto ws, r.OptString("workspace"));
    w.workspace = ws.value_or("");
    TARN_ASSIGN_OR_RETURN(auto role, r.OptString("role"));
    w.role = role.value_or("");
    TARN_ASSIGN_OR_RETURN(auto pattern, r.OptString("pattern"));
    w.pattern = pattern.value_or("*");
    TARN_ASSIGN_OR_RETURN(auto exp, r.OptInt("expires_at_us"));
    w.expires_at_us = exp.value_or(0);
    TARN_RETURN_NOT_OK(r.Finish());
    return w;
  };
  TARN_ASSIGN_OR_RETURN(WhoAmI w, Decode<WhoAmI>(j, decode, "whoami"));
  std::lock_guard<std::mutex> lock(actor_mu_);
  actor_ = w.client_id;
  return w;
}

// ---- workspaces ----

Status RemoteClient::DoCreateWorkspace(std::string_view name, bool exists_ok,
                                       const PropertyMap& properties) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  Json body = {{"name", std::string(name)},
               {"exists_ok", exists_ok},
               {"properties", api::ToJson(properties)}};
  return transport_->Call("POST", "/v1/workspaces", &body, false).status();
}

Result<WorkspaceInfo> RemoteClient::GetWorkspace(std::string_view name) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(name));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path, nullptr, true));
  return Decode<WorkspaceInfo>(j, api::WorkspaceFromJson, "workspace");
}

Result<std::vector<WorkspaceInfo>> RemoteClient::ListWorkspaces() {
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", "/v1/workspaces", nullptr, true));
  return DecodeList<WorkspaceInfo>(j, "workspaces", api::WorkspaceFromJson);
}

Status RemoteClient::SetWorkspaceProperties(std::string_view name, const PropertyMap& set) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(name));
  Json body = PropertiesPatch(set, {});
  return transport_->Call("PATCH", path + "/properties", &body, true).status();
}

Status RemoteClient::UnsetWorkspaceProperties(std::string_view name,
                                              const std::vector<std::string>& keys) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(name));
  Json body = PropertiesPatch({}, keys);
  return transport_->Call("PATCH", path + "/properties", &body, true).status();
}

Status RemoteClient::MarkSecure(std::string_view workspace, std::string_view object,
                                const std::vector<std::string>& destinations,
                                std::string_view /*author: the server records the caller*/) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(workspace));
  TARN_RETURN_NOT_OK(ParseDatasetName(object).status());
  Json body = {{"destinations", destinations}};
  return transport_->Call("PUT", path + "/secure" + Seg(object), &body, true).status();
}

Status RemoteClient::ClearSecure(std::string_view workspace, std::string_view object) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(workspace));
  TARN_RETURN_NOT_OK(ParseDatasetName(object).status());
  return transport_->Call("DELETE", path + "/secure" + Seg(object), nullptr, true).status();
}

Status RemoteClient::DropWorkspace(std::string_view name) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(name));
  return transport_->Call("DELETE", path, nullptr, false).status();
}

// ---- collections ----

Status RemoteClient::DoCreateCollection(std::string_view qualified, bool exists_ok,
                                        std::string_view description,
                                        const PropertyMap& properties) {
  TARN_ASSIGN_OR_RETURN(CollectionName n, ParseCollectionName(qualified));
  Json body = {{"name", n.collection},
               {"exists_ok", exists_ok},
               {"description", std::string(description)},
               {"properties", api::ToJson(properties)}};
  return transport_
      ->Call("POST", "/v1/workspaces" + Seg(n.workspace) + "/collections", &body, false)
      .status();
}

Result<std::vector<CollectionInfo>> RemoteClient::ListCollections(std::string_view workspace) {
  TARN_ASSIGN_OR_RETURN(std::string path, WorkspacePath(workspace));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/collections", nullptr, true));
  return DecodeList<CollectionInfo>(j, "collections", api::CollectionFromJson);
}

Result<CollectionInfo> RemoteClient::GetCollection(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path, nullptr, true));
  return Decode<CollectionInfo>(j, api::CollectionFromJson, "collection");
}

Status RemoteClient::DropCollection(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(qualified));
  return transport_->Call("DELETE", path, nullptr, false).status();
}

Status RemoteClient::SetCollectionProperties(std::string_view qualified, const PropertyMap& set) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(qualified));
  Json body = PropertiesPatch(set, {});
  return transport_->Call("PATCH", path + "/properties", &body, true).status();
}

Status RemoteClient::UnsetCollectionProperties(std::string_view qualified,
                                               const std::vector<std::string>& keys) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(qualified));
  Json body = PropertiesPatch({}, keys);
  return transport_->Call("PATCH", path + "/properties", &body, true).status();
}

// ---- datasets ----

Result<DatasetInfo> RemoteClient::DoCreateDataset(std::string_view qualified, DatasetDefinition def,
                                                  bool exists_ok) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  Json body = api::ToJson(def);
  body["name"] = n.dataset;
  body["exists_ok"] = exists_ok;
  std::string path =
      "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) + "/datasets";
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path, &body, false));
  return Decode<DatasetInfo>(j, api::DatasetFromJson, "dataset");
}

Result<DatasetInfo> RemoteClient::DoLoadDataset(std::string_view qualified,
                                                const SnapshotSelector& at) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  TARN_ASSIGN_OR_RETURN(
      Json j, transport_->Call("GET", path + QueryString(api::SelectorParams(at)), nullptr, true));
  return Decode<DatasetInfo>(j, api::DatasetFromJson, "dataset");
}

Result<std::vector<DatasetInfo>> RemoteClient::ListDatasets(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(collection));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/datasets", nullptr, true));
  return DecodeList<DatasetInfo>(j, "datasets", api::DatasetFromJson);
}

Status RemoteClient::RenameDataset(std::string_view qualified, std::string_view new_name) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"new_name", std::string(new_name)}};
  return transport_->Call("POST", path + "/rename", &body, false).status();
}

Status RemoteClient::DoDropDataset(std::string_view qualified, bool purge,
                                   std::optional<std::string> expected_uuid) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  std::vector<std::pair<std::string, std::string>> q;
  if (purge) q.emplace_back("purge", "true");
  if (expected_uuid) q.emplace_back("expected_uuid", *expected_uuid);
  return transport_->Call("DELETE", path + QueryString(q), nullptr, false).status();
}

Status RemoteClient::DoSetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                            const std::vector<std::string>& unset) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = PropertiesPatch(set, unset);
  return transport_->Call("PATCH", path + "/properties", &body, true).status();
}

Result<DatasetInfo> RemoteClient::DoAlterSchema(std::string_view qualified,
                                                const std::vector<SchemaChange>& changes,
                                                std::optional<int64_t> read_snapshot_id) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json list = Json::array();
  for (const auto& c : changes) list.push_back(api::ToJson(c));
  Json body = {{"changes", std::move(list)},
               {"read_snapshot_id", read_snapshot_id ? Json(*read_snapshot_id) : Json(nullptr)}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/schema", &body, false));
  return Decode<DatasetInfo>(j, api::DatasetFromJson, "dataset");
}

Result<DatasetInfo> RemoteClient::SetPartitionSpec(std::string_view qualified,
                                                   std::string_view spec) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"spec", std::string(spec)}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("PUT", path + "/partition", &body, false));
  return Decode<DatasetInfo>(j, api::DatasetFromJson, "dataset");
}

Result<DatasetInfo> RemoteClient::SetSortOrder(std::string_view qualified, std::string_view order) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"order", std::string(order)}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("PUT", path + "/sort", &body, false));
  return Decode<DatasetInfo>(j, api::DatasetFromJson, "dataset");
}

// ---- commits ----

Result<std::vector<SnapshotInfo>> RemoteClient::Commit(std::vector<DatasetCommit> parts) {
  for (const auto& p : parts) TARN_RETURN_NOT_OK(ParseDatasetName(p.dataset).status());
  Json list = Json::array();
  for (const auto& p : parts) list.push_back(api::ToJson(p));
  Json body = {{"parts", std::move(list)}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", "/v1/commits", &body, false));
  return DecodeList<SnapshotInfo>(j, "snapshots", api::SnapshotFromJson);
}

Result<SnapshotInfo> RemoteClient::DoAppend(std::string_view qualified,
                                            const std::vector<RecordBatch>& batches,
                                            CommitMeta meta, CommitOperation op,
                                            std::optional<std::string> expected_uuid) {
  // Batches already in memory go as one body with its length: the server reads a body of up to
  // kInlineAppendBytes whole, without the reader thread a chunked stream needs (measured:
  // bench/README.md, "Service"). Larger inputs stream.
  constexpr size_t kInlineAppendBytes = 8u << 20;
  std::string body = api::EncodeFrame(api::FrameKind::kMeta, api::Dump(api::ToJson(meta)));
  bool inline_body = true;
  for (const RecordBatch& b : batches) {
    TARN_ASSIGN_OR_RETURN(std::string frame, api::EncodeBatchFrame(b));
    body += frame;
    if (body.size() > kInlineAppendBytes) {
      inline_body = false;
      break;
    }
  }
  if (inline_body) {
    TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
    body += api::EncodeFrame(api::FrameKind::kEnd, "");
    std::vector<std::pair<std::string, std::string>> q = {
        {"operation", std::string(CommitOperationName(op))}};
    if (expected_uuid) q.emplace_back("expected_uuid", *expected_uuid);
    TARN_ASSIGN_OR_RETURN(HttpResponse res,
                          transport_->PostBody(path + "/append" + QueryString(q), kFramesType,
                                               std::move(body), meta.idempotency_key.has_value()));
    if (!Is2xx(res.status)) return api::StatusFromErrorBody(res.status, res.body);
    Json j = Json::parse(res.body, nullptr, /*allow_exceptions=*/false);
    return Decode<SnapshotInfo>(j, api::SnapshotFromJson, "snapshot");
  }
  size_t i = 0;
  BatchSource next = [&]() -> Result<std::optional<RecordBatch>> {
    if (i == batches.size()) return std::optional<RecordBatch>();
    const RecordBatch& b = batches[i++];
    RecordBatch copy;
    copy.schema = b.schema;
    copy.num_rows = b.num_rows;
    for (const auto& c : b.columns) copy.columns.push_back(c.Clone());
    return std::optional<RecordBatch>(std::move(copy));
  };
  return AppendStream(qualified, next, std::move(meta), op, std::move(expected_uuid));
}

Result<SnapshotInfo> RemoteClient::DoAppendStream(std::string_view qualified,
                                                  const BatchSource& next, CommitMeta meta,
                                                  CommitOperation op,
                                                  std::optional<std::string> expected_uuid) {
  // Built with reserve and emplace_back: GCC 12 warns (array-bounds, a false positive) on an
  // initializer list followed by an emplace_back that reallocates.
  std::vector<std::pair<std::string, std::string>> q;
  q.reserve(2);
  q.emplace_back("operation", std::string(CommitOperationName(op)));
  if (expected_uuid) q.emplace_back("expected_uuid", *expected_uuid);
  return PostAppend(qualified, q, std::nullopt, next, std::move(meta));
}

Result<SnapshotInfo> RemoteClient::DoReplaceWhere(std::string_view qualified,
                                                  std::string_view where, const BatchSource& next,
                                                  CommitMeta meta,
                                                  std::optional<std::string> expected_uuid,
                                                  std::optional<int64_t> read_snapshot_id) {
  std::vector<std::pair<std::string, std::string>> q = {{"operation", "merge"}};
  if (expected_uuid) q.emplace_back("expected_uuid", *expected_uuid);
  if (read_snapshot_id) q.emplace_back("read_snapshot_id", std::to_string(*read_snapshot_id));
  return PostAppend(qualified, q, std::string(where), next, std::move(meta));
}

// POST .../append: the M frame, the W frame of a merge, the batches as P frames, then E.
Result<SnapshotInfo> RemoteClient::PostAppend(
    std::string_view qualified, const std::vector<std::pair<std::string, std::string>>& q,
    const std::optional<std::string>& where, const BatchSource& next, CommitMeta meta) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  std::string meta_frame = api::EncodeFrame(api::FrameKind::kMeta, api::Dump(api::ToJson(meta)));
  if (where) meta_frame += api::EncodeFrame(api::FrameKind::kWhere, *where);
  bool started = false;  // a batch was pulled from `next`: the request cannot be repeated
  bool finished = false;
  Status source_error;
  auto provider = [&](size_t offset, httplib::DataSink& sink) -> bool {
    if (offset == 0) return sink.write(meta_frame.data(), meta_frame.size());  // each attempt
    if (finished) return true;
    started = true;
    Result<std::optional<RecordBatch>> batch = next();
    if (!batch.ok()) {
      source_error = batch.status();
      return false;
    }
    if (!batch->has_value()) {
      std::string end = api::EncodeFrame(api::FrameKind::kEnd, "");
      finished = true;
      if (!sink.write(end.data(), end.size())) return false;
      sink.done();
      return true;
    }
    Result<std::string> frame = api::EncodeBatchFrame(**batch);
    if (!frame.ok()) {
      source_error = frame.status();
      return false;
    }
    return sink.write(frame->data(), frame->size());
  };
  auto res =
      transport_->PostChunked(path + "/append" + QueryString(q), kFramesType, provider, &started);
  if (!source_error.ok()) return source_error;
  if (!res.ok()) return res.status();
  if (!Is2xx(res->status)) return api::StatusFromErrorBody(res->status, res->body);
  Json j = Json::parse(res->body, nullptr, /*allow_exceptions=*/false);
  return Decode<SnapshotInfo>(j, api::SnapshotFromJson, "snapshot");
}

namespace {
// For the POST routes that commit with a meta and return a snapshot.
Result<SnapshotInfo> SnapshotOf(Result<Json> j) {
  if (!j.ok()) return j.status();
  return Decode<SnapshotInfo>(*j, api::SnapshotFromJson, "snapshot");
}
}  // namespace

Result<SnapshotInfo> RemoteClient::DoAddFiles(std::string_view qualified,
                                              const std::vector<std::string>& paths,
                                              CommitMeta meta, bool truncate_first) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json list = Json::array();
  for (const auto& p : paths) list.push_back(p);
  Json body = {
      {"paths", std::move(list)}, {"truncate_first", truncate_first}, {"meta", api::ToJson(meta)}};
  return SnapshotOf(transport_->Call("POST", path + "/files", &body, false));
}

Result<SnapshotInfo> RemoteClient::DeleteRows(std::string_view qualified, std::string_view where,
                                              CommitMeta meta) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"where", std::string(where)}, {"meta", api::ToJson(meta)}};
  return SnapshotOf(transport_->Call("POST", path + "/delete", &body, false));
}

Result<SnapshotInfo> RemoteClient::Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                            CommitMeta meta) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"to_snapshot_id", to_snapshot_id}, {"meta", api::ToJson(meta)}};
  return SnapshotOf(transport_->Call("POST", path + "/rollback", &body, false));
}

// ---- snapshots and tags ----

// Without a limit, every snapshot: pages of kMaxSnapshotPage, following next_after.
Result<std::vector<SnapshotInfo>> RemoteClient::DoListSnapshots(std::string_view qualified,
                                                                const SnapshotQuery& query) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  std::optional<int64_t> after = query.after;
  std::vector<SnapshotInfo> out;
  while (true) {
    std::vector<std::pair<std::string, std::string>> q;
    if (query.limit) q.emplace_back("limit", std::to_string(*query.limit));
    if (after) q.emplace_back("after", std::to_string(*after));
    if (query.before) q.emplace_back("before", std::to_string(*query.before));
    TARN_ASSIGN_OR_RETURN(
        Json j, transport_->Call("GET", path + "/snapshots" + QueryString(q), nullptr, true));
    TARN_ASSIGN_OR_RETURN(auto page,
                          DecodeList<SnapshotInfo>(j, "snapshots", api::SnapshotFromJson));
    out.insert(out.end(), std::make_move_iterator(page.begin()),
               std::make_move_iterator(page.end()));
    auto next = j.is_object() ? j.find("next_after") : j.end();
    if (query.limit || !j.is_object() || next == j.end() || !next->is_number_integer()) break;
    after = next->get<int64_t>();
  }
  return out;
}

Result<SnapshotInfo> RemoteClient::GetSnapshot(std::string_view qualified,
                                               const SnapshotSelector& at) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  return SnapshotOf(transport_->Call(
      "GET", path + "/snapshot" + QueryString(api::SelectorParams(at)), nullptr, true));
}

Status RemoteClient::DoCreateTag(std::string_view qualified, std::string_view tag,
                                 const SnapshotSelector& at, bool replace) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = Json::object();
  if (at.snapshot_id) body["snapshot_id"] = *at.snapshot_id;
  if (at.at_time_us) body["at_us"] = *at.at_time_us;
  if (at.tag) body["tag"] = *at.tag;
  body["replace"] = replace;
  return transport_->Call("PUT", path + "/tags" + Seg(tag), &body, true).status();
}

Status RemoteClient::DropTag(std::string_view qualified, std::string_view tag) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  return transport_->Call("DELETE", path + "/tags" + Seg(tag), nullptr, false).status();
}

Result<std::vector<TagInfo>> RemoteClient::ListTags(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/tags", nullptr, true));
  return DecodeList<TagInfo>(j, "tags", api::TagFromJson);
}

// ---- provenance ----

Result<LineageResult> RemoteClient::Lineage(std::string_view qualified,
                                            std::optional<int64_t> snapshot, size_t limit) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  std::vector<std::pair<std::string, std::string>> q = {{"limit", std::to_string(limit)}};
  if (snapshot) q.emplace_back("snapshot", std::to_string(*snapshot));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", path + "/lineage" + QueryString(q), nullptr, true));
  return Decode<LineageResult>(j, api::LineageFromJson, "lineage");
}

Result<ImpactResult> RemoteClient::Impact(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/impact", nullptr, true));
  return Decode<ImpactResult>(j, api::ImpactFromJson, "impact");
}

Result<ReadersResult> RemoteClient::Readers(std::string_view qualified,
                                            std::optional<int64_t> version) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  std::vector<std::pair<std::string, std::string>> q;
  if (version) q.emplace_back("version", std::to_string(*version));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", path + "/readers" + QueryString(q), nullptr, true));
  return Decode<ReadersResult>(j, api::ReadersFromJson, "readers");
}

// ---- external locations ----

Status RemoteClient::GrantLocation(std::string_view qualified, std::string_view prefix) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"prefix", std::string(prefix)}};
  return transport_->Call("POST", path + "/locations", &body, true).status();
}

Status RemoteClient::RevokeLocation(std::string_view qualified, std::string_view prefix) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  return transport_
      ->Call("DELETE", path + "/locations" + QueryString({{"prefix", std::string(prefix)}}),
             nullptr, false)
      .status();
}

Result<std::vector<LocationGrant>> RemoteClient::ListLocations(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/locations", nullptr, true));
  return DecodeList<LocationGrant>(j, "locations", api::LocationFromJson);
}

// ---- views ----

namespace {

Result<std::string> ViewPath(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  return "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) + "/views" +
         Seg(n.dataset);
}

}  // namespace

Result<ViewInfo> RemoteClient::DoCreateView(std::string_view qualified, const ViewDefinition& def,
                                            bool replace) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  Json body = api::ToJson(def);
  body["name"] = n.dataset;
  body["replace"] = replace;
  std::string path =
      "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) + "/views";
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path, &body, false));
  return Decode<ViewInfo>(j, api::ViewFromJson, "view");
}

Result<ViewInfo> RemoteClient::DoGetView(std::string_view qualified,
                                         std::optional<int64_t> version) {
  TARN_ASSIGN_OR_RETURN(std::string path, ViewPath(qualified));
  std::vector<std::pair<std::string, std::string>> q;
  if (version) q.emplace_back("version", std::to_string(*version));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + QueryString(q), nullptr, true));
  return Decode<ViewInfo>(j, api::ViewFromJson, "view");
}

Result<std::vector<ViewInfo>> RemoteClient::ListViews(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(collection));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/views", nullptr, true));
  return DecodeList<ViewInfo>(j, "views", api::ViewFromJson);
}

Result<std::vector<ViewVersion>> RemoteClient::ListViewVersions(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, ViewPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/versions", nullptr, true));
  return DecodeList<ViewVersion>(j, "versions", api::ViewVersionFromJson);
}

Status RemoteClient::DropView(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, ViewPath(qualified));
  return transport_->Call("DELETE", path, nullptr, false).status();
}

Status RemoteClient::RecordViewRun(std::string_view qualified, int64_t row_count, double seconds) {
  TARN_ASSIGN_OR_RETURN(std::string path, ViewPath(qualified));
  if (row_count < 0 || !(seconds >= 0) || seconds > 1e9) {
    return Status::InvalidArgument("a view run needs a row count >= 0 and seconds in [0, 1e9]");
  }
  Json body = {{"row_count", row_count}, {"run_us", static_cast<int64_t>(seconds * 1e6 + 0.5)}};
  return transport_->Call("POST", path + "/runs", &body, true).status();
}

// ---- materialized views and triggers ----

namespace {

Result<std::string> MaterializedPath(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  return "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) +
         "/materialized_views" + Seg(n.dataset);
}

}  // namespace

Result<MaterializedViewInfo> RemoteClient::RegisterMaterializedView(
    std::string_view qualified, const ViewDefinition& def, const std::vector<std::string>& sources,
    bool replace, std::string_view refresh_kind) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  Json body = api::ToJson(def);
  body["name"] = n.dataset;
  body["sources"] = sources;
  body["replace"] = replace;
  body["refresh_kind"] = refresh_kind;
  std::string path = "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) +
                     "/materialized_views";
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path, &body, false));
  return Decode<MaterializedViewInfo>(j, api::MaterializedViewFromJson, "materialized view");
}

Result<MaterializedViewInfo> RemoteClient::GetMaterializedView(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, MaterializedPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path, nullptr, true));
  return Decode<MaterializedViewInfo>(j, api::MaterializedViewFromJson, "materialized view");
}

Result<std::vector<MaterializedViewInfo>> RemoteClient::ListMaterializedViews(
    std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(collection));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", path + "/materialized_views", nullptr, true));
  return DecodeList<MaterializedViewInfo>(j, "materialized_views", api::MaterializedViewFromJson);
}

Status RemoteClient::DropMaterializedView(std::string_view qualified, bool purge) {
  TARN_ASSIGN_OR_RETURN(std::string path, MaterializedPath(qualified));
  std::vector<std::pair<std::string, std::string>> q;
  if (purge) q.emplace_back("purge", "true");
  return transport_->Call("DELETE", path + QueryString(q), nullptr, false).status();
}

Status RemoteClient::RecordRefresh(std::string_view qualified, const RefreshRecord& record) {
  TARN_ASSIGN_OR_RETURN(std::string path, MaterializedPath(qualified));
  Json body = api::ToJson(record);
  return transport_->Call("POST", path + "/refreshes", &body, true).status();
}

namespace {

Result<std::string> TaskPath(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  return "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) + "/tasks" +
         Seg(n.dataset);
}

}  // namespace

Result<TaskInfo> RemoteClient::RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                            const std::vector<std::string>& reads, bool replace) {
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(qualified));
  Json body = api::ToJson(def);
  body["name"] = n.dataset;
  body["reads"] = reads;
  body["replace"] = replace;
  std::string path =
      "/v1/workspaces" + Seg(n.workspace) + "/collections" + Seg(n.collection) + "/tasks";
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path, &body, false));
  return Decode<TaskInfo>(j, api::TaskFromJson, "task");
}

Result<TaskInfo> RemoteClient::GetTask(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, TaskPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path, nullptr, true));
  return Decode<TaskInfo>(j, api::TaskFromJson, "task");
}

Result<std::vector<TaskInfo>> RemoteClient::ListTasks(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(std::string path, CollectionPath(collection));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/tasks", nullptr, true));
  return DecodeList<TaskInfo>(j, "tasks", api::TaskFromJson);
}

Status RemoteClient::DropTask(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, TaskPath(qualified));
  return transport_->Call("DELETE", path, nullptr, false).status();
}

Result<JobInfo> RemoteClient::SignalTask(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, TaskPath(qualified));
  Json body = Json::object();
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/signal", &body, false));
  return Decode<JobInfo>(j, api::JobFromJson, "job");
}

Status RemoteClient::RecordTaskRun(std::string_view qualified, const RefreshRecord& record) {
  TARN_ASSIGN_OR_RETURN(std::string path, TaskPath(qualified));
  Json body = api::ToJson(record);
  return transport_->Call("POST", path + "/runs", &body, true).status();
}

Result<std::vector<TriggerInfo>> RemoteClient::ListTriggers(std::string_view dataset) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(dataset));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", path + "/triggers", nullptr, true));
  return DecodeList<TriggerInfo>(j, "triggers", api::TriggerFromJson);
}

Status RemoteClient::SetTriggerInterval(std::string_view dataset, std::string_view trigger,
                                        std::optional<int64_t> seconds) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(dataset));
  TARN_RETURN_NOT_OK(ValidateIdentifier("trigger name", trigger));
  Json body = {{"seconds", seconds ? Json(*seconds) : Json(nullptr)}};
  return transport_->Call("PUT", path + "/triggers" + Seg(trigger) + "/interval", &body, true)
      .status();
}

Result<std::vector<JobInfo>> RemoteClient::ListJobs(const JobQuery& query) {
  std::vector<std::pair<std::string, std::string>> q;
  if (!query.state.empty()) q.emplace_back("state", query.state);
  if (!query.target.empty()) q.emplace_back("target", query.target);
  q.emplace_back("limit", std::to_string(query.limit));
  if (!query.after.empty()) q.emplace_back("after", query.after);
  if (!query.before.empty()) q.emplace_back("before", query.before);
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", "/v1/jobs" + QueryString(q), nullptr, true));
  return DecodeList<JobInfo>(j, "jobs", api::JobFromJson);
}

Result<JobInfo> RemoteClient::GetJob(std::string_view id) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("job id", id));
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", "/v1/jobs" + Seg(id), nullptr, true));
  return Decode<JobInfo>(j, api::JobFromJson, "job");
}

Result<JobInfo> RemoteClient::RetryJob(std::string_view id) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("job id", id));
  Json body = Json::object();
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("POST", "/v1/jobs" + Seg(id) + "/retry", &body, true));
  return Decode<JobInfo>(j, api::JobFromJson, "job");
}

Result<JobInfo> RemoteClient::ReportJobOutcome(std::string_view id,
                                               const JobOutcomeReport& report) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("job id", id));
  Json body = {
      {"state", report.state},
      {"error", report.error},
      {"result_snapshot", report.result_snapshot ? Json(*report.result_snapshot) : Json(nullptr)},
      {"retry", report.retry}};
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("POST", "/v1/jobs" + Seg(id) + "/outcome", &body, true));
  return Decode<JobInfo>(j, api::JobFromJson, "job");
}

// ---- planning and scans ----

Status RemoteClient::DoPlanFiles(std::string_view qualified, const SnapshotSelector& at,
                                 std::string_view where, const FileQuery& page,
                                 const std::function<Status(const PlannedFile&)>& fn) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  auto q = api::SelectorParams(at);
  if (!where.empty()) q.emplace_back("where", std::string(where));
  if (page.limit) q.emplace_back("limit", std::to_string(*page.limit));
  if (page.after) q.emplace_back("after", *page.after);
  if (page.before) q.emplace_back("before", *page.before);
  std::string pending;
  bool ended = false;
  int64_t files = 0;
  auto line_fn = [&](std::string_view line) -> Status {
    if (line.empty()) return Status::OK();
    if (ended) {
      return Status::Of(codes::kBadResponse, "plan stream: data after the end marker");
    }
    Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) {
      return Status::Of(codes::kBadResponse, "plan stream: a line is not a JSON object");
    }
    if (j.contains("error")) return api::StatusFromErrorBody(500, line);
    if (auto e = j.find("end"); e != j.end()) {
      ended = true;
      auto n = j.find("files");
      if (n != j.end() && n->is_number_integer() && n->get<int64_t>() != files) {
        return Status::Of(codes::kBadResponse, "plan stream: the server planned " +
                                                   std::to_string(n->get<int64_t>()) +
                                                   " files but sent " + std::to_string(files));
      }
      return Status::OK();
    }
    TARN_ASSIGN_OR_RETURN(PlannedFile f, Decode<PlannedFile>(j, api::PlannedFileFromJson, "file"));
    ++files;
    return fn(f);
  };
  TARN_RETURN_NOT_OK(
      transport_->Stream(path + "/plan" + QueryString(q), [&](std::string_view chunk) -> Status {
        pending.append(chunk);
        size_t start = 0;
        for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
          TARN_RETURN_NOT_OK(line_fn(std::string_view(pending).substr(start, nl - start)));
        }
        pending.erase(0, start);
        return Status::OK();
      }));
  TARN_RETURN_NOT_OK(line_fn(pending));
  if (!ended) {
    return Status::Of(codes::kTruncatedStream,
                      "the plan stream of " + std::string(qualified) +
                          " ended without its end marker (connection cut?)");
  }
  return Status::OK();
}

Status RemoteClient::DoScan(std::string_view qualified, const ScanOptions& options,
                            const std::function<Status(const RecordBatch&)>& fn) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  auto q = api::SelectorParams(options.at);
  if (!options.where.empty()) q.emplace_back("where", options.where);
  if (options.with_row_ids) q.emplace_back("with_row_ids", "true");
  if (options.added_after) q.emplace_back("added_after", std::to_string(*options.added_after));
  if (!options.columns.empty()) {
    std::string columns;
    for (const std::string& c : options.columns) columns += (columns.empty() ? "" : ",") + c;
    q.emplace_back("columns", columns);
  }
  api::FrameParser parser;
  bool ended = false;
  int64_t rows = 0;
  TARN_RETURN_NOT_OK(
      transport_->Stream(path + "/scan" + QueryString(q), [&](std::string_view chunk) -> Status {
        TARN_RETURN_NOT_OK(parser.Feed(chunk));
        while (auto frame = parser.Next()) {
          if (ended) {
            return Status::Of(codes::kBadFrame, "scan stream: data after the end frame");
          }
          switch (frame->first) {
            case api::FrameKind::kParquet: {
              TARN_ASSIGN_OR_RETURN(RecordBatch b,
                                    api::DecodeBatchPayload(std::move(frame->second)));
              rows += b.num_rows;
              TARN_RETURN_NOT_OK(fn(b));
              break;
            }
            case api::FrameKind::kError:
              return api::StatusFromErrorBody(500, frame->second);
            case api::FrameKind::kEnd: {
              ended = true;
              Json t = Json::parse(frame->second, nullptr, /*allow_exceptions=*/false);
              if (t.is_object()) {
                auto n = t.find("rows");
                if (n != t.end() && n->is_number_integer() && n->get<int64_t>() != rows) {
                  return Status::Of(codes::kBadFrame,
                                    "scan stream: the server sent " + std::to_string(rows) +
                                        " rows but counted " + std::to_string(n->get<int64_t>()));
                }
              }
              break;
            }
            case api::FrameKind::kMeta:
              break;  // nothing a scan needs yet
            case api::FrameKind::kWhere:
              return Status::Of(codes::kBadFrame, "scan stream: a W frame in a scan");
          }
        }
        return Status::OK();
      }));
  if (!ended) {
    return Status::Of(codes::kTruncatedStream,
                      "the scan stream of " + std::string(qualified) +
                          " ended without its end frame (connection cut?)");
  }
  return Status::OK();
}

// ---- manifest export ----

Result<ManifestInfo> RemoteClient::ExportManifest(
    std::string_view qualified, const SnapshotSelector& at,
    const std::function<Status(std::string_view bytes)>& write) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  TARN_ASSIGN_OR_RETURN(SnapshotInfo snap, GetSnapshot(qualified, at));
  SnapshotSelector pinned;
  pinned.snapshot_id = snap.snapshot_id;
  ManifestInfo info;
  info.dataset = std::string(qualified);
  info.dataset_uuid = snap.dataset_uuid;
  info.snapshot_id = snap.snapshot_id;
  info.files = snap.total_files;  // the manifest's rows: the snapshot's live files
  std::string tail;               // the last bytes received: a whole Parquet file ends in PAR1
  TARN_RETURN_NOT_OK(
      transport_->Stream(path + "/manifest" + QueryString(api::SelectorParams(pinned)),
                         [&](std::string_view chunk) -> Status {
                           info.bytes += static_cast<int64_t>(chunk.size());
                           tail.append(chunk.substr(chunk.size() > 4 ? chunk.size() - 4 : 0));
                           if (tail.size() > 4) tail.erase(0, tail.size() - 4);
                           return write(chunk);
                         }));
  if (tail != "PAR1") {
    return Status::Of(codes::kTruncatedStream, "the manifest of " + std::string(qualified) +
                                                   " ended before its footer (connection cut?)");
  }
  return info;
}

// ---- change feed ----

Result<ChangeSet> RemoteClient::DoChanges(std::string_view qualified, const ChangeQuery& query) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  std::optional<ChangeSet> out;
  int64_t from = query.from;
  while (true) {
    std::vector<std::pair<std::string, std::string>> q;
    q.reserve(3);
    q.emplace_back("from", std::to_string(from));
    if (query.to) q.emplace_back("to", std::to_string(*query.to));
    if (query.limit) q.emplace_back("limit", std::to_string(*query.limit));
    TARN_ASSIGN_OR_RETURN(
        Json j, transport_->Call("GET", path + "/changes" + QueryString(q), nullptr, true));
    TARN_ASSIGN_OR_RETURN(ChangeSet page,
                          Decode<ChangeSet>(j, api::ChangeSetFromJson, "change set"));
    if (page.next_from && *page.next_from <= from) {
      return Status::Of(codes::kBadResponse, "changes: the next page does not move forward");
    }
    if (!out) {
      out = std::move(page);
    } else {
      auto append = [](auto& into, auto& more) {
        into.insert(into.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
      };
      append(out->added_files, page.added_files);
      append(out->removed_files, page.removed_files);
      append(out->deletion_vectors, page.deletion_vectors);
      out->to_snapshot_id = page.to_snapshot_id;
      out->next_from = page.next_from;
    }
    if (query.limit || !out->next_from) break;
    from = *out->next_from;
  }
  return std::move(*out);
}

Status RemoteClient::CommitOffset(std::string_view qualified, std::string_view consumer,
                                  int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"snapshot_id", snapshot_id}};
  return transport_->Call("PUT", path + "/offsets" + Seg(consumer), &body, true).status();
}

Result<std::optional<int64_t>> RemoteClient::GetOffset(std::string_view qualified,
                                                       std::string_view consumer) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", path + "/offsets" + Seg(consumer), nullptr, true));
  auto it = j.find("snapshot_id");
  if (it == j.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number_integer()) {
    return Status::Of(codes::kBadResponse,
                      "bad offset from the server: snapshot_id is not an integer");
  }
  return std::optional<int64_t>(it->get<int64_t>());
}

// ---- maintenance ----

Result<ExpiryResult> RemoteClient::ExpireSnapshots(std::string_view qualified,
                                                   const ExpiryOptions& options) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = api::ToJson(options);
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/expire", &body, false));
  return Decode<ExpiryResult>(j, api::ExpiryResultFromJson, "expiry result");
}

Result<IcebergTableInfo> RemoteClient::IcebergTable(std::string_view qualified,
                                                    const IcebergRequest& request) {
  if (!request.file_base.empty()) {
    return Status::Of(codes::kIcebergUnsupported,
                      "a remote client cannot choose how the metadata names objects (file_base): "
                      "the server's REST facade (/iceberg/v1) names them by its own file route")
        .WithField("dataset", std::string(qualified));
  }
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  auto params = api::SelectorParams(request.at);
  params.emplace_back("format_version", std::to_string(request.format_version));
  TARN_ASSIGN_OR_RETURN(
      Json j, transport_->Call("GET", path + "/iceberg" + QueryString(params), nullptr, true));
  return Decode<IcebergTableInfo>(j, api::IcebergTableInfoFromJson, "iceberg table");
}

Result<IcebergRegisterResult> RemoteClient::RegisterIcebergTable(
    std::string_view qualified, const IcebergRegisterRequest& request) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body{{"metadata", request.metadata}, {"meta", api::ToJson(request.meta)}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/register", &body, false));
  return Decode<IcebergRegisterResult>(j, api::IcebergRegisterResultFromJson,
                                       "iceberg registration");
}

Result<RetentionResult> RemoteClient::ApplyRetention(const RetentionOptions& options) {
  std::string path = "/v1/retention";
  if (!options.workspace.empty()) {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", options.workspace));
    path += "?workspace=" + options.workspace;
  }
  Json body = {{"dry_run", options.dry_run}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path, &body, false));
  return Decode<RetentionResult>(j, api::RetentionResultFromJson, "retention result");
}

Result<CompactionResult> RemoteClient::Compact(std::string_view qualified,
                                               const CompactionOptions& options, CommitMeta meta) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = api::ToJson(options);
  body["meta"] = api::ToJson(meta);
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/compact", &body, false));
  return Decode<CompactionResult>(j, api::CompactionResultFromJson, "compaction result");
}

Result<StatsHydrationResult> RemoteClient::HydrateStats(std::string_view qualified,
                                                        const StatsHydrationOptions& options) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = {{"limit", options.limit}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/stats/hydrate", &body, false));
  return Decode<StatsHydrationResult>(j, api::StatsHydrationResultFromJson,
                                      "statistics hydration result");
}

Result<InlineFlushResult> RemoteClient::FlushInlined(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(std::string path, DatasetPath(qualified));
  Json body = Json::object();
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", path + "/inlined/flush", &body, false));
  return Decode<InlineFlushResult>(j, api::InlineFlushResultFromJson, "inlined flush result");
}

Result<CleanupResult> RemoteClient::DoCleanup(bool delete_orphans) {
  Json body = {{"delete_orphans", delete_orphans}};
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", "/v1/cleanup", &body, false));
  return Decode<CleanupResult>(j, api::CleanupResultFromJson, "cleanup result");
}

// ---- access tokens and audit ----

Result<NewAccessToken> RemoteClient::CreateAccessToken(const AccessTokenSpec& spec) {
  if (spec.client_id || spec.client_secret) {
    return Status::Of(codes::kUnsupportedRemotely,
                      "a remote catalog chooses the client id and secret of a new token itself");
  }
  Json body = api::ToJson(spec);
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", "/v1/tokens", &body, false));
  return Decode<NewAccessToken>(j, api::NewAccessTokenFromJson, "new token");
}

Result<std::vector<AccessTokenInfo>> RemoteClient::ListAccessTokens(std::string_view workspace) {
  std::vector<std::pair<std::string, std::string>> q;
  if (!workspace.empty()) q.emplace_back("workspace", std::string(workspace));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", "/v1/tokens" + QueryString(q), nullptr, true));
  return DecodeList<AccessTokenInfo>(j, "tokens", api::AccessTokenFromJson);
}

Status RemoteClient::RevokeAccessToken(std::string_view client_id) {
  return transport_->Call("DELETE", "/v1/tokens" + Seg(client_id), nullptr, true).status();
}

Result<FederationRule> RemoteClient::CreateFederationRule(const FederationRuleSpec& spec) {
  Json body = api::ToJson(spec);
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("POST", "/v1/federation/rules", &body, false));
  return Decode<FederationRule>(j, api::FederationRuleFromJson, "federation rule");
}

Result<std::vector<FederationRule>> RemoteClient::ListFederationRules() {
  TARN_ASSIGN_OR_RETURN(Json j, transport_->Call("GET", "/v1/federation/rules", nullptr, true));
  return DecodeList<FederationRule>(j, "rules", api::FederationRuleFromJson);
}

Status RemoteClient::DeleteFederationRule(std::string_view id) {
  return transport_->Call("DELETE", "/v1/federation/rules" + Seg(id), nullptr, true).status();
}

Result<std::vector<AuditRecord>> RemoteClient::ListAudit(const AuditQuery& query) {
  std::vector<std::pair<std::string, std::string>> q;
  if (query.since_us != 0) q.emplace_back("since_us", std::to_string(query.since_us));
  if (query.until_us) q.emplace_back("until_us", std::to_string(*query.until_us));
  if (!query.workspace.empty()) q.emplace_back("workspace", query.workspace);
  if (!query.actor.empty()) q.emplace_back("actor", query.actor);
  q.emplace_back("limit", std::to_string(query.limit));
  if (query.after) q.emplace_back("after", std::to_string(*query.after));
  if (query.before) q.emplace_back("before", std::to_string(*query.before));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", "/v1/audit" + QueryString(q), nullptr, true));
  return DecodeList<AuditRecord>(j, "records", api::AuditRecordFromJson);
}

Result<std::vector<AlertRecord>> RemoteClient::ListAlerts(const AlertQuery& query) {
  std::vector<std::pair<std::string, std::string>> q;
  if (query.since_us != 0) q.emplace_back("since_us", std::to_string(query.since_us));
  if (!query.code.empty()) q.emplace_back("code", query.code);
  if (!query.workspace.empty()) q.emplace_back("workspace", query.workspace);
  q.emplace_back("limit", std::to_string(query.limit));
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", "/v1/alerts" + QueryString(q), nullptr, true));
  return DecodeList<AlertRecord>(j, "alerts", api::AlertRecordFromJson);
}

Result<FsckReport> RemoteClient::Fsck(const FsckOptions& options) {
  std::vector<std::pair<std::string, std::string>> q;
  if (!options.workspace.empty()) q.emplace_back("workspace", options.workspace);
  q.emplace_back("orphan_grace_us", std::to_string(options.orphan_grace_us));
  q.emplace_back("check_objects", options.check_objects ? "true" : "false");
  TARN_ASSIGN_OR_RETURN(Json j,
                        transport_->Call("GET", "/v1/fsck" + QueryString(q), nullptr, true));
  return Decode<FsckReport>(j, api::FsckReportFromJson, "fsck");
}

}  // namespace tarn::client
