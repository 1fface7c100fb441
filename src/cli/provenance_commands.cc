// `tarn lineage`, `tarn impact` and `tarn readers` (docs/design/provenance.md): what a dataset
// was built from, who consumes it now, and whose commits read it.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/wire.h"
#include "cli/catalog_common.h"
#include "cli/cli.h"

namespace tarn::cli {

namespace {

using json = nlohmann::json;

// "w.c.d@7 (version)", "w.c.d@3 (tag nightly)".
std::string ReadText(const ReadReference& r) {
  std::string how = r.tag.empty() ? r.resolved_by : r.resolved_by + " " + r.tag;
  return r.dataset + "@" + std::to_string(r.snapshot_id) + " (" + how + ")";
}

std::string SourcesText(const std::vector<SourceRef>& sources, bool complete) {
  std::string out;
  for (const auto& s : sources) out += (out.empty() ? "" : ", ") + s.dataset;
  if (out.empty()) out = "(none)";
  if (!complete) out += " (incomplete: a source may be missing)";
  return out;
}

// The answer as the HTTP API returns it, times also as RFC 3339.
json WithTimes(json j, const char* list) {
  for (auto& e : j[list]) {
    if (e.contains("committed_at_us")) e["committed_at"] = FormatTime(e["committed_at_us"]);
  }
  return j;
}

Status LineageCommand(Client& client, const std::string& name, std::optional<int64_t> snapshot,
                      size_t limit, bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto out, client.Lineage(name, snapshot, limit));
  if (as_json) {
    std::cout << Dump(WithTimes(api::ToJson(out), "snapshots")) << "\n";
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : out.snapshots) {
    std::string read;
    if (!e.receipt) {
      read = "not recorded";
    } else if (e.receipt->read_sources.empty()) {
      read = "nothing";
    } else {
      for (const auto& r : e.receipt->read_sources)
        read += (read.empty() ? "" : ", ") + ReadText(r);
      if (e.receipt->read_sources_truncated) read += ", ... (truncated)";
    }
    rows.push_back(
        {std::to_string(e.snapshot_id), FormatTime(e.committed_at_us), e.how, read, e.author});
  }
  PrintTable({"snapshot", "committed_at", "how", "read", "author"}, rows);
  std::cout << "sources: " << SourcesText(out.sources, out.sources_complete) << "\n";
  return Status::OK();
}

Status ImpactCommand(Client& client, const std::string& name, bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto out, client.Impact(name));
  if (as_json) {
    std::cout << Dump(api::ToJson(out)) << "\n";
    return Status::OK();
  }
  if (out.consumers.empty()) {
    std::cout << "nothing built from " << out.dataset << " now\n";
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : out.consumers) rows.push_back({c.dataset});
  PrintTable({"consumer"}, rows);
  if (out.truncated) std::cout << "(more than " << kMaxConsumers << " consumers; first shown)\n";
  return Status::OK();
}

Status ReadersCommand(Client& client, const std::string& name, std::optional<int64_t> version,
                      bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto out, client.Readers(name, version));
  if (as_json) {
    std::cout << Dump(WithTimes(api::ToJson(out), "readers")) << "\n";
    return Status::OK();
  }
  if (out.readers.empty()) {
    std::cout << "no recorded commit read " << out.dataset
              << (version ? " at snapshot " + std::to_string(*version) : std::string()) << "\n";
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : out.readers) {
    rows.push_back({r.dataset, std::to_string(r.snapshot_id), FormatTime(r.committed_at_us),
                    std::to_string(r.read_snapshot_id), r.produced_by.value_or("")});
  }
  PrintTable({"reader", "snapshot", "committed_at", "read_version", "produced_by"}, rows);
  if (out.truncated) std::cout << "(more than " << kMaxConsumers << " readers; newest shown)\n";
  return Status::OK();
}

}  // namespace

void RegisterProvenanceCommands(CLI::App* app, GlobalOptions* g) {
  CatalogOptions* co = SharedCatalogOptions();
  {
    struct Args {
      std::string name;
      std::optional<int64_t> snapshot;
      size_t limit = 100;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "lineage", "What each snapshot of a dataset was built from (receipts), newest first");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--snapshot", a->snapshot, "Only this snapshot");
    cmd->add_option("--limit", a->limit, "At most N snapshots (1..10000, default 100)");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(ParseDatasetName(a->name).status());
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      return LineageCommand(*client, a->name, a->snapshot, a->limit, g->json);
    });
  }
  {
    auto name = std::make_shared<std::string>();
    auto* cmd = app->add_subcommand(
        "impact", "Who consumes a dataset now: datasets built from it, in any workspace");
    cmd->add_option("DATASET", *name, "workspace.collection.dataset")->required();
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(ParseDatasetName(*name).status());
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      return ImpactCommand(*client, *name, g->json);
    });
  }
  {
    struct Args {
      std::string name;
      std::optional<int64_t> version;
    };
    auto a = std::make_shared<Args>();
    auto* cmd =
        app->add_subcommand("readers", "Whose commits read a dataset (or one version of it)");
    cmd->add_option("DATASET", a->name, "workspace.collection.dataset")->required();
    cmd->add_option("--version", a->version, "Only commits that read this snapshot");
    SetCommand(cmd, [=]() -> Status {
      TARN_RETURN_NOT_OK(ParseDatasetName(a->name).status());
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      return ReadersCommand(*client, a->name, a->version, g->json);
    });
  }
}

}  // namespace tarn::cli
