#include "catalog/catalog.h"

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "alerts/alerts.h"
#include "catalog/catalog_internal.h"
#include "catalog/commit_queue.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/store.h"
#include "catalog/views_store.h"
#include "common/io.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"

namespace tarn {

namespace {

using catalog_internal::CollectionNotFound;
using catalog_internal::DefaultAlerter;
using catalog_internal::ValidatePropertyKeys;
using catalog_internal::WorkspaceId;
using catalog_internal::WorkspaceNotFound;

// The collection's id and raw stored properties; kNotFound naming what is missing.
Result<catalog_store::StoredCollection> LoadCollectionRow(Transaction& tx,
                                                          const CollectionName& n) {
  TARN_ASSIGN_OR_RETURN(int64_t ws_id, WorkspaceId(tx, n.workspace));
  TARN_ASSIGN_OR_RETURN(auto row, catalog_store::StoredCollectionByName(tx, ws_id, n.collection));
  if (!row) return CollectionNotFound(n);
  return std::move(*row);
}

}  // namespace

Catalog::Catalog(std::unique_ptr<Metastore> metastore, std::shared_ptr<ObjectStore> warehouse,
                 std::shared_ptr<Clock> clock)
    : metastore_(std::move(metastore)),
      warehouse_(std::make_shared<catalog_internal::InliningStore>(metastore_.get(),
                                                                   std::move(warehouse))),
      clock_(clock ? std::move(clock) : Clock::Real()),
      alerter_(DefaultAlerter(metastore_.get(), clock_.get())),
      commit_queue_(std::make_unique<CommitQueue>(metastore_.get(), clock_.get(), alerter_.get())) {
}

ObjectStore& Catalog::warehouse_files() {
  return static_cast<catalog_internal::InliningStore&>(*warehouse_).files();
}

void Catalog::SetAlerter(std::shared_ptr<alerts::Alerter> alerter) {
  alerter_ = alerter ? std::move(alerter) : DefaultAlerter(metastore_.get(), clock_.get());
  commit_queue_->set_alerter(alerter_.get());
}

Catalog::~Catalog() = default;

Result<std::unique_ptr<Catalog>> Catalog::Open(std::string_view metastore_uri,
                                               std::string_view warehouse_uri,
                                               std::shared_ptr<Clock> clock) {
  TARN_ASSIGN_OR_RETURN(auto ms, Metastore::Open(metastore_uri));
  TARN_ASSIGN_OR_RETURN(auto store, OpenObjectStore(warehouse_uri));
  return std::unique_ptr<Catalog>(new Catalog(std::move(ms), std::move(store), std::move(clock)));
}

Result<std::unique_ptr<Catalog>> Catalog::Open(std::string_view metastore_uri,
                                               std::shared_ptr<ObjectStore> warehouse,
                                               std::shared_ptr<Clock> clock) {
  if (!warehouse) return Status::InvalidArgument("a catalog needs a warehouse");
  TARN_ASSIGN_OR_RETURN(auto ms, Metastore::Open(metastore_uri));
  return std::unique_ptr<Catalog>(
      new Catalog(std::move(ms), std::move(warehouse), std::move(clock)));
}

Result<std::unique_ptr<Catalog>> Catalog::OpenEmbedded(std::string_view dir,
                                                       std::shared_ptr<Clock> clock) {
  TARN_ASSIGN_OR_RETURN(auto layout, catalog_internal::EmbeddedLayout(dir));
  return Open(layout.metastore, layout.warehouse, std::move(clock));
}

namespace catalog_internal {

Result<EmbeddedPaths> EmbeddedLayout(std::string_view dir) {
  if (dir.empty()) return Status::InvalidArgument("catalog directory must not be empty");
  std::error_code ec;
  std::filesystem::path root = std::filesystem::absolute(std::filesystem::path(dir), ec);
  if (ec) return Status::IOError("catalog directory '" + std::string(dir) + "': " + ec.message());
  // The directories tarn makes are 0700 and the database 0600 (metastore: it holds the token
  // signing keys); a directory that exists already keeps its mode.
  Status made = CreateLocalDirectories((root / "warehouse").string(), FileAccess::kOwnerOnly);
  if (!made.ok()) return made.WithContext("cannot create the catalog directory");
  return EmbeddedPaths{(root / "catalog.db").string(), (root / "warehouse").string()};
}

}  // namespace catalog_internal

// ---- workspaces ----

Status Catalog::DoCreateWorkspace(std::string_view name, bool exists_ok,
                                  const PropertyMap& properties) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  TARN_RETURN_NOT_OK(ValidatePropertyKeys(properties));
  PropertyMap plain;
  std::optional<std::string_view> dp, ep;
  for (const auto& [k, v] : properties) {
    if (k == kDeletionProtection) {
      dp = v;
    } else if (k == kEgressProtection) {
      ep = v;
    } else {
      plain[k] = v;
    }
  }
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(bool created,
                          catalog_store::InsertWorkspace(tx, name, plain, dp, ep, now));
    if (!created && !exists_ok) {
      return Status::AlreadyExists("workspace '" + std::string(name) + "' already exists")
          .WithField("workspace", std::string(name));
    }
    return Status::OK();
  });
}

Result<WorkspaceInfo> Catalog::GetWorkspace(std::string_view name) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  WorkspaceInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto w, catalog_store::WorkspaceByName(tx, name));
        if (!w) return WorkspaceNotFound(name);
        out = std::move(*w);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<WorkspaceInfo> Catalog::OpenWorkspace(std::string_view name, bool create_if_missing) {
  if (create_if_missing) TARN_RETURN_NOT_OK(CreateWorkspace(name, /*exists_ok=*/true));
  return GetWorkspace(name);
}

Result<std::vector<WorkspaceInfo>> Catalog::ListWorkspaces() {
  std::vector<WorkspaceInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, catalog_store::Workspaces(tx));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

namespace {

// Loads `name`, applies `change` and writes it back, in one transaction: the one UPDATE of a
// workspace row.
Status MutateWorkspace(Metastore& ms, const Clock& clock, std::string_view name,
                       const std::function<Status(WorkspaceInfo*)>& change) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  return ms.RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto w, catalog_store::WorkspaceByName(tx, name));
    if (!w) return WorkspaceNotFound(name);
    TARN_RETURN_NOT_OK(change(&*w));
    return catalog_store::UpdateWorkspaceProperties(tx, *w, clock.NowMicros());
  });
}

// Applies `set` and `unset` to a workspace (the protection flags are columns of their own).
Status UpdateWorkspace(Metastore& ms, const Clock& clock, std::string_view name,
                       const PropertyMap& set, const std::vector<std::string>& unset) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  TARN_RETURN_NOT_OK(ValidatePropertyKeys(set));
  // SECURE's record is shaped: it is written through MarkSecure and ClearSecure only.
  const bool reserved =
      set.count(kSecureObjectsProperty) > 0 ||
      std::find(unset.begin(), unset.end(), kSecureObjectsProperty) != unset.end();
  if (reserved) {
    return Status::Of(codes::kPropertyReserved,
                      std::string("workspace property '") + kSecureObjectsProperty +
                          "' is written by `tarn workspace secure mark|clear` only")
        .WithField("property", kSecureObjectsProperty);
  }
  return MutateWorkspace(ms, clock, name, [&](WorkspaceInfo* w) {
    for (const auto& k : unset) {
      if (k == kDeletionProtection) {
        w->deletion_protection.reset();
      } else if (k == kEgressProtection) {
        w->egress_protection.reset();
      } else {
        w->properties.erase(k);
      }
    }
    for (const auto& [k, v] : set) {
      if (k == kDeletionProtection) {
        w->deletion_protection = v;
      } else if (k == kEgressProtection) {
        w->egress_protection = v;
      } else {
        w->properties[k] = v;
      }
    }
    return Status::OK();
  });
}

// Rewrites `name`'s SECURE record with `change` applied to its well-formed records.
Status UpdateSecureObjects(Metastore& ms, const Clock& clock, std::string_view name,
                           const std::function<Status(std::vector<SecureObject>*)>& change) {
  return MutateWorkspace(ms, clock, name, [&](WorkspaceInfo* w) -> Status {
    std::vector<SecureObject> objects = SecureObjectsOf(*w);
    TARN_RETURN_NOT_OK(change(&objects));
    if (objects.empty()) {
      w->properties.erase(kSecureObjectsProperty);
    } else {
      w->properties[kSecureObjectsProperty] = SecureObjectsJson(objects);
    }
    return Status::OK();
  });
}

}  // namespace

Status Catalog::MarkSecure(std::string_view workspace, std::string_view object,
                           const std::vector<std::string>& destinations, std::string_view author) {
  if (!ParseDatasetName(object).ok()) {
    return Status::InvalidArgument("a SECURE object is named workspace.collection.name, not '" +
                                   std::string(object) + "'")
        .WithField("object", std::string(object));
  }
  if (destinations.empty()) {
    return Status::InvalidArgument("name at least one destination workspace (--to)");
  }
  std::vector<std::string> to;
  for (const auto& d : destinations) {
    TARN_RETURN_NOT_OK(ValidateIdentifier("destination workspace", d));
    if (d == workspace) {
      return Status::InvalidArgument("a copy within workspace '" + d +
                                     "' is never egress: it needs no SECURE mark")
          .WithField("destination", d);
    }
    if (std::find(to.begin(), to.end(), d) == to.end()) to.push_back(d);
  }
  SecureObject mark;
  mark.object = std::string(object);
  mark.destinations = std::move(to);
  mark.author = author.empty() ? actor() : std::string(author);
  mark.marked_at_us = clock_->NowMicros();
  return UpdateSecureObjects(
      *metastore_, *clock_, workspace, [&](std::vector<SecureObject>* objects) {
        std::erase_if(*objects, [&](const SecureObject& s) { return s.object == mark.object; });
        objects->push_back(mark);
        return Status::OK();
      });
}

Status Catalog::ClearSecure(std::string_view workspace, std::string_view object) {
  return UpdateSecureObjects(
      *metastore_, *clock_, workspace, [&](std::vector<SecureObject>* objects) -> Status {
        const size_t before = objects->size();
        std::erase_if(*objects, [&](const SecureObject& s) { return s.object == object; });
        if (objects->size() == before) {
          return Status::Of(codes::kSecureObjectNotFound, "workspace '" + std::string(workspace) +
                                                              "' has no SECURE mark for '" +
                                                              std::string(object) + "'")
              .WithField("workspace", std::string(workspace))
              .WithField("object", std::string(object));
        }
        return Status::OK();
      });
}

Status Catalog::SetWorkspaceProperties(std::string_view name, const PropertyMap& set) {
  TARN_RETURN_NOT_OK(catalog_internal::ValidateRetentionSetting(set));
  return UpdateWorkspace(*metastore_, *clock_, name, set, {});
}

Status Catalog::UnsetWorkspaceProperties(std::string_view name,
                                         const std::vector<std::string>& keys) {
  return UpdateWorkspace(*metastore_, *clock_, name, {}, keys);
}

Status Catalog::DropWorkspace(std::string_view name) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", name));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto w, catalog_store::WorkspaceByName(tx, name));
    if (!w) return WorkspaceNotFound(name);
    if (w->DeletionProtected()) {
      return Status::Of(codes::kDeletionProtected, "workspace '" + std::string(name) +
                                                       "' has deletion_protection on; set "
                                                       "deletion_protection=false first")
          .WithField("workspace", std::string(name));
    }
    if (w->collection_count > 0) {
      return Status::Of(codes::kWorkspaceNotEmpty,
                        "workspace '" + std::string(name) + "' still holds " +
                            std::to_string(w->collection_count) + " collection(s)")
          .WithField("workspace", std::string(name));
    }
    // A collection created concurrently makes this fail on the foreign key (kFailedPrecondition).
    return catalog_store::DeleteWorkspace(tx, w->id);
  });
}

// ---- collections ----

Status Catalog::DoCreateCollection(std::string_view qualified, bool exists_ok,
                                   std::string_view description, const PropertyMap& properties) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseCollectionName(qualified));
  TARN_RETURN_NOT_OK(ValidatePropertyKeys(properties));
  PropertyMap props = properties;
  if (!description.empty()) props[kDescriptionProperty] = std::string(description);
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t ws_id, WorkspaceId(tx, n.workspace));
    int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(bool created,
                          catalog_store::InsertCollection(tx, ws_id, n.collection, props, now));
    if (!created && !exists_ok) {
      return Status::AlreadyExists("collection '" + n.ToString() + "' already exists")
          .WithField("collection", n.ToString());
    }
    return Status::OK();
  });
}

Result<std::vector<CollectionInfo>> Catalog::ListCollections(std::string_view workspace) {
  TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", workspace));
  std::vector<CollectionInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        TARN_ASSIGN_OR_RETURN(int64_t ws_id, WorkspaceId(tx, workspace));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::Collections(tx, ws_id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<CollectionInfo> Catalog::GetCollection(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseCollectionName(qualified));
  CollectionInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(int64_t ws_id, WorkspaceId(tx, n.workspace));
        TARN_ASSIGN_OR_RETURN(auto c, catalog_store::CollectionByName(tx, ws_id, n.collection));
        if (!c) return CollectionNotFound(n);
        out = std::move(*c);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DropCollection(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseCollectionName(qualified));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto c, LoadCollectionRow(tx, n));
    TARN_ASSIGN_OR_RETURN(int64_t datasets, catalog_store::CountDatasets(tx, c.id));
    TARN_ASSIGN_OR_RETURN(int64_t views, views_store::CountViews(tx, c.id));
    if (views > 0) {
      return Status::Of(codes::kCollectionNotEmpty, "collection '" + n.ToString() +
                                                        "' is not empty (" + std::to_string(views) +
                                                        " view(s))")
          .WithField("collection", n.ToString());
    }
    if (datasets > 0) {
      return Status::Of(codes::kCollectionNotEmpty, "collection '" + n.ToString() +
                                                        "' is not empty (" +
                                                        std::to_string(datasets) + " dataset(s))")
          .WithField("collection", n.ToString());
    }
    // A dataset created concurrently makes this fail on the foreign key (kFailedPrecondition).
    return catalog_store::DeleteCollection(tx, c.id);
  });
}

namespace {

Status UpdateCollection(Metastore& ms, const Clock& clock, std::string_view qualified,
                        const PropertyMap& set, const std::vector<std::string>& unset) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseCollectionName(qualified));
  TARN_RETURN_NOT_OK(ValidatePropertyKeys(set));
  return ms.RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto c, LoadCollectionRow(tx, n));
    for (const auto& k : unset) c.properties.erase(k);
    for (const auto& [k, v] : set) c.properties[k] = v;
    return catalog_store::UpdateCollectionProperties(tx, c.id, c.properties, clock.NowMicros());
  });
}

}  // namespace

Status Catalog::SetCollectionProperties(std::string_view qualified, const PropertyMap& set) {
  return UpdateCollection(*metastore_, *clock_, qualified, set, {});
}

Status Catalog::UnsetCollectionProperties(std::string_view qualified,
                                          const std::vector<std::string>& keys) {
  return UpdateCollection(*metastore_, *clock_, qualified, {}, keys);
}

Result<bool> Catalog::ClaimPeriodicRun(std::string_view step, int64_t interval_us,
                                       std::string_view runner) {
  if (interval_us < 1'000'000) {
    return Status::InvalidArgument("a periodic step runs at most once a second");
  }
  if (step.empty() || step.size() > 200 || runner.size() > 200) {
    return Status::InvalidArgument("a periodic step's name and runner are 1 to 200 bytes");
  }
  bool claimed = false;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    const int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(
        claimed, catalog_store::ClaimPeriodicRun(tx, step, now, now + interval_us, runner));
    return Status::OK();
  }));
  return claimed;
}

}  // namespace tarn
