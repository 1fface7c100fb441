// Schema inference from samples (U3): what the first few MiB of a CSV or NDJSON file, or the
// footer of a Parquet file, say about its columns.
//
// A sample is a prefix of the file as stored (compressed when the file is), or for Parquet the
// tail holding the footer. The prefix is decoded as far as it goes (a truncated compressed
// stream is not an error here) and cut at the last complete record, unless it is the whole
// file.
//
// Type rules for text values (CSV fields, NDJSON strings), over every non-null value of a
// column, first rule that matches all of them:
//   BOOLEAN     true/false (any case)  [not 0/1, not yes/no]
//   INT64       optional sign, digits, fits in int64 (no leading zeros except "0")
//   DECIMAL(p,s) digits '.' digits with the same scale s >= 1 in every value, p <= 38
//   FLOAT64     any other number (exponents, mixed scales, inf/nan words are not numbers)
//   DATE        YYYY-MM-DD
//   TIMESTAMPTZ ISO 8601 / "YYYY-MM-DD HH:MM:SS[.f]" with Z or an offset in every value
//   TIMESTAMP   the same without a zone in every value (mixed zoned/unzoned: VARCHAR)
//               unit: microseconds, nanoseconds when a fraction has more than 6 digits
//   UUID        8-4-4-4-12 hex
//   IPV4        dotted quad, each part 0..255
//   VARCHAR     anything else
// NDJSON values: JSON booleans BOOLEAN, integers INT64, numbers with a fraction by the numeric
// rules above, strings by the text rules; a column mixing scalar kinds (e.g. number and string)
// is VARCHAR unless all are numbers. Objects and arrays, in a column and again at every level
// inside them (each member, element or map value typed over all its values like a column):
//   arrays      ARRAY<T>, T over every element of every array (only empty arrays: JSON)
//   objects     STRUCT<...>: a member per key in first-seen order; a key missing from some
//               objects is a member like the others, null where missing
//   objects whose keys look like data: more than 64 distinct keys, or keys that appear in under
//               10% of the objects on average (keys_used / (distinct keys * objects)) ->
//               MAP<VARCHAR, T> when the values give one type T (scalars widening as for a
//               column), else JSON
//   JSON instead of the above for the values at one place: objects, arrays and scalars mixed
//               there (objects in some rows, strings or arrays in others); only empty objects;
//               an object holding one key twice; keys that cannot be STRUCT members (empty, two
//               equal ignoring ASCII case, or refused by InferOptions::member_name); objects or
//               arrays more than 10 levels deep
// InferredColumn::note says which of these happened where, and why.
// Nulls: empty CSV fields, null/NULL (CSV, unquoted), JSON null; a column with only nulls is
// VARCHAR (all_null = true).
// Parquet: the file's own types (parquet/schema_from_parquet.h); the sample value comes from the
// first row group's min statistic when present.
// Integers are never inferred narrower than INT64: narrower types only when declared.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/io.h"
#include "formats/decompress.h"
#include "formats/format.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn::formats {

struct InferOptions {
  // Values looked at per column at most (the rest of the sample only counts rows).
  int64_t max_rows = 100000;
  std::optional<char> delimiter;                // CSV; unset: detected
  std::optional<bool> header;                   // CSV; unset: detected (see InferredSchema)
  std::optional<InputCompression> compression;  // unset: by suffix of the name
  // NDJSON: a rule for STRUCT member names besides non-empty and unique ignoring case (the
  // upload service passes the dataset column-name rule); an object with a key it refuses is
  // typed JSON, its message in the note. Unset: any name.
  std::function<Status(std::string_view)> member_name;
};

struct InferredColumn {
  std::string name;
  DataType type;
  std::string sample;  // the first non-null value as text ("" when all_null)
  int64_t values = 0;  // non-null values looked at
  int64_t nulls = 0;
  bool all_null = false;
  // NDJSON: why the type is what it is where values were objects, or were kept as JSON, one
  // "path: decision: reason" per place joined by "; " ("objects of one shape: STRUCT of 3
  // members; items[]: objects of one shape: ...; attrs: MAP<VARCHAR, INT64>: ..."); "" for
  // other columns.
  std::string note;
};

struct InferredSchema {
  Format format = Format::kCsv;
  InputCompression compression = InputCompression::kNone;
  std::vector<InferredColumn> columns;  // in file order
  int64_t rows = 0;                     // complete records in the sample
  int64_t sample_bytes = 0;             // decoded bytes used (through the last complete record)
  bool truncated = false;               // the sample ended before the file did
  // CSV only: the delimiter used and whether the first row was taken as a header. A header is
  // detected when some field of the first row is not a valid value of its column's type as
  // inferred from the other rows (e.g. "id" over integers), or when every first-row field is a
  // non-numeric identifier-like string and the column has other values; a headerless file gets
  // column names column_1, column_2, ...
  char delimiter = ',';
  bool header = true;
  Schema ToSchema() const;  // nullable fields, ids -1
};

// Infers the columns of a sample. `name` gives format and compression by suffix, as for
// DetectFormat. `whole_file` says the bytes are the entire file. `file` is the Parquet tail
// (footer) or the prefix. Errors: format_unreadable (kInvalidArgument) for bytes that are not
// the format, a CSV sample with no complete record, a Parquet tail without a whole footer.
Result<InferredSchema> InferSample(std::string_view name, std::string_view bytes, bool whole_file,
                                   const InferOptions& options = {});

// The type a single text value would be inferred as (VARCHAR when nothing narrower fits);
// exposed for tests and for the plan's "from" of a retyped column.
DataType InferTextValue(std::string_view value);

// A sequential input already open as a stream of the file's raw bytes (for example an HTTP
// request body), read as `format` into batches of `target`. CSV and NDJSON only (Parquet needs
// random access: spool it to a file first). `compression` decodes the raw bytes.
Result<std::unique_ptr<BatchReader>> OpenStreamBatchReader(std::unique_ptr<InputStream> raw,
                                                           std::string_view name, Format format,
                                                           InputCompression compression,
                                                           const Schema& target,
                                                           const ReadOptions& options = {});

}  // namespace tarn::formats
