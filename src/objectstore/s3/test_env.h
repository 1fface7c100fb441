// Test-only helpers for the S3 tests that run against a real gateway started by
// tests/run_with_rgw.sh (scripts/rgw.sh). Included by *_test.cc files only.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "objectstore/s3/s3_store.h"

namespace tarn::s3test {

// Whether the S3 tests must run: tests/run_with_rgw.sh sets TARN_S3_TEST=1 after starting the
// gateway. Without it the tests skip (plain unit runs); with it an unreachable gateway fails them.
inline bool Enabled() {
  const char* v = std::getenv("TARN_S3_TEST");
  return v != nullptr && std::string_view(v) == "1";
}

inline constexpr const char* kSkipMessage =
    "S3 tests need a gateway: run them with tests/run_with_rgw.sh (ctest -L integration)";

// Options for a store under a fresh, unique prefix of $TARN_S3_TEST_BUCKET at the endpoint of
// the environment, which must be a loopback address (tests never leave the machine).
inline Result<S3Options> Options(std::string_view name) {
  TARN_ASSIGN_OR_RETURN(S3Options o, S3Options::FromEnvironment());
  const char* bucket = std::getenv("TARN_S3_TEST_BUCKET");
  if (bucket == nullptr || *bucket == '\0') {
    return Status::InvalidArgument("TARN_S3_TEST_BUCKET is not set");
  }
  std::string_view ep = o.endpoint;
  if (!(ep.rfind("http://127.", 0) == 0 || ep.rfind("http://localhost:", 0) == 0 ||
        ep.rfind("http://[::1]:", 0) == 0)) {
    return Status::InvalidArgument("S3 tests only talk to a loopback endpoint, not '" +
                                   std::string(ep) + "'");
  }
  static std::atomic<int> counter{0};
  o.bucket = bucket;
  o.prefix = "t" + std::to_string(::getpid()) + "-" +
             std::to_string(Clock::Real()->SteadyNow().time_since_epoch().count() % 1000000007) +
             "-" + std::to_string(counter.fetch_add(1)) + "/" + std::string(name);
  return o;
}

inline Result<std::shared_ptr<S3ObjectStore>> MakeStore(std::string_view name) {
  TARN_ASSIGN_OR_RETURN(S3Options o, Options(name));
  return S3ObjectStore::Make(std::move(o));
}

}  // namespace tarn::s3test
