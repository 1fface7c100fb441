#include "table/predicate.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "table/field_path.h"
#include "table/ordered_key.h"
#include "table/schema_json.h"
#include "table/test_util.h"
#include "types/iceberg.h"

namespace tarn {
namespace {

using table_test::Col;
using table_test::S;

Schema TestSchema() {
  return S(
      "id INT64, ts TIMESTAMP[us], name VARCHAR, f FLOAT64, ok BOOLEAN, d DATE, "
      "amt DECIMAL(10,2), \"odd col\" INT32, tags ARRAY<INT32>");
}

BoundPredicate Bind(std::string_view text, const Schema& s = TestSchema()) {
  Result<BoundPredicate> r = ParseAndBindPredicate(text, s);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : BoundPredicate();
}

TEST(ParsePredicateTest, SyntaxAndPrinting) {
  struct Case {
    const char* in;
    const char* out;
  };
  for (const Case& c : std::vector<Case>{
           {"id = 5", "id = 5"},
           {"id<>5", "id <> 5"},
           {"id != -5", "id <> -5"},
           {"5 < id", "id > 5"},
           {"name = 'it''s'", "name = 'it''s'"},
           {"\"odd col\" >= 1.5e3", "\"odd col\" >= 1.5e3"},
           {"id in (1, 2,3)", "id IN (1, 2, 3)"},
           {"id NOT IN (1)", "id NOT IN (1)"},
           {"name is null", "name IS NULL"},
           {"name IS NOT NULL", "name IS NOT NULL"},
           {"a = 1 AND b = 2 OR c = 3", "((a = 1 AND b = 2) OR c = 3)"},
           {"a = 1 AND b = 2 AND c = 3", "(a = 1 AND b = 2 AND c = 3)"},
           {"a = 1 AND (b = 2 OR c = 3)", "(a = 1 AND (b = 2 OR c = 3))"},
           {"NOT a = 1", "(NOT a = 1)"},
           {"ok = TRUE", "ok = TRUE"},
           {"TRUE", "TRUE"},
           {"((x >= '2024-01-01'))", "x >= '2024-01-01'"},
       }) {
    Result<Predicate> p = ParsePredicate(c.in);
    ASSERT_TRUE(p.ok()) << c.in << ": " << p.status().ToString();
    EXPECT_EQ(p->ToString(), c.out) << c.in;
    Result<Predicate> again = ParsePredicate(p->ToString());
    ASSERT_TRUE(again.ok()) << p->ToString();
    EXPECT_EQ(again->ToString(), c.out);
  }
}

TEST(ParsePredicateTest, ErrorsHavePositions) {
  struct Case {
    const char* in;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {"", "at position 0"},
           {"id =", "expected a literal, found end of text at position 4"},
           {"id = 'abc", "unterminated string at position 5"},
           {"id = 5 AND", "at position 10"},
           {"(id = 5", "expected ')'"},
           {"id = 5)", "unexpected \")\" at position 6"},
           {"id IN (1,", "at position 9"},
           {"id IN 1", "expected '(' after IN"},
           {"id = NULL", "IS NULL"},
           {"id IS 5", "expected NULL after IS"},
           {"id ~ 5", "unexpected character '~' at position 3"},
           {"id = other", "comparing two columns"},
           {"id 5", "expected a comparison"},
           {"\"id = 5", "unterminated quoted name"},
       }) {
    Result<Predicate> p = ParsePredicate(c.in);
    ASSERT_FALSE(p.ok()) << c.in;
    EXPECT_EQ(p.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(p.status().message().find(c.expect), std::string::npos)
        << c.in << " -> " << p.status().message();
  }
  EXPECT_FALSE(ParsePredicate(std::string(5000, '(') + "id = 1" + std::string(5000, ')')).ok());
}

TEST(BindPredicateTest, TypesLiteralsAndErrors) {
  Schema s = TestSchema();
  BoundPredicate p = Bind("ts >= '2024-01-01' AND d < '2024-02-01' AND amt > 1.5", s);
  EXPECT_EQ(p.ToString(), "(ts >= '2024-01-01T00:00:00' AND d < '2024-02-01' AND amt > 1.50)");
  EXPECT_EQ(p.children[0].field_id, 2);
  EXPECT_EQ(Bind("id IN (3, 1, 3, 2)").ToString(), "id IN (1, 2, 3)");
  EXPECT_EQ(Bind("ID = 1").column, "id");  // case-insensitive fallback
  EXPECT_EQ(ReferencedFieldIds(p), (std::vector<int32_t>{2, 3 + 3, 7}));

  struct Case {
    const char* in;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {"nope = 1", "unknown column nope"},
           {"id = 1.5", "not a valid INT64"},
           {"d = '2024-01-01T10:00:00'", "not a valid DATE"},
           {"ts = '2024-13-01'", "not a valid TIMESTAMP"},
           {"amt = 1.234", "not a valid DECIMAL(10,2)"},
           {"tags = 1", "only IS NULL"},
           {"id IN (1, 'x')", "'x'"},
       }) {
    Result<BoundPredicate> r = ParseAndBindPredicate(c.in, s);
    ASSERT_FALSE(r.ok()) << c.in;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos)
        << c.in << " -> " << r.status().message();
  }
  EXPECT_TRUE(ParseAndBindPredicate("tags IS NULL", s).ok());
  // A literal of the right family that is no value of the type is typed too.
  for (const char* in : {"ts = 'yesterday'", "d < '2024-02-30'", "id = 1.5", "amt = 1.234"}) {
    Status st = ParseAndBindPredicate(in, s).status();
    bool coded = false;
    for (const auto& [k, v] : st.fields()) coded |= k == "code" && v == "predicate_invalid_literal";
    EXPECT_TRUE(coded) << in << ": " << st.ToString();
  }
}

// Issue 14 defect 6: `name > 5` on a VARCHAR compared text and deleted every row.
TEST(BindPredicateTest, LiteralOfAnotherTypeFamilyIsATypedError) {
  Schema s =
      S("id INT64, name VARCHAR, f FLOAT64, ok BOOLEAN, d DATE, ts TIMESTAMP[us], "
        "tz TIMESTAMPTZ[us], amt DECIMAL(10,2), small INT32, u UUID, ip IPV4, j JSON, b BLOB, "
        "t TIME");
  struct Case {
    const char* in;
    const char* column;
    const char* column_type;
    const char* literal_type;
  };
  for (const Case& c : std::vector<Case>{
           {"name > 5", "name", "VARCHAR", "number"},
           {"5 < name", "name", "VARCHAR", "number"},
           {"name IN ('a', 5)", "name", "VARCHAR", "number"},
           {"name = TRUE", "name", "VARCHAR", "boolean"},
           {"id = '5'", "id", "INT64", "string"},
           {"id = 'abc'", "id", "INT64", "string"},
           {"amt > '1.5'", "amt", "DECIMAL(10,2)", "string"},
           {"id = TRUE", "id", "INT64", "boolean"},
           {"ok = 1", "ok", "BOOLEAN", "number"},
           {"ok = 'true'", "ok", "BOOLEAN", "string"},
           {"d > 20240101", "d", "DATE", "number"},
           {"ts >= 1700000000", "ts", "TIMESTAMP[us]", "number"},
           {"tz < 0", "tz", "TIMESTAMPTZ[us]", "number"},
           {"t = 10", "t", "TIME", "number"},
           {"u = 1", "u", "UUID", "number"},
           {"ip = 1", "ip", "IPV4", "number"},
           {"j = 5", "j", "JSON", "number"},
           {"b = FALSE", "b", "BLOB", "boolean"},
           {"NOT (id = 1 OR name <> 2)", "name", "VARCHAR", "number"},
       }) {
    Result<BoundPredicate> r = ParseAndBindPredicate(c.in, s);
    ASSERT_FALSE(r.ok()) << c.in;
    const Status& st = r.status();
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << c.in;
    std::map<std::string, std::string> fields(st.fields().begin(), st.fields().end());
    EXPECT_EQ(fields["code"], "predicate_type_mismatch") << c.in;
    EXPECT_EQ(fields["column"], c.column) << c.in;
    EXPECT_EQ(fields["column_type"], c.column_type) << c.in;
    EXPECT_EQ(fields["literal_type"], c.literal_type) << c.in;
    EXPECT_NE(st.message().find(std::string("column ") + c.column + " is " + c.column_type),
              std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find(std::string(c.literal_type) + " literal"), std::string::npos)
        << st.message();
  }
  // Lossless comparisons stay: integer literals against any integer width, numbers against
  // DECIMAL and floats, the text forms of date/time/uuid/ip values, and 'NaN'/'Infinity' for
  // floats (no number syntax for them).
  for (const char* ok : {"small = 5", "small IN (1, 2)", "id > -3", "amt > 1.5", "amt = 2",
                         "f < 1e3", "f = 'NaN'", "f > '-Infinity'", "ok = TRUE", "name > '5'",
                         "d > '2024-01-01'", "ts >= '2024-01-01'", "tz < '2024-01-01T00:00:00Z'",
                         "t = '10:00:00'", "u = '00000000-0000-0000-0000-000000000001'",
                         "ip = '10.0.0.1'", "j = '{}'", "name IS NULL", "ok IS NOT NULL"}) {
    Result<BoundPredicate> r = ParseAndBindPredicate(ok, s);
    EXPECT_TRUE(r.ok()) << ok << ": " << r.status().ToString();
  }
}

RecordBatch TestBatch() {
  RecordBatch b;
  b.schema = S("id INT64, name VARCHAR, f FLOAT64, ts TIMESTAMP[us]");
  b.columns.push_back(Col("INT64", {"1", "2", "NULL", "4", "5"}));
  b.columns.push_back(Col("VARCHAR", {"a", "NULL", "c", "b", "a"}));
  b.columns.push_back(Col("FLOAT64", {"1.5", "NaN", "NULL", "-0", "3"}));
  b.columns.push_back(
      Col("TIMESTAMP[us]", {"2023-12-31T23:59:59", "2024-01-01", "NULL", "2024-06-01", "NULL"}));
  b.num_rows = 5;
  return b;
}

std::vector<uint8_t> Eval(std::string_view text) {
  RecordBatch b = TestBatch();
  BoundPredicate p = Bind(text, b.schema);
  Result<std::vector<uint8_t>> m = EvaluatePredicate(p, b);
  EXPECT_TRUE(m.ok()) << text << ": " << m.status().ToString();
  return m.ok() ? *m : std::vector<uint8_t>{};
}

using M = std::vector<uint8_t>;

TEST(EvaluatePredicateTest, ComparisonsAndThreeValuedLogic) {
  EXPECT_EQ(Eval("id = 2"), (M{0, 1, 0, 0, 0}));
  EXPECT_EQ(Eval("id <> 2"), (M{1, 0, 0, 1, 1}));  // null row: unknown
  EXPECT_EQ(Eval("id >= 4"), (M{0, 0, 0, 1, 1}));
  EXPECT_EQ(Eval("id < 2"), (M{1, 0, 0, 0, 0}));
  EXPECT_EQ(Eval("id IN (5, 1)"), (M{1, 0, 0, 0, 1}));
  EXPECT_EQ(Eval("id NOT IN (5, 1)"), (M{0, 1, 0, 1, 0}));
  EXPECT_EQ(Eval("id IN (1,2,3,4,6,7,8,9,10,11)"), (M{1, 1, 0, 1, 0}));  // binary search path
  EXPECT_EQ(Eval("id IS NULL"), (M{0, 0, 1, 0, 0}));
  EXPECT_EQ(Eval("id IS NOT NULL"), (M{1, 1, 0, 1, 1}));
  EXPECT_EQ(Eval("name > 'a'"), (M{0, 0, 1, 1, 0}));
  // NOT of unknown is unknown; OR with true is true; AND with false is false.
  EXPECT_EQ(Eval("NOT id = 2"), (M{1, 0, 0, 1, 1}));
  EXPECT_EQ(Eval("NOT (id = 2 OR name = 'a')"), (M{0, 0, 0, 1, 0}));
  EXPECT_EQ(Eval("id = 99 OR name = 'c'"), (M{0, 0, 1, 0, 0}));          // null OR true = true
  EXPECT_EQ(Eval("NOT (id = 99 AND name = 'zz')"), (M{1, 1, 1, 1, 1}));  // null AND false = false
  EXPECT_EQ(Eval("NOT (id > 0 AND name = 'c')"), (M{1, 0, 0, 1, 1}));    // row 1: true AND null
  EXPECT_EQ(Eval("TRUE"), (M{1, 1, 1, 1, 1}));
  EXPECT_EQ(Eval("FALSE OR id = 1"), (M{1, 0, 0, 0, 0}));
  // IEEE NaN and signed zero.
  EXPECT_EQ(Eval("f = 0"), (M{0, 0, 0, 1, 0}));
  EXPECT_EQ(Eval("f <> 1.5"), (M{0, 1, 0, 1, 1}));
  EXPECT_EQ(Eval("f > 0"), (M{1, 0, 0, 0, 1}));
  EXPECT_EQ(Eval("f = 'NaN'"), (M{0, 0, 0, 0, 0}));
  // Date-only literal against a timestamp.
  EXPECT_EQ(Eval("ts >= '2024-01-01'"), (M{0, 1, 0, 1, 0}));
}

TEST(EvaluatePredicateTest, MissingOrRetypedColumn) {
  RecordBatch b = TestBatch();
  Schema other = S("zz INT64");
  other.fields[0].field_id = 77;
  BoundPredicate p = Bind("zz = 1", other);
  EXPECT_EQ(EvaluatePredicate(p, b).status().kind(), ErrorKind::kInvalidArgument);
  Schema retyped = S("id INT32");
  BoundPredicate q = Bind("id = 1", retyped);
  EXPECT_EQ(EvaluatePredicate(q, b).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(StructMemberPredicateTest, DottedPathsParseBindEvaluateAndPrune) {
  // Parsing and printing: members at any depth, quoted or bare; spaces around the dot.
  for (const auto& [in, out] : std::vector<std::pair<const char*, const char*>>{
           {"p.a = 1", "p.a = 1"},
           {"\"p\" . \"odd name\".c IS NULL", "p.\"odd name\".c IS NULL"},
           {"1 < p.a", "p.a > 1"},
           {"p.a IN (1, 2) AND NOT p.q.c = 'x'", "(p.a IN (1, 2) AND (NOT p.q.c = 'x'))"},
       }) {
    Result<Predicate> parsed = ParsePredicate(in);
    ASSERT_TRUE(parsed.ok()) << in << ": " << parsed.status().ToString();
    EXPECT_EQ(parsed->ToString(), out);
  }
  for (const char* bad : {"p. = 1", "p.1 = 1", "p.a. = 1", ".a = 1"}) {
    EXPECT_FALSE(ParsePredicate(bad).ok()) << bad;
  }

  Schema s = S("id INT64, p STRUCT<a: INT64, q: STRUCT<c: VARCHAR>>, l ARRAY<STRUCT<y: INT32>>");
  int32_t last = 0;
  ASSERT_TRUE(AssignFieldIds(&s, &last).ok());
  const Field& a = s.fields[1].type.children()[0];
  BoundPredicate b = Bind("P.Q.C = 'x'", s);
  EXPECT_EQ(b.field_id, s.fields[1].type.children()[1].type.children()[0].field_id);
  EXPECT_EQ(b.top_field_id, s.fields[1].field_id);
  EXPECT_EQ(b.ToString(), "p.q.c = 'x'");
  EXPECT_EQ(ReferencedFieldIds(Bind("p.a = 1 OR id = 2", s)),
            (std::vector<int32_t>{s.fields[0].field_id, a.field_id}));
  EXPECT_EQ(ReferencedColumnIds(Bind("p.a = 1 OR p.q.c = 'x'", s)),
            (std::vector<int32_t>{s.fields[1].field_id}));
  // Errors name the path; members of non-STRUCTs (lists included) are refused.
  auto err = ParseAndBindPredicate("p.zz = 1", s);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("unknown member p.zz"), std::string::npos);
  EXPECT_FALSE(ParseAndBindPredicate("l.y = 1", s).ok());
  EXPECT_FALSE(ParseAndBindPredicate("id.x = 1", s).ok());
  err = ParseAndBindPredicate("p.q = 'x'", s);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("p.q is STRUCT"), std::string::npos)
      << err.status().ToString();
  err = ParseAndBindPredicate("p.a = 'x'", s);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("p.a"), std::string::npos) << err.status().ToString();

  // Evaluation: a member is null where its struct (or one around it) is.
  RecordBatch batch;
  batch.schema = s;
  batch.columns.push_back(Col("INT64", {"1", "2", "3", "4"}));
  batch.columns.push_back(Col("STRUCT<a: INT64, q: STRUCT<c: VARCHAR>>",
                              {R"({"a":1,"q":{"c":"x"}})", "NULL", R"({"a":3,"q":null})",
                               R"({"a":null,"q":{"c":"y"}})"}));
  batch.columns.push_back(Col("ARRAY<STRUCT<y: INT32>>", {"[]", "[]", "[]", "[]"}));
  batch.num_rows = 4;
  auto eval = [&](const char* text) {
    auto m = EvaluatePredicate(Bind(text, s), batch);
    EXPECT_TRUE(m.ok()) << text << ": " << m.status().ToString();
    return m.ok() ? *m : std::vector<uint8_t>{};
  };
  EXPECT_EQ(eval("p.a >= 1"), (std::vector<uint8_t>{1, 0, 1, 0}));
  EXPECT_EQ(eval("p.a IS NULL"), (std::vector<uint8_t>{0, 1, 0, 1}));
  EXPECT_EQ(eval("p.q.c IS NULL"), (std::vector<uint8_t>{0, 1, 1, 0}));
  EXPECT_EQ(eval("p.q.c <> 'x'"), (std::vector<uint8_t>{0, 0, 0, 1}));
  EXPECT_EQ(eval("p.q IS NULL"), (std::vector<uint8_t>{0, 1, 1, 0}));  // q of a null p is null
  EXPECT_EQ(eval("p IS NULL OR p.a = 3"), (std::vector<uint8_t>{0, 1, 1, 0}));

  // Pruning by the member's statistics (kept by its field id).
  DataFile file;
  file.record_count = 4;
  Column scratch;
  file.columns.push_back(ComputeColumnStats(a.field_id, *FindFieldColumn(batch, a.field_id, &scratch)));
  PartitionSpec none;
  auto mm = [&](const char* text) { return MightMatch(Bind(text, s), file, none, s); };
  EXPECT_TRUE(mm("p.a = 3"));
  EXPECT_FALSE(mm("p.a = 4"));
  EXPECT_FALSE(mm("p.a < 1"));
  EXPECT_TRUE(mm("p.a IS NULL"));
  EXPECT_TRUE(mm("p.q.c = 'zzz'"));  // no statistics: never pruned
}

DataFile FileWithStats(const Schema& s, const RecordBatch& b) {
  DataFile f;
  f.record_count = b.num_rows;
  for (size_t i = 0; i < b.columns.size(); ++i) {
    f.columns.push_back(ComputeColumnStats(s.fields[i].field_id, b.columns[i]));
  }
  return f;
}

TEST(MightMatchTest, BoundsAndNullCounts) {
  RecordBatch b;
  b.schema = S("id INT64, name VARCHAR, f FLOAT64");
  b.columns.push_back(Col("INT64", {"10", "20", "15"}));
  b.columns.push_back(Col("VARCHAR", {"NULL", "NULL", "NULL"}));
  b.columns.push_back(Col("FLOAT64", {"1", "2", "3"}));
  b.num_rows = 3;
  DataFile file = FileWithStats(b.schema, b);
  PartitionSpec none;
  auto mm = [&](std::string_view text) {
    return MightMatch(Bind(text, b.schema), file, none, b.schema);
  };
  EXPECT_TRUE(mm("id = 10"));
  EXPECT_TRUE(mm("id = 20"));
  EXPECT_FALSE(mm("id = 9"));
  EXPECT_FALSE(mm("id = 21"));
  EXPECT_FALSE(mm("id < 10"));
  EXPECT_TRUE(mm("id <= 10"));
  EXPECT_FALSE(mm("id > 20"));
  EXPECT_TRUE(mm("id >= 20"));
  EXPECT_FALSE(mm("id IN (1, 2, 30)"));
  EXPECT_TRUE(mm("id IN (1, 12)"));
  EXPECT_TRUE(mm("id <> 10"));
  EXPECT_FALSE(mm("id IS NULL"));
  EXPECT_TRUE(mm("id IS NOT NULL"));
  EXPECT_FALSE(mm("name = 'x'"));  // all null
  EXPECT_FALSE(mm("name IS NOT NULL"));
  EXPECT_TRUE(mm("name IS NULL"));
  EXPECT_FALSE(mm("id = 5 AND id = 15"));
  EXPECT_TRUE(mm("id = 5 OR id = 15"));
  EXPECT_FALSE(mm("NOT id >= 10"));  // id < 10
  EXPECT_TRUE(mm("NOT id = 10"));
  EXPECT_FALSE(mm("NOT (id < 25 AND id > 5)"));
  EXPECT_FALSE(mm("f > 3"));
  EXPECT_TRUE(mm("f > 2.5"));
  EXPECT_TRUE(mm("f = 0"));  // signed zero: never pruned by key order
  // A file whose values are all one value prunes <> of it.
  RecordBatch one;
  one.schema = S("id INT64");
  one.columns.push_back(Col("INT64", {"7", "7"}));
  one.num_rows = 2;
  DataFile f1 = FileWithStats(one.schema, one);
  EXPECT_FALSE(MightMatch(Bind("id <> 7", one.schema), f1, none, one.schema));
  EXPECT_FALSE(MightMatch(Bind("id NOT IN (7, 8)", one.schema), f1, none, one.schema));
  EXPECT_TRUE(MightMatch(Bind("id <> 8", one.schema), f1, none, one.schema));
  // No stats: never pruned.
  DataFile bare;
  bare.record_count = 5;
  EXPECT_TRUE(MightMatch(Bind("id = 1", one.schema), bare, none, one.schema));
  // Corrupt bound bytes: never pruned.
  f1.columns[0].lower = "xx";
  EXPECT_TRUE(MightMatch(Bind("id = 100", one.schema), f1, none, one.schema));
}

TEST(MightMatchTest, TimeNanosecondsEvaluateAndPruneToTheNanosecond) {
  RecordBatch b;
  b.schema = S("t TIME[ns]");
  b.columns.push_back(Col("TIME[ns]", {"23:59:59.999999998", "NULL", "12:00:00.000000001"}));
  b.num_rows = 3;
  EXPECT_EQ(EvaluatePredicate(Bind("t > '23:59:59.999999'", b.schema), b).value(),
            (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(EvaluatePredicate(Bind("t = '12:00:00.000000001'", b.schema), b).value(),
            (std::vector<uint8_t>{0, 0, 1}));
  DataFile file = FileWithStats(b.schema, b);
  PartitionSpec none;
  auto mm = [&](std::string_view text) {
    return MightMatch(Bind(text, b.schema), file, none, b.schema);
  };
  // Bounds are exact nanoseconds: a value one nanosecond past either end is pruned.
  EXPECT_FALSE(mm("t = '23:59:59.999999999'"));
  EXPECT_TRUE(mm("t = '23:59:59.999999998'"));
  EXPECT_FALSE(mm("t < '12:00:00.000000001'"));
  EXPECT_TRUE(mm("t <= '12:00:00.000000001'"));
  // A literal finer than TIME's microseconds is a typed error, not a rounded value.
  EXPECT_FALSE(ParseAndBindPredicate("t = '12:00:00.000000001'", S("t TIME")).ok());
}

TEST(MightMatchTest, TruncatedStringBounds) {
  RecordBatch b;
  b.schema = S("s VARCHAR");
  b.columns.push_back(Col("VARCHAR", {std::string(70, 'm'), std::string(80, 'c')}));
  b.num_rows = 2;
  DataFile f = FileWithStats(b.schema, b);
  PartitionSpec none;
  EXPECT_TRUE(MightMatch(Bind("s = '" + std::string(70, 'm') + "'", b.schema), f, none, b.schema));
  EXPECT_TRUE(MightMatch(Bind("s = '" + std::string(80, 'c') + "'", b.schema), f, none, b.schema));
  EXPECT_FALSE(MightMatch(Bind("s = 'n'", b.schema), f, none, b.schema));
  EXPECT_FALSE(MightMatch(Bind("s < 'c'", b.schema), f, none, b.schema));
}

TEST(MightMatchMembershipTest, EqualityAndInUnderAndOrNot) {
  // A set of (field id, int64 value) pairs stands for what the bloom filters hold; name and
  // ts are asked too, and never "contain" anything.
  const std::set<std::pair<int32_t, int64_t>> held = {{1, 5}, {1, 7}};
  std::vector<std::string> asked;
  auto might = [&](int32_t field, const Column& lits, int64_t i) {
    if (lits.type != DataType::Int64()) {
      asked.push_back("field " + std::to_string(field));
      return false;
    }
    asked.push_back(std::to_string(lits.Value<int64_t>(i)));
    return held.count({field, lits.Value<int64_t>(i)}) > 0;
  };
  auto check = [&](std::string_view text) { return MightMatchMembership(Bind(text), might); };
  EXPECT_TRUE(check("id = 5"));
  EXPECT_FALSE(check("id = 6"));
  EXPECT_TRUE(check("id IN (6, 7)"));
  EXPECT_FALSE(check("id IN (6, 8, 9)"));
  EXPECT_FALSE(check("id = 6 AND f > 1"));
  EXPECT_TRUE(check("id = 6 OR f > 1"));  // the other side cannot be asked
  EXPECT_FALSE(check("id = 6 OR id = 8"));
  EXPECT_FALSE(check("NOT (id <> 6)"));  // negations that come to an equality
  EXPECT_FALSE(check("NOT (id NOT IN (6, 8))"));
  EXPECT_TRUE(check("id <> 6"));
  EXPECT_TRUE(check("NOT (id = 6)"));
  EXPECT_TRUE(check("id > 6"));
  EXPECT_TRUE(check("id IS NULL"));
  EXPECT_FALSE(check("FALSE"));
  EXPECT_FALSE(check("name = 'x'"));
  asked.clear();
  EXPECT_TRUE(check("id > 1 OR d < '2024-01-01'"));
  EXPECT_TRUE(asked.empty());  // no equality: nothing asked
}

TEST(MembershipFieldIdsTest, TheLeavesMembershipMayAsk) {
  Schema s = S("id INT64, name VARCHAR, p STRUCT<a: INT64, b: VARCHAR>");
  int32_t last = 0;
  ASSERT_TRUE(AssignFieldIds(&s, &last).ok());
  auto ids = [&](std::string_view text) { return MembershipFieldIds(Bind(text, s)); };
  const int32_t id = s.fields[0].field_id, name = s.fields[1].field_id;
  const int32_t pa = s.fields[2].type.children()[0].field_id;
  EXPECT_EQ(ids("id = 1"), std::vector<int32_t>{id});
  EXPECT_EQ(ids("name IN ('a', 'b') OR (id = 2 AND p.a = 3)"),
            (std::vector<int32_t>{id, name, pa}));  // ids 1, 2, then the member's (4)
  EXPECT_LT(name, pa);
  EXPECT_EQ(ids("NOT (id <> 4)"), std::vector<int32_t>{id});
  EXPECT_TRUE(ids("id > 1 OR name IS NULL OR NOT (p.a = 3) OR id <> 2").empty());
}

TEST(MightMatchTest, PartitionValues) {
  Schema s = S("id INT64, ts TIMESTAMP[us], region VARCHAR, name VARCHAR");
  PartitionSpec spec =
      *PartitionSpec::Parse("bucket(16, id), month(ts), region, truncate(3, name)", s);
  DataFile f;
  f.record_count = 10;
  // id 34 -> bucket 3; ts in 2017-11 -> 574.
  f.partition = {"3", "574", "eu", "ice"};
  auto mm = [&](std::string_view text) { return MightMatch(Bind(text, s), f, spec, s); };
  EXPECT_TRUE(mm("id = 34"));
  EXPECT_FALSE(mm("id = 35"));  // other bucket (bucket[16] of 35 != 3)
  EXPECT_TRUE(mm("id IN (35, 34)"));
  EXPECT_TRUE(mm("id > 1000"));  // bucket cannot prune ranges
  EXPECT_TRUE(mm("ts >= '2017-11-30'"));
  EXPECT_FALSE(mm("ts >= '2017-12-01'"));
  EXPECT_TRUE(mm("ts < '2017-11-01T00:00:01'"));
  EXPECT_TRUE(mm("ts < '2017-11-01'"));
  EXPECT_FALSE(mm("ts < '2017-10-31'"));
  EXPECT_FALSE(mm("ts = '2018-01-01'"));
  EXPECT_TRUE(mm("region = 'eu'"));
  EXPECT_FALSE(mm("region = 'us'"));
  EXPECT_FALSE(mm("region <> 'eu'"));
  EXPECT_FALSE(mm("region IS NULL"));
  EXPECT_TRUE(mm("name = 'iceberg'"));
  EXPECT_FALSE(mm("name = 'icicle'"));
  EXPECT_FALSE(mm("name > 'idx'"));
  EXPECT_TRUE(mm("name > 'ic'"));
  // A null partition value: the source column is null in every row.
  f.partition[2] = std::nullopt;
  EXPECT_FALSE(mm("region = 'eu'"));
  EXPECT_TRUE(mm("region IS NULL"));
  // Another spec id: partition values are not used.
  f.spec_id = 9;
  EXPECT_TRUE(mm("id = 35"));
}

TEST(PartitionKeyRangeTest, RangesAndSets) {
  Schema s = S("ts TIMESTAMP[us], id INT64");
  PartitionSpec by_month = *PartitionSpec::Parse("month(ts)", s);
  auto key = [](int32_t v) {
    Column c(DataType::Int32());
    c.AppendFixed<int32_t>(v);
    return OrderedKey(c, 0);
  };
  auto range = [&](std::string_view text, const PartitionSpec& spec) {
    return PartitionKeyRange(Bind(text, s), spec, s);
  };
  std::optional<KeyRange> r = range("ts >= '2017-11-16' AND ts < '2018-01-01'", by_month);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->empty);
  EXPECT_EQ(r->lo, key(574));
  EXPECT_EQ(r->hi, key(576));
  r = range("ts = '2017-11-16T10:00:00'", by_month);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->in, std::vector<std::string>{key(574)});
  EXPECT_FALSE(range("id = 5", by_month));
  EXPECT_FALSE(range("ts <> '2017-01-01'", by_month));
  EXPECT_FALSE(range("ts > '2017-01-01' OR id = 1", by_month));
  r = range("ts < '1970-01-01' AND ts > '2000-01-01'", by_month);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty);
  r = range("ts IS NULL", by_month);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty);
  r = range("NOT ts < '2017-11-16'", by_month);  // ts >= ...
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, key(574));
  EXPECT_FALSE(r->hi);
  r = range("(ts < '1970-02-01') OR (ts >= '1970-05-01' AND ts < '1970-06-01')", by_month);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->lo);
  EXPECT_EQ(r->hi, key(5));

  PartitionSpec by_bucket = *PartitionSpec::Parse("bucket(16, id)", s);
  r = range("id IN (34, 34, 35)", by_bucket);
  ASSERT_TRUE(r);
  Column ids = Col("INT64", {"34", "35"});
  std::vector<std::string> want = {key(BucketTransform(IcebergBucketHash(ids, 0), 16)),
                                   key(BucketTransform(IcebergBucketHash(ids, 1), 16))};
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  EXPECT_EQ(r->in, want);
  EXPECT_FALSE(range("id > 3", by_bucket));
  r = range("id = 34 AND id = 35", by_bucket);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->empty, want.size() == 2);
  EXPECT_FALSE(PartitionKeyRange(Bind("id = 1", s), PartitionSpec(), s));
}

}  // namespace
}  // namespace tarn
