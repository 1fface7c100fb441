// pymalloc's arenas from regions advised for transparent huge pages (arenas.h).
//
// CPython 3.11 takes its object memory in arenas of 1 MiB from PyObjectArenaAllocator (mmap
// and munmap by default). A scan into pandas makes millions of objects in fresh arenas, and each
// 4 KiB page of them costs a page fault. This allocator cuts arenas out of 8 MiB regions aligned
// to 2 MiB and advised MADV_HUGEPAGE, so the kernel backs them with huge pages where it can (THP
// "madvise" or "always"; with "never" nothing changes).
//
// Freed arenas are reused before new memory is mapped: first the free slots of regions that
// still hold live arenas, then regions emptied earlier. An emptied region is kept (up to
// TARN_PYTHON_HUGE_ARENAS_KEEP MiB, 512 by default) and advised MADV_FREE: the kernel takes its
// pages back when it needs memory, and until then the next scan writes into pages that are
// already there. Giving each emptied arena back with munmap, as the default allocator does, made
// every scan fault in fresh huge pages, which on a VM whose host reclaims free guest memory
// (free page reporting) cost 5-8x a warm scan (bench/README.md). A region emptied beyond that
// cap is unmapped. Arenas of another size, and every arena made before, go to (and back to) the
// allocator this one replaced.
//
// Every call runs with the GIL held (pymalloc's rule), so the state needs no lock.
#include "python/arenas.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

namespace tarn::python {
namespace {

constexpr size_t kPage = size_t{4} << 10;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kRegion = size_t{8} << 20;
constexpr int64_t kDefaultKeepMiB = 512;

struct Region {
  char* base = nullptr;
  int live = 0;             // arenas handed out and not freed
  std::vector<char*> free;  // slots not handed out
};

struct HugeArenas {
  bool installed = false;
  PyObjectArenaAllocator previous{};         // frees the arenas made before, and other sizes
  size_t arena = 0;                          // the arena size (the first one asked for)
  size_t keep = 0;                           // emptied regions kept at most
  std::unordered_map<void*, Region*> owner;  // a live arena's region
  std::set<Region*> partial;                 // regions with live arenas and free slots
  std::vector<Region*> empty;                // emptied regions kept (MADV_FREE)
  std::unordered_map<char*, std::unique_ptr<Region>> regions;  // every mapped region
  int64_t mapped = 0, unmapped = 0, made = 0, freed = 0;
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

// A region with a free slot (kept from before, or mapped now), in `partial`; nullptr when no
// memory could be mapped. Throws std::bad_alloc (the bookkeeping's own memory) leaving the
// state as it was.
Region* RegionWithRoom(HugeArenas& s) {
  if (!s.partial.empty()) return *s.partial.begin();  // the lowest: live arenas stay packed
  if (!s.empty.empty()) {
    Region* r = s.empty.back();
    s.partial.insert(r);
    s.empty.pop_back();
    return r;
  }
  auto r = std::make_unique<Region>();
  r->free.reserve(kRegion / s.arena);  // never grows after this: Free pushes without allocating
  char* base = MapRegion();
  if (base == nullptr) return nullptr;
  r->base = base;
  for (size_t off = kRegion / s.arena; off-- > 0;) r->free.push_back(base + off * s.arena);
  Region* raw = r.get();
  try {
    s.regions.emplace(base, std::move(r));
    s.partial.insert(raw);
  } catch (...) {
    s.regions.erase(base);
    munmap(base, kRegion);
    throw;
  }
  ++s.mapped;
  return raw;
}

void* Alloc(void* ctx, size_t size) {
  auto& s = *static_cast<HugeArenas*>(ctx);
  if (s.arena == 0 && size > 0 && size <= kRegion / 2 && size % kPage == 0 && kRegion % size == 0) {
    s.arena = size;  // 1 MiB in CPython 3.11
  }
  if (size == 0 || size != s.arena) return s.previous.alloc(s.previous.ctx, size);
  try {
    Region* r = RegionWithRoom(s);
    if (r == nullptr) return s.previous.alloc(s.previous.ctx, size);
    char* out = r->free.back();
    s.owner.emplace(out, r);
    r->free.pop_back();
    ++r->live;
    if (r->free.empty()) s.partial.erase(r);
    ++s.made;
    return out;
  } catch (...) {  // no memory to track it: this arena comes from the previous allocator
    return s.previous.alloc(s.previous.ctx, size);
  }
}

void Free(void* ctx, void* ptr, size_t size) {
  auto& s = *static_cast<HugeArenas*>(ctx);
  auto it = s.owner.find(ptr);
  if (it == s.owner.end()) {
    s.previous.free(s.previous.ctx, ptr, size);  // made before this allocator, or too large
    return;
  }
  Region* r = it->second;
  s.owner.erase(it);
  ++s.freed;
  --r->live;
  r->free.push_back(static_cast<char*>(ptr));  // within the capacity reserved for every slot
  if (r->live > 0) {
    try {
      s.partial.insert(r);
    } catch (...) {  // no memory for the node: the region's free slots wait until it empties
    }
    return;
  }
  s.partial.erase(r);
  if (s.empty.size() < s.keep) {
    madvise(r->base, kRegion, MADV_FREE);  // the kernel may take the pages; they stay mapped
    s.empty.push_back(r);                  // capacity reserved at install: does not allocate
    return;
  }
  char* const base = r->base;
  munmap(base, kRegion);
  ++s.unmapped;
  s.regions.erase(base);
}

}  // namespace

void UseHugePageArenas() {
  HugeArenas& s = State();
  if (s.installed) return;
  s.installed = true;  // decided once, either way
  const char* env = std::getenv("TARN_PYTHON_HUGE_ARENAS");
  if (env != nullptr && std::strcmp(env, "0") == 0) return;
  int64_t keep_mib = kDefaultKeepMiB;
  if (const char* k = std::getenv("TARN_PYTHON_HUGE_ARENAS_KEEP"); k != nullptr && *k != '\0') {
    char* end = nullptr;
    const long long v = std::strtoll(k, &end, 10);
    if (end != nullptr && *end == '\0' && v >= 0 && v <= (int64_t{1} << 20)) keep_mib = v;  // 1 TiB
  }
  s.keep = static_cast<size_t>(keep_mib) / (kRegion >> 20);
  try {
    s.empty.reserve(s.keep);
  } catch (...) {
    s.keep = 0;
  }
  PyObject_GetArenaAllocator(&s.previous);
  PyObjectArenaAllocator mine{&s, &Alloc, &Free};
  PyObject_SetArenaAllocator(&mine);
}

pybind11::tuple HugePageArenaStats() {
  HugeArenas& s = State();
  PyObjectArenaAllocator now{};
  PyObject_GetArenaAllocator(&now);
  return pybind11::make_tuple(now.alloc == &Alloc, s.mapped, s.made, s.freed,
                              static_cast<int64_t>(s.empty.size()), s.unmapped);
}

}  // namespace tarn::python
