// When a cron schedule is next due in a time zone (README.md: a time skipped by a change of
// offset never fires, a repeated one fires once, at its first occurrence).
#pragma once

#include <cstdint>
#include <string_view>

#include "schedule/cron.h"
#include "schedule/time_zone.h"
#include "tarn/status.h"

namespace tarn::schedule {

// How far ahead NextDue looks: 50 years, far beyond the longest wait of a spec ParseCron accepts
// (about 12 years: `0 0 */31 2 1`, 1 February on a Monday).
inline constexpr int64_t kSearchDays = 50 * 366;

// The first slot of `spec` in `zone` strictly after `after_utc_us` (microseconds since the
// epoch), in UTC microseconds (a whole local minute). A slot is a local minute that `spec`
// matches, at the first instant the zone's clock reads it; a minute the clock skips has none.
// Errors: invalid_schedule when no slot lies within kSearchDays (ParseCron refuses the specs
// that can never fire); invalid_argument when `after_utc_us` is outside the years 1-9999.
Result<int64_t> NextDue(const CronSpec& spec, const TimeZone& zone, int64_t after_utc_us);
// The same for a cron text (ParseCron) and a zone name (TimeZone::Load).
Result<int64_t> NextDue(std::string_view cron, std::string_view time_zone, int64_t after_utc_us);

}  // namespace tarn::schedule
