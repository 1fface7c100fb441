// Test-only helpers shared by the object store tests (included by *_test.cc files only).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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

#define ASSERT_OK(expr)                                       \
  do {                                                        \
    ::tarn::Status _st = (expr);                              \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (false)

#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                   \
  auto TARN_CONCAT(_r_, __LINE__) = (expr);                               \
  ASSERT_TRUE(TARN_CONCAT(_r_, __LINE__).ok())                            \
      << #expr << ": " << TARN_CONCAT(_r_, __LINE__).status().ToString(); \
  lhs = std::move(TARN_CONCAT(_r_, __LINE__)).value()
