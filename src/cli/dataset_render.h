// JSON and text shapes of datasets, snapshots, data files and change sets, as the dataset
// commands print them (dataset_commands.cc). Keys are stable: scripts parse them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "tarn/status.h"

namespace tarn::cli {

// {"name","workspace","collection","dataset","uuid","description","properties","schema_id",
//  "schema":[{"id","name","type","nullable",...}],"last_field_id","partition":{"spec_id",
//  "text","fields":[...]},"sort_order":{"text","fields":[...]},"current_snapshot_id",
//  "next_row_id","total_files","total_records","total_bytes","expired_through","created_at",
//  "updated_at"}
nlohmann::json DatasetJson(const DatasetInfo& ds);

// Every field of SnapshotInfo; times as RFC 3339, the receipt as an object.
nlohmann::json SnapshotJson(const SnapshotInfo& s);

// One data file: {"path","format","records","bytes","spec_id","partition":{name:value},
//  "first_row_id","last_row_id","deleted_rows","added_snapshot_id","columns":{name:{"field_id",
//  "values","nulls","nans","lower","upper"}}}. Bounds are decoded with `schema` (the snapshot's)
// and rendered like scan rows (numbers as numbers, times as strings); partition values keep
// their canonical text. Partition field names come from `spec` when the file was written under
// it, else the keys are the 0-based positions.
nlohmann::json FileJson(const DataFile& f, int64_t deleted_rows, const Schema& schema,
                        const PartitionSpec& spec);

// "id_bucket=3/ts_month=654" (or positions when the spec is not the file's).
std::string PartitionText(const DataFile& f, const PartitionSpec& spec);

// {"min":..,"max":..} text of the bounds of one column, "" when absent.
std::string BoundText(const DataType& type, const std::optional<std::string>& bytes);

nlohmann::json ChangeSetJson(const ChangeSet& c);

// Short one-line description of a commit: "snapshot 3 (append): 2 files, 10 rows; dataset now
// 4 files, 20 rows".
std::string SnapshotLine(const SnapshotInfo& s);

}  // namespace tarn::cli
