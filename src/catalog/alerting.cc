// The catalog's alerts (src/alerts): the alerter a catalog starts with, and the alert of a
// commit that carried no receipt (docs/design/provenance.md). A failed trigger fire is alerted
// in jobs.cc.
#include <iostream>
#include <mutex>

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

}  // namespace tarn::catalog_internal

namespace tarn {

Result<std::vector<AlertRecord>> Catalog::ListAlerts(const AlertQuery& query) {
  if (!query.workspace.empty()) {
    TARN_RETURN_NOT_OK(ValidateIdentifier("workspace name", query.workspace));
  }
  return alerts::ListAlerts(*metastore_, query);
}

}  // namespace tarn
