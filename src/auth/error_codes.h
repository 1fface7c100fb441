// The error codes of bearer tokens and the token authority.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kBadDiscovery, ErrorCode("bad_discovery", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kBadJwk, ErrorCode("bad_jwk", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kBadJwks, ErrorCode("bad_jwks", ErrorKind::kInvalidArgument));
TARN_ERROR_CODE(kIssuerUnavailable, ErrorCode("issuer_unavailable", ErrorKind::kUnavailable));
TARN_ERROR_CODE(kTokenRevoked, ErrorCode("token_revoked", ErrorKind::kUnauthenticated));
TARN_ERROR_CODE(kUnsupportedGrantType,
                ErrorCode("unsupported_grant_type", ErrorKind::kInvalidArgument, "field"));

}  // namespace tarn::codes
