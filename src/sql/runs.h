// What the runs of materialized views and tasks share (materialized.cc, tasks.cc): binding a
// query without running it, and the state a run that did not succeed ends in.
#pragma once

#include <string>
#include <vector>

#include "tarn/client.h"

namespace tarn::sql {

// What a query reads (every dataset, through views) and the schema of its result, found by
// binding it without fetching a row.
struct Bound {
  Schema schema;
  std::vector<ReadReference> reads;
};
Result<Bound> BindQuery(Client& client, const std::string& sql, const QueryOptions& base);

// What a refresh or a task run that did not succeed records: denied for missing rights,
// egress_blocked for the egress lock, failed for anything else.
std::string RunStatusOf(const Status& st);

}  // namespace tarn::sql
