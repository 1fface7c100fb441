// VARIANT in the per-file logic: no partition transform, no sort key, no bounds, and only
// IS NULL / IS NOT NULL in predicates.
#include <gtest/gtest.h>

#include "table/predicate.h"
#include "tarn/data_file.h"
#include "tarn/partition.h"
#include "tarn/sort_order.h"
#include "types/value_text.h"

namespace tarn {
namespace {

Schema VariantSchema() { return *Schema::Parse("id INT64, v VARIANT"); }

TEST(TableVariant, NotAPartitionSource) {
  for (const char* spec : {"v", "bucket(8, v)", "truncate(4, v)", "void(v)", "day(v)"}) {
    auto s = PartitionSpec::Parse(spec, VariantSchema());
    ASSERT_FALSE(s.ok()) << spec;
    EXPECT_NE(s.status().message().find("VARIANT column cannot be a partition source"),
              std::string::npos)
        << s.status().ToString();
  }
  EXPECT_TRUE(PartitionSpec::Parse("bucket(8, id)", VariantSchema()).ok());
}

TEST(TableVariant, NotASortKey) {
  auto o = SortOrder::Parse("v", VariantSchema());
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("cannot sort by VARIANT column v"), std::string::npos);
  // A sort order given by field id alone is refused when a batch is sorted.
  SortOrder by_id;
  by_id.fields.push_back({2, false, false});
  RecordBatch b;
  b.schema = VariantSchema();
  b.columns.emplace_back(DataType::Int64());
  b.columns.emplace_back(DataType::Variant());
  b.columns[0].AppendFixed<int64_t>(1);
  ASSERT_TRUE(AppendParsedValue("[1]", &b.columns[1]).ok());
  b.num_rows = 1;
  EXPECT_FALSE(SortPermutation(b, by_id).ok());
}

TEST(TableVariant, OnlyNullTestsAndNoBounds) {
  RecordBatch b;
  b.schema = VariantSchema();
  b.columns.emplace_back(DataType::Int64());
  b.columns.emplace_back(DataType::Variant());
  for (const char* v : {"{\"a\":1}", "", "null"}) {
    b.columns[0].AppendFixed<int64_t>(b.num_rows++);
    if (*v) {
      ASSERT_TRUE(AppendParsedValue(v, &b.columns[1]).ok());
    } else {
      b.columns[1].AppendNull();
    }
  }
  auto is_null = ParseAndBindPredicate("v IS NULL", b.schema);
  ASSERT_TRUE(is_null.ok()) << is_null.status().ToString();
  auto rows = EvaluatePredicate(*is_null, b);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (std::vector<uint8_t>{0, 1, 0}));
  for (const char* bad : {"v = 1", "v > 'a'", "v IN (1, 2)"}) {
    auto p = ParseAndBindPredicate(bad, b.schema);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find("only IS NULL / IS NOT NULL apply"), std::string::npos)
        << p.status().ToString();
  }
  ColumnStats s = ComputeColumnStats(2, b.columns[1]);
  EXPECT_EQ(s.value_count, 3);
  EXPECT_EQ(s.null_count, 1);
  EXPECT_FALSE(s.lower.has_value());
  EXPECT_FALSE(s.upper.has_value());
}

}  // namespace
}  // namespace tarn
