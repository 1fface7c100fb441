#include "objectstore/s3/s3_store.h"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <future>
#include <limits>
#include <mutex>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/discard.h"
#include "objectstore/s3/http_client.h"
#include "objectstore/s3/sigv4.h"
#include "objectstore/s3/xml.h"
#include "tarn/buffer.h"

namespace tarn {

using s3::HttpRequest;
using s3::HttpResponse;

namespace s3 {

bool IsIpOrLocalhost(std::string_view host) {
  if (host == "localhost" ||
      (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0)) {
    return true;
  }
  std::string h(host);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  unsigned char buf[16];
  return inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
}

namespace {

bool ParseDigits(std::string_view s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

bool ToMs(int year, int month, int day, int hour, int minute, int second, int ms, int64_t* out) {
  if (year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60) {
    return false;
  }
  struct tm tm = {};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  *out = static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
  return true;
}

}  // namespace

bool ParseHttpDate(std::string_view s, int64_t* ms) {
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  size_t comma = s.find(", ");
  if (comma == std::string_view::npos) return false;
  s.remove_prefix(comma + 2);
  if (s.size() != 24 || s[2] != ' ' || s[6] != ' ' || s[11] != ' ' || s[14] != ':' ||
      s[17] != ':' || s.substr(20) != " GMT") {
    return false;
  }
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int month = 0;
  for (int i = 0; i < 12; ++i) {
    if (s.substr(3, 3) == kMonths[i]) month = i + 1;
  }
  int day, year, hour, minute, second;
  if (month == 0 || !ParseDigits(s.substr(0, 2), &day) || !ParseDigits(s.substr(7, 4), &year) ||
      !ParseDigits(s.substr(12, 2), &hour) || !ParseDigits(s.substr(15, 2), &minute) ||
      !ParseDigits(s.substr(18, 2), &second)) {
    return false;
  }
  return ToMs(year, month, day, hour, minute, second, 0, ms);
}

bool ParseIsoDate(std::string_view s, int64_t* ms) {
  // "2009-10-12T17:50:30.000Z" (fraction optional)
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      s.back() != 'Z') {
    return false;
  }
  int year, month, day, hour, minute, second, frac = 0;
  if (!ParseDigits(s.substr(0, 4), &year) || !ParseDigits(s.substr(5, 2), &month) ||
      !ParseDigits(s.substr(8, 2), &day) || !ParseDigits(s.substr(11, 2), &hour) ||
      !ParseDigits(s.substr(14, 2), &minute) || !ParseDigits(s.substr(17, 2), &second)) {
    return false;
  }
  std::string_view rest = s.substr(19, s.size() - 20);
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2) return false;
    std::string_view digits = rest.substr(1, 3);
    if (!ParseDigits(digits, &frac)) return false;
    for (size_t i = digits.size(); i < 3; ++i) frac *= 10;
    for (char c : rest.substr(1)) {
      if (c < '0' || c > '9') return false;
    }
  }
  return ToMs(year, month, day, hour, minute, second, frac, ms);
}

}  // namespace s3

namespace {

constexpr uint64_t kMinPartSize = 5ULL << 20;
constexpr int kMaxParts = 10000;
constexpr size_t kDeleteBatch = 1000;
constexpr size_t kUnbounded = std::numeric_limits<size_t>::max();

bool ParseU64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

std::string StripQuotes(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

const char* Getenv(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

bool ValidBucketName(std::string_view b) {
  if (b.empty() || b.size() > 255) return false;
  for (char c : b) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool DnsCompatibleBucket(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return true;
}

// Retry delay before attempt `attempt` + 1: exponential with "equal jitter" (half fixed, half
// random), so retries back off surely but do not synchronise.
std::chrono::milliseconds Backoff(const S3Options& o, int attempt) {
  double cap = static_cast<double>(o.retry_max_delay_ms);
  double delay = static_cast<double>(o.retry_base_delay_ms);
  for (int i = 1; i < attempt && delay < cap; ++i) delay *= 2;
  if (delay > cap) delay = cap;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.0, delay / 2);
  return std::chrono::milliseconds(static_cast<int64_t>(delay / 2 + jitter(rng)));
}

bool IsRetryableHttp(int status) { return status == 429 || (status >= 500 && status != 501); }

Status StatusForHttp(int status, std::string_view code, std::string_view message,
                     const std::string& what, std::string_view region_hint) {
  std::string msg = what + ": HTTP " + std::to_string(status);
  if (!code.empty()) msg += " " + std::string(code);
  if (!message.empty()) msg += ": " + std::string(message);
  Status st;
  if (status == 404) {
    st = Status::NotFound(std::move(msg));
  } else if (status == 401 || status == 403) {
    st = Status::PermissionDenied(std::move(msg));
  } else if (status == 412) {
    st = Status::FailedPrecondition(std::move(msg));
  } else if (status == 409) {
    st = Status::Conflict(std::move(msg));
  } else if (status == 413) {
    st = Status::TooLarge(std::move(msg));
  } else if (status == 429 || (status >= 500 && status != 501)) {
    st = Status::Unavailable(std::move(msg));
  } else if (status >= 300 && status < 400) {
    if (!region_hint.empty()) msg += " (the bucket is in region " + std::string(region_hint) + ")";
    st = Status::InvalidArgument(std::move(msg));
  } else {
    st = Status::InvalidArgument(std::move(msg));
  }
  if (!code.empty()) st = std::move(st).WithField("s3_code", std::string(code));
  return st;
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Options

Result<S3Options> S3Options::FromEnvironment() {
  S3Options o;
  if (const char* v = Getenv("AWS_ACCESS_KEY_ID")) o.access_key_id = v;
  if (const char* v = Getenv("AWS_SECRET_ACCESS_KEY")) o.secret_access_key = v;
  if (const char* v = Getenv("AWS_SESSION_TOKEN")) o.session_token = v;
  if (const char* v = Getenv("AWS_REGION")) {
    o.region = v;
  } else if (const char* d = Getenv("AWS_DEFAULT_REGION")) {
    o.region = d;
  }
  if (const char* v = Getenv("AWS_ENDPOINT_URL_S3")) {
    o.endpoint = v;
  } else if (const char* e = Getenv("AWS_ENDPOINT_URL")) {
    o.endpoint = e;
  }
  if (const char* v = Getenv("TARN_S3_ADDRESSING")) {
    std::string_view a(v);
    if (a == "path") {
      o.addressing = Addressing::kPath;
    } else if (a == "virtual") {
      o.addressing = Addressing::kVirtualHost;
    } else if (a == "auto") {
      o.addressing = Addressing::kAuto;
    } else {
      return Status::InvalidArgument("TARN_S3_ADDRESSING must be path, virtual or auto, not '" +
                                     std::string(a) + "'");
    }
  }
  return o;
}

Result<S3Options> S3Options::FromUri(std::string_view uri) {
  bool gs = uri.rfind("gs://", 0) == 0;
  if (!gs && uri.rfind("s3://", 0) != 0) {
    return Status::InvalidArgument("not an s3:// or gs:// URI: '" + std::string(uri) + "'");
  }
  TARN_ASSIGN_OR_RETURN(S3Options o, FromEnvironment());
  std::string_view rest = uri.substr(5);
  size_t slash = rest.find('/');
  o.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) o.prefix = std::string(rest.substr(slash + 1));
  if (gs) {
    o.scheme = "gs";
    const char* endpoint = Getenv("TARN_GCS_ENDPOINT");
    o.endpoint = endpoint ? endpoint : "https://storage.googleapis.com";
    o.region = "auto";
    o.addressing = Addressing::kPath;
    o.batch_delete = false;
  }
  return o;
}

// ------------------------------------------------------------------------------------------
// Impl: request building, signing, retries, and the S3 operations.

class S3ObjectStore::Impl : public std::enable_shared_from_this<S3ObjectStore::Impl> {
 public:
  struct Call {
    Call(std::string_view m, std::string_view k,
         std::vector<std::pair<std::string, std::string>> q = {})
        : method(m), key(k), query(std::move(q)) {}
    std::string_view method;
    std::string_view key;  // full key in the bucket; "" = the bucket itself
    std::vector<std::pair<std::string, std::string>> query;
    s3::HeaderList headers;
    const uint8_t* body = nullptr;
    size_t body_size = 0;
    uint8_t* out = nullptr;
    size_t out_capacity = 0;
    size_t max_body = 16 << 20;
  };

  Impl(S3Options o, std::string scheme_host, std::string host_header, std::string path_base)
      : opt(std::move(o)),
        scheme_host_(std::move(scheme_host)),
        host_header_(std::move(host_header)),
        path_base_(std::move(path_base)),
        http_(s3::HttpClientOptions{opt.connect_timeout_ms, opt.low_speed_timeout_s,
                                    opt.max_idle_connections}) {
    uri = opt.scheme + "://" + opt.bucket;
    if (!opt.prefix.empty()) {
      uri += "/" + opt.prefix;
      key_base = opt.prefix + "/";
    }
  }

  std::string FullKey(std::string_view key) const { return key_base + std::string(key); }
  std::string UriOfFull(std::string_view full) const {
    return opt.scheme + "://" + opt.bucket + "/" + std::string(full);
  }

  // Sends a call, retrying transport failures, 429 and 5xx with backoff. A non-2xx answer is
  // returned as a Status (with the S3 error code and message) prefixed by `what`.
  Result<HttpResponse> Execute(const Call& call, const std::string& what) {
    std::string payload_hash;
    if (!opt.access_key_id.empty()) {
      payload_hash = call.body_size <= opt.max_signed_payload
                         ? (call.body_size == 0 ? std::string(s3::kEmptySha256)
                                                : s3::Sha256Hex(call.body, call.body_size))
                         : std::string(s3::kUnsignedPayload);
    }
    std::string path = call.key.empty() && !path_base_.empty()
                           ? path_base_
                           : path_base_ + "/" + s3::UriEncode(call.key, false);
    std::string query = s3::CanonicalQuery(call.query);
    HttpRequest req;
    req.method = std::string(call.method);
    req.url = scheme_host_ + path + (query.empty() ? "" : "?" + query);
    req.body = call.body;
    req.body_size = call.body_size;
    req.out = call.out;
    req.out_capacity = call.out_capacity;
    req.max_body = call.max_body;

    int max_attempts = opt.max_attempts < 1 ? 1 : opt.max_attempts;
    for (int attempt = 1;; ++attempt) {
      req.headers.clear();
      req.headers.emplace_back("Host", host_header_);
      for (const auto& h : call.headers) req.headers.push_back(h);
      if (!opt.access_key_id.empty()) {
        std::string amz_date = s3::AmzDate(Clock::Real()->NowSeconds());
        req.headers.emplace_back("x-amz-date", amz_date);
        req.headers.emplace_back("x-amz-content-sha256", payload_hash);
        if (!opt.session_token.empty()) {
          req.headers.emplace_back("x-amz-security-token", opt.session_token);
        }
        s3::SigV4Request sreq{call.method, path, call.query, req.headers, payload_hash};
        s3::SigV4Key skey{opt.access_key_id, opt.secret_access_key, opt.region, "s3"};
        req.headers.emplace_back("Authorization", s3::SignV4(sreq, skey, amz_date).authorization);
      }
      requests_.fetch_add(1);
      Result<HttpResponse> resp = http_.Send(req);
      bool last = attempt >= max_attempts;
      if (!resp.ok()) {
        if (resp.status().kind() == ErrorKind::kUnavailable && !last) {
          Retry(attempt);
          continue;
        }
        Status st = resp.status().WithContext(what);
        if (resp.status().kind() == ErrorKind::kUnavailable && attempt > 1) {
          st = st.WithContext("after " + std::to_string(attempt) + " attempts");
        }
        return st;
      }
      int status = resp->status;
      if (status >= 200 && status < 300) return resp;
      std::string code, message;
      if (!resp->body.empty()) {
        Result<s3::XmlNode> xml = s3::ParseXml(resp->body);
        if (xml.ok() && xml->name == "Error") {
          code = std::string(xml->ChildText("Code"));
          message = std::string(xml->ChildText("Message"));
        }
      }
      if (IsRetryableHttp(status) && !last) {
        Retry(attempt);
        continue;
      }
      Status st = StatusForHttp(status, code, message, what, resp->Header("x-amz-bucket-region"));
      if (IsRetryableHttp(status) && attempt > 1) {
        st = st.WithContext("after " + std::to_string(attempt) + " attempts");
      }
      return st;
    }
  }

  void Retry(int attempt) {
    retries_.fetch_add(1);
    std::this_thread::sleep_for(Backoff(opt, attempt));
  }

  Result<ObjectInfo> Head(std::string_view full) {
    Call call{"HEAD", full};
    TARN_ASSIGN_OR_RETURN(HttpResponse resp, Execute(call, "HEAD " + UriOfFull(full)));
    ObjectInfo info;
    if (!ParseU64(resp.Header("content-length"), &info.size)) {
      return Status::Corruption("HEAD " + UriOfFull(full) + ": missing or bad Content-Length");
    }
    info.etag = StripQuotes(resp.Header("etag"));
    int64_t ms = 0;
    if (s3::ParseHttpDate(resp.Header("last-modified"), &ms)) info.mtime_ms = ms;
    return info;
  }

  // One PutObject; with if_absent, If-None-Match: * (412 = exists).
  Status PutObject(std::string_view full, const uint8_t* data, size_t n, bool if_absent) {
    std::string what = "PUT " + UriOfFull(full);
    Call call{"PUT", full};
    call.body = data;
    call.body_size = n;
    if (if_absent) call.headers.emplace_back("If-None-Match", "*");
    Result<HttpResponse> resp = Execute(call, what);
    if (resp.ok()) return Status::OK();
    const Status& st = resp.status();
    if (if_absent && st.kind() == ErrorKind::kFailedPrecondition) {
      return Status::FailedPrecondition(UriOfFull(full) + " already exists (conditional create)");
    }
    if (if_absent && st.kind() == ErrorKind::kInvalidArgument &&
        st.message().find("HTTP 501") != std::string::npos) {
      // The backend does not implement conditional writes: check, then write (racy; README).
      Result<ObjectInfo> head = Head(full);
      if (head.ok()) {
        return Status::FailedPrecondition(UriOfFull(full) + " already exists (conditional create)");
      }
      if (head.status().kind() != ErrorKind::kNotFound) return head.status();
      return PutObject(full, data, n, false);
    }
    return st;
  }

  Result<std::string> CreateMultipart(std::string_view full) {
    std::string what = "starting multipart upload of " + UriOfFull(full);
    Call call{"POST", full, {{"uploads", ""}}};
    TARN_ASSIGN_OR_RETURN(HttpResponse resp, Execute(call, what));
    TARN_ASSIGN_OR_RETURN(s3::XmlNode xml, s3::ParseXml(resp.body));
    std::string_view id = xml.ChildText("UploadId");
    if (xml.name != "InitiateMultipartUploadResult" || id.empty()) {
      return Status::Corruption(what + ": no UploadId in the response");
    }
    return std::string(id);
  }

  Result<std::string> UploadPart(const std::string& full, const std::string& upload_id, int number,
                                 const uint8_t* data, size_t n) {
    std::string what = "uploading part " + std::to_string(number) + " of " + UriOfFull(full);
    Call call{"PUT", full, {{"partNumber", std::to_string(number)}, {"uploadId", upload_id}}};
    call.body = data;
    call.body_size = n;
    TARN_ASSIGN_OR_RETURN(HttpResponse resp, Execute(call, what));
    std::string_view etag = resp.Header("etag");
    if (etag.empty()) return Status::Corruption(what + ": no ETag in the response");
    return std::string(etag);
  }

  Status CompleteMultipart(const std::string& full, const std::string& upload_id,
                           const std::vector<std::pair<int, std::string>>& parts, bool if_absent) {
    std::string what = "completing multipart upload of " + UriOfFull(full);
    std::string body = "<CompleteMultipartUpload>";
    for (const auto& [number, etag] : parts) {
      body += "<Part><PartNumber>" + std::to_string(number) + "</PartNumber><ETag>" +
              s3::XmlEscape(etag) + "</ETag></Part>";
    }
    body += "</CompleteMultipartUpload>";
    Call call{"POST", full, {{"uploadId", upload_id}}};
    call.headers.emplace_back("Content-Type", "application/xml");
    if (if_absent) call.headers.emplace_back("If-None-Match", "*");
    call.body = reinterpret_cast<const uint8_t*>(body.data());
    call.body_size = body.size();
    int max_attempts = opt.max_attempts < 1 ? 1 : opt.max_attempts;
    for (int attempt = 1;; ++attempt) {
      Result<HttpResponse> resp = Execute(call, what);
      if (!resp.ok()) {
        if (if_absent && resp.status().kind() == ErrorKind::kFailedPrecondition) {
          return Status::FailedPrecondition(UriOfFull(full) +
                                            " already exists (conditional create)");
        }
        return resp.status();
      }
      // S3 may answer 200 and report the failure in the body.
      if (resp->body.find("<Error") == std::string::npos) return Status::OK();
      Result<s3::XmlNode> xml = s3::ParseXml(resp->body);
      if (!xml.ok() || xml->name != "Error") return Status::OK();
      std::string_view code = xml->ChildText("Code");
      bool retryable =
          code == "InternalError" || code == "SlowDown" || code == "ServiceUnavailable";
      if (!retryable || attempt >= max_attempts) {
        return StatusForHttp(retryable ? 503 : 400, code, xml->ChildText("Message"), what, "");
      }
      Retry(attempt);
    }
  }

  // One ranged GET of [offset, offset + n) into out; If-Match on `etag` when known.
  Status ReadRange(const std::string& full, const std::string& etag, uint64_t size, uint64_t offset,
                   size_t n, uint8_t* out) {
    if (n == 0) return Status::OK();
    Call call{"GET", full};
    call.headers.emplace_back(
        "Range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + n - 1));
    if (!etag.empty()) call.headers.emplace_back("If-Match", "\"" + etag + "\"");
    call.out = out;
    call.out_capacity = n;
    std::string what = "reading " + std::to_string(n) + " bytes at " + std::to_string(offset) +
                       " of " + UriOfFull(full);
    TARN_ASSIGN_OR_RETURN(HttpResponse resp, Execute(call, what));
    bool whole = resp.status == 200 && offset == 0 && n == size;
    if ((resp.status != 206 && !whole) || resp.out_size != n) {
      return Status::Corruption(what + ": got HTTP " + std::to_string(resp.status) + " with " +
                                std::to_string(resp.out_size) + " bytes");
    }
    return Status::OK();
  }

  // A read of any size: ranges of read_chunk_size fetched download_concurrency at a time.
  Status ReadRanges(const std::string& full, const std::string& etag, uint64_t size,
                    uint64_t offset, size_t n, uint8_t* out) {
    uint64_t chunk = opt.read_chunk_size < (1 << 20) ? (1 << 20) : opt.read_chunk_size;
    size_t workers =
        opt.download_concurrency < 1 ? 1 : static_cast<size_t>(opt.download_concurrency);
    size_t chunks = static_cast<size_t>((n + chunk - 1) / chunk);
    if (chunks <= 1 || workers == 1) return ReadRange(full, etag, size, offset, n, out);
    std::atomic<size_t> next{0};
    std::mutex mu;
    Status first_error;
    std::atomic<bool> failed{false};
    auto work = [&] {
      for (size_t i; !failed && (i = next.fetch_add(1)) < chunks;) {
        uint64_t begin = i * chunk;
        size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, n - begin));
        Status st = ReadRange(full, etag, size, offset + begin, len, out + begin);
        if (!st.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          if (first_error.ok()) first_error = std::move(st);
          failed = true;
        }
      }
    };
    std::vector<std::thread> threads;
    for (size_t t = 1; t < std::min(workers, chunks); ++t) {
      try {
        threads.emplace_back(work);
      } catch (const std::system_error&) {
        break;  // fewer threads, same result
      }
    }
    work();
    for (auto& t : threads) t.join();
    return first_error;
  }

  void AbortMultipart(const std::string& full, const std::string& upload_id) {
    Call call{"DELETE", full, {{"uploadId", upload_id}}};
    std::string what = "aborting multipart upload of " + UriOfFull(full);
    DiscardError(Execute(call, what), what);
  }

  S3Options opt;
  std::string uri;
  std::string key_base;  // "<prefix>/" or ""
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> retries_{0};

  bool path_style() const { return !path_base_.empty(); }

 private:
  std::string scheme_host_;  // "http://127.0.0.1:8000" or "https://bucket.s3.amazonaws.com"
  std::string host_header_;
  std::string path_base_;  // "/bucket" (path style) or "" (virtual host)
  s3::HttpClient http_;
};

namespace {

// A reader: each ReadAt is one ranged GET guarded by If-Match on the ETag seen when opened.
class S3File : public RandomAccessFile {
 public:
  S3File(std::shared_ptr<S3ObjectStore::Impl> impl, std::string full, ObjectInfo info)
      : impl_(std::move(impl)),
        full_(std::move(full)),
        info_(std::move(info)),
        name_(impl_->UriOfFull(full_)) {}
  uint64_t Size() const override { return info_.size; }
  const std::string& name() const override { return name_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > info_.size || n > info_.size - offset) {
      return Status::Corruption(name_ + ": read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " is past the end (size " +
                                std::to_string(info_.size) + ")");
    }
    Status st = impl_->ReadRanges(full_, info_.etag, info_.size, offset, n, out);
    if (st.kind() == ErrorKind::kFailedPrecondition) {
      return Status::FailedPrecondition(name_ + " changed since it was opened");
    }
    return st;
  }

 private:
  std::shared_ptr<S3ObjectStore::Impl> impl_;
  std::string full_;
  ObjectInfo info_;
  std::string name_;
};

// Streaming writer: up to one part is buffered; a full part is sent (after the next byte
// arrives, so an object of exactly one part is a single PUT) by a background task while the
// next fills, at most upload_concurrency at once. Close sends a small object as one PUT, or
// the last part and CompleteMultipartUpload. Any failure or destruction before Close aborts the
// upload.
class S3Writer : public OutputStream {
 public:
  S3Writer(std::shared_ptr<S3ObjectStore::Impl> impl, std::string full, bool if_absent,
           uint64_t part_size)
      : impl_(std::move(impl)),
        full_(std::move(full)),
        if_absent_(if_absent),
        base_part_size_(part_size),
        part_size_(part_size) {}

  ~S3Writer() override {
    if (!upload_id_.empty()) {
      DrainInflight();
      impl_->AbortMultipart(full_, upload_id_);
    }
  }

  Status Write(const uint8_t* data, size_t n) override {
    if (!failed_.ok()) return failed_;
    if (closed_) return Status::FailedPrecondition("write to a closed object " + Name());
    while (n > 0) {
      if (buf_.size() >= part_size_) {
        Status st = SendPart();
        if (!st.ok()) return Fail(std::move(st));
      }
      size_t take = static_cast<size_t>(std::min<uint64_t>(n, part_size_ - buf_.size()));
      buf_.insert(buf_.end(), data, data + take);
      data += take;
      n -= take;
      written_ += take;
    }
    return Status::OK();
  }

  uint64_t Tell() const override { return written_; }

  Status Close() override {
    if (!failed_.ok()) return failed_;
    if (closed_) return Status::OK();
    closed_ = true;
    if (upload_id_.empty()) {
      Status st = impl_->PutObject(full_, buf_.data(), buf_.size(), if_absent_);
      ByteBuffer().swap(buf_);
      if (!st.ok()) failed_ = st;
      return st;
    }
    if (!buf_.empty()) {
      Status st = SendPart();
      if (!st.ok()) return Fail(std::move(st));
    }
    while (!inflight_.empty()) {
      Status st = WaitOldest();
      if (!st.ok()) return Fail(std::move(st));
    }
    if (if_absent_) {
      // Backends that ignore If-None-Match on CompleteMultipartUpload still get a check (racy).
      Result<ObjectInfo> head = impl_->Head(full_);
      if (head.ok()) {
        return Fail(Status::FailedPrecondition(Name() + " already exists (conditional create)"));
      }
      if (head.status().kind() != ErrorKind::kNotFound) return Fail(head.status());
    }
    Status st = impl_->CompleteMultipart(full_, upload_id_, parts_, if_absent_);
    if (!st.ok()) return Fail(std::move(st));
    upload_id_.clear();
    return Status::OK();
  }

 private:
  struct Inflight {
    int number;
    std::shared_ptr<ByteBuffer> bytes;
    std::future<Result<std::string>> etag;
  };

  std::string Name() const { return impl_->UriOfFull(full_); }

  // Size of part `number` (1-based): the base size, doubled every 4 parts up to the maximum.
  uint64_t PartSizeFor(int number) const {
    uint64_t cap = std::max(base_part_size_, impl_->opt.max_part_size);
    uint64_t size = base_part_size_;
    for (int i = (number - 1) / 4; i > 0 && size < cap; --i) size *= 2;
    return std::min(size, cap);
  }

  Status Fail(Status st) {
    failed_ = st;
    if (!upload_id_.empty()) {
      DrainInflight();
      impl_->AbortMultipart(full_, upload_id_);
      upload_id_.clear();
    }
    ByteBuffer().swap(buf_);
    return st;
  }

  void DrainInflight() {
    while (!inflight_.empty()) {
      if (inflight_.front().etag.valid()) {
        DiscardError(inflight_.front().etag.get(), "a part of an abandoned multipart upload");
      }
      inflight_.pop_front();
    }
  }

  Status WaitOldest() {
    Inflight part = std::move(inflight_.front());
    inflight_.pop_front();
    Result<std::string> etag = part.etag.get();
    if (!etag.ok()) return etag.status();
    parts_.emplace_back(part.number, std::move(*etag));
    part.bytes->clear();
    spare_.push_back(std::move(part.bytes));
    return Status::OK();
  }

  // Sends buf_ as the next part (starting the multipart upload first if needed).
  Status SendPart() {
    if (upload_id_.empty()) {
      TARN_ASSIGN_OR_RETURN(upload_id_, impl_->CreateMultipart(full_));
    }
    int number = static_cast<int>(parts_.size() + inflight_.size()) + 1;
    if (number > kMaxParts) {
      return Status::TooLarge(Name() + ": more than " + std::to_string(kMaxParts) +
                              " parts (use a larger part size)");
    }
    size_t concurrency =
        impl_->opt.upload_concurrency < 1 ? 1 : static_cast<size_t>(impl_->opt.upload_concurrency);
    while (inflight_.size() >= concurrency) TARN_RETURN_NOT_OK(WaitOldest());
    auto bytes = std::make_shared<ByteBuffer>(std::move(buf_));
    if (!spare_.empty()) {
      buf_ = std::move(*spare_.back());
      spare_.pop_back();
    } else {
      buf_ = ByteBuffer();
    }
    part_size_ = PartSizeFor(number + 1);
    if (buf_.capacity() < part_size_) buf_.reserve(part_size_);
    std::shared_ptr<S3ObjectStore::Impl> impl = impl_;
    std::string full = full_;
    std::string upload_id = upload_id_;
    auto task = [impl, full, upload_id, number, bytes]() {
      return impl->UploadPart(full, upload_id, number, bytes->data(), bytes->size());
    };
    Inflight part{number, bytes, {}};
    if (concurrency > 1) {
      try {
        part.etag = std::async(std::launch::async, task);
      } catch (const std::system_error&) {
        part.etag = std::async(std::launch::deferred, task);  // no thread: upload when waited on
      }
    } else {
      part.etag = std::async(std::launch::deferred, task);
      inflight_.push_back(std::move(part));
      return WaitOldest();
    }
    inflight_.push_back(std::move(part));
    return Status::OK();
  }

  std::shared_ptr<S3ObjectStore::Impl> impl_;
  std::string full_;
  bool if_absent_;
  uint64_t base_part_size_;
  uint64_t part_size_;
  ByteBuffer buf_;
  std::vector<std::shared_ptr<ByteBuffer>> spare_;
  uint64_t written_ = 0;
  std::string upload_id_;
  std::deque<Inflight> inflight_;
  std::vector<std::pair<int, std::string>> parts_;
  bool closed_ = false;
  Status failed_;
};

}  // namespace

// ------------------------------------------------------------------------------------------
// S3ObjectStore

Result<std::shared_ptr<S3ObjectStore>> S3ObjectStore::Make(S3Options o) {
  if (!ValidBucketName(o.bucket)) {
    return Status::InvalidArgument("bad bucket name '" + o.bucket + "'");
  }
  while (!o.prefix.empty() && o.prefix.back() == '/') o.prefix.pop_back();
  while (!o.prefix.empty() && o.prefix.front() == '/') o.prefix.erase(0, 1);
  if (!o.prefix.empty()) {
    Status st = ValidateKey(o.prefix);
    if (!st.ok()) return st.WithContext("bucket prefix");
  }
  if (o.region.empty()) o.region = "us-east-1";
  if (o.part_size < kMinPartSize) {
    return Status::InvalidArgument("part size " + std::to_string(o.part_size) +
                                   " is below S3's minimum of 5 MiB");
  }
  if (o.part_size > (5ULL << 30) || o.max_part_size > (5ULL << 30)) {
    return Status::InvalidArgument("part size above S3's maximum of 5 GiB");
  }
  if (!o.access_key_id.empty() && o.secret_access_key.empty()) {
    return Status::InvalidArgument("an S3 access key id without a secret access key");
  }
  std::string endpoint =
      o.endpoint.empty() ? "https://s3." + o.region + ".amazonaws.com" : o.endpoint;
  size_t scheme_end = endpoint.find("://");
  if (scheme_end == std::string::npos) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' has no http:// or https://");
  }
  std::string scheme = endpoint.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument("S3 endpoint '" + endpoint + "' is not http(s)");
  }
  std::string authority = endpoint.substr(scheme_end + 3);
  while (!authority.empty() && authority.back() == '/') authority.pop_back();
  if (authority.empty() || authority.find_first_of("/?#@ ") != std::string::npos) {
    return Status::InvalidArgument("S3 endpoint '" + endpoint +
                                   "' must be scheme://host[:port] without a path");
  }
  std::string host = authority;
  if (host.front() == '[') {
    host = host.substr(0, host.find(']') + 1);
  } else if (size_t colon = host.rfind(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  bool path_style;
  switch (o.addressing) {
    case S3Options::Addressing::kPath:
      path_style = true;
      break;
    case S3Options::Addressing::kVirtualHost:
      path_style = false;
      break;
    default:
      path_style = s3::IsIpOrLocalhost(host) || !DnsCompatibleBucket(o.bucket) ||
                   (scheme == "https" && o.bucket.find('.') != std::string::npos);
  }
  std::string host_header = path_style ? authority : o.bucket + "." + authority;
  std::string path_base = path_style ? "/" + s3::UriEncode(o.bucket, true) : "";
  auto impl =
      std::make_shared<Impl>(std::move(o), scheme + "://" + host_header, host_header, path_base);
  return std::shared_ptr<S3ObjectStore>(new S3ObjectStore(std::move(impl)));
}

S3ObjectStore::S3ObjectStore(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
S3ObjectStore::~S3ObjectStore() = default;

const std::string& S3ObjectStore::uri() const { return impl_->uri; }
const S3Options& S3ObjectStore::options() const { return impl_->opt; }
bool S3ObjectStore::path_style() const { return impl_->path_style(); }

S3Stats S3ObjectStore::stats() const {
  return S3Stats{impl_->requests_.load(), impl_->retries_.load()};
}

Result<ObjectInfo> S3ObjectStore::Head(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  TARN_ASSIGN_OR_RETURN(ObjectInfo info, impl_->Head(impl_->FullKey(key)));
  info.key = std::string(key);
  return info;
}

Result<std::string> S3ObjectStore::Get(std::string_view key) {
  // One plain GET (the body is reserved from Content-Length). Big objects read faster through
  // OpenRead, whose reads are split into parallel ranges; a parallel Get would have to zero-fill
  // its std::string first, which costs more than it gains.
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::string full = impl_->FullKey(key);
  Impl::Call call{"GET", full};
  call.max_body = kUnbounded;
  TARN_ASSIGN_OR_RETURN(HttpResponse resp, impl_->Execute(call, "GET " + impl_->UriOfFull(full)));
  return std::move(resp.body);
}

Result<std::shared_ptr<RandomAccessFile>> S3ObjectStore::OpenRead(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::string full = impl_->FullKey(key);
  TARN_ASSIGN_OR_RETURN(ObjectInfo info, impl_->Head(full));
  info.key = std::string(key);
  return std::shared_ptr<RandomAccessFile>(new S3File(impl_, std::move(full), std::move(info)));
}

Status S3ObjectStore::Put(std::string_view key, std::string_view data,
                          const WriteOptions& options) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  if (data.size() > (5ULL << 30)) {  // above S3's single-PUT limit: multipart
    TARN_ASSIGN_OR_RETURN(auto out, OpenWrite(key, options));
    TARN_RETURN_NOT_OK(out->Write(data));
    return out->Close();
  }
  return impl_->PutObject(impl_->FullKey(key), reinterpret_cast<const uint8_t*>(data.data()),
                          data.size(), options.if_absent);
}

Result<std::unique_ptr<OutputStream>> S3ObjectStore::OpenWrite(std::string_view key,
                                                               const WriteOptions& options) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  uint64_t part_size = options.part_size ? options.part_size : impl_->opt.part_size;
  if (part_size < kMinPartSize || part_size > (5ULL << 30)) {
    return Status::InvalidArgument("part size " + std::to_string(part_size) +
                                   " is outside S3's 5 MiB .. 5 GiB");
  }
  return std::unique_ptr<OutputStream>(
      new S3Writer(impl_, impl_->FullKey(key), options.if_absent, part_size));
}

Result<ListPage> S3ObjectStore::List(std::string_view prefix, std::string_view token,
                                     size_t max_keys) {
  TARN_RETURN_NOT_OK(ValidatePrefix(prefix));
  if (max_keys == 0) max_keys = impl_->opt.list_page_size;
  if (max_keys > 1000) max_keys = 1000;
  std::string full_prefix = impl_->key_base + std::string(prefix);
  Impl::Call call{"GET", ""};
  call.query = {
      {"list-type", "2"}, {"prefix", full_prefix}, {"max-keys", std::to_string(max_keys)}};
  if (!token.empty()) call.query.emplace_back("continuation-token", std::string(token));
  std::string what = "listing " + impl_->UriOfFull(full_prefix);
  TARN_ASSIGN_OR_RETURN(HttpResponse resp, impl_->Execute(call, what));
  Result<s3::XmlNode> parsed = s3::ParseXml(resp.body);
  if (!parsed.ok()) return parsed.status().WithContext(what);
  const s3::XmlNode& xml = *parsed;
  if (xml.name != "ListBucketResult") {
    return Status::Corruption(what + ": expected ListBucketResult, got " + xml.name);
  }
  ListPage page;
  for (const s3::XmlNode& c : xml.children) {
    if (c.name != "Contents") continue;
    std::string_view full_key = c.ChildText("Key");
    if (full_key.size() < impl_->key_base.size() ||
        full_key.compare(0, impl_->key_base.size(), impl_->key_base) != 0) {
      continue;  // not under our prefix (a misbehaving server)
    }
    ObjectInfo info;
    info.key = std::string(full_key.substr(impl_->key_base.size()));
    if (info.key.empty()) continue;  // the "directory marker" object equal to the prefix
    if (!ParseU64(c.ChildText("Size"), &info.size)) {
      return Status::Corruption(what + ": bad Size for " + info.key);
    }
    info.etag = StripQuotes(c.ChildText("ETag"));
    int64_t ms = 0;
    if (s3::ParseIsoDate(c.ChildText("LastModified"), &ms)) info.mtime_ms = ms;
    page.objects.push_back(std::move(info));
  }
  if (xml.ChildText("IsTruncated") == "true") {
    page.next_token = std::string(xml.ChildText("NextContinuationToken"));
    if (page.next_token.empty()) {
      return Status::Corruption(what + ": truncated listing without a continuation token");
    }
  }
  return page;
}

Status S3ObjectStore::Delete(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::string full = impl_->FullKey(key);
  Impl::Call call{"DELETE", full};
  Result<HttpResponse> resp = impl_->Execute(call, "DELETE " + impl_->UriOfFull(full));
  if (!resp.ok() && resp.status().kind() != ErrorKind::kNotFound) return resp.status();
  return Status::OK();
}

Status S3ObjectStore::DeleteMany(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) TARN_RETURN_NOT_OK(ValidateKey(key));
  if (!impl_->opt.batch_delete) return ObjectStore::DeleteMany(keys);
  for (size_t begin = 0; begin < keys.size(); begin += kDeleteBatch) {
    size_t end = std::min(keys.size(), begin + kDeleteBatch);
    std::vector<std::string> batch;
    for (size_t i = begin; i < end; ++i) batch.push_back(impl_->FullKey(keys[i]));
    int max_attempts = impl_->opt.max_attempts < 1 ? 1 : impl_->opt.max_attempts;
    for (int attempt = 1; !batch.empty(); ++attempt) {
      std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
      for (const std::string& full : batch) {
        body += "<Object><Key>" + s3::XmlEscape(full) + "</Key></Object>";
      }
      body += "</Delete>";
      Impl::Call call{"POST", "", {{"delete", ""}}};
      call.headers.emplace_back("Content-Type", "application/xml");
      call.headers.emplace_back("Content-MD5", s3::Md5Base64(body));
      call.body = reinterpret_cast<const uint8_t*>(body.data());
      call.body_size = body.size();
      std::string what = "deleting " + std::to_string(batch.size()) + " objects under " + uri();
      TARN_ASSIGN_OR_RETURN(HttpResponse resp, impl_->Execute(call, what));
      TARN_ASSIGN_OR_RETURN(s3::XmlNode xml, s3::ParseXml(resp.body));
      if (xml.name != "DeleteResult") {
        return Status::Corruption(what + ": expected DeleteResult, got " + xml.name);
      }
      std::vector<std::string> retry;
      for (const s3::XmlNode& c : xml.children) {
        if (c.name != "Error") continue;
        std::string_view code = c.ChildText("Code");
        if (code == "NoSuchKey") continue;
        bool retryable =
            code == "InternalError" || code == "SlowDown" || code == "ServiceUnavailable";
        if (!retryable || attempt >= max_attempts) {
          int status = code == "AccessDenied" ? 403 : (retryable ? 503 : 400);
          return StatusForHttp(status, code, c.ChildText("Message"),
                               what + " (" + std::string(c.ChildText("Key")) + ")", "");
        }
        retry.emplace_back(c.ChildText("Key"));
      }
      batch = std::move(retry);
      if (!batch.empty()) impl_->Retry(attempt);
    }
  }
  return Status::OK();
}

Status S3ObjectStore::CreateBucket() {
  Impl::Call call{"PUT", ""};
  std::string body;
  if (impl_->opt.region != "us-east-1" && impl_->opt.region != "auto") {
    body = "<CreateBucketConfiguration><LocationConstraint>" + s3::XmlEscape(impl_->opt.region) +
           "</LocationConstraint></CreateBucketConfiguration>";
    call.body = reinterpret_cast<const uint8_t*>(body.data());
    call.body_size = body.size();
  }
  Result<HttpResponse> resp =
      impl_->Execute(call, "creating bucket " + impl_->opt.scheme + "://" + impl_->opt.bucket);
  if (resp.ok()) return Status::OK();
  for (const auto& [name, value] : resp.status().fields()) {
    if (name == "s3_code" && value == "BucketAlreadyOwnedByYou") return Status::OK();
  }
  return resp.status();
}

Result<std::vector<std::pair<std::string, std::string>>> S3ObjectStore::ListPendingUploads() {
  Impl::Call call{"GET", "", {{"uploads", ""}, {"prefix", impl_->key_base}}};
  std::string what = "listing multipart uploads under " + uri();
  TARN_ASSIGN_OR_RETURN(HttpResponse resp, impl_->Execute(call, what));
  TARN_ASSIGN_OR_RETURN(s3::XmlNode xml, s3::ParseXml(resp.body));
  if (xml.name != "ListMultipartUploadsResult") {
    return Status::Corruption(what + ": expected ListMultipartUploadsResult, got " + xml.name);
  }
  std::vector<std::pair<std::string, std::string>> uploads;
  for (const s3::XmlNode& c : xml.children) {
    if (c.name != "Upload") continue;
    std::string_view key = c.ChildText("Key");
    if (key.compare(0, impl_->key_base.size(), impl_->key_base) != 0) continue;
    uploads.emplace_back(std::string(key.substr(impl_->key_base.size())),
                         std::string(c.ChildText("UploadId")));
  }
  return uploads;
}

}  // namespace tarn
