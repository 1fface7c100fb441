#include "iceberg/metadata.h"

#include <gtest/gtest.h>

#include <set>

namespace tarn::iceberg {
namespace {

Schema Numbered(const std::string& text) {
  Schema s = *Schema::Parse(text);
  int32_t id = 0;
  for (Field& f : s.fields) f.field_id = ++id;
  return s;
}

// A table of two snapshots, partitioned by day(ts), sorted by id, with a tag on the first.
TableMetadata Sample(int version = 2) {
  TableMetadata m;
  m.format_version = version;
  m.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  m.location = "s3://bucket/datasets/9c12d441";
  m.last_updated_ms = 1700000000123;
  m.last_column_id = 3;
  m.schemas = {{0, Numbered("id INT64 NOT NULL, ts TIMESTAMPTZ[us]")},
               {1, Numbered("id INT64 NOT NULL, ts TIMESTAMPTZ[us], n UINT32")}};
  m.current_schema_id = 1;
  PartitionSpec spec = *PartitionSpec::Parse("day(ts)", m.schemas[1].second);
  m.specs = {PartitionSpec{}, spec};
  m.specs[1].spec_id = 1;
  m.default_spec_id = 1;
  m.sort_order = *SortOrder::Parse("id", m.schemas[1].second);
  m.properties = {{"owner", "data-eng"}};
  for (int64_t id : {1, 2}) {
    SnapshotEntry s;
    s.snapshot_id = id;
    if (id > 1) s.parent_snapshot_id = id - 1;
    s.sequence_number = id;
    s.timestamp_ms = 1700000000000 + id;
    s.manifest_list = m.location + "/metadata/snap-" + std::to_string(id) + ".avro";
    s.summary = {{"operation", "append"}};
    s.schema_id = static_cast<int32_t>(id - 1);
    s.first_row_id = (id - 1) * 10;
    s.added_rows = 10;
    m.snapshots.push_back(s);
  }
  m.current_snapshot_id = 2;
  m.tags = {{"first", 1}};
  m.next_row_id = 20;
  return m;
}

TEST(IcebergMetadata, Version2HasEveryRequiredField) {
  std::vector<OmittedColumn> omitted;
  auto j = TableMetadataJson(Sample(), &omitted);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  // The fields the spec's table-metadata table marks required in v2.
  for (const char* k :
       {"format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms",
        "last-column-id", "schemas", "current-schema-id", "partition-specs", "default-spec-id",
        "last-partition-id", "sort-orders", "default-sort-order-id"}) {
    EXPECT_TRUE(j->contains(k)) << k;
  }
  EXPECT_EQ((*j)["format-version"], 2);
  EXPECT_FALSE(j->contains("next-row-id"));
  EXPECT_EQ((*j)["last-sequence-number"], 2);
  EXPECT_EQ((*j)["current-snapshot-id"], 2);
  EXPECT_EQ((*j)["last-partition-id"], 1000);
  EXPECT_EQ((*j)["partition-specs"][1]["fields"][0]["transform"], "day");
  EXPECT_EQ((*j)["default-sort-order-id"], 1);
  EXPECT_EQ((*j)["sort-orders"].size(), 2u);
  EXPECT_EQ((*j)["sort-orders"][0]["order-id"], 0);
  // Snapshots: required fields of a v2 snapshot, parents, no row lineage.
  const Json& s2 = (*j)["snapshots"][1];
  for (const char* k :
       {"snapshot-id", "sequence-number", "timestamp-ms", "manifest-list", "summary"}) {
    EXPECT_TRUE(s2.contains(k)) << k;
  }
  EXPECT_EQ(s2["parent-snapshot-id"], 1);
  EXPECT_FALSE((*j)["snapshots"][0].contains("parent-snapshot-id"));
  EXPECT_FALSE(s2.contains("first-row-id"));
  EXPECT_EQ(s2["summary"]["operation"], "append");
  EXPECT_EQ((*j)["refs"]["main"], (Json{{"snapshot-id", 2}, {"type", "branch"}}));
  EXPECT_EQ((*j)["refs"]["first"], (Json{{"snapshot-id", 1}, {"type", "tag"}}));
  EXPECT_EQ((*j)["snapshot-log"].size(), 2u);
  // The UINT32 column is left out, once, and named in the properties.
  ASSERT_EQ(omitted.size(), 1u);
  EXPECT_EQ(omitted[0].path, "n");
  EXPECT_EQ((*j)["properties"]["tarn.iceberg.omitted-columns"], "n");
  EXPECT_EQ((*j)["properties"]["owner"], "data-eng");
  EXPECT_EQ((*j)["schemas"][1]["fields"].size(), 2u);
}

TEST(IcebergMetadata, Version3AddsRowLineage) {
  std::vector<OmittedColumn> omitted;
  auto j = TableMetadataJson(Sample(3), &omitted);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ((*j)["format-version"], 3);
  EXPECT_EQ((*j)["next-row-id"], 20);
  EXPECT_EQ((*j)["snapshots"][1]["first-row-id"], 10);
  EXPECT_EQ((*j)["snapshots"][1]["added-rows"], 10);
  TableMetadata m = Sample(3);
  m.snapshots[0].first_row_id.reset();
  EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
}

TEST(IcebergMetadata, ATableWithoutSnapshotsHasNoCurrentOne) {
  TableMetadata m = Sample();
  m.snapshots.clear();
  m.tags.clear();
  m.current_snapshot_id.reset();
  std::vector<OmittedColumn> omitted;
  auto j = TableMetadataJson(m, &omitted);
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_FALSE(j->contains("current-snapshot-id"));
  EXPECT_EQ((*j)["last-sequence-number"], 0);
  EXPECT_TRUE((*j)["refs"].empty());
}

TEST(IcebergMetadata, RefusesWhatAReaderCouldNotFollow) {
  std::vector<OmittedColumn> omitted;
  {
    TableMetadata m = Sample();
    m.current_schema_id = 5;
    EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
  }
  {
    TableMetadata m = Sample();
    m.default_spec_id = 9;
    EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
  }
  {
    TableMetadata m = Sample();
    m.current_snapshot_id = 7;
    EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
  }
  {
    TableMetadata m = Sample();
    m.tags["main"] = 1;
    EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
  }
  {
    TableMetadata m = Sample();
    m.tags["gone"] = 9;
    EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
  }
  {
    TableMetadata m = Sample();
    m.snapshots.push_back(m.snapshots[0]);
    EXPECT_FALSE(TableMetadataJson(m, &omitted).ok());
  }
  {
    // Partitioned by a column no Iceberg reader sees: the partition values would be unreadable.
    TableMetadata m = Sample();
    m.specs[1] = *PartitionSpec::Parse("n", m.schemas[1].second, 1);
    auto r = TableMetadataJson(m, &omitted);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("would not see"), std::string::npos);
  }
  {
    // Sorted by such a column: the table reads as unsorted.
    TableMetadata m = Sample();
    m.sort_order = *SortOrder::Parse("n", m.schemas[1].second);
    auto r = TableMetadataJson(m, &omitted);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)["default-sort-order-id"], 0);
    EXPECT_EQ((*r)["sort-orders"].size(), 1u);
  }
}

TEST(IcebergMetadata, SummariesNameIcebergsOperations) {
  EXPECT_EQ(SummaryOperation("append"), "append");
  EXPECT_EQ(SummaryOperation("add_files"), "append");
  EXPECT_EQ(SummaryOperation("delete_rows"), "delete");  // tarn's operation names (sdk)
  EXPECT_EQ(SummaryOperation("delete_files"), "delete");
  EXPECT_EQ(SummaryOperation("compact"), "replace");
  for (const char* op : {"overwrite", "merge", "truncate_and_add_files", "rollback"}) {
    EXPECT_EQ(SummaryOperation(op), "overwrite") << op;
  }
  SnapshotInfo s;
  s.operation = "merge";
  s.added_files = 2;
  s.total_records = 40;
  auto sum = SnapshotSummary(s);
  EXPECT_EQ(sum["operation"], "overwrite");
  EXPECT_EQ(sum["added-data-files"], "2");
  EXPECT_EQ(sum["total-records"], "40");
  EXPECT_EQ(sum["tarn.operation"], "merge");
}

}  // namespace
}  // namespace tarn::iceberg
