// Mapped memory for the columns a scan hands to numpy (docs/design/python.md "Memory for
// Python objects").
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace tarn::python {

// A growable block of mapped memory that a numpy array can adopt without a copy, grown by
// moving its pages (mremap), never its bytes; from 4 MiB on advised into huge pages, as numpy
// advises its own large arrays. Its memory comes from, and goes back to, a process-wide cache
// of mappings emptied earlier (at most 256 MiB, advised MADV_FREE while cached): a scan that
// reserves what it will gather reuses the pages of the scan before it instead of faulting in
// fresh ones. Thread-safe (a scan's producer gathers without the GIL).
struct MappedBuffer {
  uint8_t* data = nullptr;
  size_t size = 0, capacity = 0;
  MappedBuffer() = default;
  MappedBuffer(MappedBuffer&& o) noexcept
      : data(std::exchange(o.data, nullptr)),
        size(std::exchange(o.size, 0)),
        capacity(std::exchange(o.capacity, 0)) {}
  MappedBuffer& operator=(MappedBuffer&&) = delete;
  ~MappedBuffer();
  // Room for `more` bytes after `size` (std::bad_alloc without).
  void Grow(size_t more);
  // Room for `bytes` in all, taken at once while the buffer is empty (an estimate: Grow still
  // grows past it); nothing when the memory cannot be had (Grow will say so).
  void Reserve(size_t bytes);
};

// (mappings cached, bytes cached, mappings reused) of the cache, for tests.
struct MappingCacheStats {
  int64_t mappings = 0, bytes = 0, reused = 0;
};
MappingCacheStats MappingCacheState();

}  // namespace tarn::python
