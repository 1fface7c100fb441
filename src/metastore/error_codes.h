// The error codes of the metastore (metastore.cc).
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kMetastorePoolExhausted,
                ErrorCode("metastore_pool_exhausted", ErrorKind::kUnavailable));

}  // namespace tarn::codes
