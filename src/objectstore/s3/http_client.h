// A minimal HTTP/1.1 client over libcurl with a pool of reusable connections. Used by the S3
// client, and by src/auth and src/client for OpenID Connect fetches (the one libcurl wrapper);
// libcurl appears only in http_client.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/status.h"

namespace tarn::s3 {

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;     // fully encoded
  std::vector<std::pair<std::string, std::string>> headers;
  // Request body (borrowed; must stay valid during Send).
  const uint8_t* body = nullptr;
  size_t body_size = 0;
  // When set, a 2xx response body is written here (at most out_capacity bytes; more is a
  // kCorruption error) instead of HttpResponse::body.
  uint8_t* out = nullptr;
  size_t out_capacity = 0;
  // Responses bodies kept in HttpResponse::body are refused beyond this (kTooLarge).
  size_t max_body = 16 << 20;
  // A deadline for the whole transfer (0: none; the low-speed timeout still applies).
  int timeout_ms = 0;
};

struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  size_t out_size = 0;  // bytes written to HttpRequest::out

  // Value of the first header with this lower-case name, or "".
  std::string_view Header(std::string_view name) const;
};

struct HttpClientOptions {
  int connect_timeout_ms = 10000;
  // A transfer slower than 1 byte/s for this long is aborted (a timeout, retryable).
  int low_speed_timeout_s = 60;
  size_t max_idle_connections = 16;
};

// Thread-safe: every Send takes a handle (and its open connection) from the pool and returns it.
class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Any HTTP status is a successful Send. Transport failures (refused, reset, timeout, DNS) are
  // kUnavailable; a malformed URL is kInvalidArgument; a TLS verification failure is
  // kFailedPrecondition; a response body larger than allowed is kTooLarge / kCorruption.
  Result<HttpResponse> Send(const HttpRequest& request);

 private:
  class Pool;
  HttpClientOptions options_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace tarn::s3
