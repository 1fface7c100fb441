// Five-field cron specifications: minute hour day-of-month month day-of-week, with Vixie cron's
// day rule (README.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tarn/status.h"

namespace tarn::schedule {

// A parsed cron text. Each field is a bitset of the values it matches.
struct CronSpec {
  std::string text;             // the text as given
  uint64_t minutes = 0;         // bit m: minute m (0-59)
  uint32_t hours = 0;           // bit h: hour h (0-23)
  uint32_t days_of_month = 0;   // bit d: day d of the month (1-31)
  uint16_t months = 0;          // bit m: month m (1-12)
  uint8_t days_of_week = 0;     // bit d: weekday d (0 Sunday - 6 Saturday; 7 is read as 0)
  bool dom_restricted = false;  // the day-of-month field does not start with '*'
  bool dow_restricted = false;  // the day-of-week field does not start with '*'

  bool HasMinute(int minute) const { return (minutes >> minute) & 1; }
  bool HasHour(int hour) const { return (hours >> hour) & 1; }
  bool HasMonth(int month) const { return (months >> month) & 1; }
  // Whether the calendar day matches: its month is one of the months, and (Vixie cron) when both
  // day fields are restricted, its day of month OR its weekday matches; otherwise both must.
  // `weekday` is 0 (Sunday) to 6.
  bool MatchesDay(int month, int day_of_month, int weekday) const;
  // The normalized text: numbers instead of names, `*` for a full minute, hour or month field,
  // ranges and `*/n` where they apply, single spaces. ParseCron(ToString()) is the same spec
  // (but for `text`).
  std::string ToString() const;
};

// Parses five whitespace-separated fields. Each field is a comma list of `*`, `n`, `a-b`, `*/s`,
// `a-b/s` and `a/s` (a to the field's maximum); months and weekdays also take three-letter
// English names (JAN-DEC, SUN-SAT, any case), and weekday 7 is Sunday. Refused with
// invalid_schedule (field schedule): anything else, values out of range, backwards ranges, zero
// steps, and specs that can never fire (`0 0 30 2 *`).
Result<CronSpec> ParseCron(std::string_view text);

}  // namespace tarn::schedule
