// The access-control tables (access tokens, signing keys, the audit log, federation rules):
// their migrations and every statement on them. The catalog's access and federation calls, the
// commit engine (a commit's audit rows) and src/auth's TokenAuthority (signing keys, revocation
// reads) go through these functions.
#include "catalog/access_store.h"

#include "catalog/store.h"

namespace tarn::access_store {

namespace {

constexpr char kTokenColumns[] =
    "client_id, workspace, role, pattern, description, created_by, created_at, last_used_at, "
    "revoked_at";

constexpr char kRuleColumns[] =
    "r.id, r.issuer, r.subject, r.client_id, t.workspace, r.description, r.created_by, "
    "r.created_at";
constexpr char kRuleFrom[] =
    " FROM federation_rules r JOIN access_tokens t ON t.client_id = r.client_id";

Result<AccessTokenInfo> TokenFromRow(const Row& r) {
  AccessTokenInfo t;
  TARN_ASSIGN_OR_RETURN(auto id, r.Text(0));
  TARN_ASSIGN_OR_RETURN(auto ws, r.Text(1));
  TARN_ASSIGN_OR_RETURN(auto role, r.Text(2));
  TARN_ASSIGN_OR_RETURN(auto pattern, r.Text(3));
  TARN_ASSIGN_OR_RETURN(auto description, r.Text(4));
  TARN_ASSIGN_OR_RETURN(auto created_by, r.Text(5));
  t.client_id = std::string(id);
  t.workspace = std::string(ws);
  auto parsed = ParseRole(role);
  if (!parsed.ok()) {
    return Status::Corruption("access token '" + t.client_id + "' has an unknown role '" +
                              std::string(role) + "'");
  }
  t.role = *parsed;
  t.pattern = std::string(pattern);
  t.description = std::string(description);
  t.created_by = std::string(created_by);
  TARN_ASSIGN_OR_RETURN(t.created_at_us, r.Int64(6));
  TARN_ASSIGN_OR_RETURN(t.last_used_at_us, r.OptionalInt64(7));
  TARN_ASSIGN_OR_RETURN(t.revoked_at_us, r.OptionalInt64(8));
  return t;
}

Result<AuditRecord> AuditFromRow(const Row& r) {
  AuditRecord a;
  TARN_ASSIGN_OR_RETURN(a.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(a.at_us, r.Int64(1));
  std::string_view v;
  TARN_ASSIGN_OR_RETURN(v, r.Text(2));
  a.request_id = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(3));
  a.actor = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(4));
  a.action = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(5));
  a.target = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(6));
  a.workspace = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(7));
  a.outcome = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(8));
  a.detail_json = std::string(v);
  return a;
}

Result<FederationRule> RuleFromRow(const Row& r) {
  FederationRule f;
  std::string_view v;
  TARN_ASSIGN_OR_RETURN(v, r.Text(0));
  f.id = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(1));
  f.issuer = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(2));
  f.subject = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(3));
  f.client_id = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(4));
  f.workspace = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(5));
  f.description = std::string(v);
  TARN_ASSIGN_OR_RETURN(v, r.Text(6));
  f.created_by = std::string(v);
  TARN_ASSIGN_OR_RETURN(f.created_at_us, r.Int64(7));
  return f;
}

// Access control and audit (docs/features.md V5). Tokens name their workspace (or '*') by name so a
// bootstrap owner can exist before any workspace; secrets are Argon2id hashes (PHC strings).
// Signing keys sign the short-lived bearer tokens every server of one metastore issues and
// accepts. Audit rows of commits are written in the commit's own transaction.
constexpr char kAccessControl[] = R"sql(
CREATE TABLE access_tokens (
  client_id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL,
  role TEXT NOT NULL,
  pattern TEXT NOT NULL DEFAULT '*',
  secret_hash TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT,
  revoked_at BIGINT
);
CREATE INDEX access_tokens_workspace ON access_tokens (workspace);

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  secret ${BLOB} NOT NULL,
  created_at BIGINT NOT NULL,
  retired_at BIGINT
);

CREATE TABLE audit_log (
  id ${ID},
  at BIGINT NOT NULL,
  request_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  workspace TEXT NOT NULL DEFAULT '',
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log (at);
)sql";

// Federated sign-in (docs/design/federation.md): an owner's rule maps the ID tokens of one
// issuer with one exact subject to one access token's client. The issuers named here are the
// only ones the server ever contacts.
constexpr char kFederation[] = R"sql(
CREATE TABLE federation_rules (
  id TEXT PRIMARY KEY,
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  client_id TEXT NOT NULL REFERENCES access_tokens (client_id),
  description TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (issuer, subject)
);
CREATE INDEX federation_rules_client ON federation_rules (client_id);
)sql";

}  // namespace

const std::vector<Migration>& AccessTables() {
  static const std::vector<Migration>* steps = new std::vector<Migration>{
      {3, "access control", kAccessControl}, {6, "federation", kFederation}};
  return *steps;
}

namespace {
[[maybe_unused]] const bool kContributed = ContributeMigrations(AccessTables());
}  // namespace

// ---- access_tokens ----

Result<int64_t> InsertToken(Transaction& tx, const AccessTokenInfo& info,
                            std::string_view secret_hash, bool only_if_table_empty) {
  SqlParams params{info.client_id, info.workspace,   RoleName(info.role), info.pattern,
                   secret_hash,    info.description, info.created_by,     info.created_at_us};
  if (!only_if_table_empty) {
    return tx.Execute(
        "INSERT INTO access_tokens (client_id, workspace, role, pattern, secret_hash, "
        "description, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (client_id) DO NOTHING",
        params);
  }
  return tx.Execute(
      "INSERT INTO access_tokens (client_id, workspace, role, pattern, secret_hash, "
      "description, created_by, created_at) SELECT CAST(? AS TEXT), CAST(? AS TEXT), "
      "CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), "
      "CAST(? AS BIGINT) WHERE NOT EXISTS (SELECT 1 FROM access_tokens)",
      params);
}

Result<std::vector<AccessTokenInfo>> ListTokens(Transaction& tx, std::string_view workspace) {
  std::string sql = std::string("SELECT ") + kTokenColumns + " FROM access_tokens";
  SqlParams params;
  if (!workspace.empty()) {
    sql += " WHERE workspace = ?";
    params.emplace_back(workspace);
  }
  sql += " ORDER BY created_at, client_id";
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(sql, params));
  std::vector<AccessTokenInfo> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto t, TokenFromRow(r));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::optional<StoredToken>> GetToken(Transaction& tx, std::string_view client_id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kTokenColumns +
                                                  ", secret_hash FROM access_tokens WHERE "
                                                  "client_id = ?",
                                              {client_id}));
  if (!row) return std::optional<StoredToken>();
  StoredToken t;
  TARN_ASSIGN_OR_RETURN(t.info, TokenFromRow(*row));
  TARN_ASSIGN_OR_RETURN(auto h, row->Text(9));
  t.secret_hash = std::string(h);
  return std::optional<StoredToken>(std::move(t));
}

Result<int64_t> RevokeToken(Transaction& tx, std::string_view client_id, int64_t now_us) {
  return tx.Execute(
      "UPDATE access_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE client_id = ?",
      {now_us, client_id});
}

Status TouchToken(Transaction& tx, std::string_view client_id, int64_t now_us) {
  return tx
      .Execute("UPDATE access_tokens SET last_used_at = ? WHERE client_id = ?", {now_us, client_id})
      .status();
}

Result<bool> AnyToken(Transaction& tx) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT client_id FROM access_tokens LIMIT 1"));
  return row.has_value();
}

Result<bool> TokenExists(Transaction& tx, std::string_view client_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT 1 FROM access_tokens WHERE client_id = ?", {client_id}));
  return row.has_value();
}

Status ForEachClient(Transaction& tx,
                     const std::function<Status(std::string_view client_id, bool revoked)>& fn) {
  return tx.QueryEach("SELECT client_id, revoked_at FROM access_tokens", {},
                      [&](const Row& r) -> Status {
                        TARN_ASSIGN_OR_RETURN(auto id, r.Text(0));
                        TARN_ASSIGN_OR_RETURN(auto revoked, r.OptionalInt64(1));
                        return fn(id, revoked.has_value());
                      });
}

Result<std::optional<bool>> ClientRevoked(Transaction& tx, std::string_view client_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT revoked_at FROM access_tokens WHERE client_id = ?", {client_id}));
  if (!row) return std::optional<bool>();
  TARN_ASSIGN_OR_RETURN(auto at, row->OptionalInt64(0));
  return std::optional<bool>(at.has_value());
}

// ---- signing_keys ----

Result<bool> HasUnretiredSigningKey(Transaction& tx) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT kid FROM signing_keys WHERE retired_at IS NULL LIMIT 1"));
  return row.has_value();
}

Status InsertSigningKey(Transaction& tx, std::string_view kid, std::string_view secret,
                        int64_t created_at_us) {
  return tx
      .Execute("INSERT INTO signing_keys (kid, secret, created_at) VALUES (?, ?, ?)",
               {kid, SqlValue::Blob(secret), created_at_us})
      .status();
}

Result<std::vector<StoredSigningKey>> LoadSigningKeys(Transaction& tx) {
  TARN_ASSIGN_OR_RETURN(auto rows,
                        tx.Query("SELECT kid, secret, created_at, retired_at FROM signing_keys"));
  std::vector<StoredSigningKey> out;
  for (const Row& r : rows) {
    StoredSigningKey k;
    TARN_ASSIGN_OR_RETURN(auto kid, r.Text(0));
    TARN_ASSIGN_OR_RETURN(auto secret, r.Blob(1));
    k.kid = std::string(kid);
    k.secret = std::string(secret);
    TARN_ASSIGN_OR_RETURN(k.created_at_us, r.Int64(2));
    TARN_ASSIGN_OR_RETURN(k.retired_at_us, r.OptionalInt64(3));
    out.push_back(std::move(k));
  }
  return out;
}

// ---- audit_log ----

Status InsertAuditRows(Transaction& tx, const std::vector<AuditRecord>& records) {
  constexpr size_t kCols = 8;
  if (records.empty()) return Status::OK();
  SqlParams params;
  params.reserve(records.size() * kCols);
  for (const AuditRecord& a : records) {
    params.insert(params.end(), {a.at_us, a.request_id, a.actor, a.action, a.target, a.workspace,
                                 a.outcome, a.detail_json});
  }
  return tx.ExecuteDeferred(
      "INSERT INTO audit_log (at, request_id, actor, action, target, workspace, outcome, detail) "
      "VALUES " +
          catalog_store::Placeholders(records.size(), kCols),
      params);
}

Result<std::vector<AuditRecord>> ListAudit(Transaction& tx, const AuditQuery& query) {
  std::string sql =
      "SELECT id, at, request_id, actor, action, target, workspace, outcome, detail "
      "FROM audit_log WHERE at >= ?";
  SqlParams params{query.since_us};
  if (query.until_us) {
    sql += " AND at < ?";
    params.emplace_back(*query.until_us);
  }
  if (!query.workspace.empty()) {
    sql += " AND workspace = ?";
    params.emplace_back(query.workspace);
  }
  if (!query.actor.empty()) {
    sql += " AND actor = ?";
    params.emplace_back(query.actor);
  }
  // Keyset paging on the row id (AuditQuery): upwards from `after`, else downwards.
  if (query.after) {
    sql += " AND id > ?";
    params.emplace_back(*query.after);
  }
  if (query.before) {
    sql += " AND id < ?";
    params.emplace_back(*query.before);
  }
  sql += query.after ? " ORDER BY id LIMIT ?" : " ORDER BY id DESC LIMIT ?";
  params.emplace_back(query.limit);
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(sql, params));
  std::vector<AuditRecord> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto a, AuditFromRow(r));
    out.push_back(std::move(a));
  }
  return out;
}

// ---- federation_rules ----

Result<int64_t> InsertRule(Transaction& tx, const FederationRule& rule) {
  return tx.Execute(
      "INSERT INTO federation_rules (id, issuer, subject, client_id, description, "
      "created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (issuer, subject) DO NOTHING",
      {rule.id, rule.issuer, rule.subject, rule.client_id, rule.description, rule.created_by,
       rule.created_at_us});
}

Result<std::vector<FederationRule>> ListRules(Transaction& tx) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(std::string("SELECT ") + kRuleColumns + kRuleFrom +
                                            " ORDER BY r.created_at, r.id"));
  std::vector<FederationRule> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto f, RuleFromRow(r));
    out.push_back(std::move(f));
  }
  return out;
}

Result<int64_t> DeleteRule(Transaction& tx, std::string_view id) {
  return tx.Execute("DELETE FROM federation_rules WHERE id = ?", {id});
}

Result<std::optional<FederationRule>> FindRule(Transaction& tx, std::string_view issuer,
                                               std::string_view subject) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kRuleColumns + kRuleFrom +
                                                  " WHERE r.issuer = ? AND r.subject = ?",
                                              {issuer, subject}));
  if (!row) return std::optional<FederationRule>();
  TARN_ASSIGN_OR_RETURN(auto f, RuleFromRow(*row));
  return std::optional<FederationRule>(std::move(f));
}

Result<bool> HasIssuer(Transaction& tx, std::string_view issuer) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT 1 FROM federation_rules WHERE issuer = ? LIMIT 1", {issuer}));
  return row.has_value();
}

}  // namespace tarn::access_store
