// tarn types as Iceberg sees them: the type mapping, the binary single-value encoding of
// column bounds (Iceberg spec, Appendix D) and the bucket hash (Appendix B).
//
// Mapping (tarn -> Iceberg):
//   BOOLEAN -> boolean; INT8, INT16, INT32, UINT8, UINT16 -> int; INT64, UINT32 -> long;
//   UINT64 -> decimal(20,0); FLOAT32 -> float; FLOAT64 -> double; DECIMAL(p,s) -> decimal(p,s);
//   VARCHAR, JSON -> string; BLOB -> binary; DATE -> date; TIME -> time;
//   TIME[ns] -> none: Iceberg's time is microseconds only. tarn's own manifests keep its bounds
//   as 8-byte little-endian nanoseconds (as timestamp_ns does) and its bucket hash is that of
//   the microseconds rounded down; IcebergTypeName says "time_ns" (not an Iceberg name);
//   TIMESTAMP[s|ms|us] -> timestamp; TIMESTAMP[ns] -> timestamp_ns;
//   TIMESTAMPTZ[s|ms|us] -> timestamptz; TIMESTAMPTZ[ns] -> timestamptz_ns; UUID -> uuid;
//   IPV4 -> long (the address as an unsigned 32-bit number, so ordering is kept);
//   ARRAY<T> -> list<T>.
// Iceberg has no second or millisecond timestamps: TIMESTAMP[s] and [ms] values are written as
// microseconds (bounds, hashes), saturating at the int64 limits, which keeps bounds valid.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

// Iceberg's name of the type (Appendix C spelling, e.g. "decimal(20,0)", "timestamptz_ns").
// ARRAY<T> gives "list<name of T>", for messages only (Iceberg writes lists as JSON objects).
std::string IcebergTypeName(const DataType& type);

// Appendix D encoding of row `row` of `col` (a valid row of a scalar column). Empty for ARRAY.
std::string EncodeBound(const Column& col, int64_t row);
// The same from one value's in-memory form: PhysicalWidth() bytes for fixed-width types, the
// value bytes for VARCHAR/BLOB/JSON. Empty when `physical` has the wrong size or for ARRAY.
std::string EncodeBoundPhysical(const DataType& type, std::string_view physical);

// Decodes an Appendix D value into a one-row column of `type`. Accepts 4-byte int bounds for
// long-mapped types and 4-byte float bounds for FLOAT64 (Iceberg type promotion). Second and
// millisecond timestamps are rounded down from microseconds (still a valid bound).
// Errors: kCorruption when the bytes have the wrong size or the value does not fit `type`;
// kInvalidArgument for ARRAY.
Result<Column> DecodeBound(const DataType& type, std::string_view bytes);

// Whether Iceberg's bucket transform accepts the type (not BOOLEAN, FLOAT32/64 or ARRAY).
bool IsIcebergBucketable(const DataType& type);

// Appendix B 32-bit hash of row `row` of `col` (murmur3_x86_32, seed 0): integers, DATE,
// TIME, IPV4 as 8-byte little-endian longs; timestamps as microseconds (nanoseconds rounded
// down); DECIMAL and UINT64 as the minimal big-endian two's-complement unscaled bytes;
// strings as UTF-8; UUID as its 16 bytes; BLOB as is. BOOLEAN, FLOAT32 and FLOAT64 follow the
// spec's table for types not valid for bucketing. ARRAY: 0.
int32_t IcebergBucketHash(const Column& col, int64_t row);
int32_t IcebergBucketHashPhysical(const DataType& type, std::string_view physical);

// Iceberg's bucket[N] transform of a hash: (hash & INT32_MAX) % n; 0 when n <= 0.
int32_t BucketTransform(int32_t hash, int32_t n);

}  // namespace tarn
