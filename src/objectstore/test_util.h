// Test-only helpers shared by the object store tests (included by *_test.cc files only).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "common/test_util.h"
#include "tarn/status.h"

namespace tarn::testutil {

// Deterministic bytes that differ at every offset (a misplaced range shows).
inline std::string Pattern(size_t n, uint32_t seed = 1) {
  std::string s(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s[i] = static_cast<char>(x);
  }
  return s;
}

}  // namespace tarn::testutil
