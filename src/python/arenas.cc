// pymalloc's arenas from regions advised for transparent huge pages (arenas.h).
//
// CPython 3.11 takes its object memory in arenas of 1 MiB from PyObjectArenaAllocator (mmap
// and munmap by default). A scan into pandas makes millions of objects in fresh arenas, and each
// 4 KiB page of them costs a page fault. This allocator cuts arenas out of 8 MiB regions aligned
// to 2 MiB and advised MADV_HUGEPAGE, so the kernel backs them with huge pages where it can (THP
// "madvise" or "always"; with "never" nothing changes). An arena is given back with munmap of
// its own range, as the default allocator does, so memory is returned the same way; the unused
// rest of the current region stays reserved (address space only) for the next arena. Arenas of
// another size, and every arena made before, go to (and back to) the allocator it replaced.
//
// Every call runs with the GIL held (pymalloc's rule), so the state needs no lock.
#include "python/arenas.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

namespace tarn::python {
namespace {

constexpr size_t kPage = size_t{4} << 10;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kRegion = size_t{8} << 20;

struct HugeArenas {
  bool installed = false;
  PyObjectArenaAllocator previous{};  // frees the arenas made before
  std::unordered_set<void*> arenas;   // the live arenas made here (a few hundred at most)
  char* next = nullptr;               // the current region's unused rest
  size_t left = 0;
  int64_t regions = 0, made = 0, freed = 0;
};

HugeArenas& State() {
  static HugeArenas* s = new HugeArenas();  // never destroyed: arenas outlive static teardown
  return *s;
}

// A region of kRegion bytes aligned to a huge page, or nullptr.
char* MapRegion() {
  void* p = mmap(nullptr, kRegion + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t base = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (base > start) munmap(p, base - start);
  const uintptr_t end = start + kRegion + kHugePage;
  if (end > base + kRegion) munmap(reinterpret_cast<void*>(base + kRegion), end - base - kRegion);
  madvise(reinterpret_cast<void*>(base), kRegion, MADV_HUGEPAGE);  // advice only
  return reinterpret_cast<char*>(base);
}

void* Alloc(void* ctx, size_t size) {
  auto& s = *static_cast<HugeArenas*>(ctx);
  // An arena is 1 MiB in CPython 3.11; anything that would not fit a region twice goes to the
  // allocator that was there before.
  if (size == 0 || size > kRegion / 2 || size % kPage != 0) {
    return s.previous.alloc(s.previous.ctx, size);
  }
  if (size > s.left) {
    char* region = MapRegion();
    if (region == nullptr) return s.previous.alloc(s.previous.ctx, size);
    if (s.left > 0) munmap(s.next, s.left);  // the rest of the last region, never used
    ++s.regions;
    s.next = region;
    s.left = kRegion;
  }
  void* out = s.next;
  try {
    s.arenas.insert(out);
  } catch (...) {  // no memory to track it: this arena comes from the previous allocator
    return s.previous.alloc(s.previous.ctx, size);
  }
  s.next += size;
  s.left -= size;
  ++s.made;
  return out;
}

void Free(void* ctx, void* ptr, size_t size) {
  auto& s = *static_cast<HugeArenas*>(ctx);
  if (s.arenas.erase(ptr) == 0) {
    s.previous.free(s.previous.ctx, ptr, size);  // made before this allocator, or too large
    return;
  }
  munmap(ptr, size);
  ++s.freed;
}

}  // namespace

void UseHugePageArenas() {
  HugeArenas& s = State();
  if (s.installed) return;
  s.installed = true;  // decided once, either way
  const char* env = std::getenv("TARN_PYTHON_HUGE_ARENAS");
  if (env != nullptr && std::strcmp(env, "0") == 0) return;
  PyObject_GetArenaAllocator(&s.previous);
  PyObjectArenaAllocator mine{&s, &Alloc, &Free};
  PyObject_SetArenaAllocator(&mine);
}

pybind11::tuple HugePageArenaStats() {
  HugeArenas& s = State();
  PyObjectArenaAllocator now{};
  PyObject_GetArenaAllocator(&now);
  return pybind11::make_tuple(now.alloc == &Alloc, s.regions, s.made, s.freed);
}

}  // namespace tarn::python
