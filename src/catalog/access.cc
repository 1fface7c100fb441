// Access tokens (Argon2id-hashed client secrets) and the audit log: the Catalog members declared
// under "access tokens and audit" in catalog.h, over the tables of migration 3.
#include <argon2.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "catalog/access_internal.h"
#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "common/random.h"
#include "common/utf8.h"
#include "metastore/metastore.h"

namespace tarn {

namespace {

using catalog_internal::WorkspaceId;

// Argon2id parameters (OWASP's minimum: m=19 MiB, t=2, p=1).
constexpr uint32_t kArgonTime = 2;
constexpr uint32_t kArgonMemoryKiB = 19456;
constexpr uint32_t kArgonLanes = 1;
constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;

constexpr size_t kClientIdRandomChars = 20;
constexpr size_t kSecretChars = 40;
constexpr size_t kMinGivenSecretChars = 16;
constexpr size_t kMaxClientIdBytes = 128;
constexpr size_t kMaxSecretBytes = 1024;
constexpr size_t kMaxPatternBytes = 257;
constexpr size_t kMaxDescriptionBytes = 1024;
constexpr int64_t kMaxAuditLimit = 100000;
constexpr size_t kMaxAuditFieldBytes = 1024;
constexpr size_t kMaxAuditDetailBytes = 64 * 1024;

Status InvalidClient() { return Status::Of(codes::kInvalidClient, "invalid client credentials"); }

Status TokenNotFound(std::string_view client_id) {
  return Status::Of(codes::kTokenNotFound, "access token '" +
                                               std::string(client_id.substr(0, kMaxClientIdBytes)) +
                                               "' does not exist")
      .WithField("client_id", std::string(client_id.substr(0, kMaxClientIdBytes)));
}

Result<std::string> HashSecret(std::string_view secret) {
  TARN_ASSIGN_OR_RETURN(const std::string salt, SecureRandomBytes(kSaltBytes));
  std::string encoded(argon2_encodedlen(kArgonTime, kArgonMemoryKiB, kArgonLanes, kSaltBytes,
                                        kHashBytes, Argon2_id),
                      '\0');
  int rc =
      argon2id_hash_encoded(kArgonTime, kArgonMemoryKiB, kArgonLanes, secret.data(), secret.size(),
                            salt.data(), salt.size(), kHashBytes, encoded.data(), encoded.size());
  if (rc != ARGON2_OK) {
    return Status::Internal(std::string("hashing the client secret failed: ") +
                            argon2_error_message(rc));
  }
  encoded.resize(encoded.find('\0') == std::string::npos ? encoded.size() : encoded.find('\0'));
  return encoded;
}

// Whether `secret` matches the PHC string `encoded`; false for any malformed input.
bool VerifySecret(const std::string& encoded, std::string_view secret) {
  return argon2id_verify(encoded.c_str(), secret.data(), secret.size()) == ARGON2_OK;
}

// A hash of a random secret with the real parameters: unknown client ids verify against it so
// they cost the same time as known ones.
const std::string& DummyHash() {
  static const std::string* hash = [] {
    auto secret = RandomBase32(kSecretChars);
    auto h = HashSecret(secret.ok() ? *secret : std::string(kSecretChars, 'a'));
    return new std::string(h.ok() ? *h : std::string());
  }();
  return *hash;
}

bool PrintableNoSpace(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

// Whether `id` could be a stored client id (anything else is unknown without asking the
// database, which might refuse a NUL byte with a different error).
bool ClientIdShape(std::string_view id) {
  return !id.empty() && id.size() <= kMaxClientIdBytes && PrintableNoSpace(id);
}

// Length of the valid UTF-8 sequence at s[i] (no overlongs, surrogates or NUL), or 0.
size_t TextSequenceAt(std::string_view s, size_t i) {
  return s[i] == '\0' ? 0 : Utf8SequenceAt(s, i);
}

bool ValidText(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = TextSequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// `s` with every NUL byte and invalid UTF-8 byte replaced by '?': audit rows must land whatever
// a caller sent (PostgreSQL refuses both in TEXT).
std::string SanitizeText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = TextSequenceAt(s, i);
    if (n == 0) {
      out += '?';
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

Status ValidatePattern(std::string_view pattern) {
  auto bad = [&](std::string_view why) {
    return Status::Of(
               codes::kInvalidPattern,
               "token pattern '" + std::string(pattern.substr(0, 300)) + "' " + std::string(why))
        .WithField("field", "pattern");
  };
  if (pattern.empty()) return bad("is empty");
  if (pattern.size() > kMaxPatternBytes) return bad("is too long");
  for (char c : pattern) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '*' || c == '?';
    if (!ok) return bad("may only hold name characters, '.', '*' and '?'");
  }
  if (std::count(pattern.begin(), pattern.end(), '.') > 1) {
    return bad("must be a glob over collection.dataset (at most one '.')");
  }
  return Status::OK();
}

Status ValidateSpec(const AccessTokenSpec& spec) {
  if (spec.workspace != "*") {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", spec.workspace));
  }
  if (spec.role != Role::kReader && spec.role != Role::kWriter && spec.role != Role::kOwner) {
    return Status::Of(codes::kInvalidRole, "invalid role");
  }
  TARN_RETURN_NOT_OK(ValidatePattern(spec.pattern));
  if (spec.description.size() > kMaxDescriptionBytes || !ValidText(spec.description)) {
    return Status::InvalidArgument(
               "token description must be UTF-8 text without NUL, at most 1024 bytes")
        .WithField("field", "description");
  }
  if (spec.client_id) {
    const std::string& id = *spec.client_id;
    if (!ClientIdShape(id)) {
      return Status::InvalidArgument(
                 "client id must be 1 to 128 printable ASCII characters without spaces")
          .WithField("field", "client_id");
    }
  }
  if (spec.client_secret) {
    const std::string& s = *spec.client_secret;
    if (s.size() < kMinGivenSecretChars || s.size() > kMaxSecretBytes || !PrintableNoSpace(s)) {
      return Status::InvalidArgument(
                 "client secret must be 16 to 1024 printable ASCII characters without spaces")
          .WithField("field", "client_secret");
    }
  }
  return Status::OK();
}

}  // namespace

namespace catalog_internal {

Status ValidateAuditRecord(const AuditRecord& r) {
  auto bad = [](std::string_view field, std::string_view why) {
    return Status::InvalidArgument("audit record " + std::string(field) + " " + std::string(why))
        .WithField("field", std::string(field));
  };
  if (r.action.empty()) return bad("action", "is empty");
  if (r.outcome.empty()) return bad("outcome", "is empty");
  if (r.at_us < 0) return bad("at_us", "is negative");
  for (auto [name, value] :
       {std::pair<std::string_view, const std::string*>{"request_id", &r.request_id},
        {"actor", &r.actor},
        {"action", &r.action},
        {"target", &r.target},
        {"workspace", &r.workspace},
        {"outcome", &r.outcome}}) {
    if (value->size() > kMaxAuditFieldBytes) return bad(name, "is longer than 1024 bytes");
  }
  if (r.detail_json.size() > kMaxAuditDetailBytes) return bad("detail", "is longer than 64 KiB");
  auto j = nlohmann::json::parse(r.detail_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return bad("detail", "is not a JSON object");
  return Status::OK();
}

Status InsertAuditRecord(Transaction& tx, const AuditRecord& r, const Clock& clock) {
  TARN_RETURN_NOT_OK(ValidateAuditRecord(r));
  AuditRecord row;
  row.at_us = r.at_us == 0 ? clock.NowMicros() : r.at_us;
  row.request_id = SanitizeText(r.request_id);
  row.actor = SanitizeText(r.actor);
  row.action = SanitizeText(r.action);
  row.target = SanitizeText(r.target);
  row.workspace = SanitizeText(r.workspace);
  row.outcome = SanitizeText(r.outcome);
  row.detail_json = r.detail_json;
  return access_store::InsertAuditRows(tx, {row});
}

}  // namespace catalog_internal

std::string Catalog::actor() const {
  const char* user = std::getenv("USER");
  if (user && *user && std::string_view(user).size() <= 64 && PrintableNoSpace(user)) {
    return std::string("local:") + user;
  }
  return "local:uid" + std::to_string(::getuid());
}

Result<NewAccessToken> Catalog::CreateAccessToken(const AccessTokenSpec& spec) {
  return CreateAccessToken(spec, actor());
}

namespace {

// A token ready to insert: validated, its id and secret chosen, the secret hashed.
struct PreparedToken {
  NewAccessToken token;
  std::string hash;
};

Result<PreparedToken> PrepareToken(const AccessTokenSpec& spec, std::string_view created_by) {
  TARN_RETURN_NOT_OK(ValidateSpec(spec));
  PreparedToken out;
  AccessTokenInfo& info = out.token.info;
  if (spec.client_id) {
    info.client_id = *spec.client_id;
  } else {
    TARN_ASSIGN_OR_RETURN(auto suffix, RandomBase32(kClientIdRandomChars));
    info.client_id = "tarn_" + suffix;
  }
  if (spec.client_secret) {
    out.token.client_secret = *spec.client_secret;
  } else {
    TARN_ASSIGN_OR_RETURN(out.token.client_secret, RandomBase32(kSecretChars));
  }
  // Slow on purpose: callers hash outside their transaction.
  TARN_ASSIGN_OR_RETURN(out.hash, HashSecret(out.token.client_secret));
  info.workspace = spec.workspace;
  info.role = spec.role;
  info.pattern = spec.pattern;
  info.description = spec.description;
  info.created_by = SanitizeText(created_by.substr(0, kMaxAuditFieldBytes));
  return out;
}

// The insert of a prepared token; `only_if_empty` adds "while the table is empty" (the
// serializable transaction makes concurrent first inserts conflict, and the retry sees the
// winner's row). Returns the number of rows inserted.
Result<int64_t> InsertToken(Transaction& tx, PreparedToken& p, bool only_if_empty,
                            const Clock& clock) {
  AccessTokenInfo& info = p.token.info;
  if (info.workspace != "*") {
    TARN_RETURN_NOT_OK(WorkspaceId(tx, info.workspace).status());
  }
  info.created_at_us = clock.NowMicros();
  return access_store::InsertToken(tx, info, p.hash, only_if_empty);
}

}  // namespace

Result<NewAccessToken> Catalog::CreateAccessToken(const AccessTokenSpec& spec,
                                                  std::string_view created_by) {
  TARN_ASSIGN_OR_RETURN(PreparedToken p, PrepareToken(spec, created_by));
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t n, InsertToken(tx, p, /*only_if_empty=*/false, *clock_));
    if (n == 0) {
      return Status::Of(codes::kTokenExists,
                        "access token '" + p.token.info.client_id + "' exists already")
          .WithField("client_id", p.token.info.client_id);
    }
    return Status::OK();
  }));
  return std::move(p.token);
}

Result<std::optional<NewAccessToken>> Catalog::CreateFirstAccessToken(const AccessTokenSpec& spec,
                                                                      std::string_view created_by) {
  TARN_ASSIGN_OR_RETURN(bool any, HasAccessTokens());
  if (any) return std::optional<NewAccessToken>();
  TARN_ASSIGN_OR_RETURN(PreparedToken p, PrepareToken(spec, created_by));
  int64_t inserted = 0;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(inserted, InsertToken(tx, p, /*only_if_empty=*/true, *clock_));
    return Status::OK();
  }));
  if (inserted == 0) return std::optional<NewAccessToken>();
  return std::optional<NewAccessToken>(std::move(p.token));
}

Result<std::vector<AccessTokenInfo>> Catalog::ListAccessTokens(std::string_view workspace) {
  if (!workspace.empty() && workspace != "*") {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", workspace));
  }
  std::vector<AccessTokenInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, access_store::ListTokens(tx, workspace));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::RevokeAccessToken(std::string_view client_id) {
  if (!ClientIdShape(client_id)) return TokenNotFound(client_id);
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t n, access_store::RevokeToken(tx, client_id, clock_->NowMicros()));
    if (n == 0) return TokenNotFound(client_id);
    return Status::OK();
  });
}

Result<AccessTokenInfo> Catalog::GetAccessToken(std::string_view client_id) {
  if (!ClientIdShape(client_id)) return TokenNotFound(client_id);
  std::optional<AccessTokenInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto row, access_store::GetToken(tx, client_id));
        if (!row) return TokenNotFound(client_id);
        out = std::move(row->info);
        return Status::OK();
      },
      TxMode::kReadOnly));
  return std::move(*out);
}

Result<AccessTokenInfo> Catalog::VerifyClientSecret(std::string_view client_id,
                                                    std::string_view client_secret) {
  const std::string& dummy = DummyHash();
  if (!ClientIdShape(client_id) || client_secret.size() > kMaxSecretBytes) {
    VerifySecret(dummy, client_secret.substr(0, kMaxSecretBytes));
    return InvalidClient();
  }
  std::optional<AccessTokenInfo> info;
  std::string hash;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        info.reset();
        TARN_ASSIGN_OR_RETURN(auto row, access_store::GetToken(tx, client_id));
        if (!row) return Status::OK();
        info = std::move(row->info);
        hash = std::move(row->secret_hash);
        return Status::OK();
      },
      TxMode::kReadOnly));
  // The slow hash runs whether or not the client exists or is revoked.
  bool match = VerifySecret(info ? hash : dummy, client_secret);
  if (!info || !match || info->revoked_at_us) return InvalidClient();
  int64_t now = clock_->NowMicros();
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status { return access_store::TouchToken(tx, client_id, now); }));
  info->last_used_at_us = now;
  return std::move(*info);
}

Result<bool> Catalog::HasAccessTokens() {
  bool any = false;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(any, access_store::AnyToken(tx));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return any;
}

Status Catalog::WriteAudit(const std::vector<AuditRecord>& records) {
  if (records.empty()) return Status::OK();
  for (const AuditRecord& r : records) {
    TARN_RETURN_NOT_OK(catalog_internal::ValidateAuditRecord(r));
  }
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    for (const AuditRecord& r : records) {
      TARN_RETURN_NOT_OK(catalog_internal::InsertAuditRecord(tx, r, *clock_));
    }
    return Status::OK();
  });
}

Result<std::vector<AuditRecord>> Catalog::ListAudit(const AuditQuery& query) {
  if (query.limit <= 0 || query.limit > kMaxAuditLimit) {
    return Status::InvalidArgument("audit limit must be between 1 and 100000")
        .WithField("field", "limit");
  }
  if (query.until_us && *query.until_us < query.since_us) {
    return Status::InvalidArgument("audit 'until' is before 'since'").WithField("field", "until");
  }
  for (auto [name, value] :
       {std::pair<const char*, const std::string*>{"workspace", &query.workspace},
        {"actor", &query.actor}}) {
    if (value->size() > kMaxAuditFieldBytes || !ValidText(*value)) {
      return Status::InvalidArgument(std::string("audit filter '") + name +
                                     "' must be UTF-8 text without NUL, at most 1024 bytes")
          .WithField("field", name);
    }
  }
  std::vector<AuditRecord> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, access_store::ListAudit(tx, query));
        return Status::OK();
      },
      TxMode::kReadOnly));
  // Read downwards (the newest `limit` rows, or the last below `before`): oldest first.
  if (!query.after) std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace tarn
