// Fuzzes bearer-token verification (auth::VerifyBearer). The first byte picks a mode:
//   even: the rest is a token, verified with one fixed key. Nothing may crash, and a token is
//         only accepted when signing its principal again gives exactly the same bytes (so no
//         second encoding of a signed token, e.g. other base64 bits, gets in).
//   odd:  the rest is a signing input ("header.claims", any bytes), signed with the fixed key
//         and verified: this reaches the header and claims checks behind the signature. An
//         accepted token's principal must survive SignBearer/VerifyBearer unchanged.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "auth/auth.h"
#include "auth/auth_internal.h"

namespace {

using tarn::auth::Principal;
using tarn::auth::SigningKey;

constexpr int64_t kNow = 1'700'000'000'000'000;  // microseconds; the seeds are valid then

const SigningKey& Key() {
  static const SigningKey* key = new SigningKey{"k1", std::string(32, '\x5a')};
  return *key;
}

const SigningKey* Lookup(std::string_view kid) { return kid == Key().kid ? &Key() : nullptr; }

[[noreturn]] void Fail(const char* what, std::string_view token) {
  std::fprintf(stderr, "bearer_token_fuzz: %s: %.*s\n", what, static_cast<int>(token.size()),
               token.data());
  std::abort();
}

bool Same(const Principal& a, const Principal& b) {
  return a.client_id == b.client_id && a.workspace == b.workspace && a.role == b.role &&
         a.pattern == b.pattern && a.issued_at_us == b.issued_at_us &&
         a.expires_at_us == b.expires_at_us && a.token_id == b.token_id;
}

void CheckRefusal(const tarn::Status& st, std::string_view token) {
  if (st.kind() != tarn::ErrorKind::kUnauthenticated) Fail("refused with another kind", token);
  bool code = false;
  for (const auto& [k, v] : st.fields()) code |= k == "code" && v == "invalid_token";
  if (!code) Fail("refused without code=invalid_token", token);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if ((data[0] & 1) == 0) {
    auto p = tarn::auth::VerifyBearer(rest, Lookup, kNow);
    if (!p.ok()) {
      CheckRefusal(p.status(), rest);
      return 0;
    }
    if (tarn::auth::SignBearer(*p, Key()) != rest) Fail("accepted a non-canonical token", rest);
    // Other spellings of the same bytes (the last character of a part with other unused bits,
    // padding) must be refused: random mutation rarely hits them, so try each here.
    static constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string variant(rest);
    for (size_t end = variant.find('.');; end = variant.find('.', end + 1)) {
      size_t last = (end == std::string::npos ? variant.size() : end) - 1;
      char original = variant[last];
      for (char c : kAlphabet) {
        if (c == original) continue;
        variant[last] = c;
        if (tarn::auth::VerifyBearer(variant, Lookup, kNow).ok()) {
          Fail("accepted another spelling", variant);
        }
      }
      variant[last] = original;
      std::string padded = variant;
      padded.insert(last + 1, "=");
      if (tarn::auth::VerifyBearer(padded, Lookup, kNow).ok()) Fail("accepted padding", padded);
      if (end == std::string::npos) break;
    }
    // Nobody else's key verifies it.
    auto other = tarn::auth::VerifyBearer(
        rest,
        [](std::string_view) -> const SigningKey* {
          static const SigningKey* k = new SigningKey{"k1", std::string(32, '\x01')};
          return k;
        },
        kNow);
    if (other.ok()) Fail("accepted under a different key", rest);
    return 0;
  }
  // Sign whatever signing input we were given.
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), Key().secret.data(), static_cast<int>(Key().secret.size()),
       reinterpret_cast<const unsigned char*>(rest.data()), rest.size(), mac, &len);
  std::string token = std::string(rest) + "." +
                      tarn::auth::internal::Base64UrlEncode(
                          std::string_view(reinterpret_cast<const char*>(mac), len));
  auto p = tarn::auth::VerifyBearer(token, Lookup, kNow);
  if (!p.ok()) {
    CheckRefusal(p.status(), token);
    return 0;
  }
  if (p->client_id.empty() || p->workspace.empty() || p->pattern.empty() ||
      p->expires_at_us <= p->issued_at_us || p->expires_at_us <= kNow) {
    Fail("accepted a principal that breaks the claim rules", token);
  }
  auto again = tarn::auth::VerifyBearer(tarn::auth::SignBearer(*p, Key()), Lookup, kNow);
  if (!again.ok() || !Same(*again, *p)) Fail("principal does not round-trip", token);
  return 0;
}
