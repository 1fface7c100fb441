// The alerts a platform inconsistency raised (a commit without a receipt, a failed trigger
// fire, an egress-blocked refresh, a finding of the integrity sweep), as `tarn alerts list`
// reads them: one record per distinct failure (fingerprint), with how often it was raised.
// The operation is tarn::Client::ListAlerts (tarn/client.h); docs/design/provenance.md.
#pragma once

#include <cstdint>
#include <string>

namespace tarn {

// One fingerprint's row: its latest raise and its history.
struct AlertRecord {
  std::string fingerprint;  // 32 hex digits, stable across processes and versions
  std::string code;         // receipt_missing, trigger_fire_failed, egress_blocked, ...
  std::string severity;     // WARNING, ERROR or CRITICAL
  std::string object;       // the catalog object concerned ("w.c.d"), may be empty
  std::string summary;      // the latest raise's one line
  std::string component, environment;
  std::string detail_json;  // a JSON object of strings
  int64_t first_raised_at_us = 0, last_raised_at_us = 0;
  int64_t last_delivered_at_us = 0;  // when a sink last got it (once per cool-off)
  int64_t count = 0;                 // raises so far, the quiet ones inside the cool-off included
};

// ListAlerts' filter: raised at or after `since_us`, of `code` when not empty, about an object
// of `workspace` when not empty (alerts about no workspace are listed only without it).
struct AlertQuery {
  int64_t since_us = 0;
  std::string code;
  std::string workspace;
  size_t limit = 100;  // 1..10000, newest first
};

}  // namespace tarn
