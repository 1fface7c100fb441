// The catalog's alerts (src/alerts): the alerter a catalog starts with, and the alert of a
// commit that carried no receipt and of a refresh the egress lock refused
// (docs/design/provenance.md). A failed trigger fire is alerted in jobs.cc.
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "alerts/alerts.h"
#include "catalog/catalog_internal.h"

namespace tarn::catalog_internal {

std::shared_ptr<alerts::Alerter> DefaultAlerter(Metastore* ms, const Clock* clock) {
  auto config = alerts::AlertsConfig::FromEnvironment();
  if (!config.ok()) {
    static std::once_flag once;
    std::call_once(once, [&] {
      std::cerr << "tarn: " << config.status().message()
                << "; alerts use their defaults (stdout, 24 h cool-off)\n";
    });
    return std::make_shared<alerts::Alerter>(ms, clock, alerts::AlertsConfig{});
  }
  return std::make_shared<alerts::Alerter>(ms, clock, std::move(config).value());
}

void ReportMissingReceipt(alerts::Alerter* alerter, const MissingReceipt& m) {
  if (alerter == nullptr) return;
  alerts::Alert alert;
  alert.code = "receipt_missing";
  alert.severity = alerts::Severity::kError;
  alert.object = m.dataset;
  alert.summary = "snapshot " + std::to_string(m.snapshot_id) + " of " + m.dataset + " (" +
                  m.operation +
                  ") was committed without a receipt: what it was built from is not recorded";
  alert.detail = {{"snapshot_id", std::to_string(m.snapshot_id)}, {"operation", m.operation}};
  alerter->Raise(alert);
}

AuditRecord EgressBlockedAudit(const std::string& action, const std::string& object,
                               const RefreshRecord& record, const std::string& actor, int64_t now) {
  AuditRecord a;
  a.at_us = now;
  a.actor = actor;
  a.action = action;
  a.target = object;
  a.workspace = object.substr(0, object.find('.'));
  a.outcome = kRefreshEgressBlocked;
  nlohmann::json detail{{"error", record.error}};
  if (!record.job_id.empty()) detail["job_id"] = record.job_id;
  a.detail_json = detail.dump();
  return a;
}

void ReportEgressBlocked(alerts::Alerter* alerter, const std::string& view,
                         const RefreshRecord& record) {
  if (alerter == nullptr) return;
  alerts::Alert alert;
  alert.code = "egress_blocked";
  alert.severity = alerts::Severity::kError;
  alert.object = view;
  alert.summary = "a run of " + view + " was refused by the egress lock: " + record.error;
  alert.detail = {{"error", record.error}};
  if (!record.job_id.empty()) alert.detail["job_id"] = record.job_id;
  // One failure per view and reason: each job of a view blocked for the same reason is the
  // same alert (the job id is not part of its identity).
  alert.identity = alert.code + "\n" + view + "\n" + record.error;
  alerter->Raise(alert);
}

}  // namespace tarn::catalog_internal

namespace tarn {

Result<std::vector<AlertRecord>> Catalog::ListAlerts(const AlertQuery& query) {
  if (!query.workspace.empty()) {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", query.workspace));
  }
  return alerts::ListAlerts(*metastore_, query);
}

}  // namespace tarn
