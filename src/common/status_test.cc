#include "tarn/status.h"

#include <gtest/gtest.h>

namespace tarn {
namespace codes {
TARN_ERROR_CODE(kTestRefusal,
                ErrorCode("test_refusal", ErrorKind::kInvalidArgument, "column").Exit(3));
TARN_ERROR_CODE(kTestTeapot, ErrorCode("test_teapot", ErrorKind::kUnavailable).Http(418));
}  // namespace codes

namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  TARN_ASSIGN_OR_RETURN(int h, Half(x));
  TARN_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status Check(int x) {
  TARN_RETURN_NOT_OK(Half(x).status());
  return Status::OK();
}

TEST(Status, OkIsCheapAndEmpty) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(sizeof(Status), sizeof(void*));
}

TEST(Status, CarriesKindMessageFieldsAndContext) {
  Status s = Status::NotFound("no dataset x").WithField("dataset", "x");
  EXPECT_EQ(s.kind(), ErrorKind::kNotFound);
  ASSERT_EQ(s.fields().size(), 1u);
  EXPECT_EQ(s.fields()[0].second, "x");
  Status c = s.WithContext("loading a.b.x");
  EXPECT_EQ(c.message(), "loading a.b.x: no dataset x");
  EXPECT_EQ(c.fields().size(), 1u);
  EXPECT_EQ(c.ToString(), "not_found: loading a.b.x: no dataset x");
  Status copy = c;
  EXPECT_EQ(copy.message(), c.message());
}

TEST(Status, CodeIsTheCodeFieldElseTheKind) {
  EXPECT_EQ(Status::OK().code(), "ok");
  EXPECT_EQ(Status::Expired("x").code(), "expired");
  EXPECT_EQ(Status::Expired("x").WithField("code", "snapshot_expired").code(), "snapshot_expired");
}

TEST(Status, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_TRUE(Check(2).ok());
  EXPECT_FALSE(Check(3).ok());
}

TEST(Status, MappingTable) {
  EXPECT_EQ(ExitCodeFor(ErrorKind::kOk), 0);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kInvalidArgument), 2);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kFailedPrecondition), 3);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kConflict), 4);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kPermissionDenied), 5);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kUnauthenticated), 5);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kUnavailable), 6);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kCancelled), 130);
  EXPECT_EQ(HttpStatusFor(ErrorKind::kNotFound), 404);
  EXPECT_EQ(HttpStatusFor(ErrorKind::kConflict), 409);
  EXPECT_EQ(HttpStatusFor(ErrorKind::kExpired), 410);
  EXPECT_EQ(HttpStatusFor(ErrorKind::kTooLarge), 413);
  EXPECT_EQ(HttpStatusFor(ErrorKind::kInvalidArgument), 422);
  EXPECT_EQ(HttpStatusFor(ErrorKind::kUnavailable), 503);
  EXPECT_TRUE(IsRetryable(ErrorKind::kConflict));
  EXPECT_FALSE(IsRetryable(ErrorKind::kNotFound));
  // Only kInternal may become a 500.
  for (int k = 0; k <= static_cast<int>(ErrorKind::kInternal); ++k) {
    auto kind = static_cast<ErrorKind>(k);
    if (kind != ErrorKind::kInternal) {
      EXPECT_NE(HttpStatusFor(kind), 500) << ErrorKindName(kind);
    }
    EXPECT_NE(ErrorKindName(kind), "");
  }
}

TEST(ErrorRegistry, CodesCarryTheirKindStatusAndExitCode) {
  Status st = Status::Of(codes::kTestRefusal, "refused").WithField("column", "a");
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(st.message(), "refused");
  ASSERT_EQ(st.fields().size(), 2u);
  EXPECT_EQ(st.fields()[0], std::make_pair(std::string("code"), std::string("test_refusal")));
  EXPECT_TRUE(st.Is(codes::kTestRefusal));
  EXPECT_FALSE(st.Is(codes::kTestTeapot));
  EXPECT_EQ(RegisteredCode(st), &codes::kTestRefusal);
  EXPECT_EQ(ExitCodeFor(st), 3);
  EXPECT_EQ(HttpStatusFor(st), 422);
  EXPECT_FALSE(IsRetryable(st));
  Status teapot = Status::Of(codes::kTestTeapot, "short and stout");
  EXPECT_EQ(HttpStatusFor(teapot), 418);
  EXPECT_EQ(ExitCodeFor(teapot), 6);
  EXPECT_TRUE(IsRetryable(teapot));
  EXPECT_EQ(ErrorRegistry::Find("test_refusal"), &codes::kTestRefusal);
  EXPECT_EQ(ErrorRegistry::Find("no_such_code"), nullptr);
  // Every kind's name is a code of that kind.
  for (int k = 1; k <= static_cast<int>(ErrorKind::kInternal); ++k) {
    const ErrorCode* c = ErrorRegistry::Find(ErrorKindName(static_cast<ErrorKind>(k)));
    ASSERT_NE(c, nullptr) << k;
    EXPECT_EQ(c->kind, static_cast<ErrorKind>(k));
  }
  EXPECT_EQ(codes::kTestRefusal.fields, "column");
}

TEST(ErrorRegistry, ACodeOfAnotherKindKeepsTheKindsMappings) {
  // A wrapped error: the code is carried, the kind decides.
  Status st = Status::Stale("x").WithCode(codes::kTestRefusal);
  EXPECT_TRUE(st.Is(codes::kTestRefusal));
  EXPECT_EQ(RegisteredCode(st), nullptr);
  EXPECT_EQ(ExitCodeFor(st), 4);
  // An unregistered code (say, from a newer server) maps by kind.
  Status unknown = Status::InvalidArgument("x").WithField("code", "from_the_future");
  EXPECT_EQ(ExitCodeFor(unknown), 2);
  EXPECT_EQ(HttpStatusFor(unknown), 422);
  EXPECT_EQ(ExitCodeFor(Status::OK()), 0);
}

}  // namespace
}  // namespace tarn
