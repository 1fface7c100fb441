// Iceberg position delete files (format version 2): how tarn's deletion vectors reach readers
// that know no Puffin deletion vectors (docs/design/iceberg.md "Format versions").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn::iceberg {

// The spec's reserved field ids of a position delete file's columns.
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kDeletePosFieldId = 2147483545;

// A Parquet position delete file deleting the rows at `positions` (sorted, unique) of the data
// file at `data_file` (the URI the manifests name it by): columns `file_path` (string) and `pos`
// (long), both required and with their reserved field ids, one row per position, in order, with
// statistics (readers match delete files to data files by the file_path bounds). Errors:
// kInvalidArgument for no position, unsorted or repeated positions, a position past 2^63 - 1.
Result<std::string> PositionDeleteFile(std::string_view data_file,
                                       const std::vector<uint64_t>& positions);

}  // namespace tarn::iceberg
