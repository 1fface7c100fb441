// `tarn manifest export` (docs/features.md C12; docs/design/maintenance.md "Manifest export"):
// the live data files of a snapshot as one Parquet file, embedded or through `tarn serve`.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "objectstore/object_store.h"
#include "types/value_text.h"

namespace tarn::cli {

namespace {

using json = nlohmann::json;

struct ExportArgs {
  std::string dataset, output;
  std::string snapshot, at_time, tag;
};

Result<SnapshotSelector> Selector(const ExportArgs& a) {
  SnapshotSelector s;
  int given = !a.snapshot.empty() + !a.at_time.empty() + !a.tag.empty();
  if (given > 1) {
    return Status::InvalidArgument("give at most one of --snapshot, --at-time and --tag");
  }
  if (!a.snapshot.empty()) {
    auto v = ParseInteger<int64_t>(a.snapshot);
    if (!v.ok() || *v < 0) {
      return Status::InvalidArgument("--snapshot must be a snapshot id (an integer >= 0), got '" +
                                     a.snapshot + "'");
    }
    s.snapshot_id = *v;
  }
  if (!a.at_time.empty()) {
    auto v = ParseTimestampTz(a.at_time, TimeUnit::kMicro);
    if (!v.ok()) {
      return Status::InvalidArgument("--at-time: expected an RFC 3339 timestamp or a date, got '" +
                                     a.at_time + "'");
    }
    s.at_time_us = *v;
  }
  if (!a.tag.empty()) s.tag = a.tag;
  return s;
}

// Writes the manifest to OUT, which appears only once the export is whole.
Status ExportCommand(Client& client, const ExportArgs& a, const SnapshotSelector& at,
                     bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto sink, CreateOutputFile(a.output));
  TARN_ASSIGN_OR_RETURN(auto info, client.ExportManifest(a.dataset, at, [&](std::string_view b) {
    return sink->Write(b);
  }));
  TARN_RETURN_NOT_OK(sink->Close());
  if (as_json) {
    std::cout << Dump(json{{"dataset", info.dataset},
                           {"dataset_uuid", info.dataset_uuid},
                           {"snapshot_id", info.snapshot_id},
                           {"files", info.files},
                           {"bytes", info.bytes},
                           {"output", a.output}})
              << "\n";
  } else {
    std::cout << "wrote the manifest of " << info.dataset << " at snapshot " << info.snapshot_id
              << " (" << info.files << " file" << (info.files == 1 ? "" : "s") << ", " << info.bytes
              << " bytes) to " << a.output << "\n";
  }
  return Status::OK();
}

}  // namespace

void RegisterManifestCommands(CLI::App* app, GlobalOptions* g) {
  CatalogOptions* co = SharedCatalogOptions();
  auto* manifest = app->add_subcommand(
      "manifest", "Manifests: a snapshot's live data files as Parquet, for engines");
  manifest->require_subcommand(1);
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = manifest->add_subcommand(
      "export", "Write the manifest of a dataset's snapshot (default: the current one)");
  cmd->add_option("DATASET", a->dataset, "workspace.collection.dataset")->required();
  cmd->add_option("OUT", a->output, "The Parquet file to write: a path or s3:// / file:// URI")
      ->required();
  cmd->add_option("--snapshot,--at", a->snapshot, "Snapshot id");
  cmd->add_option("--at-time", a->at_time,
                  "The snapshot current at this time (RFC 3339 timestamp or date, UTC)");
  cmd->add_option("--tag", a->tag, "A tag name (or current, previous)");
  SetCommand(cmd, [=]() -> Status {
    TARN_RETURN_NOT_OK(ParseDatasetName(a->dataset).status());
    TARN_ASSIGN_OR_RETURN(auto at, Selector(*a));
    TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
    return ExportCommand(*client, *a, at, g->json);
  });
}

}  // namespace tarn::cli
