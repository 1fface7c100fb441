// `tarn task create|replace|show|list|drop|signal|run` (docs/design/tasks.md): named statements
// that write a dataset, run by their one trigger (a commit, a signal, a schedule) as jobs.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/wire.h"
#include "cli/catalog_common.h"
#include "cli/cli.h"

namespace tarn::cli {

namespace {

using json = nlohmann::json;

json TaskJson(const TaskInfo& t) {
  json j = api::ToJson(t);
  j["created_at"] = FormatTime(t.created_at_us);
  j["updated_at"] = FormatTime(t.updated_at_us);
  j["next_due_at"] = t.next_due_at_us ? json(FormatTime(*t.next_due_at_us)) : json(nullptr);
  j["last_run_at"] = t.last_run_at_us ? json(FormatTime(*t.last_run_at_us)) : json(nullptr);
  return j;
}

// "commit on w.c.src", "signal", "schedule '0 * * * *' (Europe/London)".
std::string TriggerText(const TaskDefinition& d) {
  if (d.trigger == kTaskTriggerCommit) {
    return "commit on " + (d.on.empty() ? std::string("(its source was dropped)") : d.on);
  }
  if (d.trigger == kTaskTriggerSchedule)
    return "schedule '" + d.schedule + "' (" + d.time_zone + ")";
  return d.trigger;
}

void PrintTask(const TaskInfo& t, const std::vector<JobInfo>& runs, bool as_json) {
  if (as_json) {
    json j = TaskJson(t);
    json arr = json::array();
    for (const auto& r : runs) arr.push_back(api::ToJson(r));
    j["last_jobs"] = std::move(arr);
    std::cout << Dump(j) << "\n";
    return;
  }
  const TaskDefinition& d = t.definition;
  std::cout << "task " << t.name.ToString() << " (version " << t.version << ")\n"
            << "  writes:   " << d.target << " (" << d.mode << ")\n"
            << "  reads:    ";
  for (size_t i = 0; i < t.reads.size(); ++i) std::cout << (i ? ", " : "") << t.reads[i];
  if (t.reads.empty()) std::cout << "(nothing)";
  std::cout << "\n  trigger:  " << TriggerText(d) << "\n";
  if (t.next_due_at_us) std::cout << "  next due: " << FormatTime(*t.next_due_at_us) << "\n";
  if (!d.window_source.empty()) {
    std::cout << "  window:   " << d.window_source << " after snapshot " << t.window_end << "\n";
  }
  std::cout << "  runs as:  " << d.runs_as << "\n"
            << "  created:  " << FormatTime(t.created_at_us) << " by " << t.created_by << "\n"
            << "  last run: "
            << (t.last_run_status.empty()
                    ? std::string("(never)")
                    : t.last_run_status + " at " + FormatTime(*t.last_run_at_us))
            << (t.last_run_snapshot_id ? ", snapshot " + std::to_string(*t.last_run_snapshot_id)
                                       : "")
            << (t.last_run_error.empty() ? "" : "\n            " + t.last_run_error) << "\n"
            << "  sql:      " << d.sql << "\n";
  if (!runs.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : runs) {
      rows.push_back({r.id, r.state, r.fired_by, FormatTime(r.created_at_us),
                      r.result_snapshot ? std::to_string(*r.result_snapshot) : "-"});
    }
    std::cout << "\n";
    PrintTable({"job", "state", "fired_by", "created_at", "snapshot"}, rows);
  }
}

struct CreateArgs {
  std::string name, sql, into, description, on, schedule, time_zone, runs_as, window_source;
  bool append = false, overwrite = false, signal = false;
};

Result<TaskDefinition> DefinitionOf(const CreateArgs& a) {
  TaskDefinition d;
  d.sql = a.sql;
  d.description = a.description;
  if (a.append && a.overwrite) {
    return Status::InvalidArgument("--append and --overwrite are alternatives");
  }
  if ((a.append || a.overwrite) && a.into.empty()) {
    return Status::InvalidArgument("--append and --overwrite go with --into w.c.d");
  }
  d.target = a.into;
  d.mode = a.overwrite ? kTaskOverwrite : kTaskAppend;
  const int triggers = (a.on.empty() ? 0 : 1) + (a.schedule.empty() ? 0 : 1) + (a.signal ? 1 : 0);
  if (triggers != 1) {
    return Status::InvalidArgument(
        "a task has exactly one trigger: --on w.c.src, --schedule CRON or --signal");
  }
  if (!a.time_zone.empty() && a.schedule.empty()) {
    return Status::InvalidArgument("--time-zone goes with --schedule");
  }
  d.trigger = !a.on.empty()         ? kTaskTriggerCommit
              : !a.schedule.empty() ? kTaskTriggerSchedule
                                    : kTaskTriggerSignal;
  d.on = a.on;
  d.schedule = a.schedule;
  d.time_zone = a.time_zone;
  d.runs_as = a.runs_as;
  d.window_source = a.window_source;
  return d;
}

}  // namespace

void RegisterTaskCommands(CLI::App* app, GlobalOptions* g) {
  CatalogOptions* co = SharedCatalogOptions();
  CLI::App* task = app->add_subcommand(
      "task", "Named statements that write a dataset, run by a commit, a signal or a schedule");
  task->require_subcommand(1);

  for (bool replace : {false, true}) {
    auto* cmd = task->add_subcommand(
        replace ? "replace" : "create",
        replace ? "A new version of a task: its SQL, declaration and trigger rewritten"
                : "Create a task: --sql 'INSERT INTO w.c.d SELECT ...' (or a SELECT with --into "
                  "w.c.d --append|--overwrite) and one trigger");
    auto a = std::make_shared<CreateArgs>();
    cmd->add_option("TASK", a->name, "workspace.collection.task")->required();
    cmd->add_option("--sql", a->sql, "INSERT INTO w.c.d SELECT ..., or a query with --into")
        ->required();
    cmd->add_option("--into", a->into, "The dataset a run writes (with a query)");
    cmd->add_flag("--append", a->append, "A run appends its rows (the default)");
    cmd->add_flag("--overwrite", a->overwrite, "A run replaces the target's rows");
    cmd->add_option("--on", a->on, "Trigger: each commit on this dataset runs it");
    cmd->add_option("--schedule", a->schedule, "Trigger: a five-field cron schedule");
    cmd->add_option("--time-zone", a->time_zone, "The schedule's IANA time zone (default UTC)");
    cmd->add_flag("--signal", a->signal, "Trigger: tarn task signal (POST .../signal) runs it");
    cmd->add_option("--runs-as", a->runs_as,
                    "The client id whose rights the runs have (default: you)");
    cmd->add_option("--window-source", a->window_source,
                    "Each run sees the rows this dataset committed since the last successful "
                    "run as the relation tarn_window");
    cmd->add_option("--description", a->description, "What the task is for");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(ParseDatasetName(a->name).status());
      TARN_ASSIGN_OR_RETURN(auto def, DefinitionOf(*a));
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto t, client->CreateTask(a->name, def, replace));
      if (g->json) {
        PrintTask(t, {}, true);
      } else {
        std::cout << (replace ? "replaced" : "created") << " task " << t.name.ToString()
                  << " (version " << t.version << "): writes " << t.definition.target << ", "
                  << TriggerText(t.definition) << "\n";
      }
      return Status::OK();
    });
  }

  auto* show = task->add_subcommand("show", "Show a task: SQL, declaration, trigger, last runs");
  auto show_name = std::make_shared<std::string>();
  show->add_option("TASK", *show_name, "workspace.collection.task")->required();
  SetCommand(show, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*show_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto t, client->GetTask(*show_name));
    JobQuery q;
    q.target = t.name.ToString();
    q.limit = 10;
    TARN_ASSIGN_OR_RETURN(auto runs, client->ListJobs(q));
    PrintTask(t, runs, g->json);
    return Status::OK();
  });

  auto* list = task->add_subcommand("list", "List the tasks of a collection");
  auto coll = std::make_shared<std::string>();
  list->add_option("COLLECTION", *coll, "workspace.collection")->required();
  SetCommand(list, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseCollectionName(*coll).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, client->ListTasks(*coll));
    if (g->json) {
      json arr = json::array();
      for (const auto& t : all) arr.push_back(TaskJson(t));
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& t : all) {
      rows.push_back({t.name.dataset, t.definition.target, TriggerText(t.definition),
                      t.last_run_status.empty() ? "(never)" : t.last_run_status,
                      t.last_run_at_us ? FormatTime(*t.last_run_at_us) : "-"});
    }
    PrintTable({"name", "writes", "trigger", "last_run", "ran_at"}, rows);
    return Status::OK();
  });

  auto* drop = task->add_subcommand("drop", "Drop a task and its trigger (its jobs stay)");
  auto drop_name = std::make_shared<std::string>();
  drop->add_option("TASK", *drop_name, "workspace.collection.task")->required();
  SetCommand(drop, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*drop_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_RETURN_NOT_OK(client->DropTask(*drop_name));
    if (!g->json) std::cout << "dropped task " << *drop_name << "\n";
    return Status::OK();
  });

  auto* signal = task->add_subcommand(
      "signal", "Signal a task (its trigger is --signal): a job runs it with its runs_as rights");
  auto signal_name = std::make_shared<std::string>();
  signal->add_option("TASK", *signal_name, "workspace.collection.task")->required();
  SetCommand(signal, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*signal_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto job, client->SignalTask(*signal_name));
    if (g->json) {
      std::cout << Dump(api::ToJson(job)) << "\n";
    } else {
      std::cout << "signalled task " << *signal_name << ": job " << job.id << " queued\n";
    }
    return Status::OK();
  });

  auto* run = task->add_subcommand(
      "run", "Run a task now, in this process, with your rights (whatever its trigger)");
  auto run_name = std::make_shared<std::string>();
  auto run_author = std::make_shared<std::string>();
  run->add_option("TASK", *run_name, "workspace.collection.task")->required();
  run->add_option("--author", *run_author, "The commit's author (default: you)");
  SetCommand(run, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(*run_name).status());
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    TaskRunOptions options;
    options.author = run_author->empty() ? DefaultAuthor(*client) : *run_author;
    TARN_ASSIGN_OR_RETURN(auto r, client->RunTask(*run_name, options));
    if (g->json) {
      std::cout << Dump({{"task", *run_name},
                         {"status", r.record.status},
                         {"rows", r.rows},
                         {"snapshot_id",
                          r.snapshot ? json(r.snapshot->snapshot_id) : json(nullptr)}})
                << "\n";
    } else {
      std::cout << "ran task " << *run_name << ": " << r.rows << " rows"
                << (r.snapshot ? ", snapshot " + std::to_string(r.snapshot->snapshot_id) : "")
                << "\n";
    }
    return Status::OK();
  });
}

}  // namespace tarn::cli
