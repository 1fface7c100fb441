// Which files a dataset may register (issue 14, defects 1 and 4): its own prefix, the
// external locations an owner granted to it, never a path another dataset references; every
// file a client names must exist as a regular object of the size it states.
//
// A dataset's own prefix is `datasets/<uuid>/` of the incarnation being committed to: a rename
// keeps it (the uuid stays), a dataset dropped and created again under the same name is another
// dataset with another prefix, and the files of the old incarnation are another dataset's.
#include <algorithm>
#include <atomic>
#include <thread>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
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

std::string InList(size_t n) {
  std::string in;
  for (size_t i = 0; i < n; ++i) in += i ? ", ?" : "?";
  return in;
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

// The live dataset's row id and uuid.
Result<std::pair<int64_t, std::string>> LiveDatasetId(Transaction& tx, const DatasetName& n) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT d.id, d.uuid FROM datasets d JOIN collections c ON c.id = "
                            "d.collection_id JOIN workspaces w ON w.id = c.workspace_id WHERE "
                            "w.name = ? AND c.name = ? AND d.name = ? AND d.dropped_at IS NULL",
                            {n.workspace, n.collection, n.dataset}));
  if (!row) return DatasetNotFound(tx, n);
  TARN_ASSIGN_OR_RETURN(int64_t id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto uuid, row->Text(1));
  return std::make_pair(id, std::string(uuid));
}

// Heads every key, in parallel for more than a few; results[i] is keys[i]'s.
std::vector<Result<ObjectInfo>> HeadAll(ObjectStore& store, const std::vector<std::string>& keys) {
  std::vector<Result<ObjectInfo>> results(keys.size(), Status::Internal("not checked"));
  constexpr size_t kSequential = 4, kMaxThreads = 16;
  if (keys.size() <= kSequential) {
    for (size_t i = 0; i < keys.size(); ++i) results[i] = store.Head(keys[i]);
    return results;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < keys.size();) results[i] = store.Head(keys[i]);
  };
  std::vector<std::thread> threads;
  size_t n = std::min(kMaxThreads, keys.size());
  for (size_t t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace

namespace catalog_internal {

Status CheckAddedFiles(Metastore& ms, ObjectStore& warehouse, DatasetCommit& part,
                       const AddedFileChecks& checks) {
  if (part.added.empty()) return Status::OK();
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(part.dataset));
  for (DataFile& f : part.added) {
    auto key = WarehouseKey(warehouse, f.path);
    if (!key.ok()) return key.status();
    f.path = std::move(*key);
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
        uuid = ds.second;
        if (part.meta.idempotency_key) {
          // A retry of a commit that landed is answered with its snapshot and registers nothing.
          TARN_ASSIGN_OR_RETURN(auto row,
                                tx.QueryOne("SELECT 1 FROM snapshots WHERE dataset_id = ? AND "
                                            "idempotency_key = ?",
                                            {ds.first, *part.meta.idempotency_key}));
          replay = row.has_value();
          if (replay) return Status::OK();
        }
        TARN_ASSIGN_OR_RETURN(
            auto rows,
            tx.Query("SELECT prefix FROM dataset_locations WHERE dataset_id = ?", {ds.first}));
        for (const Row& r : rows) {
          TARN_ASSIGN_OR_RETURN(auto p, r.Text(0));
          grants.emplace_back(p);
        }
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
        constexpr size_t kChunk = 400;
        for (size_t start = 0; start < part.added.size(); start += kChunk) {
          size_t k = std::min(kChunk, part.added.size() - start);
          SqlParams params;
          for (size_t i = start; i < start + k; ++i) params.push_back(part.added[i].path);
          params.push_back(ds.first);
          TARN_ASSIGN_OR_RETURN(auto hit, tx.Query("SELECT path FROM data_files WHERE path IN (" +
                                                       InList(k) + ") AND dataset_id <> ? LIMIT 1",
                                                   params));
          if (hit.empty()) {
            TARN_ASSIGN_OR_RETURN(
                hit, tx.Query("SELECT path FROM removal_ledger WHERE path IN (" + InList(k) +
                                  ") AND deleted_at IS NULL AND (dataset_id IS NULL OR "
                                  "dataset_id <> ?) LIMIT 1",
                              params));
          }
          if (!hit.empty()) {
            TARN_ASSIGN_OR_RETURN(auto p, hit[0].Text(0));
            not_owned.emplace_back(p);
            return Status::OK();
          }
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  if (replay) return Status::OK();
  if (!not_owned.empty()) return NotOwned(not_owned.front());
  // The commit lands in the incarnation whose prefix was checked, or fails as stale.
  if (part.expected_uuid && *part.expected_uuid != uuid) return Status::OK();
  part.expected_uuid = uuid;
  if (!checks.head) return Status::OK();

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
  return Status::OK();
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
    TARN_ASSIGN_OR_RETURN(
        auto rows, tx.Query("SELECT l.prefix FROM dataset_locations l JOIN datasets d ON d.id = "
                            "l.dataset_id WHERE d.dropped_at IS NULL AND l.dataset_id <> ?",
                            {ds.first}));
    for (const Row& r : rows) {
      TARN_ASSIGN_OR_RETURN(auto other, r.Text(0));
      if (StartsWith(p, other) || StartsWith(other, p)) {
        return Status::Of(codes::kLocationInUse,
                          "location '" + p + "' overlaps a location granted to another dataset")
            .WithField("prefix", p);
      }
    }
    return tx
        .Execute(
            "INSERT INTO dataset_locations (dataset_id, prefix, granted_by, granted_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (dataset_id, prefix) DO NOTHING",
            {ds.first, p, granted_by, clock_->NowMicros()})
        .status();
  });
}

Status Catalog::RevokeLocation(std::string_view qualified, std::string_view prefix) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_ASSIGN_OR_RETURN(std::string p, LocationPrefix(*warehouse_, prefix));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LiveDatasetId(tx, n));
    TARN_ASSIGN_OR_RETURN(
        int64_t changed,
        tx.Execute("DELETE FROM dataset_locations WHERE dataset_id = ? AND prefix = ?",
                   {ds.first, p}));
    if (changed == 0) {
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
        TARN_ASSIGN_OR_RETURN(auto rows,
                              tx.Query("SELECT prefix, granted_by, granted_at FROM "
                                       "dataset_locations WHERE dataset_id = ? ORDER BY prefix",
                                       {ds.first}));
        for (const Row& r : rows) {
          LocationGrant g;
          TARN_ASSIGN_OR_RETURN(auto p, r.Text(0));
          TARN_ASSIGN_OR_RETURN(auto by, r.Text(1));
          g.prefix = std::string(p);
          g.granted_by = std::string(by);
          TARN_ASSIGN_OR_RETURN(g.granted_at_us, r.Int64(2));
          out.push_back(std::move(g));
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

}  // namespace tarn
