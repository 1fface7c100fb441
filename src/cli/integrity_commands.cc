// `tarn alerts list` and `tarn fsck` (docs/design/provenance.md): the alerts platform
// inconsistencies raised, and the integrity sweep that looks for them.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/wire.h"
#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/error_codes.h"

namespace tarn::cli {

namespace {

using json = nlohmann::json;

Status AlertsListCommand(Client& client, const AlertQuery& q, bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto alerts, client.ListAlerts(q));
  if (as_json) {
    json arr = json::array();
    for (const auto& a : alerts) {
      json j = api::ToJson(a);
      j["first_raised_at"] = FormatTime(a.first_raised_at_us);
      j["last_raised_at"] = FormatTime(a.last_raised_at_us);
      j["last_delivered_at"] = FormatTime(a.last_delivered_at_us);
      arr.push_back(std::move(j));
    }
    std::cout << Dump(arr) << "\n";
    return Status::OK();
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& a : alerts) {
    rows.push_back({FormatTime(a.last_raised_at_us), a.severity, a.code, a.object,
                    std::to_string(a.count), a.summary});
  }
  PrintTable({"last_raised_at", "severity", "code", "object", "raises", "summary"}, rows);
  return Status::OK();
}

Status FsckCommand(Client& client, const FsckOptions& options, bool as_json) {
  TARN_ASSIGN_OR_RETURN(auto report, client.Fsck(options));
  if (as_json) {
    std::cout << Dump(api::ToJson(report)) << "\n";
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : report.findings) {
      rows.push_back({f.code, f.object, f.platform ? "yes" : "no", f.detail});
    }
    if (!rows.empty()) PrintTable({"code", "object", "alerted", "detail"}, rows);
    std::cout << report.datasets_checked << " datasets, " << report.files_checked << " files, "
              << report.objects_listed << " objects checked: ";
    if (report.clean()) {
      std::cout << "no findings\n";
    } else {
      std::cout << report.findings.size() << " finding" << (report.findings.size() == 1 ? "" : "s")
                << "\n";
    }
  }
  if (report.clean()) return Status::OK();
  return Status::Of(codes::kIntegrityFindings,
                    "the integrity sweep found " + std::to_string(report.findings.size()) +
                        " problem" + (report.findings.size() == 1 ? "" : "s"));
}

}  // namespace

void RegisterIntegrityCommands(CLI::App* app, GlobalOptions* g) {
  CatalogOptions* co = SharedCatalogOptions();
  {
    auto* alerts = app->add_subcommand(
        "alerts",
        "Platform inconsistencies tarn raised (missing receipts, failed trigger "
        "fires, egress blocks, sweep findings)");
    alerts->require_subcommand(1);
    struct Args {
      std::string since, code, workspace;
      size_t limit = 100;
    };
    auto a = std::make_shared<Args>();
    auto* list = alerts->add_subcommand("list", "One row per distinct failure, newest first");
    list->add_option("--since", a->since, "Raised since: 1h, 7d, or RFC 3339 (default: all)");
    list->add_option("--code", a->code, "Only this alert code (receipt_missing, ...)");
    list->add_option("--workspace", a->workspace, "Only alerts about this workspace's objects");
    list->add_option("--limit", a->limit, "At most N alerts (1..10000, default 100)");
    SetCommand(list, [=]() -> Status {
      AlertQuery q;
      if (!a->since.empty()) {
        TARN_ASSIGN_OR_RETURN(q.since_us, ParseWhen("--since", a->since));
      }
      q.code = a->code;
      q.workspace = a->workspace;
      q.limit = a->limit;
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      return AlertsListCommand(*client, q, g->json);
    });
  }
  {
    struct Args {
      std::string workspace, grace = "24h";
      bool no_objects = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app->add_subcommand(
        "fsck", "Integrity sweep: what should be impossible (exit 0 clean, 3 with findings)");
    cmd->add_option("--workspace", a->workspace, "Only this workspace (default: every one)");
    cmd->add_option("--orphan-grace", a->grace,
                    "Report unreferenced objects older than this (default 24h)");
    cmd->add_flag("--no-objects", a->no_objects,
                  "Read only the metastore: skip listing the warehouse");
    SetCommand(cmd, [=]() -> Status {
      FsckOptions options;
      options.workspace = a->workspace;
      TARN_ASSIGN_OR_RETURN(options.orphan_grace_us, ParseDuration(a->grace));
      options.check_objects = !a->no_objects;
      TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));
      return FsckCommand(*client, options, g->json);
    });
  }
}

}  // namespace tarn::cli
