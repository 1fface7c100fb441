// The bearer token of a remote client holding a client id and secret: fetched from
// POST /v1/token when first needed, reused, and fetched again once 80% of its lifetime has passed
// or after the server refused it (401 invalid_token).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "tarn/status.h"

namespace tarn::client {

struct BearerToken {
  std::string access_token;
  int64_t expires_in_s = 0;
};

// Thread-safe: one fetch at a time; callers arriving meanwhile wait for its result.
class TokenCache {
 public:
  using Fetch = std::function<Result<BearerToken>()>;
  using Clock = std::function<int64_t()>;  // microseconds since the epoch

  explicit TokenCache(Fetch fetch, Clock clock = {});

  // The cached token, fetched first when there is none or it is due for refresh. A failed fetch
  // is returned as is (and retried on the next call).
  Result<std::string> Get();
  // Forgets `token` if it is still the cached one, so the next Get fetches a new one (a token
  // refreshed by another thread meanwhile is kept).
  void Invalidate(const std::string& token);
  // When the cached token will be refreshed (0 when there is none).
  int64_t refresh_at_us() const;

 private:
  Fetch fetch_;
  Clock clock_;
  mutable std::mutex mu_;
  std::string token_;
  int64_t refresh_at_us_ = 0;
};

}  // namespace tarn::client
