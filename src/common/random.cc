#include "common/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "common/hex.h"

namespace tarn {

namespace {

// Fills `out` from getrandom; falls back to std::random_device if the call fails (it does not
// on Linux >= 3.17 once the pool is initialised).
void FillRandom(void* out, size_t n) {
  auto* p = static_cast<unsigned char*>(out);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(p + got, n - got, 0);
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  if (got < n) {
    std::random_device rd;
    for (; got < n; ++got) p[got] = static_cast<unsigned char>(rd());
  }
}

}  // namespace

std::string NewUuidV4() {
  unsigned char b[16];
  FillRandom(b, sizeof(b));
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    AppendHex(b[i], &out);
  }
  return out;
}

uint64_t RandomU64() {
  uint64_t v;
  FillRandom(&v, sizeof(v));
  return v;
}

Result<std::string> SecureRandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::getrandom(out.data() + got, n - got, 0);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      return Status::Internal("the random number generator failed");
    }
    got += static_cast<size_t>(r);
  }
  return out;
}

Result<std::string> RandomBase32(size_t n) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  TARN_ASSIGN_OR_RETURN(std::string s, SecureRandomBytes(n));
  for (char& c : s) c = kAlphabet[static_cast<unsigned char>(c) & 31];
  return s;
}

}  // namespace tarn
