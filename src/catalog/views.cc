// Views (V1; docs/design/views.md): SQL stored verbatim with its dialect, versioned, sharing
// its collection's namespace with the datasets. The tables and statements are views_store's.
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/views_store.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace catalog_internal {

Status ViewNotFound(const DatasetName& n) {
  return Status::Of(codes::kViewNotFound, "view '" + n.ToString() + "' does not exist")
      .WithField("view", n.ToString());
}

Status CheckNoViewNamed(Transaction& tx, int64_t collection_id, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(auto view, views_store::FindView(tx, collection_id, n.dataset));
  if (!view || view->kind != views_store::kKindView) return Status::OK();
  return Status::Of(codes::kViewExists, "a view named '" + n.ToString() + "' exists")
      .WithField("view", n.ToString());
}

}  // namespace catalog_internal

namespace {

// The plain view `n` with its current statement (or statement `version`); view_not_found
// for a missing one or a materialized view's definition.
Result<views_store::ViewRow> LoadView(Transaction& tx, const DatasetName& n,
                                      std::optional<int64_t> version) {
  TARN_ASSIGN_OR_RETURN(int64_t coll, CollectionId(tx, CollectionName{n.workspace, n.collection}));
  TARN_ASSIGN_OR_RETURN(auto view, views_store::FindView(tx, coll, n.dataset));
  if (!view || view->kind != views_store::kKindView) return ViewNotFound(n);
  view->info.name = n;
  const int64_t want = version.value_or(view->info.current.version);
  TARN_ASSIGN_OR_RETURN(auto v, views_store::LoadVersion(tx, view->id, want));
  if (!v) {
    return Status::Of(codes::kViewVersionNotFound,
                      "view '" + n.ToString() + "' has no version " + std::to_string(want))
        .WithField("view", n.ToString())
        .WithField("version", std::to_string(want));
  }
  view->info.current = std::move(*v);
  return std::move(*view);
}

}  // namespace

Result<ViewInfo> Catalog::DoCreateView(std::string_view qualified, const ViewDefinition& def,
                                       bool replace) {
  return CreateView(qualified, def, replace, actor());
}

Result<ViewInfo> Catalog::CreateView(std::string_view qualified, const ViewDefinition& def,
                                     bool replace, std::string_view author) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateViewDefinition(def));
  if (author.empty()) return Status::Of(codes::kAuthorRequired, "a view needs an author");
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t coll,
                          CollectionId(tx, CollectionName{n.workspace, n.collection}));
    const int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(bool dataset, views_store::LiveDatasetNamed(tx, coll, n.dataset));
    if (dataset) {
      return Status::Of(codes::kDatasetExists, "a dataset named '" + n.ToString() +
                                                   "' exists; views and datasets share names")
          .WithField("dataset", n.ToString());
    }
    TARN_ASSIGN_OR_RETURN(auto existing, views_store::FindView(tx, coll, n.dataset));
    if (!existing) {
      TARN_ASSIGN_OR_RETURN(int64_t id,
                            views_store::InsertView(tx, coll, n.dataset, views_store::kKindView,
                                                    std::nullopt, author, now));
      return views_store::InsertVersion(tx, id, 1, def, author, now);
    }
    if (existing->kind != views_store::kKindView) {
      // A materialized view's definition: its dataset has the name (checked above unless the
      // dataset was dropped underneath, which removes the definition too).
      return Status::Of(codes::kDatasetExists,
                        "a materialized view named '" + n.ToString() + "' exists")
          .WithField("dataset", n.ToString());
    }
    if (!replace) {
      return Status::Of(codes::kViewExists, "view '" + n.ToString() + "' already exists")
          .WithField("view", n.ToString());
    }
    return views_store::InsertVersion(tx, existing->id, existing->info.current.version + 1, def,
                                      author, now);
  }));
  return GetView(qualified);
}

Result<ViewInfo> Catalog::DoGetView(std::string_view qualified, std::optional<int64_t> version) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  ViewInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto view, LoadView(tx, n, version));
        out = std::move(view.info);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<std::vector<ViewInfo>> Catalog::ListViews(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(auto cn, ParseCollectionName(collection));
  std::vector<ViewInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(int64_t coll, CollectionId(tx, cn));
        TARN_ASSIGN_OR_RETURN(out, views_store::ListViews(tx, coll, views_store::kKindView));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<std::vector<ViewVersion>> Catalog::ListViewVersions(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  std::vector<ViewVersion> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto view, LoadView(tx, n, std::nullopt));
        TARN_ASSIGN_OR_RETURN(out, views_store::ListVersions(tx, view.id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DropView(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto view, LoadView(tx, n, std::nullopt));
    return views_store::DeleteView(tx, view.id);
  });
}

Status Catalog::RecordViewRun(std::string_view qualified, int64_t row_count, double seconds) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (row_count < 0 || !(seconds >= 0) || seconds > 1e9) {
    return Status::InvalidArgument("a view run needs a row count >= 0 and seconds in [0, 1e9]");
  }
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto view, LoadView(tx, n, std::nullopt));
    return views_store::RecordRun(tx, view.id, clock_->NowMicros(), row_count,
                                  static_cast<int64_t>(seconds * 1e6 + 0.5));
  });
}

}  // namespace tarn
