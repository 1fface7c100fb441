// Mapped memory for the columns a scan hands to numpy (buffers.h).
//
// A scan into pandas gathers each numeric column (and the references of each object column)
// into a mapping numpy adopts; the mapping is freed with the array. Unmapped, its huge pages go
// back to the kernel, and the next scan faults in fresh ones: on a VM whose host takes free
// guest memory back (free page reporting), zeroing such pages cost a warm scan's time again
// (bench/README.md). So an emptied mapping is kept, advised MADV_FREE (the kernel may take its
// pages when it needs memory; until then they stay), and the next buffer of about its size
// takes it.
#include "python/buffers.h"

#include <sys/mman.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <new>

namespace tarn::python {
namespace {

constexpr size_t kStep = size_t{64} << 10;
constexpr size_t kHugeFrom = size_t{4} << 20;
constexpr size_t kKeep = size_t{256} << 20;      // bytes cached at most
constexpr size_t kReserveMax = size_t{1} << 30;  // an estimate reserves at most this much

size_t Rounded(size_t bytes) { return (bytes + kStep - 1) / kStep * kStep; }

class MappingCache {
 public:
  // A cached mapping of `want` bytes up to twice that (its capacity in *capacity), or nullptr.
  void* Take(size_t want, size_t* capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.lower_bound(want);
    if (it == free_.end() || it->first > 2 * want) return nullptr;
    void* p = it->second;
    *capacity = it->first;
    bytes_ -= it->first;
    free_.erase(it);
    ++reused_;
    return p;
  }

  // Keeps the mapping for a later Take, or unmaps it when the cache is full.
  void Give(void* p, size_t capacity) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (bytes_ + capacity <= kKeep) {
        try {
          free_.emplace(capacity, p);
          bytes_ += capacity;
          madvise(p, capacity, MADV_FREE);  // advice only: the bytes are not read again
          return;
        } catch (const std::bad_alloc&) {
        }
      }
    }
    munmap(p, capacity);
  }

  MappingCacheStats Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {static_cast<int64_t>(free_.size()), static_cast<int64_t>(bytes_), reused_};
  }

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> free_;  // capacity -> mapping
  size_t bytes_ = 0;
  int64_t reused_ = 0;
};

MappingCache& Cache() {
  static MappingCache* c = new MappingCache();  // never destroyed: arrays outlive teardown
  return *c;
}

// A mapping of at least `want` bytes (rounded; its size in *capacity), cached or new, or
// nullptr.
void* Map(size_t want, size_t* capacity) {
  want = Rounded(want);
  if (void* p = Cache().Take(want, capacity)) return p;
  void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (want >= kHugeFrom) madvise(p, want, MADV_HUGEPAGE);  // advice only
  *capacity = want;
  return p;
}

}  // namespace

MappedBuffer::~MappedBuffer() {
  if (data != nullptr) Cache().Give(data, capacity);
}

void MappedBuffer::Reserve(size_t bytes) {
  if (data != nullptr || bytes == 0) return;
  size_t got = 0;
  if (void* p = Map(std::min(bytes, kReserveMax), &got)) {
    data = static_cast<uint8_t*>(p);
    capacity = got;
  }
}

void MappedBuffer::Grow(size_t more) {
  if (size + more <= capacity) return;
  const size_t want = Rounded(std::max(size + more, capacity * 2));
  if (data == nullptr) {
    size_t got = 0;
    void* p = Map(want, &got);
    if (p == nullptr) throw std::bad_alloc();
    data = static_cast<uint8_t*>(p);
    capacity = got;
    return;
  }
  void* p = mremap(data, capacity, want, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // As numpy does for its arrays of 4 MiB and more: faulted in 2 MiB at a time, not 4 KiB.
  if (want >= kHugeFrom) madvise(p, want, MADV_HUGEPAGE);  // advice only
  data = static_cast<uint8_t*>(p);
  capacity = want;
}

MappingCacheStats MappingCacheState() { return Cache().Stats(); }

}  // namespace tarn::python
