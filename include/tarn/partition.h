// Partition specs and Iceberg partition transforms (Iceberg spec, "Partition Transforms").
//
// Transforms are bit-exact with Iceberg: bucket through types/iceberg.h; truncate floors
// integers to a multiple of W (negative values floor too), cuts strings to W code points,
// binary to W bytes, decimals on the unscaled value; year/month/day/hour are epoch-relative
// and floored for DATE, TIMESTAMP and TIMESTAMPTZ of any unit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

enum class TransformKind : uint8_t {
  kIdentity,
  kBucket,
  kTruncate,
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid
};

struct Transform {
  TransformKind kind = TransformKind::kIdentity;
  int32_t param = 0;  // N of bucket[N], W of truncate[W]
  // Iceberg spelling: "identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour",
  // "void". Errors: kInvalidArgument.
  static Result<Transform> Parse(std::string_view text);
  std::string ToString() const;  // Iceberg spelling
  // year/month/day/hour/bucket -> INT32; identity/truncate/void -> the source type.
  // kInvalidArgument when the transform does not apply to `source`.
  Result<DataType> ResultType(const DataType& source) const;
  // Whether source order is preserved (a <= b implies t(a) <= t(b)): all but bucket and void.
  bool IsMonotone() const;
  bool operator==(const Transform&) const = default;
};

struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  Transform transform;
  bool operator==(const PartitionField&) const = default;
};

struct PartitionSpec {
  int32_t spec_id = 0;
  std::vector<PartitionField> fields;  // empty = unpartitioned
  bool unpartitioned() const { return fields.empty(); }
  // "bucket(16, id), month(ts), region, truncate(4, name), identity(x), day(ts), void(x)"; field
  // ids from 1000 up, names like Iceberg: id_bucket, ts_month, region, name_trunc, x, ts_day,
  // x_null. A source may be a STRUCT member by its dotted path (`bucket(8, p.user_id)`, named
  // `p.user_id_bucket`). Errors: kInvalidArgument for syntax, unknown columns, inapplicable
  // transforms and duplicate partition fields.
  static Result<PartitionSpec> Parse(std::string_view text, const Schema& schema,
                                     int32_t spec_id = 0);
  std::string ToString(const Schema& schema) const;  // the same syntax back
  // Iceberg JSON {"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"name":"id_bucket",
  // "transform":"bucket[16]"}]}
  std::string ToJson() const;
  static Result<PartitionSpec> FromJson(std::string_view json);
  bool operator==(const PartitionSpec&) const = default;
};

// One partition value per row: the transformed values as a Column of ResultType.
// Errors: kInvalidArgument when the transform does not apply to source.type.
Result<Column> ApplyTransform(const Transform& transform, const Column& source);

// Partition values of a data file: one entry per spec field, the canonical text (FormatValue of
// types/value_text.h) of the transformed value, nullopt for null.
using PartitionValues = std::vector<std::optional<std::string>>;
std::string PartitionValuesToJson(const PartitionValues& values);  // ["3", null, "654"]
Result<PartitionValues> PartitionValuesFromJson(std::string_view json);

// The rows of one partition of a batch.
struct PartitionGroup {
  PartitionValues values;
  std::vector<int64_t> rows;  // ascending
};
// Splits the rows of `batch` by partition tuple under `spec`. Source columns are found by field
// id (batch.schema.fields[i].field_id). Groups come in order of first appearance; an
// unpartitioned spec gives one group of all rows (none for an empty batch).
// Errors: kInvalidArgument when a source column is missing or a transform does not apply.
Result<std::vector<PartitionGroup>> GroupByPartition(const PartitionSpec& spec,
                                                     const RecordBatch& batch);

// Hive-style relative path of a partition, "id_bucket=3/ts_month=2024-01" (month, day and hour
// values written like Iceberg's human strings, null as "null", other bytes percent-escaped).
// Empty for an unpartitioned spec. `schema` gives the source types.
std::string PartitionPath(const PartitionSpec& spec, const Schema& schema,
                          const PartitionValues& values);

}  // namespace tarn
