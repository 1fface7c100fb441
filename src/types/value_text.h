// Text forms of scalar values: parsing (casts from VARCHAR, CSV upload) and the canonical
// formatting used by `tarn parquet cat` and casts to VARCHAR.
//
// Parsers trim ASCII whitespace (space, tab, CR, LF) around the value, never allocate on
// success, and return kInvalidArgument quoting the (shortened) text on failure. Formatters
// append to a caller-owned std::string and never fail.
//
// Canonical text forms (each parser reads back what the formatter writes):
//   BOOLEAN      true | false              (parser also: t f yes no y n 1 0, any case)
//   integers     all digits, '-' for negatives
//   FLOAT32/64   shortest round-trip (std::to_chars), NaN, Infinity, -Infinity
//   DECIMAL      exactly `scale` fraction digits: "-0.50"
//   DATE         YYYY-MM-DD; years outside 0000..9999 as -YYYY / +YYYYY (ISO 8601 expanded)
//   TIME         HH:MM:SS[.fraction], fraction omitted when zero, trailing zeros trimmed
//   TIMESTAMP    YYYY-MM-DDTHH:MM:SS[.fraction]
//   TIMESTAMPTZ  the same with a trailing Z (always UTC)
//   UUID         lowercase 8-4-4-4-12
//   IPV4         dotted quad
//   BLOB         base64 (RFC 4648, padded)
//   VARCHAR/JSON the bytes themselves
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

// ---- Calendar (proleptic Gregorian, astronomical years: 0 = 1 BC) ----

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Days since 1970-01-01 of a valid calendar date. Exact for |year| < 2^40.
int64_t DaysFromCivil(int64_t year, int month, int day);
// Inverse of DaysFromCivil. Exact for |days| < 2^50.
CivilDate CivilFromDays(int64_t days);
bool IsLeapYear(int64_t year);
int DaysInMonth(int64_t year, int month);
// 1, 1'000, 1'000'000 or 1'000'000'000.
int64_t UnitsPerSecond(TimeUnit unit);

// ---- Text -> value ----

Result<bool> ParseBoolean(std::string_view text);
// Decimal integer with optional sign; out of range for T is an error. T is one of int8_t ..
// int64_t, uint8_t .. uint64_t.
template <typename T>
Result<T> ParseInteger(std::string_view text);
// Decimal or exponent notation, NaN, Inf, Infinity (any case, optional sign). Magnitudes too
// large for the type are errors; too small ones round to zero.
Result<float> ParseFloat32(std::string_view text);
Result<double> ParseFloat64(std::string_view text);
// Unscaled value of DECIMAL(precision, scale) from "[-+]digits[.digits][e[-+]digits]". Extra
// fraction digits are refused unless they are zeros; values with more than precision - scale
// integer digits are refused. Never rounds.
Result<int128> ParseDecimal(std::string_view text, int precision, int scale);
// ParseDecimal without building a message (for casts and inference, where failures are common).
enum class DecimalParseError { kOk, kSyntax, kTooManyFractionDigits, kOutOfRange };
DecimalParseError TryParseDecimal(std::string_view text, int precision, int scale, int128* out);
// Days since 1970-01-01 from YYYY-MM-DD.
Result<int32_t> ParseDate(std::string_view text);
// Units (microseconds or nanoseconds) since midnight from HH:MM:SS[.fraction]; fraction digits
// finer than the unit must be zeros.
Result<int64_t> ParseTime(std::string_view text, TimeUnit unit = TimeUnit::kMicro);
// Units since the epoch from "YYYY-MM-DD[(T| )HH:MM:SS[.fraction]]". A zone offset is refused
// (the value has no zone). A fraction finer than `unit` is refused unless its extra digits
// are zeros.
Result<int64_t> ParseTimestamp(std::string_view text, TimeUnit unit);
// As ParseTimestamp, plus an optional zone "Z", "+HH:MM", "+HHMM" or "+HH" (or '-'); the
// result is UTC. Text without a zone is taken as UTC.
Result<int64_t> ParseTimestampTz(std::string_view text, TimeUnit unit);
// Canonical 8-4-4-4-12 hex, any case, hyphens required; bytes in printed order.
Result<std::array<uint8_t, 16>> ParseUuid(std::string_view text);
// a.b.c.d, each 0..255 without leading zeros.
Result<uint32_t> ParseIpv4(std::string_view text);
// OK when `text` is one valid JSON document (RFC 8259).
Status ValidateJson(std::string_view text);
// RFC 4648 base64, with or without '=' padding.
Result<std::string> DecodeBase64(std::string_view text);
// Whether `bytes` is well-formed UTF-8 (no surrogates, no overlongs, <= U+10FFFF).
bool IsValidUtf8(std::string_view bytes);

// Parses `text` as a value of out->type and appends it to `out`. VARCHAR and JSON are taken
// as they are (not trimmed) after checking UTF-8 (and, for JSON, syntax); BLOB is base64.
// ARRAY, STRUCT and MAP are parsed from their JSON rendering (json_render.h; a MAP also from a
// JSON object with text keys); a STRUCT refuses unknown members, absent members are null. On
// error nothing is appended.
Status AppendParsedValue(std::string_view text, Column* out);

// ---- Value -> text ----

// Upper bounds of the formatted lengths, for stack buffers.
constexpr size_t kMaxDecimalChars = 42;  // sign, 38 digits, '.', leading "0"
constexpr size_t kMaxFloatChars = 32;

void AppendInt64(int64_t v, std::string* out);
void AppendUInt64(uint64_t v, std::string* out);
// Shortest text that reads back to the same value; NaN, Infinity, -Infinity.
void AppendFloat64(double v, std::string* out);
void AppendFloat32(float v, std::string* out);
// Writes the unscaled `v` with exactly `scale` (0..38) fraction digits into buf (at least
// kMaxDecimalChars bytes); returns the length. Any int128, even beyond 38 digits, is safe.
size_t FormatDecimal(int128 v, int scale, char* buf);
void AppendDecimal(int128 v, int scale, std::string* out);
void AppendDate(int64_t days, std::string* out);
// `value` in `unit` (TIME's: us or ns) since midnight.
void AppendTime(int64_t value, TimeUnit unit, std::string* out);
// `value` in `unit` since the epoch; appends 'Z' when `utc` is true.
void AppendTimestamp(int64_t value, TimeUnit unit, bool utc, std::string* out);
void AppendUuid(const uint8_t* bytes16, std::string* out);
void AppendIpv4(uint32_t v, std::string* out);
void AppendBase64(std::string_view bytes, std::string* out);

// Appends the canonical text of row `row` of `col`. Precondition: the row is valid (not null).
// ARRAY is written as its JSON rendering (json_render.h).
void AppendValueText(const Column& col, int64_t row, std::string* out);
std::string ValueText(const Column& col, int64_t row);

}  // namespace tarn
