// Federation rules (docs/design/federation.md): the Catalog members declared under "federation
// rules" in catalog.h, over the table of migration 6. A rule maps the ID tokens of one issuer
// with one exact subject to one access token's client; verifying the tokens is src/auth's.
#include <algorithm>

#include "catalog/access_internal.h"
#include "catalog/access_store.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "common/random.h"
#include "metastore/metastore.h"

namespace tarn {

namespace {

constexpr size_t kMaxIssuerBytes = 512;
constexpr size_t kMaxSubjectBytes = 1024;
constexpr size_t kMaxDescriptionBytes = 1024;
constexpr size_t kRuleIdRandomChars = 20;
constexpr char kGoogleIssuer[] = "https://accounts.google.com";

Status BadIssuer(std::string_view issuer, std::string_view why) {
  return Status::Of(codes::kInvalidIssuer,
                    "issuer '" + std::string(issuer.substr(0, 200)) + "' " + std::string(why))
      .WithField("field", "issuer");
}

Status BadSubject(std::string_view why) {
  return Status::Of(codes::kInvalidSubject, "subject " + std::string(why))
      .WithField("field", "subject");
}

Status RuleNotFound(std::string_view id) {
  std::string shown(id.substr(0, 64));
  return Status::Of(codes::kFederationRuleNotFound,
                    "federation rule '" + shown + "' does not exist")
      .WithField("id", shown);
}

bool Printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= ' ' && c < 0x7f; });
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
  TARN_ASSIGN_OR_RETURN(auto suffix, RandomBase32(kRuleIdRandomChars));
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
    TARN_ASSIGN_OR_RETURN(bool exists, access_store::TokenExists(tx, spec.client_id));
    if (!exists) {
      return Status::Of(codes::kTokenNotFound,
                        "access token '" + spec.client_id + "' does not exist")
          .WithField("client_id", spec.client_id);
    }
    TARN_ASSIGN_OR_RETURN(int64_t n, access_store::InsertRule(tx, rule));
    if (n == 0) {
      return Status::Of(codes::kFederationRuleExists, "issuer '" + rule.issuer + "' and subject '" +
                                                          rule.subject +
                                                          "' already map to a client");
    }
    return Status::OK();
  }));
  return rule;
}

Result<std::vector<FederationRule>> Catalog::ListFederationRules() {
  std::vector<FederationRule> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, access_store::ListRules(tx));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::DeleteFederationRule(std::string_view id) {
  if (id.empty() || id.size() > 64 || !Printable(id)) return RuleNotFound(id);
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(int64_t n, access_store::DeleteRule(tx, id));
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
        TARN_ASSIGN_OR_RETURN(out, access_store::FindRule(tx, issuer, subject));
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
        TARN_ASSIGN_OR_RETURN(any, access_store::HasIssuer(tx, issuer));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return any;
}

Status Catalog::TouchAccessToken(std::string_view client_id) {
  int64_t now = clock_->NowMicros();
  return metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status { return access_store::TouchToken(tx, client_id, now); });
}

}  // namespace tarn
