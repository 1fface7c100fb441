// The error codes of the SDK's value functions (src/sdk), which the catalog and the remote
// client both return. Each is the "code" field of a Status (Status::Of(codes::kX, message)) and
// is registered in tarn::ErrorRegistry (tarn/status.h).
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kDatasetExists, ErrorCode("dataset_exists", ErrorKind::kAlreadyExists, "dataset"));
TARN_ERROR_CODE(kInvalidRole, ErrorCode("invalid_role", ErrorKind::kInvalidArgument, "field"));

}  // namespace tarn::codes
