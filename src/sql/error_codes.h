// The error codes of the SQL engine (src/sql). A query runs where the caller runs (the CLI, an
// SDK program), so none is in a response of `tarn serve`.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

// libduckdb.so could not be loaded: the message says how to install it.
TARN_ERROR_CODE(kSqlEngineUnavailable,
                ErrorCode("sql_engine_unavailable", ErrorKind::kUnavailable).NotServed());
// DuckDB could not parse the query; fields: position (0-based byte offset), when known.
TARN_ERROR_CODE(kSqlSyntaxError,
                ErrorCode("sql_syntax_error", ErrorKind::kInvalidArgument, "position").NotServed());
// The query parsed but does not bind (unknown column, function, type mismatch ...); fields:
// line and column (1-based) of DuckDB's caret, when it shows one.
TARN_ERROR_CODE(
    kSqlBinderError,
    ErrorCode("sql_binder_error", ErrorKind::kInvalidArgument, "line column").NotServed());
// Anything else DuckDB reports while running the query (conversion, out of range, divide by
// zero, out of memory ...); fields: duckdb_error (DuckDB's error type).
TARN_ERROR_CODE(kSqlError,
                ErrorCode("sql_error", ErrorKind::kInvalidArgument, "duckdb_error").NotServed());
// DuckDB ran out of memory or of temporary disk, or could not use its spill directory; fields:
// duckdb_error. A higher --memory-limit or more disk under the spill directory helps.
TARN_ERROR_CODE(
    kSqlResourcesExhausted,
    ErrorCode("sql_resources_exhausted", ErrorKind::kIOError, "duckdb_error").NotServed());
// The text is not one query (SELECT, WITH ..., VALUES, FROM ...).
TARN_ERROR_CODE(kSqlNotAQuery,
                ErrorCode("sql_not_a_query", ErrorKind::kInvalidArgument).NotServed());
// A result column of a DuckDB type tarn has no type for (STRUCT, MAP, INTERVAL ...); fields:
// column.
TARN_ERROR_CODE(
    kSqlUnsupportedType,
    ErrorCode("sql_unsupported_type", ErrorKind::kInvalidArgument, "column").NotServed());
// The query was interrupted (Ctrl-C, the caller's cancel flag).
TARN_ERROR_CODE(kSqlInterrupted, ErrorCode("sql_interrupted", ErrorKind::kCancelled).NotServed());
// The query ran past its --timeout.
// Exits 124, as timeout(1) does.
TARN_ERROR_CODE(kSqlTimeout, ErrorCode("sql_timeout", ErrorKind::kCancelled).Exit(124).NotServed());

// The query names a view whose dialect is not duckdb (stored and shown, but tarn's engine
// cannot run it); fields: view, dialect.
TARN_ERROR_CODE(
    kUnsupportedDialect,
    ErrorCode("unsupported_dialect", ErrorKind::kInvalidArgument, "view dialect").NotServed());
// Views that read each other in a circle, or nest deeper than 32; fields: view.
TARN_ERROR_CODE(kViewCycle,
                ErrorCode("view_cycle", ErrorKind::kInvalidArgument, "view").NotServed());

// A query writing into one workspace reads a dataset of another whose egress lock is on
// (docs/design/sql.md, "Writing results"); fields: workspace (the source), destination.
TARN_ERROR_CODE(kEgressBlocked, ErrorCode("egress_blocked", ErrorKind::kPermissionDenied,
                                          "workspace destination object")
                                    .NotServed());

}  // namespace tarn::codes
