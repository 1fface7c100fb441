#include "client/token_cache.h"

#include <algorithm>
#include <chrono>

#include "client/error_codes.h"
#include "common/clock.h"

namespace tarn::client {

namespace {
int64_t SystemNowUs() { return tarn::Clock::Real()->NowMicros(); }
}  // namespace

TokenCache::TokenCache(Fetch fetch, Clock clock)
    : fetch_(std::move(fetch)), clock_(clock ? std::move(clock) : Clock(SystemNowUs)) {}

Result<std::string> TokenCache::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t now = clock_();
  if (!token_.empty() && now < refresh_at_us_) return token_;
  TARN_ASSIGN_OR_RETURN(BearerToken t, fetch_());
  if (t.access_token.empty()) {
    return Status::Of(codes::kInvalidTokenResponse,
                      "the token endpoint returned an empty access token");
  }
  token_ = std::move(t.access_token);
  // Refresh at 80% of the lifetime; a token without a usable lifetime is used for one call.
  int64_t life_s = std::min<int64_t>(t.expires_in_s, 10ll * 365 * 86400);  // no overflow
  int64_t life_us = life_s > 0 ? life_s * 1'000'000 : 0;
  refresh_at_us_ = clock_() + life_us / 5 * 4;
  return token_;
}

void TokenCache::Invalidate(const std::string& token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (token == token_) {
    token_.clear();
    refresh_at_us_ = 0;
  }
}

int64_t TokenCache::refresh_at_us() const {
  std::lock_guard<std::mutex> lock(mu_);
  return token_.empty() ? 0 : refresh_at_us_;
}

}  // namespace tarn::client
