// `tarn worker` (docs/design/views.md, "Delivery"): the HTTP service a `tarn serve` dispatcher
// delivers refresh jobs to. It takes POST <its URL> with a job token (a bearer token the
// catalog signed for the job's committer, whose audience must be exactly this worker's URL)
// and {"job": ID}; it checks the token with the catalog by reading the job with it (GET
// /v1/jobs/{id}: the signature, expiry, revocation and the job claim are the catalog's to
// check), answers 202, runs the refresh with the SQL engine under that token (so with the
// committer's rights) and reports the outcome: POST /v1/jobs/{id}/outcome.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "tarn/status.h"

namespace tarn::worker {

struct WorkerOptions {
  std::string host = "127.0.0.1";
  int port = 0;             // 0: an ephemeral port (Worker::port())
  std::string catalog_url;  // http(s):// of tarn serve
  // This worker's URL as the dispatcher calls it (the job token's audience, compared
  // exactly); empty: http://<host>:<port>/run.
  std::string url;
  int max_concurrent_jobs = 4;  // past it: 503, and the dispatcher delivers again later
  std::function<void(std::string_view line)> log;  // JSON lines; empty: stderr
};

class Worker {
 public:
  static Result<std::unique_ptr<Worker>> Make(WorkerOptions options);
  ~Worker();
  // Binds and serves in the background.
  Status Start();
  int port() const;
  const std::string& url() const;
  // Stops taking jobs and waits for the running ones.
  void Stop();

 private:
  class Impl;
  explicit Worker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The claims of a JWT's payload, read without checking its signature (the catalog checks it):
// its "aud" and "job", or kUnauthenticated for a token that is not a JWT.
struct UnverifiedClaims {
  std::string audience;
  std::string job;
  int64_t expires_at_s = 0;
};
Result<UnverifiedClaims> PeekClaims(std::string_view jwt);

}  // namespace tarn::worker
