// Catalog: workspaces and collections (PRODUCT.md C1, C2) over the metastore.
//
// Every mutation is one metastore transaction; correctness under concurrency (threads or
// processes) comes from the database's unique constraints, never from in-process locks.
// Datasets, commits and snapshots are not built yet (see README.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace tarn {

class Metastore;
class ObjectStore;

using PropertyMap = std::map<std::string, std::string>;

// Workspace property keys stored in their own columns rather than in the properties map.
inline constexpr char kDeletionProtection[] = "deletion_protection";
inline constexpr char kEgressProtection[] = "egress_protection";
// The collection property that carries its description.
inline constexpr char kDescriptionProperty[] = "description";

// Whether a protection flag is on: only an explicit false (case-insensitive "false") turns it
// off; unset (nullopt) and any other value, malformed included, read as on (fail closed).
bool ProtectionOn(const std::optional<std::string>& raw);

// Checks one identifier against ^[A-Za-z_][A-Za-z0-9_-]{0,127}$; kInvalidArgument naming
// `what` (e.g. "workspace name") and the bad value otherwise.
Status ValidateIdentifier(std::string_view what, std::string_view name);

// A `workspace.collection` name, split and validated.
struct CollectionName {
  std::string workspace;
  std::string collection;
  std::string ToString() const { return workspace + "." + collection; }
};
Result<CollectionName> ParseCollectionName(std::string_view qualified);

struct WorkspaceInfo {
  int64_t id = 0;
  std::string name;
  PropertyMap properties;  // without the two protection keys
  // The raw values as set; nullopt when never set (reads as on).
  std::optional<std::string> deletion_protection;
  std::optional<std::string> egress_protection;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t collection_count = 0;

  bool DeletionProtected() const { return ProtectionOn(deletion_protection); }
  bool EgressProtected() const { return ProtectionOn(egress_protection); }
};

struct CollectionInfo {
  int64_t id = 0;
  std::string workspace;
  std::string name;
  std::string description;
  PropertyMap properties;  // without "description"
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t dataset_count = 0;          // live datasets
  int64_t dropped_dataset_count = 0;  // dropped datasets whose history is kept
};

// A handle on one catalog: its metastore and its warehouse. Thread-safe.
class Catalog {
 public:
  // Opens the metastore at `metastore_uri` (SQLite path or postgresql:// URI; migrations are
  // applied) and the object store of `warehouse_uri`.
  static Result<std::unique_ptr<Catalog>> Open(std::string_view metastore_uri,
                                               std::string_view warehouse_uri);
  // The embedded layout: `<dir>/catalog.db` (SQLite) and `<dir>/warehouse` (local objects);
  // `dir` is created when missing.
  static Result<std::unique_ptr<Catalog>> OpenEmbedded(std::string_view dir);
  ~Catalog();

  Metastore& metastore() { return *metastore_; }
  ObjectStore& warehouse() { return *warehouse_; }

  // Workspaces (C1). A missing workspace is kNotFound with field code=workspace_not_found.
  // Properties may include deletion_protection / egress_protection (stored raw).
  Status CreateWorkspace(std::string_view name, bool exists_ok = false,
                         const PropertyMap& properties = {});
  Result<WorkspaceInfo> GetWorkspace(std::string_view name);
  // GetWorkspace, creating the workspace first when `create_if_missing`.
  Result<WorkspaceInfo> OpenWorkspace(std::string_view name, bool create_if_missing = false);
  Result<std::vector<WorkspaceInfo>> ListWorkspaces();
  Status SetWorkspaceProperties(std::string_view name, const PropertyMap& set);
  // Unsetting a protection key returns it to its default (on).
  Status UnsetWorkspaceProperties(std::string_view name, const std::vector<std::string>& keys);
  // Refused (kFailedPrecondition) while deletion protection is on or collections remain.
  Status DropWorkspace(std::string_view name);

  // Collections (C2), named `workspace.collection`. A missing one is kNotFound with
  // code=collection_not_found.
  Status CreateCollection(std::string_view qualified, bool exists_ok = false,
                          std::string_view description = {}, const PropertyMap& properties = {});
  Result<std::vector<CollectionInfo>> ListCollections(std::string_view workspace);
  Result<CollectionInfo> GetCollection(std::string_view qualified);
  // Refused (kFailedPrecondition) while the collection holds datasets (live or dropped ones
  // whose history is kept).
  Status DropCollection(std::string_view qualified);
  Status SetCollectionProperties(std::string_view qualified, const PropertyMap& set);
  Status UnsetCollectionProperties(std::string_view qualified,
                                   const std::vector<std::string>& keys);

 private:
  Catalog(std::unique_ptr<Metastore> metastore, std::shared_ptr<ObjectStore> warehouse);

  std::unique_ptr<Metastore> metastore_;
  std::shared_ptr<ObjectStore> warehouse_;
};

}  // namespace tarn
