#include "render/upload_render.h"

#include <gtest/gtest.h>

#include "tarn/upload.h"

namespace tarn::render {
namespace {

TEST(ParseDeclarations, KeepsOrderAndSplitsAtTheFirstColon) {
  auto d = ParseDeclarations({"id:INT64", " ts : TIMESTAMP[us] ", "amount:DECIMAL(10,2)"});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ((*d)[0], (std::pair<std::string, std::string>{"id", "INT64"}));
  EXPECT_EQ((*d)[1], (std::pair<std::string, std::string>{"ts", "TIMESTAMP[us]"}));
  EXPECT_EQ((*d)[2].second, "DECIMAL(10,2)");
}

TEST(ParseDeclarations, RefusesMalformedAndDuplicates) {
  for (const char* bad : {"id", ":INT64", "id:", "id=INT64"}) {
    auto d = ParseDeclarations({bad});
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(ExitCodeFor(d.status()), 2);
  }
  auto dup = ParseDeclarations({"a:INT64", "a:VARCHAR"});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(ErrorField(dup.status(), "column"), "a");
}

TEST(ParseTypeAssignments, ParsesAndRefusesConflicts) {
  auto t = ParseTypeAssignments({"published=TIMESTAMP", "ip=IPV4", "ip=IPV4"});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->size(), 2u);
  EXPECT_EQ(t->at("published"), "TIMESTAMP");
  EXPECT_FALSE(ParseTypeAssignments({"ip=IPV4", "ip=VARCHAR"}).ok());
  EXPECT_FALSE(ParseTypeAssignments({"ip"}).ok());
  EXPECT_FALSE(ParseTypeAssignments({"=IPV4"}).ok());
  EXPECT_FALSE(ParseTypeAssignments({"ip="}).ok());
}

TEST(ParsePromptLine, AcceptStopAndEdits) {
  auto accept = ParsePromptLine("   ");
  ASSERT_TRUE(accept.ok());
  EXPECT_EQ(accept->kind, PromptAnswer::Kind::kAccept);
  for (const char* q : {"q", "Q", "quit", " stop "}) {
    auto stop = ParsePromptLine(q);
    ASSERT_TRUE(stop.ok());
    EXPECT_EQ(stop->kind, PromptAnswer::Kind::kStop) << q;
  }
  auto e = ParsePromptLine("published=TIMESTAMP source_ip=IPV4 -score, amount=DECIMAL(10, 2)");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->kind, PromptAnswer::Kind::kEdit);
  EXPECT_EQ(e->retype.at("published"), "TIMESTAMP");
  EXPECT_EQ(e->retype.at("source_ip"), "IPV4");
  EXPECT_EQ(e->retype.at("amount"), "DECIMAL(10, 2)");
  ASSERT_EQ(e->ignore.size(), 1u);
  EXPECT_EQ(e->ignore[0], "score");
}

TEST(ParsePromptLine, RefusesWhatItCannotRead) {
  for (const char* bad : {"yes", "-", "col=", "=INT64", "-a=b", "a b"}) {
    EXPECT_FALSE(ParsePromptLine(bad).ok()) << bad;
  }
}

TEST(Format, Bytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(999), "999 B");
  EXPECT_EQ(FormatBytes(1000), "1.0 KB");
  EXPECT_EQ(FormatBytes(686500), "686.5 KB");
  EXPECT_EQ(FormatBytes(999960), "1.0 MB");  // never "1000.0 KB"
  EXPECT_EQ(FormatBytes(412900000), "412.9 MB");
  EXPECT_EQ(FormatBytes(4ll << 30), "4.3 GB");
  EXPECT_EQ(FormatBytes(-1), "?");
}

TEST(Format, Duration) {
  EXPECT_EQ(FormatDuration(0), "0:00");
  EXPECT_EQ(FormatDuration(7.4), "0:07");
  EXPECT_EQ(FormatDuration(723), "12:03");
  EXPECT_EQ(FormatDuration(3723), "1:02:03");
  EXPECT_EQ(FormatDuration(-1), "?");
  EXPECT_EQ(FormatDuration(1e300), "99:59:59");
}

TEST(Format, ProgressText) {
  EXPECT_EQ(ProgressText("a.csv", 500, 2000, 0.0), "  a.csv  500 B / 2.0 KB");
  // 10 MB in 2 s: 5 MB/s; 40 MB left: 8 s.
  EXPECT_EQ(ProgressText("a.csv", 10'000'000, 50'000'000, 2.0),
            "  a.csv  10.0 MB / 50.0 MB  5.0 MB/s  ETA 0:08");
  EXPECT_EQ(ProgressText("a.csv", 10'000'000, -1, 2.0), "  a.csv  10.0 MB  5.0 MB/s");
  // A fast write still ends with its rate.
  EXPECT_EQ(ProgressText("a.csv", 20'000'000, 20'000'000, 0.1),
            "  a.csv  20.0 MB / 20.0 MB  200.0 MB/s");
  EXPECT_EQ(ProgressText("a.csv", 1'000'000, 20'000'000, 0.1), "  a.csv  1.0 MB / 20.0 MB");
}

Contract NewDatasetContract() {
  Contract c;
  c.id = "ct_20260101000000_abcdefabcdef";
  c.state = ContractState::kProposed;
  c.target = "acme.security.findings";
  c.requested_source = "auto";
  c.schema_source = "inferred";
  c.mode = SchemaMode::kCreate;
  c.plan = {
      {"cve_id", "VARCHAR", "VARCHAR", PlanAction::kKeep, "CVE-2026-00001", false, false},
      {"published", "VARCHAR", "TIMESTAMP[us]", PlanAction::kCast, "2026-08-02T04:22:07Z", true,
       true},
      {"score", "FLOAT64", "", PlanAction::kIgnored, "0.5", false, false},
  };
  return c;
}

TEST(Plan, RowsShowSampleTypeAndNote) {
  auto rows = PlanRows(NewDatasetContract());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"cve_id", "CVE-2026-00001", "VARCHAR", ""}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"published", "2026-08-02T04:22:07Z", "TIMESTAMP[us]",
                                               "was VARCHAR, converted"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"score", "0.5", "FLOAT64", "read and not written"}));
  EXPECT_EQ(TargetSummary(NewDatasetContract()), "new, types read from your data");
}

TEST(Plan, ConversionLinesOfAnAppend) {
  Contract c;
  c.mode = SchemaMode::kAppend;
  c.schema_source = "dataset";
  c.plan = {
      {"id", "INT64", "INT64", PlanAction::kKeep, "1", false, false},
      {"ts", "VARCHAR", "TIMESTAMP[us]", PlanAction::kCast, "2026-01-01 00:00:00", true, false},
      {"n", "INT32", "INT64", PlanAction::kWiden, "3", false, false},
      {"note", "", "VARCHAR", PlanAction::kMissing, "", false, false},
  };
  auto lines = ConversionLines(c);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "cast     ts    VARCHAR -> TIMESTAMP[us]  (values converted)");
  EXPECT_EQ(lines[1], "widen    n     INT32 -> INT64");
  EXPECT_EQ(lines[2], "missing  note  VARCHAR: not in the data, written as nulls");
  EXPECT_EQ(TargetSummary(c), "exists; rows are appended, converted to its types");
  c.plan.resize(1);
  EXPECT_TRUE(ConversionLines(c).empty());
}

TEST(Plan, BlockingIssueErrorExitsThree) {
  Contract c = NewDatasetContract();
  EXPECT_TRUE(BlockingIssueError(c).ok());
  c.issues.push_back({"all_null", "x", "only nulls", IssueSeverity::kWarning, {}});
  EXPECT_TRUE(BlockingIssueError(c).ok());
  c.issues.push_back(
      {"column_undeclared", "extra", "not in the dataset", IssueSeverity::kBlocking, {}});
  Status s = BlockingIssueError(c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ExitCodeFor(s), 3);
  EXPECT_EQ(ErrorField(s, "code"), "column_undeclared");
  EXPECT_EQ(ErrorField(s, "column"), "extra");
  EXPECT_EQ(ErrorField(s, "contract_id"), c.id);
  EXPECT_NE(s.message().find("--ignore extra"), std::string::npos);
  c.issues.back().code = "unsupported_conversion";
  Status u = BlockingIssueError(c);
  EXPECT_EQ(u.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(ExitCodeFor(u), 3);
}

TEST(Plan, BlockingIssueErrorCarriesTheIssueFields) {
  Contract c = NewDatasetContract();
  c.issues.push_back({"value_not_castable",
                      "id",
                      "file 'a.csv' row 2: 'x' is not a valid INT64",
                      IssueSeverity::kBlocking,
                      {{"file", "a.csv"},
                       {"row", "2"},
                       {"value", "x"},
                       {"declared", "INT64"},
                       {"contract_id", "forged"}}});
  Status s = BlockingIssueError(c);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(ExitCodeFor(s), 3);
  EXPECT_EQ(ErrorField(s, "code"), "value_not_castable");
  EXPECT_EQ(ErrorField(s, "row"), "2");
  EXPECT_EQ(ErrorField(s, "value"), "x");
  EXPECT_EQ(ErrorField(s, "declared"), "INT64");
  EXPECT_EQ(ErrorField(s, "file"), "a.csv");
  EXPECT_EQ(ErrorField(s, "contract_id"), c.id);
}

TEST(Json, ContractAndCommit) {
  Contract c = NewDatasetContract();
  c.issues.push_back({"all_null", "x", "only nulls", IssueSeverity::kWarning, {}});
  auto j = ContractJson(c);
  EXPECT_EQ(j["id"], c.id);
  EXPECT_EQ(j["schema_source"], "inferred");
  EXPECT_EQ(j["plan"].size(), 3u);
  EXPECT_EQ(j["plan"][1]["to"], "TIMESTAMP[us]");
  EXPECT_EQ(j["plan"][1]["changes_values"], true);
  EXPECT_EQ(j["issues"][0]["severity"], "warning");
  EXPECT_EQ(j["blocking"], false);
  EXPECT_TRUE(j["committed"].is_null());
  UploadCommitResult r;
  r.target = c.target;
  r.snapshot_id = 7;
  r.rows_written = 10;
  r.created_dataset = true;
  auto cj = CommitJson(r, c.id);
  EXPECT_EQ(cj["snapshot_id"], 7);
  EXPECT_EQ(cj["contract_id"], c.id);
  EXPECT_EQ(cj["created_dataset"], true);
  c.committed = r;
  EXPECT_EQ(ContractJson(c)["committed"]["snapshot_id"], 7);
}

}  // namespace
}  // namespace tarn::render
