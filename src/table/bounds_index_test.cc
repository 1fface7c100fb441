#include "table/bounds_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "table/ordered_key.h"
#include "table/test_util.h"
#include "types/iceberg.h"

namespace tarn::bounds_index {
namespace {

using table_test::Col;
using table_test::S;
using table_test::T;

int64_t P(std::string_view type, const std::string& value) {
  return Point(T(type), OrderedKey(Col(type, {value}), 0));
}

TEST(BoundsIndex, PointsKeepTheOrderOfEveryType) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> sorted = {
      {"INT8", {"-128", "-1", "0", "1", "127"}},
      {"INT32", {"-2147483648", "-5", "0", "7", "2147483647"}},
      {"INT64", {"-9223372036854775808", "-1", "0", "4", "9223372036854775807"}},
      {"UINT64", {"0", "1", "9223372036854775807", "18446744073709551615"}},
      {"FLOAT32", {"-Infinity", "-2.5", "-0.0", "0.0", "1e-30", "3.5", "Infinity"}},
      {"FLOAT64", {"-Infinity", "-1e300", "-0.0", "0.0", "2.5", "1e300", "Infinity", "NaN"}},
      {"DECIMAL(38,2)",
       {"-99999999999999999999999999999999999.99", "-92233720368547758.09", "-1.00", "0.00", "0.01",
        "92233720368547758.07", "99999999999999999999999999999999999.99"}},
      {"DATE", {"0001-01-01", "1969-12-31", "1970-01-01", "2026-12-06", "9999-12-31"}},
      {"TIMESTAMP", {"1900-01-01 00:00:00", "2026-12-06 10:00:00", "2026-12-06 10:00:01"}},
      {"VARCHAR", {"", "a", "ab", "abcdefgh", "abcdefgi", "b", "\xc3\xa9"}},
      {"BOOLEAN", {"false", "true"}},
  };
  for (const auto& [type, values] : sorted) {
    for (size_t i = 1; i < values.size(); ++i) {
      EXPECT_LE(P(type, values[i - 1]), P(type, values[i])) << type << " " << values[i];
    }
    for (const std::string& v : values) {
      EXPECT_GE(P(type, v), 1) << type << " " << v;
      EXPECT_LE(P(type, v), kRoot) << type << " " << v;
    }
  }
  // Distinct enough to prune: neighbouring integers four apart, timestamps a few microseconds.
  EXPECT_LT(P("INT64", "0"), P("INT64", "4"));
  EXPECT_LT(P("TIMESTAMP", "2026-12-06 10:00:00"), P("TIMESTAMP", "2026-12-06 10:00:00.000004"));
  EXPECT_LT(P("DECIMAL(10,2)", "1.00"), P("DECIMAL(10,2)", "1.04"));
  EXPECT_LT(P("VARCHAR", "order-1"), P("VARCHAR", "order-2"));  // 7 bytes tell apart
}

TEST(BoundsIndex, PromotionsKeepEveryPoint) {
  for (const std::string v : {"-2147483648", "-3", "0", "12", "2147483647"}) {
    EXPECT_EQ(P("INT32", v), P("INT64", v)) << v;
  }
  for (const std::string v : {"-3", "0", "12", "127"}) EXPECT_EQ(P("INT8", v), P("INT16", v));
  for (const std::string v : {"0", "12", "4294967295"}) EXPECT_EQ(P("UINT32", v), P("INT64", v));
  for (const std::string v : {"-1.5", "0.25", "1024", "-Infinity"}) {
    EXPECT_EQ(P("FLOAT32", v), P("FLOAT64", v)) << v;
  }
  for (const std::string v : {"-12.34", "0.00", "99999999.99"}) {
    EXPECT_EQ(P("DECIMAL(10,2)", v), P("DECIMAL(38,2)", v)) << v;
  }
}

// The index's answer, computed the way the SQL of BoundsCandidates asks it, against the
// definition (lo <= b and hi >= a), over random intervals and queries of several widths.
TEST(BoundsIndex, ProbesFindExactlyTheIntervalsThatMeet) {
  std::mt19937_64 rng(20261206);
  for (int64_t scale : {int64_t{16}, int64_t{1} << 20, kRoot}) {
    auto point = [&](void) {
      return static_cast<int64_t>(rng() % static_cast<uint64_t>(scale)) + 1;
    };
    std::vector<Interval> stored;
    for (int i = 0; i < 2'000; ++i) {
      int64_t a = point(), b = point();
      if (i % 3 == 0) b = std::min<int64_t>(scale, a + static_cast<int64_t>(rng() % 8));
      stored.push_back(Interval{std::min(a, b), std::max(a, b)});
    }
    stored.push_back(Interval{1, 1});
    stored.push_back(Interval{kRoot, kRoot});
    stored.push_back(Interval{1, kRoot});
    for (int q = 0; q < 300; ++q) {
      int64_t a = point(), b = point();
      if (q % 2 == 0) b = a;
      const Interval query{std::min(a, b), std::max(a, b)};
      const Probe probe = ProbeOf(query);
      EXPECT_LE(probe.left.size(), 63u);
      EXPECT_LE(probe.right.size(), 63u);
      for (const Interval& iv : stored) {
        const int64_t node = Fork(iv);
        ASSERT_LE(iv.lo, node);
        ASSERT_LE(node, iv.hi);
        const bool meets = iv.lo <= query.hi && iv.hi >= query.lo;
        const bool found =
            (node >= probe.span.lo && node <= probe.span.hi) ||
            (std::count(probe.left.begin(), probe.left.end(), node) && iv.hi >= query.lo) ||
            (std::count(probe.right.begin(), probe.right.end(), node) && iv.lo <= query.hi);
        ASSERT_EQ(found, meets) << "[" << iv.lo << ", " << iv.hi << "] node " << node << " query ["
                                << query.lo << ", " << query.hi << "]";
      }
    }
  }
}

TEST(BoundsIndex, ForkIsTheHighestNodeInside) {
  EXPECT_EQ(Fork({5, 5}), 5);
  EXPECT_EQ(Fork({4, 6}), 4);  // 4 (level 2) is above 6 (level 1)
  EXPECT_EQ(Fork({5, 7}), 6);
  EXPECT_EQ(Fork({1, kRoot}), kRoot);
  EXPECT_EQ(Fork({3, 9}), 8);
}

DataFile FileWith(const ColumnStats& s, int64_t records = 10) {
  DataFile f;
  f.path = "f.parquet";
  f.record_count = records;
  f.columns.push_back(s);
  return f;
}

TEST(BoundsIndex, FileEntriesFollowTheStatistics) {
  const DataType t = T("INT64");
  ColumnStats s;
  s.field_id = 1;
  s.value_count = 10;
  s.lower = EncodeBound(Col("INT64", {"5"}), 0);
  s.upper = EncodeBound(Col("INT64", {"9"}), 0);
  auto e = FileEntry(FileWith(s), 1, t);
  ASSERT_TRUE(e && e->interval);
  EXPECT_EQ(*e->interval, (Interval{P("INT64", "5"), P("INT64", "9")}));
  // Another field, no statistics, no bounds, bounds that do not decode: unknown.
  EXPECT_EQ(FileEntry(FileWith(s), 2, t), Entry{});
  DataFile pending = FileWith(s);
  pending.columns.clear();
  pending.stats_pending = true;
  EXPECT_EQ(FileEntry(pending, 1, t), Entry{});
  ColumnStats no_bounds = s;
  no_bounds.lower.reset();
  EXPECT_EQ(FileEntry(FileWith(no_bounds), 1, t), Entry{});
  ColumnStats bad = s;
  bad.lower = "abc";
  EXPECT_EQ(FileEntry(FileWith(bad), 1, t), Entry{});
  // Every value null, or no rows: no entry at all.
  ColumnStats nulls = s;
  nulls.null_count = 10;
  nulls.lower.reset();
  nulls.upper.reset();
  EXPECT_FALSE(FileEntry(FileWith(nulls), 1, t));
  EXPECT_FALSE(FileEntry(FileWith(s, 0), 1, t));
}

std::optional<std::vector<Interval>> C(std::string_view where, std::string_view column) {
  const Schema schema = S("id INT64, name VARCHAR, x FLOAT64, s STRUCT<a: INT32>");
  Result<BoundPredicate> p = ParseAndBindPredicate(where, schema);
  EXPECT_TRUE(p.ok()) << where << ": " << p.status().ToString();
  if (!p.ok()) return std::nullopt;
  int32_t id = 0;
  for (const Field& f : schema.fields) {
    if (f.name == column) id = f.field_id;
  }
  if (column == "s.a") id = schema.fields[3].type.children()[0].field_id;
  return Confine(*p, id);
}

TEST(BoundsIndex, ConfineReadsRangesValuesAndTheirCombinations) {
  using V = std::vector<Interval>;
  EXPECT_EQ(C("id = 7", "id"), (V{{P("INT64", "7"), P("INT64", "7")}}));
  EXPECT_EQ(C("id >= 7 AND id < 20", "id"), (V{{P("INT64", "7"), P("INT64", "20")}}));
  EXPECT_EQ(C("id > 7", "id"), (V{{P("INT64", "7"), kRoot}}));
  EXPECT_EQ(C("NOT (id >= 7)", "id"), (V{{1, P("INT64", "7")}}));
  EXPECT_EQ(C("id IN (1, 100)", "id"),
            (V{{P("INT64", "1"), P("INT64", "1")}, {P("INT64", "100"), P("INT64", "100")}}));
  EXPECT_EQ(C("id < 3 OR id > 100", "id"), (V{{1, kRoot}}));  // a union is one hull
  EXPECT_EQ(C("id = 5 AND name = 'x'", "name"), (V{{P("VARCHAR", "x"), P("VARCHAR", "x")}}));
  EXPECT_EQ(C("s.a = 3", "s.a"), (V{{P("INT32", "3"), P("INT32", "3")}}));
  EXPECT_EQ(C("id = 5 AND id = 6", "id"), V{});  // nothing can match
  // Not confined: another column, an OR reaching past the column, a null test, NaN.
  EXPECT_FALSE(C("name = 'x'", "id"));
  EXPECT_FALSE(C("id = 5 OR name = 'x'", "id"));
  EXPECT_FALSE(C("id = 5 OR id IS NULL", "id"));
  EXPECT_FALSE(C("NOT (id IS NOT NULL) OR id = 3", "id"));
  EXPECT_FALSE(C("id IS NOT NULL AND id = 3", "id"));
  EXPECT_FALSE(C("x = 'NaN'", "x"));
  EXPECT_FALSE(C("id <> 5", "id"));
  // More points than are worth asking one by one: their hull.
  EXPECT_EQ(C("id IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18)", "id"),
            (V{{P("INT64", "1"), P("INT64", "18")}}));
}

}  // namespace
}  // namespace tarn::bounds_index
