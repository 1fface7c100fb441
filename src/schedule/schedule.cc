#include "schedule/schedule.h"

#include <bit>
#include <string>

#include "schedule/error_codes.h"

namespace tarn::schedule {
namespace {

constexpr int64_t kMicros = 1'000'000;
constexpr int64_t kSecondsPerDay = 86400;
// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
constexpr int64_t kMinAfterSeconds = -62135596800;
constexpr int64_t kMaxAfterSeconds = 253402300799;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

Result<int64_t> NextDue(const CronSpec& spec, const TimeZone& zone, int64_t after_utc_us) {
  // A slot u (seconds) is after `after_utc_us` when u > floor(after_utc_us / 1e6).
  const int64_t after = FloorDiv(after_utc_us, kMicros);
  if (after < kMinAfterSeconds || after > kMaxAfterSeconds) {
    return Status::InvalidArgument("schedule: instant " + std::to_string(after_utc_us) +
                                   " us is outside the years 1-9999");
  }
  // Local minutes map to their first instants in order, so the first slot after `after` is the
  // first matching local minute from the one `after` falls in whose first instant is after it
  // (within a repeated hour, the minutes before the clock's reading were passed the first time).
  const int64_t local = after + zone.OffsetAt(after);
  int64_t day = FloorDiv(local, kSecondsPerDay);
  int first_minute = static_cast<int>((local - day * kSecondsPerDay) / 60);  // on the first day
  const int64_t last_day = day + kSearchDays;
  while (day <= last_day) {
    const CivilDay civil = CivilFromDays(day);
    if (!spec.HasMonth(civil.month)) {
      day = civil.month == 12 ? DaysFromCivil(civil.year + 1, 1, 1)
                              : DaysFromCivil(civil.year, civil.month + 1, 1);
      first_minute = 0;
      continue;
    }
    if (spec.MatchesDay(civil.month, civil.day, WeekdayOfDays(day))) {
      const int first_hour = first_minute / 60;
      uint32_t hours = spec.hours & ~((uint32_t{1} << first_hour) - 1);
      while (hours != 0) {
        const int hour = std::countr_zero(hours);
        hours &= hours - 1;
        uint64_t minutes = spec.minutes;
        if (hour == first_hour) minutes &= ~((uint64_t{1} << (first_minute % 60)) - 1);
        while (minutes != 0) {
          const int minute = std::countr_zero(minutes);
          minutes &= minutes - 1;
          const int64_t wall = day * kSecondsPerDay + hour * 3600 + minute * 60;
          const std::optional<int64_t> at = zone.EarliestUtc(wall);
          if (at && *at > after) return *at * kMicros;
        }
      }
    }
    ++day;
    first_minute = 0;
  }
  return Status::Of(codes::kInvalidSchedule, "schedule '" + spec.text + "' never fires in " +
                                                 zone.name() + " (no slot within 50 years)")
      .WithField("schedule", spec.text);
}

Result<int64_t> NextDue(std::string_view cron, std::string_view time_zone, int64_t after_utc_us) {
  TARN_ASSIGN_OR_RETURN(CronSpec spec, ParseCron(cron));
  TARN_ASSIGN_OR_RETURN(TimeZone zone, TimeZone::Load(time_zone));
  return NextDue(spec, zone, after_utc_us);
}

}  // namespace tarn::schedule
