// ID token sources of the environment (id_token_source.h). HTTP goes through the one libcurl
// wrapper (objectstore/s3/http_client.h) with short timeouts and a response size cap.
#include "client/id_token_source.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "client/error_codes.h"
#include "client/remote_client.h"
#include "objectstore/s3/http_client.h"

namespace tarn::client {

namespace {

constexpr size_t kMaxIdTokenBytes = 16 << 10;
constexpr size_t kMaxResponseBytes = 64 << 10;
constexpr int kConnectTimeoutMs = 3000;
constexpr int kTotalTimeoutMs = 10000;

std::string Trimmed(std::string s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.back())) s.pop_back();
  size_t i = 0;
  while (i < s.size() && space(s[i])) ++i;
  return s.substr(i);
}

Status Refused(const std::string& source, const std::string& why) {
  return Status::Of(codes::kIdTokenUnavailable, "no ID token from " + source + ": " + why);
}

// A token-shaped value: three base64url parts, within the size cap.
Status CheckShape(const std::string& source, const std::string& token) {
  if (token.empty()) return Refused(source, "it is empty");
  if (token.size() > kMaxIdTokenBytes) return Refused(source, "it is longer than 16 KiB");
  int dots = 0;
  for (char c : token) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return Refused(source, "it is not a JWT");
    dots += c == '.';
  }
  if (dots != 2) return Refused(source, "it is not a JWT");
  return Status::OK();
}

Result<std::string> Get(const std::string& source, const std::string& url,
                        std::vector<std::pair<std::string, std::string>> headers) {
  static s3::HttpClient* client =
      new s3::HttpClient(s3::HttpClientOptions{kConnectTimeoutMs, kTotalTimeoutMs / 1000, 2});
  s3::HttpRequest req;
  req.method = "GET";
  req.url = url;
  req.headers = std::move(headers);
  req.max_body = kMaxResponseBytes;
  req.timeout_ms = kTotalTimeoutMs;
  auto resp = client->Send(req);
  if (!resp.ok()) return resp.status().WithContext("getting an ID token from " + source);
  if (resp->status != 200) {
    return Refused(source, "it answered HTTP " + std::to_string(resp->status));
  }
  return std::move(resp->body);
}

class TokenFile final : public IdTokenSource {
 public:
  explicit TokenFile(std::string path) : path_(std::move(path)) {}
  std::string name() const override { return "token-file"; }
  bool is_available() const override { return !path_.empty(); }
  Result<std::string> Fetch(std::string_view) override {
    std::ifstream in(path_, std::ios::binary);
    if (!in) {
      return Status::NotFound("TARN_OIDC_TOKEN_FILE '" + path_ + "' cannot be read")
          .WithCode(codes::kIdTokenUnavailable);
    }
    std::string text(kMaxIdTokenBytes + 2, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    std::string token = Trimmed(std::move(text));
    TARN_RETURN_NOT_OK(CheckShape("TARN_OIDC_TOKEN_FILE", token));
    return token;
  }

 private:
  std::string path_;
};

class GitHubActions final : public IdTokenSource {
 public:
  GitHubActions(std::string url, std::string token)
      : url_(std::move(url)), token_(std::move(token)) {}
  std::string name() const override { return "github-actions"; }
  bool is_available() const override { return !url_.empty() && !token_.empty(); }
  Result<std::string> Fetch(std::string_view audience) override {
    std::string url = url_ + (url_.find('?') == std::string::npos ? "?" : "&") +
                      "audience=" + PercentEncode(audience);
    TARN_ASSIGN_OR_RETURN(std::string body, Get("GitHub Actions", url,
                                                {{"Authorization", "bearer " + token_},
                                                 {"Accept", "application/json"}}));
    auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("value") || !j["value"].is_string()) {
      return Refused("GitHub Actions", "the answer has no \"value\"");
    }
    std::string token = j["value"].get<std::string>();
    TARN_RETURN_NOT_OK(CheckShape("GitHub Actions", token));
    return token;
  }

 private:
  std::string url_;
  std::string token_;
};

class GcpMetadata final : public IdTokenSource {
 public:
  GcpMetadata(std::string host, bool on_gcp) : host_(std::move(host)), on_gcp_(on_gcp) {}
  std::string name() const override { return "gcp-metadata"; }
  bool is_available() const override { return on_gcp_ && !host_.empty(); }
  Result<std::string> Fetch(std::string_view audience) override {
    std::string url = "http://" + host_ +
                      "/computeMetadata/v1/instance/service-accounts/default/identity?audience=" +
                      PercentEncode(audience) + "&format=full";
    TARN_ASSIGN_OR_RETURN(std::string body,
                          Get("the GCP metadata server", url, {{"Metadata-Flavor", "Google"}}));
    std::string token = Trimmed(std::move(body));
    TARN_RETURN_NOT_OK(CheckShape("the GCP metadata server", token));
    return token;
  }

 private:
  std::string host_;
  bool on_gcp_;
};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// Like google-auth's _is_on_gce check on Linux: the DMI product name of a GCE VM.
bool DmiSaysGoogle() {
  std::ifstream in("/sys/class/dmi/id/product_name");
  std::string line;
  if (!in || !std::getline(in, line)) return false;
  return line.rfind("Google", 0) == 0;
}

}  // namespace

std::unique_ptr<IdTokenSource> TokenFileSource(std::string path) {
  return std::make_unique<TokenFile>(std::move(path));
}

std::unique_ptr<IdTokenSource> GitHubActionsSource(std::string request_url,
                                                   std::string request_token) {
  return std::make_unique<GitHubActions>(std::move(request_url), std::move(request_token));
}

std::unique_ptr<IdTokenSource> GcpMetadataSource(std::string host, bool on_gcp) {
  return std::make_unique<GcpMetadata>(std::move(host), on_gcp);
}

std::unique_ptr<IdTokenSource> IdTokenSourceFromEnvironment() {
  std::unique_ptr<IdTokenSource> sources[] = {
      TokenFileSource(Env("TARN_OIDC_TOKEN_FILE")),
      GitHubActionsSource(Env("ACTIONS_ID_TOKEN_REQUEST_URL"),
                          Env("ACTIONS_ID_TOKEN_REQUEST_TOKEN")),
      nullptr};
  std::string gce_host = Env("GCE_METADATA_HOST");
  bool on_gcp = !gce_host.empty() || DmiSaysGoogle();
  sources[2] = GcpMetadataSource(gce_host.empty() ? "metadata.google.internal" : gce_host, on_gcp);
  for (auto& s : sources) {
    if (s->is_available()) return std::move(s);
  }
  return nullptr;
}

}  // namespace tarn::client
