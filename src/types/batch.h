// Whole-batch helpers shared by the modules that queue and copy batches (catalog appends,
// upload writes, the SQL engine).
#pragma once

#include <cstdint>

#include "tarn/column.h"

namespace tarn {

// Bytes a column's buffers hold (values, validity, offsets, nested elements): what bounded
// queues and flush thresholds count.
int64_t ColumnBytes(const Column& c);
int64_t BatchBytes(const RecordBatch& b);

// A deep copy (Column is move-only).
RecordBatch CloneBatch(const RecordBatch& b);

}  // namespace tarn
