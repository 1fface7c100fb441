// SigV4 against AWS's published vectors: the aws-sig-v4-test-suite (service "service") and the
// worked examples of S3's "Signature Calculations for the Authorization Header".
#include "objectstore/s3/sigv4.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tarn::s3 {
namespace {

constexpr std::string_view kSuiteDate = "20150830T123600Z";
const SigV4Key kSuiteKey{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1",
                         "service"};

struct SuiteCase {
  std::string name;
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  HeaderList extra_headers;  // besides host and x-amz-date
  std::string body;
  std::string signature;
};

// The suite's requests whose path needs no normalisation (S3 never normalises paths).
const std::vector<SuiteCase>& SuiteCases() {
  static const std::vector<SuiteCase> cases = {
      {"get-vanilla",
       "GET",
       "/",
       {},
       {},
       "",
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"get-vanilla-query",
       "GET",
       "/",
       {},
       {},
       "",
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"get-vanilla-empty-query-key",
       "GET",
       "/",
       {{"Param1", "value1"}},
       {},
       "",
       "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
      {"get-vanilla-query-order-key-case",
       "GET",
       "/",
       {{"Param2", "value2"}, {"Param1", "value1"}},
       {},
       "",
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"get-vanilla-query-unreserved",
       "GET",
       "/",
       {{"-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
         "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}},
       {},
       "",
       "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"},
      {"get-vanilla-utf8-query",
       "GET",
       "/",
       {{"\xE1\x88\xB4", "bar"}},
       {},
       "",
       "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"},
      {"get-unreserved",
       "GET",
       "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
       {},
       {},
       "",
       "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"},
      {"get-utf8",
       "GET",
       UriEncode("/\xE1\x88\xB4", false),
       {},
       {},
       "",
       "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
      {"get-header-key-duplicate",
       "GET",
       "/",
       {},
       {{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}},
       "",
       "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
      {"get-header-value-order",
       "GET",
       "/",
       {},
       {{"My-Header1", "value4"},
        {"My-Header1", "value1"},
        {"My-Header1", "value3"},
        {"My-Header1", "value2"}},
       "",
       "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"},
      {"get-header-value-trim",
       "GET",
       "/",
       {},
       {{"My-Header1", " value1"}, {"My-Header2", " \"a   b   c\""}},
       "",
       "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
      {"post-vanilla",
       "POST",
       "/",
       {},
       {},
       "",
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"post-header-key-case",
       "POST",
       "/",
       {},
       {},
       "",
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"post-header-key-sort",
       "POST",
       "/",
       {},
       {{"My-Header1", "value1"}},
       "",
       "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"},
      {"post-header-value-case",
       "POST",
       "/",
       {},
       {{"My-Header1", "VALUE1"}},
       "",
       "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"},
      {"post-vanilla-query",
       "POST",
       "/",
       {{"Param1", "value1"}},
       {},
       "",
       "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
      {"post-vanilla-empty-query-value",
       "POST",
       "/",
       {{"Param1", "value1"}},
       {},
       "",
       "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
      {"post-vanilla-query-space",
       "POST",
       "/",
       {{"p", ""}},
       {},
       "",
       "e71688addb58a26418614085fb730ba3faa623b461c17f48f2fbdb9361b94a9b"},
      {"post-vanilla-query-nonunreserved",
       "POST",
       "/",
       {{"@#$%^", ""}, {"+", "/,?><`\";:\\|][{}"}},
       {},
       "",
       "66c82657c86e26fb25238d0e69f011edc4c6df5ae71119d7cb98ed9b87393c1e"},
      {"post-x-www-form-urlencoded",
       "POST",
       "/",
       {},
       {{"Content-Type", "application/x-www-form-urlencoded"}},
       "Param1=value1",
       "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"},
      {"post-x-www-form-urlencoded-parameters",
       "POST",
       "/",
       {},
       {{"Content-Type", "application/x-www-form-urlencoded; charset=utf8"}},
       "Param1=value1",
       "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"},
  };
  return cases;
}

TEST(SigV4, PublishedTestSuite) {
  for (const SuiteCase& c : SuiteCases()) {
    SigV4Request req;
    req.method = c.method;
    req.encoded_path = c.path;
    req.query = c.query;
    req.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", std::string(kSuiteDate)}};
    for (const auto& h : c.extra_headers) req.headers.push_back(h);
    std::string hash = Sha256Hex(c.body);
    req.payload_hash = hash;
    SigV4Signature sig = SignV4(req, kSuiteKey, kSuiteDate);
    EXPECT_EQ(sig.signature, c.signature) << c.name << "\n" << sig.canonical_request;
  }
}

TEST(SigV4, GetVanillaDetails) {
  SigV4Request req;
  req.method = "GET";
  req.encoded_path = "/";
  req.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  req.payload_hash = kEmptySha256;
  SigV4Signature sig = SignV4(req, kSuiteKey, kSuiteDate);
  EXPECT_EQ(sig.canonical_request,
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sig.string_to_sign,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  EXPECT_EQ(sig.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4, DerivedSigningKey) {
  // From AWS's "Examples of how to derive a signing key for Signature Version 4" (service iam).
  std::string key =
      SigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20150830", "us-east-1", "iam");
  EXPECT_EQ(HexEncode(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
            "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
}

// S3's documented examples: examplebucket, AKIAIOSFODNN7EXAMPLE, 20130524T000000Z.
constexpr std::string_view kS3Date = "20130524T000000Z";
const SigV4Key kS3Key{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                      "us-east-1", "s3"};

SigV4Signature SignS3Example(std::string_view method, std::string_view path,
                             std::vector<std::pair<std::string, std::string>> query,
                             HeaderList extra, std::string_view payload_hash) {
  SigV4Request req;
  req.method = method;
  req.encoded_path = path;
  req.query = std::move(query);
  req.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                 {"x-amz-date", std::string(kS3Date)},
                 {"x-amz-content-sha256", std::string(payload_hash)}};
  for (auto& h : extra) req.headers.push_back(std::move(h));
  req.payload_hash = payload_hash;
  return SignV4(req, kS3Key, kS3Date);
}

TEST(SigV4, S3RangedGetObjectExample) {
  SigV4Signature sig =
      SignS3Example("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, kEmptySha256);
  EXPECT_EQ(sig.signed_headers, "host;range;x-amz-content-sha256;x-amz-date");
  EXPECT_EQ(sig.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(sig.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, S3PutObjectExample) {
  std::string body = "Welcome to Amazon S3.";
  std::string hash = Sha256Hex(body);
  EXPECT_EQ(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  std::string path = UriEncode("/test$file.text", false);
  EXPECT_EQ(path, "/test%24file.text");
  SigV4Signature sig = SignS3Example(
      "PUT", path, {},
      {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
      hash);
  EXPECT_EQ(sig.signed_headers, "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
  EXPECT_EQ(sig.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, S3GetBucketLifecycleExample) {
  SigV4Signature sig = SignS3Example("GET", "/", {{"lifecycle", ""}}, {}, kEmptySha256);
  EXPECT_EQ(sig.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4, S3ListObjectsExample) {
  // Given out of order: the canonical query sorts.
  SigV4Signature sig =
      SignS3Example("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {}, kEmptySha256);
  EXPECT_EQ(sig.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, UriEncode) {
  EXPECT_EQ(UriEncode("a b/c~d+é", false), "a%20b/c~d%2B%C3%A9");
  EXPECT_EQ(UriEncode("a b/c", true), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("", true), "");
  EXPECT_EQ(UriEncode("%", false), "%25");
  EXPECT_EQ(CanonicalQuery({{"b", "2"}, {"a", "x y"}, {"a!", "'"}}), "a=x%20y&a%21=%27&b=2");
  EXPECT_EQ(CanonicalQuery({{"uploads", ""}}), "uploads=");
}

TEST(SigV4, ChangingAnythingChangesTheSignature) {
  SigV4Signature base = SignS3Example("GET", "/a", {}, {}, kEmptySha256);
  EXPECT_NE(base.signature, SignS3Example("GET", "/b", {}, {}, kEmptySha256).signature);
  EXPECT_NE(base.signature, SignS3Example("HEAD", "/a", {}, {}, kEmptySha256).signature);
  EXPECT_NE(base.signature, SignS3Example("GET", "/a", {{"x", ""}}, {}, kEmptySha256).signature);
  EXPECT_NE(base.signature, SignS3Example("GET", "/a", {}, {}, kUnsignedPayload).signature);
  SigV4Key other = kS3Key;
  other.secret_access_key = "wrong";
  SigV4Request req;
  req.method = "GET";
  req.encoded_path = "/a";
  req.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                 {"x-amz-date", std::string(kS3Date)},
                 {"x-amz-content-sha256", std::string(kEmptySha256)}};
  req.payload_hash = kEmptySha256;
  EXPECT_NE(base.signature, SignV4(req, other, kS3Date).signature);
  EXPECT_EQ(base.signature, SignV4(req, kS3Key, kS3Date).signature);
}

TEST(SigV4, HelpersMatchKnownValues) {
  EXPECT_EQ(Sha256Hex(""), kEmptySha256);
  EXPECT_EQ(AmzDate(1369353600), "20130524T000000Z");
  EXPECT_EQ(AmzDate(1440938160), "20150830T123600Z");
  // RFC 1864 example-style check: MD5("") base64.
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(Md5Base64("hello\n"), "sZRqySSS0jR8YjW00mERhA==");
  std::string mac = HmacSha256("key", "The quick brown fox jumps over the lazy dog");
  EXPECT_EQ(HexEncode(reinterpret_cast<const uint8_t*>(mac.data()), mac.size()),
            "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
}

}  // namespace
}  // namespace tarn::s3
