// Helpers of the access-control tables for other catalog .cc files (the commit engine writes
// a commit's audit row in the commit's own transaction). Not part of the catalog's interface.
#pragma once

#include "common/clock.h"
#include "metastore/metastore.h"
#include "tarn/access.h"

namespace tarn::catalog_internal {

// Checks one audit record (action and outcome set, detail a JSON object, sane sizes):
// kInvalidArgument naming the field otherwise.
Status ValidateAuditRecord(const AuditRecord& r);
// Inserts one audit row in `tx` (at_us 0 = now). Validates first.
Status InsertAuditRecord(Transaction& tx, const AuditRecord& r,
                         const Clock& clock = *Clock::Real());

}  // namespace tarn::catalog_internal
