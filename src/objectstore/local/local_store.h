// LocalObjectStore: objects as files under a root directory (the embedded warehouse).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "objectstore/object_store.h"

namespace tarn {

struct LocalStoreOptions {
  bool create_root = true;       // create the root directory (and parents) when missing
  size_t list_page_size = 1000;  // default max_keys of List
};

// Keys map to files under the root; '/' in a key makes directories, created on write and
// removed when a delete leaves them empty. Nothing outside the root can be reached whatever the
// key: keys are validated (ValidateKey), every path component is opened relative to the root's
// descriptor with O_NOFOLLOW, and symbolic links are never followed (kPermissionDenied) nor
// listed. Writes go to a temporary file beside the target, are fsynced and renamed into place,
// then the directory is fsynced. Conditional create renames without replacing
// (renameat2 RENAME_NOREPLACE, else link+unlink), so it is atomic. Files whose name ends in
// ".tmp-<letters or digits>" are in-progress writes: hidden from listings, refused as keys.
// A key cannot be both an object and a "directory" of other keys here (S3 allows "a" and "a/b");
// writing one over the other fails with kFailedPrecondition.
class LocalObjectStore : public ObjectStore {
 public:
  // `root`: an absolute or relative directory path (resolved once, symlinks included).
  static Result<std::shared_ptr<LocalObjectStore>> Open(std::string_view root,
                                                        LocalStoreOptions options = {});
  ~LocalObjectStore() override;

  const std::string& uri() const override { return uri_; }
  const std::string& root() const { return root_; }

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

 private:
  LocalObjectStore(std::string root, int root_fd, LocalStoreOptions options);
  std::string PathOf(std::string_view key) const;  // root_ + "/" + key, for messages
  class Impl;
  std::string root_;  // canonical absolute path, no trailing '/'
  std::string uri_;
  int root_fd_;
  LocalStoreOptions options_;
};

}  // namespace tarn
