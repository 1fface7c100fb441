// Inlined files (docs/design/catalog-core.md "Inlined appends"): the warehouse the catalog
// reads through, the inline.max_bytes setting, and FlushInlined.
#include "catalog/inlined.h"

#include <set>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/store.h"
#include "common/io.h"
#include "common/text.h"
#include "common/units.h"
#include "metastore/metastore.h"

namespace tarn {
namespace catalog_internal {

std::string InlinePrefix(std::string_view uuid) { return DatasetPrefix(uuid) + "inline/"; }

Result<int64_t> InlineLimit(const PropertyMap& properties) {
  auto it = properties.find(kInlineMaxBytesProperty);
  if (it == properties.end() || it->second == "0") return int64_t{0};
  auto v = ParseByteSize(it->second);
  if (!v.ok() || *v < 0 || *v > kMaxInlineBytes) {
    return Status::Of(codes::kInvalidProperty, std::string(kInlineMaxBytesProperty) +
                                                   " must be a size from 0 to 1MiB " +
                                                   "(such as 64KiB), not '" + it->second + "'")
        .WithField("property", kInlineMaxBytesProperty);
  }
  return *v;
}

Status ValidateInlineSetting(const PropertyMap& properties) {
  return InlineLimit(properties).status();
}

Status WriteOutInlined(Transaction& tx, ObjectStore& store, const std::vector<std::string>& paths,
                       std::vector<std::string>* written) {
  for (const auto& path : paths) {
    if (!IsInlinedPath(path)) continue;
    TARN_ASSIGN_OR_RETURN(auto kept, catalog_store::InlinedFileBytes(tx, path));
    if (!kept) continue;
    TARN_RETURN_NOT_OK(store.Put(path, *kept));
    written->push_back(path);
  }
  return Status::OK();
}

Result<std::vector<std::string>> ForgetWrittenOut(Metastore& ms, ObjectStore& files,
                                                  const std::vector<std::string>& written) {
  if (written.empty()) return std::vector<std::string>();
  std::vector<std::string> forgotten;
  std::vector<std::string> dead;  // written for a file that no row names any more
  TARN_RETURN_NOT_OK(ms.RunInTransaction([&](Transaction& tx) -> Status {
    dead.clear();
    TARN_ASSIGN_OR_RETURN(forgotten, catalog_store::DeleteInlinedFiles(tx, written));
    // Bytes forgotten meanwhile: by another writer-out (its object is this one, and a row names
    // it), or by Cleanup deleting a file expiry released, which may have deleted its object
    // before it was written here again: that object is deleted once more.
    if (forgotten.size() == written.size()) return Status::OK();
    std::set<std::string_view> mine(forgotten.begin(), forgotten.end());
    for (const auto& path : written) {
      if (mine.count(path)) continue;
      TARN_ASSIGN_OR_RETURN(bool registered, catalog_store::PathRegistered(tx, path));
      if (!registered) dead.push_back(path);
    }
    return Status::OK();
  }));
  if (!dead.empty()) TARN_RETURN_NOT_OK(files.DeleteMany(dead));
  return forgotten;
}

InliningStore::InliningStore(Metastore* metastore, std::shared_ptr<ObjectStore> files)
    : metastore_(metastore), files_(std::move(files)) {}

Result<std::optional<std::string>> InliningStore::Kept(std::string_view key) {
  std::optional<std::string> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, catalog_store::InlinedFileBytes(tx, key));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<ObjectInfo> InliningStore::Head(std::string_view key) {
  if (IsInlinedPath(key)) {
    TARN_ASSIGN_OR_RETURN(auto kept, Kept(key));
    if (kept) {
      ObjectInfo info;
      info.key = std::string(key);
      info.size = kept->size();
      info.etag = "inlined";
      return info;
    }
  }
  return files_->Head(key);
}

Result<std::string> InliningStore::Get(std::string_view key) {
  if (IsInlinedPath(key)) {
    TARN_ASSIGN_OR_RETURN(auto kept, Kept(key));
    if (kept) return std::move(*kept);
  }
  return files_->Get(key);
}

Result<std::shared_ptr<RandomAccessFile>> InliningStore::OpenRead(std::string_view key) {
  if (IsInlinedPath(key)) {
    TARN_ASSIGN_OR_RETURN(auto kept, Kept(key));
    if (kept) return MemoryFile(std::move(*kept), UriOf(key));
  }
  return files_->OpenRead(key);
}

Status InliningStore::Put(std::string_view key, std::string_view data,
                          const WriteOptions& options) {
  return files_->Put(key, data, options);
}

Result<std::unique_ptr<OutputStream>> InliningStore::OpenWrite(std::string_view key,
                                                               const WriteOptions& options) {
  return files_->OpenWrite(key, options);
}

Result<ListPage> InliningStore::List(std::string_view prefix, std::string_view token,
                                     size_t max_keys) {
  return files_->List(prefix, token, max_keys);
}

Status InliningStore::Delete(std::string_view key) { return DeleteMany({std::string(key)}); }

Status InliningStore::DeleteMany(const std::vector<std::string>& keys) {
  std::vector<std::string> inlined;
  for (const auto& k : keys) {
    if (IsInlinedPath(k)) inlined.push_back(k);
  }
  if (!inlined.empty()) {
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
      return catalog_store::DeleteInlinedFiles(tx, inlined).status();
    }));
  }
  // A flushed inlined file is an object too.
  return keys.size() == 1 ? files_->Delete(keys[0]) : files_->DeleteMany(keys);
}

}  // namespace catalog_internal

Result<InlineFlushResult> Catalog::FlushInlined(std::string_view qualified) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  InlineFlushResult out;
  out.dataset = n.ToString();
  int64_t dataset_id = 0;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, catalog_internal::LoadLiveDataset(tx, n));
        dataset_id = ds.id;
        return Status::OK();
      },
      TxMode::kReadOnly));
  auto* store = static_cast<catalog_internal::InliningStore*>(warehouse_.get());
  std::string after;
  for (;;) {
    std::vector<catalog_store::InlinedFile> page;
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(page, catalog_store::InlinedFilesPage(tx, dataset_id, after, 100));
          return Status::OK();
        },
        TxMode::kReadOnly));
    if (page.empty()) break;
    after = page.back().path;
    // Each object is written before its bytes are forgotten: a reader between the two finds
    // either (the same bytes).
    std::vector<std::string> written;
    for (const auto& f : page) {
      TARN_RETURN_NOT_OK(store->files().Put(f.path, f.bytes));
      written.push_back(f.path);
    }
    TARN_ASSIGN_OR_RETURN(auto forgotten,
                          catalog_internal::ForgetWrittenOut(*metastore_, store->files(), written));
    std::set<std::string_view> mine(forgotten.begin(), forgotten.end());
    for (const auto& f : page) {
      if (!mine.count(f.path)) continue;
      ++out.files_written;
      out.bytes_written += static_cast<int64_t>(f.bytes.size());
    }
  }
  return out;
}

}  // namespace tarn
