#include "table/field_path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "table/schema_json.h"
#include "table/test_util.h"

namespace tarn {
namespace {

using table_test::Col;
using table_test::S;
using table_test::Texts;

Schema NestedSchema() {
  Schema s = S("id INT64, p STRUCT<a: INT64, \"odd name\": STRUCT<c: VARCHAR, l: ARRAY<INT32>>>, "
               "m MAP<VARCHAR, STRUCT<x: INT32>>, t ARRAY<STRUCT<y: INT32>>");
  int32_t last = 0;
  EXPECT_TRUE(AssignFieldIds(&s, &last).ok());
  return s;
}

TEST(FieldPathTest, FindsColumnsAndStructMembersByIdOnly) {
  const Schema s = NestedSchema();
  // Ids: id 1, p 2, m 3, t 4; p's members 5 (a), 6 (odd name); 6's members 7 (c), 8 (l) ...
  auto p = FindFieldPath(s, s.fields[1].field_id);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->nested());
  EXPECT_EQ(p->Text(), "p");
  const Field& odd = s.fields[1].type.children()[1];
  const Field& c = odd.type.children()[0];
  p = FindFieldPath(s, c.field_id);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->indices, (std::vector<int>{1, 1, 0}));
  EXPECT_EQ(p->Text(), "p.\"odd name\".c");
  EXPECT_EQ(p->top_field_id, s.fields[1].field_id);
  EXPECT_EQ(p->field->field_id, c.field_id);
  // A list element, a map value and what lies below them are not one value per row.
  EXPECT_FALSE(FindFieldPath(s, odd.type.children()[1].type.children()[0].field_id));
  EXPECT_FALSE(FindFieldPath(s, s.fields[2].type.children()[1].field_id));
  EXPECT_FALSE(FindFieldPath(s, s.fields[3].type.children()[0].field_id));
  EXPECT_FALSE(FindFieldPath(s, 9999));

  std::vector<std::string> visited;
  ForEachStructMember(s, [&](const FieldPath& at) { visited.push_back(at.Text()); });
  EXPECT_EQ(visited, (std::vector<std::string>{"p.a", "p.\"odd name\"", "p.\"odd name\".c",
                                               "p.\"odd name\".l"}));
}

TEST(FieldPathTest, ResolvesDottedNamesAndSaysWhatIsWrong) {
  const Schema s = NestedSchema();
  auto p = ResolveFieldPath(s, {"P", "Odd Name", "C"});  // case-insensitive, unambiguous
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->names, (std::vector<std::string>{"p", "odd name", "c"}));
  auto err = ResolveFieldPath(s, {"p", "nope"});
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("unknown member p.nope (p has a, odd name)"),
            std::string::npos)
      << err.status().ToString();
  err = ResolveFieldPath(s, {"id", "x"});
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("id is INT64, not a STRUCT"), std::string::npos);
  err = ResolveFieldPath(s, {"t", "y"});  // through an ARRAY: refused
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("not a STRUCT"), std::string::npos);
  err = ResolveFieldPath(s, {"zz"});
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("unknown column zz"), std::string::npos);
}

TEST(FieldPathTest, AMemberIsNullWhereAStructAroundItIs) {
  Schema s = S("p STRUCT<a: INT64, q: STRUCT<c: VARCHAR>>");
  int32_t last = 0;
  ASSERT_TRUE(AssignFieldIds(&s, &last).ok());
  RecordBatch b;
  b.schema = s;
  b.columns.push_back(Col("STRUCT<a: INT64, q: STRUCT<c: VARCHAR>>",
                          {R"({"a":1,"q":{"c":"x"}})", "NULL", R"({"a":3,"q":null})",
                           R"({"a":null,"q":{"c":null}})"}));
  b.num_rows = 4;
  const Field& q = s.fields[0].type.children()[1];
  Column scratch;
  const Column* c = FindFieldColumn(b, q.type.children()[0].field_id, &scratch);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Texts(*c), (std::vector<std::string>{"x", "NULL", "NULL", "NULL"}));
  const Column* a = FindFieldColumn(b, s.fields[0].type.children()[0].field_id, &scratch);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(Texts(*a), (std::vector<std::string>{"1", "NULL", "3", "NULL"}));
  // Without nulls around it the member column itself is returned.
  b.columns[0] = Col("STRUCT<a: INT64, q: STRUCT<c: VARCHAR>>", {R"({"a":5,"q":{"c":"y"}})"});
  b.num_rows = 1;
  a = FindFieldColumn(b, s.fields[0].type.children()[0].field_id, &scratch);
  EXPECT_EQ(a, &b.columns[0].members[0]);
  EXPECT_EQ(FindFieldColumn(b, 12345, &scratch), nullptr);
}

}  // namespace
}  // namespace tarn
