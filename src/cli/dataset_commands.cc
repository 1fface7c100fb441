// `tarn dataset ...`, `tarn append`, `add-files`, `snapshots`, `files`, `scan`, `delete`,
// `changes`, `tag`, `rollback`, `offset`, `expire` and `cleanup`: thin handlers over
// tarn::Client (`--catalog DIR|URL`, else $TARN_CATALOG, else ~/.tarn), embedded or remote.
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/wire.h"
#include "catalog/catalog.h"
#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/dataset_render.h"
#include "cli/error_codes.h"
#include "formats/format.h"
#include "objectstore/object_store.h"
#include "render/cell_text.h"
#include "render/json_lines.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

// ---- argument parsing ----

Result<int64_t> ParseSnapshotId(std::string_view what, const std::string& text) {
  auto v = ParseInteger<int64_t>(text);
  if (!v.ok() || *v < 0) {
    return Status::InvalidArgument(std::string(what) +
                                   " must be a snapshot id (an integer >= 0), "
                                   "got '" +
                                   text + "'");
  }
  return *v;
}

// RFC 3339 ("2026-01-01T00:00:00Z", offsets allowed) or a date; no zone means UTC.
Result<int64_t> ParseTimeArg(const std::string& text) {
  auto v = ParseTimestampTz(text, TimeUnit::kMicro);
  if (!v.ok()) {
    return Status::InvalidArgument("--at-time: expected an RFC 3339 timestamp or a date, got '" +
                                   text + "'");
  }
  return *v;
}

// --at / --at-time / --tag.
struct SelectorArgs {
  std::string at;
  std::string at_time;
  std::string tag;

  Result<SnapshotSelector> Resolve() const {
    SnapshotSelector s;
    int given = !at.empty() + !at_time.empty() + !tag.empty();
    if (given > 1) {
      return Status::InvalidArgument("give at most one of --at, --at-time and --tag");
    }
    if (!at.empty()) {
      TARN_ASSIGN_OR_RETURN(s.snapshot_id, ParseSnapshotId("--at", at));
    }
    if (!at_time.empty()) {
      TARN_ASSIGN_OR_RETURN(s.at_time_us, ParseTimeArg(at_time));
    }
    if (!tag.empty()) s.tag = tag;
    return s;
  }
};

void AddSelector(CLI::App* cmd, SelectorArgs* s) {
  cmd->add_option("--at", s->at, "Snapshot id");
  cmd->add_option("--at-time", s->at_time,
                  "The snapshot current at this time (RFC 3339 timestamp or date, UTC)");
  cmd->add_option("--tag", s->tag, "A tag name (or current, previous)");
}

// -m / --author / --idempotency-key of a commit.
Status CheckDatasetName(const std::string& name) { return ParseDatasetName(name).status(); }

Status PrintSnapshot(const SnapshotInfo& s, bool as_json) {
  if (as_json) {
    std::cout << Dump(SnapshotJson(s)) << "\n";
  } else {
    std::cout << SnapshotLine(s) << "\n";
  }
  return Status::OK();
}

// ---- tarn dataset ... ----

void PrintDataset(const DatasetInfo& ds, const std::optional<SnapshotInfo>& snap) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"name", ds.name.ToString()},
      {"uuid", ds.uuid},
      {"description", ds.description},
      {"schema_id", std::to_string(ds.schema_id)},
      {"partition", ds.spec.unpartitioned() ? "(unpartitioned)" : ds.spec.ToString(ds.schema)},
      {"sort_order", ds.sort_order.unsorted() ? "(unsorted)" : ds.sort_order.ToString(ds.schema)},
      {"snapshot", ds.current_snapshot_id ? std::to_string(*ds.current_snapshot_id) : "(none)"},
      {"files", std::to_string(snap ? snap->total_files : ds.total_files)},
      {"records", std::to_string(snap ? snap->total_records : ds.total_records)},
      {"bytes", std::to_string(snap ? snap->total_bytes : ds.total_bytes)},
      {"created_at", FormatTime(ds.created_at_us)},
      {"updated_at", FormatTime(ds.updated_at_us)}};
  if (snap) kv.emplace_back("committed_at", FormatTime(snap->committed_at_us));
  std::string sources;
  for (const auto& s : ds.sources) sources += (sources.empty() ? "" : ", ") + s.dataset;
  if (sources.empty()) sources = "(none)";
  if (!ds.sources_complete) sources += " (incomplete)";
  kv.emplace_back("sources", sources);
  for (const auto& [k, v] : ds.properties) kv.emplace_back("property." + k, v);
  PrintKeyValues(kv);
  std::cout << "\n";
  std::vector<std::vector<std::string>> rows;
  for (const Field& f : ds.schema.fields) {
    rows.push_back(
        {std::to_string(f.field_id), f.name, f.type.ToString(), f.nullable ? "yes" : "no"});
  }
  PrintTable({"id", "column", "type", "nullable"}, rows);
}

Status PrintDatasetResult(const DatasetInfo& ds, bool as_json, const std::string& verb) {
  if (as_json) {
    std::cout << Dump(DatasetJson(ds)) << "\n";
  } else {
    std::cout << verb << " dataset " << ds.name.ToString() << "\n";
  }
  return Status::OK();
}

void RegisterDataset(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* ds = app->add_subcommand("dataset", "Create, list, show, evolve and drop datasets");
  ds->require_subcommand(1);

  {
    struct Args {
      std::string name, schema, partition, sort, description;
      std::vector<std::string> properties;
      bool exists_ok = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = ds->add_subcommand("create", "Create a dataset WORKSPACE.COLLECTION.DATASET");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--schema", a->schema, "Columns: 'id INT64 NOT NULL, ts TIMESTAMP[us], ...'")
        ->required();
    cmd->add_option("--partition", a->partition, "Partition spec: 'bucket(16, id), month(ts)'");
    cmd->add_option("--sort", a->sort, "Sort order: 'id, ts DESC'");
    cmd->add_option("--description", a->description, "Description");
    cmd->add_option("--property", a->properties, "KEY=VALUE (repeatable)");
    cmd->add_flag("--exists-ok", a->exists_ok, "Succeed when it already exists");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      DatasetDefinition def;
      auto schema = Schema::Parse(a->schema);
      if (!schema.ok()) return schema.status().WithContext("--schema");
      def.schema = std::move(*schema);
      def.partition_spec = a->partition;
      def.sort_order = a->sort;
      def.description = a->description;
      TARN_ASSIGN_OR_RETURN(def.properties, ParseAssignments(a->properties));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto info, cat->CreateDataset(a->name, std::move(def), a->exists_ok));
      return PrintDatasetResult(info, g->json, "created");
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto* cmd = ds->add_subcommand("list", "List the datasets of a collection");
    cmd->add_option("COLLECTION", *name, "workspace.collection")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(ParseCollectionName(*name).status());
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto all, cat->ListDatasets(*name));
      if (g->json) {
        json arr = json::array();
        for (const auto& d : all) arr.push_back(DatasetJson(d));
        std::cout << Dump(arr) << "\n";
        return Status::OK();
      }
      std::vector<std::vector<std::string>> rows;
      for (const auto& d : all) {
        rows.push_back({d.name.dataset,
                        d.current_snapshot_id ? std::to_string(*d.current_snapshot_id) : "",
                        std::to_string(d.total_files), std::to_string(d.total_records),
                        std::to_string(d.total_bytes), d.description, FormatTime(d.updated_at_us)});
      }
      PrintTable({"name", "snapshot", "files", "records", "bytes", "description", "updated_at"},
                 rows);
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto sel = std::make_shared<SelectorArgs>();
    auto* cmd = ds->add_subcommand("show", "Schema, partitioning, sort order and totals");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    AddSelector(cmd, sel.get());
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto at, sel->Resolve());
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto info, cat->LoadDataset(*name, at));
      std::optional<SnapshotInfo> snap;
      if (info.current_snapshot_id) {
        SnapshotSelector pinned;
        pinned.snapshot_id = info.current_snapshot_id;
        TARN_ASSIGN_OR_RETURN(snap, cat->GetSnapshot(*name, pinned));
      }
      if (g->json) {
        json j = DatasetJson(info);
        j["snapshot"] = snap ? SnapshotJson(*snap) : json(nullptr);
        if (!at.empty() && snap) {
          // Totals as of the selected snapshot, not the current ones.
          j["total_files"] = snap->total_files;
          j["total_records"] = snap->total_records;
          j["total_bytes"] = snap->total_bytes;
        }
        std::cout << Dump(j) << "\n";
        return Status::OK();
      }
      PrintDataset(info, at.empty() ? std::nullopt : snap);
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto sel = std::make_shared<SelectorArgs>();
    auto format = std::make_shared<int>(kIcebergFormatVersion);
    auto print = std::make_shared<bool>(false);
    auto* cmd = ds->add_subcommand(
        "iceberg",
        "Produce (once) the Iceberg metadata of a snapshot and print where it is, for Iceberg "
        "engines");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    AddSelector(cmd, sel.get());
    cmd->add_option("--format-version", *format, "Iceberg format version (2)");
    cmd->add_flag("--print", *print, "Print the metadata JSON instead of its location");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      IcebergRequest req;
      TARN_ASSIGN_OR_RETURN(req.at, sel->Resolve());
      req.format_version = *format;
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto info, cat->IcebergTable(*name, req));
      if (g->json) {
        std::cout << Dump(api::ToJson(info)) << "\n";
      } else if (*print) {
        std::cout << Dump(json::parse(info.metadata)) << "\n";
      } else {
        std::cout << info.metadata_location << "\n";
        for (const auto& o : info.omitted) {
          std::cerr << "note: column " << o.path << " is not shown to Iceberg readers: " << o.reason
                    << "\n";
        }
      }
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto metadata = std::make_shared<std::string>();
    auto commit = std::make_shared<CommitArgs>();
    auto* cmd = ds->add_subcommand(
        "register",
        "Create a dataset from an existing Iceberg table's current snapshot, without copying data");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("--iceberg-metadata", *metadata,
                    "The table's metadata JSON: a path or URI inside the warehouse")
        ->required();
    AddCommitArgs(cmd, commit.get(), /*idempotency=*/false);
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      IcebergRegisterRequest req;
      req.metadata = *metadata;
      req.meta = commit->Meta(*cat);
      TARN_ASSIGN_OR_RETURN(auto out, cat->RegisterIcebergTable(*name, req));
      if (g->json) {
        std::cout << Dump(api::ToJson(out)) << "\n";
      } else {
        std::cout << "registered " << out.dataset.name.ToString() << " from Iceberg snapshot "
                  << out.source_snapshot_id << ": " << out.files << " file"
                  << (out.files == 1 ? "" : "s") << ", " << out.records - out.deleted_rows
                  << " rows (" << out.deleted_rows << " deleted by position deletes)\n";
      }
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto new_name = std::make_shared<std::string>();
    auto* cmd = ds->add_subcommand("rename", "Rename a dataset within its collection");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("NEW_NAME", *new_name, "The new (bare) dataset name")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(cat->RenameDataset(*name, *new_name));
      TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(*name));
      n.dataset = *new_name;
      if (g->json) {
        TARN_ASSIGN_OR_RETURN(auto info, cat->LoadDataset(n.ToString()));
        std::cout << Dump(DatasetJson(info)) << "\n";
      } else {
        std::cout << "renamed " << *name << " to " << n.ToString() << "\n";
      }
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto purge = std::make_shared<bool>(false);
    auto* cmd = ds->add_subcommand("drop", "Drop a dataset (its history is kept unless --purge)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_flag("--purge", *purge, "Delete its history and files too");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(cat->DropDataset(*name, *purge));
      if (g->json) {
        std::cout << Dump(json{{"dropped", *name}, {"purged", *purge}}) << "\n";
      } else {
        std::cout << (*purge ? "purged dataset " : "dropped dataset ") << *name << "\n";
      }
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto assigns = std::make_shared<std::vector<std::string>>();
    auto* cmd = ds->add_subcommand("set", "Set dataset properties (KEY=VALUE...)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("ASSIGNMENTS", *assigns, "KEY=VALUE pairs")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto props, ParseAssignments(*assigns));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(cat->SetDatasetProperties(*name, props));
      if (g->json) {
        TARN_ASSIGN_OR_RETURN(auto info, cat->LoadDataset(*name));
        std::cout << Dump(DatasetJson(info)) << "\n";
      }
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto keys = std::make_shared<std::vector<std::string>>();
    auto* cmd = ds->add_subcommand("unset", "Unset dataset properties (KEY...)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("KEYS", *keys, "Property keys")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(cat->SetDatasetProperties(*name, {}, *keys));
      if (g->json) {
        TARN_ASSIGN_OR_RETURN(auto info, cat->LoadDataset(*name));
        std::cout << Dump(DatasetJson(info)) << "\n";
      }
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto changes = std::make_shared<std::vector<std::string>>();
    auto* cmd = ds->add_subcommand(
        "alter",
        "Evolve the schema: 'add score FLOAT64', 'drop c', 'rename a TO b', 'promote n INT64', "
        "'move c FIRST', 'move c AFTER b', 'set nullable c' (all in one schema version)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("CHANGES", *changes, "Schema changes")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      std::vector<SchemaChange> parsed;
      for (const auto& c : *changes) {
        auto change = ParseSchemaChange(c);
        if (!change.ok()) return change.status().WithContext("'" + c + "'");
        parsed.push_back(std::move(*change));
      }
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto info, cat->AlterSchema(*name, parsed));
      if (g->json) return PrintDatasetResult(info, true, "");
      std::cout << "altered dataset " << info.name.ToString() << " (schema " << info.schema_id
                << ")\n";
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto spec = std::make_shared<std::string>();
    auto* cmd = ds->add_subcommand("partition",
                                   "Set the partition spec for later writes ('' = unpartitioned)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("SPEC", *spec, "'bucket(16, id), month(ts)'")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto info, cat->SetPartitionSpec(*name, *spec));
      if (g->json) return PrintDatasetResult(info, true, "");
      std::cout << "partition spec " << info.spec.spec_id << " of " << info.name.ToString() << ": "
                << info.spec.ToString(info.schema) << "\n";
      return Status::OK();
    });
  }

  {
    auto name = std::make_shared<std::string>();
    auto order = std::make_shared<std::string>();
    auto* cmd = ds->add_subcommand("sort", "Set the sort order for later writes ('' = unsorted)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("ORDER", *order, "'id, ts DESC'")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto info, cat->SetSortOrder(*name, *order));
      if (g->json) return PrintDatasetResult(info, true, "");
      std::cout << "sort order of " << info.name.ToString() << ": "
                << info.sort_order.ToString(info.schema) << "\n";
      return Status::OK();
    });
  }
}

// ---- commits ----

// Streams the batches of every input file in turn, converted to `schema`: the catalog writes
// them as they come (bounded memory) and commits once at the end.
class InputBatches {
 public:
  InputBatches(std::vector<std::string> paths, Schema schema)
      : paths_(std::move(paths)), schema_(std::move(schema)) {}

  Result<std::optional<RecordBatch>> Next() {
    while (true) {
      if (!reader_) {
        if (next_path_ == paths_.size()) return std::optional<RecordBatch>();
        current_ = paths_[next_path_++];
        auto format = formats::DetectFormat(current_);
        if (!format.ok()) return Context(format.status());
        auto file = OpenInputFile(current_);
        if (!file.ok()) return Context(file.status());
        auto reader = formats::OpenBatchReader(std::move(*file), current_, *format, schema_);
        if (!reader.ok()) return Context(reader.status());
        reader_ = std::move(*reader);
      }
      auto next = reader_->Next();
      if (!next.ok()) return Context(next.status());
      if (next->has_value()) return next;
      reader_.reset();
    }
  }

 private:
  Status Context(const Status& st) const {
    return st.WithContext("reading '" + current_ + "'").WithField("file", current_);
  }

  std::vector<std::string> paths_;
  Schema schema_;
  size_t next_path_ = 0;
  std::string current_;
  std::unique_ptr<formats::BatchReader> reader_;
};

void RegisterCommits(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  {
    struct Args {
      std::string name;
      std::vector<std::string> files;
      CommitArgs commit;
      bool overwrite = false, defer_stats = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "append",
        "Append Parquet, CSV or NDJSON files (optionally .gz/.zst/.br) as one snapshot, "
        "converted to the dataset's types");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("FILES", a->files, "Input files")->required();
    AddCommitArgs(cmd, &a->commit, /*idempotency=*/true);
    cmd->add_flag("--overwrite", a->overwrite, "Replace every live row with the input");
    cmd->add_flag("--defer-stats", a->defer_stats,
                  "Register the files with statistics pending (filled in later by housekeeping "
                  "or 'tarn stats hydrate')");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto ds, cat->LoadDataset(a->name));
      auto inputs = std::make_shared<InputBatches>(a->files, ds.schema);
      CommitMeta meta = a->commit.Meta(*cat);
      meta.defer_stats = a->defer_stats;
      TARN_ASSIGN_OR_RETURN(
          auto snap,
          cat->AppendStream(
              a->name, [inputs] { return inputs->Next(); }, std::move(meta),
              a->overwrite ? CommitOperation::kOverwrite : CommitOperation::kAppend, ds.uuid));
      return PrintSnapshot(snap, g->json);
    });
  }

  {
    struct Args {
      std::string name;
      std::vector<std::string> paths;
      CommitArgs commit;
      bool truncate = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "add-files", "Register Parquet files already in the warehouse (stats from their footers)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("PATHS", a->paths, "Warehouse keys, or paths/URIs inside the warehouse");
    AddCommitArgs(cmd, &a->commit, /*idempotency=*/true);
    cmd->add_flag("--truncate", a->truncate, "Replace every live file with these");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      std::vector<std::string> paths;
      for (const std::string& p : a->paths) {
        // ./x and ../x name local files; bare relative paths are warehouse keys.
        if (p.rfind("./", 0) == 0 || p.rfind("../", 0) == 0) {
          char* real = ::realpath(p.c_str(), nullptr);
          if (!real) return Status::NotFound("no such file: " + p).WithField("path", p);
          paths.emplace_back(real);
          std::free(real);
        } else {
          paths.push_back(p);
        }
      }
      TARN_ASSIGN_OR_RETURN(auto snap,
                            cat->AddFiles(a->name, paths, a->commit.Meta(*cat), a->truncate));
      return PrintSnapshot(snap, g->json);
    });
  }

  {
    struct Args {
      std::string name, where;
      CommitArgs commit;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "delete", "Delete the rows matching a predicate (deletion vectors; files stay)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--where", a->where, "Predicate, e.g. \"id < 10 AND region = 'eu'\"")
        ->required();
    AddCommitArgs(cmd, &a->commit, /*idempotency=*/false);
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto snap, cat->DeleteRows(a->name, a->where, a->commit.Meta(*cat)));
      if (snap.snapshot_id == 0) {
        if (g->json) {
          std::cout << Dump(json{{"snapshot_id", nullptr}, {"deleted_records", 0}}) << "\n";
        } else {
          std::cout << "no rows match: nothing committed\n";
        }
        return Status::OK();
      }
      return PrintSnapshot(snap, g->json);
    });
  }

  {
    struct Args {
      std::string name, snapshot;
      CommitArgs commit;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand("rollback",
                                    "Restore the files of an earlier snapshot (as a new snapshot)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("SNAPSHOT", a->snapshot, "Snapshot id")->required();
    AddCommitArgs(cmd, &a->commit, /*idempotency=*/false);
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(int64_t to, ParseSnapshotId("SNAPSHOT", a->snapshot));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto snap, cat->Rollback(a->name, to, a->commit.Meta(*cat)));
      return PrintSnapshot(snap, g->json);
    });
  }
}

// ---- reads ----

// The `--limit` of a paged listing: nullopt when not given; the range is the SDK's to check.
Result<std::optional<int64_t>> ParseLimitFlag(const std::string& text) {
  if (text.empty()) return std::optional<int64_t>();
  auto v = ParseInteger<int64_t>(text);
  if (!v.ok()) {
    return Status::InvalidArgument("--limit must be an integer, got '" + text + "'")
        .WithField("field", "limit");
  }
  return std::optional<int64_t>(*v);
}

// `--limit`, `--after`, `--before` of `tarn snapshots`: a page by snapshot id (SnapshotQuery).
struct PageArgs {
  std::string limit, after, before;

  void Add(CLI::App* cmd) {
    cmd->add_option("--limit", limit, "At most this many (1 to 10000; default: all)");
    cmd->add_option("--after", after, "Only snapshots with a higher id");
    cmd->add_option("--before", before,
                    "Only snapshots with a lower id (alone: the last --limit below it)");
  }
  Result<SnapshotQuery> Query() const {
    SnapshotQuery q;
    for (auto [flag, text, out] : {std::tuple{"--limit", &limit, &q.limit},
                                   {"--after", &after, &q.after},
                                   {"--before", &before, &q.before}}) {
      if (text->empty()) continue;
      auto v = ParseInteger<int64_t>(*text);
      if (!v.ok()) {
        return Status::InvalidArgument(std::string(flag) + " must be an integer, got '" + *text +
                                       "'")
            .WithField("field", std::string(flag).substr(2));
      }
      *out = *v;
    }
    return q;
  }
};

Status SnapshotsCommand(Client& cat, const std::string& name, const SnapshotQuery& query,
                        bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto all, cat.ListSnapshots(name, query));
  if (as_json) {
    json arr = json::array();
    for (const auto& s : all) arr.push_back(SnapshotJson(s));
    std::cout << Dump(arr) << "\n";
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : all) {
    rows.push_back({std::to_string(s.snapshot_id),
                    s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "",
                    FormatTime(s.committed_at_us), s.operation, s.author,
                    std::to_string(s.added_files), std::to_string(s.added_records),
                    std::to_string(s.deleted_records), std::to_string(s.total_records), s.message});
  }
  PrintTable({"snapshot", "parent", "committed_at", "operation", "author", "added_files",
              "added_rows", "deleted_rows", "total_rows", "message"},
             rows);
  return Status::OK();
}

// The spec a file was written under (partition values are named by it).
const PartitionSpec& SpecOf(const DatasetInfo& ds, int32_t spec_id) {
  for (const PartitionSpec& spec : ds.specs) {
    if (spec.spec_id == spec_id) return spec;
  }
  return ds.spec;
}

// Files stream: the JSON array is written element by element. A full page (--limit) ends with
// the flag that reads the next one, on stderr.
Status FilesCommand(Client& cat, const std::string& name, const SnapshotSelector& at,
                    const std::string& where, const FileQuery& page, bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto ds, cat.LoadDataset(name, at));
  std::vector<std::vector<std::string>> rows;
  bool first = true;
  int64_t files = 0;
  std::string first_path, last_path;
  if (as_json) TARN_RETURN_NOT_OK(WriteStdout("["));
  TARN_RETURN_NOT_OK(cat.PlanFiles(name, at, where, page, [&](const PlannedFile& pf) -> Status {
    const DataFile& f = pf.file;
    if (files++ == 0) first_path = f.path;
    last_path = f.path;
    if (as_json) {
      std::string s = first ? "" : ",";
      first = false;
      s += Dump(FileJson(f, pf.deleted_rows, ds.schema, SpecOf(ds, f.spec_id)));
      return WriteStdout(s);
    }
    // A compacted file's ids may have gaps: its range is marked with a '*'.
    const auto range = f.RowIdRange();
    std::string ids = range ? std::to_string(range->first) + ".." + std::to_string(range->second) +
                                  (f.StoresRowIds() ? "*" : "")
                            : "";
    rows.push_back({f.path, std::to_string(f.record_count), std::to_string(pf.deleted_rows),
                    std::to_string(f.file_size_bytes), PartitionText(f, SpecOf(ds, f.spec_id)), ids,
                    std::to_string(f.added_snapshot_id), f.stats_pending ? "pending" : "complete"});
    return Status::OK();
  }));
  if (as_json) {
    TARN_RETURN_NOT_OK(WriteStdout("]\n"));
  } else {
    PrintTable(
        {"path", "records", "deleted", "bytes", "partition", "row_ids", "snapshot", "stats_state"},
        rows);
  }
  if (page.limit && files == *page.limit) {
    const bool downwards = page.before && !page.after;
    std::cerr << "more files: " << (downwards ? "--before " : "--after ")
              << (downwards ? first_path : last_path) << "\n";
  }
  return Status::OK();
}

// What a scan read (`tarn scan --stats`): the difference of the catalog's totals, on stderr.
void PrintScanStats(const ReadStats& before, const ReadStats& after, bool as_json) {
  const ReadStats d = after - before;
  if (as_json) {
    std::cerr << Dump(json{
                     {"scan_stats",
                      {{"files", d.files},
                       {"row_groups", d.row_groups},
                       {"row_groups_skipped_by_bloom_filter", d.row_groups_skipped_by_bloom_filter},
                       {"files_skipped_by_bloom_filter", d.files_skipped_by_bloom_filter},
                       {"bloom_filters_read", d.bloom_filters_read},
                       {"row_groups_skipped_by_statistics", d.row_groups_skipped_by_statistics},
                       {"data_pages_read", d.data_pages_read},
                       {"data_pages_skipped", d.data_pages_skipped}}}})
              << "\n";
    return;
  }
  std::cerr << "scanned " << d.files << " files, " << d.row_groups << " row groups; bloom filters ("
            << d.bloom_filters_read << " read) ruled out " << d.row_groups_skipped_by_bloom_filter
            << " row groups and " << d.files_skipped_by_bloom_filter
            << " whole files; statistics ruled out " << d.row_groups_skipped_by_statistics
            << " more row groups; " << d.data_pages_read << " data pages read, "
            << d.data_pages_skipped << " skipped\n";
}

Status ScanCommand(Client& cat, const std::string& name, const ScanOptions& options, int64_t limit,
                   bool as_json) {
  if (limit < 0) return Status::InvalidArgument("--limit must be >= 0");
  int64_t remaining = limit > 0 ? limit : INT64_MAX;
  bool stopped = false;
  render::JsonLines json_lines(WriteStdout);
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  Status st = cat.Scan(name, options, [&](const RecordBatch& batch) -> Status {
    int64_t n = std::min<int64_t>(batch.num_rows, remaining);
    if (as_json) {
      TARN_RETURN_NOT_OK(json_lines.Write(batch, n));
    } else {
      if (header.empty()) {
        for (const Field& f : batch.schema.fields) header.push_back(f.name);
      }
      for (int64_t r = 0; r < n; ++r) {
        std::vector<std::string> cells;
        for (const Column& c : batch.columns) {
          cells.push_back(render::CellText(c, r));
        }
        rows.push_back(std::move(cells));
      }
    }
    remaining -= n;
    if (remaining == 0) {
      stopped = true;
      return Status::Cancelled("limit reached");
    }
    return Status::OK();
  });
  if (!st.ok() && !stopped) return st;
  if (!as_json) {
    if (header.empty()) {
      TARN_ASSIGN_OR_RETURN(auto ds, cat.LoadDataset(name, options.at));
      if (options.columns.empty()) {
        for (const Field& f : ds.schema.fields) header.push_back(f.name);
      } else {
        header = options.columns;
      }
      if (options.with_row_ids) header.push_back("_tarn_row_id");
    }
    PrintTable(header, rows);
  }
  return Status::OK();
}

Status ChangesCommand(Client& cat, const std::string& name, const ChangeQuery& query,
                      bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto c, cat.Changes(name, query));
  if (as_json) {
    std::cout << Dump(ChangeSetJson(c)) << "\n";
    return Status::OK();
  }
  std::cout << "changes in (" << c.from_snapshot_id << ", " << c.to_snapshot_id << "]";
  if (c.next_from) std::cout << "; more: --from " << *c.next_from;
  std::cout << "\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : c.added_files) {
    rows.push_back(
        {"added", f.path, std::to_string(f.record_count), std::to_string(f.added_snapshot_id)});
  }
  for (const auto& f : c.removed_files) {
    rows.push_back({"removed", f.path, std::to_string(f.record_count),
                    std::to_string(f.removed_snapshot_id.value_or(0))});
  }
  for (const auto& v : c.deletion_vectors) {
    rows.push_back({v.removed ? "vector removed" : "vector added", v.path,
                    std::to_string(v.cardinality), std::to_string(v.snapshot_id)});
  }
  PrintTable({"change", "path", "rows", "snapshot"}, rows);
  return Status::OK();
}

void RegisterReads(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  {
    auto name = std::make_shared<std::string>();
    auto page = std::make_shared<PageArgs>();
    auto* cmd = app->add_subcommand("snapshots", "The snapshots of a dataset, oldest first");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    page->Add(cmd);
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto query, page->Query());
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      return SnapshotsCommand(*cat, *name, query, g->json);
    });
  }

  {
    struct Args {
      std::string name, where, limit;
      std::optional<std::string> after, before;
      SelectorArgs sel;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "files",
        "Live data files at a snapshot, with partition values and column statistics, by path");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    AddSelector(cmd, &a->sel);
    cmd->add_option("--where", a->where, "Only files that may hold matching rows");
    cmd->add_option("--limit", a->limit, "At most this many (1 to 10000; default: all)");
    cmd->add_option("--after", a->after, "Only files whose path sorts after this one");
    cmd->add_option("--before", a->before,
                    "Only files whose path sorts before this one (alone: the last --limit)");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto at, a->sel.Resolve());
      FileQuery page;
      TARN_ASSIGN_OR_RETURN(page.limit, ParseLimitFlag(a->limit));
      page.after = a->after;
      page.before = a->before;
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      return FilesCommand(*cat, a->name, at, a->where, page, g->json);
    });
  }

  {
    struct Args {
      std::string name, where;
      SelectorArgs sel;
      bool row_ids = false;
      int64_t limit = 0;
      std::vector<std::string> columns;
      bool stats = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "scan", "Rows of a dataset at a snapshot (with --json one object per line)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    AddSelector(cmd, &a->sel);
    cmd->add_option("--where", a->where, "Row filter");
    cmd->add_flag("--row-ids", a->row_ids, "Add the _tarn_row_id column");
    cmd->add_option("--limit", a->limit, "At most N rows (0: all)");
    cmd->add_option("--columns", a->columns,
                    "Only these columns, in this order (comma-separated); only their column "
                    "chunks are read")
        ->delimiter(',');
    cmd->add_flag("--stats", a->stats,
                  "Then, on stderr, the files and row groups read and those bloom filters "
                  "ruled out (embedded catalogs)");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      ScanOptions options;
      TARN_ASSIGN_OR_RETURN(options.at, a->sel.Resolve());
      options.where = a->where;
      options.with_row_ids = a->row_ids;
      options.columns = a->columns;
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      auto* catalog = dynamic_cast<Catalog*>(cat.get());
      if (a->stats && catalog == nullptr) {
        return Status::Of(codes::kUsage,
                          "--stats counts the reads of an embedded catalog; a server's scans "
                          "read on the server");
      }
      const ReadStats before = catalog != nullptr ? catalog->scan_stats() : ReadStats{};
      TARN_RETURN_NOT_OK(ScanCommand(*cat, a->name, options, a->limit, g->json));
      if (a->stats) PrintScanStats(before, catalog->scan_stats(), g->json);
      return Status::OK();
    });
  }

  {
    struct Args {
      std::string name, from, to, limit;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand("changes",
                                    "Files added and removed, and deletion vectors, in (FROM, TO]");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--from", a->from, "Snapshot id (exclusive)")->required();
    cmd->add_option("--to", a->to, "Snapshot id (inclusive; default current)");
    cmd->add_option("--limit", a->limit,
                    "At most this many snapshots (1 to 10000; default: the whole range); the "
                    "page ends on a snapshot and says the --from of the next");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      ChangeQuery query;
      TARN_ASSIGN_OR_RETURN(query.from, ParseSnapshotId("--from", a->from));
      if (!a->to.empty()) {
        TARN_ASSIGN_OR_RETURN(query.to, ParseSnapshotId("--to", a->to));
      }
      TARN_ASSIGN_OR_RETURN(query.limit, ParseLimitFlag(a->limit));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      return ChangesCommand(*cat, a->name, query, g->json);
    });
  }
}

// ---- tags, offsets, maintenance ----

void RegisterTags(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* tag = app->add_subcommand("tag", "Name snapshots of a dataset");
  tag->require_subcommand(1);
  {
    struct Args {
      std::string name, tag;
      SelectorArgs sel;
      bool replace = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = tag->add_subcommand("create", "Tag a snapshot (default: the current one)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("NAME", a->tag, "Tag name")->required();
    AddSelector(cmd, &a->sel);
    cmd->add_flag("--replace", a->replace, "Move the tag when it exists");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto at, a->sel.Resolve());
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(cat->CreateTag(a->name, a->tag, at, a->replace));
      SnapshotSelector by_tag;
      by_tag.tag = a->tag;
      TARN_ASSIGN_OR_RETURN(auto snap, cat->GetSnapshot(a->name, by_tag));
      if (g->json) {
        std::cout << Dump(json{{"tag", a->tag}, {"snapshot_id", snap.snapshot_id}}) << "\n";
      } else {
        std::cout << "tag " << a->tag << " -> snapshot " << snap.snapshot_id << "\n";
      }
      return Status::OK();
    });
  }
  {
    auto name = std::make_shared<std::string>();
    auto* cmd = tag->add_subcommand("list", "List the tags of a dataset");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto tags, cat->ListTags(*name));
      if (g->json) {
        json arr = json::array();
        for (const auto& t : tags) {
          arr.push_back({{"name", t.name},
                         {"snapshot_id", t.snapshot_id},
                         {"created_at", FormatTime(t.created_at_us)}});
        }
        std::cout << Dump(arr) << "\n";
        return Status::OK();
      }
      std::vector<std::vector<std::string>> rows;
      for (const auto& t : tags) {
        rows.push_back({t.name, std::to_string(t.snapshot_id), FormatTime(t.created_at_us)});
      }
      PrintTable({"name", "snapshot", "created_at"}, rows);
      return Status::OK();
    });
  }
  {
    auto name = std::make_shared<std::string>();
    auto tag_name = std::make_shared<std::string>();
    auto* cmd = tag->add_subcommand("drop", "Drop a tag");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    cmd->add_option("NAME", *tag_name, "Tag name")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(cat->DropTag(*name, *tag_name));
      if (!g->json) std::cout << "dropped tag " << *tag_name << "\n";
      return Status::OK();
    });
  }
}

// `tarn dataset location grant|revoke|list`: external locations (warehouse prefixes) whose
// files a dataset may register.
void RegisterLocations(CLI::App* ds, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* loc = ds->add_subcommand(
      "location", "Warehouse prefixes whose files a dataset may register (add-files, commits)");
  loc->require_subcommand(1);
  struct Args {
    std::string name, prefix;
  };
  for (const char* verb : {"grant", "revoke"}) {
    auto a = std::make_shared<Args>();
    const bool grant = std::string_view(verb) == "grant";
    auto* cmd = loc->add_subcommand(verb, grant ? "Grant a warehouse prefix to a dataset (owner)"
                                                : "Revoke a granted prefix (owner)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("PREFIX", a->prefix, "Key prefix, or a URI / absolute path in the warehouse")
        ->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_RETURN_NOT_OK(grant ? cat->GrantLocation(a->name, a->prefix)
                               : cat->RevokeLocation(a->name, a->prefix));
      if (g->json) {
        std::cout << Dump(json{{"dataset", a->name}, {"prefix", a->prefix}}) << "\n";
      } else {
        std::cout << (grant ? "granted " : "revoked ") << a->prefix << (grant ? " to " : " from ")
                  << a->name << "\n";
      }
      return Status::OK();
    });
  }
  auto name = std::make_shared<std::string>();
  auto* cmd = loc->add_subcommand("list", "List the locations granted to a dataset");
  cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
  SetCommand(cmd, [=]() -> Status {
    TARN_RETURN_NOT_OK(CheckDatasetName(*name));
    TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
    TARN_ASSIGN_OR_RETURN(auto all, cat->ListLocations(*name));
    if (g->json) {
      json arr = json::array();
      for (const auto& l : all) {
        arr.push_back({{"prefix", l.prefix},
                       {"granted_by", l.granted_by},
                       {"granted_at", FormatTime(l.granted_at_us)}});
      }
      std::cout << Dump(arr) << "\n";
      return Status::OK();
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& l : all) rows.push_back({l.prefix, l.granted_by, FormatTime(l.granted_at_us)});
    PrintTable({"prefix", "granted_by", "granted_at"}, rows);
    return Status::OK();
  });
}

void RegisterOffsets(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  CLI::App* off = app->add_subcommand("offset", "Consumer offsets of the change feed");
  off->require_subcommand(1);
  {
    struct Args {
      std::string name, consumer, snapshot;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = off->add_subcommand(
        "commit", "Move a consumer's offset forward (default: to the current snapshot)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("CONSUMER", a->consumer, "Consumer name")->required();
    cmd->add_option("SNAPSHOT", a->snapshot, "Snapshot id");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      int64_t snapshot = 0;
      if (!a->snapshot.empty()) {
        TARN_ASSIGN_OR_RETURN(snapshot, ParseSnapshotId("SNAPSHOT", a->snapshot));
      } else {
        TARN_ASSIGN_OR_RETURN(auto ds, cat->LoadDataset(a->name));
        snapshot = ds.current_snapshot_id.value_or(0);
      }
      TARN_RETURN_NOT_OK(cat->CommitOffset(a->name, a->consumer, snapshot));
      if (g->json) {
        std::cout << Dump(json{{"consumer", a->consumer}, {"snapshot_id", snapshot}}) << "\n";
      } else {
        std::cout << "consumer " << a->consumer << " at snapshot " << snapshot << "\n";
      }
      return Status::OK();
    });
  }
  {
    struct Args {
      std::string name, consumer;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = off->add_subcommand("show", "A consumer's offset");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("CONSUMER", a->consumer, "Consumer name")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto offset, cat->GetOffset(a->name, a->consumer));
      if (g->json) {
        std::cout << Dump(json{{"consumer", a->consumer},
                               {"snapshot_id", offset ? json(*offset) : json(nullptr)}})
                  << "\n";
      } else {
        std::cout << "consumer " << a->consumer << ": "
                  << (offset ? "snapshot " + std::to_string(*offset) : "no offset") << "\n";
      }
      return Status::OK();
    });
  }
}

void RegisterMaintenance(CLI::App* app, GlobalOptions* g, CatalogOptions* co) {
  {
    struct Args {
      std::string name, older_than, workspace;
      bool ignore_offsets = false, dry_run = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "expire",
        "Expire snapshots older than a duration (files go to the removal ledger); without a "
        "dataset, apply every retention policy");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset (none: every policy)");
    cmd->add_option("--older-than", a->older_than, "Age: 7d, 12h, 30m, 0s (with a dataset)");
    cmd->add_option("--workspace", a->workspace,
                    "Without a dataset: only this workspace's policies");
    cmd->add_flag("--ignore-offsets", a->ignore_offsets,
                  "Expire past the slowest consumer's offset too (with a dataset)");
    cmd->add_flag("--dry-run", a->dry_run, "Report what would expire; change nothing");
    SetCommand(cmd, [=]() -> Status {
      if (a->name.empty()) {
        if (!a->older_than.empty() || a->ignore_offsets) {
          return Status::InvalidArgument(
              "--older-than and --ignore-offsets need a dataset; without one, each dataset's "
              "retention policy (properties retention, retention.consumer_floor) applies");
        }
        RetentionOptions options;
        options.workspace = a->workspace;
        options.dry_run = a->dry_run;
        TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
        TARN_ASSIGN_OR_RETURN(auto r, cat->ApplyRetention(options));
        if (g->json) {
          std::cout << Dump(api::ToJson(r)) << "\n";
        } else {
          for (const auto& d : r.datasets) {
            std::cout << d.dataset << " (retention " << d.retention << " from " << d.source
                      << (d.consumer_floor ? "" : ", past consumer offsets") << "): ";
            if (!d.error_code.empty()) {
              std::cout << "error[" << d.error_code << "]: " << d.error << "\n";
              continue;
            }
            std::cout << (a->dry_run ? "would expire " : "expired ") << d.expiry.expired_snapshots
                      << " snapshots (through " << d.expiry.expired_through << "), "
                      << d.expiry.files_released << " files released\n";
          }
          std::cout << r.datasets.size() << " datasets with a policy, " << r.without_policy
                    << " without\n";
        }
        for (const auto& d : r.datasets) {
          if (!d.error_code.empty()) {
            return Status::Of(codes::kRetentionFailed,
                              "retention failed for " + d.dataset + ": " + d.error)
                .WithField("dataset", d.dataset);
          }
        }
        return Status::OK();
      }
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      if (a->older_than.empty()) {
        return Status::InvalidArgument("--older-than is required with a dataset");
      }
      if (!a->workspace.empty()) {
        return Status::InvalidArgument("--workspace is for applying policies (no dataset)");
      }
      auto age = ParseDuration(a->older_than);
      if (!age.ok()) return age.status().WithContext("--older-than");
      ExpiryOptions options;
      options.older_than_us = NowMicros() - *age;
      options.respect_consumer_offsets = !a->ignore_offsets;
      options.dry_run = a->dry_run;
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto r, cat->ExpireSnapshots(a->name, options));
      if (g->json) {
        std::cout << Dump(json{{"dataset", r.dataset},
                               {"expired_snapshots", r.expired_snapshots},
                               {"expired_through", r.expired_through},
                               {"files_released", r.files_released},
                               {"dry_run", a->dry_run}})
                  << "\n";
      } else {
        std::cout << (a->dry_run ? "would expire " : "expired ") << r.expired_snapshots
                  << " snapshots of " << a->name << " (through " << r.expired_through << "), "
                  << r.files_released << " files released\n";
      }
      return Status::OK();
    });
  }
  {
    struct Args {
      std::string name, rule = "auto", where;
      bool dry_run = false;
      CommitArgs commit;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "compact",
        "Rewrite small files and files with deleted rows into larger ones (one pass; row ids "
        "kept)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--rule", a->rule,
                    "auto (sort_aware when the dataset has a sort order), brute or sort_aware")
        ->capture_default_str();
    cmd->add_option("--where", a->where,
                    "Only partitions matching this predicate on partition source columns");
    cmd->add_flag("--dry-run", a->dry_run, "Print the plan (which files, into what, why)");
    AddCommitArgs(cmd, &a->commit, /*idempotency=*/false);
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      CompactionOptions options;
      auto rule = ParseCompactionRule(a->rule);
      if (!rule.ok()) return rule.status().WithContext("--rule");
      options.rule = *rule;
      options.where = a->where;
      options.dry_run = a->dry_run;
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto r, cat->Compact(a->name, options, a->commit.Meta(*cat)));
      if (g->json) {
        std::cout << Dump(api::ToJson(r)) << "\n";
        return Status::OK();
      }
      if (!r.nothing_to_do.empty()) {
        std::cout << "nothing to compact: " << r.nothing_to_do << "\n";
        return Status::OK();
      }
      std::cout << (r.dry_run ? "would compact " : "compacted ") << r.dataset << " ("
                << CompactionRuleName(r.rule) << ", at snapshot " << r.read_snapshot_id
                << "): " << r.files_in() << " files, " << r.bytes_in() << " bytes into "
                << r.outputs.size() << (r.outputs.size() == 1 ? " file" : " files");
      if (r.snapshot_id) std::cout << ", snapshot " << *r.snapshot_id;
      std::cout << "\n";
      for (const auto& o : r.outputs) {
        std::cout << "  " << (o.partition.empty() ? "(unpartitioned)" : o.partition) << ": "
                  << o.inputs.size() << " files, " << o.input_rows - o.deleted_rows << " rows ("
                  << o.reason << ")";
        if (!o.path.empty()) std::cout << " -> " << o.path << " (" << o.bytes << " bytes)";
        std::cout << "\n";
        if (r.dry_run) {
          for (const auto& in : o.inputs) std::cout << "      " << in << "\n";
        }
      }
      return Status::OK();
    });
  }
  {
    // Under `tarn dataset` (it acts on one dataset's storage, not its snapshots), but kept
    // beside compact, the other way inlined files leave the metastore.
    auto name = std::make_shared<std::string>();
    auto* cmd = app->get_subcommand("dataset")->add_subcommand(
        "flush-inlined",
        "Write the dataset's inlined files (property inline.max_bytes) out to the warehouse "
        "(no snapshot)");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(*name));
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto r, cat->FlushInlined(*name));
      if (g->json) {
        std::cout << Dump(api::ToJson(r)) << "\n";
        return Status::OK();
      }
      std::cout << "flushed " << r.files_written << (r.files_written == 1 ? " file" : " files")
                << " (" << r.bytes_written << " bytes) of " << r.dataset << " to the warehouse\n";
      return Status::OK();
    });
  }
  {
    struct Args {
      std::string name;
      int64_t limit = 0;
    };
    auto a = std::make_shared<Args>();
    CLI::App* stats = app->add_subcommand("stats", "Deferred column statistics of data files");
    stats->require_subcommand(1);
    auto* cmd = stats->add_subcommand(
        "hydrate",
        "Fill in the statistics of files registered with them pending, from their footers");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--limit", a->limit, "At most N files (0: every pending file)")
        ->capture_default_str();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(CheckDatasetName(a->name));
      if (a->limit < 0) return Status::InvalidArgument("--limit must be >= 0");
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      StatsHydrationOptions options;
      options.limit = a->limit;
      TARN_ASSIGN_OR_RETURN(auto r, cat->HydrateStats(a->name, options));
      if (g->json) {
        std::cout << Dump(api::ToJson(r)) << "\n";
        return Status::OK();
      }
      std::cout << "hydrated " << r.files_hydrated << (r.files_hydrated == 1 ? " file" : " files")
                << " of " << r.dataset << "; " << r.files_pending << " still pending";
      if (!r.failures.empty()) std::cout << ", " << r.failures.size() << " failed";
      std::cout << "\n";
      for (const auto& f : r.failures) {
        std::cout << "  " << f.path << ": " << f.code << ": " << f.message << "\n";
      }
      return Status::OK();
    });
  }
  {
    auto orphans = std::make_shared<bool>(false);
    auto* cmd = app->add_subcommand(
        "cleanup", "Delete files no snapshot references any more; report orphaned objects");
    cmd->add_flag("--delete-orphans", *orphans, "Delete the orphaned objects too");
    SetCommand(cmd, [=]() -> Status {
      TARN_ASSIGN_OR_RETURN(auto cat, OpenClient(*co));
      TARN_ASSIGN_OR_RETURN(auto r, cat->Cleanup(*orphans));
      if (g->json) {
        std::cout << Dump(json{{"objects_deleted", r.objects_deleted},
                               {"bytes_deleted", r.bytes_deleted},
                               {"pending", r.pending},
                               {"orphans", r.orphans}})
                  << "\n";
      } else {
        std::cout << "deleted " << r.objects_deleted << " objects (" << r.bytes_deleted
                  << " bytes), " << r.pending << " pending, " << r.orphans.size()
                  << (*orphans ? " orphans deleted\n" : " orphans\n");
        for (const auto& o : r.orphans) std::cout << "  " << o << "\n";
      }
      return Status::OK();
    });
  }
}

}  // namespace

void RegisterDatasetCommands(CLI::App* app, GlobalOptions* global) {
  CatalogOptions* co = SharedCatalogOptions();
  RegisterDataset(app, global, co);
  RegisterLocations(app->get_subcommand("dataset"), global, co);
  RegisterCommits(app, global, co);
  RegisterReads(app, global, co);
  RegisterTags(app, global, co);
  RegisterOffsets(app, global, co);
  RegisterMaintenance(app, global, co);
}

}  // namespace tarn::cli
