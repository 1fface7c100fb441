#include "cli/catalog_common.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>

#include "cli/cli.h"
#include "common/clock.h"
#include "common/units.h"
#include "types/value_text.h"

namespace tarn::cli {

using nlohmann::json;

CatalogOptions* SharedCatalogOptions() {
  static CatalogOptions options;
  return &options;
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Result<std::string> CatalogTarget(const CatalogOptions& o) {
  std::string dir = o.dir;
  if (dir.empty()) {
    const char* env = std::getenv("TARN_CATALOG");
    if (env && *env) dir = env;
  }
  if (dir.empty()) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
      return Status::InvalidArgument("no catalog: pass --catalog DIR|URL or set TARN_CATALOG");
    }
    dir = std::string(home) + "/.tarn";
  }
  return dir;
}

ClientOptions RemoteOptions(const CatalogOptions& o) {
  ClientOptions opts;
  opts.client_id = o.client_id;
  opts.client_secret = o.client_secret;
  opts.token = o.token;
  if (const char* audience = std::getenv("TARN_OIDC_AUDIENCE")) opts.oidc_audience = audience;
  bool flag_token = !o.token.empty();
  bool flag_secret = !o.client_id.empty() || !o.client_secret.empty();
  if (flag_token && !flag_secret) return opts;  // --token alone: nothing from the environment
  ClientOptions env;
  env.FillFromEnvironment();
  if (opts.client_id.empty()) opts.client_id = env.client_id;
  if (opts.client_secret.empty()) opts.client_secret = env.client_secret;
  if (!flag_secret && opts.token.empty()) opts.token = env.token;
  return opts;
}

Result<std::unique_ptr<Client>> OpenClient(const CatalogOptions& o) {
  TARN_ASSIGN_OR_RETURN(std::string target, CatalogTarget(o));
  return Client::Connect(target, RemoteOptions(o));
}

Result<int64_t> ParseDuration(const std::string& text) { return tarn::ParseDuration(text); }

// A point in time: a duration back from now ("1h") or an RFC 3339 timestamp / date (UTC).
Result<int64_t> ParseWhen(const char* flag, const std::string& text) {
  if (auto ago = ParseDuration(text); ago.ok()) return NowMicros() - *ago;
  auto ts = ParseTimestampTz(text, TimeUnit::kMicro);
  if (ts.ok()) return *ts;
  return Status::InvalidArgument(std::string(flag) +
                                 ": expected a duration back from now (30m, 1h, 7d) or an "
                                 "RFC 3339 timestamp, got '" +
                                 text + "'")
      .WithField("field", flag);
}

int64_t NowMicros() { return Clock::Real()->NowMicros(); }

std::string FormatTime(int64_t us) {
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  int64_t frac = us % 1'000'000;
  if (frac < 0) {
    frac += 1'000'000;
    --secs;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(frac));
  return buf;
}

json PropsJson(const PropertyMap& p) {
  json j = json::object();
  for (const auto& [k, v] : p) j[k] = v;
  return j;
}

Result<PropertyMap> ParseAssignments(const std::vector<std::string>& args) {
  PropertyMap out;
  for (const auto& a : args) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("expected KEY=VALUE, got '" + a + "'");
    }
    out[a.substr(0, eq)] = a.substr(eq + 1);
  }
  return out;
}

void PrintKeyValues(const std::vector<std::pair<std::string, std::string>>& kv) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [k, v] : kv) rows.push_back({k, v});
  PrintTable({"field", "value"}, rows);
}

std::string DefaultAuthor(const Client& client) {
  const char* v = std::getenv("TARN_AUTHOR");
  if (v && *v) return v;
  return client.actor();
}

CommitMeta CommitArgs::Meta(const Client& client) const {
  CommitMeta m;
  m.author = author.empty() ? DefaultAuthor(client) : author;
  m.message = message;
  if (!idempotency_key.empty()) m.idempotency_key = idempotency_key;
  // A hand-run command: a receipt with no producer; what it read is filled in by the commands
  // that read datasets (sql --into), and nothing else reads any (docs/design/provenance.md).
  m.receipt = Receipt{};
  return m;
}

void AddCommitArgs(CLI::App* cmd, CommitArgs* c, bool idempotency) {
  cmd->add_option("-m,--message", c->message, "Commit message");
  cmd->add_option("--author", c->author,
                  "Author (default $TARN_AUTHOR, else the client id or local:$USER)");
  if (idempotency) {
    cmd->add_option("--idempotency-key", c->idempotency_key,
                    "A retry with the same key returns the original snapshot");
  }
}

}  // namespace tarn::cli
