// Views (docs/features.md V1): SQL stored in the catalog under a `workspace.collection.name`,
// readable by name in a query. The value types of the view API; the operations are members of
// tarn::Client (tarn/client.h). Design: docs/design/views.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/data_type.h"
#include "tarn/dataset.h"
#include "tarn/status.h"

namespace tarn {

// The dialect tarn's SQL engine (DuckDB) runs; views of any other dialect are stored and shown,
// and running one is unsupported_dialect.
inline constexpr char kDuckDbDialect[] = "duckdb";

// Checks a dialect name: 1 to 32 characters of [a-z0-9_]; kInvalidArgument
// (code=invalid_dialect) otherwise.
Status ValidateDialect(std::string_view dialect);

// The most SQL text a view keeps.
inline constexpr size_t kMaxViewSqlBytes = 1 << 20;

// What a view is made of; each create or replace stores it as a new statement version.
struct ViewDefinition {
  std::string sql;  // stored verbatim; required, at most 1 MiB
  std::string dialect = kDuckDbDialect;
  std::string description;
  // The schema the author declares the result to have (optional; shown, not enforced).
  std::optional<Schema> schema;
};

// Checks a definition: its dialect, SQL that is not blank, at most kMaxViewSqlBytes and has no
// NUL byte (code=invalid_view_sql), a description of at most 4096 bytes, a declared schema with
// a column. kInvalidArgument otherwise.
Status ValidateViewDefinition(const ViewDefinition& def);

// One statement version of a view (1, 2, ... in the order they were stored).
struct ViewVersion {
  int64_t version = 0;
  std::string sql;
  std::string dialect;
  std::string description;
  std::optional<Schema> schema;
  std::string author;
  int64_t created_at_us = 0;
};

// A view and what tarn recorded the last time a query ran it.
struct ViewInfo {
  DatasetName name;  // workspace, collection and the view's name (in `dataset`)
  // The current statement version (its sql, dialect, description, schema, author and time).
  ViewVersion current;
  std::string created_by;  // the author of version 1
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;  // of the current version
  // Execution metadata, updated by each query that reads the view (Client::Query): when it
  // ran, the rows that query returned and its wall time.
  // (RecordViewRun takes seconds; the time is kept in whole microseconds.) nullopt until the first
  // run.
  std::optional<int64_t> last_run_at_us;
  std::optional<int64_t> last_row_count;
  std::optional<int64_t> last_run_us;  // wall time in microseconds
};

}  // namespace tarn
