// The error codes of `tarn serve`: the transport, routes and limits.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kBindFailed, ErrorCode("bind_failed", ErrorKind::kUnavailable).NotServed());
TARN_ERROR_CODE(kClientGone, ErrorCode("client_gone", ErrorKind::kCancelled).NotServed());
TARN_ERROR_CODE(kHeaderTooLarge, ErrorCode("header_too_large", ErrorKind::kTooLarge).Http(431));
TARN_ERROR_CODE(kIncompleteBody,
                ErrorCode("incomplete_body", ErrorKind::kInvalidArgument).Http(400));
TARN_ERROR_CODE(kInvalidOption,
                ErrorCode("invalid_option", ErrorKind::kInvalidArgument).NotServed());
TARN_ERROR_CODE(kInvalidParameter,
                ErrorCode("invalid_parameter", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kInvalidRequest,
                ErrorCode("invalid_request", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kMalformedRequest,
                ErrorCode("malformed_request", ErrorKind::kInvalidArgument).Http(400));
TARN_ERROR_CODE(kMethodNotAllowed,
                ErrorCode("method_not_allowed", ErrorKind::kInvalidArgument, "allow").Http(405));
TARN_ERROR_CODE(kOverloaded, ErrorCode("overloaded", ErrorKind::kUnavailable));
TARN_ERROR_CODE(kRangeNotSatisfiable,
                ErrorCode("range_not_satisfiable", ErrorKind::kInvalidArgument, "size").Http(416));
TARN_ERROR_CODE(kRequestTimeout,
                ErrorCode("request_timeout", ErrorKind::kInvalidArgument).Http(408));
TARN_ERROR_CODE(kRouteNotFound, ErrorCode("route_not_found", ErrorKind::kNotFound));
TARN_ERROR_CODE(kShuttingDown, ErrorCode("shutting_down", ErrorKind::kUnavailable));
TARN_ERROR_CODE(kUnknownParameter,
                ErrorCode("unknown_parameter", ErrorKind::kInvalidArgument, "field"));
TARN_ERROR_CODE(kUnsupportedMediaType,
                ErrorCode("unsupported_media_type", ErrorKind::kInvalidArgument).Http(415));
TARN_ERROR_CODE(kUriTooLong, ErrorCode("uri_too_long", ErrorKind::kInvalidArgument).Http(414));

}  // namespace tarn::codes
