// Which files a dataset may register (issue 14, defects 1 and 4): its own prefix, the
// external locations an owner granted to it, never a path another dataset references; every
// file a client names must exist as a regular object of the size it states.
//
// A dataset's own prefix is `datasets/<uuid>/` of the incarnation being committed to: a rename
// keeps it (the uuid stays), a dataset dropped and created again under the same name is another
// dataset with another prefix, and the files of the old incarnation are another dataset's.
#include <algorithm>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/store.h"
#include "common/parallel.h"
#include "objectstore/object_store.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// Areas of the warehouse tarn writes itself; no location may be granted inside them.
constexpr const char* kManagedPrefixes[] = {"datasets/", "uploads/"};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

// The same answer whether the file is missing, another dataset's or merely outside: a caller
// may not learn what lies where it may not read.
Status NotOwned(const std::string& key) {
  return Status::Of(
             codes::kPathNotOwned,
             "path '" + key.substr(0, 500) +
                 "' may not be registered in this dataset: only files under the dataset's own "
                 "prefix or a location granted to it, and never one another dataset references")
      .WithField("path", key.substr(0, 500));
}

// A grant's prefix: a normalised warehouse key prefix ending in '/', outside the managed areas.
Result<std::string> LocationPrefix(const ObjectStore& warehouse, std::string_view prefix) {
  std::string p(prefix);
  while (!p.empty() && p.back() == '/') p.pop_back();
  auto bad = [&](const std::string& why) {
    return Status::Of(codes::kInvalidLocation, "location '" + std::string(prefix.substr(0, 500)) +
                                                   "' cannot be granted: " + why)
        .WithField("prefix", std::string(prefix.substr(0, 500)));
  };
  if (p.empty()) return bad("it names the whole warehouse");
  auto key = WarehouseKey(warehouse, p);
  if (!key.ok()) return bad("it is not inside the warehouse");
  std::string out = *key + "/";
  for (const char* managed : kManagedPrefixes) {
    if (StartsWith(out, managed) || StartsWith(managed, out)) {
      return bad(std::string("'") + managed + "' is managed by tarn");
    }
  }
  return out;
}

// The live dataset's row id and uuid; kNotFound when there is none.
Result<catalog_store::DatasetKey> LiveDatasetId(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(auto key, catalog_store::LiveDatasetKey(tx, n));
  if (!key) return DatasetNotFound(tx, n);
  return std::move(*key);
}

// Heads every key, in parallel for more than a few; results[i] is keys[i]'s.
std::vector<Result<ObjectInfo>> HeadAll(ObjectStore& store, const std::vector<std::string>& keys) {
  std::vector<Result<ObjectInfo>> results(keys.size(), Status::Internal("not checked"));
  constexpr size_t kSequential = 4, kMaxThreads = 16;
  ParallelFor(keys.size(), keys.size() <= kSequential ? 1 : kMaxThreads,
              [&](size_t i) { results[i] = store.Head(keys[i]); });
  return results;
}

}  // namespace

namespace catalog_internal {

Result<bool> CheckAddedFiles(Metastore& ms, ObjectStore& warehouse, DatasetCommit& part,
                             const AddedFileChecks& checks) {
  if (part.added.empty()) return false;
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(part.dataset));
  if (!part.inlined.empty()) {
    return Status::InvalidArgument(
        "a commit may not carry inlined bytes: only tarn's own "
        "appends keep files in the metastore");
  }
  for (DataFile& f : part.added) {
    auto key = WarehouseKey(warehouse, f.path);
    if (!key.ok()) return key.status();
    f.path = std::move(*key);
    // Named by tarn for the files it keeps in the metastore (inlined.h).
    if (IsInlinedPath(f.path)) return NotOwned(f.path);
  }
  std::string uuid;
  bool replay = false;
  std::vector<std::string> grants;
  std::vector<std::string> not_owned;
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        grants.clear();
        not_owned.clear();
        TARN_ASSIGN_OR_RETURN(auto ds, LiveDatasetId(tx, n));
        uuid = ds.uuid;
        if (part.meta.idempotency_key) {
          // A retry of a commit that landed is answered with its snapshot and registers nothing.
          TARN_ASSIGN_OR_RETURN(replay, catalog_store::IdempotencyKeyCommitted(
                                            tx, ds.id, *part.meta.idempotency_key));
          if (replay) return Status::OK();
        }
        TARN_ASSIGN_OR_RETURN(grants, catalog_store::GrantedPrefixes(tx, ds.id));
        const std::string own = DatasetPrefix(uuid);
        for (const DataFile& f : part.added) {
          bool owned = StartsWith(f.path, own) || (!checks.also_owned_prefix.empty() &&
                                                   StartsWith(f.path, checks.also_owned_prefix));
          for (const auto& g : grants) owned = owned || StartsWith(f.path, g);
          if (!owned) not_owned.push_back(f.path);
        }
        if (!not_owned.empty()) return Status::OK();
        // Another dataset (any workspace, any incarnation, live or in history, or a removed
        // file waiting in the ledger) referencing one of the paths.
        std::vector<std::string> paths;
        paths.reserve(part.added.size());
        for (const DataFile& f : part.added) paths.push_back(f.path);
        TARN_ASSIGN_OR_RETURN(auto hit, catalog_store::PathOfAnotherDataset(tx, ds.id, paths));
        if (hit) not_owned.push_back(std::move(*hit));
        return Status::OK();
      },
      TxMode::kReadOnly));
  if (replay) return true;
  if (!not_owned.empty()) return NotOwned(not_owned.front());
  // The commit lands in the incarnation whose prefix was checked, or fails as stale.
  if (part.expected_uuid && *part.expected_uuid != uuid) return false;
  part.expected_uuid = uuid;
  if (!checks.head) return false;

  std::vector<std::string> keys;
  keys.reserve(part.added.size());
  for (const DataFile& f : part.added) keys.push_back(f.path);
  auto heads = HeadAll(warehouse, keys);
  for (size_t i = 0; i < keys.size(); ++i) {
    DataFile& f = part.added[i];
    const auto& h = heads[i];
    if (!h.ok()) {
      switch (h.status().kind()) {
        case ErrorKind::kNotFound:
          return Status::Of(codes::kFileNotFound,
                            "file '" + f.path + "' does not exist in the warehouse")
              .WithField("path", f.path);
        case ErrorKind::kPermissionDenied:
          return Status::Of(codes::kNotARegularFile,
                            "file '" + f.path + "' is not a regular object (a symbolic link?)")
              .WithField("path", f.path);
        default:
          // The store's own message may name the local root: it stays out of the answer.
          return Status(h.status().kind(), "checking file '" + f.path + "' failed")
              .WithField("path", f.path);
      }
    }
    if (!checks.sizes_stated) {
      f.file_size_bytes = static_cast<int64_t>(h->size);
    } else if (static_cast<uint64_t>(f.file_size_bytes) != h->size) {
      return Status::Of(codes::kFileSizeMismatch,
                        "file '" + f.path + "' holds " + std::to_string(h->size) +
                            " bytes, the commit states " + std::to_string(f.file_size_bytes))
          .WithField("path", f.path);
    }
  }
  return false;
}

}  // namespace catalog_internal

// ---- external locations ----

Status Catalog::GrantLocation(std::string_view qualified, std::string_view prefix) {
  return GrantLocation(qualified, prefix, actor());
}

Status Catalog::GrantLocation(std::string_view qualified, std::string_view prefix,
                              std::string_view granted_by) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_ASSIGN_OR_RETURN(std::string p, LocationPrefix(*warehouse_, prefix));
  // Serializable: two grants racing for overlapping prefixes cannot both land.
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LiveDatasetId(tx, n));
    // A location is one live dataset's: no other live dataset holds it, a prefix of it or a
    // prefix inside it (which one is not said).
    TARN_ASSIGN_OR_RETURN(auto others, catalog_store::OtherLiveDatasetsPrefixes(tx, ds.id));
    for (const std::string& other : others) {
      if (StartsWith(p, other) || StartsWith(other, p)) {
        return Status::Of(codes::kLocationInUse,
                          "location '" + p + "' overlaps a location granted to another dataset")
            .WithField("prefix", p);
      }
    }
    return catalog_store::InsertLocation(tx, ds.id, p, granted_by, clock_->NowMicros());
  });
}

Status Catalog::RevokeLocation(std::string_view qualified, std::string_view prefix) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_ASSIGN_OR_RETURN(std::string p, LocationPrefix(*warehouse_, prefix));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LiveDatasetId(tx, n));
    TARN_ASSIGN_OR_RETURN(bool revoked, catalog_store::DeleteLocation(tx, ds.id, p));
    if (!revoked) {
      return Status::Of(codes::kLocationNotFound,
                        "dataset '" + n.ToString() + "' has no location '" + p + "'")
          .WithField("prefix", p);
    }
    return Status::OK();
  });
}

Result<std::vector<LocationGrant>> Catalog::ListLocations(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  std::vector<LocationGrant> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        TARN_ASSIGN_OR_RETURN(auto ds, LiveDatasetId(tx, n));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::Locations(tx, ds.id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn
