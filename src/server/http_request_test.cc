#include "server/http_request.h"

#include <gtest/gtest.h>

#include "common/hex.h"

namespace tarn::server::internal {
namespace {

std::string CodeOf(const Status& st) {
  for (const auto& [k, v] : st.fields()) {
    if (k == "code") return v;
  }
  return "";
}

TEST(ParseTarget, SplitsAndDecodes) {
  auto t = ParseTarget("/v1/a%20b/c?x=1&y=a+b%26c&flag&x=2&=v", 2048);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->path, "/v1/a b/c");
  EXPECT_EQ(t->raw_path, "/v1/a%20b/c");
  EXPECT_EQ(t->QueryValue("x"), "1");  // the first of repeated names
  EXPECT_EQ(t->QueryValue("y"), "a b&c");
  EXPECT_EQ(t->QueryValue("flag"), "");
  EXPECT_EQ(t->QueryValue(""), "v");
  EXPECT_EQ(t->QueryValue("z"), std::nullopt);
  // '+' is a space in the query only.
  EXPECT_EQ(ParseTarget("/a+b", 10)->path, "/a+b");
}

TEST(ParseTarget, KeepsEscapedSlashesInTheRawPath) {
  auto t = ParseTarget("/v1/workspaces/wsa%2Fcollections%2Fc", 2048);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->raw_path, "/v1/workspaces/wsa%2Fcollections%2Fc");
  EXPECT_EQ(t->path, "/v1/workspaces/wsa/collections/c");
  EXPECT_EQ(PercentDecode("wsa%2Fc"), "wsa/c");
  EXPECT_EQ(PercentDecode("%zz"), std::nullopt);
}

TEST(ParseTarget, RefusesWhatIsNotAnOriginFormPath) {
  for (const char* bad : {"", "*", "http://x/y", "v1/x", "/a%", "/a%4", "/a%g0", "/a?b=%", "/a b",
                          "/a\x01", "/a\x7f"}) {
    auto t = ParseTarget(bad, 2048);
    EXPECT_FALSE(t.ok()) << bad;
    EXPECT_EQ(CodeOf(t.status()), "malformed_request") << bad;
  }
  // A decoded NUL is left to the identifier checks of the routes.
  EXPECT_TRUE(ParseTarget("/v1/workspaces/a%00b", 2048).ok());
}

TEST(ParseTarget, LongPathsAre414ButLongQueriesAreNot) {
  auto t = ParseTarget("/" + std::string(100, 'a'), 50);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(CodeOf(t.status()), "uri_too_long");
  EXPECT_TRUE(ParseTarget("/a?" + std::string(100, 'q'), 50).ok());
}

TEST(CheckFraming, AcceptsOneLengthOrOneChunked) {
  auto none = CheckFraming({}, {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->content_length.has_value());
  EXPECT_FALSE(none->has_body());
  auto len = CheckFraming({" 42 "}, {});
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(len->content_length, 42);
  EXPECT_TRUE(len->has_body());
  EXPECT_FALSE(CheckFraming({"0"}, {})->has_body());
  auto chunked = CheckFraming({}, {"Chunked"});
  ASSERT_TRUE(chunked.ok());
  EXPECT_TRUE(chunked->chunked);
  EXPECT_TRUE(chunked->has_body());
}

TEST(CheckFraming, RefusesEveryAmbiguity) {
  using V = std::vector<std::string_view>;
  const std::vector<std::pair<V, V>> bad = {
      {{"1", "2"}, {}},               // two different lengths
      {{"2", "2"}, {}},               // two equal ones
      {{"1,2"}, {}},                  // a list
      {{"-1"}, {}},                   // negative
      {{"+1"}, {}},                   // signed
      {{"0x10"}, {}},                 // not decimal
      {{""}, {}},                     // empty
      {{"1234567890123456789"}, {}},  // 19 digits
      {{"5"}, {"chunked"}},           // both
      {{}, {"gzip"}},                 // not chunked
      {{}, {"gzip, chunked"}},        // a coding before chunked
      {{}, {"chunked", "chunked"}},   // twice
      {{}, {"chunked, chunked"}},     // twice in one line
  };
  for (const auto& [lengths, encodings] : bad) {
    auto f = CheckFraming(lengths, encodings);
    EXPECT_FALSE(f.ok()) << (lengths.empty() ? "" : lengths[0]) << " / "
                         << (encodings.empty() ? "" : encodings[0]);
    if (!f.ok()) {
      EXPECT_EQ(CodeOf(f.status()), "malformed_request");
    }
  }
}

TEST(ParseRange, TakesOneRangeOfBytes) {
  struct Case {
    std::string header;
    uint64_t offset, length;
  };
  for (const Case& c : std::vector<Case>{{"bytes=0-0", 0, 1},
                                         {"bytes=4-11", 4, 8},
                                         {"bytes=90-", 90, 10},
                                         {"bytes=90-1000", 90, 10},  // clipped to the object
                                         {"bytes=-8", 92, 8},
                                         {"bytes=-1000", 0, 100},
                                         {"Bytes= 4 - 11 ", 4, 8}}) {
    auto r = ParseRange(c.header, 100);
    ASSERT_TRUE(r.ok()) << c.header << ": " << r.status().ToString();
    ASSERT_TRUE(r->has_value()) << c.header;
    EXPECT_EQ((*r)->offset, c.offset) << c.header;
    EXPECT_EQ((*r)->length, c.length) << c.header;
  }
}

TEST(ParseRange, IgnoresWhatItDoesNotServe) {
  // The whole object: no header, another unit, several ranges, malformed values.
  for (const char* h : {"", "items=0-1", "bytes=0-1,4-5", "bytes=5-1", "bytes=a-b", "bytes=-",
                        "bytes=1", "bytes=+1-2", "bytes=99999999999999999999-", "bytes=1-2-3"}) {
    auto r = ParseRange(h, 100);
    ASSERT_TRUE(r.ok()) << h << ": " << r.status().ToString();
    EXPECT_FALSE(r->has_value()) << h;
  }
}

TEST(ParseRange, RefusesARangePastTheEnd) {
  for (const auto& [h, size] : std::vector<std::pair<std::string, uint64_t>>{{"bytes=100-", 100},
                                                                             {"bytes=100-200", 100},
                                                                             {"bytes=-0", 100},
                                                                             {"bytes=0-", 0},
                                                                             {"bytes=-5", 0}}) {
    auto r = ParseRange(h, size);
    ASSERT_FALSE(r.ok()) << h;
    EXPECT_EQ(CodeOf(r.status()), "range_not_satisfiable") << h;
    EXPECT_EQ(HttpStatusFor(r.status()), 416) << h;
  }
}

}  // namespace
}  // namespace tarn::server::internal
