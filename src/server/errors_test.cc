// PublicError: what an error response may say (issue 14 defect 7).
#include "server/errors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

namespace tarn::server::internal {
namespace {

std::map<std::string, std::string> Fields(const Status& st) {
  return {st.fields().begin(), st.fields().end()};
}

RedactionContext TestContext() {
  RedactionContext ctx;
  ctx.replacements = {{"/srv/tarn/cat/warehouse", "<warehouse>"},
                      {"file:///srv/tarn/cat/warehouse", "<warehouse>"},
                      {"/srv/tarn/cat/catalog.db", "<metastore>"},
                      {"/srv/tarn/cat", "<catalog>"}};
  ctx.root_entries = {"srv", "tmp", "home", "proc", "etc"};
  return ctx;
}

TEST(PublicErrorTest, OkStaysOk) { EXPECT_TRUE(PublicError(Status::OK(), TestContext()).ok()); }

TEST(PublicErrorTest, InternalBecomesGeneric) {
  Status st = Status::Internal("unexpected exception: std::bad_alloc at /srv/tarn/cat/x")
                  .WithField("code", "boom")
                  .WithField("path", "/srv/tarn/cat/x");
  Status pub = PublicError(st, TestContext());
  EXPECT_EQ(pub.kind(), ErrorKind::kInternal);
  EXPECT_EQ(pub.message().find("bad_alloc"), std::string::npos);
  EXPECT_EQ(pub.message().find("/srv"), std::string::npos);
  EXPECT_EQ(Fields(pub), (std::map<std::string, std::string>{{"code", "internal"}}));
}

TEST(PublicErrorTest, RawMetastoreFailuresBecomeGenericWhateverTheirKind) {
  struct Case {
    Status in;
    ErrorKind kind;
  };
  const std::vector<Case> cases = {
      {Status::AlreadyExists("sqlite: executing INSERT INTO datasets ...: UNIQUE constraint "
                             "failed: datasets.name"),
       ErrorKind::kAlreadyExists},
      {Status::Unavailable("committing acme.s.t: postgres: connection lost during query: "
                           "server closed the connection unexpectedly"),
       ErrorKind::kUnavailable},
      {Status::FailedPrecondition("postgres: executing: insert or update on table \"files\" "
                                  "violates foreign key constraint (SQLSTATE 23503)"),
       ErrorKind::kFailedPrecondition},
      {Status::InvalidArgument("sqlite: executing: NOT NULL constraint failed: x.y"),
       ErrorKind::kInvalidArgument},
      {Status::Unavailable("database is locked").WithField("metastore_retry", "1"),
       ErrorKind::kUnavailable},
      // Kinds a client cannot act on become internal.
      {Status::Corruption("sqlite: stepping: database disk image is malformed"),
       ErrorKind::kInternal},
      {Status::IOError("loading the keys: sqlite: cannot open /srv/tarn/cat/catalog.db: unable "
                       "to open database file"),
       ErrorKind::kInternal},
      {Status::Unavailable("cannot check token revocations: metastore: QueryOne got more"),
       ErrorKind::kUnavailable},
  };
  for (const Case& c : cases) {
    Status pub = PublicError(c.in, TestContext());
    EXPECT_EQ(pub.kind(), c.kind) << c.in.ToString();
    for (const char* leak : {"sqlite", "postgres", "SQLSTATE", "constraint", "datasets.name",
                             "/srv", "metastore:", "locked", "malformed"}) {
      EXPECT_EQ(pub.message().find(leak), std::string::npos)
          << leak << " in " << pub.message() << " from " << c.in.ToString();
    }
    for (const auto& [k, v] : pub.fields()) {
      EXPECT_EQ(k, "code") << c.in.ToString();
      EXPECT_EQ(v.find("sqlite"), std::string::npos);
    }
  }
  EXPECT_TRUE(IsRawMetastoreError(cases[0].in));
  EXPECT_FALSE(IsRawMetastoreError(Status::NotFound("dataset 'a.b.sqlite' not found")));
  EXPECT_FALSE(IsRawMetastoreError(Status::InvalidArgument("literal 'x' is not a postgres")));
}

TEST(PublicErrorTest, ServerPathsAndUrisAreReplacedInMessageAndFields) {
  Status st = Status::NotFound(
                  "opening /srv/tarn/cat/warehouse/acme/s/t/data/a.parquet: No such file; "
                  "warehouse file:///srv/tarn/cat/warehouse, db /srv/tarn/cat/catalog.db, "
                  "spool '/tmp/tarn-upload-123.parquet', fd /proc/self/fd/12/x.tmp-1.")
                  .WithField("code", "file_not_found")
                  .WithField("path", "/srv/tarn/cat/warehouse/acme/s/t/data/a.parquet")
                  .WithField("uri", "file:///home/op/secret/x.parquet")
                  .WithField("field", "/parts/0/added/0/path")
                  .WithField("metastore_retry", "1");
  // The retry marker alone would make it a raw metastore error; check the redaction of a
  // plain error without it.
  Status plain(st.kind(), st.message());
  for (const auto& [k, v] : st.fields()) {
    if (k != "metastore_retry") plain = std::move(plain).WithField(k, v);
  }
  Status pub = PublicError(plain, TestContext());
  EXPECT_EQ(pub.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(pub.message(),
            "opening <warehouse>/acme/s/t/data/a.parquet: No such file; warehouse <warehouse>, "
            "db <metastore>, spool '<path>', fd <path>.");
  auto f = Fields(pub);
  EXPECT_EQ(f["code"], "file_not_found");
  EXPECT_EQ(f["path"], "<warehouse>/acme/s/t/data/a.parquet");
  EXPECT_EQ(f["uri"], "<path>");
  EXPECT_EQ(f["field"], "/parts/0/added/0/path");  // a JSON pointer is kept as it is
  EXPECT_EQ(f.count("metastore_retry"), 0u);
}

TEST(PublicErrorTest, RelativeKeysPointersAndApiPathsAreKept) {
  for (const char* kept :
       {"/parts/0/meta/author: expected a string", "no route /v1/nope",
        "file 'acme/s/t/data/a.parquet' is not Parquet", "predicate: column name is VARCHAR",
        "ratio 1/2 and a/b/c", "s3://bucket/acme/x.parquet is missing"}) {
    Status pub = PublicError(Status::InvalidArgument(kept), TestContext());
    EXPECT_EQ(pub.message(), kept);
  }
}

TEST(PublicErrorTest, LongerReplacementsWinAndEveryOccurrenceIsReplaced) {
  RedactionContext ctx;
  ctx.replacements = {{"/a", "<catalog>"}, {"/a/warehouse", "<warehouse>"}};
  EXPECT_EQ(RedactText("/a/warehouse/k and /a/catalog.db and /a/warehouse", ctx),
            "<warehouse>/k and <catalog>/catalog.db and <warehouse>");
}

TEST(RedactionContextTest, ForCoversLocalFormsAndTheMetastorePassword) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tarn-errors-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "warehouse");
  std::string root = dir.string();
  RedactionContext ctx = RedactionContext::For(
      root + "/warehouse", "postgresql://tarn:s3cr3t-pw@db.internal/tarn", root);
  EXPECT_EQ(RedactText("file://" + root + "/warehouse/x and " + root + "/catalog.db", ctx),
            "<warehouse>/x and <catalog>/catalog.db");
  EXPECT_EQ(RedactText("cannot connect to postgresql://tarn:s3cr3t-pw@db.internal/tarn", ctx),
            "cannot connect to <metastore>");
  EXPECT_EQ(RedactText("password s3cr3t-pw was refused", ctx), "password <redacted> was refused");
  // Root entries come from "/": /tmp exists on every test machine.
  EXPECT_EQ(RedactText("spool /tmp/tarn-upload-1.parquet", ctx), "spool <path>");
  RedactionContext file_uri = RedactionContext::For("file://" + root + "/warehouse", "", "");
  EXPECT_EQ(RedactText(root + "/warehouse/k", file_uri), "<warehouse>/k");
  RedactionContext s3 = RedactionContext::For("s3://bucket/lake/", "", "");
  EXPECT_EQ(RedactText("reading s3://bucket/lake/acme/x", s3), "reading <warehouse>/acme/x");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tarn::server::internal
