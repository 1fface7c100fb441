// Writing a query's result into a dataset as one snapshot (`tarn sql --into`,
// docs/design/sql.md "Writing results").
#pragma once

#include <string>
#include <string_view>

#include "sql/engine.h"
#include "tarn/client.h"
#include "tarn/dataset.h"

namespace tarn::sql {

using IntoMode = QueryIntoMode;
using IntoOptions = QueryIntoOptions;
using IntoResult = QueryIntoResult;

// Runs the query and writes its rows with tarn's writer (the target's partition spec and sort
// order) as one snapshot whose receipt lists every dataset the query read, at the snapshot
// each resolved to and how, and `produced_by`. Before anything is written: a read of another
// workspace than the target's whose egress lock is on is egress_blocked (kPermissionDenied).
// Append and overwrite match the result's columns to the target's by name: a column the target
// lacks is column_not_found; a type is cast where the cast is defined (else kInvalidArgument);
// a target column the result lacks is NULL (kInvalidArgument when NOT NULL). Nothing is
// committed when the query fails part-way; a dataset created for it is dropped again.
// Errors: RunQuery's; not_found for the target (append, overwrite); dataset_exists (create);
// invalid_name for a result column that is no valid column name (alias it); the commit's.
Result<IntoResult> QueryInto(Client& client, std::string_view sql, const QueryOptions& options,
                             const IntoOptions& into);

}  // namespace tarn::sql
