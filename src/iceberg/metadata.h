// Iceberg table metadata (the vN.metadata.json every Iceberg reader starts from) for a tarn
// dataset: format versions 2 and 3, the fields the spec requires of each (docs/design/iceberg.md).
// Pure: the caller gathers the dataset's schemas, specs, snapshots and tags and the locations of
// the manifest lists it wrote.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iceberg/schema.h"
#include "tarn/dataset.h"
#include "tarn/partition.h"
#include "tarn/sort_order.h"

namespace tarn::iceberg {

// One snapshot as Iceberg lists it. tarn's snapshot ids are dense and positive, so they serve
// as Iceberg's snapshot ids and (being ordered) as its sequence numbers.
struct SnapshotEntry {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;                   // its location (a URI the reader opens)
  std::map<std::string, std::string> summary;  // "operation" first among equals (required)
  int32_t schema_id = 0;
  // Format version 3 (row lineage): the first row id the snapshot assigned and how many.
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> added_rows;
};

struct TableMetadata {
  int format_version = 2;
  std::string table_uuid;
  std::string location;  // the table's base location
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<std::pair<int32_t, Schema>> schemas;  // (schema id, schema), each id once
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> specs;  // each spec id once
  int32_t default_spec_id = 0;
  SortOrder sort_order;  // the current one (order id 1, or 0 when unsorted)
  std::map<std::string, std::string> properties;
  std::vector<SnapshotEntry> snapshots;  // by snapshot id
  std::optional<int64_t> current_snapshot_id;
  std::map<std::string, int64_t> tags;  // tag name -> snapshot id
  int64_t next_row_id = 0;              // format version 3
};

// Iceberg's snapshot summary "operation" for a tarn snapshot operation: append and add_files
// are "append", delete_rows and delete_files "delete", compact "replace", every other (overwrite,
// merge, truncate_and_add_files, rollback) "overwrite".
std::string_view SummaryOperation(std::string_view tarn_operation);

// The summary of a tarn snapshot: operation, added/deleted data files, records and file sizes,
// and the totals (the spec's optional summary fields, as Iceberg's own writers name them).
std::map<std::string, std::string> SnapshotSummary(const SnapshotInfo& s);

// The table metadata JSON. Columns the format version cannot show are left out of every schema
// (appended to *omitted, once per path) and named in the property
// "tarn.iceberg.omitted-columns"; a sort order over a left-out column is dropped (the table reads
// as unsorted). Errors: kInvalidArgument for a format version outside 2..3, a missing current
// schema, spec or snapshot, duplicate ids, a partition field whose source column a reader would
// not see (the table cannot be shown: its partition values would be unreadable), a field
// without an id.
Result<Json> TableMetadataJson(const TableMetadata& m, std::vector<OmittedColumn>* omitted);

}  // namespace tarn::iceberg
