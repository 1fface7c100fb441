// Order-preserving binary keys: memcmp order of the keys equals the value order.
//
// Integers big-endian with the sign bit flipped, floats with the usual bit trick (-NaN < -Inf <
// ... < -0 < +0 < ... < +Inf < NaN; -0 and +0 are distinct keys), DECIMAL as 16-byte two's
// complement with the sign bit flipped, DATE/TIME/TIMESTAMP as their integers, UUID its 16 bytes,
// IPV4 4 bytes big-endian, BOOLEAN one byte, VARCHAR/BLOB/JSON the raw bytes.
// Used for the `partition_key` column of data_files (SQL range pruning).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

// Key of row `row` of a scalar column. A null row (or ARRAY) gives the empty string.
std::string OrderedKey(const Column& col, int64_t row);
// Appends the key of row `row` to *out (no allocation beyond out's growth).
void AppendOrderedKey(const Column& col, int64_t row, std::string* out);
// The key of a value given as its canonical text (value_text.h) in `type`.
// Errors: kInvalidArgument when the text does not parse or for ARRAY.
Result<std::string> OrderedKeyFromText(const DataType& type, std::string_view canonical_text);

}  // namespace tarn
