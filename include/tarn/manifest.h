// Manifest export (docs/features.md C12; docs/design/maintenance.md "Manifest export"): one
// Parquet file per snapshot with a row for each of its live data files, for engines that plan
// from files. Client::ExportManifest writes it (`tarn manifest export`); a dataset with the
// property manifest.on_commit=true gets one in the warehouse after every commit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tarn {

// The dataset property that writes the manifest of every new snapshot under the dataset's
// prefix (ManifestKey). "true" (any case) turns it on; unset or anything else is off.
inline constexpr char kManifestOnCommitProperty[] = "manifest.on_commit";

// The format version a manifest carries in its footer (key tarn.manifest.version).
inline constexpr int kManifestFormatVersion = 2;  // 2: column stats_state

// The warehouse key of the manifest manifest.on_commit writes for a snapshot:
// "datasets/<dataset uuid>/manifests/<snapshot id>.parquet".
inline std::string ManifestKey(std::string_view dataset_uuid, int64_t snapshot_id) {
  return "datasets/" + std::string(dataset_uuid) + "/manifests/" + std::to_string(snapshot_id) +
         ".parquet";
}

// What an export wrote.
struct ManifestInfo {
  std::string dataset;  // w.c.d
  std::string dataset_uuid;
  int64_t snapshot_id = 0;
  int64_t files = 0;  // rows: the snapshot's live data files
  int64_t bytes = 0;  // the size of the Parquet file
};

}  // namespace tarn
