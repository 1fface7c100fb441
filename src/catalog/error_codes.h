// The error codes of the catalog domain.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "sdk/error_codes.h"
#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kAuthorRequired, ErrorCode("author_required", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kChangesExpired,
                ErrorCode("changes_expired", ErrorKind::kExpired, "expired_through"));
TARN_ERROR_CODE(kCollectionNotEmpty,
                ErrorCode("collection_not_empty", ErrorKind::kFailedPrecondition, "collection"));
TARN_ERROR_CODE(kCollectionNotFound,
                ErrorCode("collection_not_found", ErrorKind::kNotFound, "collection"));
TARN_ERROR_CODE(kColumnNotFound,
                ErrorCode("column_not_found", ErrorKind::kInvalidArgument, "column"));
TARN_ERROR_CODE(kCommitConflict, ErrorCode("commit_conflict", ErrorKind::kConflict,
                                           "dataset current_snapshot_id path"));
TARN_ERROR_CODE(kCompactionFilterNotPartition, ErrorCode("compaction_filter_not_partition",
                                                         ErrorKind::kInvalidArgument, "column"));
TARN_ERROR_CODE(kDatasetNotFound, ErrorCode("dataset_not_found", ErrorKind::kNotFound, "dataset"));
TARN_ERROR_CODE(kDeletionProtected, ErrorCode("deletion_protected", ErrorKind::kFailedPrecondition,
                                              "workspace dataset"));
TARN_ERROR_CODE(kFederationRuleExists,
                ErrorCode("federation_rule_exists", ErrorKind::kAlreadyExists));
TARN_ERROR_CODE(kFederationRuleNotFound,
                ErrorCode("federation_rule_not_found", ErrorKind::kNotFound, "id"));
TARN_ERROR_CODE(kFileChanged, ErrorCode("file_changed", ErrorKind::kConflict, "path"));
TARN_ERROR_CODE(kFileNotFound, ErrorCode("file_not_found", ErrorKind::kInvalidArgument, "path"));
TARN_ERROR_CODE(kFileSizeMismatch,
                ErrorCode("file_size_mismatch", ErrorKind::kInvalidArgument, "path"));
TARN_ERROR_CODE(kIncarnationChanged,
                ErrorCode("incarnation_changed", ErrorKind::kStale, "dataset dataset_uuid"));
TARN_ERROR_CODE(kInvalidClient, ErrorCode("invalid_client", ErrorKind::kUnauthenticated));
TARN_ERROR_CODE(kInvalidIssuer, ErrorCode("invalid_issuer", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kInvalidLocation,
                ErrorCode("invalid_location", ErrorKind::kInvalidArgument, "prefix"));
TARN_ERROR_CODE(kInvalidPattern,
                ErrorCode("invalid_pattern", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kInvalidProperty,
                ErrorCode("invalid_property", ErrorKind::kInvalidArgument, "property"));
TARN_ERROR_CODE(kInvalidSubject,
                ErrorCode("invalid_subject", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kLocationInUse,
                ErrorCode("location_in_use", ErrorKind::kFailedPrecondition, "prefix"));
TARN_ERROR_CODE(kLocationNotFound, ErrorCode("location_not_found", ErrorKind::kNotFound, "prefix"));
TARN_ERROR_CODE(kNoRows, ErrorCode("no_rows", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kNotARegularFile,
                ErrorCode("not_a_regular_file", ErrorKind::kInvalidArgument, "path"));
TARN_ERROR_CODE(kNotParquet, ErrorCode("not_parquet", ErrorKind::kInvalidArgument, "path"));
TARN_ERROR_CODE(kOffsetOutOfRange, ErrorCode("offset_out_of_range", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kOffsetRegression,
                ErrorCode("offset_regression", ErrorKind::kFailedPrecondition, "offset"));
TARN_ERROR_CODE(kPathNotOwned, ErrorCode("path_not_owned", ErrorKind::kPermissionDenied, "path"));
TARN_ERROR_CODE(kPathOutsideWarehouse,
                ErrorCode("path_outside_warehouse", ErrorKind::kInvalidArgument, "path"));
TARN_ERROR_CODE(kPromotionNotLossless,
                ErrorCode("promotion_not_lossless", ErrorKind::kInvalidArgument, "column"));
TARN_ERROR_CODE(kPropertyReserved,
                ErrorCode("property_reserved", ErrorKind::kInvalidArgument, "property"));
TARN_ERROR_CODE(kReservedName, ErrorCode("reserved_name", ErrorKind::kInvalidArgument, "tag"));
TARN_ERROR_CODE(kSecureObjectNotFound,
                ErrorCode("secure_object_not_found", ErrorKind::kNotFound, "workspace object"));
TARN_ERROR_CODE(kSnapshotExpired,
                ErrorCode("snapshot_expired", ErrorKind::kExpired, "dataset expired_through"));
TARN_ERROR_CODE(kSnapshotNotFound,
                ErrorCode("snapshot_not_found", ErrorKind::kNotFound, "dataset"));
TARN_ERROR_CODE(kSpecChanged, ErrorCode("spec_changed", ErrorKind::kConflict, "dataset"));
TARN_ERROR_CODE(kStatsMismatch, ErrorCode("stats_mismatch", ErrorKind::kCorruption, "path"));
TARN_ERROR_CODE(kTagNotFound, ErrorCode("tag_not_found", ErrorKind::kNotFound, "tag"));
TARN_ERROR_CODE(kTokenExists, ErrorCode("token_exists", ErrorKind::kAlreadyExists, "client_id"));
TARN_ERROR_CODE(kTokenNotFound, ErrorCode("token_not_found", ErrorKind::kNotFound, "client_id"));
TARN_ERROR_CODE(kWorkspaceNotEmpty,
                ErrorCode("workspace_not_empty", ErrorKind::kFailedPrecondition, "workspace"));
TARN_ERROR_CODE(kWorkspaceNotFound,
                ErrorCode("workspace_not_found", ErrorKind::kNotFound, "workspace"));

}  // namespace tarn::codes
