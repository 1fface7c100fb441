// The routes of the API (docs/design/serve.md, "Routes"): one thin function each, over Call.
// The table at the end registers them (server.cc), lists them (Server::Routes) and is what the
// OpenAPI test compares with docs/openapi.json.
#include <deque>
#include <thread>
#include <utility>

#include "api/error_codes.h"
#include "auth/error_codes.h"
#include "catalog/catalog.h"
#include "common/bounded_queue.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"
#include "server/error_codes.h"
#include "server/server_internal.h"
#include "table/predicate.h"

namespace tarn::server::internal {

// The bytes of docs/openapi.json, embedded at build time (src/server/openapi.cmake).
extern const unsigned char kOpenApiJson[];
extern const size_t kOpenApiJsonSize;

namespace {

using api::Json;
using api::ObjectReader;

// ---- small helpers ----

std::string CollQ(Call& c) { return c.Param("ws") + "." + c.Param("coll"); }
std::string DsQ(Call& c) { return CollQ(c) + "." + c.Param("ds"); }

Status InvalidParam(std::string_view name, std::string message) {
  return Status::Of(codes::kInvalidParameter,
                    "query parameter " + std::string(name) + ": " + message)
      .WithField("field", std::string(name));
}

Result<bool> QueryBool(Call& c, std::string_view name, bool fallback) {
  auto v = c.Query(name);
  if (!v) return fallback;
  if (*v == "true" || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  return InvalidParam(name, "must be true or false");
}

Result<std::optional<int64_t>> QueryInt(Call& c, std::string_view name) {
  auto v = c.Query(name);
  if (!v) return std::optional<int64_t>();
  if (v->empty() || v->size() > 20) return InvalidParam(name, "must be a decimal integer");
  size_t i = (*v)[0] == '-' ? 1 : 0;
  if (i == v->size()) return InvalidParam(name, "must be a decimal integer");
  __int128 n = 0;
  for (; i < v->size(); ++i) {
    char ch = (*v)[i];
    if (ch < '0' || ch > '9') return InvalidParam(name, "must be a decimal integer");
    n = n * 10 + (ch - '0');
  }
  if ((*v)[0] == '-') n = -n;
  if (n > INT64_MAX || n < INT64_MIN) return InvalidParam(name, "is out of range");
  return std::optional<int64_t>(static_cast<int64_t>(n));
}

// The `limit` of a listing: `fallback` when absent, else 1..max (422 invalid_parameter).
Result<int64_t> QueryLimit(Call& c, int64_t fallback, int64_t max) {
  TARN_ASSIGN_OR_RETURN(auto limit, QueryInt(c, "limit"));
  if (!limit) return fallback;
  if (*limit < 1 || *limit > max) {
    return InvalidParam("limit", "must be 1 to " + std::to_string(max));
  }
  return *limit;
}

// The cursor of the next page (docs/design/serve.md "Paging"): a page of `limit` rows read
// upwards continues after its last row (next_after), one read downwards before its first
// (next_before); a shorter page has neither.
void AddNextCursor(Json& out, bool full, bool downwards, Json first, Json last) {
  if (!full) return;
  if (downwards) {
    out["next_before"] = std::move(first);
  } else {
    out["next_after"] = std::move(last);
  }
}

Result<SnapshotSelector> Selector(Call& c) {
  return api::SelectorFromParams([&](std::string_view n) { return c.Query(n); });
}

Status InvalidIdentifierAt(const Status& st, const std::string& pointer) {
  return Status(st.kind(), st.message())
      .WithCode(codes::kInvalidIdentifier)
      .WithField("field", pointer);
}

// The error of a codec call on a nested value, its "field" pointer prefixed with the value's.
Status Prefixed(const Status& st, const std::string& prefix) {
  Status out(st.kind(), st.message());
  for (const auto& [k, v] : st.fields())
    out = std::move(out).WithField(k, k == "field" ? prefix + v : v);
  return out;
}

// A name taken from a body, checked like a path identifier.
Status CheckIdentifier(std::string_view what, const std::string& value,
                       const std::string& pointer) {
  Status st = ValidateIdentifier(what, value);
  if (!st.ok()) return InvalidIdentifierAt(st, pointer);
  return Status::OK();
}

Result<std::vector<std::string>> StringList(const Json* v, const std::string& pointer) {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (!v->is_array()) {
    return Status::Of(codes::kWrongType, pointer + " must be an array of strings")
        .WithField("field", pointer);
  }
  for (size_t i = 0; i < v->size(); ++i) {
    const Json& e = (*v)[i];
    if (!e.is_string()) {
      std::string p = pointer + "/" + std::to_string(i);
      return Status::Of(codes::kWrongType, p + " must be a string").WithField("field", p);
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

// {set: {k: v}, unset: [k]}: what the PATCH .../properties routes take.
struct PropertyPatch {
  PropertyMap set;
  std::vector<std::string> unset;
};
Result<PropertyPatch> ReadPropertyPatch(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  PropertyPatch p;
  TARN_ASSIGN_OR_RETURN(const Json* set, r.OptValue("set"));
  if (set != nullptr) {
    TARN_ASSIGN_OR_RETURN(p.set, api::PropertiesFromJson(*set));
  }
  TARN_ASSIGN_OR_RETURN(const Json* unset, r.OptValue("unset"));
  TARN_ASSIGN_OR_RETURN(p.unset, StringList(unset, r.Pointer("unset")));
  TARN_RETURN_NOT_OK(r.Finish());
  return p;
}

Result<PropertyMap> OptProperties(ObjectReader& r) {
  TARN_ASSIGN_OR_RETURN(const Json* v, r.OptValue("properties"));
  if (v == nullptr) return PropertyMap();
  return api::PropertiesFromJson(*v);
}

// The commit meta of a request: the caller's client id as author when none is given, and the
// audit row the commit writes in its own transaction.
CommitMeta ServerMeta(Call& c, CommitMeta meta, const std::string& action) {
  if (meta.author.empty()) meta.author = c.principal().client_id;
  meta.user_created = true;
  meta.audit = c.CommitAudit(action);
  return meta;
}

Result<CommitMeta> MetaField(Call& c, ObjectReader& r, const std::string& action) {
  TARN_ASSIGN_OR_RETURN(const Json* m, r.OptValue("meta"));
  CommitMeta meta;
  if (m != nullptr) {
    auto parsed = api::CommitMetaFromJson(*m);
    if (!parsed.ok()) return Prefixed(parsed.status(), r.Pointer("meta"));
    meta = std::move(*parsed);
  }
  return ServerMeta(c, std::move(meta), action);
}

// Counts a commit's outcome and lets the commit's own audit rows stand for it.
void CountCommit(Call& c, const Status& st, const std::vector<SnapshotInfo>& done) {
  if (!st.ok()) {
    if (st.kind() == ErrorKind::kConflict) c.metrics().CountConflict();
    return;
  }
  bool replay = false;
  for (const auto& s : done) replay = replay || s.idempotent_replay;
  if (!replay) {
    c.metrics().CountCommits(static_cast<int64_t>(done.size()));
    c.set_audited_by_commit();
    return;
  }
  // A replay wrote no row: the server audits the request, marked so that rows with
  // idempotent_replay false count commits one for one.
  Json snapshots = Json::array();
  for (const auto& s : done) snapshots.push_back(s.snapshot_id);
  c.set_audit_detail(api::Dump(Json{{"idempotent_replay", true}, {"snapshot_ids", snapshots}}));
}

Result<SnapshotInfo> Committed(Call& c, Result<SnapshotInfo> r) {
  if (r.ok()) {
    CountCommit(c, Status::OK(), {*r});
  } else {
    CountCommit(c, r.status(), {});
  }
  return r;
}

// A file path of a request: a warehouse key (422 path_outside_warehouse naming `pointer`).
Result<std::string> KeyAt(Call& c, std::string_view path, const std::string& pointer) {
  auto key = WarehouseKey(c.catalog().warehouse(), path);
  if (!key.ok()) return key.status().WithField("field", pointer);
  return key;
}

Json Wrapped(const char* key, Json array) { return Json{{key, std::move(array)}}; }

template <typename T>
Json ArrayOf(const std::vector<T>& items) {
  Json a = Json::array();
  for (const auto& v : items) a.push_back(api::ToJson(v));
  return a;
}

Status RequireGlobal(Call& c, Role needed) {
  const auth::Principal& p = c.principal();
  if (p.workspace == "*" && p.pattern == "*" && p.role >= needed) return Status::OK();
  return Status::Of(codes::kPermissionDenied, "this needs the " + std::string(RoleName(needed)) +
                                                  " role on every workspace ('*')")
      .WithField("needed_role", std::string(RoleName(needed)))
      .WithField("workspace", "*");
}

// ---- probes, metrics, the API description and tokens ----

Status Livez(Call& c) {
  c.ReplyJson(Json{{"status", "ok"}});
  return Status::OK();
}

Status Healthz(Call& c) {
  Status db = c.catalog().metastore().Ping();
  Status wh = c.catalog().warehouse().List("", "", 1).status();
  bool up = db.ok() && wh.ok();
  Json body{{"status", up ? "ok" : "down"},
            {"metastore", db.ok() ? "ok" : db.ToString()},
            {"warehouse", wh.ok() ? "ok" : wh.ToString()}};
  c.ReplyJson(body, up ? 200 : 503);
  return Status::OK();
}

Status MetricsRoute(Call& c) {
  c.ReplyText("text/plain; version=0.0.4; charset=utf-8", c.metrics().Render());
  return Status::OK();
}

Status OpenApi(Call& c) {
  c.ReplyText("application/json",
              std::string(reinterpret_cast<const char*>(kOpenApiJson), kOpenApiJsonSize));
  return Status::OK();
}

constexpr char kTokenExchangeGrant[] = "urn:ietf:params:oauth:grant-type:token-exchange";

// RFC 8693 token exchange of an OpenID Connect ID token (docs/design/federation.md).
Result<auth::IssuedToken> FederatedTokenExchange(Call& c,
                                                 const std::map<std::string, std::string>& form) {
  auto field = [&](const char* k) -> std::string {
    auto it = form.find(k);
    return it == form.end() ? "" : it->second;
  };
  std::string type = field("subject_token_type");
  if (type != "urn:ietf:params:oauth:token-type:id_token" &&
      type != "urn:ietf:params:oauth:token-type:jwt") {
    return Status::Of(codes::kInvalidRequest,
                      "subject_token_type must be urn:ietf:params:oauth:token-type:id_token or "
                      ":jwt")
        .WithField("field", "subject_token_type");
  }
  if (field("subject_token").empty()) {
    return Status::Of(codes::kMissingField, "subject_token is required")
        .WithField("field", "subject_token");
  }
  c.set_log_actor("oidc:" + auth::UnverifiedIssuer(field("subject_token")).substr(0, 120));
  TARN_ASSIGN_OR_RETURN(auto issued, c.authority().ExchangeIdToken(field("subject_token"),
                                                                   c.options().oidc_audience));
  c.set_log_actor(issued.principal.client_id);
  return issued;
}

Status TokenExchange(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto form, c.FormBody());
  TARN_ASSIGN_OR_RETURN(auto issued, ExchangeTokenForm(c, form));
  Json out{{"access_token", issued.access_token},
           {"token_type", "Bearer"},
           {"expires_in", issued.expires_in_s}};
  auto grant = form.find("grant_type");
  if (grant != form.end() && grant->second == kTokenExchangeGrant) {
    out["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token";
  }
  c.ReplyJson(out);
  return Status::OK();
}

Status Whoami(Call& c) {
  const auth::Principal& p = c.principal();
  c.ReplyJson(Json{{"client_id", p.client_id},
                   {"workspace", p.workspace},
                   {"role", std::string(RoleName(p.role))},
                   {"pattern", p.pattern},
                   {"expires_at_us", p.expires_at_us}});
  return Status::OK();
}

Status CreateToken(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  AccessTokenSpec spec;
  TARN_ASSIGN_OR_RETURN(spec.workspace, r.String("workspace"));
  TARN_ASSIGN_OR_RETURN(std::string role, r.String("role"));
  auto parsed = ParseRole(role);
  if (!parsed.ok()) return parsed.status().WithField("field", r.Pointer("role"));
  spec.role = *parsed;
  TARN_ASSIGN_OR_RETURN(auto pattern, r.OptString("pattern"));
  spec.pattern = pattern.value_or("*");
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  spec.description = description.value_or("");
  TARN_RETURN_NOT_OK(r.Finish());
  if (spec.workspace != "*") {
    TARN_RETURN_NOT_OK(CheckIdentifier("workspace name", spec.workspace, "/workspace"));
  }
  if (spec.pattern.empty() || spec.pattern.size() > 300) {
    return Status::Of(codes::kInvalidValue, "pattern must be 1 to 300 characters")
        .WithField("field", "/pattern");
  }
  c.audit_entries() = {{"token.create", "", spec.workspace == "*" ? "" : spec.workspace}};

  // A token never grants more than its creator holds: the same workspace (or any, for an owner
  // of '*'), a role no higher, and a pattern inside the creator's.
  const auth::Principal& p = c.principal();
  if (spec.workspace == "*") {
    TARN_RETURN_NOT_OK(RequireGlobal(c, Role::kOwner));
  } else {
    TARN_RETURN_NOT_OK(auth::Authorize(p, Role::kOwner, spec.workspace, ""));
  }
  auto deny = [&](const std::string& why) {
    return Status::Of(codes::kPermissionDenied,
                      "a token cannot grant more than its creator holds: " + why)
        .WithField("needed_role", "owner")
        .WithField("workspace", spec.workspace);
  };
  if (spec.role > p.role) return deny("role " + std::string(RoleName(spec.role)));
  if (p.pattern != "*") {
    bool inside = p.pattern.find('?') == std::string::npos
                      ? auth::GlobMatch(p.pattern, spec.pattern)  // '*'-only: literal match
                      : spec.pattern == p.pattern;
    if (!inside) return deny("pattern '" + spec.pattern + "' is not inside '" + p.pattern + "'");
  }
  TARN_ASSIGN_OR_RETURN(auto created, c.catalog().CreateAccessToken(spec, p.client_id));
  c.audit_entries()[0].target = created.info.client_id;
  c.ReplyJson(api::ToJson(created));
  return Status::OK();
}

Status ListTokens(Call& c) {
  const auth::Principal& p = c.principal();
  // Without a workspace: every token for an owner of '*', else the caller's own workspace's.
  std::string ws = c.Query("workspace").value_or(p.workspace == "*" ? "" : p.workspace);
  if (ws.empty() || ws == "*") {
    TARN_RETURN_NOT_OK(RequireGlobal(c, Role::kOwner));
  } else {
    TARN_RETURN_NOT_OK(CheckIdentifier("workspace name", ws, "workspace"));
    TARN_RETURN_NOT_OK(auth::Authorize(p, Role::kOwner, ws, ""));
  }
  TARN_ASSIGN_OR_RETURN(auto tokens, c.catalog().ListAccessTokens(ws));
  c.ReplyJson(Wrapped("tokens", ArrayOf(tokens)));
  return Status::OK();
}

Status RevokeToken(Call& c) {
  const std::string& id = c.Param("client_id");
  c.audit_entries() = {{"token.revoke", id, ""}};
  TARN_ASSIGN_OR_RETURN(auto info, c.catalog().GetAccessToken(id));
  if (info.workspace == "*") {
    TARN_RETURN_NOT_OK(RequireGlobal(c, Role::kOwner));
  } else {
    c.audit_entries()[0].workspace = info.workspace;
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, info.workspace, ""));
  }
  TARN_RETURN_NOT_OK(c.catalog().RevokeAccessToken(id));
  c.ReplyJson(Json::object());
  return Status::OK();
}

// The workspace a catalog-wide owner read (audit, alerts, fsck) covers: the ?workspace= the
// caller owns, else a scoped owner's own workspace, else every workspace ("") for an owner of
// every workspace.
Result<std::string> OwnedWorkspaceParam(Call& c) {
  const auth::Principal& p = c.principal();
  std::string ws = c.Query("workspace").value_or("");
  if (!ws.empty()) {
    TARN_RETURN_NOT_OK(CheckIdentifier("workspace name", ws, "workspace"));
    TARN_RETURN_NOT_OK(auth::Authorize(p, Role::kOwner, ws, ""));
  } else if (p.workspace != "*") {
    ws = p.workspace;  // a scoped owner sees its own workspace
    TARN_RETURN_NOT_OK(auth::Authorize(p, Role::kOwner, ws, ""));
  } else {
    TARN_RETURN_NOT_OK(RequireGlobal(c, Role::kOwner));
  }
  return ws;
}

Status ListAuditRoute(Call& c) {
  AuditQuery q;
  TARN_ASSIGN_OR_RETURN(auto since, QueryInt(c, "since_us"));
  q.since_us = since.value_or(0);
  TARN_ASSIGN_OR_RETURN(q.until_us, QueryInt(c, "until_us"));
  TARN_ASSIGN_OR_RETURN(q.limit, QueryLimit(c, 1000, 100000));
  TARN_ASSIGN_OR_RETURN(q.after, QueryInt(c, "after"));
  TARN_ASSIGN_OR_RETURN(q.before, QueryInt(c, "before"));
  q.actor = c.Query("actor").value_or("");
  TARN_ASSIGN_OR_RETURN(q.workspace, OwnedWorkspaceParam(c));
  TARN_ASSIGN_OR_RETURN(auto records, c.catalog().ListAudit(q));
  Json out = Wrapped("records", ArrayOf(records));
  if (!records.empty()) {
    AddNextCursor(out, static_cast<int64_t>(records.size()) == q.limit, !q.after,
                  records.front().id, records.back().id);
  }
  c.ReplyJson(out);
  return Status::OK();
}

// Alerts and the integrity sweep (docs/design/provenance.md): owner-level, scoped like the
// audit log.
Status ListAlertsRoute(Call& c) {
  AlertQuery q;
  TARN_ASSIGN_OR_RETURN(auto since, QueryInt(c, "since_us"));
  q.since_us = since.value_or(0);
  TARN_ASSIGN_OR_RETURN(auto limit, QueryInt(c, "limit"));
  int64_t n = limit.value_or(100);
  if (n < 1 || n > 10000) return InvalidParam("limit", "must be 1..10000");
  q.limit = static_cast<size_t>(n);
  q.code = c.Query("code").value_or("");
  TARN_ASSIGN_OR_RETURN(q.workspace, OwnedWorkspaceParam(c));
  TARN_ASSIGN_OR_RETURN(auto alerts, c.catalog().ListAlerts(q));
  c.ReplyJson(Wrapped("alerts", ArrayOf(alerts)));
  return Status::OK();
}

Status FsckRoute(Call& c) {
  FsckOptions options;
  TARN_ASSIGN_OR_RETURN(options.workspace, OwnedWorkspaceParam(c));
  TARN_ASSIGN_OR_RETURN(auto grace, QueryInt(c, "orphan_grace_us"));
  if (grace) {
    if (*grace < 0) return InvalidParam("orphan_grace_us", "must not be negative");
    options.orphan_grace_us = *grace;
  }
  TARN_ASSIGN_OR_RETURN(options.check_objects, QueryBool(c, "check_objects", true));
  TARN_ASSIGN_OR_RETURN(auto report, c.catalog().Fsck(options));
  c.ReplyJson(api::ToJson(report));
  return Status::OK();
}

// ---- federation rules (owner of every workspace: a rule may name any client) ----

Status CreateFederationRuleRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(FederationRuleSpec spec, api::FederationRuleSpecFromJson(body));
  c.audit_entries() = {{"federation.create", spec.client_id, ""}};
  c.set_audit_detail(api::Dump(Json{{"issuer", spec.issuer}, {"subject", spec.subject}}));
  TARN_ASSIGN_OR_RETURN(auto rule, c.catalog().CreateFederationRule(spec, c.principal().client_id));
  c.audit_entries()[0].workspace = rule.workspace == "*" ? "" : rule.workspace;
  c.ReplyJson(api::ToJson(rule));
  return Status::OK();
}

Status ListFederationRulesRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto rules, c.catalog().ListFederationRules());
  c.ReplyJson(Wrapped("rules", ArrayOf(rules)));
  return Status::OK();
}

Status DeleteFederationRuleRoute(Call& c) {
  c.audit_entries() = {{"federation.delete", c.Param("id"), ""}};
  TARN_RETURN_NOT_OK(c.catalog().DeleteFederationRule(c.Param("id")));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status CleanupRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(bool orphans, r.Bool("delete_orphans", false));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto result, c.catalog().Cleanup(orphans));
  c.ReplyJson(api::ToJson(result));
  return Status::OK();
}

// ---- counts a restricted token may see ----

// A token whose pattern is not "*" sees only some collections and datasets of its workspace:
// the counts in what it is shown cover only those (issue 14), so they reveal nothing of the
// others. Tokens of pattern "*" see the stored counts as they are.
Status CountVisible(Call& c, CollectionInfo* coll) {
  if (c.principal().pattern == "*") return Status::OK();
  auto names = c.catalog().ListDatasetNames(coll->workspace + "." + coll->name);
  // Dropped since it was listed: nothing in it to count.
  if (!names.ok() && names.status().kind() != ErrorKind::kNotFound) return names.status();
  coll->dataset_count = 0;
  coll->dropped_dataset_count = 0;
  if (!names.ok()) return Status::OK();
  for (const auto& d : *names) {
    if (!auth::MayAccess(c.principal(), Role::kReader, coll->workspace,
                         coll->name + "." + d.name)) {
      continue;
    }
    ++(d.dropped ? coll->dropped_dataset_count : coll->dataset_count);
  }
  return Status::OK();
}

Status CountVisible(Call& c, WorkspaceInfo* w) {
  if (c.principal().pattern == "*") return Status::OK();
  auto colls = c.catalog().ListCollections(w->name);
  if (!colls.ok() && colls.status().kind() != ErrorKind::kNotFound) return colls.status();
  w->collection_count = 0;
  if (!colls.ok()) return Status::OK();
  for (const auto& coll : *colls) {
    if (auth::MayAccess(c.principal(), Role::kReader, w->name, coll.name)) ++w->collection_count;
  }
  return Status::OK();
}

// ---- workspaces ----

Status ListWorkspacesRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListWorkspaces());
  Json a = Json::array();
  for (auto& w : all) {
    if (!auth::MayAccess(c.principal(), Role::kReader, w.name, "")) continue;
    TARN_RETURN_NOT_OK(CountVisible(c, &w));
    a.push_back(api::ToJson(w));
  }
  c.ReplyJson(Wrapped("workspaces", std::move(a)));
  return Status::OK();
}

Status CreateWorkspaceRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(bool exists_ok, r.Bool("exists_ok", false));
  TARN_ASSIGN_OR_RETURN(PropertyMap props, OptProperties(r));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_RETURN_NOT_OK(CheckIdentifier("workspace name", name, "/name"));
  c.audit_entries() = {{"workspace.create", name, name}};
  TARN_RETURN_NOT_OK(c.catalog().CreateWorkspace(name, exists_ok, props));
  TARN_ASSIGN_OR_RETURN(auto w, c.catalog().GetWorkspace(name));
  c.ReplyJson(api::ToJson(w));
  return Status::OK();
}

Status GetWorkspaceRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto w, c.catalog().GetWorkspace(c.Param("ws")));
  TARN_RETURN_NOT_OK(CountVisible(c, &w));
  c.ReplyJson(api::ToJson(w));
  return Status::OK();
}

Status DropWorkspaceRoute(Call& c) {
  TARN_RETURN_NOT_OK(c.catalog().DropWorkspace(c.Param("ws")));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status PatchWorkspaceRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto patch, ReadPropertyPatch(c));
  const std::string& ws = c.Param("ws");
  if (!patch.set.empty()) TARN_RETURN_NOT_OK(c.catalog().SetWorkspaceProperties(ws, patch.set));
  if (!patch.unset.empty()) {
    TARN_RETURN_NOT_OK(c.catalog().UnsetWorkspaceProperties(ws, patch.unset));
  }
  TARN_ASSIGN_OR_RETURN(auto w, c.catalog().GetWorkspace(ws));
  c.ReplyJson(api::ToJson(w));
  return Status::OK();
}

// SECURE marks live in the SOURCE workspace: only its owner writes them (the route's role).
Status MarkSecureRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(const Json* to, r.OptValue("destinations"));
  TARN_ASSIGN_OR_RETURN(std::vector<std::string> destinations,
                        StringList(to, r.Pointer("destinations")));
  TARN_RETURN_NOT_OK(r.Finish());
  const std::string& ws = c.Param("ws");
  TARN_RETURN_NOT_OK(
      c.catalog().MarkSecure(ws, c.Param("object"), destinations, c.principal().client_id));
  TARN_ASSIGN_OR_RETURN(auto w, c.catalog().GetWorkspace(ws));
  c.ReplyJson(api::ToJson(w));
  return Status::OK();
}

Status ClearSecureRoute(Call& c) {
  const std::string& ws = c.Param("ws");
  TARN_RETURN_NOT_OK(c.catalog().ClearSecure(ws, c.Param("object")));
  TARN_ASSIGN_OR_RETURN(auto w, c.catalog().GetWorkspace(ws));
  c.ReplyJson(api::ToJson(w));
  return Status::OK();
}

// ---- collections ----

Status ListCollectionsRoute(Call& c) {
  const std::string& ws = c.Param("ws");
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListCollections(ws));
  Json a = Json::array();
  for (auto& coll : all) {
    if (!auth::MayAccess(c.principal(), Role::kReader, ws, coll.name)) continue;
    TARN_RETURN_NOT_OK(CountVisible(c, &coll));
    a.push_back(api::ToJson(coll));
  }
  c.ReplyJson(Wrapped("collections", std::move(a)));
  return Status::OK();
}

Status CreateCollectionRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(bool exists_ok, r.Bool("exists_ok", false));
  TARN_ASSIGN_OR_RETURN(auto description, r.OptString("description"));
  TARN_ASSIGN_OR_RETURN(PropertyMap props, OptProperties(r));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_RETURN_NOT_OK(CheckIdentifier("collection name", name, "/name"));
  const std::string& ws = c.Param("ws");
  c.audit_entries() = {{"collection.create", ws + "." + name, ws}};
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, ws, name));
  std::string q = ws + "." + name;
  TARN_RETURN_NOT_OK(c.catalog().CreateCollection(q, exists_ok, description.value_or(""), props));
  TARN_ASSIGN_OR_RETURN(auto coll, c.catalog().GetCollection(q));
  c.ReplyJson(api::ToJson(coll));
  return Status::OK();
}

Status GetCollectionRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto coll, c.catalog().GetCollection(CollQ(c)));
  TARN_RETURN_NOT_OK(CountVisible(c, &coll));
  c.ReplyJson(api::ToJson(coll));
  return Status::OK();
}

Status DropCollectionRoute(Call& c) {
  TARN_RETURN_NOT_OK(c.catalog().DropCollection(CollQ(c)));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status PatchCollectionRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto patch, ReadPropertyPatch(c));
  std::string q = CollQ(c);
  if (!patch.set.empty()) TARN_RETURN_NOT_OK(c.catalog().SetCollectionProperties(q, patch.set));
  if (!patch.unset.empty()) {
    TARN_RETURN_NOT_OK(c.catalog().UnsetCollectionProperties(q, patch.unset));
  }
  TARN_ASSIGN_OR_RETURN(auto coll, c.catalog().GetCollection(q));
  c.ReplyJson(api::ToJson(coll));
  return Status::OK();
}

// ---- datasets ----

Status ListDatasetsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListDatasets(CollQ(c)));
  Json a = Json::array();
  for (const auto& ds : all) {
    if (auth::MayAccess(c.principal(), Role::kReader, c.Param("ws"),
                        c.Param("coll") + "." + ds.name.dataset)) {
      a.push_back(api::ToJson(ds));
    }
  }
  c.ReplyJson(Wrapped("datasets", std::move(a)));
  return Status::OK();
}

Status CreateDatasetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(bool exists_ok, r.Bool("exists_ok", false));
  // The rest is a DatasetDefinition, read strictly by the codec.
  Json def = body;
  def.erase("name");
  def.erase("exists_ok");
  TARN_RETURN_NOT_OK(CheckIdentifier("dataset name", name, "/name"));
  TARN_ASSIGN_OR_RETURN(DatasetDefinition definition, api::DefinitionFromJson(def));
  const std::string& ws = c.Param("ws");
  std::string target = c.Param("coll") + "." + name;
  c.audit_entries() = {{"dataset.create", ws + "." + target, ws}};
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, ws, target));
  TARN_ASSIGN_OR_RETURN(
      auto ds, c.catalog().CreateDataset(CollQ(c) + "." + name, std::move(definition), exists_ok));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

Status GetDatasetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto at, Selector(c));
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().LoadDataset(DsQ(c), at));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

Status DropDatasetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(bool purge, QueryBool(c, "purge", false));
  TARN_RETURN_NOT_OK(c.catalog().DropDataset(DsQ(c), purge, c.Query("expected_uuid")));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status RenameDatasetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string new_name, r.String("new_name"));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_RETURN_NOT_OK(CheckIdentifier("dataset name", new_name, "/new_name"));
  // The caller must own the new name too, or a rename could move a dataset out of its reach.
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, c.Param("ws"),
                                     c.Param("coll") + "." + new_name));
  TARN_RETURN_NOT_OK(c.catalog().RenameDataset(DsQ(c), new_name));
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().LoadDataset(CollQ(c) + "." + new_name));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

Status PatchDatasetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto patch, ReadPropertyPatch(c));
  TARN_RETURN_NOT_OK(c.catalog().SetDatasetProperties(DsQ(c), patch.set, patch.unset));
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().LoadDataset(DsQ(c)));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

Status AlterSchemaRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(const Json* changes_json, r.Value("changes"));
  TARN_ASSIGN_OR_RETURN(auto read_snapshot_id, r.OptInt("read_snapshot_id"));
  TARN_RETURN_NOT_OK(r.Finish());
  if (!changes_json->is_array()) {
    return Status::Of(codes::kWrongType, "/changes must be an array")
        .WithField("field", "/changes");
  }
  std::vector<SchemaChange> changes;
  for (size_t i = 0; i < changes_json->size(); ++i) {
    auto ch = api::SchemaChangeFromJson((*changes_json)[i]);
    if (!ch.ok()) return Prefixed(ch.status(), "/changes/" + std::to_string(i));
    changes.push_back(std::move(*ch));
  }
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().AlterSchema(DsQ(c), changes, read_snapshot_id));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

Status SetPartitionRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string spec, r.String("spec"));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().SetPartitionSpec(DsQ(c), spec));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

Status SetSortRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string order, r.String("order"));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().SetSortOrder(DsQ(c), order));
  c.ReplyJson(api::ToJson(ds));
  return Status::OK();
}

// ---- commits ----

using Frame = std::pair<api::FrameKind, std::string>;

Status StreamError(const ErrorCode& code, std::string message) {
  return Status::InvalidArgument(std::move(message)).WithCode(code);
}

// The frames of an append body. Small bodies of known length are read whole; others stream
// through a reader thread and a bounded queue (the catalog pulls batches, the HTTP library
// pushes bytes), so memory stays bounded by a few frames.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The next frame; nullopt at the end of the body.
  virtual Result<std::optional<Frame>> Next() = 0;
};

class BufferedFrames : public FrameSource {
 public:
  static Result<std::unique_ptr<BufferedFrames>> Read(Call& c, int64_t limit) {
    auto out = std::make_unique<BufferedFrames>();
    api::FrameParser parser;
    TARN_RETURN_NOT_OK(c.ReadBody(limit, [&](std::string_view bytes) -> Status {
      TARN_RETURN_NOT_OK(parser.Feed(bytes));
      while (auto f = parser.Next()) out->frames_.push_back(std::move(*f));
      return Status::OK();
    }));
    if (parser.buffered() > 0) {
      return StreamError(codes::kIncompleteBody, "the frame stream ends inside a frame");
    }
    return out;
  }
  Result<std::optional<Frame>> Next() override {
    if (frames_.empty()) return std::optional<Frame>();
    Frame f = std::move(frames_.front());
    frames_.pop_front();
    return std::optional<Frame>(std::move(f));
  }

 private:
  std::deque<Frame> frames_;
};

class PumpedFrames : public FrameSource {
 public:
  static constexpr size_t kMaxQueuedBytes = 64 << 20;

  PumpedFrames(Call& c, int64_t limit) : call_(c), limit_(limit), queue_(kMaxQueuedBytes) {
    thread_ = std::thread([this] { Run(); });
  }
  ~PumpedFrames() override {
    queue_.Cancel();
    thread_.join();
  }

  Result<std::optional<Frame>> Next() override { return queue_.Pop(); }

 private:
  void Run() {
    Status st;
    try {
      st = Pump();
    } catch (const std::exception& e) {  // this thread must not end the process
      st = Status::Internal(std::string("reading the append body: ") + e.what());
    }
    queue_.Finish(st);
  }

  Status Pump() {
    api::FrameParser parser;
    Status st = call_.ReadBody(limit_, [&](std::string_view bytes) -> Status {
      TARN_RETURN_NOT_OK(parser.Feed(bytes));
      while (auto f = parser.Next()) {
        const auto bytes = static_cast<int64_t>(f->second.size());
        if (!queue_.Push(std::move(*f), bytes)) {
          return Status::Cancelled("the append stopped reading its body");
        }
      }
      return Status::OK();
    });
    if (st.ok() && parser.buffered() > 0) {
      st = StreamError(codes::kIncompleteBody, "the frame stream ends inside a frame");
    }
    return st;
  }

  Call& call_;
  int64_t limit_;
  BoundedQueue<Frame> queue_;
  std::thread thread_;
};

// Bodies of known length up to this size are read whole before the append starts.
constexpr int64_t kBufferedAppendBytes = 8 << 20;

Status AppendRoute(Call& c) {
  auto op = CommitOperation::kAppend;
  if (auto v = c.Query("operation")) {
    if (*v == "overwrite") {
      op = CommitOperation::kOverwrite;
    } else if (*v == "merge") {
      op = CommitOperation::kMerge;  // ReplaceWhere: a W frame follows the M frame
    } else if (*v != "append") {
      return InvalidParam("operation", "must be append, overwrite or merge");
    }
  }
  std::string action = "dataset." + std::string(CommitOperationName(op));
  c.audit_entries()[0].action = action;
  int64_t limit = c.options().max_append_body_bytes;

  std::unique_ptr<FrameSource> src;
  auto length = c.content_length();
  if (length && *length <= kBufferedAppendBytes) {
    TARN_ASSIGN_OR_RETURN(src, BufferedFrames::Read(c, limit));
  } else {
    src = std::make_unique<PumpedFrames>(c, limit);
  }

  TARN_ASSIGN_OR_RETURN(auto first, src->Next());
  if (!first || first->first != api::FrameKind::kMeta) {
    return StreamError(codes::kBadFrame,
                       "an append stream starts with an M frame (the commit meta)");
  }
  TARN_ASSIGN_OR_RETURN(Json meta_json, api::ParseObject(first->second));
  TARN_ASSIGN_OR_RETURN(CommitMeta meta, api::CommitMetaFromJson(meta_json));
  meta = ServerMeta(c, std::move(meta), action);
  std::optional<std::string> where;
  TARN_ASSIGN_OR_RETURN(auto read_snapshot_id, QueryInt(c, "read_snapshot_id"));
  if (read_snapshot_id && op != CommitOperation::kMerge) {
    return InvalidParam("read_snapshot_id", "goes with operation=merge only");
  }
  if (op == CommitOperation::kMerge) {
    TARN_ASSIGN_OR_RETURN(auto second, src->Next());
    if (!second || second->first != api::FrameKind::kWhere) {
      return StreamError(codes::kBadFrame,
                         "a merge append has a W frame (the delete predicate) after the M frame");
    }
    where = std::move(second->second);
  }

  bool ended = false;
  Catalog::BatchSource next = [&]() -> Result<std::optional<RecordBatch>> {
    if (ended) return std::optional<RecordBatch>();
    TARN_ASSIGN_OR_RETURN(auto f, src->Next());
    if (!f) return StreamError(codes::kIncompleteBody, "the frame stream ended without an E frame");
    switch (f->first) {
      case api::FrameKind::kParquet: {
        TARN_ASSIGN_OR_RETURN(RecordBatch b, api::DecodeBatchPayload(std::move(f->second)));
        return std::optional<RecordBatch>(std::move(b));
      }
      case api::FrameKind::kEnd: {
        // Nothing may follow E, and the body must have ended cleanly, before anything commits.
        TARN_ASSIGN_OR_RETURN(auto after, src->Next());
        if (after) return StreamError(codes::kBadFrame, "a frame follows the E frame");
        ended = true;
        return std::optional<RecordBatch>();
      }
      case api::FrameKind::kError:
        return api::StatusFromErrorBody(422, f->second)
            .WithContext("the client aborted the append");
      case api::FrameKind::kMeta:
        return StreamError(codes::kBadFrame, "an M frame may only come first");
      case api::FrameKind::kWhere:
        return StreamError(codes::kBadFrame, "a W frame may only follow the M frame of a merge");
    }
    return StreamError(codes::kBadFrame, "unknown frame kind");
  };
  auto r = Committed(c, where ? c.catalog().ReplaceWhere(DsQ(c), *where, next, std::move(meta),
                                                         c.Query("expected_uuid"), read_snapshot_id)
                              : c.catalog().AppendStream(DsQ(c), next, std::move(meta), op,
                                                         c.Query("expected_uuid")));
  src.reset();  // stops and joins a reader thread before the reply
  TARN_RETURN_NOT_OK(r.status());
  c.ReplyJson(api::ToJson(*r));
  return Status::OK();
}

Status AddFilesRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(const Json* paths_json, r.Value("paths"));
  TARN_ASSIGN_OR_RETURN(auto paths, StringList(paths_json, "/paths"));
  TARN_ASSIGN_OR_RETURN(bool truncate_first, r.Bool("truncate_first", false));
  std::string action = truncate_first ? "dataset.truncate_and_add_files" : "dataset.add_files";
  TARN_ASSIGN_OR_RETURN(CommitMeta meta, MetaField(c, r, action));
  TARN_RETURN_NOT_OK(r.Finish());
  c.audit_entries()[0].action = action;
  for (size_t i = 0; i < paths.size(); ++i) {
    TARN_ASSIGN_OR_RETURN(paths[i], KeyAt(c, paths[i], "/paths/" + std::to_string(i)));
  }
  TARN_ASSIGN_OR_RETURN(
      auto s, Committed(c, c.catalog().AddFiles(DsQ(c), paths, std::move(meta), truncate_first)));
  c.ReplyJson(api::ToJson(s));
  return Status::OK();
}

// Registers an Iceberg table as a new dataset (tarn/iceberg.h). The request is audited as one
// dataset.register row by the server (the registration's commits carry no audit row of their
// own: it is one act).
Status RegisterIcebergRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  IcebergRegisterRequest req;
  TARN_ASSIGN_OR_RETURN(req.metadata, r.String("metadata"));
  TARN_ASSIGN_OR_RETURN(req.meta, MetaField(c, r, "dataset.register"));
  TARN_RETURN_NOT_OK(r.Finish());
  req.meta.audit.reset();
  TARN_ASSIGN_OR_RETURN(req.metadata, KeyAt(c, req.metadata, "/metadata"));
  TARN_ASSIGN_OR_RETURN(auto out, c.catalog().RegisterIcebergTable(DsQ(c), req));
  c.metrics().CountCommits(static_cast<int64_t>(out.snapshots.size()));
  c.ReplyJson(api::ToJson(out));
  return Status::OK();
}

Status DeleteRowsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string where, r.String("where"));
  TARN_ASSIGN_OR_RETURN(CommitMeta meta, MetaField(c, r, "dataset.delete_rows"));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto s,
                        Committed(c, c.catalog().DeleteRows(DsQ(c), where, std::move(meta))));
  c.ReplyJson(api::ToJson(s));
  return Status::OK();
}

Status RollbackRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(int64_t to, r.Int("to_snapshot_id"));
  TARN_ASSIGN_OR_RETURN(CommitMeta meta, MetaField(c, r, "dataset.rollback"));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto s, Committed(c, c.catalog().Rollback(DsQ(c), to, std::move(meta))));
  c.ReplyJson(api::ToJson(s));
  return Status::OK();
}

Status CommitRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(const Json* parts_json, r.Value("parts"));
  TARN_RETURN_NOT_OK(r.Finish());
  if (!parts_json->is_array() || parts_json->empty()) {
    return Status::Of(codes::kWrongType, "/parts must be a non-empty array")
        .WithField("field", "/parts");
  }
  std::vector<DatasetCommit> parts;
  c.audit_entries().clear();
  for (size_t i = 0; i < parts_json->size(); ++i) {
    std::string at = "/parts/" + std::to_string(i);
    auto part = api::DatasetCommitFromJson((*parts_json)[i]);
    if (!part.ok()) return Prefixed(part.status(), at);
    DatasetCommit& p = *part;
    auto name = ParseDatasetName(p.dataset);
    if (!name.ok()) {
      return Status(name.status().kind(), name.status().message())
          .WithCode(codes::kInvalidIdentifier)
          .WithField("field", at + "/dataset");
    }
    p.dataset = name->ToString();
    std::string action = "dataset." + std::string(CommitOperationName(p.operation));
    c.audit_entries().push_back({action, p.dataset, name->workspace});
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kWriter, name->workspace,
                                       name->collection + "." + name->dataset));
    for (size_t k = 0; k < p.added.size(); ++k) {
      TARN_ASSIGN_OR_RETURN(
          p.added[k].path, KeyAt(c, p.added[k].path, at + "/added/" + std::to_string(k) + "/path"));
    }
    for (size_t k = 0; k < p.removed_paths.size(); ++k) {
      TARN_ASSIGN_OR_RETURN(p.removed_paths[k], KeyAt(c, p.removed_paths[k],
                                                      at + "/removed_paths/" + std::to_string(k)));
    }
    for (size_t k = 0; k < p.deletes.size(); ++k) {
      TARN_ASSIGN_OR_RETURN(
          p.deletes[k].path,
          KeyAt(c, p.deletes[k].path, at + "/deletes/" + std::to_string(k) + "/path"));
    }
    p.meta = ServerMeta(c, std::move(p.meta), action);
    parts.push_back(std::move(p));
  }
  auto done = c.catalog().Commit(std::move(parts));
  CountCommit(c, done.status(), done.ok() ? *done : std::vector<SnapshotInfo>{});
  TARN_RETURN_NOT_OK(done.status());
  c.ReplyJson(Wrapped("snapshots", ArrayOf(*done)));
  return Status::OK();
}

// ---- snapshots, tags, planning, scans, changes, offsets, expiry ----

Status ListSnapshotsRoute(Call& c) {
  SnapshotQuery q;
  TARN_ASSIGN_OR_RETURN(q.limit, QueryLimit(c, kMaxSnapshotPage, kMaxSnapshotPage));
  TARN_ASSIGN_OR_RETURN(q.after, QueryInt(c, "after"));
  TARN_ASSIGN_OR_RETURN(q.before, QueryInt(c, "before"));
  TARN_ASSIGN_OR_RETURN(auto page, c.catalog().ListSnapshots(DsQ(c), q));
  Json out = Wrapped("snapshots", ArrayOf(page));
  if (!page.empty()) {
    AddNextCursor(out, static_cast<int64_t>(page.size()) == *q.limit, q.before && !q.after,
                  page.front().snapshot_id, page.back().snapshot_id);
  }
  c.ReplyJson(out);
  return Status::OK();
}

Status GetSnapshotRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto at, Selector(c));
  TARN_ASSIGN_OR_RETURN(auto s, c.catalog().GetSnapshot(DsQ(c), at));
  c.ReplyJson(api::ToJson(s));
  return Status::OK();
}

Status ListTagsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListTags(DsQ(c)));
  c.ReplyJson(Wrapped("tags", ArrayOf(all)));
  return Status::OK();
}

// Provenance (docs/design/provenance.md). Impact and readers name consumers in other
// workspaces too: a reader of the asked dataset learns that they exist, never their data.
Status LineageRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto snapshot, QueryInt(c, "snapshot"));
  TARN_ASSIGN_OR_RETURN(auto limit, QueryInt(c, "limit"));
  int64_t n = limit.value_or(100);
  if (n < 1 || n > 10000) return InvalidParam("limit", "must be 1..10000");
  TARN_ASSIGN_OR_RETURN(auto out, c.catalog().Lineage(DsQ(c), snapshot, static_cast<size_t>(n)));
  c.ReplyJson(api::ToJson(out));
  return Status::OK();
}

Status ImpactRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto out, c.catalog().Impact(DsQ(c)));
  c.ReplyJson(api::ToJson(out));
  return Status::OK();
}

Status ReadersRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto version, QueryInt(c, "version"));
  TARN_ASSIGN_OR_RETURN(auto out, c.catalog().Readers(DsQ(c), version));
  c.ReplyJson(api::ToJson(out));
  return Status::OK();
}

Status CreateTagRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  SnapshotSelector at;
  TARN_ASSIGN_OR_RETURN(at.snapshot_id, r.OptInt("snapshot_id"));
  TARN_ASSIGN_OR_RETURN(at.at_time_us, r.OptInt("at_us"));
  TARN_ASSIGN_OR_RETURN(at.tag, r.OptString("tag"));
  TARN_ASSIGN_OR_RETURN(bool replace, r.Bool("replace", false));
  TARN_RETURN_NOT_OK(r.Finish());
  if (int(at.snapshot_id.has_value()) + int(at.at_time_us.has_value()) + int(at.tag.has_value()) >
      1) {
    return Status::Of(codes::kAmbiguousSelector, "give at most one of snapshot_id, at_us and tag");
  }
  c.audit_entries()[0].target = DsQ(c) + "@" + c.Param("tag");
  TARN_RETURN_NOT_OK(c.catalog().CreateTag(DsQ(c), c.Param("tag"), at, replace));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status DropTagRoute(Call& c) {
  c.audit_entries()[0].target = DsQ(c) + "@" + c.Param("tag");
  TARN_RETURN_NOT_OK(c.catalog().DropTag(DsQ(c), c.Param("tag")));
  c.ReplyJson(Json::object());
  return Status::OK();
}

// Checks what a plan or scan will read before the response starts, so a missing dataset, a bad
// selector or predicate is a proper error status rather than an error trailer.
// What a read stream would refuse, refused before the stream starts (a status, not an error
// frame): the dataset and snapshot, the predicate, the columns.
Status PrecheckRead(Call& c, const SnapshotSelector& at, const std::string& where,
                    const std::vector<std::string>& columns = {}) {
  TARN_ASSIGN_OR_RETURN(auto ds, c.catalog().LoadDataset(DsQ(c), at));
  if (!where.empty()) {
    auto pred = ParseAndBindPredicate(where, ds.schema);
    if (!pred.ok()) return pred.status().WithField("field", "where");
  }
  return ScanFieldIds(ds.schema, columns, DsQ(c)).status();
}

// Without `limit` or a cursor, every file (streamed, unbounded); with them, a page by path whose
// end line carries the next cursor ("Paging").
Status PlanRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto at, Selector(c));
  std::string where = c.Query("where").value_or("");
  FileQuery page;
  TARN_ASSIGN_OR_RETURN(page.limit, QueryInt(c, "limit"));
  if (page.limit && (*page.limit < 1 || *page.limit > kMaxFilePage)) {
    return InvalidParam("limit", "must be 1 to " + std::to_string(kMaxFilePage));
  }
  page.after = c.Query("after");
  page.before = c.Query("before");
  TARN_RETURN_NOT_OK(PrecheckRead(c, at, where));
  Catalog* cat = &c.catalog();
  c.ReplyStream(
      "application/x-ndjson",
      [cat, q = DsQ(c), at, where, page,
       client_error = c.ClientError()](const StreamWrite& write) -> Status {
        int64_t files = 0;
        std::string first, last;
        bool write_failed = false;
        Status st = cat->PlanFiles(q, at, where, page, [&](const PlannedFile& f) -> Status {
          Status w = write(api::Dump(api::ToJson(f)) + "\n");
          write_failed = !w.ok();
          if (files++ == 0) first = f.file.path;
          last = f.file.path;
          return w;
        });
        if (write_failed) return st;
        if (!st.ok()) return write(api::Dump(api::ErrorBody(client_error(st))) + "\n");
        Json end{{"end", true}, {"files", files}};
        if (page.limit) {
          AddNextCursor(end, files == *page.limit, page.before && !page.after, first, last);
        }
        return write(api::Dump(end) + "\n");
      });
  return Status::OK();
}

Status ScanRoute(Call& c) {
  ScanOptions options;
  TARN_ASSIGN_OR_RETURN(options.at, Selector(c));
  options.where = c.Query("where").value_or("");
  TARN_ASSIGN_OR_RETURN(options.with_row_ids, QueryBool(c, "with_row_ids", false));
  TARN_ASSIGN_OR_RETURN(options.added_after, QueryInt(c, "added_after"));
  if (auto columns = c.Query("columns")) {
    // Comma-separated column names (a name holds no comma).
    size_t start = 0;
    while (start <= columns->size()) {
      size_t end = columns->find(',', start);
      if (end == std::string::npos) end = columns->size();
      std::string name = columns->substr(start, end - start);
      if (name.empty()) return InvalidParam("columns", "has an empty column name");
      options.columns.push_back(std::move(name));
      start = end + 1;
    }
  }
  TARN_RETURN_NOT_OK(PrecheckRead(c, options.at, options.where, options.columns));
  Catalog* cat = &c.catalog();
  c.ReplyStream(
      "application/vnd.tarn.frames",
      [cat, q = DsQ(c), options,
       client_error = c.ClientError()](const StreamWrite& write) -> Status {
        int64_t rows = 0;
        bool write_failed = false;
        Status st = cat->Scan(q, options, [&](const RecordBatch& b) -> Status {
          TARN_ASSIGN_OR_RETURN(std::string frame, api::EncodeBatchFrame(b));
          Status w = write(frame);
          write_failed = !w.ok();
          rows += b.num_rows;
          return w;
        });
        if (write_failed) return st;
        if (!st.ok()) {
          return write(api::EncodeFrame(api::FrameKind::kError,
                                        api::Dump(api::ErrorBody(client_error(st)))));
        }
        return write(api::EncodeFrame(api::FrameKind::kEnd, api::Dump(Json{{"rows", rows}})));
      });
  return Status::OK();
}

// The manifest of a snapshot (C12; docs/design/maintenance.md "Manifest export"): Parquet bytes,
// streamed. The selector is resolved before the response starts (a missing dataset or snapshot
// is a status) and the export runs at that snapshot; a failure after the head cuts the stream
// (a Parquet file has no error trailer), which the client sees as truncated.
Status ManifestRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto at, Selector(c));
  TARN_ASSIGN_OR_RETURN(auto snap, c.catalog().GetSnapshot(DsQ(c), at));
  SnapshotSelector pinned;
  pinned.snapshot_id = snap.snapshot_id;
  Catalog* cat = &c.catalog();
  c.ReplyStream("application/vnd.apache.parquet",
                [cat, q = DsQ(c), pinned](const StreamWrite& write) -> Status {
                  return cat->ExportManifest(q, pinned, write).status();
                });
  return Status::OK();
}

// The Iceberg metadata of a snapshot (docs/design/iceberg.md; Client::IcebergTable), naming the
// warehouse's own URIs. Produced on the first request (so a GET may write the metadata objects).
Status IcebergTableRoute(Call& c) {
  IcebergRequest request;
  TARN_ASSIGN_OR_RETURN(request.at, Selector(c));
  TARN_ASSIGN_OR_RETURN(auto version, QueryInt(c, "format_version"));
  if (version) {
    if (*version < 1 || *version > 99) return InvalidParam("format_version", "must be 2");
    request.format_version = static_cast<int>(*version);
  }
  TARN_ASSIGN_OR_RETURN(auto info, c.catalog().IcebergTable(DsQ(c), request));
  c.ReplyJson(api::ToJson(info));
  return Status::OK();
}

Status ChangesRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto from, QueryInt(c, "from"));
  if (!from) return InvalidParam("from", "is required");
  ChangeQuery query;
  query.from = *from;
  TARN_ASSIGN_OR_RETURN(query.to, QueryInt(c, "to"));
  TARN_ASSIGN_OR_RETURN(query.limit, QueryLimit(c, kMaxChangePage, kMaxChangePage));
  TARN_ASSIGN_OR_RETURN(auto changes, c.catalog().Changes(DsQ(c), query));
  c.ReplyJson(api::ToJson(changes));
  return Status::OK();
}

Status GetOffsetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto off, c.catalog().GetOffset(DsQ(c), c.Param("consumer")));
  c.ReplyJson(
      Json{{"consumer", c.Param("consumer")}, {"snapshot_id", off ? Json(*off) : Json(nullptr)}});
  return Status::OK();
}

Status CommitOffsetRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(int64_t snapshot_id, r.Int("snapshot_id"));
  TARN_RETURN_NOT_OK(r.Finish());
  c.audit_entries()[0].target = DsQ(c) + "#" + c.Param("consumer");
  TARN_RETURN_NOT_OK(c.catalog().CommitOffset(DsQ(c), c.Param("consumer"), snapshot_id));
  c.ReplyJson(Json::object());
  return Status::OK();
}

// ---- external locations ----

Status ListLocationsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListLocations(DsQ(c)));
  c.ReplyJson(Wrapped("locations", ArrayOf(all)));
  return Status::OK();
}

Status GrantLocationRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string prefix, r.String("prefix"));
  TARN_RETURN_NOT_OK(r.Finish());
  c.set_audit_detail(api::Dump(Json{{"prefix", prefix}}));
  TARN_RETURN_NOT_OK(c.catalog().GrantLocation(DsQ(c), prefix, c.principal().client_id));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status RevokeLocationRoute(Call& c) {
  auto prefix = c.Query("prefix");
  if (!prefix || prefix->empty()) return InvalidParam("prefix", "required");
  c.set_audit_detail(api::Dump(Json{{"prefix", *prefix}}));
  TARN_RETURN_NOT_OK(c.catalog().RevokeLocation(DsQ(c), *prefix));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status ExpireRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(auto options, api::ExpiryOptionsFromJson(body));
  TARN_ASSIGN_OR_RETURN(auto result, c.catalog().ExpireSnapshots(DsQ(c), options));
  c.ReplyJson(api::ToJson(result));
  return Status::OK();
}

Status RetentionRoute(Call& c) {
  RetentionOptions options;
  TARN_ASSIGN_OR_RETURN(options.workspace, OwnedWorkspaceParam(c));
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(options.dry_run, r.Bool("dry_run", false));
  TARN_RETURN_NOT_OK(r.Finish());
  if (!c.audit_entries().empty()) c.audit_entries()[0].workspace = options.workspace;
  c.set_audit_detail(
      api::Dump(Json{{"workspace", options.workspace}, {"dry_run", options.dry_run}}));
  TARN_ASSIGN_OR_RETURN(auto result, c.catalog().ApplyRetention(options));
  c.ReplyJson(api::ToJson(result));
  return Status::OK();
}

Status CompactRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(CommitMeta meta, MetaField(c, r, "dataset.compact"));
  Json options_json = Json::object();
  for (const char* key : {"rule", "dry_run", "where"}) {
    TARN_ASSIGN_OR_RETURN(const Json* v, r.OptValue(key));
    if (v != nullptr) options_json[key] = *v;
  }
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto options, api::CompactionOptionsFromJson(options_json));
  c.set_audit_detail(api::Dump(api::ToJson(options)));
  auto result = c.catalog().Compact(DsQ(c), options, std::move(meta));
  if (!result.ok()) {
    if (result.status().kind() == ErrorKind::kConflict) c.metrics().CountConflict();
    return result.status();
  }
  c.ReplyJson(api::ToJson(*result));
  return Status::OK();
}

Status HydrateStatsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  StatsHydrationOptions options;
  TARN_ASSIGN_OR_RETURN(auto limit, r.OptInt("limit"));
  options.limit = limit.value_or(0);
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto result, c.catalog().HydrateStats(DsQ(c), options));
  c.set_audit_detail(api::Dump(Json{{"files_hydrated", result.files_hydrated},
                                    {"files_pending", result.files_pending},
                                    {"failures", result.failures.size()}}));
  c.ReplyJson(api::ToJson(result));
  return Status::OK();
}

// The body takes no fields today ({} or no body); it is still read strictly, so a client that
// sends options this server does not know is told (422 unknown_field) rather than ignored.
Status FlushInlinedRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto result, c.catalog().FlushInlined(DsQ(c)));
  c.set_audit_detail(api::Dump(
      Json{{"files_written", result.files_written}, {"bytes_written", result.bytes_written}}));
  c.ReplyJson(api::ToJson(result));
  return Status::OK();
}

// ---- views ----

std::string ViewQ(Call& c) { return CollQ(c) + "." + c.Param("view"); }

Status ListViewsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListViews(CollQ(c)));
  Json views = Json::array();
  for (const auto& v : all) {
    if (auth::MayAccess(c.principal(), Role::kReader, c.Param("ws"),
                        c.Param("coll") + "." + v.name.dataset)) {
      views.push_back(api::ToJson(v));
    }
  }
  c.ReplyJson(Wrapped("views", std::move(views)));
  return Status::OK();
}

// A create under a collection: a token that may not own anything in it is refused before its
// body is read (what it would have been told about the body is none of its business).
Status AuthorizeCollectionOwner(Call& c) {
  return auth::Authorize(c.principal(), Role::kOwner, c.Param("ws"), c.Param("coll"));
}

Status CreateViewRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeCollectionOwner(c));
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(bool replace, r.Bool("replace", false));
  Json def = body;
  def.erase("name");
  def.erase("replace");
  TARN_RETURN_NOT_OK(CheckIdentifier("view name", name, "/name"));
  TARN_ASSIGN_OR_RETURN(ViewDefinition definition, api::ViewDefinitionFromJson(def));
  const std::string& ws = c.Param("ws");
  std::string target = c.Param("coll") + "." + name;
  c.audit_entries() = {{replace ? "view.replace" : "view.create", ws + "." + target, ws}};
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, ws, target));
  TARN_ASSIGN_OR_RETURN(auto view, c.catalog().CreateView(CollQ(c) + "." + name, definition,
                                                          replace, c.principal().client_id));
  c.ReplyJson(api::ToJson(view));
  return Status::OK();
}

Status GetViewRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto version, QueryInt(c, "version"));
  TARN_ASSIGN_OR_RETURN(auto view, c.catalog().GetView(ViewQ(c), version));
  c.ReplyJson(api::ToJson(view));
  return Status::OK();
}

Status ListViewVersionsRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListViewVersions(ViewQ(c)));
  c.ReplyJson(Wrapped("versions", ArrayOf(all)));
  return Status::OK();
}

Status DropViewRoute(Call& c) {
  TARN_RETURN_NOT_OK(c.catalog().DropView(ViewQ(c)));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status RecordViewRunRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(int64_t rows, r.Int("row_count"));
  TARN_ASSIGN_OR_RETURN(int64_t run_us, r.Int("run_us"));
  TARN_RETURN_NOT_OK(r.Finish());
  if (rows < 0) return InvalidParam("row_count", "must be >= 0");
  if (run_us < 0 || run_us > int64_t{1'000'000'000} * 1'000'000) {
    return InvalidParam("run_us", "must be in [0, 1e15]");
  }
  TARN_RETURN_NOT_OK(c.catalog().RecordViewRun(ViewQ(c), rows, static_cast<double>(run_us) / 1e6));
  c.ReplyJson(Json::object());
  return Status::OK();
}

// ---- materialized views and triggers ----

Status ListMaterializedRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListMaterializedViews(CollQ(c)));
  Json out = Json::array();
  for (const auto& v : all) {
    if (auth::MayAccess(c.principal(), Role::kReader, c.Param("ws"),
                        c.Param("coll") + "." + v.view.name.dataset)) {
      out.push_back(api::ToJson(v));
    }
  }
  c.ReplyJson(Wrapped("materialized_views", std::move(out)));
  return Status::OK();
}

Status RegisterMaterializedRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeCollectionOwner(c));
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(bool replace, r.Bool("replace", false));
  TARN_ASSIGN_OR_RETURN(const Json* sources_json, r.OptValue("sources"));
  TARN_ASSIGN_OR_RETURN(auto sources, StringList(sources_json, "/sources"));
  TARN_ASSIGN_OR_RETURN(auto refresh_kind, r.OptString("refresh_kind"));
  Json def = body;
  def.erase("name");
  def.erase("replace");
  def.erase("refresh_kind");
  def.erase("sources");
  TARN_RETURN_NOT_OK(CheckIdentifier("view name", name, "/name"));
  TARN_ASSIGN_OR_RETURN(ViewDefinition definition, api::ViewDefinitionFromJson(def));
  const std::string& ws = c.Param("ws");
  std::string target = c.Param("coll") + "." + name;
  c.audit_entries() = {
      {replace ? "materialized_view.replace" : "materialized_view.create", ws + "." + target, ws}};
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, ws, target));
  // Registering reads the sources: the caller must be able to read each one.
  for (size_t i = 0; i < sources.size(); ++i) {
    auto sn = ParseDatasetName(sources[i]);
    if (!sn.ok()) return InvalidIdentifierAt(sn.status(), "/sources/" + std::to_string(i));
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kReader, sn->workspace,
                                       sn->collection + "." + sn->dataset));
  }
  TARN_ASSIGN_OR_RETURN(auto mv, c.catalog().RegisterMaterializedView(
                                     CollQ(c) + "." + name, definition, sources, replace,
                                     refresh_kind.value_or(kRefreshFull), c.principal().client_id));
  c.ReplyJson(api::ToJson(mv));
  return Status::OK();
}

Status GetMaterializedRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto mv, c.catalog().GetMaterializedView(ViewQ(c)));
  c.ReplyJson(api::ToJson(mv));
  return Status::OK();
}

Status DropMaterializedRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(bool purge, QueryBool(c, "purge", false));
  TARN_RETURN_NOT_OK(c.catalog().DropMaterializedView(ViewQ(c), purge));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status RecordRefreshRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(auto record, api::RefreshRecordFromJson(body));
  c.set_audit_detail(api::Dump(Json{{"status", record.status}, {"job_id", record.job_id}}));
  TARN_RETURN_NOT_OK(c.catalog().RecordRefresh(ViewQ(c), record));
  c.ReplyJson(Json::object());
  return Status::OK();
}

// ---- tasks ----

std::string TaskQ(Call& c) { return CollQ(c) + "." + c.Param("task"); }

Status ListTasksRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListTasks(CollQ(c)));
  Json out = Json::array();
  for (const auto& t : all) {
    if (auth::MayAccess(c.principal(), Role::kReader, c.Param("ws"),
                        c.Param("coll") + "." + t.name.dataset)) {
      out.push_back(api::ToJson(t));
    }
  }
  c.ReplyJson(Wrapped("tasks", std::move(out)));
  return Status::OK();
}

Status RegisterTaskRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeCollectionOwner(c));
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(std::string name, r.String("name"));
  TARN_ASSIGN_OR_RETURN(bool replace, r.Bool("replace", false));
  TARN_ASSIGN_OR_RETURN(const Json* reads_json, r.OptValue("reads"));
  TARN_ASSIGN_OR_RETURN(auto reads, StringList(reads_json, "/reads"));
  Json def = body;
  def.erase("name");
  def.erase("replace");
  def.erase("reads");
  TARN_RETURN_NOT_OK(CheckIdentifier("task name", name, "/name"));
  TARN_ASSIGN_OR_RETURN(TaskDefinition definition, api::TaskDefinitionFromJson(def));
  const std::string& ws = c.Param("ws");
  std::string task = c.Param("coll") + "." + name;
  c.audit_entries() = {{replace ? "task.replace" : "task.create", ws + "." + task, ws}};
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kOwner, ws, task));
  // The owner declares what the task reads and writes: it must be able to read each and write
  // the target (the runs have runs_as's rights, checked again at each run).
  for (size_t i = 0; i < reads.size(); ++i) {
    auto rn = ParseDatasetName(reads[i]);
    if (!rn.ok()) return InvalidIdentifierAt(rn.status(), "/reads/" + std::to_string(i));
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kReader, rn->workspace,
                                       rn->collection + "." + rn->dataset));
  }
  if (auto t = ParseDatasetName(definition.target); t.ok()) {
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kWriter, t->workspace,
                                       t->collection + "." + t->dataset));
  }
  // Naming another client as runs_as lends the runs that client's rights: only a caller who
  // could have granted such a token may (auth::AuthorizeGrant), so an owner of one workspace
  // cannot borrow a token of another workspace or of every one.
  if (!definition.runs_as.empty() && definition.runs_as != c.principal().client_id) {
    TARN_ASSIGN_OR_RETURN(auto tokens, c.catalog().ListAccessTokens(""));
    for (const auto& t : tokens) {
      if (t.client_id != definition.runs_as) continue;
      AccessTokenSpec lent;
      lent.workspace = t.workspace;
      lent.role = t.role;
      lent.pattern = t.pattern;
      Status may = auth::AuthorizeGrant(c.principal(), lent);
      if (!may.ok()) {
        return may.WithContext("runs_as " + t.client_id + " (" + std::string(RoleName(t.role)) +
                               " of " + t.workspace + ")");
      }
    }
  }
  if (auto on = ParseDatasetName(definition.on); on.ok()) {
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kReader, on->workspace,
                                       on->collection + "." + on->dataset));
  }
  TARN_ASSIGN_OR_RETURN(auto info,
                        c.catalog().RegisterTask(CollQ(c) + "." + name, definition, reads, replace,
                                                 c.principal().client_id));
  c.ReplyJson(api::ToJson(info));
  return Status::OK();
}

Status GetTaskRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto info, c.catalog().GetTask(TaskQ(c)));
  c.ReplyJson(api::ToJson(info));
  return Status::OK();
}

Status DropTaskRoute(Call& c) {
  TARN_RETURN_NOT_OK(c.catalog().DropTask(TaskQ(c)));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status SignalTaskRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto job, c.catalog().SignalTask(TaskQ(c), c.principal().client_id));
  c.set_audit_detail(api::Dump(Json{{"job", job.id}}));
  c.ReplyJson(api::ToJson(job));
  return Status::OK();
}

Status RecordTaskRunRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(auto record, api::RefreshRecordFromJson(body));
  c.set_audit_detail(api::Dump(Json{{"status", record.status}, {"job_id", record.job_id}}));
  TARN_RETURN_NOT_OK(c.catalog().RecordTaskRun(TaskQ(c), record));
  c.ReplyJson(Json::object());
  return Status::OK();
}

Status ListTriggersRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListTriggers(DsQ(c)));
  c.ReplyJson(Wrapped("triggers", ArrayOf(all)));
  return Status::OK();
}

Status SetTriggerIntervalRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_ASSIGN_OR_RETURN(auto seconds, r.OptInt("seconds"));
  TARN_RETURN_NOT_OK(r.Finish());
  c.audit_entries()[0].target = DsQ(c) + "#" + c.Param("trigger");
  c.set_audit_detail(api::Dump(Json{{"seconds", seconds ? Json(*seconds) : Json(nullptr)}}));
  TARN_RETURN_NOT_OK(c.catalog().SetTriggerInterval(DsQ(c), c.Param("trigger"), seconds));
  c.ReplyJson(Json::object());
  return Status::OK();
}

// ---- jobs ----

// Whether the caller may read the job's target.
bool MayReadJob(Call& c, const JobInfo& job) {
  auto n = ParseDatasetName(job.target);
  return n.ok() && auth::MayAccess(c.principal(), Role::kReader, n->workspace,
                                   n->collection + "." + n->dataset);
}

Status ListJobsRoute(Call& c) {
  JobQuery q;
  q.state = c.Query("state").value_or("");
  q.target = c.Query("target").value_or("");
  TARN_ASSIGN_OR_RETURN(q.limit, QueryLimit(c, 100, 10000));
  q.after = c.Query("after").value_or("");
  q.before = c.Query("before").value_or("");
  // A token of one workspace lists that workspace's jobs in the query itself, so `limit` counts
  // jobs it may read; a name pattern is applied after, on catalog pages of 10000, at most 10 of
  // them per request: a page may then be short and still carry the cursor of the next one,
  // after the last job it looked at.
  const std::string& scope = c.principal().workspace;
  if (scope != "*") q.workspace = scope;
  const int64_t wanted = q.limit;
  const bool downwards = !q.before.empty() && q.after.empty();
  if (c.principal().pattern != "*") q.limit = 10000;
  std::vector<Json> page;  // nearest the cursor first
  std::string edge;        // the last job looked at
  bool more = false;
  for (int round = 0; round < 10; ++round) {
    TARN_ASSIGN_OR_RETURN(auto batch, c.catalog().ListJobs(q));
    if (downwards) std::reverse(batch.begin(), batch.end());
    for (const auto& j : batch) {
      if (static_cast<int64_t>(page.size()) >= wanted) break;
      edge = j.id;
      if (MayReadJob(c, j)) page.push_back(api::ToJson(j));
    }
    // A full page continues (docs/design/serve.md "Paging"); so does a full catalog batch.
    more = static_cast<int64_t>(page.size()) >= wanted ||
           static_cast<int64_t>(batch.size()) == q.limit;
    if (!more || static_cast<int64_t>(page.size()) >= wanted) break;
    (downwards ? q.before : q.after) = edge;
  }
  if (downwards) std::reverse(page.begin(), page.end());
  Json out = Wrapped("jobs", Json(std::move(page)));
  if (more && !edge.empty()) out[downwards ? "next_before" : "next_after"] = edge;
  c.ReplyJson(out);
  return Status::OK();
}

Status GetJobRoute(Call& c) {
  if (!c.principal().job.empty() && c.principal().job != c.Param("job")) {
    return Status::Of(codes::kPermissionDenied, "a job token reads its own job only");
  }
  TARN_ASSIGN_OR_RETURN(auto job, c.catalog().GetJob(c.Param("job")));
  auto n = ParseDatasetName(job.target);
  if (!n.ok()) return Status::Internal("a job's target is no dataset name");
  // The job's own token reads it whatever the committer may read (the refresh finds out).
  if (c.principal().job != job.id) {
    TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kReader, n->workspace,
                                       n->collection + "." + n->dataset));
  }
  c.ReplyJson(api::ToJson(job));
  return Status::OK();
}

Status RetryJobRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  TARN_RETURN_NOT_OK(r.Finish());
  TARN_ASSIGN_OR_RETURN(auto job, c.catalog().GetJob(c.Param("job")));
  auto n = ParseDatasetName(job.target);
  if (!n.ok()) return Status::Internal("a job's target is no dataset name");
  c.audit_entries() = {{"job.retry", job.target + "#" + job.id, n->workspace}};
  TARN_RETURN_NOT_OK(auth::Authorize(c.principal(), Role::kWriter, n->workspace,
                                     n->collection + "." + n->dataset));
  TARN_ASSIGN_OR_RETURN(auto retried, c.catalog().RetryJob(job.id));
  c.ReplyJson(api::ToJson(retried));
  return Status::OK();
}

// A job token (tarn worker's) may report on its own job only; no other credential may.
Status ReportJobOutcomeRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  TARN_ASSIGN_OR_RETURN(ObjectReader r, ObjectReader::Make(body));
  JobOutcomeReport report;
  TARN_ASSIGN_OR_RETURN(report.state, r.String("state"));
  TARN_ASSIGN_OR_RETURN(auto error, r.OptString("error"));
  report.error = error.value_or("");
  TARN_ASSIGN_OR_RETURN(report.result_snapshot, r.OptInt("result_snapshot"));
  TARN_ASSIGN_OR_RETURN(report.retry, r.Bool("retry", false));
  TARN_RETURN_NOT_OK(r.Finish());
  const std::string& id = c.Param("job");
  c.audit_entries() = {{"job.outcome", id, ""}};
  if (c.principal().job != id) {
    return Status::Of(codes::kPermissionDenied,
                      "only the job's own token (the one its runner was given) reports its "
                      "outcome");
  }
  TARN_ASSIGN_OR_RETURN(auto job, c.catalog().GetJob(id));
  c.audit_entries()[0].target = job.target + "#" + id;
  c.audit_entries()[0].workspace = job.workspace;
  c.set_audit_detail(api::Dump(Json{{"state", report.state}, {"retry", report.retry}}));
  TARN_ASSIGN_OR_RETURN(auto out, c.catalog().ReportJobOutcome(id, report));
  c.ReplyJson(api::ToJson(out));
  return Status::OK();
}

#define D "/v1/workspaces/{ws}/collections/{coll}/datasets/{ds}"
#define V "/v1/workspaces/{ws}/collections/{coll}/views"
#define M "/v1/workspaces/{ws}/collections/{coll}/materialized_views"
#define T "/v1/workspaces/{ws}/collections/{coll}/tasks"
#define IN "/iceberg/v1/tarn/namespaces"

}  // namespace

Result<auth::IssuedToken> ExchangeTokenForm(Call& c,
                                            const std::map<std::string, std::string>& form) {
  auto field = [&](const char* k) -> std::string {
    auto it = form.find(k);
    return it == form.end() ? "" : it->second;
  };
  if (field("grant_type") == kTokenExchangeGrant) return FederatedTokenExchange(c, form);
  if (field("grant_type") != "client_credentials") {
    return Status::Of(codes::kUnsupportedGrantType, "grant_type must be client_credentials or " +
                                                        std::string(kTokenExchangeGrant))
        .WithField("field", "grant_type");
  }
  for (const char* k : {"client_id", "client_secret"}) {
    if (field(k).empty()) {
      return Status::Of(codes::kMissingField, std::string(k) + " is required")
          .WithField("field", k);
    }
  }
  c.set_log_actor(field("client_id").substr(0, 128));
  return c.authority().Exchange(field("client_id"), field("client_secret"));
}

std::vector<std::string_view> QueryNames(const RouteDef& def) {
  std::vector<std::string_view> out;
  std::string_view rest = def.query;
  while (!rest.empty()) {
    size_t space = rest.find(' ');
    if (space != 0) out.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return out;
}

const std::vector<RouteDef>& RouteTable() {
  using B = BodyKind;
  using N = Need;
  using S = Scope;
  // Query parameters (RouteDef::query) shared by several routes: a snapshot selector
  // (api::SelectorFromParams) and a page of a listing (docs/design/serve.md "Paging").
#define AT "snapshot_id at_us tag"
#define PAGE "limit after before"
  // The append route comes first: the HTTP library tries patterns in order.
  static const std::vector<RouteDef> kRoutes = {
      {"POST", D "/append", N::kWriter, S::kPath, B::kFrames, "dataset.append", AppendRoute,
       "operation expected_uuid read_snapshot_id"},
      {"GET", "/livez", N::kOpen, S::kNone, B::kNone, "", Livez},
      {"GET", "/healthz", N::kOpen, S::kNone, B::kNone, "", Healthz},
      {"GET", "/metrics", N::kToken, S::kNone, B::kNone, "", MetricsRoute},
      {"GET", "/v1/openapi.json", N::kToken, S::kNone, B::kNone, "", OpenApi},
      {"POST", "/v1/token", N::kOpen, S::kNone, B::kForm, "", TokenExchange},
      {"GET", "/v1/whoami", N::kToken, S::kNone, B::kNone, "", Whoami},
      {"GET", "/v1/workspaces", N::kToken, S::kNone, B::kNone, "", ListWorkspacesRoute},
      {"POST", "/v1/workspaces", N::kOwner, S::kGlobal, B::kJson, "workspace.create",
       CreateWorkspaceRoute},
      {"GET", "/v1/workspaces/{ws}", N::kReader, S::kPath, B::kNone, "", GetWorkspaceRoute},
      {"DELETE", "/v1/workspaces/{ws}", N::kOwner, S::kGlobal, B::kNone, "workspace.drop",
       DropWorkspaceRoute},
      {"PATCH", "/v1/workspaces/{ws}/properties", N::kOwner, S::kPath, B::kJson,
       "workspace.set_properties", PatchWorkspaceRoute},
      {"PUT", "/v1/workspaces/{ws}/secure/{object}", N::kOwner, S::kPath, B::kJson,
       "workspace.secure_mark", MarkSecureRoute},
      {"DELETE", "/v1/workspaces/{ws}/secure/{object}", N::kOwner, S::kPath, B::kNone,
       "workspace.secure_clear", ClearSecureRoute},
      {"GET", "/v1/workspaces/{ws}/collections", N::kReader, S::kPath, B::kNone, "",
       ListCollectionsRoute},
      {"POST", "/v1/workspaces/{ws}/collections", N::kOwner, S::kBody, B::kJson,
       "collection.create", CreateCollectionRoute},
      {"GET", "/v1/workspaces/{ws}/collections/{coll}", N::kReader, S::kPath, B::kNone, "",
       GetCollectionRoute},
      {"DELETE", "/v1/workspaces/{ws}/collections/{coll}", N::kOwner, S::kPath, B::kNone,
       "collection.drop", DropCollectionRoute},
      {"PATCH", "/v1/workspaces/{ws}/collections/{coll}/properties", N::kOwner, S::kPath, B::kJson,
       "collection.set_properties", PatchCollectionRoute},
      {"GET", "/v1/workspaces/{ws}/collections/{coll}/datasets", N::kReader, S::kPath, B::kNone, "",
       ListDatasetsRoute},
      {"POST", "/v1/workspaces/{ws}/collections/{coll}/datasets", N::kOwner, S::kBody, B::kJson,
       "dataset.create", CreateDatasetRoute},
      {"GET", D, N::kReader, S::kPath, B::kNone, "", GetDatasetRoute, AT},
      {"DELETE", D, N::kOwner, S::kPath, B::kNone, "dataset.drop", DropDatasetRoute,
       "purge expected_uuid"},
      {"POST", D "/rename", N::kOwner, S::kPath, B::kJson, "dataset.rename", RenameDatasetRoute},
      {"PATCH", D "/properties", N::kOwner, S::kPath, B::kJson, "dataset.set_properties",
       PatchDatasetRoute},
      {"POST", D "/schema", N::kOwner, S::kPath, B::kJson, "dataset.alter_schema",
       AlterSchemaRoute},
      {"PUT", D "/partition", N::kOwner, S::kPath, B::kJson, "dataset.set_partition",
       SetPartitionRoute},
      {"PUT", D "/sort", N::kOwner, S::kPath, B::kJson, "dataset.set_sort", SetSortRoute},
      {"POST", D "/files", N::kWriter, S::kPath, B::kJson, "dataset.add_files", AddFilesRoute},
      {"GET", D "/locations", N::kReader, S::kPath, B::kNone, "", ListLocationsRoute},
      {"POST", D "/locations", N::kOwner, S::kPath, B::kJson, "dataset.location_grant",
       GrantLocationRoute},
      {"DELETE", D "/locations", N::kOwner, S::kPath, B::kNone, "dataset.location_revoke",
       RevokeLocationRoute, "prefix"},
      {"POST", D "/delete", N::kWriter, S::kPath, B::kJson, "dataset.delete_rows", DeleteRowsRoute},
      {"POST", D "/register", N::kOwner, S::kPath, B::kJson, "dataset.register",
       RegisterIcebergRoute},
      {"POST", D "/rollback", N::kWriter, S::kPath, B::kJson, "dataset.rollback", RollbackRoute},
      {"POST", "/v1/commits", N::kWriter, S::kBody, B::kJson, "commit", CommitRoute},
      {"GET", D "/snapshots", N::kReader, S::kPath, B::kNone, "", ListSnapshotsRoute, PAGE},
      {"GET", D "/snapshot", N::kReader, S::kPath, B::kNone, "", GetSnapshotRoute, AT},
      {"GET", D "/tags", N::kReader, S::kPath, B::kNone, "", ListTagsRoute},
      {"GET", D "/lineage", N::kReader, S::kPath, B::kNone, "", LineageRoute, "snapshot limit"},
      {"GET", D "/impact", N::kReader, S::kPath, B::kNone, "", ImpactRoute},
      {"GET", D "/readers", N::kReader, S::kPath, B::kNone, "", ReadersRoute, "version"},
      {"PUT", D "/tags/{tag}", N::kWriter, S::kPath, B::kJson, "tag.create", CreateTagRoute},
      {"DELETE", D "/tags/{tag}", N::kWriter, S::kPath, B::kNone, "tag.drop", DropTagRoute},
      {"GET", D "/plan", N::kReader, S::kPath, B::kNone, "", PlanRoute, AT " where " PAGE},
      {"GET", D "/scan", N::kReader, S::kPath, B::kNone, "", ScanRoute,
       AT " where columns with_row_ids added_after"},
      {"GET", D "/manifest", N::kReader, S::kPath, B::kNone, "", ManifestRoute, AT},
      {"GET", D "/iceberg", N::kReader, S::kPath, B::kNone, "", IcebergTableRoute,
       AT " format_version"},
      {"GET", D "/changes", N::kReader, S::kPath, B::kNone, "", ChangesRoute, "from to limit"},
      {"GET", D "/offsets/{consumer}", N::kReader, S::kPath, B::kNone, "", GetOffsetRoute},
      {"PUT", D "/offsets/{consumer}", N::kWriter, S::kPath, B::kJson, "offset.commit",
       CommitOffsetRoute},
      {"POST", D "/expire", N::kOwner, S::kPath, B::kJson, "dataset.expire", ExpireRoute},
      {"POST", D "/compact", N::kOwner, S::kPath, B::kJson, "dataset.compact", CompactRoute},
      {"POST", D "/stats/hydrate", N::kWriter, S::kPath, B::kJson, "dataset.stats_hydrate",
       HydrateStatsRoute},
      {"POST", D "/inlined/flush", N::kWriter, S::kPath, B::kJson, "dataset.inline_flush",
       FlushInlinedRoute},
      {"GET", V, N::kReader, S::kPath, B::kNone, "", ListViewsRoute},
      {"POST", V, N::kOwner, S::kBody, B::kJson, "view.create", CreateViewRoute},
      {"GET", V "/{view}", N::kReader, S::kPath, B::kNone, "", GetViewRoute, "version"},
      {"DELETE", V "/{view}", N::kOwner, S::kPath, B::kNone, "view.drop", DropViewRoute},
      {"GET", V "/{view}/versions", N::kReader, S::kPath, B::kNone, "", ListViewVersionsRoute},
      {"POST", V "/{view}/runs", N::kReader, S::kPath, B::kJson, "", RecordViewRunRoute},
      {"GET", M, N::kReader, S::kPath, B::kNone, "", ListMaterializedRoute},
      {"POST", M, N::kOwner, S::kBody, B::kJson, "materialized_view.create",
       RegisterMaterializedRoute},
      {"GET", M "/{view}", N::kReader, S::kPath, B::kNone, "", GetMaterializedRoute},
      {"DELETE", M "/{view}", N::kOwner, S::kPath, B::kNone, "materialized_view.drop",
       DropMaterializedRoute, "purge"},
      {"POST", M "/{view}/refreshes", N::kWriter, S::kPath, B::kJson, "materialized_view.refresh",
       RecordRefreshRoute},
      {"GET", T, N::kReader, S::kPath, B::kNone, "", ListTasksRoute},
      {"POST", T, N::kOwner, S::kBody, B::kJson, "task.create", RegisterTaskRoute},
      {"GET", T "/{task}", N::kReader, S::kPath, B::kNone, "", GetTaskRoute},
      {"DELETE", T "/{task}", N::kOwner, S::kPath, B::kNone, "task.drop", DropTaskRoute},
      {"POST", T "/{task}/signal", N::kWriter, S::kPath, B::kJson, "task.signal", SignalTaskRoute},
      {"POST", T "/{task}/runs", N::kWriter, S::kPath, B::kJson, "task.run", RecordTaskRunRoute},
      {"GET", D "/triggers", N::kReader, S::kPath, B::kNone, "", ListTriggersRoute},
      {"PUT", D "/triggers/{trigger}/interval", N::kOwner, S::kPath, B::kJson,
       "trigger.set_interval", SetTriggerIntervalRoute},
      {"GET", "/v1/jobs", N::kToken, S::kBody, B::kNone, "", ListJobsRoute, "state target " PAGE},
      {"GET", "/v1/jobs/{job}", N::kToken, S::kBody, B::kNone, "", GetJobRoute},
      {"POST", "/v1/jobs/{job}/retry", N::kToken, S::kBody, B::kJson, "job.retry", RetryJobRoute},
      {"POST", "/v1/jobs/{job}/outcome", N::kToken, S::kBody, B::kJson, "job.outcome",
       ReportJobOutcomeRoute},
      {"POST", "/v1/cleanup", N::kOwner, S::kGlobal, B::kJson, "catalog.cleanup", CleanupRoute},
      {"POST", "/v1/retention", N::kOwner, S::kBody, B::kJson, "catalog.retention", RetentionRoute,
       "workspace"},
      {"POST", "/v1/tokens", N::kOwner, S::kBody, B::kJson, "token.create", CreateToken},
      {"GET", "/v1/tokens", N::kOwner, S::kBody, B::kNone, "", ListTokens, "workspace"},
      {"DELETE", "/v1/tokens/{client_id}", N::kOwner, S::kBody, B::kNone, "token.revoke",
       RevokeToken},
      {"GET", "/v1/audit", N::kOwner, S::kBody, B::kNone, "", ListAuditRoute,
       "since_us until_us workspace actor " PAGE},
      {"GET", "/v1/alerts", N::kOwner, S::kBody, B::kNone, "", ListAlertsRoute,
       "since_us code workspace limit"},
      {"GET", "/v1/fsck", N::kOwner, S::kBody, B::kNone, "", FsckRoute,
       "workspace orphan_grace_us check_objects"},
      {"POST", "/v1/federation/rules", N::kOwner, S::kGlobal, B::kJson, "federation.create",
       CreateFederationRuleRoute},
      {"GET", "/v1/federation/rules", N::kOwner, S::kGlobal, B::kNone, "",
       ListFederationRulesRoute},
      {"DELETE", "/v1/federation/rules/{id}", N::kOwner, S::kGlobal, B::kNone, "federation.delete",
       DeleteFederationRuleRoute},
      // Uploads (contract_routes.cc): the role is checked against the contract's target.
      {"POST", "/v1/contracts", N::kWriter, S::kBody, B::kJson, "contract.negotiate",
       NegotiateContractRoute},
      {"GET", "/v1/contracts/{id}", N::kReader, S::kBody, B::kNone, "", GetContractRoute},
      {"DELETE", "/v1/contracts/{id}", N::kWriter, S::kBody, B::kNone, "contract.abandon",
       AbandonContractRoute},
      {"POST", "/v1/contracts/{id}/retype", N::kWriter, S::kBody, B::kJson, "contract.retype",
       RetypeContractRoute},
      {"POST", "/v1/contracts/{id}/ignore", N::kWriter, S::kBody, B::kJson, "contract.ignore",
       IgnoreContractRoute},
      {"POST", "/v1/contracts/{id}/accept", N::kWriter, S::kBody, B::kJson, "contract.accept",
       AcceptContractRoute},
      {"PUT", "/v1/contracts/{id}/parts/{name}", N::kWriter, S::kBody, B::kBytes, "contract.write",
       WritePartRoute, "encoding"},
      {"POST", "/v1/contracts/{id}/commit", N::kWriter, S::kBody, B::kJson, "contract.commit",
       CommitContractRoute},
      // The Iceberg REST facade (iceberg_routes.cc; docs/design/iceberg.md), prefix "tarn":
      // reads, the OAuth2 token exchange, the file route of a local warehouse, and every write
      // of the spec answered 405. {namespace} and {table} are mapped onto ws, coll and ds, so
      // S::kPath checks the role on them as on the /v1 routes.
      {"GET", "/iceberg/v1/config", N::kToken, S::kNone, B::kNone, "", IcebergConfigRoute,
       "warehouse"},
      {"POST", "/iceberg/v1/oauth/tokens", N::kOpen, S::kNone, B::kForm, "", IcebergTokenRoute},
      {"GET", IN, N::kToken, S::kNone, B::kNone, "", IcebergListNamespacesRoute,
       "parent pageToken pageSize"},
      {"POST", IN, N::kToken, S::kNone, B::kNone, "iceberg.write", IcebergReadOnlyRoute},
      {"GET", IN "/{namespace}", N::kReader, S::kPath, B::kNone, "", IcebergLoadNamespaceRoute},
      {"HEAD", IN "/{namespace}", N::kReader, S::kPath, B::kNone, "", IcebergNamespaceExistsRoute},
      {"DELETE", IN "/{namespace}", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute},
      {"POST", IN "/{namespace}/properties", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute},
      {"GET", IN "/{namespace}/tables", N::kReader, S::kPath, B::kNone, "", IcebergListTablesRoute,
       "pageToken pageSize"},
      {"POST", IN "/{namespace}/tables", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute},
      {"POST", IN "/{namespace}/register", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute},
      {"GET", IN "/{namespace}/tables/{table}", N::kReader, S::kPath, B::kNone, "",
       IcebergLoadTableRoute, "snapshots"},
      {"HEAD", IN "/{namespace}/tables/{table}", N::kReader, S::kPath, B::kNone, "",
       IcebergTableExistsRoute},
      {"POST", IN "/{namespace}/tables/{table}", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute},
      // dropTable's purgeRequested is read (and the call refused) like any other.
      {"DELETE", IN "/{namespace}/tables/{table}", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute, "purgeRequested"},
      {"POST", "/iceberg/v1/tarn/tables/rename", N::kToken, S::kNone, B::kNone, "iceberg.write",
       IcebergReadOnlyRoute},
      {"POST", "/iceberg/v1/tarn/transactions/commit", N::kToken, S::kNone, B::kNone,
       "iceberg.write", IcebergReadOnlyRoute},
      // The role is checked by the route, on the dataset the uuid names.
      {"GET", "/iceberg/v1/tarn/files/{uuid}/{key}", N::kReader, S::kBody, B::kNone, "",
       IcebergFileRoute, "", true},
      {"HEAD", "/iceberg/v1/tarn/files/{uuid}/{key}", N::kReader, S::kBody, B::kNone, "",
       IcebergFileRoute, "", true},
  };
#undef AT
#undef PAGE
  return kRoutes;
}

#undef D
#undef V
#undef M
#undef T
#undef IN

}  // namespace tarn::server::internal
