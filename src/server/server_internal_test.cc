// The pure helpers of the server: form decoding, JSON nesting depth, request ids, the status of
// an error, and the metrics text.
#include "server/server_internal.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tarn::server::internal
