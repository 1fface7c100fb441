// Fast paths for the common spellings of dates, timestamps, decimals, floats and booleans in text
// inputs (the CSV reader's per-value conversion). Each either produces exactly what the full
// parser of types/value_text.h would, or returns false and leaves the text to that parser (which
// also words the errors); csv_fast_paths_test.cc holds them to that.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>

#include "tarn/data_type.h"
#include "types/value_text.h"

namespace tarn::formats::internal {

// The digit at s[i] as 0..9, or a value > 9.
inline unsigned DigitAt(const char* s, size_t i) {
  return static_cast<unsigned>(static_cast<unsigned char>(s[i])) - '0';
}

// Days since 1970-01-01 of a date of year 1..9999 (the civil-from-days inverse, years counted
// from March so the leap day ends the year).
inline int64_t FastDaysFromCivil(int year, int month, int day) {
  const int y = year - (month <= 2 ? 1 : 0);  // >= 0
  const int era = y / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int64_t>(era) * 146097 + doe - 719468;
}

// "YYYY-MM-DD" at s (10 bytes available), year 0001..9999.
inline bool FastDate(const char* s, int64_t* days) {
  if (s[4] != '-' || s[7] != '-') return false;
  const unsigned y0 = DigitAt(s, 0), y1 = DigitAt(s, 1), y2 = DigitAt(s, 2), y3 = DigitAt(s, 3);
  const unsigned m0 = DigitAt(s, 5), m1 = DigitAt(s, 6), d0 = DigitAt(s, 8), d1 = DigitAt(s, 9);
  if ((y0 > 9) | (y1 > 9) | (y2 > 9) | (y3 > 9) | (m0 > 9) | (m1 > 9) | (d0 > 9) | (d1 > 9)) {
    return false;
  }
  const int year = static_cast<int>(y0 * 1000 + y1 * 100 + y2 * 10 + y3);
  const int month = static_cast<int>(m0 * 10 + m1);
  const int day = static_cast<int>(d0 * 10 + d1);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) {
    return false;
  }
  *days = FastDaysFromCivil(year, month, day);
  return true;
}

inline bool FastParseDate(std::string_view s, int32_t* out) {
  int64_t days;
  if (s.size() != 10 || !FastDate(s.data(), &days)) return false;
  *out = static_cast<int32_t>(days);
  return true;
}

// "YYYY-MM-DD[T ]HH:MM:SS[.f...][Z]" in `unit`: a trailing Z only when `zoned` (TIMESTAMPTZ,
// where no zone also means UTC); at most as many fraction digits as the unit holds.
inline bool FastParseTimestamp(std::string_view s, TimeUnit unit, bool zoned, int64_t* out) {
  const size_t n = s.size();
  if (n < 19) return false;
  const char* p = s.data();
  int64_t days;
  if (!FastDate(p, &days)) return false;
  if ((p[10] != 'T' && p[10] != ' ') || p[13] != ':' || p[16] != ':') return false;
  const unsigned h0 = DigitAt(p, 11), h1 = DigitAt(p, 12), i0 = DigitAt(p, 14), i1 = DigitAt(p, 15),
                 s0 = DigitAt(p, 17), s1 = DigitAt(p, 18);
  if ((h0 > 9) | (h1 > 9) | (i0 > 9) | (i1 > 9) | (s0 > 9) | (s1 > 9)) return false;
  const int64_t hour = h0 * 10 + h1, minute = i0 * 10 + i1, second = s0 * 10 + s1;
  if (hour > 23 || minute > 59 || second > 59) return false;
  size_t end = n;
  if (p[end - 1] == 'Z') {
    if (!zoned) return false;
    --end;
  }
  int max_digits;
  int64_t per;
  switch (unit) {
    case TimeUnit::kSecond:
      max_digits = 0, per = 1;
      break;
    case TimeUnit::kMilli:
      max_digits = 3, per = 1000;
      break;
    case TimeUnit::kMicro:
      max_digits = 6, per = 1000000;
      break;
    default:
      return false;  // nanoseconds: the full parser checks the range
  }
  int64_t fraction = 0;
  size_t i = 19;
  if (i < end) {
    if (p[i] != '.') return false;
    ++i;
    const size_t begin = i;
    if (end - begin > static_cast<size_t>(max_digits) || end == begin) return false;
    for (; i < end; ++i) {
      const unsigned d = DigitAt(p, i);
      if (d > 9) return false;
      fraction = fraction * 10 + d;
    }
    for (size_t k = end - begin; k < static_cast<size_t>(max_digits); ++k) fraction *= 10;
  }
  // Years 1..9999 in microseconds stay far inside int64.
  *out = (days * 86400 + hour * 3600 + minute * 60 + second) * per + fraction;
  return true;
}

// "[-+]DIGITS[.DIGITS]" with at most 18 digits and at most `scale` fraction digits, whose
// integer part fits DECIMAL(precision, scale).
inline bool FastParseDecimal(std::string_view s, int precision, int scale, int128* out) {
  const size_t n = s.size();
  size_t i = 0;
  bool negative = false;
  if (n > 0 && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    i = 1;
  }
  const size_t int_begin = i;
  uint64_t int_part = 0;
  for (; i < n; ++i) {
    const unsigned d = DigitAt(s.data(), i);
    if (d > 9) break;
    int_part = int_part * 10 + d;
  }
  const size_t int_digits = i - int_begin;
  if (int_digits == 0 || int_digits > 18) return false;
  uint64_t frac_part = 0;
  size_t frac_digits = 0;
  if (i < n) {
    if (s[i] != '.') return false;
    const size_t frac_begin = ++i;
    for (; i < n; ++i) {
      const unsigned d = DigitAt(s.data(), i);
      if (d > 9) return false;
      frac_part = frac_part * 10 + d;
    }
    frac_digits = i - frac_begin;
    if (frac_digits == 0) return false;
  }
  if (int_digits + frac_digits > 18 || frac_digits > static_cast<size_t>(scale)) return false;
  // The integer part must stay below 10^(precision - scale).
  const int int_room = precision - scale;
  if (int_room < 19) {
    uint64_t limit = 1;
    for (int k = 0; k < int_room; ++k) limit *= 10;
    if (int_part >= limit) return false;
  }
  uint128 v = static_cast<uint128>(int_part);
  for (int k = 0; k < scale; ++k) v *= 10;
  uint128 f = frac_part;
  for (size_t k = frac_digits; k < static_cast<size_t>(scale); ++k) f *= 10;
  v += f;
  *out = negative ? -static_cast<int128>(v) : static_cast<int128>(v);
  return true;
}

// A plain decimal or exponent number (what std::from_chars reads, without a sign other than a
// leading '-', and without inf/nan words, which the full parser handles).
template <typename F>
inline bool FastParseFloat(std::string_view s, F* out) {
  if (s.empty()) return false;
  const unsigned first = DigitAt(s.data(), 0);
  if (first > 9 && s[0] != '-' && s[0] != '.') return false;
  if (DigitAt(s.data(), s.size() - 1) > 9) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

inline bool FastParseBoolean(std::string_view s, uint8_t* out) {
  if (s == "true") {
    *out = 1;
    return true;
  }
  if (s == "false") {
    *out = 0;
    return true;
  }
  return false;
}

}  // namespace tarn::formats::internal
