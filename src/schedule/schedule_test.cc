#include "schedule/schedule.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "schedule/cron.h"
#include "schedule/error_codes.h"
#include "schedule/time_zone.h"

namespace tarn::schedule {
namespace {

constexpr int64_t kMicros = 1'000'000;

// Seconds since the epoch of a UTC (or, for local_seconds, wall-clock) date and time.
int64_t At(int64_t y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
}
int64_t AtUs(int64_t y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return At(y, mo, d, h, mi, s) * kMicros;
}

std::string FieldOf(const Status& st, std::string_view name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "";
}

// "2026-03-29T01:00:00Z" for test messages.
std::string Iso(int64_t utc_us) {
  const int64_t s = utc_us / kMicros;
  const int64_t days = s >= 0 ? s / 86400 : (s - 86399) / 86400;
  const CivilDay c = CivilFromDays(days);
  const int64_t sod = s - days * 86400;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02lld:%02lld:%02lldZ",
                static_cast<long long>(c.year), c.month, c.day, static_cast<long long>(sod / 3600),
                static_cast<long long>(sod / 60 % 60), static_cast<long long>(sod % 60));
  return buf;
}

// Sets (or unsets, with nullopt) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tarn_schedule_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  void Write(const std::string& name, const std::string& bytes) const {
    std::filesystem::path p = std::filesystem::path(path_) / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  }

 private:
  std::string path_;
};

std::string ReadSystemZone(const std::string& name) {
  std::ifstream in("/usr/share/zoneinfo/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TimeZone Zone(std::string_view name) {
  Result<TimeZone> z = TimeZone::Load(name);
  EXPECT_TRUE(z.ok()) << z.status().ToString();
  return z.ok() ? *z : TimeZone::Utc();
}

// ---------------------------------------------------------------------------------------------
// A TZif writer for the tests: one data block per version, no leap seconds or indicators.

struct TzType {
  int32_t utoff;
  bool isdst;
};

void Put32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}
void Put64(std::string* out, uint64_t v) {
  Put32(out, static_cast<uint32_t>(v >> 32));
  Put32(out, static_cast<uint32_t>(v));
}

std::string Header(char version, size_t timecnt, size_t typecnt, size_t charcnt) {
  std::string h = "TZif";
  h.push_back(version);
  h.append(15, '\0');
  Put32(&h, 0);  // isutcnt
  Put32(&h, 0);  // isstdcnt
  Put32(&h, 0);  // leapcnt
  Put32(&h, static_cast<uint32_t>(timecnt));
  Put32(&h, static_cast<uint32_t>(typecnt));
  Put32(&h, static_cast<uint32_t>(charcnt));
  return h;
}

std::string Block(const std::vector<int64_t>& times, const std::vector<uint8_t>& indices,
                  const std::vector<TzType>& types, bool wide) {
  std::string b;
  for (int64_t t : times) {
    if (wide) {
      Put64(&b, static_cast<uint64_t>(t));
    } else {
      Put32(&b, static_cast<uint32_t>(static_cast<int32_t>(t)));
    }
  }
  for (uint8_t i : indices) b.push_back(static_cast<char>(i));
  for (const TzType& t : types) {
    Put32(&b, static_cast<uint32_t>(t.utoff));
    b.push_back(t.isdst ? 1 : 0);
    b.push_back(0);  // designation "ZZZ"
  }
  b.append("ZZZ", 4);
  return b;
}

// A TZif file: version '\0' (1) writes only the 32-bit block; '2'-'4' both blocks and `footer`.
std::string Tzif(char version, const std::vector<int64_t>& times,
                 const std::vector<uint8_t>& indices, const std::vector<TzType>& types,
                 const std::string& footer) {
  std::string out = Header(version, times.size(), types.size(), 4);
  if (version == '\0') return out + Block(times, indices, types, false);
  out += Block({}, {}, types, false);
  out.replace(32, 4, std::string(4, '\0'));  // the version 1 block has no transitions
  out += Header(version, times.size(), types.size(), 4) + Block(times, indices, types, true);
  return out + "\n" + footer + "\n";
}

// A zone of `footer` alone (no transitions).
Result<TimeZone> FooterZone(const std::string& footer, int32_t utoff = 0) {
  return TimeZone::FromTzif("Test/" + footer, Tzif('2', {}, {}, {{utoff, false}}, footer));
}

// ---------------------------------------------------------------------------------------------
// Cron.

CronSpec Parse(std::string_view text) {
  Result<CronSpec> r = ParseCron(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : CronSpec{};
}

uint64_t Bits(std::initializer_list<int> values) {
  uint64_t b = 0;
  for (int v : values) b |= uint64_t{1} << v;
  return b;
}
uint64_t Span(int lo, int hi, int step = 1) {
  uint64_t b = 0;
  for (int v = lo; v <= hi; v += step) b |= uint64_t{1} << v;
  return b;
}

TEST(Cron, ParsesEveryFieldForm) {
  CronSpec s = Parse("*/15 0-6/2 1,15 JAN-mar,12 MON-FRI");
  EXPECT_EQ(s.text, "*/15 0-6/2 1,15 JAN-mar,12 MON-FRI");
  EXPECT_EQ(s.minutes, Bits({0, 15, 30, 45}));
  EXPECT_EQ(s.hours, Bits({0, 2, 4, 6}));
  EXPECT_EQ(s.days_of_month, Bits({1, 15}));
  EXPECT_EQ(s.months, Bits({1, 2, 3, 12}));
  EXPECT_EQ(s.days_of_week, Bits({1, 2, 3, 4, 5}));
  EXPECT_TRUE(s.dom_restricted);
  EXPECT_TRUE(s.dow_restricted);

  s = Parse("* * * * *");
  EXPECT_EQ(s.minutes, Span(0, 59));
  EXPECT_EQ(s.hours, Span(0, 23));
  EXPECT_EQ(s.days_of_month, Span(1, 31));
  EXPECT_EQ(s.months, Span(1, 12));
  EXPECT_EQ(s.days_of_week, Span(0, 6));
  EXPECT_FALSE(s.dom_restricted);
  EXPECT_FALSE(s.dow_restricted);

  // a/n runs from a to the field's maximum; steps over ranges; lists of everything.
  s = Parse("5/20 20/2 10/10 2/5 1/2");
  EXPECT_EQ(s.minutes, Bits({5, 25, 45}));
  EXPECT_EQ(s.hours, Bits({20, 22}));
  EXPECT_EQ(s.days_of_month, Bits({10, 20, 30}));
  EXPECT_EQ(s.months, Bits({2, 7, 12}));
  EXPECT_EQ(s.days_of_week, Bits({1, 3, 5}));  // to Saturday: Sunday only as 0 or 7
  s = Parse("0,7-9,50-59/3 */7 */10 */5 */2");
  EXPECT_EQ(s.minutes, Bits({0, 7, 8, 9, 50, 53, 56, 59}));
  EXPECT_EQ(s.hours, Bits({0, 7, 14, 21}));
  EXPECT_EQ(s.days_of_month, Bits({1, 11, 21, 31}));
  EXPECT_EQ(s.months, Bits({1, 6, 11}));
  EXPECT_EQ(s.days_of_week, Bits({0, 2, 4, 6}));
  EXPECT_FALSE(s.dom_restricted);  // Vixie cron: a field that starts with '*' is unrestricted
  EXPECT_FALSE(s.dow_restricted);
  // Any whitespace between fields, and around them.
  s = Parse("  0\t12  *\n* *  ");
  EXPECT_EQ(s.minutes, Bits({0}));
  EXPECT_EQ(s.hours, Bits({12}));
  // Steps as large as the field.
  EXPECT_EQ(Parse("*/60 */24 */31 */12 */7").minutes, Bits({0}));
}

TEST(Cron, NamesAnyCaseAndSevenIsSunday) {
  CronSpec s = Parse("0 0 * jan,Feb,DEC,jUl sun,Sat");
  EXPECT_EQ(s.months, Bits({1, 2, 7, 12}));
  EXPECT_EQ(s.days_of_week, Bits({0, 6}));
  const char* months[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                          "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(Parse(std::string("0 0 * ") + months[i] + " *").months, Bits({i + 1}));
  }
  const char* days[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(Parse(std::string("0 0 * * ") + days[i]).days_of_week, Bits({i}));
  }
  EXPECT_EQ(Parse("0 0 * * 7").days_of_week, Bits({0}));
  EXPECT_EQ(Parse("0 0 * * 0").days_of_week, Bits({0}));
  EXPECT_EQ(Parse("0 0 * * 5-7").days_of_week, Bits({0, 5, 6}));
  EXPECT_EQ(Parse("0 0 * * 0-7").days_of_week, Span(0, 6));
  EXPECT_EQ(Parse("0 0 * * FRI-7").days_of_week, Bits({0, 5, 6}));
  EXPECT_EQ(Parse("0 0 * * mon/2").days_of_week, Bits({1, 3, 5}));
  EXPECT_EQ(Parse("0 0 * jun-AUG *").months, Bits({6, 7, 8}));
}

TEST(Cron, RefusesEveryMalformedFormNamingTheFieldAndText) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"61 * * * *", "minute field '61' is out of range 0-59"},
      {"* 24 * * *", "hour field '24' is out of range 0-23"},
      {"* * 0 * *", "day-of-month field '0' is out of range 1-31"},
      {"* * 32 * *", "day-of-month field '32' is out of range 1-31"},
      {"* * * 0 *", "month field '0' is out of range 1-12"},
      {"* * * 13 *", "month field '13' is out of range 1-12"},
      {"* * * * 8", "day-of-week field '8' is out of range 0-7"},
      {"0-60 * * * *", "minute field '0-60' is out of range 0-59"},
      {"99999999999999999999 * * * *", "minute field '99999999999999999999' is out of range"},
      {"5-2 * * * *", "minute field '5-2' is a backwards range"},
      {"* * * * SAT-SUN", "day-of-week field 'SAT-SUN' is a backwards range"},
      {"*/0 * * * *", "minute field '*/0' has a step out of range 1-60"},
      {"* */25 * * *", "hour field '*/25' has a step out of range 1-24"},
      {"* * * * */8", "day-of-week field '*/8' has a step out of range 1-7"},
      {"*/x * * * *", "minute field '*/x' has a step that is not a number"},
      {"*/5/2 * * * *", "minute field '*/5/2' has a step that is not a number"},
      {"*/-1 * * * *", "minute field '*/-1' has a step that is not a number"},
      {"/5 * * * *", "minute field '/5' is not a number, range or step"},
      {"1,,2 * * * *", "minute field '1,,2' has an empty list element"},
      {",1 * * * *", "minute field ',1' has an empty list element"},
      {"1, * * * *", "minute field '1,' has an empty list element"},
      {"a * * * *", "minute field 'a' is not a number, range or step"},
      {"-1 * * * *", "minute field '-1' is not a number, range or step"},
      {"1- * * * *", "minute field '1-' is not a number, range or step"},
      {"1-2-3 * * * *", "minute field '1-2-3' is not a number, range or step"},
      {"*-5 * * * *", "minute field '*-5' is not a number, range or step"},
      {"** * * * *", "minute field '**' is not a number, range or step"},
      {"+1 * * * *", "minute field '+1' is not a number, range or step"},
      {"1.5 * * * *", "minute field '1.5' is not a number, range or step"},
      {"? * * * *", "minute field '?' is not a number, range or step"},
      {"* * L * *", "day-of-month field 'L' is not a number, range or step"},
      {"* * 15W * *", "day-of-month field '15W' is not a number, range or step"},
      {"* * ? * *", "day-of-month field '?' is not a number, range or step"},
      {"* * * FOO *", "month field 'FOO' is not a number, range or step (months are 1-12 or"},
      {"* * * JANUARY *", "month field 'JANUARY' is not a number, range or step"},
      {"* * * MON *", "month field 'MON' is not a number, range or step"},
      {"* * * * JAN", "day-of-week field 'JAN' is not a number, range or step (weekdays"},
      {"* * * * MONDAY", "day-of-week field 'MONDAY' is not a number, range or step"},
      {"* * * * 1#2", "day-of-week field '1#2' is not a number, range or step"},
      {"* * * * 5L", "day-of-week field '5L' is not a number, range or step"},
      {"* JAN * * *", "hour field 'JAN' is not a number, range or step"},
      {"", "schedule '' has 0 fields; expected 5"},
      {"   ", "has 0 fields; expected 5"},
      {"* * * *", "schedule '* * * *' has 4 fields; expected 5"},
      {"* * * * * *", "has 6 fields; expected 5 (minute hour day-of-month month day-of-week)"},
      {"0 0 * * * 2026", "has 6 fields"},
      {"@hourly", "macros such as @hourly and @daily are not supported"},
      {"@reboot", "macros such as @hourly"},
  };
  for (const Case& c : cases) {
    Result<CronSpec> r = ParseCron(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument) << c.text;
    EXPECT_TRUE(r.status().Is(codes::kInvalidSchedule)) << c.text;
    EXPECT_EQ(FieldOf(r.status(), "schedule"), c.text);
    EXPECT_NE(r.status().message().find(c.message), std::string::npos)
        << c.text << ": " << r.status().message();
  }
  // Text longer than 1 KiB, and control bytes in a message.
  EXPECT_FALSE(ParseCron(std::string(2000, '*')).ok());
  Result<CronSpec> r = ParseCron(std::string("0 0 * * \x01"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("field '?'"), std::string::npos) << r.status().message();
}

TEST(Cron, RefusesSpecsThatNeverFire) {
  // (With one day field unrestricted, both must match: 30 February on any weekday.)
  for (const char* text : {"0 0 31 2 *", "0 0 30 2 *", "0 0 30,31 2 *", "0 0 31 4,6,9,11 *",
                           "0 0 31 FEB,apr *", "0 0 30-31 2 *", "0 0 30/1 2 *", "0 0 30 2 */3"}) {
    Result<CronSpec> r = ParseCron(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(r.status().Is(codes::kInvalidSchedule)) << text;
    EXPECT_NE(r.status().message().find("never fires"), std::string::npos) << r.status().message();
  }
  // February 29, a day of another month, or a weekday (either day field matches) all fire.
  for (const char* text : {"0 0 29 2 *", "0 0 31 2,3 *", "0 0 31 2 1", "0 0 29-31 2 *",
                           "0 0 */31 2 1", "0 0 31 * *"}) {
    EXPECT_TRUE(ParseCron(text).ok()) << text;
  }
}

TEST(Cron, MatchesDaysByTheVixieRule) {
  // Both day fields restricted: either matches (the 1st or a Monday).
  CronSpec both = Parse("0 0 1 * MON");
  EXPECT_TRUE(both.dom_restricted && both.dow_restricted);
  EXPECT_TRUE(both.MatchesDay(5, 1, 3));
  EXPECT_TRUE(both.MatchesDay(5, 2, 1));
  EXPECT_FALSE(both.MatchesDay(5, 2, 3));
  // One restricted: both must match (so every Monday; every 1st).
  CronSpec dow = Parse("0 0 * * 1");
  EXPECT_TRUE(dow.MatchesDay(5, 2, 1));
  EXPECT_FALSE(dow.MatchesDay(5, 1, 3));
  CronSpec dom = Parse("0 0 1 * *");
  EXPECT_TRUE(dom.MatchesDay(5, 1, 3));
  EXPECT_FALSE(dom.MatchesDay(5, 2, 1));
  // A field starting with '*' counts as unrestricted even with a step: the odd days that are
  // Mondays.
  CronSpec step = Parse("0 0 */2 * 1");
  EXPECT_FALSE(step.dom_restricted);
  EXPECT_TRUE(step.MatchesDay(5, 3, 1));
  EXPECT_FALSE(step.MatchesDay(5, 2, 1));
  EXPECT_FALSE(step.MatchesDay(5, 3, 2));
  // A full range written out is restricted.
  CronSpec full = Parse("0 0 1-31 * 1");
  EXPECT_TRUE(full.MatchesDay(5, 2, 3));
  EXPECT_FALSE(Parse("0 0 1 1 *").MatchesDay(2, 1, 3));  // the month always has to match
}

TEST(Cron, PrintsNormalizedTextThatParsesBackTheSame) {
  struct Case {
    const char* text;
    const char* normalized;
  };
  const Case cases[] = {
      {"* * * * *", "* * * * *"},
      {"0 * * * *", "0 * * * *"},
      {"*/15  0-6/2 1,15 JAN-mar,12 MON-FRI", "*/15 0,2,4,6 1,15 1-3,12 1-5"},
      {"0 */12 * */3 *", "0 */12 * */3 *"},
      {"0 0 */2,4 * */3,5", "0 0 */2,4 * */3,5"},
      {"0 0 * * */7", "0 0 * * */7"},
      {"0-59 0-23 * 1-12 *", "* * * * *"},
      {"0 0 1-31 * 0-7", "0 0 1-31 * 0-6"},
      {"0 0 */2 * 1", "0 0 */2 * 1"},
      {"0 0 * * 7", "0 0 * * 0"},
      {"0 0 * * 5-7", "0 0 * * 0,5,6"},
      {"5/20 * * * *", "5,25,45 * * * *"},
      {"0 0 */31 2 1", "0 0 */31 2 1"},
      {"0 0 *,5 * *", "0 0 * * *"},
      {"30 1 * * *", "30 1 * * *"},
  };
  for (const Case& c : cases) {
    CronSpec s = Parse(c.text);
    EXPECT_EQ(s.ToString(), c.normalized) << c.text;
    CronSpec back = Parse(s.ToString());
    EXPECT_EQ(back.minutes, s.minutes) << c.text;
    EXPECT_EQ(back.hours, s.hours) << c.text;
    EXPECT_EQ(back.days_of_month, s.days_of_month) << c.text;
    EXPECT_EQ(back.months, s.months) << c.text;
    EXPECT_EQ(back.days_of_week, s.days_of_week) << c.text;
    EXPECT_EQ(back.dom_restricted, s.dom_restricted) << c.text;
    EXPECT_EQ(back.dow_restricted, s.dow_restricted) << c.text;
  }
}

// ---------------------------------------------------------------------------------------------
// The calendar.

TEST(Calendar, CountsDaysOfTheProlepticGregorianCalendar) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(WeekdayOfDays(0), 4);  // Thursday
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(WeekdayOfDays(-1), 3);
  EXPECT_EQ(WeekdayOfDays(DaysFromCivil(2026, 3, 29)), 0);
  EXPECT_EQ(WeekdayOfDays(DaysFromCivil(2028, 2, 29)), 2);
  EXPECT_EQ(At(2026, 3, 29, 1), 1774746000);
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_FALSE(IsLeapYear(2100));
  EXPECT_EQ(DaysInMonth(2028, 2), 29);
  EXPECT_EQ(DaysInMonth(2100, 2), 28);
  // Day after day, over more than two 400-year cycles either side of the epoch.
  CivilDay prev = CivilFromDays(-400000);
  EXPECT_EQ(DaysFromCivil(prev.year, prev.month, prev.day), -400000);
  for (int64_t d = -399999; d <= 400000; ++d) {
    const CivilDay c = CivilFromDays(d);
    if (c.day == 1) {
      ASSERT_EQ(prev.day, DaysInMonth(prev.year, prev.month)) << d;
      ASSERT_EQ(c.month, prev.month == 12 ? 1 : prev.month + 1) << d;
      ASSERT_EQ(c.year, prev.month == 12 ? prev.year + 1 : prev.year) << d;
    } else {
      ASSERT_EQ(c.day, prev.day + 1) << d;
      ASSERT_EQ(c.month, prev.month) << d;
    }
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d);
    ASSERT_EQ(WeekdayOfDays(d), (WeekdayOfDays(d - 1) + 1) % 7);
    prev = c;
  }
}

// ---------------------------------------------------------------------------------------------
// Time zones.

TEST(TimeZone, UtcNeedsNoZoneFiles) {
  TempDir empty;
  ScopedEnv tzdir("TZDIR", empty.path());
  for (const char* name : {"UTC", "Etc/UTC"}) {
    Result<TimeZone> z = TimeZone::Load(name);
    ASSERT_TRUE(z.ok()) << z.status().ToString();
    EXPECT_EQ(z->name(), name);
    EXPECT_EQ(z->OffsetAt(At(2026, 7, 1)), 0);
    EXPECT_EQ(z->LocalToUtc(At(2026, 3, 29, 1, 30)), std::vector<int64_t>{At(2026, 3, 29, 1, 30)});
  }
  EXPECT_EQ(TimeZone::Utc().name(), "UTC");
  // Any other zone needs its file.
  Result<TimeZone> london = TimeZone::Load("Europe/London");
  ASSERT_FALSE(london.ok());
  EXPECT_TRUE(london.status().Is(codes::kUnknownTimeZone)) << london.status().ToString();
}

TEST(TimeZone, LondonAndNewYorkChangeOffsetAtTheRightInstants) {
  const TimeZone london = Zone("Europe/London");
  EXPECT_EQ(london.name(), "Europe/London");
  EXPECT_EQ(london.OffsetAt(At(2026, 1, 15)), 0);
  EXPECT_EQ(london.OffsetAt(At(2026, 3, 29, 0, 59, 59)), 0);
  EXPECT_EQ(london.OffsetAt(At(2026, 3, 29, 1)), 3600);  // 01:00 GMT -> 02:00 BST
  EXPECT_EQ(london.OffsetAt(At(2026, 7, 1)), 3600);
  EXPECT_EQ(london.OffsetAt(At(2026, 10, 25, 0, 59, 59)), 3600);
  EXPECT_EQ(london.OffsetAt(At(2026, 10, 25, 1)), 0);  // 02:00 BST -> 01:00 GMT

  const TimeZone ny = Zone("America/New_York");
  EXPECT_EQ(ny.OffsetAt(At(2026, 1, 15)), -5 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2026, 3, 8, 6, 59, 59)), -5 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2026, 3, 8, 7)), -4 * 3600);  // 02:00 EST -> 03:00 EDT
  EXPECT_EQ(ny.OffsetAt(At(2026, 11, 1, 5, 59, 59)), -4 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2026, 11, 1, 6)), -5 * 3600);  // 02:00 EDT -> 01:00 EST
}

TEST(TimeZone, MapsWallClockTimesToNoneOneOrTwoInstants) {
  const TimeZone london = Zone("Europe/London");
  EXPECT_EQ(london.LocalToUtc(At(2026, 3, 29, 0, 59)),
            std::vector<int64_t>{At(2026, 3, 29, 0, 59)});
  EXPECT_TRUE(london.LocalToUtc(At(2026, 3, 29, 1)).empty());
  EXPECT_TRUE(london.LocalToUtc(At(2026, 3, 29, 1, 30)).empty());
  EXPECT_TRUE(london.LocalToUtc(At(2026, 3, 29, 1, 59, 59)).empty());
  EXPECT_EQ(london.LocalToUtc(At(2026, 3, 29, 2)), std::vector<int64_t>{At(2026, 3, 29, 1)});
  EXPECT_EQ(london.LocalToUtc(At(2026, 10, 25, 0, 59)),
            std::vector<int64_t>{At(2026, 10, 24, 23, 59)});
  EXPECT_EQ(london.LocalToUtc(At(2026, 10, 25, 1)),
            (std::vector<int64_t>{At(2026, 10, 25, 0), At(2026, 10, 25, 1)}));
  EXPECT_EQ(london.LocalToUtc(At(2026, 10, 25, 1, 30)),
            (std::vector<int64_t>{At(2026, 10, 25, 0, 30), At(2026, 10, 25, 1, 30)}));
  EXPECT_EQ(london.LocalToUtc(At(2026, 10, 25, 2)), std::vector<int64_t>{At(2026, 10, 25, 2)});
  EXPECT_EQ(london.EarliestUtc(At(2026, 10, 25, 1, 30)), At(2026, 10, 25, 0, 30));
  EXPECT_EQ(london.EarliestUtc(At(2026, 3, 29, 1, 30)), std::nullopt);

  const TimeZone ny = Zone("America/New_York");
  EXPECT_TRUE(ny.LocalToUtc(At(2026, 3, 8, 2, 30)).empty());
  EXPECT_EQ(ny.LocalToUtc(At(2026, 3, 8, 3)), std::vector<int64_t>{At(2026, 3, 8, 7)});
  EXPECT_EQ(ny.LocalToUtc(At(2026, 3, 8, 1, 59)), std::vector<int64_t>{At(2026, 3, 8, 6, 59)});
  EXPECT_EQ(ny.LocalToUtc(At(2026, 11, 1, 1, 30)),
            (std::vector<int64_t>{At(2026, 11, 1, 5, 30), At(2026, 11, 1, 6, 30)}));
  EXPECT_EQ(ny.LocalToUtc(At(2026, 7, 4, 12)), std::vector<int64_t>{At(2026, 7, 4, 16)});
  // Far outside any calendar: nothing, and no overflow.
  EXPECT_TRUE(ny.LocalToUtc(INT64_MAX).empty());
  EXPECT_TRUE(ny.LocalToUtc(INT64_MIN).empty());
  EXPECT_EQ(ny.OffsetAt(INT64_MAX), ny.OffsetAt(INT64_MAX - 1));
  (void)ny.OffsetAt(INT64_MIN);
}

TEST(TimeZone, FarFutureDatesFollowTheFootersRule) {
  // 2045 is past the last transition of either file (fat files list them to 2037): the
  // footers GMT0BST,M3.5.0/1,M10.5.0 and EST5EDT,M3.2.0,M11.1.0 decide.
  const TimeZone london = Zone("Europe/London");
  EXPECT_EQ(london.OffsetAt(At(2045, 1, 10)), 0);
  EXPECT_EQ(london.OffsetAt(At(2045, 3, 26, 0, 59, 59)), 0);
  EXPECT_EQ(london.OffsetAt(At(2045, 3, 26, 1)), 3600);
  EXPECT_EQ(london.OffsetAt(At(2045, 10, 29, 0, 59, 59)), 3600);
  EXPECT_EQ(london.OffsetAt(At(2045, 10, 29, 1)), 0);
  EXPECT_EQ(london.LocalToUtc(At(2045, 10, 29, 1, 30)).size(), 2u);
  EXPECT_TRUE(london.LocalToUtc(At(2045, 3, 26, 1, 30)).empty());
  const TimeZone ny = Zone("America/New_York");
  EXPECT_EQ(ny.OffsetAt(At(2045, 3, 12, 6, 59, 59)), -5 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2045, 3, 12, 7)), -4 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2045, 11, 5, 5, 59, 59)), -4 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2045, 11, 5, 6)), -5 * 3600);
  EXPECT_EQ(ny.OffsetAt(At(2345, 7, 1)), -4 * 3600);

  // The same footers alone (a slim file) agree with the whole files hour by hour.
  Result<TimeZone> slim_london = FooterZone("GMT0BST,M3.5.0/1,M10.5.0");
  Result<TimeZone> slim_ny = FooterZone("EST5EDT,M3.2.0,M11.1.0", -18000);
  ASSERT_TRUE(slim_london.ok()) << slim_london.status().ToString();
  ASSERT_TRUE(slim_ny.ok()) << slim_ny.status().ToString();
  for (int64_t t = At(2008, 1, 1); t < At(2060, 1, 1); t += 3600) {
    ASSERT_EQ(slim_london->OffsetAt(t), london.OffsetAt(t)) << Iso(t * kMicros);
    ASSERT_EQ(slim_ny->OffsetAt(t), ny.OffsetAt(t)) << Iso(t * kMicros);
  }
}

// Offsets from the C library (which reads the same files) for `zone`, or nullopt.
std::optional<int64_t> LibcOffset(int64_t t) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm;
  if (localtime_r(&tt, &tm) == nullptr) return std::nullopt;
  return tm.tm_gmtoff;
}

TEST(TimeZone, AgreesWithTheCLibraryOnManyZones) {
  const char* zones[] = {"Europe/London",      "America/New_York",  "Australia/Sydney",
                         "Europe/Dublin",      "America/Nuuk",      "Australia/Lord_Howe",
                         "Pacific/Apia",       "Asia/Kathmandu",    "Africa/Casablanca",
                         "America/Santiago",   "Pacific/Chatham",   "Asia/Tehran",
                         "America/St_Johns",   "Antarctica/Troll",  "Europe/Moscow",
                         "Pacific/Kiritimati", "America/Sao_Paulo", "Asia/Gaza"};
  for (const char* name : zones) {
    Result<TimeZone> z = TimeZone::Load(name);
    ASSERT_TRUE(z.ok()) << name << ": " << z.status().ToString();
    ScopedEnv tz("TZ", std::string(":") + name);
    tzset();
    int64_t compared = 0;
    std::optional<int64_t> prev;
    for (int64_t t = At(1970, 1, 1); t < At(2100, 1, 1); t += 12 * 3600 + 1019) {
      std::optional<int64_t> libc = LibcOffset(t);
      if (!libc) continue;
      ASSERT_EQ(z->OffsetAt(t), *libc) << name << " at " << Iso(t * kMicros);
      // Around each change, to the second.
      if (prev && *prev != *libc) {
        int64_t lo = t - 12 * 3600 - 1019;
        int64_t hi = t;
        while (hi - lo > 1) {
          const int64_t mid = lo + (hi - lo) / 2;
          (LibcOffset(mid) == prev ? lo : hi) = mid;
        }
        ASSERT_EQ(z->OffsetAt(lo), *LibcOffset(lo)) << name << " at " << Iso(lo * kMicros);
        ASSERT_EQ(z->OffsetAt(hi), *LibcOffset(hi)) << name << " at " << Iso(hi * kMicros);
      }
      // Every instant is found again from its wall-clock time.
      const std::vector<int64_t> back = z->LocalToUtc(t + *libc);
      ASSERT_NE(std::find(back.begin(), back.end(), t), back.end())
          << name << " at " << Iso(t * kMicros);
      prev = libc;
      ++compared;
    }
    EXPECT_GT(compared, 50000) << name;
  }
  tzset();
}

TEST(TimeZone, RefusesMalformedAndUnknownNames) {
  const std::string long_name = "Europe/" + std::string(250, 'a');
  for (std::string name :
       {std::string("../etc/passwd"), std::string("/etc/passwd"), std::string("Nowhere/City"),
        std::string(""), std::string("Europe/../../etc/passwd"), std::string("Europe//London"),
        std::string("Europe/London/"), std::string("Europe/Lon don"), std::string("./UTC"),
        std::string("zone.tab"), std::string("Europe/London\n"), std::string("America"),
        std::string("Europe/London\0x", 15), long_name, std::string("utc")}) {
    Result<TimeZone> z = TimeZone::Load(name);
    ASSERT_FALSE(z.ok()) << name;
    EXPECT_TRUE(z.status().Is(codes::kUnknownTimeZone)) << name << ": " << z.status().ToString();
    EXPECT_EQ(z.status().kind(), ErrorKind::kInvalidArgument) << name;
    EXPECT_EQ(FieldOf(z.status(), "time_zone"), name);
  }
  EXPECT_NE(TimeZone::Load("../etc/passwd").status().message().find("'..' component"),
            std::string::npos);
  EXPECT_NE(TimeZone::Load("/etc/passwd").status().message().find("must not start with '/'"),
            std::string::npos);
  EXPECT_NE(TimeZone::Load("").status().message().find("empty"), std::string::npos);
  // Names with every allowed character load when the file exists.
  EXPECT_TRUE(TimeZone::Load("Etc/GMT+5").ok());
  EXPECT_EQ(Zone("Etc/GMT+5").OffsetAt(0), -5 * 3600);  // POSIX signs: GMT+5 is west
  EXPECT_EQ(Zone("Etc/GMT-14").OffsetAt(0), 14 * 3600);
  EXPECT_EQ(Zone("America/Port-au-Prince").name(), "America/Port-au-Prince");
}

TEST(TimeZone, HonoursTzdirAndRefusesBrokenFiles) {
  const std::string london = ReadSystemZone("Europe/London");
  ASSERT_GT(london.size(), 100u);
  TempDir dir;
  dir.Write("Test/Zone", london);
  dir.Write("Test/Empty", "");
  dir.Write("Test/Text", "this is not a zone file\n");
  dir.Write("Test/Short", london.substr(0, 20));
  dir.Write("Test/Truncated", london.substr(0, london.size() / 2));
  dir.Write("Test/NoFooterEnd", london.substr(0, london.size() - 1));
  std::string huge_counts = london;
  huge_counts.replace(32, 4, "\xff\xff\xff\xff");  // timecnt
  dir.Write("Test/HugeCounts", huge_counts);
  std::string bad_version = london;
  bad_version[4] = '9';
  dir.Write("Test/BadVersion", bad_version);
  std::filesystem::create_directories(dir.path() + "/Test/Directory");
  ScopedEnv tzdir("TZDIR", dir.path());

  Result<TimeZone> z = TimeZone::Load("Test/Zone");
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(z->name(), "Test/Zone");
  EXPECT_EQ(z->OffsetAt(At(2026, 7, 1)), 3600);
  EXPECT_TRUE(TimeZone::Load("Europe/London").status().Is(codes::kUnknownTimeZone));

  for (const char* name : {"Test/Empty", "Test/Text", "Test/Directory", "Test/Missing"}) {
    Result<TimeZone> r = TimeZone::Load(name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_TRUE(r.status().Is(codes::kUnknownTimeZone)) << name << ": " << r.status().ToString();
  }
  for (const char* name :
       {"Test/Short", "Test/Truncated", "Test/NoFooterEnd", "Test/HugeCounts", "Test/BadVersion"}) {
    Result<TimeZone> r = TimeZone::Load(name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().kind(), ErrorKind::kCorruption) << name << ": " << r.status().ToString();
    EXPECT_EQ(FieldOf(r.status(), "time_zone"), name);
  }
}

TEST(TimeZone, RefusesEveryTruncationAndSurvivesEveryMutation) {
  const std::string london = ReadSystemZone("Europe/London");
  ASSERT_TRUE(TimeZone::FromTzif("L", london).ok());
  for (size_t n = 0; n < london.size(); ++n) {
    Result<TimeZone> r = TimeZone::FromTzif("L", std::string_view(london).substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    ASSERT_EQ(r.status().kind(), ErrorKind::kCorruption) << n << ": " << r.status().ToString();
  }
  // Random bytes anywhere: decoded or refused, never a crash; what decodes answers sanely.
  std::mt19937_64 rng(20260329);
  int decoded = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = london;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      // Mostly the headers and counts, where a wrong byte does most harm.
      const size_t at = rng() % 2 == 0 ? rng() % 64 : rng() % bytes.size();
      bytes[at] = static_cast<char>(rng());
    }
    if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
    Result<TimeZone> r = TimeZone::FromTzif("L", bytes);
    if (!r.ok()) continue;
    ++decoded;
    for (int64_t t : {int64_t{0}, At(2026, 3, 29, 1), At(2045, 7, 1), int64_t{-1} << 40}) {
      const int64_t offset = r->OffsetAt(t);
      EXPECT_LT(offset, 93600);
      EXPECT_GT(offset, -90000);
      for (int64_t u : r->LocalToUtc(t)) EXPECT_EQ(u + r->OffsetAt(u), t);
    }
  }
  EXPECT_GT(decoded, 0);
}

TEST(TimeZone, ReadsEveryFooterRuleForm) {
  struct Probe {
    int64_t utc;
    int64_t offset;
  };
  struct Case {
    const char* footer;
    std::vector<Probe> probes;
  };
  const Case cases[] = {
      {"<+03>-3", {{At(2026, 1, 1), 10800}, {At(2060, 7, 1), 10800}}},
      {"<-0330>3:30", {{At(2026, 1, 1), -12600}}},
      {"ABC-5:30", {{At(2026, 1, 1), 19800}}},
      {"ABC+4:15:30", {{At(2026, 1, 1), -(4 * 3600 + 15 * 60 + 30)}}},
      {"UTC0", {{At(2026, 1, 1), 0}}},
      // Nuuk since 2023: rule times before midnight.
      {"<-02>2<-01>,M3.5.0/-1,M10.5.0/0",
       {{At(2026, 3, 28, 23, 59, 59), -7200},
        {At(2026, 3, 29, 1), -3600},  // Sunday 29 March, -1:00 local = 28 March 23:00 (-02)
        {At(2026, 3, 29, 0, 59, 59), -7200},
        {At(2026, 10, 25, 0, 59, 59), -3600},
        {At(2026, 10, 25, 1), -7200}}},
      // Dublin: "daylight" is winter (negative DST).
      {"IST-1GMT0,M10.5.0,M3.5.0/1",
       {{At(2045, 1, 10), 0},
        {At(2045, 7, 1), 3600},
        {At(2045, 3, 26, 0, 59, 59), 0},
        {At(2045, 3, 26, 1), 3600},
        {At(2045, 10, 29, 0, 59, 59), 3600},
        {At(2045, 10, 29, 1), 0}}},
      // Sydney: southern hemisphere, DST across the new year.
      {"AEST-10AEDT,M10.1.0,M4.1.0/3",
       {{At(2045, 1, 10), 39600},
        {At(2045, 7, 1), 36000},
        {At(2045, 12, 31, 13), 39600},
        {At(2045, 4, 1, 15, 59, 59), 39600},  // Sunday 2 April 03:00 AEDT = 1 April 16:00Z
        {At(2045, 4, 1, 16), 36000}}},
      // DST all year.
      {"EST5EDT,0/0,J365/25",
       {{At(2026, 1, 1, 0, 0), -14400},
        {At(2026, 1, 1, 5, 0), -14400},
        {At(2026, 7, 1), -14400},
        {At(2028, 12, 31, 23), -14400}}},
      // Jn never counts February 29: J60 is 1 March; n counts it: 59 is 29 February in 2028.
      {"XXX3YYY,J60/2,J300/2",
       {{At(2028, 3, 1, 4, 59, 59), -10800},
        {At(2028, 3, 1, 5), -7200},
        {At(2027, 3, 1, 5), -7200},
        {At(2027, 3, 1, 4, 59), -10800}}},
      {"XXX3YYY,59/2,299/2",
       {{At(2028, 2, 29, 4, 59, 59), -10800},
        {At(2028, 2, 29, 5), -7200},
        {At(2027, 3, 1, 5), -7200},
        {At(2027, 3, 1, 4, 59), -10800}}},
      // Explicit DST offset and times with minutes and seconds; week 5 is the last.
      {"AAA-1BBB-3,M2.5.6/1:30:15,M11.1.1/+2:00",
       {{At(2026, 2, 28, 0, 30, 14), 3600},  // Saturday 28 February 01:30:15 (+1)
        {At(2026, 2, 28, 0, 30, 15), 10800}}},
  };
  for (const Case& c : cases) {
    Result<TimeZone> z = FooterZone(c.footer);
    ASSERT_TRUE(z.ok()) << c.footer << ": " << z.status().ToString();
    for (const Probe& p : c.probes) {
      EXPECT_EQ(z->OffsetAt(p.utc), p.offset) << c.footer << " at " << Iso(p.utc * kMicros);
    }
  }
  for (const char* bad :
       {"EST5EDT", "EST", "E5", "<AB>5", "<+03-3", "EST25", "EST5EDT,M13.1.0,M11.1.0",
        "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J300", "EST5EDT,J366,J1",
        "EST5EDT,366,1", "EST5EDT,M3.2.0/168,M11.1.0", "EST5EDT,M3.2.0", "EST5 ", "EST5:60",
        "EST5EDT,M3.2.0,M11.1.0,", "EST5\x01"}) {
    Result<TimeZone> z = FooterZone(bad);
    ASSERT_FALSE(z.ok()) << bad;
    EXPECT_EQ(z.status().kind(), ErrorKind::kCorruption) << bad;
  }
}

TEST(TimeZone, ReadsVersionOneFilesAndTheirLastType) {
  // Version 1: 32-bit transitions, no footer; the last type holds after the last transition.
  const std::string v1 =
      Tzif('\0', {At(2000, 1, 1), At(2010, 1, 1)}, {1, 0}, {{3600, false}, {7200, true}}, "");
  Result<TimeZone> z = TimeZone::FromTzif("V1", v1);
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(z->OffsetAt(At(1999, 12, 31, 23, 59, 59)), 3600);  // type 0 before the first
  EXPECT_EQ(z->OffsetAt(At(2000, 1, 1)), 7200);
  EXPECT_EQ(z->OffsetAt(At(2010, 1, 1)), 3600);
  EXPECT_EQ(z->OffsetAt(At(2100, 1, 1)), 3600);
  // The same as versions 2, 3 and 4 with an empty footer, and with a footer.
  for (char version : {'2', '3', '4'}) {
    Result<TimeZone> v = TimeZone::FromTzif(
        "V", Tzif(version, {At(2000, 1, 1), At(2010, 1, 1)}, {1, 0}, {{3600, 0}, {7200, 1}}, ""));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->OffsetAt(At(2005, 1, 1)), 7200);
    EXPECT_EQ(v->OffsetAt(At(2100, 1, 1)), 3600);
    Result<TimeZone> f = TimeZone::FromTzif(
        "V", Tzif(version, {At(2000, 1, 1)}, {0}, {{0, 0}}, "GMT0BST,M3.5.0/1,M10.5.0"));
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(f->OffsetAt(At(1990, 7, 1)), 0);  // before the first transition: type 0
    EXPECT_EQ(f->OffsetAt(At(2005, 7, 1)), 3600);
  }
  // Bad structure: transitions out of order, a type index out of range, no types, an offset
  // out of range, a second header of another version.
  EXPECT_FALSE(TimeZone::FromTzif("B", Tzif('2', {20, 10}, {0, 0}, {{0, 0}}, "")).ok());
  EXPECT_FALSE(TimeZone::FromTzif("B", Tzif('2', {10, 10}, {0, 0}, {{0, 0}}, "")).ok());
  EXPECT_FALSE(TimeZone::FromTzif("B", Tzif('2', {10}, {1}, {{0, 0}}, "")).ok());
  EXPECT_FALSE(TimeZone::FromTzif("B", Tzif('2', {}, {}, {}, "")).ok());
  EXPECT_FALSE(TimeZone::FromTzif("B", Tzif('2', {}, {}, {{100000, 0}}, "")).ok());
  EXPECT_FALSE(TimeZone::FromTzif("B", Tzif('2', {}, {}, {{INT32_MIN, 0}}, "")).ok());
  std::string mixed = Tzif('2', {}, {}, {{0, 0}}, "");
  mixed[44 + 4 + 6 + 4] = '3';  // version byte of the second header
  EXPECT_FALSE(TimeZone::FromTzif("B", mixed).ok());
  std::string leap = Tzif('\0', {}, {}, {{0, 0}}, "");
  leap[31] = 1;  // leapcnt 1, with its 8 bytes
  leap += std::string(8, '\0');
  Result<TimeZone> right = TimeZone::FromTzif("right/UTC", leap);
  ASSERT_FALSE(right.ok());
  EXPECT_TRUE(right.status().Is(codes::kUnknownTimeZone)) << right.status().ToString();
}

// ---------------------------------------------------------------------------------------------
// NextDue.

// The slots of `cron` in `zone` from `after` on, chained: NextDue(NextDue(after)) ...
std::vector<std::string> Chain(std::string_view cron, const TimeZone& zone, int64_t after_us,
                               int n) {
  const CronSpec spec = Parse(cron);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    Result<int64_t> next = NextDue(spec, zone, after_us);
    if (!next.ok()) {
      out.push_back(next.status().ToString());
      break;
    }
    out.push_back(Iso(*next));
    after_us = *next;
  }
  return out;
}

using Slots = std::vector<std::string>;

TEST(NextDue, HourlyThroughLondonsChanges) {
  const TimeZone london = Zone("Europe/London");
  // Spring: 00:00 GMT, (01:00 skipped), 02:00 BST: the UTC hours stay contiguous.
  EXPECT_EQ(Chain("0 * * * *", london, AtUs(2026, 3, 28, 22, 30), 5),
            (Slots{"2026-03-28T23:00:00Z", "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z",
                   "2026-03-29T02:00:00Z", "2026-03-29T03:00:00Z"}));
  // Fall: 01:00 BST (00:00Z) fires, 01:00 GMT (01:00Z) is the same wall time again and does not.
  EXPECT_EQ(Chain("0 * * * *", london, AtUs(2026, 10, 24, 22, 30), 5),
            (Slots{"2026-10-24T23:00:00Z", "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z",
                   "2026-10-25T03:00:00Z", "2026-10-25T04:00:00Z"}));
}

TEST(NextDue, HourlyThroughNewYorksChanges) {
  const TimeZone ny = Zone("America/New_York");
  // Spring: 01:00 EST (06:00Z), 02:00 does not exist, 03:00 EDT (07:00Z).
  EXPECT_EQ(Chain("0 * * * *", ny, AtUs(2026, 3, 8, 4, 30), 4),
            (Slots{"2026-03-08T05:00:00Z", "2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z",
                   "2026-03-08T08:00:00Z"}));
  // Fall: 01:00 EDT (05:00Z) fires, 01:00 EST (06:00Z) does not, 02:00 EST (07:00Z).
  EXPECT_EQ(Chain("0 * * * *", ny, AtUs(2026, 11, 1, 3, 30), 4),
            (Slots{"2026-11-01T04:00:00Z", "2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z",
                   "2026-11-01T08:00:00Z"}));
}

TEST(NextDue, ARepeatedTimeFiresOnceAndASkippedOneNever) {
  const TimeZone london = Zone("Europe/London");
  const TimeZone ny = Zone("America/New_York");
  // 01:30 on London's fall-back day: once, at 01:30 BST.
  EXPECT_EQ(Chain("30 1 * * *", london, AtUs(2026, 10, 24, 12), 3),
            (Slots{"2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z"}));
  // 02:30 does not exist in New York on 8 March 2026: the next is 02:30 EDT on the 9th.
  EXPECT_EQ(Chain("30 2 * * *", ny, AtUs(2026, 3, 7, 7), 3),
            (Slots{"2026-03-07T07:30:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"}));
  // Every local quarter of New York's repeated hour once: 01:00-01:45 EDT, then 02:00 EST.
  EXPECT_EQ(Chain("*/15 * * * *", ny, AtUs(2026, 11, 1, 4, 50), 7),
            (Slots{"2026-11-01T05:00:00Z", "2026-11-01T05:15:00Z", "2026-11-01T05:30:00Z",
                   "2026-11-01T05:45:00Z", "2026-11-01T07:00:00Z", "2026-11-01T07:15:00Z",
                   "2026-11-01T07:30:00Z"}));
  // Between the two occurrences of a repeated time, its second is not a slot.
  EXPECT_EQ(Chain("30 1 * * *", london, AtUs(2026, 10, 25, 1), 1), (Slots{"2026-10-26T01:30:00Z"}));
  EXPECT_EQ(Chain("30 1 * * *", london, AtUs(2026, 10, 25, 0, 30) + 1, 1),
            (Slots{"2026-10-26T01:30:00Z"}));
  EXPECT_EQ(Chain("30 1 * * *", london, AtUs(2026, 10, 25, 0, 30) - 1, 1),
            (Slots{"2026-10-25T00:30:00Z"}));
  EXPECT_EQ(Chain("*/15 * * * *", ny, AtUs(2026, 11, 1, 6, 20), 1),
            (Slots{"2026-11-01T07:00:00Z"}));
  EXPECT_EQ(Chain("*/15 * * * *", ny, AtUs(2026, 11, 1, 5, 20), 1),
            (Slots{"2026-11-01T05:30:00Z"}));
  EXPECT_EQ(Chain("* * * * *", ny, AtUs(2026, 11, 1, 6, 59, 59), 2),
            (Slots{"2026-11-01T07:00:00Z", "2026-11-01T07:01:00Z"}));
  // Every minute across the spring gap: 01:59 EST then 03:00 EDT, one UTC minute apart.
  EXPECT_EQ(Chain("* * * * *", ny, AtUs(2026, 3, 8, 6, 58), 2),
            (Slots{"2026-03-08T06:59:00Z", "2026-03-08T07:00:00Z"}));
  // A schedule that names only the skipped hour fires the next day.
  EXPECT_EQ(Chain("15 1 29 3 *", london, AtUs(2026, 3, 1), 2),
            (Slots{"2027-03-29T00:15:00Z", "2028-03-29T00:15:00Z"}));
}

TEST(NextDue, FindsLeapDaysAndDayFieldsEitherWay) {
  const TimeZone utc = TimeZone::Utc();
  const TimeZone london = Zone("Europe/London");
  EXPECT_EQ(Chain("0 0 29 2 *", utc, AtUs(2026, 1, 1), 3),
            (Slots{"2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z", "2036-02-29T00:00:00Z"}));
  EXPECT_EQ(Chain("0 0 29 2 *", london, AtUs(2096, 3, 1), 1), (Slots{"2104-02-29T00:00:00Z"}));
  // The 13th or a Friday (both restricted).
  EXPECT_EQ(Chain("0 12 13 * 5", utc, AtUs(2026, 2, 1), 7),
            (Slots{"2026-02-06T12:00:00Z", "2026-02-13T12:00:00Z", "2026-02-20T12:00:00Z",
                   "2026-02-27T12:00:00Z", "2026-03-06T12:00:00Z", "2026-03-13T12:00:00Z",
                   "2026-03-20T12:00:00Z"}));
  EXPECT_EQ(Chain("0 12 13 * 3", utc, AtUs(2026, 2, 1), 4),
            (Slots{"2026-02-04T12:00:00Z", "2026-02-11T12:00:00Z", "2026-02-13T12:00:00Z",
                   "2026-02-18T12:00:00Z"}));
  // Odd days that are Fridays (a day-of-month starting with '*' is unrestricted: both match).
  EXPECT_EQ(Chain("0 12 */2 * 5", utc, AtUs(2026, 2, 1), 3),
            (Slots{"2026-02-13T12:00:00Z", "2026-02-27T12:00:00Z", "2026-03-13T12:00:00Z"}));
  // 1 February on a Monday: 2027, then 2038 (longer than 8 years).
  EXPECT_EQ(Chain("0 0 */31 2 1", utc, AtUs(2026, 1, 1), 2),
            (Slots{"2027-02-01T00:00:00Z", "2038-02-01T00:00:00Z"}));
}

TEST(NextDue, IsStrictlyAfterAndOnWholeMinutes) {
  const TimeZone utc = TimeZone::Utc();
  const CronSpec spec = Parse("*/5 * * * *");
  const int64_t slot = AtUs(2026, 6, 1, 10, 5);
  EXPECT_EQ(*NextDue(spec, utc, slot - 1), slot);
  EXPECT_EQ(*NextDue(spec, utc, slot), slot + 300 * kMicros);
  EXPECT_EQ(*NextDue(spec, utc, slot + 1), slot + 300 * kMicros);
  EXPECT_EQ(*NextDue(spec, utc, slot - 300 * kMicros + 123456), slot);
  // Before the epoch as well.
  EXPECT_EQ(*NextDue(spec, utc, AtUs(1969, 12, 31, 23, 58, 30) + 7), AtUs(1970, 1, 1));
  EXPECT_EQ(*NextDue(Parse("59 23 31 12 *"), utc, AtUs(2026, 12, 31, 23, 59)),
            AtUs(2027, 12, 31, 23, 59));
}

TEST(NextDue, ReportsBadInputs) {
  Result<int64_t> r = NextDue("61 * * * *", "UTC", 0);
  EXPECT_TRUE(r.status().Is(codes::kInvalidSchedule)) << r.status().ToString();
  r = NextDue("0 * * * *", "Nowhere/City", 0);
  EXPECT_TRUE(r.status().Is(codes::kUnknownTimeZone)) << r.status().ToString();
  r = NextDue("0 * * * *", "Europe/London", AtUs(2026, 10, 24, 23, 30));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, AtUs(2026, 10, 25, 0));
  r = NextDue("0 * * * *", "UTC", INT64_MAX);
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  r = NextDue("0 * * * *", "UTC", INT64_MIN);
  EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
  // A spec built by hand that can never fire ends the search.
  CronSpec never = Parse("0 0 1 2 *");
  never.days_of_month = uint32_t{1} << 31;
  r = NextDue(never, TimeZone::Utc(), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(codes::kInvalidSchedule));
  EXPECT_NE(r.status().message().find("never fires"), std::string::npos);
}

TEST(NextDue, TakesMicrosecondsPerCall) {
  const TimeZone ny = Zone("America/New_York");
  const CronSpec specs[] = {Parse("0 * * * *"),   Parse("30 2 * * *"),  Parse("0 9 * * MON-FRI"),
                            Parse("0 0 1 */3 *"), Parse("*/5 * * * *"), Parse("0 0 29 2 *")};
  int calls = 0;
  const auto start = std::chrono::steady_clock::now();
  int64_t sink = 0;
  for (int i = 0; i < 2000; ++i) {
    for (const CronSpec& s : specs) {
      sink += *NextDue(s, ny, AtUs(2026, 1, 1) + i * int64_t{3607} * kMicros) / kMicros % 7 + 1;
      ++calls;
    }
  }
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
      calls;
  EXPECT_GT(sink, 0);
  // Loose, for sanitizer builds; a release build takes about a microsecond.
  EXPECT_LT(us, 200.0) << us << " us per call";
  std::printf("NextDue: %.2f us per call\n", us);
}

// ---------------------------------------------------------------------------------------------
// NextDue against a minute-by-minute reference built on the C library's localtime_r.

struct Minute {
  int64_t utc;
  uint8_t minute, hour, mday, month, wday;
  bool first;  // the first instant the wall clock shows this minute
};

// The minutes of [start, start + days) in `zone` (a TZ value), by the C library.
std::vector<Minute> ReferenceMinutes(const std::string& zone, int64_t start, int days) {
  ScopedEnv tz("TZ", zone);
  tzset();
  const int64_t before = 3 * 3600;  // earlier instants the same wall time may have had
  std::vector<int64_t> offsets;
  for (int64_t u = start - before; u < start + days * int64_t{86400}; u += 60) {
    const time_t t = static_cast<time_t>(u);
    struct tm tm;
    localtime_r(&t, &tm);
    offsets.push_back(tm.tm_gmtoff);
  }
  std::vector<Minute> out;
  for (size_t i = before / 60; i < offsets.size(); ++i) {
    const int64_t u = start - before + static_cast<int64_t>(i) * 60;
    const int64_t local = u + offsets[i];
    bool first = true;
    for (int64_t k = 30; k <= before / 60; k += 30) {  // 30 minutes up to 3 hours back
      if (offsets[i - k] == offsets[i] + k * 60) first = false;
    }
    const time_t t = static_cast<time_t>(u);
    struct tm tm;
    localtime_r(&t, &tm);
    EXPECT_EQ(tm.tm_min, local / 60 % 60);
    out.push_back({u, static_cast<uint8_t>(tm.tm_min), static_cast<uint8_t>(tm.tm_hour),
                   static_cast<uint8_t>(tm.tm_mday), static_cast<uint8_t>(tm.tm_mon + 1),
                   static_cast<uint8_t>(tm.tm_wday), first});
  }
  tzset();
  return out;
}

bool ReferenceMatch(const CronSpec& s, const Minute& m) {
  if (!((s.minutes >> m.minute) & 1) || !((s.hours >> m.hour) & 1) ||
      !((s.months >> m.month) & 1)) {
    return false;
  }
  const bool dom = (s.days_of_month >> m.mday) & 1;
  const bool dow = (s.days_of_week >> m.wday) & 1;
  return s.dom_restricted && s.dow_restricted ? dom || dow : dom && dow;
}

// A random field of `lo`-`hi`; `hot` values (the hours of the changes) come up more often.
std::string RandomField(std::mt19937_64& rng, int lo, int hi, const std::vector<int>& hot,
                        const char* const* names) {
  auto value = [&]() -> std::string {
    int v = !hot.empty() && rng() % 2 == 0 ? hot[rng() % hot.size()]
                                           : lo + static_cast<int>(rng() % (hi - lo + 1));
    if (names != nullptr && rng() % 3 == 0 && v - lo < 12 && names[v - lo] != nullptr) {
      return names[v - lo];
    }
    return std::to_string(v);
  };
  const int span = hi == 7 ? 7 : hi - lo + 1;  // steps: day-of-week's `*` is 0-6
  auto element = [&]() -> std::string {
    switch (rng() % 6) {
      case 0:
        return value();
      case 1: {
        int a = lo + static_cast<int>(rng() % (hi - lo + 1));
        int b = a + static_cast<int>(rng() % (hi - a + 1));
        return std::to_string(a) + "-" + std::to_string(b);
      }
      case 2:
        return "*/" + std::to_string(1 + rng() % std::min(span, 20));
      case 3: {
        int a = lo + static_cast<int>(rng() % (hi - lo + 1));
        int b = a + static_cast<int>(rng() % (hi - a + 1));
        return std::to_string(a) + "-" + std::to_string(b) + "/" + std::to_string(1 + rng() % 7);
      }
      case 4:
        return std::to_string(lo + rng() % (hi - lo + 1)) + "/" +
               std::to_string(1 + rng() % std::min(span, 9));
      default:
        return value();
    }
  };
  std::string out = element();
  while (rng() % 3 == 0) out += "," + element();
  return out;
}

TEST(NextDue, AgreesWithAMinuteByMinuteReference) {
  struct Window {
    const char* zone;  // a TZ value for the C library
    const char* name;  // for TimeZone::Load
    int64_t start;
  };
  std::vector<Window> windows;
  for (const auto& [tz, name] : std::vector<std::pair<const char*, const char*>>{
           {"UTC0", "UTC"},
           {":Europe/London", "Europe/London"},
           {":America/New_York", "America/New_York"}}) {
    windows.push_back({tz, name, At(2026, 2, 20)});  // 8 March (New York), 29 March (London)
    windows.push_back({tz, name, At(2026, 9, 20)});  // 25 October, 1 November
    windows.push_back({tz, name, At(2045, 10, 1)});  // past the files' transitions: the footers
  }
  constexpr int kDays = 60;
  std::vector<std::vector<Minute>> minutes;
  for (const Window& w : windows) minutes.push_back(ReferenceMinutes(w.zone, w.start, kDays));

  static const char* const kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                        "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
  static const char* const kDays7[] = {"SUN", "MON",   "TUE",   "WED",   "THU",   "FRI",
                                       "SAT", nullptr, nullptr, nullptr, nullptr, nullptr};
  std::mt19937_64 rng(8675309);
  int specs = 0;
  int64_t checks = 0;
  while (specs < 200) {
    std::string text;
    text += (rng() % 6 == 0 ? std::string("*") : RandomField(rng, 0, 59, {0, 15, 30, 45}, nullptr));
    text +=
        " " + (rng() % 4 == 0 ? std::string("*") : RandomField(rng, 0, 23, {0, 1, 2, 3}, nullptr));
    text += " " +
            (rng() % 2 == 0 ? std::string("*") : RandomField(rng, 1, 31, {1, 8, 25, 29}, nullptr));
    text += " " + (rng() % 3 != 0 ? std::string("*")
                                  : RandomField(rng, 1, 12, {2, 3, 4, 9, 10, 11}, kMonths));
    text += " " + (rng() % 2 == 0 ? std::string("*") : RandomField(rng, 0, 7, {0}, kDays7));
    Result<CronSpec> parsed = ParseCron(text);
    if (!parsed.ok()) {
      ASSERT_NE(parsed.status().message().find("never fires"), std::string::npos)
          << text << ": " << parsed.status().ToString();
      continue;
    }
    ++specs;
    const CronSpec& spec = *parsed;
    for (size_t w = 0; w < windows.size(); ++w) {
      const TimeZone zone = Zone(windows[w].name);
      const std::vector<Minute>& mins = minutes[w];
      const int64_t end = windows[w].start + kDays * int64_t{86400};
      std::vector<int64_t> slots;
      std::vector<int64_t> changes;  // instants where the offset changes
      for (size_t i = 0; i < mins.size(); ++i) {
        if (ReferenceMatch(spec, mins[i]) && mins[i].first) slots.push_back(mins[i].utc);
        if (i > 0 && (mins[i].hour * 60 + mins[i].minute) !=
                         (mins[i - 1].hour * 60 + mins[i - 1].minute + 1) % 1440) {
          changes.push_back(mins[i].utc);
        }
      }
      // The answer the reference expects after `after_us`, or nullopt past the window.
      auto expect = [&](int64_t after_us) -> std::optional<int64_t> {
        auto it = std::upper_bound(slots.begin(), slots.end(), after_us,
                                   [](int64_t a, int64_t s) { return a < s * kMicros; });
        if (it == slots.end()) return std::nullopt;
        return *it * kMicros;
      };
      auto check = [&](int64_t after_us) {
        ++checks;
        Result<int64_t> got = NextDue(spec, zone, after_us);
        ASSERT_TRUE(got.ok()) << text << " in " << windows[w].name << ": "
                              << got.status().ToString();
        const std::optional<int64_t> want = expect(after_us);
        if (want) {
          ASSERT_EQ(*got, *want) << "'" << text << "' in " << windows[w].name << " after "
                                 << Iso(after_us) << ": got " << Iso(*got) << ", want "
                                 << Iso(*want);
        } else {
          ASSERT_GE(*got, end * kMicros) << "'" << text << "' in " << windows[w].name << " after "
                                         << Iso(after_us) << ": got " << Iso(*got);
        }
      };
      auto near_change = [&](int64_t u) {
        for (int64_t c : changes) {
          if (u > c - 6 * 3600 && u < c + 6 * 3600) return true;
        }
        return false;
      };
      check(windows[w].start * kMicros - 1);
      for (size_t i = 0; i < slots.size(); ++i) {
        if (i < 100 || i % 97 == 0 || near_change(slots[i])) check(slots[i] * kMicros);
      }
      for (int64_t c : changes) {
        for (int64_t d = -3 * 3600; d <= 3 * 3600; d += 7 * 60 + 13) check((c + d) * kMicros + 17);
      }
      for (int i = 0; i < 30; ++i) {
        check(windows[w].start * kMicros +
              static_cast<int64_t>(rng() % static_cast<uint64_t>(kDays * 86400 * kMicros)));
      }
    }
  }
  EXPECT_GT(checks, 100000);
}

}  // namespace
}  // namespace tarn::schedule
