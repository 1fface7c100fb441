// `tarn view create|replace|show|list|versions|drop` (V1; docs/design/views.md): thin handlers
// over tarn::Client, embedded or remote alike.
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "sql/engine.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

json SchemaJson(const std::optional<Schema>& schema) {
  if (!schema) return nullptr;
  json cols = json::array();
  for (const Field& f : schema->fields) {
    cols.push_back({{"name", f.name}, {"type", f.type.ToString()}, {"nullable", f.nullable}});
  }
  return cols;
}

json VersionJson(const ViewVersion& v) {
  return {{"version", v.version},
          {"sql", v.sql},
          {"dialect", v.dialect},
          {"description", v.description},
          {"schema", SchemaJson(v.schema)},
          {"author", v.author},
          {"created_at", FormatTime(v.created_at_us)}};
}

json ViewJson(const ViewInfo& v) {
  json j = VersionJson(v.current);
  j["name"] = v.name.ToString();
  j["created_by"] = v.created_by;
  j["created_at"] = FormatTime(v.created_at_us);
  j["updated_at"] = FormatTime(v.updated_at_us);
  j["updated_by"] = v.current.author;
  j.erase("author");
  j["last_run_at"] = v.last_run_at_us ? json(FormatTime(*v.last_run_at_us)) : json(nullptr);
  j["last_row_count"] = v.last_row_count ? json(*v.last_row_count) : json(nullptr);
  j["last_run_seconds"] = v.last_run_us ? json(*v.last_run_us / 1e6) : json(nullptr);
  return j;
}

// What `view create` and `view replace` take.
struct DefinitionArgs {
  std::string name, sql, sql_file, dialect = kDuckDbDialect, description, schema;
  bool no_check = false;
};

void AddDefinitionArgs(CLI::App* cmd, DefinitionArgs* a) {
  cmd->add_option("VIEW", a->name, "workspace.collection.view")->required();
  auto* sql = cmd->add_option("--sql", a->sql, "The view's SQL (three-part names: w.c.d)");
  auto* file = cmd->add_option("--sql-file", a->sql_file, "Read the SQL from this file");
  sql->excludes(file);
  cmd->add_option("--dialect", a->dialect,
                  "The SQL's dialect (default duckdb, which tarn sql runs; any other is stored "
                  "and shown)");
  cmd->add_option("--description", a->description,
                  "Description (replace: default the current version's)");
  cmd->add_option("--schema", a->schema,
                  "The result's declared columns: 'id INT64 NOT NULL, name STRING, ...'");
  cmd->add_flag("--no-check", a->no_check,
                "Store duckdb SQL without parsing it first (it is parsed when DuckDB is "
                "installed)");
}

Result<ViewDefinition> Definition(const DefinitionArgs& a) {
  ViewDefinition def;
  if (!a.sql_file.empty()) {
    std::ifstream in(a.sql_file, std::ios::binary);
    if (!in) return Status::IOError("cannot read --sql-file " + a.sql_file);
    std::ostringstream text;
    text << in.rdbuf();
    def.sql = text.str();
  } else {
    def.sql = a.sql;
  }
  if (def.sql.empty()) return Status::InvalidArgument("give the view's SQL: --sql or --sql-file");
  def.dialect = a.dialect;
  def.description = a.description;
  if (!a.schema.empty()) {
    auto schema = Schema::Parse(a.schema);
    if (!schema.ok()) return schema.status().WithContext("--schema");
    def.schema = std::move(*schema);
  }
  TARN_RETURN_NOT_OK(ValidateViewDefinition(def));
  if (def.dialect == kDuckDbDialect && !a.no_check) {
    Status st = sql::CheckQueryText(def.sql);
    if (!st.ok()) return st.WithContext("the view's SQL");
  }
  return def;
}

void PrintView(const ViewInfo& v, bool as_json) {
  if (as_json) {
    std::cout << Dump(ViewJson(v)) << "\n";
    return;
  }
  std::vector<std::pair<std::string, std::string>> kv = {
      {"name", v.name.ToString()},
      {"version", std::to_string(v.current.version)},
      {"dialect", v.current.dialect},
      {"description", v.current.description},
      {"created_by", v.created_by},
      {"created_at", FormatTime(v.created_at_us)},
      {"updated_by", v.current.author},
      {"updated_at", FormatTime(v.updated_at_us)},
      {"last_run_at", v.last_run_at_us ? FormatTime(*v.last_run_at_us) : "(never)"},
      {"last_row_count", v.last_row_count ? std::to_string(*v.last_row_count) : "-"},
      {"last_run_seconds", v.last_run_us ? std::to_string(*v.last_run_us / 1e6) : "-"}};
  if (v.current.schema) kv.emplace_back("schema", v.current.schema->ToString());
  PrintKeyValues(kv);
  std::cout << "\n" << v.current.sql << "\n";
}

void RegisterCreate(CLI::App* view, GlobalOptions* g, CatalogOptions* co, bool replace) {
  auto* cmd = view->add_subcommand(
      replace ? "replace" : "create",
      replace ? "Store a new statement version of a view (created when missing)"
              : "Create a view: SQL stored in the catalog, readable by name in tarn sql");
  auto a = std::make_shared<DefinitionArgs>();
  AddDefinitionArgs(cmd, a.get());
  SetCommand(cmd, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(a->name).status());
    TARN_ASSIGN_OR_RETURN(auto def, Definition(*a));
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    if (replace && a->description.empty()) {
      auto current = client->GetView(a->name);
      if (current.ok()) def.description = current->current.description;
    }
    TARN_ASSIGN_OR_RETURN(auto v, client->CreateView(a->name, def, replace));
    if (g->json) {
      PrintView(v, true);
    } else {
      std::cout << (v.current.version == 1 ? "created" : "replaced") << " view "
                << v.name.ToString() << " (version " << v.current.version << ")\n";
    }
    return Status::OK();
  });
}

}  // namespace

void RegisterViewCommands(CLI::App* app, GlobalOptions* g) {
  CatalogOptions* co = SharedCatalogOptions();
  CLI::App* view = app->add_subcommand("view", "Create, show, list and drop views (stored SQL)");
  view->require_subcommand(1);
  RegisterCreate(view, g, co, false);
  RegisterCreate(view, g, co, true);

  auto* show = view->add_subcommand("show", "Show a view: its SQL, versions and last run");
  auto show_name = std::make_shared<std::string>();
  auto show_version = std::make_shared<int64_t>(0);
  show->add_option("VIEW", *show_name, "workspace.collection.view")->required();
  show->add_option("--version", *show_version, "A statement version (default: the current)");
  SetCommand(show, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*show_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    std::optional<int64_t> version;
    if (*show_version > 0) version = *show_version;
    TARN_ASSIGN_OR_RETURN(auto v, client->GetView(*show_name, version));
    PrintView(v, g->json);
    return Status::OK();
  });

  auto* list = view->add_subcommand("list", "List the views of a collection");
  auto coll = std::make_shared<std::string>();
  list->add_option("COLLECTION", *coll, "workspace.collection")->required();
  SetCommand(list, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*coll).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, client->ListViews(*coll));
    if (g->json) {
      json arr = json::array();
      for (const auto& v : all) arr.push_back(ViewJson(v));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& v : all) {
      rows.push_back({v.name.dataset, std::to_string(v.current.version), v.current.dialect,
                      v.current.description, FormatTime(v.updated_at_us),
                      v.last_run_at_us ? FormatTime(*v.last_run_at_us) : "(never)"});
    }
    PrintTable({"name", "version", "dialect", "description", "updated_at", "last_run_at"}, rows);
    return Status::OK();
  });

  auto* versions = view->add_subcommand("versions", "List a view's statement versions");
  auto versions_name = std::make_shared<std::string>();
  versions->add_option("VIEW", *versions_name, "workspace.collection.view")->required();
  SetCommand(versions, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*versions_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, client->ListViewVersions(*versions_name));
    if (g->json) {
      json arr = json::array();
      for (const auto& v : all) arr.push_back(VersionJson(v));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& v : all) {
      std::string sql = v.sql.substr(0, 60);
      for (char& c : sql) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
      }
      if (v.sql.size() > 60) sql += "...";
      rows.push_back(
          {std::to_string(v.version), v.dialect, v.author, FormatTime(v.created_at_us), sql});
    }
    PrintTable({"version", "dialect", "author", "created_at", "sql"}, rows);
    return Status::OK();
  });

  auto* drop = view->add_subcommand("drop", "Drop a view and its versions");
  auto drop_name = std::make_shared<std::string>();
  drop->add_option("VIEW", *drop_name, "workspace.collection.view")->required();
  SetCommand(drop, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*drop_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_RETURN_NOT_OK(client->DropView(*drop_name));
    if (!g->json) std::cout << "dropped view " << *drop_name << "\n";
    return Status::OK();
  });
}

}  // namespace tarn::cli
