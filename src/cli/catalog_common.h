// Helpers shared by the catalog command groups (catalog_commands.cc, dataset_commands.cc):
// opening the embedded catalog, timestamps, JSON output and KEY=VALUE arguments.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "common/status.h"

namespace tarn::cli {

struct CatalogOptions {
  std::string dir;  // --catalog
};

// The one instance behind the global `--catalog` option (registered by
// RegisterCatalogCommands).
CatalogOptions* SharedCatalogOptions();

// Compact JSON, invalid UTF-8 replaced.
std::string Dump(const nlohmann::json& j);

// The embedded catalog of `--catalog DIR`, else $TARN_CATALOG, else ~/.tarn.
Result<std::unique_ptr<Catalog>> OpenCatalog(const CatalogOptions& o);

// RFC 3339 UTC with microseconds: "2026-01-01T00:00:00.000000Z".
std::string FormatTime(int64_t us);

nlohmann::json PropsJson(const PropertyMap& p);

// Parses KEY=VALUE arguments (kInvalidArgument for a missing '=' or an empty key).
Result<PropertyMap> ParseAssignments(const std::vector<std::string>& args);

// A two-column "field value" table.
void PrintKeyValues(const std::vector<std::pair<std::string, std::string>>& kv);

}  // namespace tarn::cli
