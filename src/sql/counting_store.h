// An ObjectStore that counts the bytes read through it: what `tarn sql --stats` reports and the
// benchmark checks (a query over 1 of 12 columns reads that column's chunks only). Internal to
// src/sql; thread-safe like the store it wraps.
#pragma once

#include <atomic>
#include <memory>

#include "objectstore/object_store.h"

namespace tarn::sql {

class CountingStore : public ObjectStore {
 public:
  explicit CountingStore(ObjectStore& base) : base_(base) {}
  int64_t bytes_read() const { return bytes_->load(); }
  int64_t files_opened() const { return files_->load(); }

  const std::string& uri() const override { return base_.uri(); }
  Result<ObjectInfo> Head(std::string_view key) override { return base_.Head(key); }
  Result<std::string> Get(std::string_view key) override {
    auto r = base_.Get(key);
    if (r.ok()) bytes_->fetch_add(static_cast<int64_t>(r->size()));
    return r;
  }
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(std::string_view key) override {
    TARN_ASSIGN_OR_RETURN(auto file, base_.OpenRead(key));
    files_->fetch_add(1);
    return std::shared_ptr<RandomAccessFile>(
        std::make_shared<CountingFile>(std::move(file), bytes_));
  }
  Status Put(std::string_view key, std::string_view data, const WriteOptions& options) override {
    return base_.Put(key, data, options);
  }
  Result<std::unique_ptr<OutputStream>> OpenWrite(std::string_view key,
                                                  const WriteOptions& options) override {
    return base_.OpenWrite(key, options);
  }
  Result<ListPage> List(std::string_view prefix, std::string_view token, size_t max_keys) override {
    return base_.List(prefix, token, max_keys);
  }
  Status Delete(std::string_view key) override { return base_.Delete(key); }

 private:
  class CountingFile : public RandomAccessFile {
   public:
    CountingFile(std::shared_ptr<RandomAccessFile> base,
                 std::shared_ptr<std::atomic<int64_t>> bytes)
        : base_(std::move(base)), bytes_(std::move(bytes)) {}
    uint64_t Size() const override { return base_->Size(); }
    Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
      bytes_->fetch_add(static_cast<int64_t>(n));
      return base_->ReadAt(offset, n, out);
    }
    const std::string& name() const override { return base_->name(); }

   private:
    std::shared_ptr<RandomAccessFile> base_;
    std::shared_ptr<std::atomic<int64_t>> bytes_;
  };

  ObjectStore& base_;
  std::shared_ptr<std::atomic<int64_t>> bytes_ = std::make_shared<std::atomic<int64_t>>(0);
  std::shared_ptr<std::atomic<int64_t>> files_ = std::make_shared<std::atomic<int64_t>>(0);
};

}  // namespace tarn::sql
