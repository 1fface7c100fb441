// The codes the upload module and the readers under it declare keep today's mappings: the
// refusals of the data exit 3, not 2 (moved here from common/status_test.cc: common no longer
// knows these codes).
#include "formats/error_codes.h"

#include <gtest/gtest.h>

#include "sdk/upload_error_codes.h"
#include "tarn/status.h"

namespace tarn {
namespace {

TEST(StatusTest, RefusalsOfDataExitThreeNotTwo) {
  Status usage = Status::InvalidArgument("bad flag");
  EXPECT_EQ(ExitCodeFor(usage), 2);
  EXPECT_EQ(ExitCodeFor(Status::InvalidArgument("x").WithField("code", "schema_source_required")),
            2);
  for (const char* code : {"value_not_castable", "column_undeclared", "column_missing",
                           "sources_disagree", "format_unreadable"}) {
    Status st = Status::InvalidArgument("refused").WithField("code", code);
    EXPECT_EQ(ExitCodeFor(st), 3) << code;
    EXPECT_EQ(HttpStatusFor(st), 422) << code;
  }
  // The code only matters for invalid_argument.
  EXPECT_EQ(ExitCodeFor(Status::Stale("x").WithField("code", "value_not_castable")), 4);
  EXPECT_EQ(ExitCodeFor(Status::OK()), 0);
}

TEST(UploadErrorCodes, AreRegisteredWithTheirDescriptors) {
  for (const ErrorCode* c :
       {&codes::kValueNotCastable, &codes::kColumnUndeclared, &codes::kColumnMissing,
        &codes::kSourcesDisagree, &codes::kFormatUnreadable}) {
    EXPECT_EQ(ErrorRegistry::Find(c->name), c) << c->name;
    EXPECT_EQ(c->kind, ErrorKind::kInvalidArgument) << c->name;
    EXPECT_EQ(c->exit_code, 3) << c->name;
    EXPECT_EQ(Status::Of(*c, "x").kind(), ErrorKind::kInvalidArgument);
  }
  EXPECT_EQ(ExitCodeFor(Status::Of(codes::kSchemaSourceRequired, "x")), 2);
}

}  // namespace
}  // namespace tarn
