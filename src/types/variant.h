// Parquet's Variant binary encoding (parquet-format VariantEncoding.md, Iceberg v3's variant):
// the two byte strings of a VARIANT value, its `metadata` (a dictionary of object keys) and its
// `value` (primitive, short string, object or array headers), checked, rendered as JSON and
// built from JSON text.
//
// JSON -> VARIANT (EncodeVariantFromJson): null, true/false, integers as the smallest of int8,
// int16, int32, int64 (integers above INT64_MAX as decimal16 with scale 0), other numbers as
// double, strings as short strings (< 64 bytes) or strings, arrays in order, objects with
// their keys sorted and unique (the last of duplicate keys wins). The metadata dictionary holds
// each key once, sorted (sorted_strings = 1); offsets and field ids take the fewest bytes.
//
// VARIANT -> JSON (AppendVariantJson), every primitive of the spec: null, booleans, integers
// and decimals as JSON numbers with every digit (a decimal with exactly `scale` fraction
// digits), float and double as shortest round-trip numbers ("NaN", "Infinity", "-Infinity" as
// strings), strings as strings, binary as a base64 string, date, time (micros), timestamp and
// timestamp_ntz (micros and nanos) and uuid as strings in tarn's canonical text (value_text.h:
// a timestamp with time zone ends in Z), objects with their keys in the dictionary order the
// encoding lists them (sorted), arrays in order.
//
// Malformed bytes (a bad header or version, an offset or length past the end, a field id
// outside the dictionary, keys not sorted or repeated in one object, invalid UTF-8, a value
// longer or shorter than its bytes, nesting deeper than kMaxVariantDepth, an unknown type) are
// kCorruption saying what is wrong; nothing reads outside the given bytes.
#pragma once

#include <string>
#include <string_view>

#include "tarn/status.h"

namespace tarn {

// Nesting allowed in a value (arrays and objects inside each other), as for JSON input.
inline constexpr int kMaxVariantDepth = 256;

// OK when `metadata` and `value` are one well-formed Variant (every nested value checked).
Status ValidateVariant(std::string_view metadata, std::string_view value);

// Appends the JSON rendering of a Variant. On error (kCorruption) `out` is left as it was.
Status AppendVariantJson(std::string_view metadata, std::string_view value, std::string* out);

// Encodes one JSON document (RFC 8259, UTF-8) as a Variant. kInvalidArgument quoting the text
// when it is not JSON or nests deeper than kMaxVariantDepth.
Status EncodeVariantFromJson(std::string_view json, std::string* metadata, std::string* value);

}  // namespace tarn
