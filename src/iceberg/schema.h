// tarn schemas as Iceberg schemas (docs/design/iceberg.md "Types"): what an Iceberg reader of a
// format version sees of each column, and which columns it cannot see.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn::iceberg {

using Json = nlohmann::json;

// The Iceberg format versions written: 2 (every reader) and 3 (nanosecond timestamps, variant,
// unknown, row lineage).
inline constexpr int kMinFormatVersion = 2;
inline constexpr int kMaxFormatVersion = 3;

// A column (or struct member, by dotted path) an Iceberg reader of the version does not see,
// and why.
struct OmittedColumn {
  std::string path;
  std::string reason;
};

// The Iceberg type of `type` in format version `format_version`: a primitive's name ("long",
// "decimal(10,2)", "timestamptz") or a nested type's JSON ({"type":"list",...}, with the nested
// field ids), members Iceberg cannot show left out of a struct (appended to *omitted under
// `path`). nullopt, with the reason in *why, when the type itself has no Iceberg form there (a
// list or map of such a type has none either).
std::optional<Json> IcebergType(const DataType& type, int format_version, const std::string& path,
                                std::vector<OmittedColumn>* omitted, std::string* why);

// {"type":"struct","schema-id":N,"fields":[{"id","name","required","type"}...]}: the columns of
// `schema` an Iceberg reader of `format_version` can see; the others are appended to *omitted.
// Errors: kInvalidArgument for a field without an id (-1) at any level, or a format version
// outside [kMinFormatVersion, kMaxFormatVersion].
Result<Json> SchemaJson(const Schema& schema, int32_t schema_id, int format_version,
                        std::vector<OmittedColumn>* omitted);

// The Parquet footer key under which Iceberg writers keep the schema a file was written with
// (readers that map a file's columns through it find renamed columns by field id).
inline constexpr char kParquetSchemaKey[] = "iceberg.schema";
// SchemaJson of `schema` (format version 3: every column it can type) as compact text, for
// kParquetSchemaKey; nullopt for a schema SchemaJson refuses (a field without an id).
std::optional<std::string> ParquetSchemaJson(const Schema& schema, int32_t schema_id);

}  // namespace tarn::iceberg
