// Inlined files (docs/design/catalog-core.md "Inlined appends"): the warehouse as the catalog
// reads it, where a data file under a dataset's "inline/" prefix may have its bytes in the
// metastore rather than in the object store. Internal to the catalog module.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "objectstore/object_store.h"
#include "tarn/dataset.h"

namespace tarn {

class Metastore;
class Transaction;

namespace catalog_internal {

// "<dataset prefix>inline/" of the dataset with `uuid`: where its inlined files are named.
std::string InlinePrefix(std::string_view uuid);

// The dataset's inline.max_bytes (0: off). Errors: invalid_property (field property) for a
// value that is not an integer in [0, kMaxInlineBytes].
Result<int64_t> InlineLimit(const PropertyMap& properties);
Status ValidateInlineSetting(const PropertyMap& properties);

// Writes the inlined files among `paths` whose bytes the metastore keeps (as `tx` sees it) to
// `store` at their paths, adding them to `written`: for what names a snapshot's files to
// readers outside tarn (a manifest, Iceberg metadata), before it is written. Other paths are
// left alone. The caller forgets the bytes of `written` after its transaction
// (ForgetWrittenOut), so that the next export does not write them again.
Status WriteOutInlined(Transaction& tx, ObjectStore& store, const std::vector<std::string>& paths,
                       std::vector<std::string>* written);
// Forgets the kept bytes of inlined files whose objects `written` were written to `files`;
// returns the paths it forgot. A path whose bytes were forgotten meanwhile and that no data
// file row names (Cleanup deleted the file, maybe before the object was written again) has
// its object deleted.
Result<std::vector<std::string>> ForgetWrittenOut(Metastore& ms, ObjectStore& files,
                                                  const std::vector<std::string>& written);

// The catalog's warehouse: every call goes to `files`, the object store itself, except for an
// inlined path (IsInlinedPath), which is read from the metastore while its bytes are kept there
// and from `files` once written out (FlushInlined writes the object before it forgets the
// bytes), and whose deletion forgets the kept bytes and deletes the object. A listing shows
// only the objects: an inlined file is in none until written out.
class InliningStore final : public ObjectStore {
 public:
  InliningStore(Metastore* metastore, std::shared_ptr<ObjectStore> files);

  ObjectStore& files() { return *files_; }

  const std::string& uri() const override { return files_->uri(); }
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(std::string_view key) override;
  Status Put(std::string_view key, std::string_view data, const WriteOptions& options) override;
  using ObjectStore::Put;
  Result<std::unique_ptr<OutputStream>> OpenWrite(std::string_view key,
                                                  const WriteOptions& options) override;
  using ObjectStore::OpenWrite;
  Result<ListPage> List(std::string_view prefix, std::string_view token, size_t max_keys) override;
  Status Delete(std::string_view key) override;
  Status DeleteMany(const std::vector<std::string>& keys) override;

 private:
  // The kept bytes of an inlined path, nullopt when none are kept.
  Result<std::optional<std::string>> Kept(std::string_view key);

  Metastore* metastore_;
  std::shared_ptr<ObjectStore> files_;
};

}  // namespace catalog_internal
}  // namespace tarn
