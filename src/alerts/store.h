// The table `alerts` (migration 11) and every statement on it. Internal to the alerts module:
// alerts.cc decides each raise through RecordRaise; ListAlerts (alerts.h) reads the rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metastore/metastore.h"

namespace tarn::alerts::store {

// Migration 11, contributed to SchemaMigrations() by store.cc (which every use of the Alerter
// links, through RecordRaise).
const std::vector<Migration>& AlertTables();

// What a raise writes onto its fingerprint's row (the latest raise's text wins).
struct RaiseRow {
  std::string fingerprint, code, severity, object, summary, component, environment, detail_json;
};

struct RaiseOutcome {
  bool delivered = false;  // this raise is the one to deliver
  int64_t count = 0;       // raises of the fingerprint so far, this one included
};

// Counts the raise and decides, atomically across processes, whether it delivers: it does
// when the fingerprint is new or its last delivery was at or before now - cooloff. One
// statement (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) in its own transaction.
// Metastore errors as the metastore returns them.
Result<RaiseOutcome> RecordRaise(Metastore& ms, const RaiseRow& row, int64_t now_us,
                                 int64_t cooloff_us);

}  // namespace tarn::alerts::store
