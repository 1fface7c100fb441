// S3ObjectStore: objects in an S3-compatible bucket (AWS S3, Ceph RGW, MinIO, R2, GCS through
// its XML API), spoken directly over HTTP with SigV4 signatures. No SDK; libcurl and OpenSSL
// stay inside the .cc files.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "objectstore/object_store.h"

namespace tarn {

struct S3Options {
  std::string bucket;
  // Keys live under "<prefix>/" in the bucket ("" = the bucket's root). No leading or trailing
  // '/'.
  std::string prefix;
  // "http(s)://host[:port]"; empty = AWS, https://s3.<region>.amazonaws.com.
  std::string endpoint;
  std::string region = "us-east-1";
  // Empty access key = anonymous, unsigned requests (public buckets).
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;

  enum class Addressing { kAuto, kPath, kVirtualHost };
  // kAuto: path style (http://host/bucket/key) for an IP address or localhost endpoint, virtual
  // host style (http://bucket.host/key) otherwise.
  Addressing addressing = Addressing::kAuto;
  // Scheme shown in uri(): "s3" or "gs".
  std::string scheme = "s3";
  // DeleteObjects for DeleteMany; false = one DELETE per key (GCS has no batch delete).
  bool batch_delete = true;

  // Multipart: streaming writes send parts of part_size (>= 5 MiB, S3's minimum for all but
  // the last part), doubling every 4 parts up to max_part_size: every request costs the server
  // a fixed overhead, so big objects go in bigger parts (8 MiB parts upload ~30% slower than one
  // PUT on RGW; see bench/README.md). Objects up to part_size are one PutObject. A writer
  // buffers at most (upload_concurrency + 1) parts, so at most
  // (upload_concurrency + 1) x max(part_size, max_part_size) bytes. With the defaults, S3's
  // 10,000-part limit allows objects of ~312 GiB. WriteOptions::part_size overrides part_size.
  uint64_t part_size = 8ULL << 20;
  uint64_t max_part_size = 32ULL << 20;
  int upload_concurrency = 2;
  // Request bodies up to this size are signed with their SHA-256; larger ones (multipart parts,
  // big puts) are sent as UNSIGNED-PAYLOAD (see README: hashing 8 MiB parts costs more than it
  // protects over TLS). 0 = never hash; SIZE_MAX = always hash.
  uint64_t max_signed_payload = 1 << 20;

  // Reads of a RandomAccessFile (OpenRead) larger than read_chunk_size are split into ranged
  // GETs of that size, download_concurrency of them at a time. Get is one plain GET.
  uint64_t read_chunk_size = 8ULL << 20;
  int download_concurrency = 4;

  size_t list_page_size = 1000;  // default max_keys of List (S3 caps it at 1000)

  // Retries: 429, 5xx (but 501) and transport failures/timeouts are retried up to
  // max_attempts in all, with exponential backoff and full jitter between
  // retry_base_delay_ms x 2^n and retry_max_delay_ms. 4xx answers are never retried.
  int max_attempts = 5;
  int retry_base_delay_ms = 100;
  int retry_max_delay_ms = 5000;
  int connect_timeout_ms = 10000;
  int low_speed_timeout_s = 60;  // a transfer moving < 1 byte/s this long is a timeout
  size_t max_idle_connections = 16;

  // Endpoint, region, credentials and addressing from the environment: AWS_ACCESS_KEY_ID,
  // AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (else AWS_DEFAULT_REGION),
  // AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL), TARN_S3_ADDRESSING=path|virtual|auto.
  // An unknown TARN_S3_ADDRESSING value is kInvalidArgument.
  static Result<S3Options> FromEnvironment();
  // "s3://bucket[/prefix]" or "gs://bucket[/prefix]" with the rest from FromEnvironment.
  // gs:// uses https://storage.googleapis.com (region "auto", path style, no batch delete)
  // unless TARN_GCS_ENDPOINT overrides it; its HMAC key comes from the AWS_* variables.
  static Result<S3Options> FromUri(std::string_view uri);
};

// Request counters of one store (for tests and diagnostics).
struct S3Stats {
  uint64_t requests = 0;  // HTTP requests sent, retries included
  uint64_t retries = 0;
};

// Thread-safe; connections are pooled and reused. Readers from OpenRead keep the store alive;
// a writer keeps it alive too.
class S3ObjectStore : public ObjectStore {
 public:
  static Result<std::shared_ptr<S3ObjectStore>> Make(S3Options options);
  ~S3ObjectStore() override;

  const std::string& uri() const override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(std::string_view key) override;
  Status Put(std::string_view key, std::string_view data, const WriteOptions& options) override;
  using ObjectStore::Put;
  Result<std::unique_ptr<OutputStream>> OpenWrite(std::string_view key,
                                                  const WriteOptions& options) override;
  using ObjectStore::OpenWrite;
  Result<ListPage> List(std::string_view prefix, std::string_view token, size_t max_keys) override;
  Status Delete(std::string_view key) override;
  Status DeleteMany(const std::vector<std::string>& keys) override;

  // Creates the bucket (succeeds if this account already owns it).
  Status CreateBucket();
  // Multipart uploads under the store's prefix that were started and never completed or
  // aborted (ListMultipartUploads; for tests and cleanup), as (key, upload id).
  Result<std::vector<std::pair<std::string, std::string>>> ListPendingUploads();

  S3Stats stats() const;
  const S3Options& options() const;
  // Whether requests name the bucket in the path (http://host/bucket/key) rather than the host:
  // options().addressing, or what kAuto chose for the endpoint and bucket.
  bool path_style() const;

  class Impl;

 private:
  explicit S3ObjectStore(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

namespace s3 {
// Whether an endpoint host (no port) is an IPv4/IPv6 literal or "localhost".
bool IsIpOrLocalhost(std::string_view host);
// Parses "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 7231) or "2009-10-12T17:50:30.000Z" (ISO 8601)
// into ms since the epoch; false if malformed.
bool ParseHttpDate(std::string_view s, int64_t* ms);
bool ParseIsoDate(std::string_view s, int64_t* ms);
}  // namespace s3

}  // namespace tarn
