#include "objectstore/memory/memory_store.h"

#include <chrono>
#include <cstring>
#include <utility>

#include "common/clock.h"

namespace tarn {

namespace {

int64_t NowMs() { return Clock::Real()->NowMillis(); }

class SharedBytesFile : public RandomAccessFile {
 public:
  SharedBytesFile(std::shared_ptr<const std::string> bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  uint64_t Size() const override { return bytes_->size(); }
  const std::string& name() const override { return name_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > bytes_->size() || n > bytes_->size() - offset) {
      return Status::Corruption(name_ + ": read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " is past the end (size " +
                                std::to_string(bytes_->size()) + ")");
    }
    if (n > 0) std::memcpy(out, bytes_->data() + offset, n);
    return Status::OK();
  }

 private:
  std::shared_ptr<const std::string> bytes_;
  std::string name_;
};

}  // namespace

class MemoryWriter : public OutputStream {
 public:
  MemoryWriter(MemoryObjectStore* store, std::string key, bool if_absent)
      : store_(store), key_(std::move(key)), if_absent_(if_absent) {}
  Status Write(const uint8_t* data, size_t n) override {
    if (closed_) return Status::FailedPrecondition("write to a closed object " + key_);
    bytes_.append(reinterpret_cast<const char*>(data), n);
    return Status::OK();
  }
  uint64_t Tell() const override { return bytes_.size(); }
  Status Close() override {
    if (closed_) return status_;
    closed_ = true;
    status_ = store_->Install(key_, std::move(bytes_), if_absent_);
    return status_;
  }

 private:
  MemoryObjectStore* store_;
  std::string key_;
  bool if_absent_;
  std::string bytes_;
  bool closed_ = false;
  Status status_;
};

MemoryObjectStore::MemoryObjectStore(std::string name, size_t list_page_size)
    : uri_("mem://" + std::move(name)), list_page_size_(list_page_size ? list_page_size : 1000) {}

Status MemoryObjectStore::Install(std::string_view key, std::string bytes, bool if_absent) {
  auto shared = std::make_shared<const std::string>(std::move(bytes));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it != objects_.end() && if_absent) {
    return Status::FailedPrecondition(UriOf(key) + " already exists (conditional create)");
  }
  std::string etag = std::to_string(++version_);
  etag.insert(0, 1, 'v');
  Object obj{std::move(shared), std::move(etag), NowMs()};
  if (it == objects_.end()) {
    objects_.emplace(std::string(key), std::move(obj));
  } else {
    it->second = std::move(obj);
  }
  return Status::OK();
}

Result<ObjectInfo> MemoryObjectStore::Head(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return Status::NotFound(UriOf(key) + ": no such object");
  return ObjectInfo{it->first, it->second.bytes->size(), it->second.etag, it->second.mtime_ms};
}

Result<std::string> MemoryObjectStore::Get(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return Status::NotFound(UriOf(key) + ": no such object");
  return *it->second.bytes;
}

Result<std::shared_ptr<RandomAccessFile>> MemoryObjectStore::OpenRead(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return Status::NotFound(UriOf(key) + ": no such object");
  return std::shared_ptr<RandomAccessFile>(new SharedBytesFile(it->second.bytes, UriOf(key)));
}

Status MemoryObjectStore::Put(std::string_view key, std::string_view data,
                              const WriteOptions& options) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  return Install(key, std::string(data), options.if_absent);
}

Result<std::unique_ptr<OutputStream>> MemoryObjectStore::OpenWrite(std::string_view key,
                                                                   const WriteOptions& options) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  if (options.if_absent) {
    std::lock_guard<std::mutex> lock(mu_);
    if (objects_.count(key) != 0) {
      return Status::FailedPrecondition(UriOf(key) + " already exists (conditional create)");
    }
  }
  return std::unique_ptr<OutputStream>(new MemoryWriter(this, std::string(key), options.if_absent));
}

Result<ListPage> MemoryObjectStore::List(std::string_view prefix, std::string_view token,
                                         size_t max_keys) {
  TARN_RETURN_NOT_OK(ValidatePrefix(prefix));
  if (max_keys == 0) max_keys = list_page_size_;
  ListPage page;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = token.empty() ? objects_.lower_bound(prefix) : objects_.upper_bound(token);
  if (!token.empty() && std::string_view(token) < prefix) it = objects_.lower_bound(prefix);
  for (; it != objects_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) {
      if (std::string_view(it->first) > prefix) break;
      continue;
    }
    if (page.objects.size() == max_keys) {
      page.next_token = page.objects.back().key;
      break;
    }
    page.objects.push_back(
        ObjectInfo{it->first, it->second.bytes->size(), it->second.etag, it->second.mtime_ms});
  }
  return page;
}

Status MemoryObjectStore::Delete(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(key);
  if (it != objects_.end()) objects_.erase(it);
  return Status::OK();
}

size_t MemoryObjectStore::object_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_.size();
}

uint64_t MemoryObjectStore::total_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t total = 0;
  for (const auto& [key, obj] : objects_) total += obj.bytes->size();
  return total;
}

}  // namespace tarn
