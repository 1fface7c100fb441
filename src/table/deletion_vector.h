// Deletion vectors: the sorted, unique row positions deleted within one data file.
//
// Encoding: a version byte (1), a varint count, then varint deltas (the first position as
// is, then each position minus the previous one minus 1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn {

// Precondition: `positions` sorted ascending and unique (unsorted input is sorted and
// deduplicated first, at a cost).
std::string EncodeDeletionVector(const std::vector<uint64_t>& positions);
// Errors: kCorruption on an unknown version, truncated or overlong varints, positions past
// 2^64-1, a count larger than the bytes can hold, or trailing bytes.
Result<std::vector<uint64_t>> DecodeDeletionVector(std::string_view bytes);
// Sorted union of two sorted unique position lists.
std::vector<uint64_t> UnionPositions(const std::vector<uint64_t>& a,
                                     const std::vector<uint64_t>& b);

}  // namespace tarn
