// The error codes of the SDK's value functions (src/sdk), which the catalog and the remote
// client both return. Each is the "code" field of a Status (Status::Of(codes::kX, message)) and
// is registered in tarn::ErrorRegistry (tarn/status.h).
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kDatasetExists, ErrorCode("dataset_exists", ErrorKind::kAlreadyExists, "dataset"));
TARN_ERROR_CODE(kInvalidRole, ErrorCode("invalid_role", ErrorKind::kInvalidArgument, "field"));
// A commit's receipt outside its vocabulary (tarn/dataset.h ValidateReceipt).
TARN_ERROR_CODE(kInvalidReceipt,
                ErrorCode("invalid_receipt", ErrorKind::kInvalidArgument, "field"));
// Views (tarn/view.h). A view and a dataset of one collection never share a name: creating
// either over the other is dataset_exists or view_exists.
TARN_ERROR_CODE(kViewExists, ErrorCode("view_exists", ErrorKind::kAlreadyExists, "view"));
TARN_ERROR_CODE(kViewNotFound, ErrorCode("view_not_found", ErrorKind::kNotFound, "view"));
TARN_ERROR_CODE(kViewVersionNotFound,
                ErrorCode("view_version_not_found", ErrorKind::kNotFound, "view version"));
TARN_ERROR_CODE(kInvalidDialect,
                ErrorCode("invalid_dialect", ErrorKind::kInvalidArgument, "dialect"));
TARN_ERROR_CODE(kInvalidViewSql, ErrorCode("invalid_view_sql", ErrorKind::kInvalidArgument));
// Materialized views and triggers (V2, V3).
TARN_ERROR_CODE(kMaterializedViewNotFound,
                ErrorCode("materialized_view_not_found", ErrorKind::kNotFound, "view"));
TARN_ERROR_CODE(kMaterializedViewExists,
                ErrorCode("materialized_view_exists", ErrorKind::kAlreadyExists, "view"));
// A trigger (or a registration) whose edge would close a circle in the trigger graph.
TARN_ERROR_CODE(kTriggerCycle,
                ErrorCode("trigger_cycle", ErrorKind::kFailedPrecondition, "dataset view"));
TARN_ERROR_CODE(kTriggerNotFound,
                ErrorCode("trigger_not_found", ErrorKind::kNotFound, "dataset trigger"));
// A dataset that carries triggers, or is a materialized view, cannot be renamed.
TARN_ERROR_CODE(kJobNotFound, ErrorCode("job_not_found", ErrorKind::kNotFound, "job"));
TARN_ERROR_CODE(kJobNotRetryable,
                ErrorCode("job_not_retryable", ErrorKind::kFailedPrecondition, "job state"));
TARN_ERROR_CODE(kHasTriggers, ErrorCode("has_triggers", ErrorKind::kFailedPrecondition, "dataset"));
// Tasks (tarn/task.h). A task shares its collection's names with views and datasets.
TARN_ERROR_CODE(kTaskNotFound, ErrorCode("task_not_found", ErrorKind::kNotFound, "task"));
TARN_ERROR_CODE(kTaskExists, ErrorCode("task_exists", ErrorKind::kAlreadyExists, "task"));
// A definition that cannot be a task: the field named is missing, malformed or does not go
// with the trigger chosen.
TARN_ERROR_CODE(kInvalidTask, ErrorCode("invalid_task", ErrorKind::kInvalidArgument, "field"));
// Windowed task runs (docs/design/tasks.md "Windows"): the snapshot the window starts after was
// expired; the source's history does not continue the window (rolled back behind it, or
// recreated); a query naming tarn_window without a window source.
TARN_ERROR_CODE(kWindowSuperseded,
                ErrorCode("window_superseded", ErrorKind::kExpired, "dataset snapshot_id"));
TARN_ERROR_CODE(kWindowGap,
                ErrorCode("window_gap", ErrorKind::kFailedPrecondition, "dataset snapshot_id"));
TARN_ERROR_CODE(kWindowUnbound, ErrorCode("window_unbound", ErrorKind::kInvalidArgument));
// A signal to a task whose trigger is not a signal.
TARN_ERROR_CODE(kTaskNotSignalled,
                ErrorCode("task_not_signalled", ErrorKind::kFailedPrecondition, "task trigger"));
// Iceberg (tarn/iceberg.h): a dataset, a format version or a request that cannot be shown as an
// Iceberg table.
TARN_ERROR_CODE(kIcebergUnsupported,
                ErrorCode("iceberg_unsupported", ErrorKind::kInvalidArgument, "dataset"));

}  // namespace tarn::codes
