// SignBearer / VerifyBearer and base64url: round trips and every refusal reason.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "auth/auth.h"
#include "auth/auth_internal.h"

namespace tarn::auth {
namespace {

using internal::Base64UrlDecode;
using internal::Base64UrlEncode;
using nlohmann::json;

constexpr int64_t kNow = 1'700'000'000'000'000;  // microseconds
constexpr int64_t kSec = 1'000'000;

// HMAC-SHA256, computed independently of bearer.cc.
std::string Mac(const std::string& key, const std::string& input) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Field(const Status& st, const std::string& name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "";
}

class BearerTest : public ::testing::Test {
 protected:
  BearerTest() {
    key_.kid = "k1";
    key_.secret = std::string(32, '\x5a');
    other_.kid = "k2";
    other_.secret = std::string(32, '\x33');
    p_.client_id = "tarn_abc";
    p_.workspace = "acme";
    p_.role = Role::kWriter;
    p_.pattern = "sales.*";
    p_.issued_at_us = kNow;
    p_.expires_at_us = kNow + 900 * kSec;
    p_.token_id = "jti1";
  }

  Result<Principal> Verify(std::string_view token, int64_t now = kNow) {
    return VerifyBearer(
        token,
        [&](std::string_view kid) -> const SigningKey* {
          if (kid == key_.kid) return &key_;
          if (kid == other_.kid) return &other_;
          return nullptr;
        },
        now);
  }

  // The reason of a refusal ("" when accepted).
  std::string Reason(std::string_view token, int64_t now = kNow) {
    auto r = Verify(token, now);
    if (r.ok()) return "";
    EXPECT_EQ(r.status().kind(), ErrorKind::kUnauthenticated);
    EXPECT_EQ(Field(r.status(), "code"), "invalid_token");
    return Field(r.status(), "reason");
  }

  // A token with the given header and claims signed by `key`.
  static std::string Forge(const json& header, const json& claims, const SigningKey& key) {
    std::string input = Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(claims.dump());
    return input + "." + Base64UrlEncode(Mac(key.secret, input));
  }

  json Header() const { return {{"alg", "HS256"}, {"typ", "JWT"}, {"kid", "k1"}}; }
  json Claims() const {
    return {{"iss", "tarn"},
            {"sub", "tarn_abc"},
            {"ws", "acme"},
            {"role", "writer"},
            {"pat", "sales.*"},
            {"iat", kNow / kSec},
            {"exp", kNow / kSec + 900},
            {"jti", "jti1"}};
  }

  SigningKey key_, other_;
  Principal p_;
};

TEST(Base64Url, KnownVectors) {
  // RFC 4648 section 10 vectors, without padding.
  EXPECT_EQ(Base64UrlEncode(""), "");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("foob"), "Zm9vYg");
  EXPECT_EQ(Base64UrlEncode("fooba"), "Zm9vYmE");
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  for (std::string s : {"", "f", "fo", "foo", "foob", "\xfb\xff\x00\x01"}) {
    auto d = Base64UrlDecode(Base64UrlEncode(s));
    ASSERT_TRUE(d.has_value()) << s;
    EXPECT_EQ(*d, s);
  }
}

TEST(Base64Url, RefusesNonCanonical) {
  EXPECT_FALSE(Base64UrlDecode("Zg==").has_value());  // padding
  EXPECT_FALSE(Base64UrlDecode("Zh").has_value());    // unused bits set ("Zg" is canonical)
  EXPECT_FALSE(Base64UrlDecode("Zm9").has_value());   // unused bits set ("Zm8")
  EXPECT_FALSE(Base64UrlDecode("Z").has_value());     // impossible length
  EXPECT_FALSE(Base64UrlDecode("Zm+v").has_value());  // standard alphabet
  EXPECT_FALSE(Base64UrlDecode("Zm/v").has_value());
  EXPECT_FALSE(Base64UrlDecode("Zm v").has_value());
}

TEST_F(BearerTest, RoundTrip) {
  std::string token = SignBearer(p_, key_);
  EXPECT_EQ(std::count(token.begin(), token.end(), '.'), 2);
  EXPECT_EQ(token.find('='), std::string::npos);
  auto got = Verify(token);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->client_id, "tarn_abc");
  EXPECT_EQ(got->workspace, "acme");
  EXPECT_EQ(got->role, Role::kWriter);
  EXPECT_EQ(got->pattern, "sales.*");
  EXPECT_EQ(got->issued_at_us, kNow);
  EXPECT_EQ(got->expires_at_us, kNow + 900 * kSec);
  EXPECT_EQ(got->token_id, "jti1");
  // Signing what was verified gives the same token.
  EXPECT_EQ(SignBearer(*got, key_), token);

  // The parts are standard JWT: a JOSE header with kid and the agreed claims.
  size_t dot = token.find('.');
  json header = json::parse(*Base64UrlDecode(token.substr(0, dot)));
  EXPECT_EQ(header, Header());
  size_t dot2 = token.find('.', dot + 1);
  json claims = json::parse(*Base64UrlDecode(token.substr(dot + 1, dot2 - dot - 1)));
  EXPECT_EQ(claims, Claims());
  // And what a third party signs the same way verifies too.
  EXPECT_EQ(Forge(Header(), Claims(), key_).size(), token.size());
  EXPECT_EQ(Reason(Forge(Header(), Claims(), key_)), "");
}

TEST_F(BearerTest, OtherKeyVerifiesByKid) {
  std::string token = SignBearer(p_, other_);
  EXPECT_TRUE(Verify(token).ok());
  // Same claims under another kid: the kid picks the key.
  json h = Header();
  h["kid"] = "k2";
  EXPECT_EQ(Reason(Forge(h, Claims(), key_)), "bad_signature");
}

TEST_F(BearerTest, TamperingAnyPartIsRefused) {
  std::string token = SignBearer(p_, key_);
  size_t dot1 = token.find('.');
  size_t dot2 = token.find('.', dot1 + 1);
  // Flip one character in each part (to another base64url character).
  for (size_t pos : {size_t{2}, dot1 + 5, dot2 + 3, token.size() - 1}) {
    std::string t = token;
    t[pos] = t[pos] == 'A' ? 'B' : 'A';
    EXPECT_NE(Reason(t), "") << pos;
  }
  // A changed claim signed with the old signature.
  json c = Claims();
  c["role"] = "owner";
  std::string forged =
      Base64UrlEncode(Header().dump()) + "." + Base64UrlEncode(c.dump()) + token.substr(dot2);
  EXPECT_EQ(Reason(forged), "bad_signature");
  // The last signature character with other unused bits decodes to the same bytes: refused.
  std::string t = token;
  char& last = t.back();
  last = last == 'A' ? 'B' : static_cast<char>(last ^ 1);
  EXPECT_NE(Reason(t), "");
  // Truncated signature.
  EXPECT_EQ(Reason(token.substr(0, token.size() - 2)), "malformed");
}

TEST_F(BearerTest, WrongKey) {
  SigningKey impostor{"k1", std::string(32, '\x01')};
  EXPECT_EQ(Reason(SignBearer(p_, impostor)), "bad_signature");
  SigningKey stranger{"k9", std::string(32, '\x5a')};
  EXPECT_EQ(Reason(SignBearer(p_, stranger)), "unknown_key");
  // No key lookup at all.
  auto r = VerifyBearer(SignBearer(p_, key_), nullptr, kNow);
  EXPECT_EQ(Field(r.status(), "reason"), "unknown_key");
}

TEST_F(BearerTest, Times) {
  std::string token = SignBearer(p_, key_);
  EXPECT_EQ(Reason(token, kNow + 899 * kSec), "");
  EXPECT_EQ(Reason(token, kNow + 900 * kSec), "expired");  // exp is exclusive
  EXPECT_EQ(Reason(token, kNow + 10'000 * kSec), "expired");
  // Issued in the future: within 60 s of skew fine, beyond refused.
  EXPECT_EQ(Reason(token, kNow - 60 * kSec), "");
  EXPECT_EQ(Reason(token, kNow - 61 * kSec), "not_yet_valid");
  json c = Claims();
  c["nbf"] = kNow / kSec + 120;
  EXPECT_EQ(Reason(Forge(Header(), c, key_)), "not_yet_valid");
  c["nbf"] = kNow / kSec;
  EXPECT_EQ(Reason(Forge(Header(), c, key_)), "");
}

TEST_F(BearerTest, AlgorithmsOtherThanHs256) {
  for (const char* alg : {"none", "None", "HS384", "RS256", "hs256", ""}) {
    json h = Header();
    h["alg"] = alg;
    EXPECT_EQ(Reason(Forge(h, Claims(), key_)), "malformed") << alg;
  }
  // alg none with an empty signature (the classic attack).
  json h = Header();
  h["alg"] = "none";
  std::string unsigned_token =
      Base64UrlEncode(h.dump()) + "." + Base64UrlEncode(Claims().dump()) + ".";
  EXPECT_EQ(Reason(unsigned_token), "malformed");
  json missing = Header();
  missing.erase("alg");
  EXPECT_EQ(Reason(Forge(missing, Claims(), key_)), "malformed");
  json typed = Header();
  typed["alg"] = 256;
  EXPECT_EQ(Reason(Forge(typed, Claims(), key_)), "malformed");
  json crit = Header();
  crit["crit"] = json::array({"exp"});
  EXPECT_EQ(Reason(Forge(crit, Claims(), key_)), "malformed");
  json typ = Header();
  typ["typ"] = "JWE";
  EXPECT_EQ(Reason(Forge(typ, Claims(), key_)), "malformed");
  json no_kid = Header();
  no_kid.erase("kid");
  EXPECT_EQ(Reason(Forge(no_kid, Claims(), key_)), "malformed");
}

TEST_F(BearerTest, MissingOrIllTypedClaims) {
  auto with = [&](auto edit) {
    json c = Claims();
    edit(c);
    return Reason(Forge(Header(), c, key_));
  };
  for (const char* k : {"iss", "sub", "ws", "role", "pat", "iat", "exp", "jti"}) {
    EXPECT_EQ(with([&](json& c) { c.erase(k); }), "bad_claims") << k;
    EXPECT_EQ(with([&](json& c) { c[k] = json::array(); }), "bad_claims") << k;
    EXPECT_EQ(with([&](json& c) { c[k] = nullptr; }), "bad_claims") << k;
  }
  EXPECT_EQ(with([](json& c) { c["iss"] = "other"; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["role"] = "admin"; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["sub"] = ""; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["iat"] = "1700000000"; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["exp"] = 1.7e9 + 900.5; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["iat"] = -1; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["exp"] = 18446744073709551615ull; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["exp"] = c["iat"]; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["nbf"] = "soon"; }), "bad_claims");
  EXPECT_EQ(with([](json& c) { c["sub"] = std::string(600, 'x'); }), "bad_claims");
  // Claims that are not an object at all.
  std::string input = Base64UrlEncode(Header().dump()) + "." + Base64UrlEncode("[1,2]");
  EXPECT_EQ(Reason(input + "." + Base64UrlEncode(Mac(key_.secret, input))), "malformed");
  // Unknown extra claims are ignored.
  EXPECT_EQ(with([](json& c) { c["extra"] = 1; }), "");
}

TEST_F(BearerTest, GarbageAndHuge) {
  for (std::string bad :
       {std::string(), std::string("."), std::string(".."), std::string("..."), std::string("a.b"),
        std::string("a.b.c.d"), std::string("not a token"), std::string("e30.e30.e30"),
        std::string("\0\0\0", 3), std::string("\xff\xfe.\x80.x"),
        Base64UrlEncode("{") + ".e30." + std::string(43, 'A')}) {
    EXPECT_EQ(Reason(bad), "malformed") << bad;
  }
  std::string token = SignBearer(p_, key_);
  std::string huge = token;
  huge.insert(token.find('.'), 5000, 'A');
  EXPECT_EQ(Reason(huge), "malformed");
  auto r = Verify(std::string(1 << 20, 'a'));
  EXPECT_NE(r.status().message().find("4096"), std::string::npos);
}

}  // namespace
}  // namespace tarn::auth
