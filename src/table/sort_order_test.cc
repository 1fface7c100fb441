#include "tarn/sort_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "table/test_util.h"

namespace tarn {
namespace {

using table_test::Col;
using table_test::S;
using table_test::T;
using table_test::Texts;

RecordBatch Batch(const Schema& schema) {
  RecordBatch b;
  b.schema = schema;
  return b;
}

template <typename... Cols>
RecordBatch Batch(const Schema& schema, Column first, Cols... rest) {
  RecordBatch b;
  b.schema = schema;
  b.num_rows = first.length;
  b.columns.push_back(std::move(first));
  (b.columns.push_back(std::move(rest)), ...);
  return b;
}

TEST(SortOrderTest, ParsePrintJson) {
  Schema s = S("id INT64, ts TIMESTAMP[us], \"my col\" VARCHAR");
  Result<SortOrder> o = SortOrder::Parse("id, ts DESC, \"my col\" asc nulls last", s);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_EQ(o->fields.size(), 3u);
  EXPECT_EQ(o->fields[0], (SortField{1, false, true}));
  EXPECT_EQ(o->fields[1], (SortField{2, true, false}));  // DESC defaults to NULLS LAST
  EXPECT_EQ(o->fields[2], (SortField{3, false, false}));
  EXPECT_EQ(o->ToString(s), "id ASC NULLS FIRST, ts DESC NULLS LAST, \"my col\" ASC NULLS LAST");
  Result<SortOrder> again = SortOrder::Parse(o->ToString(s), s);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *o);
  Result<SortOrder> fj = SortOrder::FromJson(o->ToJson());
  ASSERT_TRUE(fj.ok()) << fj.status().ToString();
  EXPECT_EQ(*fj, *o);
  EXPECT_TRUE(SortOrder::Parse("  ", s)->unsorted());
  EXPECT_EQ(SortOrder().ToJson(), "{\"fields\":[],\"order-id\":0}");
}

TEST(SortOrderTest, ParseErrors) {
  Schema s = S("id INT64, tags ARRAY<INT32>");
  for (const char* bad :
       {"nope", "id,", "id UP", "id DESC NULLS", "tags", "id, id", "\"id", "id NULLS MIDDLE"}) {
    Result<SortOrder> r = SortOrder::Parse(bad, s);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << bad;
    }
  }
  for (const char* bad :
       {"", "{}", "{\"fields\":[{\"source-id\":1}]}",
        "{\"fields\":[{\"source-id\":1,\"direction\":\"up\",\"null-order\":\"nulls-first\"}]}",
        "{\"fields\":[{\"source-id\":1,\"transform\":\"bucket[4]\",\"direction\":\"asc\",\"null-"
        "order\":\"nulls-first\"}]}"}) {
    EXPECT_FALSE(SortOrder::FromJson(bad).ok()) << bad;
  }
}

TEST(SortPermutationTest, MultiColumnStableWithNulls) {
  Schema s = S("k INT32, name VARCHAR, seq INT32");
  RecordBatch b = Batch(s, Col("INT32", {"2", "NULL", "1", "2", "1", "NULL", "2"}),
                        Col("VARCHAR", {"b", "x", "z", "a", "z", "y", "b"}),
                        Col("INT32", {"0", "1", "2", "3", "4", "5", "6"}));
  SortOrder o = *SortOrder::Parse("k, name DESC", s);
  Result<std::vector<int64_t>> p = SortPermutation(b, o);
  ASSERT_TRUE(p.ok());
  // nulls first (y before x: name DESC), then k=1 (z,z stable), k=2 (b,b stable then a).
  EXPECT_EQ(*p, (std::vector<int64_t>{5, 1, 2, 4, 0, 6, 3}));
  RecordBatch sorted = TakeRows(b, *p);
  EXPECT_EQ(Texts(sorted.columns[2]),
            (std::vector<std::string>{"5", "1", "2", "4", "0", "6", "3"}));
  EXPECT_EQ(Texts(sorted.columns[0]),
            (std::vector<std::string>{"NULL", "NULL", "1", "1", "2", "2", "2"}));

  SortOrder last = *SortOrder::Parse("k DESC NULLS LAST", s);
  EXPECT_EQ(*SortPermutation(b, last), (std::vector<int64_t>{0, 3, 6, 2, 4, 1, 5}));
}

TEST(SortPermutationTest, FloatsAndStrings) {
  Schema s = S("f FLOAT64");
  RecordBatch b = Batch(s, Col("FLOAT64", {"NaN", "1", "-Infinity", "-0", "0", "-5"}));
  auto p = *SortPermutation(b, *SortOrder::Parse("f", s));
  EXPECT_EQ(p, (std::vector<int64_t>{2, 5, 3, 4, 1, 0}));
  Schema s2 = S("v VARCHAR");
  RecordBatch b2 = Batch(s2, Col("VARCHAR", {"b", "", "ab", "a"}));
  EXPECT_EQ(*SortPermutation(b2, *SortOrder::Parse("v", s2)), (std::vector<int64_t>{1, 3, 2, 0}));
}

TEST(SortPermutationTest, MissingColumn) {
  Schema s = S("a INT32");
  RecordBatch b = Batch(s, Col("INT32", {"1"}));
  SortOrder o;
  o.fields.push_back({9, false, true});
  EXPECT_EQ(SortPermutation(b, o).status().kind(), ErrorKind::kInvalidArgument);
}

// Random batches: the permutation equals a reference std::stable_sort on decoded values.
TEST(SortPermutationTest, MatchesReferenceOnRandomData) {
  std::mt19937_64 rng(42);
  Schema s = S("a INT16, b DECIMAL(20,2), c INT64");
  for (int round = 0; round < 20; ++round) {
    Column a(DataType::Int16()), bcol(DataType::Decimal(20, 2)), c(DataType::Int64());
    const int n = 500;
    for (int i = 0; i < n; ++i) {
      if (rng() % 7 == 0)
        a.AppendNull();
      else
        a.AppendFixed<int16_t>(static_cast<int16_t>(rng() % 5) - 2);
      if (rng() % 5 == 0)
        bcol.AppendNull();
      else
        bcol.AppendFixed<int128>(static_cast<int128>(rng() % 9) - 4);
      c.AppendFixed<int64_t>(i);
    }
    bool desc_a = round % 2, nf_b = round % 3 == 0;
    SortOrder o;
    o.fields = {{1, desc_a, !desc_a}, {2, false, nf_b}};
    RecordBatch batch = Batch(s);
    batch.columns.push_back(std::move(a));
    batch.columns.push_back(std::move(bcol));
    batch.columns.push_back(std::move(c));
    batch.num_rows = n;
    std::vector<int64_t> ref(n);
    for (int i = 0; i < n; ++i) ref[i] = i;
    const Column& ca = batch.columns[0];
    const Column& cb = batch.columns[1];
    auto cmp_a = [&](int64_t x, int64_t y) -> int {
      bool vx = ca.IsValid(x), vy = ca.IsValid(y);
      if (!vx || !vy) return vx == vy ? 0 : ((!vx) == !desc_a ? -1 : 1);
      int r = ca.Value<int16_t>(x) < ca.Value<int16_t>(y)
                  ? -1
                  : ca.Value<int16_t>(x) > ca.Value<int16_t>(y);
      return desc_a ? -r : r;
    };
    auto cmp_b = [&](int64_t x, int64_t y) -> int {
      bool vx = cb.IsValid(x), vy = cb.IsValid(y);
      if (!vx || !vy) return vx == vy ? 0 : ((!vx) == nf_b ? -1 : 1);
      return cb.Value<int128>(x) < cb.Value<int128>(y) ? -1
                                                       : cb.Value<int128>(x) > cb.Value<int128>(y);
    };
    std::stable_sort(ref.begin(), ref.end(), [&](int64_t x, int64_t y) {
      int r = cmp_a(x, y);
      if (r != 0) return r < 0;
      return cmp_b(x, y) < 0;
    });
    EXPECT_EQ(*SortPermutation(batch, o), ref) << round;
  }
}

TEST(TakeRowsTest, EveryLayout) {
  Schema s = S("i INT32, v VARCHAR, d DECIMAL(5,1), u UUID, arr ARRAY<INT64>");
  Column arr(T("ARRAY<INT64>"));
  arr.child = std::make_unique<Column>(DataType::Int64());
  arr.child->AppendFixed<int64_t>(1);
  arr.child->AppendFixed<int64_t>(2);
  arr.AppendArrayRow();
  arr.AppendNull();
  arr.child->AppendFixed<int64_t>(3);
  arr.AppendArrayRow();
  RecordBatch b = Batch(s);
  b.columns.push_back(Col("INT32", {"1", "NULL", "3"}));
  b.columns.push_back(Col("VARCHAR", {"one", "two", "NULL"}));
  b.columns.push_back(Col("DECIMAL(5,1)", {"1.5", "-2.0", "3.3"}));
  b.columns.push_back(Col("UUID", {"00000000-0000-0000-0000-000000000001", "NULL",
                                   "f79c3e09-677c-4bbd-a479-3f349cb785e7"}));
  b.columns.push_back(std::move(arr));
  b.num_rows = 3;
  RecordBatch t = TakeRows(b, {2, 0, 0, 1});
  EXPECT_EQ(t.num_rows, 4);
  EXPECT_EQ(Texts(t.columns[0]), (std::vector<std::string>{"3", "1", "1", "NULL"}));
  EXPECT_EQ(Texts(t.columns[1]), (std::vector<std::string>{"NULL", "one", "one", "two"}));
  EXPECT_EQ(Texts(t.columns[2]), (std::vector<std::string>{"3.3", "1.5", "1.5", "-2.0"}));
  EXPECT_EQ(Texts(t.columns[3])[0], "f79c3e09-677c-4bbd-a479-3f349cb785e7");
  EXPECT_EQ(Texts(t.columns[4]), (std::vector<std::string>{"[3]", "[1,2]", "[1,2]", "NULL"}));
  RecordBatch f = FilterRows(b, {0, 1, 1});
  EXPECT_EQ(f.num_rows, 2);
  EXPECT_EQ(Texts(f.columns[1]), (std::vector<std::string>{"two", "NULL"}));
}

}  // namespace
}  // namespace tarn
