// The error codes of table logic: predicates, schema JSON.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kPredicateTypeMismatch,
                ErrorCode("predicate_type_mismatch", ErrorKind::kInvalidArgument,
                          "column column_type literal_type value"));
TARN_ERROR_CODE(kPredicateInvalidLiteral,
                ErrorCode("predicate_invalid_literal", ErrorKind::kInvalidArgument,
                          "column column_type value"));
TARN_ERROR_CODE(kInvalidName, ErrorCode("invalid_name", ErrorKind::kInvalidArgument));

}  // namespace tarn::codes
