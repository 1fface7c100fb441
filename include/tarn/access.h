// Access tokens and the audit log (docs/features.md V5): the value types of the catalog's access
// API. Storage lives in the metastore (migration 3); src/catalog/access.cc implements the Catalog
// members.
// Signing and verifying bearer tokens, and deciding what a role may do, live in src/auth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn {

// reader reads; writer also commits (appends, deletes, rollbacks, tags, offsets); owner also
// changes definitions, properties, tokens and runs maintenance.
enum class Role : uint8_t { kReader = 1, kWriter = 2, kOwner = 3 };
std::string_view RoleName(Role role);  // "reader", "writer", "owner"
// kInvalidArgument (code=invalid_role) for anything else.
Result<Role> ParseRole(std::string_view name);

// What `tarn token create` asks for.
struct AccessTokenSpec {
  std::string workspace;  // a workspace name, or "*" for every workspace
  Role role = Role::kReader;
  std::string pattern = "*";  // glob over "collection.dataset" names inside the workspace
  std::string description;
  // Only for the bootstrap owner taken from the environment: use these instead of random ones.
  std::optional<std::string> client_id;
  std::optional<std::string> client_secret;
};

struct AccessTokenInfo {
  std::string client_id;
  std::string workspace;
  Role role = Role::kReader;
  std::string pattern = "*";
  std::string description;
  std::string created_by;
  int64_t created_at_us = 0;
  std::optional<int64_t> last_used_at_us;
  std::optional<int64_t> revoked_at_us;
};

// Returned once by CreateAccessToken: the secret is stored only as a salted slow hash.
struct NewAccessToken {
  AccessTokenInfo info;
  std::string client_secret;
};

// One row of the audit log: who did what to which target, and how it ended.
struct AuditRecord {
  int64_t id = 0;     // assigned by the metastore
  int64_t at_us = 0;  // 0 = now
  std::string request_id;
  std::string actor;               // client id, or "local:<user>" for embedded use
  std::string action;              // "dataset.append", "token.create", ...
  std::string target;              // "acme.sales.orders", "acme", a client id, ...
  std::string workspace;           // "" when none
  std::string outcome;             // "ok" or the error code
  std::string detail_json = "{}";  // a JSON object
};

// What `tarn token federate` asks for: ID tokens of `issuer` whose `sub` is exactly `subject`
// sign in as the access token `client_id` (docs/design/federation.md).
struct FederationRuleSpec {
  std::string issuer;   // https://... (http only on loopback), compared as an exact string
  std::string subject;  // the exact `sub` claim; for Google the numeric service account id
  std::string client_id;
  std::string description;
};

struct FederationRule {
  std::string id;  // "fed_" + 20 base32 characters
  std::string issuer;
  std::string subject;
  std::string client_id;
  std::string workspace;  // the client's workspace, for listing
  std::string description;
  std::string created_by;
  int64_t created_at_us = 0;
};

// Whether `issuer` may be trusted by a federation rule: an absolute https URL without user
// info, query or fragment (http only for 127.0.0.1, [::1] or localhost), at most 512 bytes.
// kInvalidArgument (code=invalid_issuer, field=issuer) otherwise. In tarn::tarn only (the
// catalog implements it).
Status ValidateFederationIssuer(std::string_view issuer);

// Audit rows in row id order (the order they were written; `at` agrees unless servers' clocks
// disagree), oldest first. Without a cursor: the newest `limit` rows. `after` / `before` are
// audit row ids (AuditRecord::id, exclusive): with `after` the first `limit` rows above it
// (below `before` when both are given), with `before` alone the last `limit` rows below it.
// A page of `limit` rows continues: after its last id when read with `after`, else before its
// first; a shorter page is the end (docs/design/serve.md "Paging").
struct AuditQuery {
  int64_t since_us = 0;
  std::optional<int64_t> until_us;
  std::string workspace;  // "" = every workspace
  std::string actor;      // "" = every actor
  int64_t limit = 1000;   // 1..100000
  std::optional<int64_t> after;
  std::optional<int64_t> before;
};

}  // namespace tarn
