// The error codes of reading input files: the refusals of the data exit 3, not 2
// (docs/design/upload.md). Each is the "code" field of a Status (Status::Of(codes::kX, message))
// and is registered in tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code,
// retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(
    kFormatUnreadable,
    ErrorCode("format_unreadable", ErrorKind::kInvalidArgument, "file row column").Exit(3));
TARN_ERROR_CODE(kValueNotCastable, ErrorCode("value_not_castable", ErrorKind::kInvalidArgument,
                                             "column row value declared file")
                                       .Exit(3));
TARN_ERROR_CODE(kColumnUndeclared,
                ErrorCode("column_undeclared", ErrorKind::kInvalidArgument, "column").Exit(3));
TARN_ERROR_CODE(kColumnMissing,
                ErrorCode("column_missing", ErrorKind::kInvalidArgument, "column row").Exit(3));

}  // namespace tarn::codes
