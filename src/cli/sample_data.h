// A deterministic sample batch with a column of every tarn type, nulls and arrays, for
// `tarn parquet write-sample` (the demo) and for tests that need realistic data.
#pragma once

#include <cstdint>

#include "tarn/column.h"

namespace tarn::cli {

RecordBatch MakeSampleBatch(int64_t rows);

}  // namespace tarn::cli
