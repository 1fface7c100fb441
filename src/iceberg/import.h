// Reading an existing Iceberg table back into tarn's vocabulary: the pure half of
// `tarn dataset register w.c.d --iceberg-metadata URI` (docs/design/iceberg.md "Import"). The
// table metadata JSON, the current snapshot's manifest list, its manifests and its position
// delete files, each handed in as bytes the caller fetched; no catalog, no object store.
//
// Every byte read here comes from outside and is hostile until read: nothing throws, nothing
// crashes, everything is bounded (JSON nesting, Avro blocks, Parquet rows). Errors:
//  - kCorruption: bytes that are not what the Iceberg spec says: JSON that does not parse, a
//    required field missing or of the wrong type, Avro or Parquet that does not decode, an id
//    that names nothing, a manifest that contradicts its manifest list.
//  - kInvalidArgument: a valid table tarn cannot hold, named (the column and its Iceberg type,
//    the partition field, the file): types with no tarn form (fixed(L), geometry, geography,
//    unknown, a name that is no Iceberg type), format version 4, a column with an initial
//    default, multi-argument or unknown transforms, a live data or position delete file that is
//    not Parquet, a v1 snapshot without a manifest list. The catalog reports these as
//    iceberg_unsupported with the dataset (sdk/error_codes.h, which this module sits below).
//  - kTooLarge: a deflate block of a manifest past the Avro reader's limit, a position delete
//    file of more positions than asked for.
// Column names are not checked against tarn's name rule here: creating the dataset does that.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iceberg/manifest.h"
#include "iceberg/schema.h"
#include "tarn/data_type.h"
#include "tarn/partition.h"
#include "tarn/status.h"

namespace tarn::iceberg {

// The format versions read: 1 (every v1 table has field ids in its schema; a v1 table whose
// schema lacks one is refused by name), 2 and 3. Version 4 (relative paths) is refused.
inline constexpr int kMinImportFormatVersion = 1;
inline constexpr int kMaxImportFormatVersion = 3;

// Nested types deeper than this (struct, list and map levels) are refused: tarn's Parquet writer
// writes 32 levels.
inline constexpr int kMaxImportNesting = 32;

// The snapshot a table's `current-snapshot-id` names.
struct ImportedSnapshot {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;  // 0 for a v1 table
  int64_t timestamp_ms = 0;
  std::string manifest_list;  // the location of its manifest list, as written
};

// An Iceberg table as tarn can hold it.
struct ImportedTable {
  int format_version = 2;
  std::string table_uuid;  // empty only for a v1 table that has none
  std::string location;
  int32_t last_column_id = 0;
  // The current schema with Iceberg's field ids on every field (struct members, list elements,
  // map keys and values: DataType's nested fields), and its id.
  Schema schema;
  int32_t schema_id = 0;
  // Every partition spec the table lists (a v1 table's one `partition-spec`: id 0, field ids
  // from 1000 when it has none), and the default one's id. The default spec is checked against
  // `schema` (every source column there, every transform applies); the others are checked when
  // a manifest of theirs is read (ReadManifest).
  std::vector<PartitionSpec> specs;
  int32_t default_spec_id = 0;
  // nullopt for a table without a current snapshot (none, or `current-snapshot-id` -1).
  std::optional<ImportedSnapshot> current_snapshot;
  std::map<std::string, std::string> properties;

  // The spec with `spec_id`, or nullptr.
  const PartitionSpec* FindSpec(int32_t spec_id) const;
  // The default spec (always listed: ParseTableMetadata checks it).
  const PartitionSpec& default_spec() const { return *FindSpec(default_spec_id); }
};

// Parses a table metadata file (vN.metadata.json; not gzip-compressed: the caller inflates a
// .gz.metadata.json). The current schema is `schemas` + `current-schema-id` (v1: `schema`), the
// current snapshot `current-snapshot-id` (else the `main` branch of `refs`). Other schemas,
// sort orders, refs and logs are not read.
Result<ImportedTable> ParseTableMetadata(std::string_view json);

// An Iceberg schema JSON ({"type":"struct","fields":[...]}, the `schema` header of a manifest or
// one of `schemas`) as a tarn schema. Iceberg -> tarn: boolean BOOLEAN, int INT32, long INT64,
// float FLOAT32, double FLOAT64, decimal(P,S) DECIMAL(P,S), date DATE, time TIME,
// timestamp(tz) TIMESTAMP(TZ)[us], timestamp(tz)_ns TIMESTAMP(TZ)[ns], string VARCHAR, uuid
// UUID, binary BLOB, variant VARIANT (top-level only, as tarn holds it), struct/list/map
// STRUCT/ARRAY/MAP with their ids; `required` is NOT NULL. Type names are read as Java reads
// them (any case, spaces around a decimal's parameters).
// Errors: kInvalidArgument for the types above, a field without an id, a non-null
// `initial-default` (tarn would read null where Iceberg readers see the default), an empty
// struct, struct members whose names differ only in case, nesting past kMaxImportNesting;
// kCorruption for JSON of the wrong shape and repeated field ids.
Result<Schema> ImportSchema(const Json& schema);

// Reads a manifest list (snap-*.avro): its manifests in file order, fields found by their
// field ids whatever the records are named, other fields ignored. What v1 lists lack reads as
// the spec's defaults: content data, sequence numbers 0, file and row counts 0 (v1 says nothing
// by them: read every manifest).
Result<std::vector<ManifestFile>> ReadManifestList(std::string bytes);

// Reads one manifest of the list: every entry in file order, DELETED ones included (the caller
// skips them: they are history, not the snapshot's files). `manifest` is its manifest list entry
// (what null fields inherit: snapshot id, sequence numbers of ADDED entries, v3 first row ids as
// Java assigns them), `spec` the table's spec of manifest.partition_spec_id and `schema` the
// current schema, in which the spec's source columns give the partition values' types.
// Each entry:
//  - `content` 0 data, 1 position deletes, 2 equality deletes: equality delete entries are
//    returned as they are, for the caller to refuse by path;
//  - `partition` in tarn's canonical text of each transform's result type (what
//    table/partition.h's PartitionValues hold; the inverse of PartitionAvroValue), null for a
//    void field;
//  - `stats` by field id ascending: value, null and NaN counts and the bounds as Iceberg's
//    single-value bytes (tarn's own encoding), for every field id the maps name (the caller
//    keeps those of its schema). A field whose value or null count is missing gets both counts 0
//    (tarn's "counts unknown", which never prunes);
//  - sequence numbers 0 in v1 manifests; `sort_order_id` null for delete files.
// Refused (kInvalidArgument, naming the file): a live (not DELETED) data or position delete file
// whose format is not Parquet (Avro, ORC, Puffin deletion vectors). A spec whose source column
// is not in `schema`, or whose transform does not apply to it, is kInvalidArgument too.
Result<std::vector<ManifestEntry>> ReadManifest(std::string bytes, const ManifestFile& manifest,
                                                const PartitionSpec& spec, const Schema& schema);

// The most positions ReadPositionDeletes reads by default (8 bytes each in memory).
inline constexpr uint64_t kMaxImportPositions = uint64_t{1} << 27;

// Reads a Parquet position delete file (the columns with field ids kDeleteFilePathFieldId and
// kDeletePosFieldId of position_deletes.h; a `row` column or any other is ignored): the deleted
// positions of each data file it names, sorted and unique. kCorruption for a file without those
// columns, of other types, with a null or negative value; kTooLarge past `max_positions` rows
// (checked against the footer before reading).
Result<std::map<std::string, std::vector<uint64_t>>> ReadPositionDeletes(
    std::string bytes, uint64_t max_positions = kMaxImportPositions);

}  // namespace tarn::iceberg
