// The tables of views (migration 7: `views`, `view_versions`) and every statement on them.
// Internal to the catalog module; views.cc is the domain over them (docs/design/views.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metastore/metastore.h"
#include "tarn/view.h"

namespace tarn::views_store {

// Migration 7, contributed to SchemaMigrations().
const std::vector<Migration>& ViewTables();

// What a views row is: a plain view, or the definition of a materialized view (whose rows
// and snapshots are its dataset's, `dataset_id`).
inline constexpr char kKindView[] = "view";
inline constexpr char kKindMaterialized[] = "materialized_view";

struct ViewRow {
  int64_t id = 0;
  std::string kind;
  std::optional<int64_t> dataset_id;
  ViewInfo info;  // without `current` (LoadVersion fills it)
};

// The view `name` of the collection, of any kind; nullopt when there is none.
Result<std::optional<ViewRow>> FindView(Transaction& tx, int64_t collection_id,
                                        std::string_view name);
// Whether the collection has a live dataset of that name.
Result<bool> LiveDatasetNamed(Transaction& tx, int64_t collection_id, std::string_view name);
// How many views (of any kind) the collection holds.
Result<int64_t> CountViews(Transaction& tx, int64_t collection_id);

// Inserts a view row with version 1 and returns its id (the caller checked the name is free).
Result<int64_t> InsertView(Transaction& tx, int64_t collection_id, std::string_view name,
                           std::string_view kind, std::optional<int64_t> dataset_id,
                           std::string_view author, int64_t now_us);
// Stores statement `version` of the view and makes it the current one.
Status InsertVersion(Transaction& tx, int64_t view_id, int64_t version, const ViewDefinition& def,
                     std::string_view author, int64_t now_us);
// Statement `version` of a view; nullopt when it has no such version.
Result<std::optional<ViewVersion>> LoadVersion(Transaction& tx, int64_t view_id, int64_t version);
// Every version of a view, oldest first.
Result<std::vector<ViewVersion>> ListVersions(Transaction& tx, int64_t view_id);
// The views of a collection of `kind`, by name, each with its current statement.
Result<std::vector<ViewInfo>> ListViews(Transaction& tx, int64_t collection_id,
                                        std::string_view kind);
// Deletes a view and its versions.
Status DeleteView(Transaction& tx, int64_t view_id);
// Records a run: when, the rows and the wall time.
Status RecordRun(Transaction& tx, int64_t view_id, int64_t at_us, int64_t row_count,
                 int64_t micros);

}  // namespace tarn::views_store
