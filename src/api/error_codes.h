// The error codes of the HTTP API's wire format, raised on both sides of it.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kAmbiguousSelector, ErrorCode("ambiguous_selector", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kBadFrame, ErrorCode("bad_frame", ErrorKind::kCorruption));
TARN_ERROR_CODE(kFrameTooLarge, ErrorCode("frame_too_large", ErrorKind::kTooLarge));
TARN_ERROR_CODE(kInvalidBase64, ErrorCode("invalid_base64", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kInvalidIdentifier,
                ErrorCode("invalid_identifier", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kInvalidToken, ErrorCode("invalid_token", ErrorKind::kUnauthenticated, "reason"));
TARN_ERROR_CODE(kInvalidValue, ErrorCode("invalid_value", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kMalformedJson,
                ErrorCode("malformed_json", ErrorKind::kInvalidArgument, "field").Http(400));
TARN_ERROR_CODE(kMissingField, ErrorCode("missing_field", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kOutOfRange, ErrorCode("out_of_range", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kUnknownField, ErrorCode("unknown_field", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kWrongType, ErrorCode("wrong_type", ErrorKind::kInvalidArgument, "field"));

}  // namespace tarn::codes
