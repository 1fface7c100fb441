// `tarn workspace ...`, `tarn collection ...` and `tarn whoami`: thin handlers over tarn::Client
// (`--catalog DIR|URL`, else $TARN_CATALOG, else ~/.tarn), embedded or remote alike.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "client/remote_client.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

json RawJson(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

json WorkspaceJson(const WorkspaceInfo& w) {
  return {{"name", w.name},
          {"properties", PropsJson(w.properties)},
          {"deletion_protection", w.DeletionProtected()},
          {"egress_protection", w.EgressProtected()},
          {"deletion_protection_value", RawJson(w.deletion_protection)},
          {"egress_protection_value", RawJson(w.egress_protection)},
          {"collections", w.collection_count},
          {"created_at", FormatTime(w.created_at_us)},
          {"updated_at", FormatTime(w.updated_at_us)}};
}

json CollectionJson(const CollectionInfo& c) {
  return {{"workspace", c.workspace},
          {"name", c.name},
          {"description", c.description},
          {"properties", PropsJson(c.properties)},
          {"datasets", c.dataset_count},
          {"dropped_datasets", c.dropped_dataset_count},
          {"created_at", FormatTime(c.created_at_us)},
          {"updated_at", FormatTime(c.updated_at_us)}};
}

std::string OnOff(bool on) { return on ? "on" : "off"; }

void RegisterSecure(CLI::App* ws, GlobalOptions* g, CatalogOptions* co);

void RegisterWorkspace(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* ws = app->add_subcommand("workspace", "Create, list, show and configure workspaces");
  ws->require_subcommand(1);

  auto* create = ws->add_subcommand("create", "Create a workspace");
  auto name = std::make_shared<std::string>();
  auto exists_ok = std::make_shared<bool>(false);
  create->add_option("WORKSPACE", *name, "Workspace name")->required();
  create->add_flag("--exists-ok", *exists_ok, "Succeed when it already exists");
  SetCommand(create, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *name));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->CreateWorkspace(*name, *exists_ok));
    if (g->json) {
      TARN_ASSIGN_OR_RETURN(auto w, cat->GetWorkspace(*name));
      std::cout << Dump(WorkspaceJson(w)) << "\n";
    } else {
      std::cout << "workspace " << *name << "\n";
    }
    return Status::OK();
  });

  auto* list = ws->add_subcommand("list", "List workspaces");
  SetCommand(list, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, cat->ListWorkspaces());
    if (g->json) {
      json arr = json::array();
      for (const auto& w : all) arr.push_back(WorkspaceJson(w));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& w : all) {
      rows.push_back({w.name, std::to_string(w.collection_count), OnOff(w.DeletionProtected()),
                      OnOff(w.EgressProtected()), FormatTime(w.created_at_us)});
    }
    PrintTable({"name", "collections", "deletion_protection", "egress_protection", "created_at"},
               rows);
    return Status::OK();
  });

  auto* show = ws->add_subcommand("show", "Show a workspace");
  auto show_name = std::make_shared<std::string>();
  show->add_option("WORKSPACE", *show_name, "Workspace name")->required();
  SetCommand(show, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *show_name));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto w, cat->GetWorkspace(*show_name));
    if (g->json) {
      std::cout << Dump(WorkspaceJson(w)) << "\n";
      return Status::OK();
    }
    std::vector<std::pair<std::string, std::string>> kv = {
        {"name", w.name},
        {"collections", std::to_string(w.collection_count)},
        {"deletion_protection", OnOff(w.DeletionProtected())},
        {"egress_protection", OnOff(w.EgressProtected())},
        {"created_at", FormatTime(w.created_at_us)},
        {"updated_at", FormatTime(w.updated_at_us)}};
    for (const auto& [k, v] : w.properties) kv.emplace_back("property." + k, v);
    PrintKeyValues(kv);
    return Status::OK();
  });

  auto* set = ws->add_subcommand("set", "Set workspace properties (KEY=VALUE...)");
  auto set_name = std::make_shared<std::string>();
  auto assigns = std::make_shared<std::vector<std::string>>();
  set->add_option("WORKSPACE", *set_name, "Workspace name")->required();
  set->add_option("ASSIGNMENTS", *assigns, "KEY=VALUE pairs")->required();
  SetCommand(set, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *set_name));
    TARN_ASSIGN_OR_RETURN(auto props, ParseAssignments(*assigns));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->SetWorkspaceProperties(*set_name, props));
    if (g->json) {
      TARN_ASSIGN_OR_RETURN(auto w, cat->GetWorkspace(*set_name));
      std::cout << Dump(WorkspaceJson(w)) << "\n";
    }
    return Status::OK();
  });

  auto* unset = ws->add_subcommand("unset", "Unset workspace properties (KEY...)");
  auto unset_name = std::make_shared<std::string>();
  auto unset_keys = std::make_shared<std::vector<std::string>>();
  unset->add_option("WORKSPACE", *unset_name, "Workspace name")->required();
  unset->add_option("KEYS", *unset_keys, "Property keys")->required();
  SetCommand(unset, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *unset_name));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    return cat->UnsetWorkspaceProperties(*unset_name, *unset_keys);
  });

  auto* drop =
      ws->add_subcommand("drop", "Drop an empty workspace whose deletion_protection is false");
  auto drop_name = std::make_shared<std::string>();
  drop->add_option("WORKSPACE", *drop_name, "Workspace name")->required();
  SetCommand(drop, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *drop_name));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->DropWorkspace(*drop_name));
    if (!g->json) std::cout << "dropped workspace " << *drop_name << "\n";
    return Status::OK();
  });
  RegisterSecure(ws, g, co);
}

json SecureJson(const SecureObject& s) {
  return {{"object", s.object},
          {"destinations", s.destinations},
          {"author", s.author},
          {"marked_at", FormatTime(s.marked_at_us)}};
}

// `tarn workspace secure mark|list|clear SOURCE ...`: SECURE, the egress lock's narrow
// exemption, run against the SOURCE workspace (docs/design/egress.md).
void RegisterSecure(CLI::App* ws, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* secure =
      ws->add_subcommand("secure",
                         "Let one named object copy this workspace's data into named workspaces "
                         "despite its egress lock (mark, list, clear)");
  secure->require_subcommand(1);

  auto* mark = secure->add_subcommand(
      "mark", "Mark OBJECT (the view, task or dataset that writes the copy) SECURE into --to");
  auto source = std::make_shared<std::string>();
  auto object = std::make_shared<std::string>();
  auto to = std::make_shared<std::vector<std::string>>();
  mark->add_option("SOURCE", *source, "The workspace whose data is copied out")->required();
  mark->add_option("OBJECT", *object, "workspace.collection.name of the writer")->required();
  mark->add_option("--to", *to, "Destination workspaces (comma-separated or repeated)")
      ->required()
      ->delimiter(',');
  SetCommand(mark, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *source));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->MarkSecure(*source, *object, *to, cat->actor()));
    if (g->json) {
      TARN_ASSIGN_OR_RETURN(auto all, cat->ListSecure(*source));
      for (const auto& s : all) {
        if (s.object == *object) std::cout << Dump(SecureJson(s)) << "\n";
      }
    } else {
      std::string list;
      for (const auto& d : *to) list += (list.empty() ? "" : ", ") + d;
      std::cout << "marked " << *object << " SECURE out of " << *source << " into " << list << "\n";
    }
    return Status::OK();
  });

  auto* list = secure->add_subcommand("list", "List what SOURCE has marked SECURE");
  auto list_source = std::make_shared<std::string>();
  list->add_option("SOURCE", *list_source, "Workspace name")->required();
  SetCommand(list, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *list_source));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, cat->ListSecure(*list_source));
    if (g->json) {
      json arr = json::array();
      for (const auto& s : all) arr.push_back(SecureJson(s));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : all) {
      std::string dests;
      for (const auto& d : s.destinations) dests += (dests.empty() ? "" : ",") + d;
      rows.push_back({s.object, dests, s.author, FormatTime(s.marked_at_us)});
    }
    PrintTable({"object", "destinations", "author", "marked_at"}, rows);
    return Status::OK();
  });

  auto* clear = secure->add_subcommand("clear", "Withdraw OBJECT's SECURE mark on SOURCE");
  auto clear_source = std::make_shared<std::string>();
  auto clear_object = std::make_shared<std::string>();
  clear->add_option("SOURCE", *clear_source, "Workspace name")->required();
  clear->add_option("OBJECT", *clear_object, "workspace.collection.name")->required();
  SetCommand(clear, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *clear_source));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->ClearSecure(*clear_source, *clear_object));
    if (!g->json) {
      std::cout << "cleared the SECURE mark of " << *clear_object << " on " << *clear_source
                << "\n";
    }
    return Status::OK();
  });
}

void RegisterCollection(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* coll = app->add_subcommand("collection", "Create, list, show and drop collections");
  coll->require_subcommand(1);

  auto* create = coll->add_subcommand("create", "Create a collection WORKSPACE.COLLECTION");
  auto name = std::make_shared<std::string>();
  auto exists_ok = std::make_shared<bool>(false);
  auto description = std::make_shared<std::string>();
  create->add_option("COLLECTION", *name, "workspace.collection")->required();
  create->add_flag("--exists-ok", *exists_ok, "Succeed when it already exists");
  create->add_option("--description", *description, "Description");
  SetCommand(create, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*name).status());
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->CreateCollection(*name, *exists_ok, *description));
    if (g->json) {
      TARN_ASSIGN_OR_RETURN(auto c, cat->GetCollection(*name));
      std::cout << Dump(CollectionJson(c)) << "\n";
    } else {
      std::cout << "collection " << *name << "\n";
    }
    return Status::OK();
  });

  auto* list = coll->add_subcommand("list", "List the collections of a workspace");
  auto ws = std::make_shared<std::string>();
  list->add_option("WORKSPACE", *ws, "Workspace name")->required();
  SetCommand(list, [=]() -> Status {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", *ws));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, cat->ListCollections(*ws));
    if (g->json) {
      json arr = json::array();
      for (const auto& c : all) arr.push_back(CollectionJson(c));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : all) {
      rows.push_back(
          {c.name, std::to_string(c.dataset_count), c.description, FormatTime(c.created_at_us)});
    }
    PrintTable({"name", "datasets", "description", "created_at"}, rows);
    return Status::OK();
  });

  auto* show = coll->add_subcommand("show", "Show a collection");
  auto show_name = std::make_shared<std::string>();
  show->add_option("COLLECTION", *show_name, "workspace.collection")->required();
  SetCommand(show, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*show_name).status());
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto c, cat->GetCollection(*show_name));
    if (g->json) {
      std::cout << Dump(CollectionJson(c)) << "\n";
      return Status::OK();
    }
    std::vector<std::pair<std::string, std::string>> kv = {
        {"name", c.workspace + "." + c.name},
        {"description", c.description},
        {"datasets", std::to_string(c.dataset_count)},
        {"created_at", FormatTime(c.created_at_us)},
        {"updated_at", FormatTime(c.updated_at_us)}};
    for (const auto& [k, v] : c.properties) kv.emplace_back("property." + k, v);
    PrintKeyValues(kv);
    return Status::OK();
  });

  auto* drop = coll->add_subcommand("drop", "Drop an empty collection");
  auto drop_name = std::make_shared<std::string>();
  drop->add_option("COLLECTION", *drop_name, "workspace.collection")->required();
  SetCommand(drop, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*drop_name).status());
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_RETURN_NOT_OK(cat->DropCollection(*drop_name));
    if (!g->json) std::cout << "dropped collection " << *drop_name << "\n";
    return Status::OK();
  });

  auto* set = coll->add_subcommand("set", "Set collection properties (KEY=VALUE...)");
  auto set_name = std::make_shared<std::string>();
  auto assigns = std::make_shared<std::vector<std::string>>();
  set->add_option("COLLECTION", *set_name, "workspace.collection")->required();
  set->add_option("ASSIGNMENTS", *assigns, "KEY=VALUE pairs")->required();
  SetCommand(set, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*set_name).status());
    TARN_ASSIGN_OR_RETURN(auto props, ParseAssignments(*assigns));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    return cat->SetCollectionProperties(*set_name, props);
  });

  auto* unset = coll->add_subcommand("unset", "Unset collection properties (KEY...)");
  auto unset_name = std::make_shared<std::string>();
  auto unset_keys = std::make_shared<std::vector<std::string>>();
  unset->add_option("COLLECTION", *unset_name, "workspace.collection")->required();
  unset->add_option("KEYS", *unset_keys, "Property keys")->required();
  SetCommand(unset, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*unset_name).status());
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    return cat->UnsetCollectionProperties(*unset_name, *unset_keys);
  });
}

void RegisterWhoami(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  auto* cmd = app->add_subcommand("whoami",
                                  "Who the catalog's calls run as (and, remotely, "
                                  "the token's workspace, role and pattern)");
  SetCommand(cmd, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    json j = {{"actor", client->actor()}, {"remote", client->remote()}};
    if (auto* remote = dynamic_cast<client::RemoteClient*>(client.get())) {
      TARN_ASSIGN_OR_RETURN(auto me, remote->GetWhoAmI());
      j["url"] = remote->url().ToString();
      j["workspace"] = me.workspace;
      j["role"] = me.role;
      j["pattern"] = me.pattern;
      j["expires_at"] = FormatTime(me.expires_at_us);
    }
    if (g->json) {
      std::cout << Dump(j) << "\n";
      return Status::OK();
    }
    std::vector<std::pair<std::string, std::string>> kv;
    for (const auto& [k, v] : j.items()) {
      kv.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    PrintKeyValues(kv);
    return Status::OK();
  });
}

}  // namespace

void RegisterCatalogCommands(CLI::App* app, GlobalOptions* global) {
  CatalogOptions* options = SharedCatalogOptions();
  app->add_option("--catalog", options->dir,
                  "Catalog directory or http(s):// URL of `tarn serve` (default $TARN_CATALOG, "
                  "else ~/.tarn)");
  app->add_option("--client-id", options->client_id,
                  "Client id of an access token, for a remote catalog (default $TARN_CLIENT_ID)");
  app->add_option("--client-secret", options->client_secret,
                  "Its secret (default $TARN_CLIENT_SECRET)");
  app->add_option("--token", options->token,
                  "A bearer token to use as is, for a remote catalog (default $TARN_TOKEN)");
  RegisterWorkspace(app, global, options);
  RegisterCollection(app, global, options);
  RegisterWhoami(app, global, options);
}

}  // namespace tarn::cli
