#include "types/value_text.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/hex.h"
#include "common/utf8.h"
#include "types/json_render.h"
#include "types/variant.h"

namespace tarn {

namespace {

constexpr int64_t kSecondsPerDay = 86400;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsTrimmed(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsTrimmed(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsTrimmed(s.back())) s.remove_suffix(1);
  return s;
}

inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The text as quoted in error messages: at most 64 bytes, cut on a UTF-8 boundary.
std::string Quoted(std::string_view text) {
  constexpr size_t kMax = 64;
  std::string out = "'";
  if (text.size() <= kMax) {
    out.append(text);
  } else {
    out.append(text.substr(0, Utf8Cut(text, kMax)));
    out.append("...");
  }
  out.push_back('\'');
  return out;
}

Status NotValid(std::string_view text, std::string_view type_name, std::string_view why = {}) {
  std::string msg = Quoted(text) + " is not a valid " + std::string(type_name);
  if (!why.empty()) {
    msg.append(": ");
    msg.append(why);
  }
  return Status::InvalidArgument(std::move(msg));
}

Status OutOfRange(std::string_view text, std::string_view type_name, std::string_view range) {
  std::string msg = Quoted(text) + " is out of range for " + std::string(type_name);
  if (!range.empty()) {
    msg.append(" (");
    msg.append(range);
    msg.push_back(')');
  }
  return Status::InvalidArgument(std::move(msg));
}

// Reads exactly `n` digits at s[*i].
bool ReadFixedDigits(std::string_view s, size_t* i, int n, int* value) {
  if (*i + n > s.size()) return false;
  int v = 0;
  for (int k = 0; k < n; ++k) {
    char c = s[*i + k];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *value = v;
  return true;
}

// [+-]YYYY[Y...]-MM-DD at s[*i]; years of 4 to 9 digits. Returns a reason on failure.
const char* ReadDate(std::string_view s, size_t* i, int64_t* days) {
  size_t p = *i;
  bool negative = false;
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    negative = s[p] == '-';
    ++p;
  }
  size_t year_begin = p;
  int64_t year = 0;
  while (p < s.size() && IsDigit(s[p])) {
    if (p - year_begin >= 9) return "the year has more than 9 digits";
    year = year * 10 + (s[p] - '0');
    ++p;
  }
  if (p - year_begin < 4) return "expected YYYY-MM-DD";
  if (negative) year = -year;
  int month = 0, day = 0;
  if (p >= s.size() || s[p] != '-') return "expected YYYY-MM-DD";
  ++p;
  if (!ReadFixedDigits(s, &p, 2, &month)) return "expected YYYY-MM-DD";
  if (p >= s.size() || s[p] != '-') return "expected YYYY-MM-DD";
  ++p;
  if (!ReadFixedDigits(s, &p, 2, &day)) return "expected YYYY-MM-DD";
  if (month < 1 || month > 12) return "the month is not 01..12";
  if (day < 1 || day > DaysInMonth(year, month)) return "no such day in that month";
  *days = DaysFromCivil(year, month, day);
  *i = p;
  return nullptr;
}

// HH:MM:SS[.fraction] at s[*i]; the fraction is returned in nanoseconds (digits past the
// ninth must be zeros).
const char* ReadTimeOfDay(std::string_view s, size_t* i, int64_t* seconds, int64_t* nanos) {
  size_t p = *i;
  int h = 0, m = 0, sec = 0;
  if (!ReadFixedDigits(s, &p, 2, &h) || p >= s.size() || s[p] != ':') {
    return "expected HH:MM:SS";
  }
  ++p;
  if (!ReadFixedDigits(s, &p, 2, &m) || p >= s.size() || s[p] != ':') {
    return "expected HH:MM:SS";
  }
  ++p;
  if (!ReadFixedDigits(s, &p, 2, &sec)) return "expected HH:MM:SS";
  if (h > 23) return "the hour is not 00..23";
  if (m > 59) return "the minute is not 00..59";
  if (sec > 59) return "the second is not 00..59";
  int64_t frac = 0;
  if (p < s.size() && s[p] == '.') {
    ++p;
    size_t begin = p;
    while (p < s.size() && IsDigit(s[p])) {
      size_t k = p - begin;
      if (k < 9) {
        frac = frac * 10 + (s[p] - '0');
      } else if (s[p] != '0') {
        return "more than 9 fraction digits";
      }
      ++p;
    }
    if (p == begin) return "expected digits after '.'";
    for (size_t k = p - begin; k < 9; ++k) frac *= 10;
  }
  *seconds = h * 3600 + m * 60 + sec;
  *nanos = frac;
  *i = p;
  return nullptr;
}

struct TimestampParts {
  int64_t seconds = 0;  // since the epoch, offset applied
  int64_t nanos = 0;    // 0..999'999'999
  bool has_zone = false;
};

const char* ReadTimestamp(std::string_view s, TimestampParts* out) {
  size_t i = 0;
  int64_t days = 0;
  if (const char* why = ReadDate(s, &i, &days)) return why;
  int64_t sod = 0, nanos = 0, offset = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
    size_t t = i + 1;
    if (t < s.size() && IsDigit(s[t])) {
      i = t;
      if (const char* why = ReadTimeOfDay(s, &i, &sod, &nanos)) return why;
    }
  }
  size_t z = i;
  while (z < s.size() && s[z] == ' ') ++z;
  if (z < s.size()) {
    if (s[z] == 'Z' || s[z] == 'z') {
      out->has_zone = true;
      i = z + 1;
    } else if (s[z] == '+' || s[z] == '-') {
      bool negative = s[z] == '-';
      size_t p = z + 1;
      int oh = 0, om = 0;
      if (!ReadFixedDigits(s, &p, 2, &oh)) return "expected a zone offset +HH:MM";
      if (p < s.size() && s[p] == ':') {
        ++p;
        if (!ReadFixedDigits(s, &p, 2, &om)) return "expected a zone offset +HH:MM";
      } else if (p < s.size() && IsDigit(s[p])) {
        if (!ReadFixedDigits(s, &p, 2, &om)) return "expected a zone offset +HHMM";
      }
      if (oh > 23 || om > 59) return "the zone offset is out of range";
      offset = (oh * 3600 + om * 60) * (negative ? -1 : 1);
      out->has_zone = true;
      i = p;
    }
  }
  if (i != s.size()) return "unexpected text after the value";
  out->seconds = days * kSecondsPerDay + sod - offset;
  out->nanos = nanos;
  return nullptr;
}

// `type` names the target type in errors (built only then: this runs once per value).
Result<int64_t> TimestampToUnits(std::string_view text, const TimestampParts& parts, TimeUnit unit,
                                 const DataType& type) {
  const int64_t per = UnitsPerSecond(unit);
  const int64_t nanos_per_unit = kNanosPerSecond / per;
  if (parts.nanos % nanos_per_unit != 0) {
    return NotValid(text, type.ToString(), "the fraction is finer than the unit");
  }
  // seconds * per + fraction, computed so that the int64 minimum itself does not overflow.
  int64_t seconds = parts.seconds;
  int64_t fraction = parts.nanos / nanos_per_unit;
  if (seconds < 0 && fraction > 0) {
    ++seconds;
    fraction -= per;
  }
  int64_t value;
  if (__builtin_mul_overflow(seconds, per, &value) ||
      __builtin_add_overflow(value, fraction, &value)) {
    return OutOfRange(text, type.ToString(), "");
  }
  return value;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

template <typename T>
constexpr std::string_view IntegerTypeName() {
  if constexpr (std::is_same_v<T, int8_t>) return "INT8";
  if constexpr (std::is_same_v<T, int16_t>) return "INT16";
  if constexpr (std::is_same_v<T, int32_t>) return "INT32";
  if constexpr (std::is_same_v<T, int64_t>) return "INT64";
  if constexpr (std::is_same_v<T, uint8_t>) return "UINT8";
  if constexpr (std::is_same_v<T, uint16_t>) return "UINT16";
  if constexpr (std::is_same_v<T, uint32_t>) return "UINT32";
  if constexpr (std::is_same_v<T, uint64_t>) return "UINT64";
}

// Whether text that from_chars found out of range is tiny (rounds to zero) rather than huge:
// the decimal exponent of its first significant digit is negative.
bool IsUnderflow(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  int64_t magnitude = 0;  // position of the first significant digit relative to the point
  bool seen_nonzero = false;
  bool in_fraction = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      in_fraction = true;
    } else if (IsDigit(c)) {
      if (!seen_nonzero && c != '0') seen_nonzero = true;
      if (!in_fraction && seen_nonzero) ++magnitude;
      if (in_fraction && !seen_nonzero) --magnitude;
    } else {
      break;
    }
  }
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (s[i] - '0');
    }
    if (negative) exponent = -exponent;
  }
  return magnitude + exponent <= 0;
}

template <typename F>
Result<F> ParseFloatImpl(std::string_view text, std::string_view type_name) {
  std::string_view s = Trim(text);
  const char* begin = s.data();
  const char* end = begin + s.size();
  if (begin != end && *begin == '+') {
    ++begin;
    if (begin != end && (*begin == '-' || *begin == '+')) return NotValid(text, type_name);
  }
  if (begin == end) return NotValid(text, type_name);
  F value{};
  auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec == std::errc::invalid_argument || ptr != end) return NotValid(text, type_name);
  if (ec == std::errc::result_out_of_range) {
    if (!IsUnderflow(s)) return OutOfRange(text, type_name, "");
    value = s.front() == '-' ? -F(0) : F(0);
  }
  return value;
}

using DecimalError = DecimalParseError;

DecimalError ParseDecimalCore(std::string_view s, int precision, int scale, int128* out) {
  if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
    return DecimalError::kOutOfRange;  // not a DECIMAL type; never overflow below
  }
  const size_t n = s.size();
  size_t i = 0;
  bool negative = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  const size_t int_begin = i;
  while (i < n && IsDigit(s[i])) ++i;
  const size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i < n && s[i] == '.') {
    frac_begin = ++i;
    while (i < n && IsDigit(s[i])) ++i;
    frac_end = i;
  }
  if (int_end == int_begin && frac_end == frac_begin) return DecimalError::kSyntax;
  int64_t exponent = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    const size_t exp_begin = i;
    for (; i < n && IsDigit(s[i]); ++i) {
      if (exponent < 1'000'000'000'000'000) exponent = exponent * 10 + (s[i] - '0');
    }
    if (i == exp_begin) return DecimalError::kSyntax;
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return DecimalError::kSyntax;

  // The digits, integer part then fraction, as one sequence.
  const int64_t int_len = static_cast<int64_t>(int_end - int_begin);
  const int64_t frac_len = static_cast<int64_t>(frac_end - frac_begin);
  const int64_t total = int_len + frac_len;
  auto digit = [&](int64_t k) {
    return k < int_len ? s[int_begin + k] - '0' : s[frac_begin + (k - int_len)] - '0';
  };
  int64_t lo = 0;
  while (lo < total && digit(lo) == 0) ++lo;
  if (lo == total) {
    *out = 0;
    return DecimalError::kOk;
  }
  int64_t hi = total;
  while (digit(hi - 1) == 0) --hi;
  // value = digits[lo, hi) * 10^-fraction_digits
  const int64_t fraction_digits = frac_len - exponent - (total - hi);
  if (fraction_digits > scale) return DecimalError::kTooManyFractionDigits;
  const int64_t integer_digits = (hi - lo) - fraction_digits;
  if (integer_digits > precision - scale) return DecimalError::kOutOfRange;
  // At most `precision` (<= 38) digits from here on: no overflow.
  uint128 magnitude = 0;
  for (int64_t k = lo; k < hi; ++k) magnitude = magnitude * 10 + static_cast<unsigned>(digit(k));
  for (int64_t k = fraction_digits; k < scale; ++k) magnitude *= 10;
  *out = negative ? -static_cast<int128>(magnitude) : static_cast<int128>(magnitude);
  return DecimalError::kOk;
}

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct Base64DecodeTable {
  int8_t value[256];
  constexpr Base64DecodeTable() : value() {
    for (int i = 0; i < 256; ++i) value[i] = -1;
    for (int i = 0; i < 64; ++i)
      value[static_cast<uint8_t>(kBase64Alphabet[i])] = static_cast<int8_t>(i);
  }
};
constexpr Base64DecodeTable kBase64Decode;

// Writes two digits.
inline char* Put2(char* p, int v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
  return p + 2;
}

// Year with at least 4 digits; '-' before negative years, '+' before years past 9999.
char* PutYear(char* p, int64_t year) {
  if (year < 0) {
    *p++ = '-';
  } else if (year > 9999) {
    *p++ = '+';
  }
  uint64_t y = year < 0 ? 0 - static_cast<uint64_t>(year) : static_cast<uint64_t>(year);
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + y % 10);
    y /= 10;
  } while (y != 0);
  for (int k = n; k < 4; ++k) *p++ = '0';
  while (n > 0) *p++ = digits[--n];
  return p;
}

char* PutDate(char* p, int64_t days) {
  CivilDate d = CivilFromDays(days);
  p = PutYear(p, d.year);
  *p++ = '-';
  p = Put2(p, d.month);
  *p++ = '-';
  return Put2(p, d.day);
}

// HH:MM:SS of a second-of-day in [0, 86400), then ".fraction" of `nanos` with trailing zeros
// trimmed (nothing when zero).
char* PutTimeOfDay(char* p, int64_t seconds, int64_t nanos) {
  p = Put2(p, static_cast<int>(seconds / 3600));
  *p++ = ':';
  p = Put2(p, static_cast<int>(seconds / 60 % 60));
  *p++ = ':';
  p = Put2(p, static_cast<int>(seconds % 60));
  if (nanos != 0) {
    *p++ = '.';
    char digits[9];
    for (int k = 8; k >= 0; --k) {
      digits[k] = static_cast<char>('0' + nanos % 10);
      nanos /= 10;
    }
    int len = 9;
    while (digits[len - 1] == '0') --len;
    std::memcpy(p, digits, len);
    p += len;
  }
  return p;
}

}  // namespace

// ---- Calendar ----

int64_t DaysFromCivil(int64_t year, int month, int day) {
  // Howard Hinnant's days_from_civil: years start in March so the leap day ends the year.
  const int64_t y = year - (month <= 2 ? 1 : 0);
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;                                             // [0, 399]
  const int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;  // [0, 365]
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;                     // [0, 146096]
  return era * 146097 + doe - 719468;
}

CivilDate CivilFromDays(int64_t days) {
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;                                       // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool IsLeapYear(int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

int64_t UnitsPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1;
    case TimeUnit::kMilli:
      return 1'000;
    case TimeUnit::kMicro:
      return 1'000'000;
    case TimeUnit::kNano:
      return 1'000'000'000;
  }
  return 1'000'000;
}

// ---- Text -> value ----

Result<bool> ParseBoolean(std::string_view text) {
  std::string_view s = Trim(text);
  if (s.size() <= 5) {
    for (std::string_view t : {"true", "t", "yes", "y", "1"}) {
      if (EqualsIgnoreCase(s, t)) return true;
    }
    for (std::string_view f : {"false", "f", "no", "n", "0"}) {
      if (EqualsIgnoreCase(s, f)) return false;
    }
  }
  return NotValid(text, "BOOLEAN", "expected true or false");
}

template <typename T>
Result<T> ParseInteger(std::string_view text) {
  std::string_view s = Trim(text);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return NotValid(text, IntegerTypeName<T>());
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    const unsigned d = static_cast<unsigned char>(s[i]) - '0';
    if (d > 9) return NotValid(text, IntegerTypeName<T>());
    if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      overflow = true;
    } else {
      magnitude = magnitude * 10 + d;
    }
  }
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<T>::max());
  // Magnitude of the most negative value: 0 for unsigned types.
  constexpr uint64_t kMinMagnitude = std::is_signed_v<T> ? kMax + 1 : 0;
  if (overflow || (negative ? magnitude > kMinMagnitude : magnitude > kMax)) {
    std::string range = std::to_string(+std::numeric_limits<T>::min()) + ".." +
                        std::to_string(+std::numeric_limits<T>::max());
    return OutOfRange(text, IntegerTypeName<T>(), range);
  }
  if (negative) return static_cast<T>(0 - magnitude);  // two's complement wrap is defined
  return static_cast<T>(magnitude);
}

template Result<int8_t> ParseInteger<int8_t>(std::string_view);
template Result<int16_t> ParseInteger<int16_t>(std::string_view);
template Result<int32_t> ParseInteger<int32_t>(std::string_view);
template Result<int64_t> ParseInteger<int64_t>(std::string_view);
template Result<uint8_t> ParseInteger<uint8_t>(std::string_view);
template Result<uint16_t> ParseInteger<uint16_t>(std::string_view);
template Result<uint32_t> ParseInteger<uint32_t>(std::string_view);
template Result<uint64_t> ParseInteger<uint64_t>(std::string_view);

Result<float> ParseFloat32(std::string_view text) { return ParseFloatImpl<float>(text, "FLOAT32"); }
Result<double> ParseFloat64(std::string_view text) {
  return ParseFloatImpl<double>(text, "FLOAT64");
}

DecimalParseError TryParseDecimal(std::string_view text, int precision, int scale, int128* out) {
  return ParseDecimalCore(Trim(text), precision, scale, out);
}

Result<int128> ParseDecimal(std::string_view text, int precision, int scale) {
  int128 value = 0;
  const DecimalError error = ParseDecimalCore(Trim(text), precision, scale, &value);
  if (error == DecimalError::kOk) return value;
  const std::string type_name =
      "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
  switch (error) {
    case DecimalError::kTooManyFractionDigits:
      return Status::InvalidArgument(Quoted(text) + " has more than " + std::to_string(scale) +
                                     " fraction digits, the scale of " + type_name);
    case DecimalError::kOutOfRange:
      return OutOfRange(text, type_name,
                        "at most " + std::to_string(precision - scale) + " integer digits");
    default:
      return NotValid(text, type_name);
  }
}

Result<int32_t> ParseDate(std::string_view text) {
  std::string_view s = Trim(text);
  size_t i = 0;
  int64_t days = 0;
  if (const char* why = ReadDate(s, &i, &days)) return NotValid(text, "DATE", why);
  if (i != s.size()) return NotValid(text, "DATE", "unexpected text after the date");
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return OutOfRange(text, "DATE", "");
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTime(std::string_view text, TimeUnit unit) {
  const std::string name = DataType::Time(unit).ToString();
  std::string_view s = Trim(text);
  size_t i = 0;
  int64_t seconds = 0, nanos = 0;
  if (const char* why = ReadTimeOfDay(s, &i, &seconds, &nanos)) {
    return NotValid(text, name, why);
  }
  if (i != s.size()) return NotValid(text, name, "unexpected text after the time");
  if (unit == TimeUnit::kNano) return seconds * kNanosPerSecond + nanos;
  if (nanos % 1000 != 0) return NotValid(text, name, "the fraction is finer than microseconds");
  return seconds * 1'000'000 + nanos / 1000;
}

Result<int64_t> ParseTimestamp(std::string_view text, TimeUnit unit) {
  std::string_view s = Trim(text);
  TimestampParts parts;
  if (const char* why = ReadTimestamp(s, &parts)) {
    return NotValid(text, DataType::Timestamp(unit).ToString(), why);
  }
  if (parts.has_zone) {
    return NotValid(text, DataType::Timestamp(unit).ToString(),
                    "it has a zone, TIMESTAMP has none (use TIMESTAMPTZ)");
  }
  return TimestampToUnits(text, parts, unit, DataType::Timestamp(unit));
}

Result<int64_t> ParseTimestampTz(std::string_view text, TimeUnit unit) {
  std::string_view s = Trim(text);
  TimestampParts parts;
  if (const char* why = ReadTimestamp(s, &parts)) {
    return NotValid(text, DataType::TimestampTz(unit).ToString(), why);
  }
  return TimestampToUnits(text, parts, unit, DataType::TimestampTz(unit));
}

Result<std::array<uint8_t, 16>> ParseUuid(std::string_view text) {
  std::string_view s = Trim(text);
  // Offsets of the 16 hex pairs in 8-4-4-4-12.
  static constexpr uint8_t kPairAt[16] = {0,  2,  4,  6,  9,  11, 14, 16,
                                          19, 21, 24, 26, 28, 30, 32, 34};
  if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
    return NotValid(text, "UUID", "expected 8-4-4-4-12 hex digits");
  }
  std::array<uint8_t, 16> out{};
  int bad = 0;  // negative once any digit is not hex; checked once, after the loop
  for (int i = 0; i < 16; ++i) {
    const int hi = HexValue(s[kPairAt[i]]);
    const int lo = HexValue(s[kPairAt[i] + 1]);
    bad |= hi | lo;
    out[i] = static_cast<uint8_t>((hi & 15) << 4 | (lo & 15));
  }
  if (bad < 0) return NotValid(text, "UUID", "expected 8-4-4-4-12 hex digits");
  return out;
}

Result<uint32_t> ParseIpv4(std::string_view text) {
  std::string_view s = Trim(text);
  uint32_t result = 0;
  size_t i = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (i >= s.size() || s[i] != '.') return NotValid(text, "IPV4", "expected a.b.c.d");
      ++i;
    }
    size_t begin = i;
    unsigned value = 0;
    while (i < s.size() && IsDigit(s[i]) && i - begin < 4) value = value * 10 + (s[i++] - '0');
    size_t len = i - begin;
    if (len == 0 || len > 3) return NotValid(text, "IPV4", "expected a.b.c.d");
    if (len > 1 && s[begin] == '0') return NotValid(text, "IPV4", "a part has a leading zero");
    if (value > 255) return NotValid(text, "IPV4", "a part is over 255");
    result = result << 8 | value;
  }
  if (i != s.size()) return NotValid(text, "IPV4", "unexpected text after the address");
  return result;
}

Status ValidateJson(std::string_view text) {
  bool ok = false;
  try {
    ok = nlohmann::json::accept(text.begin(), text.end());
  } catch (...) {
    ok = false;
  }
  if (!ok) return NotValid(text, "JSON");
  return Status::OK();
}

Result<std::string> DecodeBase64(std::string_view text) {
  std::string_view s = Trim(text);
  size_t len = s.size();
  size_t pad = 0;
  while (len > 0 && pad < 2 && s[len - 1] == '=') {
    --len;
    ++pad;
  }
  if (pad > 0 && s.size() % 4 != 0) return NotValid(text, "base64 BLOB", "bad padding");
  if (len % 4 == 1) return NotValid(text, "base64 BLOB", "truncated");
  std::string out;
  out.reserve(len / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    int v = kBase64Decode.value[static_cast<uint8_t>(s[i])];
    if (v < 0) return NotValid(text, "base64 BLOB", "a character outside the base64 alphabet");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

bool IsValidUtf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t* end = p + bytes.size();
  while (p < end) {
    // ASCII fast path, 8 bytes at a time.
    while (end - p >= 8) {
      uint64_t chunk;
      std::memcpy(&chunk, p, 8);
      if (chunk & 0x8080808080808080ull) break;
      p += 8;
    }
    if (p >= end) break;
    if (*p < 0x80) {
      ++p;
      continue;
    }
    int bad = 0;
    int len = Utf8SequenceLength(p, end, &bad);
    if (len == 0) return false;
    p += len;
  }
  return true;
}

namespace {

// One JSON node (of a nested value's text) appended to `out`: the inverse of json_render.h.
Status AppendJsonNode(const nlohmann::ordered_json& j, Column* out) {
  if (j.is_null()) {
    out->AppendNull();
    return Status::OK();
  }
  const DataType& type = out->type;
  auto wrong = [&](std::string_view expected) {
    std::string shown = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    if (shown.size() > 80) shown = shown.substr(0, 80) + "...";
    return Status::InvalidArgument("'" + shown + "' is not a valid " + type.ToString() +
                                   ": expected " + std::string(expected));
  };
  switch (type.id()) {
    case TypeId::kArray:
      if (!j.is_array()) return wrong("a JSON array");
      for (const nlohmann::ordered_json& e : j) TARN_RETURN_NOT_OK(AppendJsonNode(e, out->child.get()));
      out->AppendArrayRow();
      return Status::OK();
    case TypeId::kMap:
      // [{"key": k, "value": v}, ...] (the rendering), or {"k": v, ...} for text keys.
      if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
          TARN_RETURN_NOT_OK(AppendParsedValue(key, &out->members[0]));
          TARN_RETURN_NOT_OK(AppendJsonNode(value, &out->members[1]));
        }
      } else if (j.is_array()) {
        for (const nlohmann::ordered_json& e : j) {
          auto k = e.is_object() ? e.find("key") : e.end();
          if (k == e.end() || k->is_null() || e.size() > 2) {
            return wrong("entries {\"key\": .., \"value\": ..} with a non-null key");
          }
          TARN_RETURN_NOT_OK(AppendJsonNode(*k, &out->members[0]));
          auto v = e.find("value");
          if (v == e.end()) {
            out->members[1].AppendNull();
          } else {
            TARN_RETURN_NOT_OK(AppendJsonNode(*v, &out->members[1]));
          }
        }
      } else {
        return wrong("a JSON array of entries or an object");
      }
      out->AppendArrayRow();
      return Status::OK();
    case TypeId::kStruct: {
      if (!j.is_object()) return wrong("a JSON object");
      const std::vector<Field>& members = type.children();
      for (const auto& [key, value] : j.items()) {
        bool known = false;
        for (const Field& m : members) known = known || m.name == key;
        if (!known) return wrong("no member named '" + key + "'");
      }
      for (size_t i = 0; i < members.size(); ++i) {
        auto it = j.find(members[i].name);
        if (it == j.end()) {
          out->members[i].AppendNull();
        } else {
          TARN_RETURN_NOT_OK(AppendJsonNode(*it, &out->members[i]));
        }
      }
      out->AppendStructRow();
      return Status::OK();
    }
    default:
      if (j.is_string()) return AppendParsedValue(j.get_ref<const std::string&>(), out);
      if (j.is_structured() && type.id() != TypeId::kJson) return wrong("a scalar");
      // Numbers and booleans by their text; a JSON member may also hold a JSON value as such.
      return AppendParsedValue(j.dump(), out);
  }
}

}  // namespace

Status AppendParsedValue(std::string_view text, Column* out) {
  const DataType& type = out->type;
  if (type.is_nested()) {
    // Ordered: a MAP read from an object keeps its entries in text order.
    nlohmann::ordered_json j =
        nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded()) return NotValid(text, type.ToString(), "not valid JSON");
    if (j.is_null()) return NotValid(text, type.ToString(), "null is not a value");
    // Built aside, so a failure appends nothing.
    Column one(type);
    Status st = AppendJsonNode(j, &one);
    if (!st.ok()) return st;
    out->AppendColumn(one);
    return Status::OK();
  }
  switch (type.id()) {
    case TypeId::kBoolean: {
      TARN_ASSIGN_OR_RETURN(bool v, ParseBoolean(text));
      out->AppendFixed<uint8_t>(v ? 1 : 0);
      return Status::OK();
    }
#define TARN_PARSE_INT(ID, T)                          \
  case TypeId::ID: {                                   \
    TARN_ASSIGN_OR_RETURN(T v, ParseInteger<T>(text)); \
    out->AppendFixed<T>(v);                            \
    return Status::OK();                               \
  }
      TARN_PARSE_INT(kInt8, int8_t)
      TARN_PARSE_INT(kInt16, int16_t)
      TARN_PARSE_INT(kInt32, int32_t)
      TARN_PARSE_INT(kInt64, int64_t)
      TARN_PARSE_INT(kUInt8, uint8_t)
      TARN_PARSE_INT(kUInt16, uint16_t)
      TARN_PARSE_INT(kUInt32, uint32_t)
      TARN_PARSE_INT(kUInt64, uint64_t)
#undef TARN_PARSE_INT
    case TypeId::kFloat32: {
      TARN_ASSIGN_OR_RETURN(float v, ParseFloat32(text));
      out->AppendFixed<float>(v);
      return Status::OK();
    }
    case TypeId::kFloat64: {
      TARN_ASSIGN_OR_RETURN(double v, ParseFloat64(text));
      out->AppendFixed<double>(v);
      return Status::OK();
    }
    case TypeId::kDecimal: {
      TARN_ASSIGN_OR_RETURN(int128 v, ParseDecimal(text, type.precision(), type.scale()));
      out->AppendFixed<int128>(v);
      return Status::OK();
    }
    case TypeId::kVarchar:
      if (!IsValidUtf8(text)) return NotValid(text, "VARCHAR", "not UTF-8");
      out->AppendBytes(text);
      return Status::OK();
    case TypeId::kJson:
      TARN_RETURN_NOT_OK(ValidateJson(text));
      if (!IsValidUtf8(text)) return NotValid(text, "JSON", "not UTF-8");
      out->AppendBytes(text);
      return Status::OK();
    case TypeId::kVariant: {
      std::string metadata, value;
      TARN_RETURN_NOT_OK(EncodeVariantFromJson(text, &metadata, &value));
      out->AppendVariant(metadata, value);
      return Status::OK();
    }
    case TypeId::kBlob: {
      TARN_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(text));
      out->AppendBytes(bytes);
      return Status::OK();
    }
    case TypeId::kDate: {
      TARN_ASSIGN_OR_RETURN(int32_t v, ParseDate(text));
      out->AppendFixed<int32_t>(v);
      return Status::OK();
    }
    case TypeId::kTime: {
      TARN_ASSIGN_OR_RETURN(int64_t v, ParseTime(text, type.unit()));
      out->AppendFixed<int64_t>(v);
      return Status::OK();
    }
    case TypeId::kTimestamp: {
      TARN_ASSIGN_OR_RETURN(int64_t v, ParseTimestamp(text, type.unit()));
      out->AppendFixed<int64_t>(v);
      return Status::OK();
    }
    case TypeId::kTimestampTz: {
      TARN_ASSIGN_OR_RETURN(int64_t v, ParseTimestampTz(text, type.unit()));
      out->AppendFixed<int64_t>(v);
      return Status::OK();
    }
    case TypeId::kUuid: {
      TARN_ASSIGN_OR_RETURN(auto v, ParseUuid(text));
      out->AppendFixed(v);
      return Status::OK();
    }
    case TypeId::kIpv4: {
      TARN_ASSIGN_OR_RETURN(uint32_t v, ParseIpv4(text));
      out->AppendFixed<uint32_t>(v);
      return Status::OK();
    }
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
      break;
  }
  return Status::InvalidArgument("cannot parse a value of type " + type.ToString() + " from text");
}

// ---- Value -> text ----

void AppendInt64(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

void AppendUInt64(uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, r.ptr);
}

template <typename F>
static void AppendFloatImpl(F v, std::string* out) {
  if (std::isnan(v)) {
    out->append("NaN");
  } else if (std::isinf(v)) {
    out->append(v < 0 ? "-Infinity" : "Infinity");
  } else {
    char buf[kMaxFloatChars];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    out->append(buf, r.ptr);
  }
}

void AppendFloat64(double v, std::string* out) { AppendFloatImpl(v, out); }
void AppendFloat32(float v, std::string* out) { AppendFloatImpl(v, out); }

size_t FormatDecimal(int128 v, int scale, char* buf) {
  if (scale < 0) scale = 0;
  if (scale > 38) scale = 38;
  uint128 magnitude = v < 0 ? uint128(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
  // Digits, least significant first; 19 at a time through 64-bit arithmetic.
  char digits[40];
  int n = 0;
  constexpr uint64_t kChunk = 10'000'000'000'000'000'000ull;  // 10^19
  while (magnitude > std::numeric_limits<uint64_t>::max()) {
    uint64_t low = static_cast<uint64_t>(magnitude % kChunk);
    magnitude /= kChunk;
    for (int k = 0; k < 19; ++k) {
      digits[n++] = static_cast<char>('0' + low % 10);
      low /= 10;
    }
  }
  uint64_t rest = static_cast<uint64_t>(magnitude);
  do {
    digits[n++] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  } while (rest != 0);
  while (n > 1 && digits[n - 1] == '0') --n;  // chunking can leave leading zeros
  while (n <= scale) digits[n++] = '0';       // at least one integer digit
  char* p = buf;
  if (v < 0) *p++ = '-';
  for (int k = n - 1; k >= 0; --k) {
    if (k == scale - 1) *p++ = '.';
    *p++ = digits[k];
  }
  return static_cast<size_t>(p - buf);
}

void AppendDecimal(int128 v, int scale, std::string* out) {
  char buf[kMaxDecimalChars];
  out->append(buf, FormatDecimal(v, scale, buf));
}

void AppendDate(int64_t days, std::string* out) {
  char buf[32];
  char* end = PutDate(buf, days);
  out->append(buf, end);
}

void AppendTime(int64_t value, TimeUnit unit, std::string* out) {
  const int64_t per = UnitsPerSecond(unit);
  const int64_t per_day = kSecondsPerDay * per;
  char buf[48];
  char* p = buf;
  if (value < 0 || value >= per_day) {
    // Not a time of day (only corrupt input gets here): write days too, never garbage.
    AppendInt64(FloorDiv(value, per_day), out);
    out->append("d+");
    value %= per_day;
    if (value < 0) value += per_day;
  }
  p = PutTimeOfDay(p, value / per, value % per * (kNanosPerSecond / per));
  out->append(buf, p);
}

void AppendTimestamp(int64_t value, TimeUnit unit, bool utc, std::string* out) {
  const int64_t per = UnitsPerSecond(unit);
  const int64_t seconds = FloorDiv(value, per);
  int64_t sub = value % per;  // not value - seconds * per, which overflows at INT64_MIN
  if (sub < 0) sub += per;
  const int64_t days = FloorDiv(seconds, kSecondsPerDay);
  int64_t sod = seconds % kSecondsPerDay;
  if (sod < 0) sod += kSecondsPerDay;
  char buf[64];
  char* p = PutDate(buf, days);
  *p++ = 'T';
  p = PutTimeOfDay(p, sod, sub * (kNanosPerSecond / per));
  if (utc) *p++ = 'Z';
  out->append(buf, p);
}

void AppendUuid(const uint8_t* b, std::string* out) {
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    AppendHex(b[i], out);
  }
}

void AppendIpv4(uint32_t v, std::string* out) {
  char buf[16];
  char* p = buf;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const uint32_t octet = (v >> shift) & 0xFF;
    if (octet >= 100) *p++ = static_cast<char>('0' + octet / 100);
    if (octet >= 10) *p++ = static_cast<char>('0' + octet / 10 % 10);
    *p++ = static_cast<char>('0' + octet % 10);
    if (shift > 0) *p++ = '.';
  }
  out->append(buf, p);
}

void AppendBase64(std::string_view bytes, std::string* out) {
  const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  size_t at = out->size();
  out->resize(at + (n + 2) / 3 * 4);
  char* p = out->data() + at;
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v =
        static_cast<uint32_t>(b[i]) << 16 | static_cast<uint32_t>(b[i + 1]) << 8 | b[i + 2];
    *p++ = kBase64Alphabet[v >> 18];
    *p++ = kBase64Alphabet[(v >> 12) & 63];
    *p++ = kBase64Alphabet[(v >> 6) & 63];
    *p++ = kBase64Alphabet[v & 63];
  }
  if (i < n) {
    uint32_t v = static_cast<uint32_t>(b[i]) << 16;
    if (i + 1 < n) v |= static_cast<uint32_t>(b[i + 1]) << 8;
    *p++ = kBase64Alphabet[v >> 18];
    *p++ = kBase64Alphabet[(v >> 12) & 63];
    *p++ = i + 1 < n ? kBase64Alphabet[(v >> 6) & 63] : '=';
    *p++ = '=';
  }
}

void AppendValueText(const Column& col, int64_t row, std::string* out) {
  switch (col.type.id()) {
    case TypeId::kBoolean:
      out->append(col.data[row] ? "true" : "false");
      return;
    case TypeId::kInt8:
      AppendInt64(col.Value<int8_t>(row), out);
      return;
    case TypeId::kInt16:
      AppendInt64(col.Value<int16_t>(row), out);
      return;
    case TypeId::kInt32:
      AppendInt64(col.Value<int32_t>(row), out);
      return;
    case TypeId::kInt64:
      AppendInt64(col.Value<int64_t>(row), out);
      return;
    case TypeId::kUInt8:
      AppendUInt64(col.Value<uint8_t>(row), out);
      return;
    case TypeId::kUInt16:
      AppendUInt64(col.Value<uint16_t>(row), out);
      return;
    case TypeId::kUInt32:
      AppendUInt64(col.Value<uint32_t>(row), out);
      return;
    case TypeId::kUInt64:
      AppendUInt64(col.Value<uint64_t>(row), out);
      return;
    case TypeId::kFloat32:
      AppendFloat32(col.Value<float>(row), out);
      return;
    case TypeId::kFloat64:
      AppendFloat64(col.Value<double>(row), out);
      return;
    case TypeId::kDecimal:
      AppendDecimal(col.Value<int128>(row), col.type.scale(), out);
      return;
    case TypeId::kVarchar:
    case TypeId::kJson:
      out->append(col.StringAt(row));
      return;
    case TypeId::kBlob:
      AppendBase64(col.StringAt(row), out);
      return;
    case TypeId::kDate:
      AppendDate(col.Value<int32_t>(row), out);
      return;
    case TypeId::kTime:
      AppendTime(col.Value<int64_t>(row), col.type.unit(), out);
      return;
    case TypeId::kTimestamp:
      AppendTimestamp(col.Value<int64_t>(row), col.type.unit(), false, out);
      return;
    case TypeId::kTimestampTz:
      AppendTimestamp(col.Value<int64_t>(row), col.type.unit(), true, out);
      return;
    case TypeId::kUuid:
      AppendUuid(col.data.data() + row * 16, out);
      return;
    case TypeId::kIpv4:
      AppendIpv4(col.Value<uint32_t>(row), out);
      return;
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      AppendJsonValue(col, row, out);
      return;
  }
}

std::string ValueText(const Column& col, int64_t row) {
  std::string out;
  AppendValueText(col, row, &out);
  return out;
}

}  // namespace tarn
