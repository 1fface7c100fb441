// `tarn view create|replace|show|list|versions|drop` (V1; docs/design/views.md): thin handlers
// over tarn::Client, embedded or remote alike.
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/error_codes.h"
#include "common/discard.h"
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

json TriggerJson(const TriggerInfo& t) {
  return {
      {"dataset", t.dataset},
      {"name", t.name},
      {"kind", t.kind},
      {"target", t.target},
      {"minimum_interval_s", t.minimum_interval_s ? json(*t.minimum_interval_s) : json(nullptr)},
      {"last_fired_at", t.last_fired_at_us ? json(FormatTime(*t.last_fired_at_us)) : json(nullptr)},
      {"last_fired_status", t.last_fired_status},
      {"window_from_snapshot", t.window_from_snapshot},
      {"author", t.author},
      {"created_at", FormatTime(t.created_at_us)}};
}

json ReadsJson(const std::vector<ReadReference>& reads) {
  json out = json::array();
  for (const auto& r : reads) {
    out.push_back({{"dataset", r.dataset}, {"snapshot_id", r.snapshot_id}});
  }
  return out;
}

json MaterializedJson(const MaterializedViewInfo& m) {
  json j = ViewJson(m.view);
  for (const char* k : {"last_run_at", "last_row_count", "last_run_seconds"}) j.erase(k);
  j["dataset_uuid"] = m.dataset_uuid;
  j["sources"] = m.sources;
  j["refresh_kind"] = m.refresh_kind;
  j["last_refresh_status"] = m.last_refresh_status;
  j["last_refresh_mode"] = m.last_refresh_mode;
  j["last_refresh_at"] =
      m.last_refresh_at_us ? json(FormatTime(*m.last_refresh_at_us)) : json(nullptr);
  j["last_refresh_job"] = m.last_refresh_job;
  j["last_refresh_error"] = m.last_refresh_error;
  j["reflects"] = ReadsJson(m.last_refresh_sources);
  j["snapshot_id"] = m.last_refresh_snapshot_id ? json(*m.last_refresh_snapshot_id) : json(nullptr);
  json triggers = json::array();
  for (const auto& t : m.triggers) triggers.push_back(TriggerJson(t));
  j["triggers"] = triggers;
  return j;
}

void PrintMaterialized(const MaterializedViewInfo& m, bool as_json) {
  if (as_json) {
    std::cout << Dump(MaterializedJson(m)) << "\n";
    return;
  }
  std::string reflects;
  for (const auto& r : m.last_refresh_sources) {
    if (!reflects.empty()) reflects += ", ";
    reflects += r.dataset + "@" + std::to_string(r.snapshot_id);
  }
  std::string sources;
  for (const auto& s : m.sources) sources += (sources.empty() ? "" : ", ") + s;
  std::vector<std::pair<std::string, std::string>> kv = {
      {"name", m.view.name.ToString()},
      {"version", std::to_string(m.view.current.version)},
      {"description", m.view.current.description},
      {"sources", sources},
      {"refresh_kind", m.refresh_kind},
      {"last_refresh_status", m.last_refresh_status.empty() ? "(never)" : m.last_refresh_status},
      {"last_refresh_mode", m.last_refresh_mode.empty() ? "-" : m.last_refresh_mode},
      {"last_refresh_at", m.last_refresh_at_us ? FormatTime(*m.last_refresh_at_us) : "-"},
      {"last_refresh_job", m.last_refresh_job.empty() ? "-" : m.last_refresh_job},
      {"reflects", reflects.empty() ? "-" : reflects},
      {"created_by", m.view.created_by},
      {"updated_at", FormatTime(m.view.updated_at_us)}};
  if (!m.last_refresh_error.empty()) kv.emplace_back("last_refresh_error", m.last_refresh_error);
  for (const auto& t : m.triggers) {
    kv.emplace_back("trigger",
                    t.dataset + " " + t.name + " (every " +
                        (t.minimum_interval_s ? std::to_string(*t.minimum_interval_s) + " s at most"
                                              : std::string("commit")) +
                        ")");
  }
  PrintKeyValues(kv);
  std::cout << "\n" << m.view.current.sql << "\n";
}

void RegisterMaterialized(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* mv = app->add_subcommand(
      "mv", "Materialized views: datasets kept equal to their SQL, refreshed on source commits");
  mv->require_subcommand(1);
  for (bool replace : {false, true}) {
    auto* cmd = mv->add_subcommand(
        replace ? "replace" : "create",
        replace ? "A new SQL version of a materialized view: its data recomputed, triggers "
                  "rewritten to the new sources"
                : "Create a materialized view: run the SQL into a new dataset and put a "
                  "refresh trigger on each dataset it reads");
    auto a = std::make_shared<DefinitionArgs>();
    auto commit = std::make_shared<CommitArgs>();
    auto partition = std::make_shared<std::string>();
    auto sort = std::make_shared<std::string>();
    AddDefinitionArgs(cmd, a.get());
    AddCommitArgs(cmd, commit.get(), false);
    if (!replace) {
      cmd->add_option("--partition", *partition, "The dataset's partition spec");
      cmd->add_option("--sort", *sort, "The dataset's sort order");
    }
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(ParseDatasetName(a->name).status());
      if (a->dialect != kDuckDbDialect) {
        return Status::InvalidArgument("a materialized view runs in tarn's engine: dialect duckdb");
      }
      TARN_ASSIGN_OR_RETURN(auto def, Definition(*a));
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      MaterializedViewOptions options;
      options.replace = replace;
      options.meta = commit->Meta(*client);  // the refresh fills the receipt (view:<name>)
      options.partition_spec = *partition;
      options.sort_order = *sort;
      if (replace && a->description.empty()) {
        auto current = client->GetMaterializedView(a->name);
        if (current.ok()) def.description = current->view.current.description;
      }
      TARN_ASSIGN_OR_RETURN(auto m, client->CreateMaterializedView(a->name, def, options));
      if (g->json) {
        PrintMaterialized(m, true);
      } else {
        std::cout << (replace ? "replaced" : "created") << " materialized view "
                  << m.view.name.ToString() << " (version " << m.view.current.version << ", "
                  << m.triggers.size() << " trigger(s))\n";
      }
      return Status::OK();
    });
  }

  auto* show = mv->add_subcommand("show",
                                  "Show a materialized view: SQL, sources, triggers, "
                                  "last refresh");
  auto show_name = std::make_shared<std::string>();
  show->add_option("VIEW", *show_name, "workspace.collection.view")->required();
  SetCommand(show, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*show_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto m, client->GetMaterializedView(*show_name));
    PrintMaterialized(m, g->json);
    return Status::OK();
  });

  auto* list = mv->add_subcommand("list", "List the materialized views of a collection");
  auto coll = std::make_shared<std::string>();
  list->add_option("COLLECTION", *coll, "workspace.collection")->required();
  SetCommand(list, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*coll).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, client->ListMaterializedViews(*coll));
    if (g->json) {
      json arr = json::array();
      for (const auto& m : all) arr.push_back(MaterializedJson(m));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& m : all) {
      rows.push_back({m.view.name.dataset, std::to_string(m.view.current.version),
                      std::to_string(m.sources.size()),
                      m.last_refresh_status.empty() ? "(never)" : m.last_refresh_status,
                      m.last_refresh_at_us ? FormatTime(*m.last_refresh_at_us) : "-"});
    }
    PrintTable({"name", "version", "sources", "last_refresh", "refreshed_at"}, rows);
    return Status::OK();
  });

  auto* refresh = mv->add_subcommand(
      "refresh", "Refresh a materialized view now (incrementally when its SQL allows)");
  auto refresh_name = std::make_shared<std::string>();
  auto refresh_args = std::make_shared<CommitArgs>();
  auto refresh_full = std::make_shared<bool>(false);
  refresh->add_option("VIEW", *refresh_name, "workspace.collection.view")->required();
  refresh->add_flag("--full", *refresh_full,
                    "recompute even when an incremental refresh could run");
  AddCommitArgs(refresh, refresh_args.get(), false);
  SetCommand(refresh, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*refresh_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    RefreshOptions options;
    options.author = refresh_args->author.empty() ? DefaultAuthor(*client) : refresh_args->author;
    options.full = *refresh_full;
    TARN_ASSIGN_OR_RETURN(auto r, client->RefreshMaterializedView(*refresh_name, options));
    if (g->json) {
      std::cout << Dump(
                       {{"view", *refresh_name},
                        {"status", r.record.status},
                        {"mode", r.record.mode},
                        {"rows", r.rows},
                        {"snapshot_id", r.snapshot ? json(r.snapshot->snapshot_id) : json(nullptr)},
                        {"reflects", ReadsJson(r.record.sources)}})
                << "\n";
    } else {
      std::cout << "refreshed " << *refresh_name << " (" << r.record.mode << "): " << r.rows
                << " rows"
                << (r.snapshot ? ", snapshot " + std::to_string(r.snapshot->snapshot_id) : "")
                << "\n";
    }
    return Status::OK();
  });

  auto* drop = mv->add_subcommand("drop",
                                  "Drop a materialized view: its triggers, then its "
                                  "definition and dataset");
  auto drop_name = std::make_shared<std::string>();
  auto purge = std::make_shared<bool>(false);
  drop->add_option("VIEW", *drop_name, "workspace.collection.view")->required();
  drop->add_flag("--purge", *purge, "Delete its data and history too");
  SetCommand(drop, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*drop_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_RETURN_NOT_OK(client->DropMaterializedView(*drop_name, *purge));
    if (!g->json) std::cout << "dropped materialized view " << *drop_name << "\n";
    return Status::OK();
  });

  CLI::App* trigger = app->add_subcommand("trigger", "The commit triggers a dataset carries");
  trigger->require_subcommand(1);
  auto* tlist = trigger->add_subcommand("list", "List a dataset's triggers");
  auto tds = std::make_shared<std::string>();
  tlist->add_option("DATASET", *tds, "workspace.collection.dataset")->required();
  SetCommand(tlist, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*tds).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, client->ListTriggers(*tds));
    if (g->json) {
      json arr = json::array();
      for (const auto& t : all) arr.push_back(TriggerJson(t));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : all) {
      rows.push_back({t.name, t.target,
                      t.minimum_interval_s ? std::to_string(*t.minimum_interval_s) : "-",
                      t.last_fired_status.empty() ? "(never)" : t.last_fired_status,
                      t.last_fired_at_us ? FormatTime(*t.last_fired_at_us) : "-"});
    }
    PrintTable({"name", "target", "min_interval_s", "last_fired", "fired_at"}, rows);
    return Status::OK();
  });
  auto* interval = trigger->add_subcommand(
      "set-interval", "Fire at most once per SECONDS (0: every commit; 'none' removes the field)");
  auto ids = std::make_shared<std::string>();
  auto iname = std::make_shared<std::string>();
  auto iseconds = std::make_shared<std::string>();
  interval->add_option("DATASET", *ids, "workspace.collection.dataset")->required();
  interval->add_option("NAME", *iname, "The trigger's name")->required();
  interval->add_option("SECONDS", *iseconds, "Seconds, or none")->required();
  SetCommand(interval, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*ids).status());
    std::optional<int64_t> seconds;
    if (*iseconds != "none") {
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(iseconds->c_str(), &end, 10);
      if (iseconds->empty() || *end != '\0' || errno != 0 || v < 0) {
        return Status::InvalidArgument("SECONDS must be a whole number >= 0, or none");
      }
      seconds = v;
    }
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_RETURN_NOT_OK(client->SetTriggerInterval(*ids, *iname, seconds));
    if (!g->json) std::cout << "trigger " << *iname << " on " << *ids << ": " << *iseconds << "\n";
    return Status::OK();
  });
}

json JobJson(const JobInfo& j) {
  json out = {{"id", j.id},
              {"kind", j.kind},
              {"trigger", j.trigger},
              {"target", j.target},
              {"source", j.source},
              {"from_snapshot", j.from_snapshot},
              {"to_snapshot", j.to_snapshot},
              {"fired_by", j.fired_by},
              {"runs_as", j.runs_as},
              {"state", j.state},
              {"attempts", j.attempts},
              {"error", j.error},
              {"result_snapshot", j.result_snapshot ? json(*j.result_snapshot) : json(nullptr)},
              {"created_at", FormatTime(j.created_at_us)},
              {"updated_at", FormatTime(j.updated_at_us)},
              {"next_attempt_at", FormatTime(j.next_attempt_at_us)},
              {"purge_at", FormatTime(j.purge_at_us)}};
  return out;
}

// Runs the queued jobs of an embedded catalog in this process until none is left (or, with
// --watch, until Ctrl-C).
Status RunJobs(Client& client, bool watch, int64_t max_jobs, bool as_json) {
  auto* catalog = dynamic_cast<Catalog*>(&client);
  if (catalog == nullptr) {
    return Status::InvalidArgument(
        "tarn jobs run runs the jobs of an embedded catalog; tarn serve delivers its jobs to "
        "its worker (docs/design/views.md)");
  }
  InterruptGuard guard;
  InterruptGuard::Reset();
  DiscardError(catalog->PurgeJobs(), "purging finished jobs past their retention");
  constexpr int64_t kLeaseUs = 15 * 60 * 1'000'000LL;
  int64_t ran = 0;
  while (!InterruptGuard::Flag().load() && (max_jobs <= 0 || ran < max_jobs)) {
    // Embedded, this is the schedule tick too: due task schedules record their jobs first.
    TARN_RETURN_NOT_OK(catalog->FireDueSchedules().status());
    TARN_ASSIGN_OR_RETURN(auto job, catalog->ClaimJob(kLeaseUs));
    if (!job) {
      if (!watch) break;
      for (int i = 0; i < 20 && !InterruptGuard::Flag().load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    sql::JobOutcome outcome = sql::RunJob(client, *job);
    JobOutcomeReport report{outcome.state, outcome.error, outcome.snapshot, outcome.retry};
    TARN_RETURN_NOT_OK(catalog->ReportJobOutcome(job->id, report).status());
    ++ran;
    TARN_ASSIGN_OR_RETURN(auto done, catalog->GetJob(job->id));
    if (as_json) {
      std::cout << Dump(JobJson(done)) << "\n" << std::flush;
    } else {
      std::cout << done.id << " " << done.target << " " << done.state
                << (done.result_snapshot ? " snapshot " + std::to_string(*done.result_snapshot)
                                         : std::string())
                << (done.error.empty() ? "" : ": " + done.error) << "\n"
                << std::flush;
    }
  }
  if (InterruptGuard::Flag().load()) {
    return Status::Of(codes::kInterrupted, "interrupted; the jobs not yet run stay queued");
  }
  return Status::OK();
}

void RegisterJobs(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* jobs = app->add_subcommand(
      "jobs", "The jobs triggers record: refreshes and task runs (list, show, retry, run)");
  jobs->require_subcommand(1);
  auto* list = jobs->add_subcommand("list", "List jobs, newest first");
  auto q = std::make_shared<JobQuery>();
  list->add_option("--state", q->state,
                   "queued, running, succeeded, failed, denied or egress_blocked");
  list->add_option("--target", q->target, "Only the jobs of this materialized view or task");
  list->add_option("--limit", q->limit, "At most this many (default 100)");
  list->add_option("--after", q->after, "Only the jobs listed after this job id (older)");
  list->add_option("--before", q->before,
                   "Only the jobs listed before this job id (newer): the --limit nearest it");
  SetCommand(list, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, client->ListJobs(*q));
    if (g->json) {
      json arr = json::array();
      for (const auto& j : all) arr.push_back(JobJson(j));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& j : all) {
      rows.push_back({j.id, j.target, j.source,
                      std::to_string(j.from_snapshot) + ".." + std::to_string(j.to_snapshot),
                      j.state, std::to_string(j.attempts), j.fired_by,
                      FormatTime(j.created_at_us)});
    }
    PrintTable({"id", "target", "source", "window", "state", "attempts", "fired_by", "created_at"},
               rows);
    return Status::OK();
  });
  auto* show = jobs->add_subcommand("show", "Show a job");
  auto show_id = std::make_shared<std::string>();
  show->add_option("ID", *show_id, "The job's id")->required();
  SetCommand(show, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto j, client->GetJob(*show_id));
    json view = JobJson(j);
    if (g->json) {
      std::cout << Dump(view) << "\n";
      return Status::OK();
    }
    std::vector<std::pair<std::string, std::string>> kv;
    for (const auto& [k, v] : view.items()) {
      kv.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    PrintKeyValues(kv);
    return Status::OK();
  });
  auto* retry = jobs->add_subcommand("retry",
                                     "Queue a failed, denied or egress_blocked job "
                                     "again");
  auto retry_id = std::make_shared<std::string>();
  retry->add_option("ID", *retry_id, "The job's id")->required();
  SetCommand(retry, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto j, client->RetryJob(*retry_id));
    if (g->json) {
      std::cout << Dump(JobJson(j)) << "\n";
    } else {
      std::cout << "queued " << j.id << " again\n";
    }
    return Status::OK();
  });
  auto* run = jobs->add_subcommand(
      "run", "Run the queued jobs of an embedded catalog in this process (cron, or --watch)");
  auto watch = std::make_shared<bool>(false);
  auto max_jobs = std::make_shared<int64_t>(0);
  run->add_flag("--watch", *watch, "Keep running: poll for new jobs every 2 s until Ctrl-C");
  run->add_option("--max", *max_jobs, "Stop after this many jobs (default: no limit)");
  SetCommand(run, [=]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    return RunJobs(*client, *watch, *max_jobs, g->json);
  });
}

}  // namespace

void RegisterViewCommands(CLI::App* app, GlobalOptions* g) {
  CatalogOptions* co = SharedCatalogOptions();
  CLI::App* view = app->add_subcommand("view", "Create, show, list and drop views (stored SQL)");
  view->require_subcommand(1);
  RegisterCreate(view, g, co, false);
  RegisterCreate(view, g, co, true);
  RegisterMaterialized(app, g, co);
  RegisterJobs(app, g, co);

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
