// Iceberg manifests and manifest lists (Avro object container files) for tarn snapshots: what an
// Iceberg reader opens after the table metadata (docs/design/iceberg.md). Format versions 2 and
// 3, with the spec's field ids on every field (Iceberg spec, "Manifests" and "Manifest Lists").
// Pure: the caller hands a sink for the bytes and the entries; no catalog, no object store.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "avro/container.h"
#include "common/io.h"
#include "tarn/data_file.h"
#include "tarn/data_type.h"
#include "tarn/partition.h"
#include "tarn/status.h"

namespace tarn::iceberg {

enum class EntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };
// A manifest holds data files or delete files, never both.
enum class ManifestContent : int32_t { kData = 0, kDeletes = 1 };
// data_file.content: 0 data, 1 position deletes (2 equality deletes: never written by tarn).
inline constexpr int32_t kContentData = 0;
inline constexpr int32_t kContentPositionDeletes = 1;

// One manifest entry: a data file (or position delete file) with its status in the snapshot.
// Sequence numbers are always written explicitly (never inherited), which every reader accepts.
struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  int64_t snapshot_id = 0;           // the snapshot that added (or deleted) the file
  int64_t sequence_number = 0;       // data sequence number
  int64_t file_sequence_number = 0;  // the sequence number of the snapshot that added the file
  int32_t content = kContentData;
  std::string file_path;  // the URI a reader opens
  std::string file_format = "PARQUET";
  // One value per field of the manifest's partition spec, tarn's canonical text of the
  // transformed value (table/partition.h PartitionValues), nullopt for null.
  PartitionValues partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  // Counts and bounds (Iceberg's single-value encoding) by field id. Only the fields listed in
  // ManifestOptions::stats_field_ids are written; the others are dropped.
  std::vector<ColumnStats> stats;
  std::optional<int32_t> sort_order_id;
  // Format version 3 only (ignored in 2): row lineage of a data file.
  std::optional<int64_t> first_row_id;
};

// What a manifest is written for.
struct ManifestOptions {
  int format_version = 2;
  ManifestContent content = ManifestContent::kData;
  // The table schema the manifest's metadata names ("schema", "schema-id"): the Iceberg schema
  // JSON text (iceberg/schema.h SchemaJson) and its id.
  std::string schema_json;
  int32_t schema_id = 0;
  // The partition spec of every entry, and the tarn schema its source ids resolve in (the
  // partition tuple's types are the transforms' result types over the source columns).
  PartitionSpec spec;
  Schema source_schema;
  // The field ids whose statistics entries carry, ascending (the columns the reader sees).
  std::vector<int32_t> stats_field_ids;
  // The snapshot writing the manifest (manifest list's added_snapshot_id) and its sequence
  // number (ManifestFile::sequence_number, and its min_sequence_number when no entry is live).
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  // Avro container options (codec deflate by default, as Iceberg's writers).
  avro::WriterOptions avro;
  ManifestOptions() { avro.codec = avro::Codec::kDeflate; }
};

// A partition field's summary over a manifest's entries (manifest list field 507).
struct FieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;  // for float and double partition values
  std::optional<std::string> lower;  // single-value encoding of the smallest non-null value
  std::optional<std::string> upper;
};

// A manifest as the manifest list names it (manifest_file, fields 500..520).
struct ManifestFile {
  std::string manifest_path;  // set by the caller once it knows the URI
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  int64_t sequence_number = 0;      // of the snapshot that wrote the manifest
  int64_t min_sequence_number = 0;  // smallest data sequence number of its live entries
  int64_t added_snapshot_id = 0;
  int32_t added_files_count = 0;
  int32_t existing_files_count = 0;
  int32_t deleted_files_count = 0;
  int64_t added_rows_count = 0;
  int64_t existing_rows_count = 0;
  int64_t deleted_rows_count = 0;
  std::vector<FieldSummary> partitions;  // one per spec field
  std::optional<int64_t> first_row_id;   // v3
};

// Writes one manifest: the Avro schema of manifest_entry for the spec's partition tuple, the
// header metadata the spec requires ("schema", "schema-id", "partition-spec",
// "partition-spec-id", "format-version", "content"), entries streamed to the sink.
class ManifestWriter {
 public:
  // Errors: kInvalidArgument for a format version outside 2..3, a spec field whose source is not
  // in source_schema or whose transform does not apply.
  static Result<std::unique_ptr<ManifestWriter>> Open(std::unique_ptr<OutputStream> sink,
                                                      ManifestOptions options);
  // kInvalidArgument (nothing added) for a partition tuple of the wrong width, a partition
  // value that does not parse as its result type, a content that does not match the manifest's.
  Status Add(const ManifestEntry& entry);
  // Closes the sink; the summary of what was written (manifest_path left empty).
  Result<ManifestFile> Finish();

  ~ManifestWriter();

 private:
  struct State;
  explicit ManifestWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// What a manifest list is written for.
struct ManifestListOptions {
  int format_version = 2;
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  std::optional<int64_t> first_row_id;  // v3
  avro::WriterOptions avro;
  ManifestListOptions() { avro.codec = avro::Codec::kDeflate; }
};

// Writes a manifest list (header metadata "snapshot-id", "parent-snapshot-id",
// "sequence-number", "format-version", and v3 "first-row-id") naming `manifests`, and closes
// the sink. In v3 a data manifest without a first_row_id is given one, as the spec requires:
// the snapshot's first_row_id, then each such manifest's plus its added and existing rows.
// kInvalidArgument for a manifest without a path, a bad format version, or v3 without the
// snapshot's first_row_id.
Status WriteManifestList(std::unique_ptr<OutputStream> sink, const ManifestListOptions& options,
                         const std::vector<ManifestFile>& manifests);

// The Avro value of a partition value (tarn's canonical text `text` of a value of `type`, the
// transform's result type) as Iceberg's manifests store it: int for INT8..INT32 and DATE, long
// for INT64, TIME and TIMESTAMP (microseconds), string, bytes, fixed(16) for UUID, fixed of the
// minimum bytes for DECIMAL(p,s), boolean, float, double. kInvalidArgument when the text does
// not parse or the type has no Iceberg partition form.
Result<avro::Value> PartitionAvroValue(const DataType& type, const std::string& text);

}  // namespace tarn::iceberg
