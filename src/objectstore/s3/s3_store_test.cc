// Unit tests of the S3 client against a scripted HTTP server on 127.0.0.1: retries and backoff,
// error mapping, request shapes, signatures as the server receives them, listing, batch delete
// and multipart abort. No network beyond loopback.
#include "objectstore/s3/s3_store.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>

#include "objectstore/s3/fake_server.h"
#include "objectstore/s3/sigv4.h"
#include "objectstore/s3/xml.h"
#include "objectstore/test_util.h"

namespace tarn {
namespace {

using s3test::FakeRequest;
using s3test::FakeResponse;
using s3test::FakeServer;

constexpr const char* kAccess = "AKIDTEST";
constexpr const char* kSecret = "test-secret";

S3Options OptionsFor(const FakeServer& server) {
  S3Options o;
  o.bucket = "bkt";
  o.prefix = "pre/fix";
  o.endpoint = server.endpoint();
  o.region = "eu-west-3";
  o.access_key_id = kAccess;
  o.secret_access_key = kSecret;
  o.max_attempts = 3;
  o.retry_base_delay_ms = 1;
  o.retry_max_delay_ms = 4;
  o.part_size = 5 << 20;
  return o;
}

std::shared_ptr<S3ObjectStore> MakeStore(const S3Options& o) {
  auto store = S3ObjectStore::Make(o);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? *store : nullptr;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Recomputes the signature of a received request as a server would; "" if it verifies, else
// what is wrong.
std::string VerifySignature(const FakeRequest& req, std::string_view secret,
                            std::string_view region) {
  std::string auth = req.Header("authorization");
  size_t sh = auth.find("SignedHeaders="), sg = auth.find("Signature=");
  if (auth.rfind("AWS4-HMAC-SHA256 Credential=", 0) != 0 || sh == std::string::npos ||
      sg == std::string::npos) {
    return "no SigV4 Authorization header: " + auth;
  }
  std::string signed_headers = auth.substr(sh + 14, auth.find(',', sh) - sh - 14);
  std::string signature = auth.substr(sg + 10);
  s3::SigV4Request sreq;
  sreq.method = req.method;
  std::string path = req.Path();
  sreq.encoded_path = path;
  std::string query = req.Query();
  for (size_t pos = 0; pos < query.size();) {
    size_t amp = query.find('&', pos);
    if (amp == std::string::npos) amp = query.size();
    std::string kv = query.substr(pos, amp - pos);
    size_t eq = kv.find('=');
    sreq.query.emplace_back(PercentDecode(kv.substr(0, eq)),
                            eq == std::string::npos ? "" : PercentDecode(kv.substr(eq + 1)));
    pos = amp + 1;
  }
  for (size_t pos = 0; pos <= signed_headers.size();) {
    size_t semi = signed_headers.find(';', pos);
    if (semi == std::string::npos) semi = signed_headers.size();
    std::string name = signed_headers.substr(pos, semi - pos);
    sreq.headers.emplace_back(name, req.Header(name));
    pos = semi + 1;
  }
  std::string payload = req.Header("x-amz-content-sha256");
  if (payload != "UNSIGNED-PAYLOAD" && payload != s3::Sha256Hex(req.body)) {
    return "payload hash does not match the body";
  }
  sreq.payload_hash = payload;
  std::string date = req.Header("x-amz-date");
  s3::SigV4Key key{kAccess, secret, region, "s3"};
  std::string expected = s3::SignV4(sreq, key, date).signature;
  return expected == signature ? "" : "signature mismatch";
}

FakeResponse ErrorResponse(int status, std::string_view code, std::string_view message = "") {
  return FakeResponse{status,
                      {{"Content-Type", "application/xml"}},
                      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" +
                          std::string(code) + "</Code><Message>" + std::string(message) +
                          "</Message></Error>"};
}

FakeResponse HeadOk(uint64_t size) {
  return FakeResponse{200,
                      {{"Content-Length", std::to_string(size)},
                       {"ETag", "\"abc123\""},
                       {"Last-Modified", "Fri, 24 May 2013 00:00:00 GMT"}},
                      ""};
}

TEST(S3Client, RetriesThrottlingAndServerErrorsThenSucceeds) {
  for (int status : {503, 429, 500, 502, 504}) {
    std::atomic<int> calls{0};
    FakeServer server([&](const FakeRequest&) {
      return ++calls <= 2 ? ErrorResponse(status, status == 503 ? "SlowDown" : "Whatever")
                          : HeadOk(42);
    });
    auto store = MakeStore(OptionsFor(server));
    auto info = store->Head("k");
    ASSERT_TRUE(info.ok()) << status << ": " << info.status().ToString();
    EXPECT_EQ(info->size, 42u);
    EXPECT_EQ(info->etag, "abc123");
    EXPECT_EQ(info->mtime_ms, 1369353600000);
    EXPECT_EQ(store->stats().requests, 3u) << status;
    EXPECT_EQ(store->stats().retries, 2u) << status;
  }
}

TEST(S3Client, GivesUpAfterMaxAttemptsAsUnavailable) {
  FakeServer server([](const FakeRequest&) { return ErrorResponse(503, "SlowDown", "Reduce"); });
  S3Options o = OptionsFor(server);
  o.max_attempts = 4;
  auto store = MakeStore(o);
  auto got = store->Get("k");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().kind(), ErrorKind::kUnavailable);
  EXPECT_NE(got.status().message().find("SlowDown"), std::string::npos);
  EXPECT_NE(got.status().message().find("4 attempts"), std::string::npos) << got.status().message();
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(store->stats().retries, 3u);
}

TEST(S3Client, NeverRetries4xx) {
  struct Case {
    int status;
    const char* code;
    ErrorKind kind;
  };
  for (Case c : {Case{403, "SignatureDoesNotMatch", ErrorKind::kPermissionDenied},
                 Case{403, "AccessDenied", ErrorKind::kPermissionDenied},
                 Case{401, "Unauthorized", ErrorKind::kPermissionDenied},
                 Case{404, "NoSuchKey", ErrorKind::kNotFound},
                 Case{404, "NoSuchBucket", ErrorKind::kNotFound},
                 Case{400, "InvalidRequest", ErrorKind::kInvalidArgument},
                 Case{409, "ConditionalRequestConflict", ErrorKind::kConflict},
                 Case{412, "PreconditionFailed", ErrorKind::kFailedPrecondition},
                 Case{416, "InvalidRange", ErrorKind::kInvalidArgument},
                 Case{501, "NotImplemented", ErrorKind::kInvalidArgument}}) {
    FakeServer server([&](const FakeRequest&) { return ErrorResponse(c.status, c.code, "m"); });
    auto store = MakeStore(OptionsFor(server));
    Status got = store->Put("k", "v");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.kind(), c.kind) << c.code << ": " << got.ToString();
    EXPECT_NE(got.message().find(c.code), std::string::npos) << c.code;
    EXPECT_EQ(server.request_count(), 1u) << c.code;
    EXPECT_EQ(store->stats().retries, 0u);
    ASSERT_FALSE(got.fields().empty());
    EXPECT_EQ(got.fields()[0].second, c.code);
  }
}

TEST(S3Client, HeadErrorsWithoutBodyMapByStatus) {
  FakeServer server([](const FakeRequest& r) {
    return FakeResponse{r.Path().find("forbidden") != std::string::npos ? 403 : 404, {}, ""};
  });
  auto store = MakeStore(OptionsFor(server));
  EXPECT_EQ(store->Head("missing").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(store->Head("forbidden").status().kind(), ErrorKind::kPermissionDenied);
  EXPECT_EQ(store->OpenRead("missing").status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(S3Client, RetriesDroppedConnections) {
  std::atomic<int> calls{0};
  FakeServer server([&](const FakeRequest&) {
    if (++calls == 1) return FakeResponse{0, {}, "", /*drop=*/true};
    return FakeResponse{200, {}, "payload"};
  });
  auto store = MakeStore(OptionsFor(server));
  auto got = store->Get("k");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, "payload");
  EXPECT_EQ(store->stats().retries, 1u);
}

TEST(S3Client, RefusedConnectionIsUnavailableAfterRetries) {
  // A port nothing listens on: bind one, note it, close it.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  S3Options o;
  o.bucket = "bkt";
  o.endpoint = "http://127.0.0.1:" + std::to_string(port);
  o.access_key_id = kAccess;
  o.secret_access_key = kSecret;
  o.max_attempts = 3;
  o.retry_base_delay_ms = 1;
  auto store = MakeStore(o);
  auto got = store->Head("k");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().kind(), ErrorKind::kUnavailable) << got.status().ToString();
  EXPECT_EQ(store->stats().requests, 3u);
}

TEST(S3Client, RequestsArePathStyleAndVerifiablySigned) {
  FakeServer server([](const FakeRequest& r) {
    if (r.method == "HEAD") return HeadOk(3);
    return FakeResponse{200, {{"ETag", "\"e\""}}, r.method == "GET" ? "abc" : ""};
  });
  S3Options o = OptionsFor(server);
  o.session_token = "session-token/+=";
  auto store = MakeStore(o);
  const std::string key = "dir/a b+é%#?.txt";
  ASSERT_OK(store->Put(key, "hello"));
  ASSERT_TRUE(store->Get(key).ok());
  ASSERT_TRUE(store->Head(key).ok());
  ASSERT_OK(store->Delete(key));
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 4u);
  for (const auto& r : reqs) {
    EXPECT_EQ(r.Path(), "/bkt/pre/fix/dir/a%20b%2B%C3%A9%25%23%3F.txt") << r.method;
    EXPECT_EQ(r.Header("host"), "127.0.0.1:" + std::to_string(server.port()));
    EXPECT_EQ(r.Header("x-amz-security-token"), "session-token/+=");
    EXPECT_NE(r.Header("authorization").find("/eu-west-3/s3/aws4_request"), std::string::npos);
    EXPECT_NE(r.Header("authorization").find("x-amz-security-token"), std::string::npos);
    EXPECT_EQ(VerifySignature(r, kSecret, "eu-west-3"), "") << r.method;
    EXPECT_EQ(r.Header("expect"), "");
  }
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].body, "hello");
  EXPECT_EQ(reqs[0].Header("x-amz-content-sha256"), s3::Sha256Hex("hello"));
  // A wrong secret does not verify (the check above is not vacuous).
  EXPECT_EQ(VerifySignature(reqs[0], "other-secret", "eu-west-3"), "signature mismatch");
}

TEST(S3Client, LargeBodiesAreUnsignedPayload) {
  FakeServer server([](const FakeRequest&) { return FakeResponse{200, {{"ETag", "\"e\""}}, ""}; });
  S3Options o = OptionsFor(server);
  o.max_signed_payload = 4;
  auto store = MakeStore(o);
  ASSERT_OK(store->Put("small", "1234"));
  ASSERT_OK(store->Put("large", "12345"));
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].Header("x-amz-content-sha256"), s3::Sha256Hex("1234"));
  EXPECT_EQ(reqs[1].Header("x-amz-content-sha256"), "UNSIGNED-PAYLOAD");
  EXPECT_EQ(VerifySignature(reqs[1], kSecret, "eu-west-3"), "");
}

TEST(S3Client, AnonymousRequestsAreUnsigned) {
  FakeServer server([](const FakeRequest&) { return FakeResponse{200, {}, "public"}; });
  S3Options o = OptionsFor(server);
  o.access_key_id.clear();
  o.secret_access_key.clear();
  auto store = MakeStore(o);
  auto got = store->Get("k");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(server.requests()[0].Header("authorization"), "");
}

TEST(S3Client, VirtualHostAddressing) {
  FakeServer server([](const FakeRequest&) { return FakeResponse{200, {}, "v"}; });
  S3Options o = OptionsFor(server);
  // *.localhost resolves to the loopback address without DNS.
  o.endpoint = "http://localhost:" + std::to_string(server.port());
  o.addressing = S3Options::Addressing::kVirtualHost;
  auto store = MakeStore(o);
  auto got = store->Get("k");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].Header("host"), "bkt.localhost:" + std::to_string(server.port()));
  EXPECT_EQ(reqs[0].Path(), "/pre/fix/k");
  EXPECT_EQ(VerifySignature(reqs[0], kSecret, "eu-west-3"), "");
}

TEST(S3Client, RangedReadsAndRangeIgnoringServers) {
  const std::string object = "0123456789abcdef";
  std::atomic<bool> ignore_range{false};
  FakeServer server([&](const FakeRequest& r) {
    if (r.method == "HEAD") return HeadOk(object.size());
    std::string range = r.Header("range");
    if (ignore_range || range.empty()) return FakeResponse{200, {}, object};
    size_t dash = range.find('-');
    size_t a = std::stoul(range.substr(6, dash - 6)), b = std::stoul(range.substr(dash + 1));
    return FakeResponse{206, {{"Content-Range", range}}, object.substr(a, b - a + 1)};
  });
  auto store = MakeStore(OptionsFor(server));
  auto file = store->OpenRead("obj");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_EQ((*file)->Size(), object.size());
  char buf[16];
  ASSERT_OK((*file)->ReadAt(3, 4, reinterpret_cast<uint8_t*>(buf)));
  EXPECT_EQ(std::string(buf, 4), "3456");
  auto reqs = server.requests();
  EXPECT_EQ(reqs.back().Header("range"), "bytes=3-6");
  EXPECT_EQ(reqs.back().Header("if-match"), "\"abc123\"");
  ignore_range = true;
  Status st = (*file)->ReadAt(3, 4, reinterpret_cast<uint8_t*>(buf));
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
  // The whole object in one ranged read accepts a plain 200.
  ASSERT_OK((*file)->ReadAt(0, 16, reinterpret_cast<uint8_t*>(buf)));
  EXPECT_EQ(std::string(buf, 16), object);
}

// Serves `object` with ranges, Content-Range and an ETag per version; If-Match is honoured.
struct RangeServer {
  std::string object = testutil::Pattern((5 << 20) + 12345, 21);
  std::atomic<int> version{1};
  std::atomic<int> replace_after{0};  // bump the version after this many requests (0 = never)
  std::atomic<int> served{0};

  FakeResponse Handle(const FakeRequest& r) {
    int n = ++served;
    std::string etag = "\"v" + std::to_string(version.load()) + "\"";
    if (replace_after > 0 && n == replace_after) ++version;
    if (r.method == "HEAD") {
      return FakeResponse{
          200, {{"Content-Length", std::to_string(object.size())}, {"ETag", etag}}, ""};
    }
    std::string if_match = r.Header("if-match");
    if (!if_match.empty() && if_match != etag) return ErrorResponse(412, "PreconditionFailed");
    std::string range = r.Header("range");
    if (range.empty()) return FakeResponse{200, {{"ETag", etag}}, object};
    size_t dash = range.find('-');
    size_t a = std::stoul(range.substr(6, dash - 6)), b = std::stoul(range.substr(dash + 1));
    if (a >= object.size()) return ErrorResponse(416, "InvalidRange");
    b = std::min(b, object.size() - 1);
    return FakeResponse{206,
                        {{"ETag", etag},
                         {"Content-Range", "bytes " + std::to_string(a) + "-" + std::to_string(b) +
                                               "/" + std::to_string(object.size())}},
                        object.substr(a, b - a + 1)};
  }
};

TEST(S3Client, BigReadsAreSplitIntoParallelRanges) {
  RangeServer rs;
  FakeServer server([&](const FakeRequest& r) { return rs.Handle(r); });
  S3Options o = OptionsFor(server);
  o.read_chunk_size = 1 << 20;
  o.download_concurrency = 3;
  auto store = MakeStore(o);
  auto file = store->OpenRead("big");
  ASSERT_TRUE(file.ok());
  std::string buf(rs.object.size() - 10, '\0');
  ASSERT_OK((*file)->ReadAt(10, buf.size(), reinterpret_cast<uint8_t*>(buf.data())));
  EXPECT_TRUE(buf == rs.object.substr(10));
  EXPECT_EQ(server.request_count(), 1u + 6u);  // HEAD + 6 ranges of at most 1 MiB
  for (const auto& r : server.requests()) {
    if (r.method == "GET") {
      EXPECT_EQ(r.Header("if-match"), "\"v1\"");
    }
  }
  auto got = store->Get("big");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(*got == rs.object);
  // Replaced after opening: the parallel ranges refuse to mix versions.
  ++rs.version;
  Status st = (*file)->ReadAt(0, buf.size(), reinterpret_cast<uint8_t*>(buf.data()));
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition) << st.ToString();
}

TEST(S3Client, ReaderDetectsReplacedObject) {
  FakeServer server([](const FakeRequest& r) {
    if (r.method == "HEAD") return HeadOk(10);
    return ErrorResponse(412, "PreconditionFailed");
  });
  auto store = MakeStore(OptionsFor(server));
  auto file = store->OpenRead("obj");
  ASSERT_TRUE(file.ok());
  uint8_t buf[4];
  Status st = (*file)->ReadAt(0, 4, buf);
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_NE(st.message().find("changed"), std::string::npos);
}

TEST(S3Client, ListFollowsContinuationTokensAndStripsThePrefix) {
  FakeServer server([](const FakeRequest& r) {
    std::string q = r.Query();
    bool second = q.find("continuation-token=tok%2F1%3D") != std::string::npos;
    std::string body = "<?xml version=\"1.0\"?><ListBucketResult><Name>bkt</Name>";
    if (!second) {
      body +=
          "<Contents><Key>pre/fix/d/a &amp; b</Key><Size>1</Size><ETag>&quot;e1&quot;</ETag>"
          "<LastModified>2024-01-02T03:04:05.678Z</LastModified></Contents>"
          "<Contents><Key>pre/fix/d/b</Key><Size>22</Size><ETag>\"e2\"</ETag></Contents>"
          "<IsTruncated>true</IsTruncated><NextContinuationToken>tok/1=</NextContinuationToken>";
    } else {
      body +=
          "<Contents><Key>pre/fix/d/c</Key><Size>333</Size></Contents>"
          "<IsTruncated>false</IsTruncated>";
    }
    return FakeResponse{200, {}, body + "</ListBucketResult>"};
  });
  auto store = MakeStore(OptionsFor(server));
  auto all = store->ListAll("d/");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].key, "d/a & b");
  EXPECT_EQ((*all)[0].etag, "e1");
  EXPECT_EQ((*all)[0].mtime_ms, 1704164645678);
  EXPECT_EQ((*all)[1].size, 22u);
  EXPECT_EQ((*all)[2].key, "d/c");
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].Path(), "/bkt");
  EXPECT_EQ(reqs[0].Query(), "list-type=2&max-keys=1000&prefix=pre%2Ffix%2Fd%2F");
  EXPECT_EQ(VerifySignature(reqs[1], kSecret, "eu-west-3"), "");
}

TEST(S3Client, MalformedListingsAreCorruption) {
  std::atomic<int> which{0};
  FakeServer server([&](const FakeRequest&) {
    switch (which.load()) {
      case 0:
        return FakeResponse{200, {}, "<ListBucketResult><Contents>"};
      case 1:
        return FakeResponse{200, {}, "<Other/>"};
      case 2:
        return FakeResponse{200,
                            {},
                            "<ListBucketResult><Contents><Key>pre/fix/x</Key><Size>-1</Size>"
                            "</Contents></ListBucketResult>"};
      default:
        return FakeResponse{200,
                            {},
                            "<ListBucketResult><IsTruncated>true</IsTruncated>"
                            "</ListBucketResult>"};
    }
  });
  auto store = MakeStore(OptionsFor(server));
  for (int i = 0; i < 4; ++i) {
    which = i;
    auto page = store->List("", "", 10);
    EXPECT_EQ(page.status().kind(), ErrorKind::kCorruption) << i;
  }
}

TEST(S3Client, DeleteManyBatchesOf1000) {
  std::mutex mu;
  std::vector<size_t> batch_sizes;
  std::atomic<bool> deny{false};
  FakeServer server([&](const FakeRequest& r) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.Query(), "delete=");
    EXPECT_EQ(r.Header("content-md5"), s3::Md5Base64(r.body));
    auto xml = s3::ParseXml(r.body);
    EXPECT_TRUE(xml.ok());
    size_t n = 0;
    std::string first_key;
    for (const auto& c : xml->children) {
      if (c.name == "Object") {
        if (n++ == 0) first_key = std::string(c.ChildText("Key"));
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      batch_sizes.push_back(n);
    }
    std::string body = "<DeleteResult><Error><Key>" + s3::XmlEscape(first_key) + "</Key><Code>" +
                       (deny ? "AccessDenied" : "NoSuchKey") +
                       "</Code><Message>m</Message></Error></DeleteResult>";
    return FakeResponse{200, {}, body};
  });
  auto store = MakeStore(OptionsFor(server));
  std::vector<std::string> keys;
  for (int i = 0; i < 2500; ++i) keys.push_back("k/" + std::to_string(i) + "&<'>");
  ASSERT_OK(store->DeleteMany(keys));
  EXPECT_EQ(batch_sizes, (std::vector<size_t>{1000, 1000, 500}));
  auto reqs = server.requests();
  EXPECT_NE(reqs[0].body.find("<Key>pre/fix/k/0&amp;&lt;&apos;&gt;</Key>"), std::string::npos);
  EXPECT_EQ(VerifySignature(reqs[0], kSecret, "eu-west-3"), "");
  deny = true;
  Status st = store->DeleteMany({"a", "b"});
  EXPECT_EQ(st.kind(), ErrorKind::kPermissionDenied) << st.ToString();
}

TEST(S3Client, GcsStyleStoresDeleteOneByOne) {
  FakeServer server([](const FakeRequest&) { return FakeResponse{204, {}, ""}; });
  S3Options o = OptionsFor(server);
  o.batch_delete = false;
  auto store = MakeStore(o);
  ASSERT_OK(store->DeleteMany({"a", "b", "c"}));
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  for (const auto& r : reqs) EXPECT_EQ(r.method, "DELETE");
}

// A multipart server that fails part `fail_part` (0 = none) and records aborts.
struct MultipartScript {
  int fail_part = 0;
  bool complete_error_in_200 = false;
  std::atomic<int> aborts{0};
  std::atomic<int> completes{0};
  std::mutex mu;
  std::map<int, size_t> part_sizes;

  FakeResponse Handle(const FakeRequest& r) {
    std::string q = r.Query();
    if (r.method == "POST" && q == "uploads=") {
      return FakeResponse{200,
                          {},
                          "<InitiateMultipartUploadResult><Bucket>bkt</Bucket><Key>k</Key>"
                          "<UploadId>up-1</UploadId></InitiateMultipartUploadResult>"};
    }
    if (r.method == "PUT" && q.find("partNumber=") != std::string::npos) {
      int n = std::stoi(q.substr(q.find("partNumber=") + 11));
      EXPECT_NE(q.find("uploadId=up-1"), std::string::npos);
      if (n == fail_part) return ErrorResponse(400, "InvalidPart", "bad part");
      std::lock_guard<std::mutex> lock(mu);
      part_sizes[n] = r.body.size();
      return FakeResponse{200, {{"ETag", "\"etag-" + std::to_string(n) + "\""}}, ""};
    }
    if (r.method == "POST" && q == "uploadId=up-1") {
      ++completes;
      if (complete_error_in_200) {
        return FakeResponse{
            200, {}, "<Error><Code>AccessDenied</Code><Message>no</Message></Error>"};
      }
      return FakeResponse{200, {}, "<CompleteMultipartUploadResult/>"};
    }
    if (r.method == "DELETE" && q == "uploadId=up-1") {
      ++aborts;
      return FakeResponse{204, {}, ""};
    }
    if (r.method == "PUT") return FakeResponse{200, {{"ETag", "\"single\""}}, ""};
    return ErrorResponse(400, "Unexpected", r.method + " " + r.target);
  }
};

TEST(S3Client, MultipartUploadSendsPartsAndCompletes) {
  MultipartScript script;
  FakeServer server([&](const FakeRequest& r) { return script.Handle(r); });
  auto store = MakeStore(OptionsFor(server));
  auto out = store->OpenWrite("k");
  ASSERT_TRUE(out.ok());
  std::string data = testutil::Pattern((5 << 20) * 2 + 100, 9);
  ASSERT_OK((*out)->Write(data));
  ASSERT_OK((*out)->Close());
  EXPECT_EQ(script.completes.load(), 1);
  EXPECT_EQ(script.aborts.load(), 0);
  EXPECT_EQ(script.part_sizes, (std::map<int, size_t>{{1, 5 << 20}, {2, 5 << 20}, {3, 100}}));
  std::string complete_body;
  for (const auto& r : server.requests()) {
    if (r.method == "POST" && r.Query() == "uploadId=up-1") complete_body = r.body;
    EXPECT_EQ(VerifySignature(r, kSecret, "eu-west-3"), "") << r.method << " " << r.target;
    if (r.method == "PUT") {  // big parts are sent unhashed, the small last one hashed
      EXPECT_EQ(r.Header("x-amz-content-sha256"),
                r.body.size() > (1 << 20) ? "UNSIGNED-PAYLOAD" : s3::Sha256Hex(r.body));
    }
  }
  EXPECT_NE(complete_body.find("<Part><PartNumber>3</PartNumber><ETag>&quot;etag-3&quot;</ETag>"),
            std::string::npos)
      << complete_body;
}

TEST(S3Client, PartsGrowEveryFourPartsUpToTheMaximum) {
  MultipartScript script;
  FakeServer server([&](const FakeRequest& r) { return script.Handle(r); });
  S3Options o = OptionsFor(server);
  o.max_part_size = 10 << 20;
  o.upload_concurrency = 3;
  auto store = MakeStore(o);
  auto out = store->OpenWrite("k");
  ASSERT_TRUE(out.ok());
  std::string chunk = testutil::Pattern(1 << 20, 13);
  for (int i = 0; i < 40; ++i) ASSERT_OK((*out)->Write(chunk));
  ASSERT_OK((*out)->Write("z"));
  ASSERT_OK((*out)->Close());
  const size_t m = 1 << 20;
  EXPECT_EQ(script.part_sizes,
            (std::map<int, size_t>{
                {1, 5 * m}, {2, 5 * m}, {3, 5 * m}, {4, 5 * m}, {5, 10 * m}, {6, 10 * m}, {7, 1}}));
}

TEST(S3Client, ExactlyOnePartIsASinglePut) {
  MultipartScript script;
  FakeServer server([&](const FakeRequest& r) { return script.Handle(r); });
  auto store = MakeStore(OptionsFor(server));
  auto out = store->OpenWrite("k");
  ASSERT_TRUE(out.ok());
  ASSERT_OK((*out)->Write(std::string(5 << 20, 'x')));
  ASSERT_OK((*out)->Close());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].Query(), "");
}

TEST(S3Client, FailedPartAbortsTheUpload) {
  MultipartScript script;
  script.fail_part = 2;
  FakeServer server([&](const FakeRequest& r) { return script.Handle(r); });
  auto store = MakeStore(OptionsFor(server));
  auto out = store->OpenWrite("k");
  ASSERT_TRUE(out.ok());
  std::string data = testutil::Pattern(5 << 20, 10);
  Status st;
  for (int i = 0; i < 4 && st.ok(); ++i) st = (*out)->Write(data);
  if (st.ok()) st = (*out)->Close();
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("InvalidPart"), std::string::npos);
  EXPECT_EQ(script.aborts.load(), 1);
  EXPECT_EQ(script.completes.load(), 0);
  // The writer stays failed; destroying it does not abort twice.
  EXPECT_FALSE((*out)->Write("x").ok());
  EXPECT_FALSE((*out)->Close().ok());
  out->reset();
  EXPECT_EQ(script.aborts.load(), 1);
}

TEST(S3Client, ErrorInsideA200CompleteIsAFailureAndAborts) {
  MultipartScript script;
  script.complete_error_in_200 = true;
  FakeServer server([&](const FakeRequest& r) { return script.Handle(r); });
  auto store = MakeStore(OptionsFor(server));
  auto out = store->OpenWrite("k");
  ASSERT_TRUE(out.ok());
  ASSERT_OK((*out)->Write(testutil::Pattern((5 << 20) + 1, 11)));
  Status st = (*out)->Close();
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("AccessDenied"), std::string::npos);
  EXPECT_EQ(script.aborts.load(), 1);
}

TEST(S3Client, UnclosedWriterAbortsOnDestruction) {
  MultipartScript script;
  FakeServer server([&](const FakeRequest& r) { return script.Handle(r); });
  auto store = MakeStore(OptionsFor(server));
  {
    auto out = store->OpenWrite("k");
    ASSERT_TRUE(out.ok());
    ASSERT_OK((*out)->Write(testutil::Pattern((5 << 20) * 2 + 1, 12)));
  }
  EXPECT_EQ(script.aborts.load(), 1);
  EXPECT_EQ(script.completes.load(), 0);
  // Small unclosed writers never sent anything.
  size_t before = server.request_count();
  {
    auto out = store->OpenWrite("small");
    ASSERT_TRUE(out.ok());
    ASSERT_OK((*out)->Write("abc"));
  }
  EXPECT_EQ(server.request_count(), before);
}

TEST(S3Client, ConditionalPutSendsIfNoneMatch) {
  FakeServer server([](const FakeRequest& r) {
    if (r.Header("if-none-match") == "*") return ErrorResponse(412, "PreconditionFailed");
    return FakeResponse{200, {}, ""};
  });
  auto store = MakeStore(OptionsFor(server));
  WriteOptions o;
  o.if_absent = true;
  Status st = store->Put("k", "v", o);
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_NE(st.message().find("already exists"), std::string::npos);
  EXPECT_EQ(VerifySignature(server.requests()[0], kSecret, "eu-west-3"), "");
}

TEST(S3Client, ConditionalPutFallsBackWhenNotImplemented) {
  std::atomic<bool> exists{false};
  FakeServer server([&](const FakeRequest& r) {
    if (r.Header("if-none-match") == "*") return ErrorResponse(501, "NotImplemented");
    if (r.method == "HEAD") return exists ? HeadOk(1) : FakeResponse{404, {}, ""};
    return FakeResponse{200, {}, ""};
  });
  auto store = MakeStore(OptionsFor(server));
  WriteOptions o;
  o.if_absent = true;
  ASSERT_OK(store->Put("k", "v", o));
  exists = true;
  EXPECT_EQ(store->Put("k", "v", o).kind(), ErrorKind::kFailedPrecondition);
}

TEST(S3Client, OptionsValidation) {
  S3Options o;
  o.bucket = "bkt";
  o.endpoint = "http://127.0.0.1:1";
  EXPECT_TRUE(S3ObjectStore::Make(o).ok());
  auto bad = [&](auto mutate) {
    S3Options copy = o;
    mutate(copy);
    return S3ObjectStore::Make(copy).status().kind();
  };
  EXPECT_EQ(bad([](S3Options& c) { c.bucket = ""; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.bucket = "a/b"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.bucket = "a?b"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.endpoint = "ftp://x"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.endpoint = "127.0.0.1:9000"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.endpoint = "http://h/path"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.endpoint = "http://user@h"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.part_size = 1 << 20; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) { c.prefix = "a/../b"; }), ErrorKind::kInvalidArgument);
  EXPECT_EQ(bad([](S3Options& c) {
              c.access_key_id = "AK";
              c.secret_access_key = "";
            }),
            ErrorKind::kInvalidArgument);
  o.prefix = "/warehouse/x/";
  auto store = S3ObjectStore::Make(o);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->uri(), "s3://bkt/warehouse/x");
  EXPECT_EQ((*store)->UriOf("k"), "s3://bkt/warehouse/x/k");
  WriteOptions small_parts;
  small_parts.part_size = 1024;
  EXPECT_EQ((*store)->OpenWrite("k", small_parts).status().kind(), ErrorKind::kInvalidArgument);
}

class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const char* name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                             "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                             "AWS_ENDPOINT_URL_S3", "TARN_S3_ADDRESSING", "TARN_GCS_ENDPOINT"}) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      ::unsetenv(name);
    }
    for (const auto& [k, v] : vars) ::setenv(k, v, 1);
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) {
        ::setenv(k.c_str(), v->c_str(), 1);
      } else {
        ::unsetenv(k.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(S3Options, FromEnvironment) {
  {
    ScopedEnv env({{"AWS_ACCESS_KEY_ID", "AK"},
                   {"AWS_SECRET_ACCESS_KEY", "SK"},
                   {"AWS_SESSION_TOKEN", "TOK"},
                   {"AWS_REGION", "eu-central-1"},
                   {"AWS_DEFAULT_REGION", "us-west-2"},
                   {"AWS_ENDPOINT_URL", "http://general:1"},
                   {"AWS_ENDPOINT_URL_S3", "http://s3specific:2"},
                   {"TARN_S3_ADDRESSING", "path"}});
    auto o = S3Options::FromUri("s3://my-bucket/some/prefix");
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    EXPECT_EQ(o->bucket, "my-bucket");
    EXPECT_EQ(o->prefix, "some/prefix");
    EXPECT_EQ(o->access_key_id, "AK");
    EXPECT_EQ(o->secret_access_key, "SK");
    EXPECT_EQ(o->session_token, "TOK");
    EXPECT_EQ(o->region, "eu-central-1");
    EXPECT_EQ(o->endpoint, "http://s3specific:2");
    EXPECT_EQ(o->addressing, S3Options::Addressing::kPath);
    EXPECT_EQ(o->scheme, "s3");
  }
  {
    ScopedEnv env({{"AWS_DEFAULT_REGION", "us-west-2"}, {"AWS_ENDPOINT_URL", "http://general:1"}});
    auto o = S3Options::FromUri("s3://b");
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->region, "us-west-2");
    EXPECT_EQ(o->endpoint, "http://general:1");
    EXPECT_EQ(o->prefix, "");
    EXPECT_EQ(o->addressing, S3Options::Addressing::kAuto);
  }
  {
    ScopedEnv env({{"AWS_ENDPOINT_URL", "http://general:1"},
                   {"AWS_ACCESS_KEY_ID", "HMAC"},
                   {"AWS_SECRET_ACCESS_KEY", "HMACSECRET"}});
    auto o = S3Options::FromUri("gs://gbucket/wh");
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->scheme, "gs");
    EXPECT_EQ(o->endpoint, "https://storage.googleapis.com");
    EXPECT_EQ(o->region, "auto");
    EXPECT_FALSE(o->batch_delete);
    EXPECT_EQ(o->access_key_id, "HMAC");
    auto store = S3ObjectStore::Make(*o);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->uri(), "gs://gbucket/wh");
  }
  {
    ScopedEnv env({{"TARN_S3_ADDRESSING", "sideways"}});
    EXPECT_EQ(S3Options::FromUri("s3://b").status().kind(), ErrorKind::kInvalidArgument);
  }
  {
    ScopedEnv env({});
    auto o = S3Options::FromUri("s3://b");
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(o->region, "us-east-1");
    EXPECT_EQ(o->endpoint, "");
    EXPECT_EQ(S3Options::FromUri("http://b").status().kind(), ErrorKind::kInvalidArgument);
  }
}

TEST(S3Options, AutoAddressing) {
  EXPECT_TRUE(s3::IsIpOrLocalhost("127.0.0.1"));
  EXPECT_TRUE(s3::IsIpOrLocalhost("10.1.2.3"));
  EXPECT_TRUE(s3::IsIpOrLocalhost("[::1]"));
  EXPECT_TRUE(s3::IsIpOrLocalhost("localhost"));
  EXPECT_TRUE(s3::IsIpOrLocalhost("minio.localhost"));
  EXPECT_FALSE(s3::IsIpOrLocalhost("s3.amazonaws.com"));
  EXPECT_FALSE(s3::IsIpOrLocalhost("127.0.0.1.nip.io"));
  EXPECT_FALSE(s3::IsIpOrLocalhost("notlocalhost"));
}

TEST(S3Dates, Parse) {
  int64_t ms = 0;
  EXPECT_TRUE(s3::ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT", &ms));
  EXPECT_EQ(ms, 784111777000);
  EXPECT_TRUE(s3::ParseIsoDate("2009-10-12T17:50:30.000Z", &ms));
  EXPECT_EQ(ms, 1255369830000);
  EXPECT_TRUE(s3::ParseIsoDate("2009-10-12T17:50:30.5Z", &ms));
  EXPECT_EQ(ms, 1255369830500);
  EXPECT_TRUE(s3::ParseIsoDate("2009-10-12T17:50:30Z", &ms));
  for (const char* bad : {"", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Foo 1994 08:49:37 GMT",
                          "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 0x Nov 1994 08:49:37 GMT"}) {
    EXPECT_FALSE(s3::ParseHttpDate(bad, &ms)) << bad;
  }
  for (const char* bad : {"2009-10-12", "2009-13-12T17:50:30Z", "2009-10-12T17:50:30.Z",
                          "2009-10-12T17:50:30.0a0Z", "2009-10-12 17:50:30Z"}) {
    EXPECT_FALSE(s3::ParseIsoDate(bad, &ms)) << bad;
  }
}

}  // namespace
}  // namespace tarn
