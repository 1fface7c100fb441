#include "types/batch.h"

#include <gtest/gtest.h>

namespace tarn {
namespace {

// Bounded queues and flush thresholds count nested values too: a STRUCT's or MAP's members, an
// ARRAY's elements.
TEST(ColumnBytes, CountsNestedColumns) {
  auto t = DataType::Parse("STRUCT<a: INT64, m: MAP<VARCHAR, INT32>>");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  Column c(*t);
  c.members[0].AppendFixed<int64_t>(1);
  c.members[1].members[0].AppendBytes("key");
  c.members[1].members[1].AppendFixed<int32_t>(2);
  c.members[1].AppendArrayRow();
  c.AppendStructRow();
  // a: 8 bytes; m: 2 offsets, keys "key" and 2 offsets, values 4 bytes.
  EXPECT_EQ(ColumnBytes(c), 8 + 2 * 8 + (3 + 2 * 8) + 4);
}

}  // namespace
}  // namespace tarn
