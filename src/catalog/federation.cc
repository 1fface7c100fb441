// Federation rules (docs/design/federation.md): the Catalog members declared under "federation
// rules" in catalog.h, over the table of migration 6. A rule maps the ID tokens of one issuer
// with one exact subject to one access token's client; verifying the tokens is src/auth's.
#include <algorithm>

#include "catalog/access_internal.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "metastore/metastore.h"

namespace tarn {

namespace {

constexpr size_t kMaxIssuerBytes = 512;
constexpr size_t kMaxSubjectBytes = 1024;
constexpr size_t kMaxDescriptionBytes = 1024;
constexpr size_t kRuleIdRandomChars = 20;
constexpr char kGoogleIssuer[] = "https://accounts.google.com";

constexpr char kRuleColumns[] =
    "r.id, r.issuer, r.subject, r.client_id, t.workspace, r.description, r.created_by, "
    "r.created_at";
constexpr char kRuleFrom[] =
    " FROM federation_rules r JOIN access_tokens t ON t.client_id = r.client_id";

Status BadIssuer(std::string_view issuer, std::string_view why) {
  return Status::InvalidArgument("issuer '" + std::string(issuer.substr(0, 200)) + "' " +
                                 std::string(why))
      .WithField("code", "invalid_issuer")
      .WithField("field", "issuer");
}

Status BadSubject(std::string_view why) {
  return Status::InvalidArgument("subject " + std::string(why))
      .WithField("code", "invalid_subject")
      .WithField("field", "subject");
}

Status RuleNotFound(std::string_view id) {
  std::string shown(id.substr(0, 64));
  return Status::NotFound("federation rule '" + shown + "' does not exist")
      .WithField("code", "federation_rule_not_found")
      .WithField("id", shown);
}

bool Printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= ' ' && c < 0x7f; });
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

Status ValidateRuleSpec(const FederationRuleSpec& spec) {
  TARN_RETURN_NOT_OK(ValidateFederationIssuer(spec.issuer));
  if (spec.subject.empty()) return BadSubject("is empty");
  if (spec.subject.size() > kMaxSubjectBytes) return BadSubject("is longer than 1024 bytes");
  if (!Printable(spec.subject)) return BadSubject("must be printable ASCII");
  if (spec.issuer == kGoogleIssuer && !std::all_of(spec.subject.begin(), spec.subject.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; })) {
    // An email names whoever holds it now; the numeric id names one service account forever.
    return BadSubject(
        "of Google's issuer must be the service account's numeric unique id, "
        "not its email");
  }
  if (spec.description.size() > kMaxDescriptionBytes || !Printable(spec.description)) {
    return Status::InvalidArgument("description must be printable text, at most 1024 bytes")
        .WithField("field", "description");
  }
  return Status::OK();
}

}  // namespace

Status ValidateFederationIssuer(std::string_view issuer) {
  if (issuer.empty()) return BadIssuer(issuer, "is empty");
  if (issuer.size() > kMaxIssuerBytes) return BadIssuer(issuer, "is longer than 512 bytes");
  if (!std::all_of(issuer.begin(), issuer.end(), [](char c) { return c > ' ' && c < 0x7f; })) {
    return BadIssuer(issuer, "must be printable ASCII without spaces");
  }
  std::string_view rest;
  bool https = false;
  if (issuer.rfind("https://", 0) == 0) {
    rest = issuer.substr(8);
    https = true;
  } else if (issuer.rfind("http://", 0) == 0) {
    rest = issuer.substr(7);
  } else {
    return BadIssuer(issuer, "must be an https:// URL");
  }
  if (issuer.find_first_of("?#") != std::string_view::npos) {
    return BadIssuer(issuer, "must not have a query or fragment");
  }
  std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.empty()) return BadIssuer(issuer, "has no host");
  if (authority.find('@') != std::string_view::npos) {
    return BadIssuer(issuer, "must not have user info");
  }
  std::string_view host = authority;
  if (host.front() == '[') {
    size_t close = host.find(']');
    if (close == std::string_view::npos) return BadIssuer(issuer, "has a bad IPv6 host");
    std::string_view after = host.substr(close + 1);
    if (!after.empty() && after.front() != ':') return BadIssuer(issuer, "has a bad port");
    host = host.substr(0, close + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return BadIssuer(issuer, "has no host");
  if (!https && host != "127.0.0.1" && host != "localhost" && host != "[::1]") {
    return BadIssuer(issuer, "must be an https:// URL (http only on 127.0.0.1, [::1], localhost)");
  }
  return Status::OK();
}

Result<FederationRule> Catalog::CreateFederationRule(const FederationRuleSpec& spec) {
  return CreateFederationRule(spec, actor());
}

Result<FederationRule> Catalog::CreateFederationRule(const FederationRuleSpec& spec,
                                                     std::string_view created_by) {
  TARN_RETURN_NOT_OK(ValidateRuleSpec(spec));
  TARN_ASSIGN_OR_RETURN(AccessTokenInfo client, GetAccessToken(spec.client_id));
  TARN_ASSIGN_OR_RETURN(auto suffix, catalog_internal::RandomBase32(kRuleIdRandomChars));
  FederationRule rule;
  rule.id = "fed_" + suffix;
  rule.issuer = spec.issuer;
  rule.subject = spec.subject;
  rule.client_id = client.client_id;
  rule.workspace = client.workspace;
  rule.description = spec.description;
  rule.created_by = std::string(created_by.substr(0, 1024));
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    rule.created_at_us = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(
        auto exists,
        tx.QueryOne("SELECT 1 FROM access_tokens WHERE client_id = ?", {spec.client_id}));
    if (!exists) {
      return Status::NotFound("access token '" + spec.client_id + "' does not exist")
          .WithField("code", "token_not_found")
          .WithField("client_id", spec.client_id);
    }
    TARN_ASSIGN_OR_RETURN(
        int64_t n,
        tx.Execute("INSERT INTO federation_rules (id, issuer, subject, client_id, description, "
                   "created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT (issuer, subject) DO NOTHING",
                   {rule.id, rule.issuer, rule.subject, rule.client_id, rule.description,
                    rule.created_by, rule.created_at_us}));
    if (n == 0) {
      return Status::AlreadyExists("issuer '" + rule.issuer + "' and subject '" + rule.subject +
                                   "' already map to a client")
          .WithField("code", "federation_rule_exists");
    }
    return Status::OK();
  }));
  return rule;
}

Result<std::vector<FederationRule>> Catalog::ListFederationRules() {
  std::vector<FederationRule> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(std::string("SELECT ") + kRuleColumns +
                                                  kRuleFrom + " ORDER BY r.created_at, r.id"));
        for (const Row& r : rows) {
          TARN_ASSIGN_OR_RETURN(auto f, RuleFromRow(r));
          out.push_back(std::move(f));
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DeleteFederationRule(std::string_view id) {
  if (id.empty() || id.size() > 64 || !Printable(id)) return RuleNotFound(id);
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t n, tx.Execute("DELETE FROM federation_rules WHERE id = ?", {id}));
    if (n == 0) return RuleNotFound(id);
    return Status::OK();
  });
}

Result<std::optional<FederationRule>> Catalog::FindFederationRule(std::string_view issuer,
                                                                  std::string_view subject) {
  std::optional<FederationRule> out;
  if (issuer.size() > kMaxIssuerBytes || subject.size() > kMaxSubjectBytes) return out;
  if (!Printable(issuer) || !Printable(subject)) return out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.reset();
        TARN_ASSIGN_OR_RETURN(auto row,
                              tx.QueryOne(std::string("SELECT ") + kRuleColumns + kRuleFrom +
                                              " WHERE r.issuer = ? AND r.subject = ?",
                                          {issuer, subject}));
        if (row) {
          TARN_ASSIGN_OR_RETURN(out, RuleFromRow(*row));
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<bool> Catalog::HasFederationIssuer(std::string_view issuer) {
  if (issuer.empty() || issuer.size() > kMaxIssuerBytes || !Printable(issuer)) return false;
  bool any = false;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(
            auto row,
            tx.QueryOne("SELECT 1 FROM federation_rules WHERE issuer = ? LIMIT 1", {issuer}));
        any = row.has_value();
        return Status::OK();
      },
      TxMode::kReadOnly));
  return any;
}

Status Catalog::TouchAccessToken(std::string_view client_id) {
  int64_t now = clock_->NowMicros();
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    return tx
        .Execute("UPDATE access_tokens SET last_used_at = ? WHERE client_id = ?", {now, client_id})
        .status();
  });
}

}  // namespace tarn
