#include "common/digest.h"

#include <gtest/gtest.h>

#include "common/base64.h"
#include "common/hex.h"

namespace tarn {
namespace {

// RFC 1321 appendix A.5 and RFC 4231 test case 2.
TEST(Digest, KnownVectors) {
  EXPECT_EQ(HexEncode(Md5("")), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(HexEncode(Md5("abc")), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(HexEncode(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Digest, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("secret", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secreT"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secret!"));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
}

// RFC 4648 section 10.
TEST(Base64, StandardPaddedVectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xfb\xff", 2)), "+/8=");
  EXPECT_EQ(Base64UrlEncode(std::string("\xfb\xff", 2)), "-_8");
  // S3's Content-MD5 of an empty body.
  EXPECT_EQ(Base64Encode(Md5("")), "1B2M2Y8AsgTpgAmY7PhCfg==");
}

}  // namespace
}  // namespace tarn
