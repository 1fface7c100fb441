// Helpers shared by the catalog command groups (catalog_commands.cc, dataset_commands.cc,
// access_commands.cc): opening the catalog as a tarn::Client (embedded directory or a remote
// `tarn serve`), timestamps, JSON output and KEY=VALUE arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "tarn/client.h"
#include "tarn/status.h"

namespace tarn::cli {

// The global options that say which catalog to use and how to authenticate to a remote one.
struct CatalogOptions {
  std::string dir;            // --catalog: a directory or an http(s):// URL
  std::string client_id;      // --client-id (else $TARN_CLIENT_ID)
  std::string client_secret;  // --client-secret (else $TARN_CLIENT_SECRET)
  std::string token;          // --token (else $TARN_TOKEN)
};

// The one instance behind the global options (registered by RegisterCatalogCommands).
CatalogOptions* SharedCatalogOptions();

// Compact JSON, invalid UTF-8 replaced.
std::string Dump(const nlohmann::json& j);

// `--catalog`, else $TARN_CATALOG, else ~/.tarn. kInvalidArgument when none can be found.
Result<std::string> CatalogTarget(const CatalogOptions& o);
// The credentials for a remote catalog: flags first, then the environment. A credential given
// as a flag (--token, or --client-id/--client-secret) keeps the other kind from being taken
// from the environment.
ClientOptions RemoteOptions(const CatalogOptions& o);
// The catalog as a tarn::Client: the embedded catalog of a directory, or the remote catalog of
// an http(s):// URL (its credentials are checked at once: kUnauthenticated when refused,
// kUnavailable when the server cannot be reached).
Result<std::unique_ptr<Client>> OpenClient(const CatalogOptions& o);

// "7d", "12h", "30m", "0s", "1w", "250ms", also "1d12h", in microseconds; kInvalidArgument
// otherwise.
Result<int64_t> ParseDuration(const std::string& text);
// A point in time: a duration back from now ("1h") or an RFC 3339 timestamp / date (UTC);
// kInvalidArgument naming `flag` otherwise.
Result<int64_t> ParseWhen(const char* flag, const std::string& text);
int64_t NowMicros();

// RFC 3339 UTC with microseconds: "2026-01-01T00:00:00.000000Z".
std::string FormatTime(int64_t us);

nlohmann::json PropsJson(const PropertyMap& p);

// Parses KEY=VALUE arguments (kInvalidArgument for a missing '=' or an empty key).
Result<PropertyMap> ParseAssignments(const std::vector<std::string>& args);

// The author of a commit without --author: $TARN_AUTHOR, else who the client runs as.
std::string DefaultAuthor(const Client& client);

// -m/--message, --author and (optionally) --idempotency-key of a committing command.
struct CommitArgs {
  std::string message;
  std::string author;
  std::string idempotency_key;

  // The commit's meta: the author (or DefaultAuthor), message, key, and a receipt of a
  // hand-run command (read nothing, no producer).
  CommitMeta Meta(const Client& client) const;
};
void AddCommitArgs(CLI::App* cmd, CommitArgs* c, bool idempotency);

// A two-column "field value" table.
void PrintKeyValues(const std::vector<std::pair<std::string, std::string>>& kv);

}  // namespace tarn::cli
