// ComputePlan: every action and issue of docs/design/upload.md (U4), unification, fingerprints.
#include "upload/plan.h"

#include <gtest/gtest.h>

#include <map>

#include "upload/store.h"

namespace tarn::upload {
namespace {

struct Col {
  std::string name;
  std::string type;  // "" = all null
  std::string sample;
};

SampledFile File(std::string name, const std::vector<Col>& cols) {
  SampledFile f;
  f.name = std::move(name);
  for (const auto& c : cols) {
    formats::InferredColumn ic;
    ic.name = c.name;
    ic.all_null = c.type.empty();
    ic.type = c.type.empty() ? DataType::Varchar() : *DataType::Parse(c.type);
    ic.sample = c.sample;
    ic.values = ic.all_null ? 0 : 10;
    ic.nulls = ic.all_null ? 10 : 0;
    f.schema.columns.push_back(std::move(ic));
  }
  f.schema.rows = 10;
  return f;
}

DatasetInfo Dataset(const std::string& schema_text) {
  DatasetInfo ds;
  ds.uuid = "0b7c7e5e-0000-4000-8000-000000000001";
  ds.schema_id = 3;
  ds.schema = *Schema::Parse(schema_text);
  return ds;
}

const PlanEntry* EntryOf(const Plan& p, const std::string& column) {
  for (const auto& e : p.entries) {
    if (e.column == column) return &e;
  }
  return nullptr;
}

std::vector<ContractIssue> IssuesOf(const Plan& p, const std::string& column) {
  std::vector<ContractIssue> out;
  for (const auto& i : p.issues) {
    if (i.column == column) out.push_back(i);
  }
  return out;
}

std::string Code(const Status& st) {
  for (const auto& [k, v] : st.fields()) {
    if (k == "code") return v;
  }
  return "";
}

PlanInput Inferred(std::vector<SampledFile> files) {
  PlanInput in;
  in.target = "acme.security.findings";
  in.source = SchemaSourceKind::kInferred;
  in.mode = SchemaMode::kCreate;
  in.files = std::move(files);
  return in;
}

TEST(Plan, InferredKeepsEveryColumnInDataOrder) {
  auto in = Inferred({File("a.csv", {{"cve_id", "VARCHAR", "CVE-2026-00001"},
                                     {"published", "TIMESTAMPTZ[us]", "2026-08-02T04:22:07Z"},
                                     {"hosts", "INT64", "1"}})});
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->entries.size(), 3u);
  EXPECT_EQ(plan->entries[0].column, "cve_id");
  EXPECT_EQ(plan->entries[1].column, "published");
  EXPECT_EQ(plan->entries[2].column, "hosts");
  for (const auto& e : plan->entries) {
    EXPECT_EQ(e.action, PlanAction::kKeep) << e.column;
    EXPECT_EQ(e.from, e.to);
    EXPECT_FALSE(e.changes_values);
  }
  EXPECT_EQ(plan->entries[1].sample, "2026-08-02T04:22:07Z");
  EXPECT_TRUE(plan->issues.empty());
  EXPECT_FALSE(plan->blocking());
  ASSERT_EQ(plan->write_schema.fields.size(), 3u);
  EXPECT_EQ(plan->write_schema.fields[0].field_id, 1);
  EXPECT_EQ(plan->write_schema.fields[2].field_id, 3);
  EXPECT_EQ(plan->write_schema.fields[2].type, DataType::Int64());
  EXPECT_TRUE(plan->write_schema.fields[2].nullable);
  EXPECT_EQ(plan->fingerprint.size(), 32u);
}

TEST(Plan, RetypeCastsAndMarksRetyped) {
  auto in = Inferred(
      {File("a.csv", {{"published", "VARCHAR", "2026-08-02 04:22:07"}, {"hosts", "INT64", "1"}})});
  auto before = ComputePlan(in);
  ASSERT_TRUE(before.ok());
  in.retype = {{"published", "TIMESTAMP"}, {"HOSTS", "int32"}};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const PlanEntry* p = EntryOf(*plan, "published");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->from, "VARCHAR");
  EXPECT_EQ(p->to, "TIMESTAMP[us]");
  EXPECT_EQ(p->action, PlanAction::kCast);
  EXPECT_TRUE(p->changes_values);
  EXPECT_TRUE(p->retyped);
  const PlanEntry* h = EntryOf(*plan, "hosts");
  EXPECT_EQ(h->action, PlanAction::kCast);  // INT64 -> INT32 may fail
  EXPECT_EQ(h->to, "INT32");
  EXPECT_TRUE(plan->retyped());
  EXPECT_NE(plan->fingerprint, before->fingerprint);
  EXPECT_EQ(plan->write_schema.fields[0].type, DataType::Timestamp(TimeUnit::kMicro));
}

TEST(Plan, Actions) {
  EXPECT_EQ(ClassifyConversion(DataType::Int64(), DataType::Int64(), "1"), PlanAction::kKeep);
  EXPECT_EQ(ClassifyConversion(DataType::Varchar(), DataType::Json(), "{}"), PlanAction::kRetag);
  EXPECT_EQ(ClassifyConversion(DataType::Timestamp(TimeUnit::kMicro),
                               DataType::TimestampTz(TimeUnit::kMicro), ""),
            PlanAction::kRetag);
  EXPECT_EQ(ClassifyConversion(DataType::Varchar(), DataType::Uuid(),
                               "0b7c7e5e-1b2c-4d3e-8f40-123456789abc"),
            PlanAction::kRetag);
  EXPECT_EQ(ClassifyConversion(DataType::Varchar(), DataType::Ipv4(), "10.1.7.13"),
            PlanAction::kRetag);
  // Text that is not an address is parsed, not relabelled.
  EXPECT_EQ(ClassifyConversion(DataType::Varchar(), DataType::Ipv4(), "host-a"), PlanAction::kCast);
  EXPECT_EQ(ClassifyConversion(DataType::Int32(), DataType::Int64(), "1"), PlanAction::kWiden);
  EXPECT_EQ(ClassifyConversion(DataType::Float32(), DataType::Float64(), "1"), PlanAction::kWiden);
  EXPECT_EQ(ClassifyConversion(DataType::Int32(), DataType::Decimal(12, 2), "1"),
            PlanAction::kWiden);
  EXPECT_EQ(ClassifyConversion(DataType::Date(), DataType::Timestamp(TimeUnit::kMicro), ""),
            PlanAction::kWiden);
  // Every TIME is a TIME[ns] value (not a schema widening: see types/cast.h); back may fail.
  EXPECT_EQ(ClassifyConversion(DataType::Time(), DataType::Time(TimeUnit::kNano), ""),
            PlanAction::kWiden);
  EXPECT_EQ(ClassifyConversion(DataType::Time(TimeUnit::kNano), DataType::Time(), ""),
            PlanAction::kCast);
  EXPECT_EQ(ClassifyConversion(DataType::Varchar(), DataType::Timestamp(TimeUnit::kMicro), ""),
            PlanAction::kCast);
  EXPECT_EQ(ClassifyConversion(DataType::Int64(), DataType::Int32(), "1"), PlanAction::kCast);
  EXPECT_EQ(ClassifyConversion(DataType::Float64(), DataType::Decimal(10, 2), "1.5"),
            PlanAction::kCast);
  EXPECT_EQ(ClassifyConversion(DataType::Int64(), DataType::Decimal(5, 2), "1"), PlanAction::kCast);
  EXPECT_EQ(ClassifyConversion(DataType::Boolean(), DataType::Date(), "true"),
            PlanAction::kUnsupported);
  EXPECT_EQ(ClassifyConversion(DataType::Ipv4(), DataType::Date(), "10.0.0.1"),
            PlanAction::kUnsupported);
}

TEST(Plan, UnsupportedConversionBlocks) {
  PlanInput in;
  in.target = "a.b.c";
  in.source = SchemaSourceKind::kDeclared;
  in.mode = SchemaMode::kCreate;
  in.declared = {{"flag", "DATE"}};
  in.files = {File("a.csv", {{"flag", "BOOLEAN", "true"}})};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->entries[0].action, PlanAction::kUnsupported);
  auto issues = IssuesOf(*plan, "flag");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].code, "unsupported_conversion");
  EXPECT_TRUE(issues[0].blocking());
  EXPECT_TRUE(plan->blocking());
}

TEST(Plan, DeclaredUndeclaredIgnoredMissing) {
  PlanInput in;
  in.target = "a.b.c";
  in.source = SchemaSourceKind::kDeclared;
  in.mode = SchemaMode::kCreate;
  in.declared = {{"id", "INT64 NOT NULL"}, {"note", "VARCHAR"}, {"score", "decimal(10, 2)"}};
  in.files = {
      File("a.csv",
           {{"ID", "INT64", "7"}, {"extra", "VARCHAR", "x"}, {"score", "DECIMAL(4,2)", "1.50"}})};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  // Target order first, then the data's own columns.
  ASSERT_EQ(plan->entries.size(), 4u);
  EXPECT_EQ(plan->entries[0].column, "id");
  EXPECT_EQ(plan->entries[0].action, PlanAction::kKeep);
  EXPECT_EQ(plan->entries[1].column, "note");
  EXPECT_EQ(plan->entries[1].action, PlanAction::kMissing);
  EXPECT_EQ(plan->entries[1].from, "");
  EXPECT_EQ(plan->entries[2].action, PlanAction::kWiden);  // DECIMAL(4,2) -> DECIMAL(10,2)
  EXPECT_EQ(plan->entries[3].column, "extra");
  EXPECT_EQ(plan->entries[3].action, PlanAction::kUndeclared);
  EXPECT_EQ(plan->entries[3].to, "");
  auto note = IssuesOf(*plan, "note");
  ASSERT_EQ(note.size(), 1u);
  EXPECT_EQ(note[0].code, "column_missing");
  EXPECT_EQ(note[0].severity, IssueSeverity::kWarning);  // nullable: written as nulls
  auto extra = IssuesOf(*plan, "extra");
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0].code, "column_undeclared");
  EXPECT_TRUE(extra[0].blocking());
  EXPECT_FALSE(plan->write_schema.fields[0].nullable);
  EXPECT_EQ(plan->write_schema.fields[2].type, DataType::Decimal(10, 2));

  // Ignoring the extra column clears the blocking issue.
  in.ignore = {"extra"};
  auto ignored = ComputePlan(in);
  ASSERT_TRUE(ignored.ok());
  EXPECT_EQ(EntryOf(*ignored, "extra")->action, PlanAction::kIgnored);
  EXPECT_EQ(EntryOf(*ignored, "extra")->to, "");
  EXPECT_FALSE(ignored->blocking());
  EXPECT_EQ(ignored->ignored, std::vector<std::string>({"extra"}));
  EXPECT_NE(ignored->fingerprint, plan->fingerprint);
}

TEST(Plan, NotNullColumnMissingBlocks) {
  PlanInput in;
  in.target = "a.b.c";
  in.source = SchemaSourceKind::kDataset;
  in.mode = SchemaMode::kAppend;
  DatasetInfo ds = Dataset("id INT64 NOT NULL, name VARCHAR");
  in.dataset = &ds;
  in.files = {File("a.csv", {{"name", "VARCHAR", "x"}})};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto id = IssuesOf(*plan, "id");
  ASSERT_EQ(id.size(), 1u);
  EXPECT_EQ(id[0].code, "column_missing");
  EXPECT_TRUE(id[0].blocking());
  EXPECT_EQ(plan->write_schema.ToString(), ds.schema.ToString());
  EXPECT_EQ(plan->write_schema.fields[0].field_id, 1);
}

TEST(Plan, IgnoringANotNullTargetColumnBlocks) {
  PlanInput in;
  in.target = "a.b.c";
  in.source = SchemaSourceKind::kDataset;
  in.mode = SchemaMode::kAppend;
  DatasetInfo ds = Dataset("id INT64 NOT NULL, name VARCHAR");
  in.dataset = &ds;
  in.files = {File("a.csv", {{"id", "INT64", "1"}, {"name", "VARCHAR", "x"}})};
  in.ignore = {"name"};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "name")->action, PlanAction::kIgnored);
  EXPECT_FALSE(plan->blocking());  // name is nullable: written as nulls
  in.ignore = {"id"};
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  auto id = IssuesOf(*plan, "id");
  ASSERT_EQ(id.size(), 1u);
  EXPECT_EQ(id[0].code, "column_missing");
  EXPECT_TRUE(plan->blocking());
}

TEST(Plan, DatasetModeRefusesRetype) {
  PlanInput in;
  in.target = "a.b.c";
  in.source = SchemaSourceKind::kDataset;
  in.mode = SchemaMode::kAppend;
  DatasetInfo ds = Dataset("id INT64");
  in.dataset = &ds;
  in.files = {File("a.csv", {{"id", "INT64", "1"}})};
  in.retype = {{"id", "INT32"}};
  auto plan = ComputePlan(in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(Code(plan.status()), "retype_not_allowed");
}

TEST(Plan, DatasetModeCastsToItsTypes) {
  PlanInput in;
  in.target = "a.b.c";
  in.source = SchemaSourceKind::kDataset;
  in.mode = SchemaMode::kOverwrite;
  DatasetInfo ds = Dataset("id INT32, ts TIMESTAMPTZ, ip IPV4, doc JSON");
  in.dataset = &ds;
  in.files = {File("a.csv", {{"id", "INT64", "1"},
                             {"ts", "TIMESTAMP[us]", "2026-01-01T00:00:00"},
                             {"ip", "VARCHAR", "10.0.0.1"},
                             {"doc", "VARCHAR", "{\"a\":1}"}})};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(EntryOf(*plan, "id")->action, PlanAction::kCast);
  EXPECT_EQ(EntryOf(*plan, "ts")->action, PlanAction::kRetag);
  EXPECT_EQ(EntryOf(*plan, "ip")->action, PlanAction::kRetag);
  EXPECT_EQ(EntryOf(*plan, "doc")->action, PlanAction::kRetag);
  EXPECT_FALSE(plan->blocking());
  // The dataset's identity is part of the fingerprint.
  DatasetInfo other = ds;
  other.schema_id = 4;
  in.dataset = &other;
  auto moved = ComputePlan(in);
  ASSERT_TRUE(moved.ok());
  EXPECT_NE(moved->fingerprint, plan->fingerprint);
}

TEST(Plan, SourcesDisagree) {
  // Types that unify.
  auto in = Inferred({File("a.csv", {{"n", "INT64", "1"}, {"p", "INT64", "2"}}),
                      File("b.csv", {{"n", "FLOAT64", "1.5e3"}, {"p", "DECIMAL(6,2)", "2.50"}})});
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(EntryOf(*plan, "n")->from, "FLOAT64");
  EXPECT_EQ(EntryOf(*plan, "p")->to, "DECIMAL(21,2)");
  EXPECT_TRUE(plan->issues.empty());

  // Types that do not: blocking, naming both files.
  in = Inferred(
      {File("a.csv", {{"d", "DATE", "2026-01-01"}}), File("b.csv", {{"d", "BOOLEAN", "true"}})});
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  auto d = IssuesOf(*plan, "d");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].code, "sources_disagree");
  EXPECT_TRUE(d[0].blocking());
  EXPECT_NE(d[0].detail.find("a.csv: DATE"), std::string::npos);
  EXPECT_NE(d[0].detail.find("b.csv: BOOLEAN"), std::string::npos);
  // A person choosing the type settles it when both convert.
  in.retype = {{"d", "VARCHAR"}};
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  d = IssuesOf(*plan, "d");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, IssueSeverity::kWarning);

  // Different column sets: a warning for a nullable column.
  in = Inferred({File("a.csv", {{"id", "INT64", "1"}, {"x", "INT64", "1"}}),
                 File("b.csv", {{"id", "INT64", "2"}})});
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  auto x = IssuesOf(*plan, "x");
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0].code, "sources_disagree");
  EXPECT_EQ(x[0].severity, IssueSeverity::kWarning);
  EXPECT_NE(x[0].detail.find("b.csv"), std::string::npos);
}

TEST(Plan, AllNullIsVarcharWithAWarning) {
  auto in = Inferred({File("a.csv", {{"empty", "", ""}}), File("b.csv", {{"empty", "", ""}})});
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "empty")->to, "VARCHAR");
  auto issues = IssuesOf(*plan, "empty");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].code, "all_null");
  EXPECT_EQ(issues[0].severity, IssueSeverity::kWarning);
  // A null-only file does not disagree with one that has values.
  in = Inferred({File("a.csv", {{"n", "", ""}}), File("b.csv", {{"n", "INT64", "5"}})});
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "n")->to, "INT64");
  EXPECT_EQ(EntryOf(*plan, "n")->sample, "5");
  EXPECT_TRUE(plan->issues.empty());
}

TEST(Plan, InvalidInputIsRefused) {
  auto in = Inferred({File("a.csv", {{"a", "INT64", "1"}})});
  in.retype = {{"a", "NOT_A_TYPE"}};
  auto plan = ComputePlan(in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(Code(plan.status()), "invalid_type");
  in.retype = {{"zzz", "INT64"}};
  plan = ComputePlan(in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(Code(plan.status()), "unknown_column");
  in.retype.clear();
  in.ignore = {"zzz"};
  plan = ComputePlan(in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(Code(plan.status()), "unknown_column");
  in.ignore.clear();
  in.files.clear();
  EXPECT_FALSE(ComputePlan(in).ok());

  PlanInput d;
  d.target = "a.b.c";
  d.source = SchemaSourceKind::kDeclared;
  d.mode = SchemaMode::kCreate;
  d.files = {File("a.csv", {{"a", "INT64", "1"}})};
  d.declared = {{"a", "INT64"}, {"A", "INT32"}};
  EXPECT_FALSE(ComputePlan(d).ok());
  d.declared = {{"bad name", "INT64"}};
  EXPECT_FALSE(ComputePlan(d).ok());
  d.source = SchemaSourceKind::kAuto;
  EXPECT_FALSE(ComputePlan(d).ok());
}

TEST(Plan, InferredColumnWithAnInvalidNameBlocksUntilIgnored) {
  auto in = Inferred({File("a.csv", {{"first name", "VARCHAR", "Ada"}, {"id", "INT64", "1"}})});
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->blocking());
  in.ignore = {"first name"};
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->blocking());
  ASSERT_EQ(plan->write_schema.fields.size(), 1u);
  EXPECT_EQ(plan->write_schema.fields[0].name, "id");
  EXPECT_EQ(plan->write_schema.fields[0].field_id, 1);
}

TEST(Plan, FingerprintIsDeterministicAndCoversTheProposal) {
  std::vector<PlanEntry> entries = {{"a", "INT64", "INT64", PlanAction::kKeep, "1", false, false}};
  std::vector<ContractIssue> issues;
  std::string f1 = PlanFingerprint("w.c.d", "create", "inferred", "", 0, entries, issues);
  EXPECT_EQ(f1, PlanFingerprint("w.c.d", "create", "inferred", "", 0, entries, issues));
  EXPECT_EQ(f1.size(), 32u);
  EXPECT_EQ(f1.find_first_not_of("0123456789abcdef"), std::string::npos);
  // The sample is not part of it; everything else is.
  entries[0].sample = "2";
  EXPECT_EQ(f1, PlanFingerprint("w.c.d", "create", "inferred", "", 0, entries, issues));
  EXPECT_NE(f1, PlanFingerprint("w.c.e", "create", "inferred", "", 0, entries, issues));
  EXPECT_NE(f1, PlanFingerprint("w.c.d", "append", "inferred", "", 0, entries, issues));
  EXPECT_NE(f1, PlanFingerprint("w.c.d", "create", "declared", "", 0, entries, issues));
  EXPECT_NE(f1, PlanFingerprint("w.c.d", "create", "inferred", "u", 0, entries, issues));
  EXPECT_NE(f1, PlanFingerprint("w.c.d", "create", "inferred", "", 1, entries, issues));
  entries[0].to = "INT32";
  EXPECT_NE(f1, PlanFingerprint("w.c.d", "create", "inferred", "", 0, entries, issues));
  entries[0].to = "INT64";
  issues.push_back({"all_null", "a", "x", IssueSeverity::kWarning, {}});
  EXPECT_NE(f1, PlanFingerprint("w.c.d", "create", "inferred", "", 0, entries, issues));
}

TEST(Plan, Unify) {
  EXPECT_EQ(*UnifyTypes(DataType::Int64(), DataType::Float64()), DataType::Float64());
  EXPECT_EQ(*UnifyTypes(DataType::Decimal(5, 2), DataType::Int64()), DataType::Decimal(21, 2));
  EXPECT_EQ(*UnifyTypes(DataType::Decimal(5, 2), DataType::Decimal(6, 3)), DataType::Decimal(6, 3));
  EXPECT_EQ(
      *UnifyTypes(DataType::Timestamp(TimeUnit::kMicro), DataType::Timestamp(TimeUnit::kNano)),
      DataType::Timestamp(TimeUnit::kNano));
  EXPECT_FALSE(UnifyTypes(DataType::Int64(), DataType::Varchar()));
  EXPECT_FALSE(
      UnifyTypes(DataType::Timestamp(TimeUnit::kMicro), DataType::TimestampTz(TimeUnit::kMicro)));
  EXPECT_FALSE(UnifyTypes(DataType::Date(), DataType::Boolean()));
}

SampledFile Ndjson(std::string name, const std::vector<Col>& cols,
                   const std::map<std::string, std::string>& notes = {}) {
  SampledFile f = File(std::move(name), cols);
  f.schema.format = formats::Format::kNdjson;
  for (auto& c : f.schema.columns) {
    auto it = notes.find(c.name);
    if (it != notes.end()) c.note = it->second;
  }
  return f;
}

TEST(Plan, NestedColumnsSayHowInferenceTypedThem) {
  auto in = Inferred(
      {Ndjson("a.ndjson",
              {{"id", "INT64", "1"},
               {"p", "STRUCT<u: STRUCT<n: VARCHAR>, items: ARRAY<STRUCT<q: INT64>>>", "{}"},
               {"tags", "ARRAY<VARCHAR>", "[]"}},
              {{"p", "objects of one shape: STRUCT of 2 members"}})});
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const PlanEntry* p = EntryOf(*plan, "p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->to, "STRUCT<u: STRUCT<n: VARCHAR>, items: ARRAY<STRUCT<q: INT64>>>");
  EXPECT_EQ(p->action, PlanAction::kKeep);
  auto issues = IssuesOf(*plan, "p");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].code, "inferred_nested");
  EXPECT_EQ(issues[0].detail, "objects of one shape: STRUCT of 2 members");
  EXPECT_FALSE(issues[0].blocking());
  EXPECT_TRUE(IssuesOf(*plan, "tags").empty());
  EXPECT_FALSE(plan->blocking());
  // Nested fields get ids after the columns, Iceberg's order.
  const Field& f = plan->write_schema.fields[1];
  EXPECT_EQ(f.field_id, 2);
  EXPECT_EQ(f.type.children()[0].field_id, 4);
  EXPECT_EQ(f.type.children()[1].field_id, 5);
  EXPECT_EQ(f.type.children()[0].type.children()[0].field_id, 6);  // u.n
  EXPECT_EQ(f.type.children()[1].type.children()[0].field_id, 7);  // items.element
  // Ignored: no word about its inference.
  in.ignore = {"p"};
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(IssuesOf(*plan, "p").empty());
}

TEST(Plan, StructColumnsRetypeToJsonAndBack) {
  const std::string type = "STRUCT<a: INT64, b: ARRAY<VARCHAR>>";
  auto in = Inferred({Ndjson("a.ndjson", {{"p", type, "{\"a\":1}"}})});
  in.retype = {{"p", "JSON"}};
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(EntryOf(*plan, "p")->action, PlanAction::kCast);
  EXPECT_EQ(EntryOf(*plan, "p")->to, "JSON");
  EXPECT_FALSE(plan->blocking());
  in.retype = {{"p", type}};
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "p")->action, PlanAction::kKeep);
  // A column inference kept as JSON (keys that look like data, values of several kinds)
  // retyped to a MAP: the text readers parse the JSON (the sample check finds what does not fit).
  in = Inferred({Ndjson("a.ndjson", {{"m", "JSON", "{}"}})});
  in.retype = {{"m", "MAP<VARCHAR, JSON>"}};
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "m")->action, PlanAction::kCast);
  EXPECT_FALSE(plan->blocking());
  // A Parquet file's JSON column is cast by types, which parse JSON into a MAP too.
  auto pq = File("b.parquet", {{"m", "JSON", "{}"}});
  pq.schema.format = formats::Format::kParquet;
  in.files.push_back(pq);
  plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "m")->action, PlanAction::kCast);
  EXPECT_FALSE(plan->blocking());
}

TEST(Plan, DeclaredStructsAndMapsMatchMembersAsTheReadersDo) {
  auto in = Inferred({Ndjson("a.ndjson", {{"p", "STRUCT<a: INT64, b: VARCHAR>", "{}"}})});
  in.source = SchemaSourceKind::kDeclared;
  auto action = [&](const std::string& declared, std::string* detail = nullptr) {
    in.declared = {{"p", declared}};
    auto plan = ComputePlan(in);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    if (!plan.ok()) return PlanAction::kMissing;
    if (detail) {
      auto issues = IssuesOf(*plan, "p");
      *detail = issues.empty() ? "" : issues[0].detail;
    }
    return EntryOf(*plan, "p")->action;
  };
  EXPECT_EQ(action("STRUCT<a: INT64, b: VARCHAR>"), PlanAction::kKeep);
  // A member the data lacks is written as nulls; members by name, in any case and order.
  EXPECT_EQ(action("STRUCT<A: INT64, b: VARCHAR, c: DATE>"), PlanAction::kWiden);
  EXPECT_EQ(action("STRUCT<b: VARCHAR, a: INT64>"), PlanAction::kRetag);
  EXPECT_EQ(action("STRUCT<a: DECIMAL(38,0), b: VARCHAR>"), PlanAction::kWiden);
  EXPECT_EQ(action("STRUCT<a: INT32, b: VARCHAR>"), PlanAction::kCast);
  std::string detail;
  EXPECT_EQ(action("STRUCT<a: INT64, b: VARCHAR, c: DATE NOT NULL>", &detail),
            PlanAction::kUnsupported);
  EXPECT_NE(detail.find("member 'c' is NOT NULL and not in the data"), std::string::npos) << detail;
  EXPECT_EQ(action("STRUCT<a: INT64>", &detail), PlanAction::kUnsupported);
  EXPECT_NE(detail.find("the data's member 'b' is not in STRUCT<a: INT64>"), std::string::npos)
      << detail;
  EXPECT_EQ(action("STRUCT<a: INT64, b: DATE NOT NULL>"), PlanAction::kCast);
  EXPECT_EQ(action("STRUCT<a: DATE, b: VARCHAR>"), PlanAction::kUnsupported);
  // An object of one shape read as a MAP.
  EXPECT_EQ(action("MAP<VARCHAR, VARCHAR>"), PlanAction::kCast);
  EXPECT_EQ(action("MAP<VARCHAR, DATE>"), PlanAction::kUnsupported);
  EXPECT_EQ(action("ARRAY<VARCHAR>"), PlanAction::kUnsupported);
  EXPECT_EQ(action("JSON"), PlanAction::kCast);
}

TEST(Plan, NestedTypesUnifyAcrossFiles) {
  EXPECT_EQ(UnifyTypes(*DataType::Parse("STRUCT<a: INT64, s: STRUCT<x: INT64>>"),
                       *DataType::Parse("STRUCT<b: VARCHAR, s: STRUCT<x: FLOAT64, y: DATE>, a: "
                                        "DECIMAL(18,2)>"))
                ->ToString(),
            "STRUCT<a: DECIMAL(21,2), s: STRUCT<x: FLOAT64, y: DATE>, b: VARCHAR>");
  EXPECT_EQ(UnifyTypes(*DataType::Parse("ARRAY<STRUCT<a: INT64>>"),
                       *DataType::Parse("ARRAY<STRUCT<a: FLOAT64>>"))
                ->ToString(),
            "ARRAY<STRUCT<a: FLOAT64>>");
  EXPECT_EQ(
      UnifyTypes(*DataType::Parse("MAP<VARCHAR, INT64>"), *DataType::Parse("MAP<VARCHAR, FLOAT64>"))
          ->ToString(),
      "MAP<VARCHAR, FLOAT64>");
  EXPECT_EQ(UnifyTypes(*DataType::Parse("STRUCT<a: INT64>"), DataType::Json())->ToString(), "JSON");
  EXPECT_FALSE(UnifyTypes(*DataType::Parse("STRUCT<a: INT64>"), *DataType::Parse("STRUCT<A: "
                                                                                 "INT64>")));
  EXPECT_FALSE(
      UnifyTypes(*DataType::Parse("STRUCT<a: INT64>"), *DataType::Parse("MAP<VARCHAR, INT64>")));
  EXPECT_FALSE(UnifyTypes(*DataType::Parse("STRUCT<a: INT64>"), DataType::Varchar()));
  // In a plan: no disagreement, the file with fewer members reads its rows with nulls there.
  auto in = Inferred({Ndjson("a.ndjson", {{"p", "STRUCT<a: INT64>", "{}"}}),
                      Ndjson("b.ndjson", {{"p", "STRUCT<a: INT64, b: VARCHAR>", "{}"}})});
  auto plan = ComputePlan(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(EntryOf(*plan, "p")->to, "STRUCT<a: INT64, b: VARCHAR>");
  EXPECT_TRUE(IssuesOf(*plan, "p").empty());
}

TEST(Store, BodyRoundTrips) {
  internal::ContractRecord r;
  r.id = "ct_20260819180247_b47d7241786f";
  r.fingerprint = "00112233445566778899aabbccddeeff";
  r.requested_source = "auto";
  r.source = SchemaSourceKind::kDataset;
  r.mode = SchemaMode::kAppend;
  r.channel = "cli";
  r.ttl_s = 60;
  internal::AgreedDataset a;
  a.uuid = "u";
  a.schema_id = 2;
  a.spec_id = 1;
  a.schema = *Schema::Parse("id INT64 NOT NULL, tags ARRAY<VARCHAR>");
  a.spec_text = "id";
  r.dataset = a;
  r.files = {File("a.csv", {{"id", "INT64", "1"}, {"e", "", ""}})};
  r.files[0].schema.columns[0].note = "objects of one shape: STRUCT of 1 member";
  r.files[0].schema.delimiter = ';';
  r.files[0].schema.header = false;
  r.file_info = {ContractFile{"a.csv", "csv", "gzip", 100, 10, 50}};
  r.ignore = {"e"};
  DatasetInfo holder;
  auto plan = ComputePlan(r.ToPlanInput(&holder));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  r.plan = *plan;
  std::string body = internal::BodyToJson(r);
  internal::ContractRecord back;
  back.fingerprint = r.fingerprint;
  ASSERT_TRUE(internal::BodyFromJson(body, &back).ok());
  EXPECT_EQ(internal::BodyToJson(back), body);
  EXPECT_EQ(back.files[0].schema.delimiter, ';');
  EXPECT_FALSE(back.files[0].schema.header);
  EXPECT_TRUE(back.files[0].schema.columns[1].all_null);
  EXPECT_EQ(back.files[0].schema.columns[0].note, "objects of one shape: STRUCT of 1 member");
  EXPECT_EQ(back.files[0].schema.columns[1].note, "");
  EXPECT_EQ(body.find("\"note\":\"\""), std::string::npos);  // only written when there is one
  EXPECT_EQ(back.dataset->schema.ToString(), a.schema.ToString());
  EXPECT_EQ(back.plan.ignored, std::vector<std::string>({"e"}));
  internal::ContractRecord bad;
  EXPECT_FALSE(internal::BodyFromJson("{", &bad).ok());
  EXPECT_FALSE(internal::BodyFromJson("{\"mode\":1}", &bad).ok());
  EXPECT_FALSE(internal::BodyFromJson("[]", &bad).ok());
}

}  // namespace
}  // namespace tarn::upload
