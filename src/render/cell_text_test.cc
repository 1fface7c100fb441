#include "render/cell_text.h"

#include <gtest/gtest.h>

namespace tarn::render {
namespace {

Column Of(const std::string& type) { return Column(*DataType::Parse(type)); }

TEST(CellText, ScalarsAreTheirCanonicalText) {
  Column s = Of("VARCHAR");
  s.AppendBytes("a, b: [c]");
  s.AppendNull();
  EXPECT_EQ(CellText(s, 0), "a, b: [c]");  // not nested: as it is
  EXPECT_EQ(CellText(s, 1), "NULL");
  Column d = Of("DECIMAL(5,2)");
  d.AppendFixed<int128>(-150);
  EXPECT_EQ(CellText(d, 0), "-1.50");
}

TEST(CellText, StructsAndMapsAreCompact) {
  Column s = Of("STRUCT<a: INT64, tags: ARRAY<VARCHAR>>");
  s.members[0].AppendFixed<int64_t>(1);
  s.members[1].child->AppendBytes("x");
  s.members[1].child->AppendBytes("y");
  s.members[1].AppendArrayRow();
  s.AppendStructRow();
  s.AppendNull();
  s.members[0].AppendNull();
  s.members[1].AppendArrayRow();
  s.AppendStructRow();
  EXPECT_EQ(CellText(s, 0), "{a: 1, tags: [x, y]}");
  EXPECT_EQ(CellText(s, 1), "NULL");
  EXPECT_EQ(CellText(s, 2), "{a: NULL, tags: []}");

  Column m = Of("MAP<VARCHAR, ARRAY<INT32>>");
  m.members[0].AppendBytes("k");
  m.members[1].child->AppendFixed<int32_t>(1);
  m.members[1].child->AppendNull();
  m.members[1].AppendArrayRow();
  m.members[0].AppendBytes("j");
  m.members[1].AppendNull();
  m.AppendArrayRow();
  m.AppendArrayRow();
  EXPECT_EQ(CellText(m, 0), "{k: [1, NULL], j: NULL}");
  EXPECT_EQ(CellText(m, 1), "{}");

  Column ll = Of("ARRAY<ARRAY<INT32>>");
  ll.child->child->AppendFixed<int32_t>(7);
  ll.child->AppendArrayRow();
  ll.child->AppendNull();
  ll.AppendArrayRow();
  EXPECT_EQ(CellText(ll, 0), "[[7], NULL]");
}

TEST(CellText, NestedTextThatWouldMisleadIsQuoted) {
  Column s = Of("STRUCT<\"a:b\": ARRAY<VARCHAR>, plain: JSON>");
  for (const char* v : {"x, y", "", "NULL", " pad", "line\nbreak", "quote\"", "fine text"}) {
    s.members[0].child->AppendBytes(v);
  }
  s.members[0].AppendArrayRow();
  s.members[1].AppendBytes("{\"k\":1}");
  s.AppendStructRow();
  EXPECT_EQ(CellText(s, 0),
            R"({"a:b": ["x, y", "", "NULL", " pad", "line\nbreak", "quote\"", fine text], )"
            R"(plain: "{\"k\":1}"})");
}

TEST(CellText, LongValuesAreCut) {
  Column a = Of("ARRAY<INT64>");
  for (int i = 0; i < 1000; ++i) a.child->AppendFixed<int64_t>(123456789);
  a.AppendArrayRow();
  std::string text = CellText(a, 0, 40);
  EXPECT_EQ(text.rfind("[123456789, 123456789, 123456789, 123456789", 0), 0u) << text;
  EXPECT_LT(text.size(), 60u);
  EXPECT_EQ(text.substr(text.size() - 3), "…");
  // By default: cut after the element that passes 4096 bytes (", 123456789"), then "…".
  const size_t full = CellText(a, 0).size();
  EXPECT_GT(full, 4096u + 3u);
  EXPECT_LE(full, 4096u + 11u + 3u);
}

}  // namespace
}  // namespace tarn::render
