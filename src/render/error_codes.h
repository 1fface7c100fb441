// The error codes of the texts a person types that the renderers parse (column declarations
// and type assignments of `tarn push` and the full-screen app). Each is the "code" field of a
// Status (Status::Of(codes::kX, message)) and is registered in tarn::ErrorRegistry
// (tarn/status.h).
#pragma once

#include "tarn/status.h"

namespace tarn::codes {

TARN_ERROR_CODE(kBadDeclaration,
                ErrorCode("bad_declaration", ErrorKind::kInvalidArgument, "column").NotServed());
TARN_ERROR_CODE(
    kBadTypeAssignment,
    ErrorCode("bad_type_assignment", ErrorKind::kInvalidArgument, "column").NotServed());

}  // namespace tarn::codes
