// IANA time zones read from TZif files (RFC 8536) of the zone database: `$TZDIR/NAME`, else
// `/usr/share/zoneinfo/NAME` (Debian package tzdata).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/status.h"

namespace tarn::schedule {

// The proleptic Gregorian calendar over days counted from 1970-01-01 (day 0, a Thursday).
struct CivilDay {
  int64_t year;
  int month;  // 1-12
  int day;    // 1-31
};
int64_t DaysFromCivil(int64_t year, int month, int day);
CivilDay CivilFromDays(int64_t days);
int WeekdayOfDays(int64_t days);  // 0 Sunday - 6 Saturday
bool IsLeapYear(int64_t year);
int DaysInMonth(int64_t year, int month);

// One zone's offsets from UTC over time: the transitions of its file, then the POSIX TZ string of
// the file's footer for instants after the last one. Immutable; cheap to copy (shared data);
// safe to use from any number of threads.
//
// Seconds are counted from 1970-01-01T00:00: `utc_seconds` on the UTC time line,
// `local_seconds` on the zone's wall clock read as if it were UTC.
class TimeZone {
 public:
  // UTC, named "UTC".
  static TimeZone Utc();
  // "UTC" and "Etc/UTC" always (no file needed); otherwise the file NAME under $TZDIR (when set
  // and not empty) or /usr/share/zoneinfo, loaded once per process. Errors: unknown_time_zone
  // (field time_zone) for a malformed name (letters, digits, '_', '-', '+' and '/' only; no
  // leading '/', no empty or '..' component; at most 255 bytes), a name with no file, or a file
  // that is not a TZif file; kCorruption for a TZif file that does not decode; kIOError when the
  // file cannot be read.
  static Result<TimeZone> Load(std::string_view name);
  // The zone of the TZif bytes `tzif` (versions 1 to 4), named `name`; kCorruption when they
  // do not decode. Every count and index is checked: the bytes may be anything.
  static Result<TimeZone> FromTzif(std::string_view name, std::string_view tzif);

  const std::string& name() const;
  // Seconds east of UTC in effect at `utc_seconds`.
  int64_t OffsetAt(int64_t utc_seconds) const;
  // The instants at which the wall clock reads `local_seconds`, ascending: none (a time skipped
  // by a change of offset, such as the spring-forward gap), one, or two (a repeated time, such
  // as the fall-back overlap).
  std::vector<int64_t> LocalToUtc(int64_t local_seconds) const;
  // The first of LocalToUtc(local_seconds), or nullopt; without allocating.
  std::optional<int64_t> EarliestUtc(int64_t local_seconds) const;

  struct Data;  // time_zone.cc

 private:
  explicit TimeZone(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

}  // namespace tarn::schedule
