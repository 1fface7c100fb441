// MemoryObjectStore: objects in a map, for tests of the layers above the object store.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "objectstore/object_store.h"

namespace tarn {

// Same semantics as the other stores (key validation, atomic puts, conditional create, byte
// ordered listings with page tokens); a reader keeps the bytes it opened even if the object is
// replaced. Thread-safe.
class MemoryObjectStore : public ObjectStore {
 public:
  explicit MemoryObjectStore(std::string name = "memory", size_t list_page_size = 1000);

  const std::string& uri() const override { return uri_; }

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

  // Number of objects and their total size, for tests.
  size_t object_count() const;
  uint64_t total_bytes() const;

 private:
  struct Object {
    std::shared_ptr<const std::string> bytes;
    std::string etag;
    int64_t mtime_ms;
  };
  friend class MemoryWriter;
  Status Install(std::string_view key, std::string bytes, bool if_absent);

  std::string uri_;
  size_t list_page_size_;
  mutable std::mutex mu_;
  std::map<std::string, Object, std::less<>> objects_;
  uint64_t version_ = 0;
};

}  // namespace tarn
