// The error codes of the upload service (docs/design/upload.md; UploadErrorCode in
// include/tarn/upload.h names the ones its SDK documents). Declared with the SDK's value
// functions because the embedded contract service (src/upload), the remote client and the
// renderers all return or read them. Each is the "code" field of a Status
// (Status::Of(codes::kX, message)) and is registered in tarn::ErrorRegistry (tarn/status.h):
// kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kSchemaSourceRequired,
                ErrorCode("schema_source_required", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kSourcesDisagree,
                ErrorCode("sources_disagree", ErrorKind::kInvalidArgument, "column files").Exit(3));
TARN_ERROR_CODE(kAllNull, ErrorCode("all_null", ErrorKind::kInvalidArgument, "column"));
// A warning of a plan: how inference typed a column whose values hold objects (STRUCT, MAP or
// JSON) or that it kept as JSON, and why (formats/infer.h).
TARN_ERROR_CODE(kInferredNested,
                ErrorCode("inferred_nested", ErrorKind::kInvalidArgument, "column"));
TARN_ERROR_CODE(kUnsupportedConversion,
                ErrorCode("unsupported_conversion", ErrorKind::kInvalidArgument, "column"));
TARN_ERROR_CODE(kContractStale,
                ErrorCode("contract_stale", ErrorKind::kStale, "diff written_rows"));
TARN_ERROR_CODE(kContractNotAccepted,
                ErrorCode("contract_not_accepted", ErrorKind::kFailedPrecondition,
                          "state contract_id"));
TARN_ERROR_CODE(kContractWriting,
                ErrorCode("contract_writing", ErrorKind::kFailedPrecondition, "state"));
TARN_ERROR_CODE(kProposalChanged, ErrorCode("proposal_changed", ErrorKind::kStale, "fingerprint"));
TARN_ERROR_CODE(kContractExpired, ErrorCode("contract_expired", ErrorKind::kExpired, "expired_at"));
TARN_ERROR_CODE(kAlreadyCommitted,
                ErrorCode("already_committed", ErrorKind::kFailedPrecondition, "snapshot_id"));
TARN_ERROR_CODE(kNotAuthorized, ErrorCode("not_authorized", ErrorKind::kPermissionDenied,
                                          "contract_id needed_role"));
TARN_ERROR_CODE(kContractNotFound,
                ErrorCode("contract_not_found", ErrorKind::kNotFound, "contract_id"));
TARN_ERROR_CODE(kCommitInProgress, ErrorCode("commit_in_progress", ErrorKind::kConflict));
TARN_ERROR_CODE(kNothingWritten,
                ErrorCode("nothing_written", ErrorKind::kFailedPrecondition, "state"));
TARN_ERROR_CODE(kSamplesTooLarge, ErrorCode("samples_too_large", ErrorKind::kTooLarge));
TARN_ERROR_CODE(kInvalidType,
                ErrorCode("invalid_type", ErrorKind::kInvalidArgument, "column type"));
TARN_ERROR_CODE(kUnknownColumn, ErrorCode("unknown_column", ErrorKind::kInvalidArgument, "column"));
TARN_ERROR_CODE(kRetypeNotAllowed,
                ErrorCode("retype_not_allowed", ErrorKind::kInvalidArgument, "column"));

}  // namespace tarn::codes
