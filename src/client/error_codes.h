// The error codes of the remote client: raised on the client side, never sent by a server.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kBadResponse, ErrorCode("bad_response", ErrorKind::kCorruption).NotServed());
TARN_ERROR_CODE(kIdTokenUnavailable,
                ErrorCode("id_token_unavailable", ErrorKind::kUnauthenticated).NotServed());
TARN_ERROR_CODE(kInvalidTokenResponse,
                ErrorCode("invalid_token_response", ErrorKind::kUnauthenticated).NotServed());
TARN_ERROR_CODE(kInvalidUrl, ErrorCode("invalid_url", ErrorKind::kInvalidArgument).NotServed());
TARN_ERROR_CODE(kServerUnreachable,
                ErrorCode("server_unreachable", ErrorKind::kUnavailable, "url").NotServed());
TARN_ERROR_CODE(kTruncatedBody, ErrorCode("truncated_body", ErrorKind::kIOError).NotServed());
TARN_ERROR_CODE(kTruncatedStream, ErrorCode("truncated_stream", ErrorKind::kIOError).NotServed());
TARN_ERROR_CODE(kUnsupportedRemotely,
                ErrorCode("unsupported_remotely", ErrorKind::kInvalidArgument).NotServed());

}  // namespace tarn::codes
