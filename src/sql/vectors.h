// Moving values between tarn's columns (tarn/column.h) and DuckDB's vectors: the type mapping
// of docs/design/sql.md in one place, both ways. Internal to src/sql.
#pragma once

#include <cstdint>
#include <string_view>

#include "sql/duckdb_api.h"
#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::sql {

// The DuckDB type a tarn type is read as (owned by the caller: duckdb_destroy_logical_type).
//   BOOLEAN, INT8..UINT64, FLOAT32/64, DATE, TIME, VARCHAR, BLOB: the same type
//   TIME[ns]: TIME_NS (nanoseconds since midnight, the same bytes)
//   DECIMAL(p,s): DECIMAL(p,s); UUID: UUID; ARRAY<T>: T[]
//   STRUCT<a: T, ...>: STRUCT(a T, ...); MAP<K, V>: MAP(K, V) (nested to any depth)
//   TIMESTAMP[s|ms|us|ns]: TIMESTAMP_S | TIMESTAMP_MS | TIMESTAMP | TIMESTAMP_NS
//   TIMESTAMPTZ[any unit]: TIMESTAMPTZ (microseconds; [ns] is truncated toward -infinity)
//   JSON: DuckDB's JSON (VARCHAR with the alias JSON); IPV4: VARCHAR 'a.b.c.d'
duckdb_logical_type DuckTypeOf(const DuckDbApi& api, const DataType& type);

// Writes rows [from, from + n) of `col` (whose type DuckTypeOf mapped to the vector's) into
// `vec` at rows [0, n). n <= the vector's capacity. A null STRUCT row is written with a null
// in every member (DuckDB's rule), whatever the tarn column holds there.
void WriteVector(const DuckDbApi& api, duckdb_vector vec, const Column& col, int64_t from,
                 int64_t n);

// The tarn type of a DuckDB result column: the inverse of DuckTypeOf, plus HUGEINT and
// UHUGEINT as DECIMAL(38,0), ENUM as VARCHAR, TIMESTAMPTZ as TIMESTAMPTZ[us], the members of
// an unnamed STRUCT named v1, v2 ... Nested fields are nullable, without ids. Errors:
// sql_unsupported_type (field column) for the rest, at any depth (UNION, INTERVAL, TIME WITH
// TIME ZONE, BIT, fixed-size ARRAY, BIGNUM ...).
Result<DataType> TarnTypeOf(const DuckDbApi& api, duckdb_logical_type type,
                            std::string_view column);

// Appends the `n` rows of `vec` (a flat result vector of `type`, as TarnTypeOf gave it from
// `logical`) to `out`. A null STRUCT row gets a null in every member. Errors: sql_error for a
// HUGEINT beyond DECIMAL(38,0).
Status ReadVector(const DuckDbApi& api, duckdb_vector vec, duckdb_logical_type logical, int64_t n,
                  Column* out);

// The bytes of a DuckDB string value (inlined up to 12 bytes, else a pointer).
std::string_view StringOf(const duckdb_string_t& s);

}  // namespace tarn::sql
