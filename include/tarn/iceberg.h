// Iceberg interoperability (docs/design/iceberg.md): the Iceberg table metadata tarn produces
// for a dataset snapshot, on demand, so every Iceberg engine reads the dataset in place.
// Client::IcebergTable produces it (`tarn dataset iceberg`); `tarn serve`'s REST facade
// (/iceberg/v1/...) answers loadTable with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tarn/dataset.h"

namespace tarn {

// The Iceberg format version produced by default (the one every reader handles).
inline constexpr int kIcebergFormatVersion = 2;

// What to produce.
struct IcebergRequest {
  SnapshotSelector at;  // empty: the current snapshot
  // Only 2 for now (format version 3 needs Puffin deletion vectors: not yet produced).
  int format_version = kIcebergFormatVersion;
  // How the metadata names objects. Empty: by the warehouse's own URIs (file:///..., s3://...).
  // Otherwise every object is named `file_base + <dataset uuid> + "/" + <warehouse key>` (the
  // REST facade's file route over a local warehouse); each base gets its own metadata files.
  // Embedded only: a remote client's request names the facade's own route.
  std::string file_base;
};

// A column an Iceberg reader does not see, and why (docs/design/iceberg.md "Types").
struct IcebergOmittedColumn {
  std::string path;
  std::string reason;
};

// What was produced (or found produced before).
struct IcebergTableInfo {
  std::string dataset;  // w.c.d
  std::string dataset_uuid;
  std::optional<int64_t> snapshot_id;  // nullopt: the dataset has no snapshot yet
  std::string metadata_location;       // the URI of the metadata JSON file
  std::string metadata;                // the metadata JSON itself
  // Whether this call wrote the snapshot's manifests (false: they were there already).
  bool produced = false;
  // The snapshots the metadata lists (the asked one, its tags' and those produced before).
  std::vector<int64_t> snapshots;
  std::vector<IcebergOmittedColumn> omitted;
};

// Registering an existing Iceberg table as a new dataset, without copying data (the catalog
// seed's register_table): Client::RegisterIcebergTable, `tarn dataset register`.
struct IcebergRegisterRequest {
  // The table's metadata JSON: a warehouse key, or a path or URI inside the warehouse.
  std::string metadata;
  // Author and message of the snapshots the registration commits.
  CommitMeta meta;
};

struct IcebergRegisterResult {
  DatasetInfo dataset;                  // as created (its files committed)
  int64_t source_snapshot_id = 0;       // the Iceberg snapshot registered; 0: the table had none
  int64_t files = 0;                    // data files registered
  int64_t records = 0;                  // rows in them
  int64_t deleted_rows = 0;             // rows the table's position deletes removed
  std::vector<SnapshotInfo> snapshots;  // add_files, then delete_rows when there were deletes
};

}  // namespace tarn
