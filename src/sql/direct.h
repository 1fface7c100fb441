// Direct reads: a dataset of an embedded catalog on a local warehouse, read by DuckDB's own
// Parquet reader (read_parquet over its live files, columns mapped by field id) instead of
// tarn_scan. DuckDB's reader hands its operators what a table function of the C API cannot:
// dictionary-encoded vectors and column statistics (a perfect-hash GROUP BY, filters refuted
// from min/max). tarn_scan stays the reader whenever the direct one could differ from it:
// deleted rows, row ids, a remote or object-store warehouse, a column type whose Parquet
// encoding DuckDB reads differently, a file without field ids or that disagrees with the
// catalog. Internal to src/sql.
#pragma once

#include <optional>
#include <string>

#include "sql/session.h"

namespace tarn::sql {

// The table expression that reads `ds` at its pinned snapshot directly
// (`read_parquet([...], schema := MAP {...})`), or nullopt when tarn_scan must read it. Adds
// the files to session.direct_paths (the only files the query may open). Errors: the client's
// PlanFiles errors and the store's.
Result<std::optional<std::string>> DirectReadSource(QuerySession& session,
                                                    const ResolvedDataset& ds);

}  // namespace tarn::sql
