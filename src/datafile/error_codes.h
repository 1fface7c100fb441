// The error codes of data files in the warehouse.
// Each is the "code" field of a Status (Status::Of(codes::kX, message)) and is registered in
// tarn::ErrorRegistry (tarn/status.h): kind, HTTP status, exit code, retryability, fields.
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kFileMetadataMismatch,
                ErrorCode("file_metadata_mismatch", ErrorKind::kCorruption, "path"));

}  // namespace tarn::codes
