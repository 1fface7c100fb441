// Decoding of column-chunk statistics values (Statistics.min_value/max_value) into tarn values.
#pragma once

#include <string_view>

#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "tarn/column.h"

namespace tarn::parquet {

// Decodes one plain-encoded statistics value of `leaf` (BYTE_ARRAY without a length prefix)
// into a one-row Column of `type` (the leaf's tarn type; for an ARRAY field its innermost
// element type). kCorruption when the bytes do not fit the physical type.
Result<Column> DecodeStatValue(const FileMetaData& md, const LeafColumn& leaf, const DataType& type,
                               std::string_view bytes);

}  // namespace tarn::parquet
