// Deferred statistics (issue 20; docs/design/maintenance.md "Deferred statistics"): files
// registered with their statistics pending get them from their Parquet footers. Hydration
// changes no snapshot: a file's rows and row ids are what they were, only what planning knows
// about them grows. Every data_files row of the path is filled (a rollback copies rows), and
// only while still pending, so two hydrations racing write the same statistics once.
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/store.h"
#include "common/discard.h"
#include "datafile/writer.h"
#include "metastore/metastore.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

Result<StatsHydrationResult> Catalog::HydrateStats(std::string_view qualified,
                                                   const StatsHydrationOptions& options) {
  if (options.limit < 0) {
    return Status::InvalidArgument("a hydration's limit is 0 (every file) or more")
        .WithField("field", "limit");
  }
  TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(qualified));
  StatsHydrationResult out;
  out.dataset = ds.name.ToString();
  std::vector<catalog_store::PendingStatsFile> pending;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        pending.clear();
        TARN_ASSIGN_OR_RETURN(pending, catalog_store::PendingStatsFiles(tx, ds.id, options.limit));
        return Status::OK();
      },
      TxMode::kReadOnly));

  // Footers are read outside any transaction; each file's statistics are written as they come,
  // so a long hydration keeps what it did when it stops part-way.
  static const PartitionSpec kNoPartitions;  // the registered partition values stay
  for (const catalog_store::PendingStatsFile& f : pending) {
    Result<DataFile> read = DataFileFromFooter(*warehouse_, f.path, ds.schema, kNoPartitions);
    Status st = read.status();
    if (read.ok() &&
        (read->record_count != f.record_count || read->file_size_bytes != f.file_size_bytes)) {
      st = Status::Of(codes::kStatsMismatch,
                      "data file '" + f.path + "' holds " + std::to_string(read->record_count) +
                          " rows in " + std::to_string(read->file_size_bytes) +
                          " bytes; it was registered with " + std::to_string(f.record_count) +
                          " rows in " + std::to_string(f.file_size_bytes) + " bytes")
               .WithField("path", f.path);
    }
    if (!st.ok()) {
      out.failures.push_back({f.path, st.code(), st.message()});
      continue;
    }
    int64_t updated = 0;
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(updated,
                            catalog_store::FillPendingStats(tx, ds.id, f.path, read->columns));
      if (updated == 0) return Status::OK();
      // The bounds index held these rows as "unknown": now it can hold their bounds.
      TARN_ASSIGN_OR_RETURN(auto fields, catalog_store::BoundsFields(tx, ds.id));
      return catalog_store::RebuildFileBounds(tx, ds.id, f.path,
                                              catalog_store::BoundsFieldsIn(fields, ds.schema));
    }));
    if (updated > 0) ++out.files_hydrated;
  }
  // The current manifest (manifest.on_commit) told of no statistics for these files: it is
  // written again. A failure is alerted (manifest_write_failed); the hydration stands.
  if (out.files_hydrated > 0)
    DiscardError(RefreshManifest(out.dataset, /*rewrite=*/true).status(),
                 "rewriting the manifest after hydration");
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out.files_pending, catalog_store::CountPendingStats(tx, ds.id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn
