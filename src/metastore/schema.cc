// The one ordered list of migrations, assembled from the steps each module that owns tables
// contributes (catalog: src/catalog/store.cc and access_store.cc; upload: src/upload/store.cc).
// The tables themselves, and every statement on them, live in those modules.
#include <algorithm>
#include <mutex>

#include "metastore/metastore.h"

namespace tarn {

namespace {

struct Contributions {
  std::mutex mu;
  std::vector<Migration> steps;
};

Contributions& Registry() {
  static Contributions* registry = new Contributions;  // never destroyed: used at exit too
  return *registry;
}

}  // namespace

bool ContributeMigrations(std::vector<Migration> steps) {
  Contributions& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto& m : steps) r.steps.push_back(std::move(m));
  return true;
}

std::vector<Migration> SchemaMigrations() {
  Contributions& r = Registry();
  std::vector<Migration> out;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    out = r.steps;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Migration& a, const Migration& b) { return a.version < b.version; });
  return out;
}

}  // namespace tarn
