#include "objectstore/s3/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace tarn::s3 {

namespace {

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  const HttpRequest* request;
  HttpResponse* response;
  size_t upload_pos = 0;
  bool overflow = false;
  bool too_large = false;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

size_t OnHeader(char* buf, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  std::string_view line = Trim(std::string_view(buf, len));
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (after "100 Continue" or a redirect): start over.
    size_t sp = line.find(' ');
    int status = 0;
    if (sp != std::string_view::npos && line.size() >= sp + 4) {
      for (size_t i = sp + 1; i < sp + 4; ++i) {
        if (line[i] < '0' || line[i] > '9') {
          status = 0;
          break;
        }
        status = status * 10 + (line[i] - '0');
      }
    }
    t->response->status = status;
    t->response->headers.clear();
    return len;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || t->response->headers.size() >= 256) return len;
  std::string name(Trim(line.substr(0, colon)));
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::string_view value = Trim(line.substr(colon + 1));
  if (name == "content-length" && t->request->out == nullptr && t->response->status / 100 == 2 &&
      t->response->body.empty()) {
    // Reserve the body once instead of growing it through the transfer.
    uint64_t n = 0;
    bool ok = !value.empty() && value.size() < 20;
    for (char c : value) {
      if (c < '0' || c > '9') ok = false;
      if (ok) n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (ok && n <= t->request->max_body && n <= (uint64_t{1} << 40)) {
      try {
        t->response->body.reserve(static_cast<size_t>(n));
      } catch (...) {
        // No memory for all of it at once: let it grow (and fail in OnBody if it must).
      }
    }
  }
  t->response->headers.emplace_back(std::move(name), std::string(value));
  return len;
}

size_t OnBody(char* buf, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  const HttpRequest& req = *t->request;
  HttpResponse& resp = *t->response;
  if (req.out != nullptr && resp.status / 100 == 2) {
    if (len > req.out_capacity - resp.out_size) {
      t->overflow = true;
      return 0;  // aborts the transfer
    }
    std::memcpy(req.out + resp.out_size, buf, len);
    resp.out_size += len;
    return len;
  }
  if (len > req.max_body - std::min(req.max_body, resp.body.size())) {
    t->too_large = true;
    return 0;
  }
  resp.body.append(buf, len);
  return len;
}

size_t OnRead(char* buf, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t want = size * n;
  size_t left = t->request->body_size - t->upload_pos;
  size_t k = std::min(want, left);
  if (k > 0) std::memcpy(buf, t->request->body + t->upload_pos, k);
  t->upload_pos += k;
  return k;
}

int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* t = static_cast<Transfer*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<uint64_t>(offset) > t->request->body_size) {
    return CURL_SEEKFUNC_FAIL;
  }
  t->upload_pos = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

std::string_view HttpResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return {};
}

class HttpClient::Pool {
 public:
  explicit Pool(size_t max_idle) : max_idle_(max_idle) {}
  ~Pool() {
    for (CURL* h : idle_) curl_easy_cleanup(h);
  }
  CURL* Acquire() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        CURL* h = idle_.back();
        idle_.pop_back();
        return h;
      }
    }
    return curl_easy_init();
  }
  // Options are reset; the handle's open connections are kept for the next request.
  void Release(CURL* h) {
    curl_easy_reset(h);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (idle_.size() < max_idle_) {
        idle_.push_back(h);
        return;
      }
    }
    curl_easy_cleanup(h);
  }

 private:
  size_t max_idle_;
  std::mutex mu_;
  std::vector<CURL*> idle_;
};

HttpClient::HttpClient(HttpClientOptions options)
    : options_(options), pool_(std::make_unique<Pool>(options.max_idle_connections)) {
  InitCurlOnce();
}

HttpClient::~HttpClient() = default;

Result<HttpResponse> HttpClient::Send(const HttpRequest& req) {
  CURL* h = pool_->Acquire();
  if (h == nullptr) return Status::Internal("curl_easy_init failed");
  struct Releaser {
    Pool* pool;
    CURL* h;
    ~Releaser() { pool->Release(h); }
  } releaser{pool_.get(), h};

  HttpResponse resp;
  Transfer t{&req, &resp};
  char errbuf[CURL_ERROR_SIZE];
  errbuf[0] = '\0';

  std::unique_ptr<curl_slist, SlistDeleter> headers;
  auto add_header = [&headers](const std::string& line) {
    curl_slist* l = curl_slist_append(headers.get(), line.c_str());
    if (l != nullptr) {
      (void)headers.release();
      headers.reset(l);
    }
    return l != nullptr;
  };
  for (const auto& [name, value] : req.headers) {
    if (name.find_first_of("\r\n:") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("HTTP header '" + name + "' has a line break or colon");
    }
    if (!add_header(value.empty() ? name + ";" : name + ": " + value)) {
      return Status::Internal("out of memory building HTTP headers");
    }
  }
  add_header("Expect:");  // no 100-continue round trip

  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options_.low_speed_timeout_s));
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  if (req.timeout_ms > 0) {
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_ms));
  }
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
  curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, 1024L * 1024);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());
  static const char kEmpty[] = "";
  if (req.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (req.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (req.method == "PUT") {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, &OnRead);
    curl_easy_setopt(h, CURLOPT_READDATA, &t);
    curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, &OnSeek);
    curl_easy_setopt(h, CURLOPT_SEEKDATA, &t);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(req.body_size));
  } else if (req.method == "POST") {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS,
                     req.body ? reinterpret_cast<const char*>(req.body) : kEmpty);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body_size));
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }

  CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OK) return resp;
  std::string detail = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
  std::string what = req.method + " " + req.url + ": ";
  if (t.overflow) {
    return Status::Corruption(what + "response body longer than the " +
                              std::to_string(req.out_capacity) + " bytes requested");
  }
  if (t.too_large) {
    return Status::TooLarge(what + "response body over " + std::to_string(req.max_body) + " bytes");
  }
  switch (rc) {
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return Status::InvalidArgument(what + detail);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
      return Status::FailedPrecondition(what + "TLS: " + detail);
    case CURLE_OUT_OF_MEMORY:
      return Status::Internal(what + detail);
    default:
      return Status::Unavailable(what + detail);
  }
}

}  // namespace tarn::s3
