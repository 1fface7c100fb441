// The access-control tables: access_tokens, signing_keys, audit_log (migration 3) and
// federation_rules (migration 6), contributed to SchemaMigrations(). Every statement on them is
// one of the functions below; callers run them inside their own Metastore::RunInTransaction.
// Used by the catalog's access and federation calls, the commit engine (a commit's audit rows)
// and src/auth's TokenAuthority (signing keys, revocation reads). The tables live in the catalog
// module, not src/auth, because the catalog writes them in its own transactions (a commit's
// audit row) and src/auth sits above the catalog.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metastore/metastore.h"
#include "tarn/access.h"

namespace tarn::access_store {

// Migrations 3 ("access control") and 6 ("federation").
const std::vector<Migration>& AccessTables();

// ---- access_tokens ----

// Inserts a token row (created_at from `info`); `only_if_table_empty` inserts only while the
// table holds no row (the serializable transaction makes concurrent first inserts conflict, and
// the retry sees the winner's row). Returns the number of rows inserted (0: the client id
// exists, or the table was not empty).
Result<int64_t> InsertToken(Transaction& tx, const AccessTokenInfo& info,
                            std::string_view secret_hash, bool only_if_table_empty);
// Tokens of `workspace` (empty: every token), by creation time then client id.
Result<std::vector<AccessTokenInfo>> ListTokens(Transaction& tx, std::string_view workspace);
struct StoredToken {
  AccessTokenInfo info;
  std::string secret_hash;
};
Result<std::optional<StoredToken>> GetToken(Transaction& tx, std::string_view client_id);
// Sets revoked_at (kept when already set); returns the rows matched (0: no such client).
Result<int64_t> RevokeToken(Transaction& tx, std::string_view client_id, int64_t now_us);
Status TouchToken(Transaction& tx, std::string_view client_id, int64_t now_us);
Result<bool> AnyToken(Transaction& tx);
Result<bool> TokenExists(Transaction& tx, std::string_view client_id);
// Every client id with whether it is revoked (streamed).
Status ForEachClient(Transaction& tx,
                     const std::function<Status(std::string_view client_id, bool revoked)>& fn);
// Whether `client_id` is revoked; nullopt when there is no such client.
Result<std::optional<bool>> ClientRevoked(Transaction& tx, std::string_view client_id);

// ---- signing_keys ----

struct StoredSigningKey {
  std::string kid;
  std::string secret;
  int64_t created_at_us = 0;
  std::optional<int64_t> retired_at_us;
};
Result<bool> HasUnretiredSigningKey(Transaction& tx);
Status InsertSigningKey(Transaction& tx, std::string_view kid, std::string_view secret,
                        int64_t created_at_us);
Result<std::vector<StoredSigningKey>> LoadSigningKeys(Transaction& tx);

// ---- audit_log ----

// Queues the insert of `records` as they are (id ignored; the caller validated, sanitized and
// timed them), in one statement.
Status InsertAuditRows(Transaction& tx, const std::vector<AuditRecord>& records);
// The newest `query.limit` rows matching the query, newest first.
Result<std::vector<AuditRecord>> ListAudit(Transaction& tx, const AuditQuery& query);

// ---- federation_rules ----

// Inserts a rule (workspace ignored); returns 0 when (issuer, subject) is taken.
Result<int64_t> InsertRule(Transaction& tx, const FederationRule& rule);
// Rules with their client's workspace, by creation time then id.
Result<std::vector<FederationRule>> ListRules(Transaction& tx);
Result<int64_t> DeleteRule(Transaction& tx, std::string_view id);
Result<std::optional<FederationRule>> FindRule(Transaction& tx, std::string_view issuer,
                                               std::string_view subject);
Result<bool> HasIssuer(Transaction& tx, std::string_view issuer);

}  // namespace tarn::access_store
