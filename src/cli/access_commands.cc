// `tarn token create|list|revoke|federate|federations|unfederate` and `tarn audit`: thin handlers
// over the access-control calls of tarn::Client, so they work the same on an embedded and a remote
// catalog.
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "tarn/access.h"
#include "tarn/client.h"
#include "types/value_text.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

std::string OptTime(const std::optional<int64_t>& us) { return us ? FormatTime(*us) : "-"; }

json OptTimeJson(const std::optional<int64_t>& us) {
  return us ? json(FormatTime(*us)) : json(nullptr);
}

json TokenJson(const AccessTokenInfo& t) {
  return {{"client_id", t.client_id},
          {"workspace", t.workspace},
          {"role", std::string(RoleName(t.role))},
          {"pattern", t.pattern},
          {"description", t.description},
          {"created_by", t.created_by},
          {"created_at", FormatTime(t.created_at_us)},
          {"last_used_at", OptTimeJson(t.last_used_at_us)},
          {"revoked_at", OptTimeJson(t.revoked_at_us)}};
}

json RuleJson(const FederationRule& r) {
  return {{"id", r.id},
          {"issuer", r.issuer},
          {"subject", r.subject},
          {"client_id", r.client_id},
          {"workspace", r.workspace},
          {"description", r.description},
          {"created_by", r.created_by},
          {"created_at", FormatTime(r.created_at_us)}};
}

json AuditJson(const AuditRecord& r) {
  json detail = json::parse(r.detail_json, nullptr, /*allow_exceptions=*/false);
  if (detail.is_discarded()) detail = r.detail_json;
  return {{"id", r.id},
          {"at", FormatTime(r.at_us)},
          {"request_id", r.request_id},
          {"actor", r.actor},
          {"action", r.action},
          {"target", r.target},
          {"workspace", r.workspace},
          {"outcome", r.outcome},
          {"detail", detail}};
}

void RegisterFederation(CLI::App* token, GlobalOptions* g, CatalogOptions* co);

void RegisterToken(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* token = app->add_subcommand(
      "token", "Create, list and revoke access tokens; federated sign-in rules");
  token->require_subcommand(1);

  auto* create = token->add_subcommand(
      "create", "Create an access token; its secret is printed once and never again");
  auto ws = std::make_shared<std::string>();
  auto role = std::make_shared<std::string>();
  auto pattern = std::make_shared<std::string>("*");
  auto description = std::make_shared<std::string>();
  create->add_option("--workspace", *ws, "Workspace name, or '*' for every workspace")->required();
  create->add_option("--role", *role, "reader, writer or owner")->required();
  create->add_option("--pattern", *pattern,
                     "Glob over collection.dataset names (default '*'; 'sales' = 'sales.*')");
  create->add_option("--description", *description, "What the token is for");
  SetCommand(create, [=]() -> Status {
    AccessTokenSpec spec;
    spec.workspace = *ws;
    TARN_ASSIGN_OR_RETURN(spec.role, ParseRole(*role));
    spec.pattern = *pattern;
    spec.description = *description;
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_ASSIGN_OR_RETURN(NewAccessToken t, client.CreateAccessToken(spec));
    if (g->json) {
      json j = TokenJson(t.info);
      j["client_secret"] = t.client_secret;
      std::cout << Dump(j) << "\n";
      return Status::OK();
    }
    PrintKeyValues({{"client_id", t.info.client_id},
                    {"client_secret", t.client_secret},
                    {"workspace", t.info.workspace},
                    {"role", std::string(RoleName(t.info.role))},
                    {"pattern", t.info.pattern}});
    std::cerr << "tarn: store the client secret now; it is not shown again\n";
    return Status::OK();
  });

  auto* list = token->add_subcommand("list", "List access tokens (never their secrets)");
  auto list_ws = std::make_shared<std::string>();
  list->add_option("--workspace", *list_ws, "Only the tokens of this workspace ('*' too)");
  SetCommand(list, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_ASSIGN_OR_RETURN(auto all, client.ListAccessTokens(*list_ws));
    if (g->json) {
      json arr = json::array();
      for (const auto& t : all) arr.push_back(TokenJson(t));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : all) {
      rows.push_back({t.client_id, t.workspace, std::string(RoleName(t.role)), t.pattern,
                      t.revoked_at_us ? "revoked" : "active", OptTime(t.last_used_at_us),
                      FormatTime(t.created_at_us), t.description});
    }
    PrintTable({"client_id", "workspace", "role", "pattern", "status", "last_used_at", "created_at",
                "description"},
               rows);
    return Status::OK();
  });

  auto* revoke = token->add_subcommand(
      "revoke", "Revoke an access token (bearer tokens issued for it stop within seconds)");
  auto id = std::make_shared<std::string>();
  revoke->add_option("CLIENT_ID", *id, "Client id")->required();
  SetCommand(revoke, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_RETURN_NOT_OK(client.RevokeAccessToken(*id));
    if (g->json) {
      std::cout << Dump({{"client_id", *id}, {"revoked", true}}) << "\n";
    } else {
      std::cout << "revoked " << *id << "\n";
    }
    return Status::OK();
  });
  RegisterFederation(token, g, co);
}

// `tarn token federate|federations|unfederate`: federated sign-in rules
// (docs/design/federation.md).
void RegisterFederation(CLI::App* token, GlobalOptions* g, CatalogOptions* co) {
  auto* federate = token->add_subcommand(
      "federate",
      "Let OpenID Connect ID tokens of an issuer with one exact subject sign in as a client");
  auto spec = std::make_shared<FederationRuleSpec>();
  federate
      ->add_option("--issuer", spec->issuer,
                   "Issuer URL, exactly as in the tokens' iss "
                   "(https://token.actions.githubusercontent.com, https://accounts.google.com)")
      ->required();
  federate
      ->add_option("--subject", spec->subject,
                   "The exact sub claim ('repo:acme/etl:ref:refs/heads/main'; for Google the "
                   "service account's numeric id)")
      ->required();
  federate->add_option("--client", spec->client_id, "Client id the tokens sign in as")->required();
  federate->add_option("--description", spec->description, "What the rule is for");
  SetCommand(federate, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_ASSIGN_OR_RETURN(FederationRule r, client.CreateFederationRule(*spec));
    if (g->json) {
      std::cout << Dump(RuleJson(r)) << "\n";
      return Status::OK();
    }
    PrintKeyValues({{"id", r.id},
                    {"issuer", r.issuer},
                    {"subject", r.subject},
                    {"client_id", r.client_id},
                    {"workspace", r.workspace}});
    return Status::OK();
  });

  auto* list = token->add_subcommand("federations", "List federated sign-in rules");
  SetCommand(list, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_ASSIGN_OR_RETURN(auto all, client.ListFederationRules());
    if (g->json) {
      json arr = json::array();
      for (const auto& r : all) arr.push_back(RuleJson(r));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : all) {
      rows.push_back({r.id, r.issuer, r.subject, r.client_id, r.workspace,
                      FormatTime(r.created_at_us), r.description});
    }
    PrintTable({"id", "issuer", "subject", "client_id", "workspace", "created_at", "description"},
               rows);
    return Status::OK();
  });

  auto* remove = token->add_subcommand(
      "unfederate", "Delete a federated sign-in rule (bearers already issued run out)");
  auto id = std::make_shared<std::string>();
  remove->add_option("RULE_ID", *id, "Rule id (fed_...)")->required();
  SetCommand(remove, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_RETURN_NOT_OK(client.DeleteFederationRule(*id));
    if (g->json) {
      std::cout << Dump({{"id", *id}, {"deleted", true}}) << "\n";
    } else {
      std::cout << "deleted " << *id << "\n";
    }
    return Status::OK();
  });
}

void RegisterAudit(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  auto* audit = app->add_subcommand(
      "audit", "Show the audit log: who changed what, and what was refused (newest last)");
  auto since = std::make_shared<std::string>();
  auto until = std::make_shared<std::string>();
  auto ws = std::make_shared<std::string>();
  auto actor = std::make_shared<std::string>();
  auto limit = std::make_shared<int64_t>(100);
  audit->add_option("--since", *since, "From this time: 1h, 7d, or RFC 3339 (default: all)");
  audit->add_option("--until", *until, "Before this time: 10m, or RFC 3339");
  audit->add_option("--workspace", *ws, "Only rows of this workspace");
  audit->add_option("--actor", *actor, "Only rows of this actor (client id or local:<user>)");
  audit->add_option("--limit", *limit, "At most this many rows, the newest (default 100)");
  auto after = std::make_shared<std::optional<int64_t>>();
  auto before = std::make_shared<std::optional<int64_t>>();
  audit->add_option("--after", *after, "Only rows with a higher id: the first --limit of them");
  audit->add_option("--before", *before, "Only rows with a lower id: the last --limit of them");
  SetCommand(audit, [=]() -> Status {
    AuditQuery q;
    q.after = *after;
    q.before = *before;
    if (!since->empty()) {
      TARN_ASSIGN_OR_RETURN(q.since_us, ParseWhen("--since", *since));
    }
    if (!until->empty()) {
      TARN_ASSIGN_OR_RETURN(q.until_us, ParseWhen("--until", *until));
    }
    q.workspace = *ws;
    q.actor = *actor;
    q.limit = *limit;
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    Client& client = *cat;
    TARN_ASSIGN_OR_RETURN(auto rows, client.ListAudit(q));
    if (g->json) {
      json arr = json::array();
      for (const auto& r : rows) arr.push_back(AuditJson(r));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> table;
    for (const auto& r : rows) {
      table.push_back({FormatTime(r.at_us), r.actor, r.action, r.target, r.workspace, r.outcome,
                       r.request_id, r.detail_json == "{}" ? "" : r.detail_json});
    }
    PrintTable({"at", "actor", "action", "target", "workspace", "outcome", "request_id", "detail"},
               table);
    return Status::OK();
  });
}

}  // namespace

void RegisterAccessCommands(CLI::App* app, GlobalOptions* global) {
  CatalogOptions* options = SharedCatalogOptions();
  RegisterToken(app, global, options);
  RegisterAudit(app, global, options);
}

}  // namespace tarn::cli
