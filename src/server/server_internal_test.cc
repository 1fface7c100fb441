// The pure helpers of the server: form decoding, JSON nesting depth, request ids, the status of
// an error, the metrics text, and the Iceberg facade's namespaces, error shapes and storage
// config.
#include "server/server_internal.h"

#include <gtest/gtest.h>

#include "api/error_codes.h"
#include "catalog/error_codes.h"
#include "objectstore/memory/memory_store.h"
#include "objectstore/s3/s3_store.h"
#include "server/error_codes.h"
#include "server/metrics.h"

namespace tarn::server::internal {
namespace {

TEST(ParseForm, DecodesPairsEscapesAndPlus) {
  auto f = ParseForm("grant_type=client_credentials&client_id=tarn_A&client_secret=a%2Bb+c%3D");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ((*f)["grant_type"], "client_credentials");
  EXPECT_EQ((*f)["client_id"], "tarn_A");
  EXPECT_EQ((*f)["client_secret"], "a+b c=");
  auto edge = ParseForm("&a&b=&=x&a=second");
  ASSERT_TRUE(edge.ok());
  EXPECT_EQ(edge->at("a"), "");  // the first of repeated keys wins
  EXPECT_EQ(edge->at("b"), "");
  EXPECT_EQ(edge->at(""), "x");
  EXPECT_TRUE(ParseForm("").ok());
  for (const char* bad : {"a=%", "a=%4", "a=%zz", "%g1=b"}) {
    auto r = ParseForm(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(HttpStatusFor(r.status()), 400) << bad;
  }
}

TEST(JsonDepth, CountsBracketsOutsideStrings) {
  EXPECT_EQ(JsonDepth("{}", 64), 1);
  EXPECT_EQ(JsonDepth("{\"a\":[1,{\"b\":[]}]}", 64), 4);
  EXPECT_EQ(JsonDepth("{\"a\":\"[[[[\\\"[[[\"}", 64), 1);
  EXPECT_EQ(JsonDepth("1", 64), 0);
  EXPECT_EQ(JsonDepth(std::string(100000, '['), 64), 65);  // stops past the cap
}

TEST(RequestId, OnlySaneIdsAreEchoed) {
  EXPECT_TRUE(SaneRequestId("abc-DEF_123.x:y"));
  EXPECT_FALSE(SaneRequestId(""));
  EXPECT_FALSE(SaneRequestId(std::string(129, 'a')));
  EXPECT_TRUE(SaneRequestId(std::string(128, 'a')));
  for (const char* bad : {"a b", "a\nb", "a\"b", "a/b", "\xc3\xa9"})
    EXPECT_FALSE(SaneRequestId(bad));
}

TEST(HttpStatusOf, FollowsTheKindExceptForMalformedRequests) {
  EXPECT_EQ(HttpStatusFor(Status::NotFound("x")), 404);
  EXPECT_EQ(HttpStatusFor(Status::Conflict("x")), 409);
  EXPECT_EQ(HttpStatusFor(Status::InvalidArgument("x")), 422);
  EXPECT_EQ(HttpStatusFor(Status::InvalidArgument("x").WithField("code", "malformed_json")), 400);
  EXPECT_EQ(HttpStatusFor(Status::InvalidArgument("x").WithField("code", "incomplete_body")), 400);
  EXPECT_EQ(HttpStatusFor(Status::TooLarge("x").WithField("code", "header_too_large")), 431);
  EXPECT_EQ(HttpStatusFor(Status::TooLarge("x").WithField("code", "too_large")), 413);
  EXPECT_EQ(HttpStatusFor(Status::Unavailable("x")), 503);
  EXPECT_EQ(ErrorCodeOf(Status::Expired("x")), "expired");
  EXPECT_EQ(ErrorCodeOf(Status::Expired("x").WithField("code", "snapshot_expired")),
            "snapshot_expired");
}

TEST(Metrics, RendersCountersHistogramsAndEscapedLabels) {
  Metrics m({{"/a", "GET"}, {"/b\"x", "POST"}});
  m.RecordRequest(m.RouteSeries(0), 200, 0.0001);
  m.RecordRequest(m.RouteSeries(0), 200, 0.003);
  m.RecordRequest(m.RouteSeries(0), 404, 20);
  m.RecordRequest(m.RouteSeries(1), 201, 0.5);
  m.RecordRequest(m.UnmatchedSeries("BREW"), 400, 0);
  m.CountCommits(3);
  m.CountConflict();
  m.CountError("not_found");
  m.CountError("not_found");
  m.AddInflight(2);
  m.AddInflight(-1);
  std::string t = m.Render();
  auto has = [&](const std::string& line) {
    EXPECT_NE(t.find("\n" + line + "\n"), std::string::npos) << "missing: " << line << "\n" << t;
  };
  has(R"(tarn_http_requests_total{route="/a",method="GET",status="200"} 2)");
  has(R"(tarn_http_requests_total{route="/a",method="GET",status="404"} 1)");
  has(R"(tarn_http_requests_total{route="/b\"x",method="POST",status="201"} 1)");
  has(R"(tarn_http_requests_total{route="unmatched",method="other",status="400"} 1)");
  has(R"(tarn_http_request_duration_seconds_bucket{route="/a",method="GET",le="0.0005"} 1)");
  has(R"(tarn_http_request_duration_seconds_bucket{route="/a",method="GET",le="0.005"} 2)");
  has(R"(tarn_http_request_duration_seconds_bucket{route="/a",method="GET",le="10"} 2)");
  has(R"(tarn_http_request_duration_seconds_bucket{route="/a",method="GET",le="+Inf"} 3)");
  has(R"(tarn_http_request_duration_seconds_count{route="/a",method="GET"} 3)");
  has("tarn_commits_total 3");
  has("tarn_commit_conflicts_total 1");
  has(R"(tarn_errors_total{code="not_found"} 2)");
  has("tarn_inflight_requests 1");
  EXPECT_EQ(EscapeLabel("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(SplitNamespace, IsAWorkspaceOrACollection) {
  auto one = SplitNamespace("ws");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<std::string>{"ws"});
  const std::string sep = "\x1f";
  auto two = SplitNamespace("ws" + sep + "coll");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, (std::vector<std::string>{"ws", "coll"}));
  for (const std::string& bad : {std::string(), "ws" + sep, sep + "ws", std::string("9ws"),
                                 std::string("ws.coll"), "ws" + sep + "c d"}) {
    auto r = SplitNamespace(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << bad;
  }
  auto deep = SplitNamespace("a" + sep + "b" + sep + "c");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), "collection_not_found");
}

TEST(ErrorResponse, SpeaksEachShape) {
  EXPECT_EQ(ErrorShapeOf("/v1/workspaces"), ErrorShape::kTarn);
  EXPECT_EQ(ErrorShapeOf("/iceberg/v1/tarn/namespaces"), ErrorShape::kIceberg);
  EXPECT_EQ(ErrorShapeOf("/iceberg/v1/config"), ErrorShape::kIceberg);
  EXPECT_EQ(ErrorShapeOf("/iceberg/v1/oauth/tokens"), ErrorShape::kOAuth);

  Status missing = Status::Of(codes::kDatasetNotFound, "no d").WithField("dataset", "w.c.d");
  auto [tarn_http, tarn_body] = ErrorResponse(ErrorShape::kTarn, missing, 404);
  EXPECT_EQ(tarn_http, 404);
  EXPECT_EQ(tarn_body["error"]["code"], "dataset_not_found");
  auto [http, body] = ErrorResponse(ErrorShape::kIceberg, missing, 404);
  EXPECT_EQ(http, 404);
  EXPECT_EQ(body, api::Json::parse(
                      R"({"error":{"message":"no d","type":"NoSuchTableException","code":404}})"));
  Status no_ns = Status::Of(codes::kWorkspaceNotFound, "no w");
  EXPECT_EQ(ErrorResponse(ErrorShape::kIceberg, no_ns, 404).second["error"]["type"],
            "NoSuchNamespaceException");
  // tarn's 422 is the spec's 400.
  auto [bad_http, bad_body] =
      ErrorResponse(ErrorShape::kIceberg, Status::Of(codes::kUnknownParameter, "x"), 422);
  EXPECT_EQ(bad_http, 400);
  EXPECT_EQ(bad_body["error"]["code"], 400);
  EXPECT_EQ(bad_body["error"]["type"], "BadRequestException");
  for (const auto& [status, type] :
       std::vector<std::pair<int, std::string>>{{401, "NotAuthorizedException"},
                                                {403, "ForbiddenException"},
                                                {405, "UnsupportedOperationException"},
                                                {503, "ServiceUnavailableException"},
                                                {500, "ServiceFailureException"}}) {
    EXPECT_EQ(
        ErrorResponse(ErrorShape::kIceberg, Status::Internal("x"), status).second["error"]["type"],
        type);
  }
  auto [oauth_http, oauth] =
      ErrorResponse(ErrorShape::kOAuth, Status::Unauthenticated("bad secret"), 401);
  EXPECT_EQ(oauth_http, 401);
  EXPECT_EQ(oauth,
            api::Json::parse(R"({"error":"invalid_client","error_description":"bad secret"})"));
  EXPECT_EQ(
      ErrorResponse(ErrorShape::kOAuth, Status::Of(codes::kMissingField, "x"), 422).second["error"],
      "invalid_request");
}

TEST(IcebergStorageConfig, TellsClientsHowToReachS3) {
  S3Options o;
  o.bucket = "lake";
  o.endpoint = "http://127.0.0.1:7480";
  o.region = "eu-west-3";
  auto local = S3ObjectStore::Make(o);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(IcebergStorageConfig(**local),
            api::Json::parse(R"({"s3.endpoint":"http://127.0.0.1:7480",
                                 "s3.path-style-access":"true","client.region":"eu-west-3",
                                 "s3.region":"eu-west-3"})"));
  S3Options aws;
  aws.bucket = "lake";
  aws.region = "us-west-2";
  auto virtual_host = S3ObjectStore::Make(aws);
  ASSERT_TRUE(virtual_host.ok());
  EXPECT_EQ(IcebergStorageConfig(**virtual_host),
            api::Json::parse(R"({"s3.path-style-access":"false","client.region":"us-west-2",
                                 "s3.region":"us-west-2"})"));
  MemoryObjectStore memory;  // not S3: the metadata names the file route's URLs instead
  EXPECT_EQ(IcebergStorageConfig(memory), api::Json::object());
}

}  // namespace
}  // namespace tarn::server::internal
