// The error codes of the SDK's value functions (src/sdk), which the catalog and the remote
// client both return. Each is the "code" field of a Status (Status::Of(codes::kX, message)) and
// is registered in tarn::ErrorRegistry (tarn/status.h).
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kDatasetExists, ErrorCode("dataset_exists", ErrorKind::kAlreadyExists, "dataset"));
TARN_ERROR_CODE(kInvalidRole, ErrorCode("invalid_role", ErrorKind::kInvalidArgument, "field"));
// Views (tarn/view.h). A view and a dataset of one collection never share a name: creating
// either over the other is dataset_exists or view_exists.
TARN_ERROR_CODE(kViewExists, ErrorCode("view_exists", ErrorKind::kAlreadyExists, "view"));
TARN_ERROR_CODE(kViewNotFound, ErrorCode("view_not_found", ErrorKind::kNotFound, "view"));
TARN_ERROR_CODE(kViewVersionNotFound,
                ErrorCode("view_version_not_found", ErrorKind::kNotFound, "view version"));
TARN_ERROR_CODE(kInvalidDialect,
                ErrorCode("invalid_dialect", ErrorKind::kInvalidArgument, "dialect"));
TARN_ERROR_CODE(kInvalidViewSql, ErrorCode("invalid_view_sql", ErrorKind::kInvalidArgument));

}  // namespace tarn::codes
