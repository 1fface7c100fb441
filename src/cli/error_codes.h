// The error codes of the `tarn` command line (and the views shared with the tui).
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "render/error_codes.h"
#include "tarn/status.h"

namespace tarn::codes {

// `tarn fsck` found something: the report is printed, the exit code is 3.
TARN_ERROR_CODE(kIntegrityFindings,
                ErrorCode("integrity_findings", ErrorKind::kFailedPrecondition).NotServed());
TARN_ERROR_CODE(kInterrupted, ErrorCode("interrupted", ErrorKind::kCancelled).NotServed());
// `tarn expire` without a dataset: a policy failed for some dataset (each is printed).
TARN_ERROR_CODE(
    kRetentionFailed,
    ErrorCode("retention_failed", ErrorKind::kFailedPrecondition, "dataset").NotServed());
TARN_ERROR_CODE(kUsage, ErrorCode("usage", ErrorKind::kInvalidArgument).NotServed());

}  // namespace tarn::codes
