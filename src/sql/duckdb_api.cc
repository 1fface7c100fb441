#include "sql/duckdb_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "sql/error_codes.h"

namespace tarn::sql {

namespace {

Result<const DuckDbApi*> Load() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TARN_DUCKDB_LIBRARY"); env && *env) {
    candidates.push_back(env);
  } else {
#ifdef TARN_DUCKDB_DEFAULT_LIBRARY
    candidates.push_back(TARN_DUCKDB_DEFAULT_LIBRARY);
#endif
    candidates.push_back("libduckdb.so");
  }
  std::string tried;
  for (const std::string& path : candidates) {
    // RTLD_LOCAL: DuckDB's symbols stay out of the global namespace.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      tried += "\n  " + path + ": " + (why ? why : "not loadable");
      continue;
    }
    auto api = std::make_unique<DuckDbApi>();
    api->path = path;
    std::string missing;
#define TARN_DUCKDB_RESOLVE(f)                                  \
  api->f = reinterpret_cast<decltype(&::f)>(dlsym(handle, #f)); \
  if (!api->f) missing += std::string(missing.empty() ? "" : ", ") + #f;
    TARN_DUCKDB_FUNCTIONS(TARN_DUCKDB_RESOLVE)
#undef TARN_DUCKDB_RESOLVE
    if (!missing.empty()) {
      dlclose(handle);
      tried += "\n  " + path + ": lacks " + missing + " (DuckDB 1.4 or later is needed)";
      continue;
    }
    api->version = api->duckdb_library_version();
    return api.release();  // loaded for the life of the process
  }
  return Status::Of(
      codes::kSqlEngineUnavailable,
      "tarn sql needs DuckDB's library (libduckdb.so), which could not be loaded:" + tried +
          "\ninstall it with scripts/bootstrap.sh (as root: /opt/tarn/duckdb), or "
          "point TARN_DUCKDB_LIBRARY at a libduckdb.so of DuckDB 1.4 or later");
}

}  // namespace

Result<const DuckDbApi*> LoadDuckDb() {
  static std::once_flag once;
  static Result<const DuckDbApi*>* loaded = nullptr;
  std::call_once(once, [] { loaded = new Result<const DuckDbApi*>(Load()); });
  return *loaded;
}

}  // namespace tarn::sql
