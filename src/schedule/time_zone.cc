#include "schedule/time_zone.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "schedule/error_codes.h"

namespace tarn::schedule {
namespace {

constexpr int64_t kSecondsPerDay = 86400;
// Offsets from UTC are within (-25 h, +26 h) (RFC 8536 section 3.2; a TZ string's hours are at
// most 24), so the instants of one wall-clock time lie within this distance of it.
constexpr int64_t kMaxOffset = 93600;
// Instants beyond about a million years either way are read as this far: the offsets there are
// those of the clamped instant, and LocalToUtc finds nothing.
constexpr int64_t kLimitSeconds = int64_t{1} << 45;
// Transitions LocalToUtc walks through in the two days around one wall-clock time.
constexpr int kMaxWalk = 32;
// Zone files are a few KiB; anything much larger is not one.
constexpr int64_t kMaxFileBytes = 1 << 20;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t Clamp(int64_t t) { return std::clamp(t, -kLimitSeconds, kLimitSeconds); }

// Days before each month of a year that starts in March (March 0 ... February 11).
constexpr int kDaysBeforeMarchMonth[12] = {0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 306, 337};
// Days from 0000-03-01 to 1970-01-01.
constexpr int64_t kEpochFromMarch0 = 719468;
constexpr int64_t kDaysPer400Years = 146097;

// Days before the March-based year `y` of a 400-year cycle that starts in a leap March (0-399).
int64_t DaysBeforeYearOfEra(int64_t y) { return y * 365 + y / 4 - y / 100; }

}  // namespace

bool IsLeapYear(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month];
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  // Count in years that start on March 1, so that the leap day is the last of its year.
  const int64_t march_year = month <= 2 ? year - 1 : year;
  const int march_month = month <= 2 ? month + 9 : month - 3;
  const int64_t era = FloorDiv(march_year, 400);
  const int64_t year_of_era = march_year - era * 400;
  return era * kDaysPer400Years + DaysBeforeYearOfEra(year_of_era) +
         kDaysBeforeMarchMonth[march_month] + day - 1 - kEpochFromMarch0;
}

CivilDay CivilFromDays(int64_t days) {
  const int64_t from_march0 = days + kEpochFromMarch0;
  const int64_t era = FloorDiv(from_march0, kDaysPer400Years);
  const int64_t day_of_era = from_march0 - era * kDaysPer400Years;  // 0-146096
  int64_t year_of_era = std::min<int64_t>(day_of_era / 365, 399);
  while (DaysBeforeYearOfEra(year_of_era) > day_of_era) --year_of_era;
  const int day_of_year = static_cast<int>(day_of_era - DaysBeforeYearOfEra(year_of_era));
  int march_month = 11;
  while (kDaysBeforeMarchMonth[march_month] > day_of_year) --march_month;
  CivilDay c;
  c.day = day_of_year - kDaysBeforeMarchMonth[march_month] + 1;
  c.month = march_month < 10 ? march_month + 3 : march_month - 9;
  c.year = era * 400 + year_of_era + (c.month <= 2 ? 1 : 0);
  return c;
}

int WeekdayOfDays(int64_t days) {
  return static_cast<int>(days - FloorDiv(days + 4, 7) * 7 + 4);  // 1970-01-01 was a Thursday
}

// ---------------------------------------------------------------------------------------------
// The zone's data.

struct TimeZone::Data {
  // A date and time of a POSIX TZ string's rule: `Jn` (1-365, February 29 never counted), `n`
  // (0-365, counted) or `Mm.w.d` (weekday d of week w, 5 the last, of month m), at `time`
  // seconds after that day's local midnight (-167 h to 167 h).
  struct Rule {
    enum class Kind : uint8_t { kJulian1, kJulian0, kMonthWeekDay };
    Kind kind = Kind::kJulian0;
    int n = 0;  // Jn, n; the month of Mm.w.d
    int week = 0;
    int weekday = 0;
    int64_t time = 7200;

    // Days since 1970-01-01 of the rule's day in `year`.
    int64_t Day(int64_t year) const {
      const int64_t jan1 = DaysFromCivil(year, 1, 1);
      switch (kind) {
        case Kind::kJulian1:
          return jan1 + n - 1 + (IsLeapYear(year) && n >= 60 ? 1 : 0);
        case Kind::kJulian0:
          return jan1 + n;
        case Kind::kMonthWeekDay:
          break;
      }
      const int64_t first = DaysFromCivil(year, n, 1);
      int offset = (weekday - WeekdayOfDays(first) + 7) % 7 + 7 * (week - 1);
      while (offset >= DaysInMonth(year, n)) offset -= 7;
      return first + offset;
    }
  };
  // The footer: offsets east of UTC (the TZ string writes them west) and, with DST, its rules:
  // DST starts at `start` (local standard time) and ends at `end` (local daylight time).
  struct Posix {
    int64_t std_offset = 0;
    int64_t dst_offset = 0;
    bool has_dst = false;
    Rule start;
    Rule end;
  };
  struct Change {
    int64_t at;
    bool dst;
  };

  std::string name;
  std::vector<int64_t> transitions;  // UTC, strictly ascending
  std::vector<int32_t> offsets;      // offsets[i] is in effect from transitions[i]
  int64_t initial_offset = 0;        // before the first transition (time type 0)
  std::optional<Posix> footer;       // after the last transition (all times when there is none)

  // The footer's changes in the year of `t` and the years either side, ascending (an end before
  // a start at the same instant, so that a zone on DST all year stays on it).
  void FooterChanges(int64_t t, Change out[6]) const {
    const Posix& p = *footer;
    const int64_t year = CivilFromDays(FloorDiv(t + p.std_offset, kSecondsPerDay)).year;
    int n = 0;
    for (int64_t y = year - 1; y <= year + 1; ++y) {
      out[n++] = {p.start.Day(y) * kSecondsPerDay + p.start.time - p.std_offset, true};
      out[n++] = {p.end.Day(y) * kSecondsPerDay + p.end.time - p.dst_offset, false};
    }
    std::sort(out, out + 6, [](const Change& a, const Change& b) {
      return a.at != b.at ? a.at < b.at : a.dst < b.dst;
    });
  }

  int64_t FooterOffset(int64_t t) const {
    const Posix& p = *footer;
    if (!p.has_dst) return p.std_offset;
    Change changes[6];
    FooterChanges(t, changes);
    bool dst = !changes[0].dst;
    for (const Change& c : changes) {
      if (c.at <= t) dst = c.dst;
    }
    return dst ? p.dst_offset : p.std_offset;
  }

  int64_t OffsetAt(int64_t t) const {
    t = Clamp(t);
    if (transitions.empty()) return footer ? FooterOffset(t) : initial_offset;
    if (t < transitions.front()) return initial_offset;
    if (t >= transitions.back() && footer) return FooterOffset(t);
    auto it = std::upper_bound(transitions.begin(), transitions.end(), t);
    return offsets[static_cast<size_t>(it - transitions.begin()) - 1];
  }

  // The first instant after `t` at which the offset may change, or nullopt.
  std::optional<int64_t> NextTransition(int64_t t) const {
    t = Clamp(t);
    if (!transitions.empty() && t < transitions.back()) {
      return *std::upper_bound(transitions.begin(), transitions.end(), t);
    }
    if (!footer || !footer->has_dst || t >= kLimitSeconds) return std::nullopt;
    Change changes[6];
    FooterChanges(t, changes);
    for (const Change& c : changes) {
      if (c.at > t) return c.at;
    }
    return std::nullopt;
  }

  // The instants at which the wall clock reads `local`, ascending, into `out`; their number.
  int Resolve(int64_t local, int64_t out[kMaxWalk + 1]) const {
    if (local < -kLimitSeconds || local > kLimitSeconds) return 0;
    // Every offset in effect within kMaxOffset of `local`.
    int64_t candidates[kMaxWalk + 1];
    int count = 0;
    int64_t u = local - kMaxOffset;
    candidates[count++] = OffsetAt(u);
    for (int i = 0; i < kMaxWalk; ++i) {
      std::optional<int64_t> next = NextTransition(u);
      if (!next || *next > local + kMaxOffset) break;
      u = *next;
      const int64_t offset = OffsetAt(u);
      if (std::find(candidates, candidates + count, offset) == candidates + count) {
        candidates[count++] = offset;
      }
    }
    int found = 0;
    for (int i = 0; i < count; ++i) {
      if (OffsetAt(local - candidates[i]) == candidates[i]) out[found++] = local - candidates[i];
    }
    std::sort(out, out + found);
    return found;
  }
};

namespace {

using Data = TimeZone::Data;

Status Corrupt(std::string_view name, std::string what) {
  return Status::Corruption("time zone '" + std::string(name) + "': " + std::move(what))
      .WithField("time_zone", std::string(name));
}

Status Unknown(std::string_view name, std::string what) {
  return Status::Of(codes::kUnknownTimeZone, std::move(what))
      .WithField("time_zone", std::string(name));
}

// ---------------------------------------------------------------------------------------------
// POSIX TZ strings (the TZif footer): std offset [dst [offset] [,start[/time],end[/time]]].

class PosixParser {
 public:
  explicit PosixParser(std::string_view s) : s_(s) {}

  bool Parse(Data::Posix* out) {
    int64_t std_west = 0;
    if (!Name() || !Hms(24, &std_west)) return false;
    out->std_offset = -std_west;
    if (AtEnd()) return true;
    if (!Name()) return false;
    out->has_dst = true;
    out->dst_offset = out->std_offset + 3600;
    if (!AtEnd() && Peek() != ',') {
      int64_t dst_west = 0;
      if (!Hms(24, &dst_west)) return false;
      out->dst_offset = -dst_west;
    }
    // A DST name without rules leaves the rules to the reader; zic never writes one.
    return Eat(',') && RuleOf(&out->start) && Eat(',') && RuleOf(&out->end) && AtEnd();
  }

 private:
  bool AtEnd() const { return pos_ == s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  static bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  // A zone abbreviation: three or more letters, or <...> of letters, digits, '+' and '-'.
  bool Name() {
    size_t start = pos_;
    if (Eat('<')) {
      while (IsAlpha(Peek()) || IsDigit(Peek()) || Peek() == '+' || Peek() == '-') ++pos_;
      const size_t length = pos_ - start - 1;
      return length >= 3 && Eat('>');
    }
    while (IsAlpha(Peek())) ++pos_;
    return pos_ - start >= 3;
  }

  // Up to `digits` decimal digits, at least one.
  bool Number(int digits, int* value) {
    int v = 0;
    int n = 0;
    while (n < digits && IsDigit(Peek())) {
      v = v * 10 + (s_[pos_++] - '0');
      ++n;
    }
    *value = v;
    return n > 0;
  }

  // [+-]hh[:mm[:ss]] with hh at most `max_hours`, in seconds.
  bool Hms(int max_hours, int64_t* seconds) {
    int sign = 1;
    if (Eat('-')) {
      sign = -1;
    } else {
      Eat('+');
    }
    int h = 0;
    int m = 0;
    int sec = 0;
    if (!Number(3, &h) || h > max_hours) return false;
    if (Eat(':')) {
      if (!Number(2, &m) || m > 59) return false;
      if (Eat(':') && (!Number(2, &sec) || sec > 59)) return false;
    }
    *seconds = sign * (h * int64_t{3600} + m * 60 + sec);
    return true;
  }

  bool RuleOf(Data::Rule* r) {
    using Kind = Data::Rule::Kind;
    if (Eat('J')) {
      r->kind = Kind::kJulian1;
      if (!Number(3, &r->n) || r->n < 1 || r->n > 365) return false;
    } else if (Eat('M')) {
      r->kind = Kind::kMonthWeekDay;
      if (!Number(2, &r->n) || r->n < 1 || r->n > 12 || !Eat('.') || !Number(1, &r->week) ||
          r->week < 1 || r->week > 5 || !Eat('.') || !Number(1, &r->weekday) || r->weekday > 6) {
        return false;
      }
    } else {
      r->kind = Kind::kJulian0;
      if (!Number(3, &r->n) || r->n > 365) return false;
    }
    r->time = 7200;
    if (Eat('/')) return Hms(167, &r->time);  // RFC 8536 extends POSIX's 0-24 to -167-167
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// TZif (RFC 8536).

constexpr size_t kHeaderBytes = 44;

struct Header {
  char version;
  uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

uint32_t Be32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) << 24 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

uint64_t Be64(std::string_view b, size_t at) {
  return static_cast<uint64_t>(Be32(b, at)) << 32 | Be32(b, at + 4);
}

Status ReadHeader(std::string_view name, std::string_view b, size_t at, Header* h) {
  if (b.size() < at || b.size() - at < kHeaderBytes) return Corrupt(name, "truncated header");
  if (b.substr(at, 4) != "TZif") return Corrupt(name, "not a TZif file (bad magic)");
  h->version = b[at + 4];
  if (h->version != '\0' && h->version != '2' && h->version != '3' && h->version != '4') {
    return Corrupt(name, "unsupported TZif version");
  }
  h->isutcnt = Be32(b, at + 20);
  h->isstdcnt = Be32(b, at + 24);
  h->leapcnt = Be32(b, at + 28);
  h->timecnt = Be32(b, at + 32);
  h->typecnt = Be32(b, at + 36);
  h->charcnt = Be32(b, at + 40);
  return Status::OK();
}

// The bytes of a data block with `time_bytes`-byte times (4: version 1, 8: version 2+).
uint64_t BlockBytes(const Header& h, uint64_t time_bytes) {
  return h.timecnt * time_bytes + h.timecnt + h.typecnt * uint64_t{6} + h.charcnt +
         h.leapcnt * (time_bytes + 4) + h.isstdcnt + h.isutcnt;
}

// Reads the data block at `at` into `zone`.
Status ReadBlock(std::string_view name, std::string_view b, size_t at, const Header& h,
                 size_t time_bytes, Data* zone) {
  if (BlockBytes(h, time_bytes) > b.size() - at) return Corrupt(name, "truncated data block");
  if (h.typecnt == 0 || h.typecnt > 256) return Corrupt(name, "local time type count out of range");
  if (h.charcnt == 0) return Corrupt(name, "no time zone designations");
  if (h.isutcnt != 0 && h.isutcnt != h.typecnt)
    return Corrupt(name, "bad UT/local indicator count");
  if (h.isstdcnt != 0 && h.isstdcnt != h.typecnt) {
    return Corrupt(name, "bad standard/wall indicator count");
  }
  if (h.leapcnt != 0) {
    return Unknown(name, "time zone '" + std::string(name) +
                             "' counts leap seconds (a right/ zone); use the zone without right/");
  }
  size_t p = at;
  const size_t times_at = p;
  p += h.timecnt * time_bytes;
  const size_t indices_at = p;
  p += h.timecnt;
  const size_t types_at = p;
  p += h.typecnt * size_t{6};
  const size_t chars_at = p;
  p += h.charcnt;
  const size_t isstd_at = p;
  p += h.isstdcnt;
  const size_t isut_at = p;

  std::vector<int32_t> type_offsets(h.typecnt);
  const std::string_view chars = b.substr(chars_at, h.charcnt);
  for (size_t i = 0; i < h.typecnt; ++i) {
    const int64_t utoff = static_cast<int32_t>(Be32(b, types_at + 6 * i));
    const unsigned char isdst = static_cast<unsigned char>(b[types_at + 6 * i + 4]);
    const unsigned char desigidx = static_cast<unsigned char>(b[types_at + 6 * i + 5]);
    if (utoff <= -kMaxOffset + 3600 || utoff >= kMaxOffset) {
      return Corrupt(name, "UT offset " + std::to_string(utoff) + " out of range");
    }
    if (isdst > 1) return Corrupt(name, "bad DST indicator");
    if (desigidx >= h.charcnt || chars.find('\0', desigidx) == std::string_view::npos) {
      return Corrupt(name, "bad time zone designation index");
    }
    type_offsets[i] = static_cast<int32_t>(utoff);
  }
  for (size_t i = 0; i < h.isstdcnt; ++i) {
    if (static_cast<unsigned char>(b[isstd_at + i]) > 1) return Corrupt(name, "bad indicator");
  }
  for (size_t i = 0; i < h.isutcnt; ++i) {
    if (static_cast<unsigned char>(b[isut_at + i]) > 1) return Corrupt(name, "bad indicator");
  }
  zone->transitions.clear();
  zone->offsets.clear();
  zone->transitions.reserve(h.timecnt);
  zone->offsets.reserve(h.timecnt);
  for (size_t i = 0; i < h.timecnt; ++i) {
    const int64_t t = time_bytes == 4
                          ? static_cast<int64_t>(static_cast<int32_t>(Be32(b, times_at + 4 * i)))
                          : static_cast<int64_t>(Be64(b, times_at + 8 * i));
    if (!zone->transitions.empty() && t <= zone->transitions.back()) {
      return Corrupt(name, "transition times not in ascending order");
    }
    const unsigned char type = static_cast<unsigned char>(b[indices_at + i]);
    if (type >= h.typecnt) return Corrupt(name, "transition type index out of range");
    zone->transitions.push_back(t);
    zone->offsets.push_back(type_offsets[type]);
  }
  zone->initial_offset = type_offsets[0];
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Names and files.

Status ValidateName(std::string_view name) {
  if (name.empty()) return Unknown(name, "time zone name is empty");
  const std::string shown(name.substr(0, 64));
  if (name.size() > 255) {
    return Unknown(name, "time zone name '" + shown + "...' is longer than 255 bytes");
  }
  if (name.front() == '/') {
    return Unknown(name, "time zone name '" + shown + "' must not start with '/'");
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '+' || c == '/' || c == '.';
    if (!ok) {
      std::string s;
      for (char x : shown) s += (static_cast<unsigned char>(x) < 0x20 || x == 0x7f) ? '?' : x;
      return Unknown(name, "time zone name '" + s +
                               "' has a character other than letters, digits, '_', '-', '+' "
                               "and '/'");
    }
  }
  size_t start = 0;
  while (true) {
    const size_t slash = name.find('/', start);
    const std::string_view part = name.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty()) {
      return Unknown(name, "time zone name '" + shown + "' has an empty component");
    }
    if (part == ".." || part == ".") {
      return Unknown(name,
                     "time zone name '" + shown + "' has a '" + std::string(part) + "' component");
    }
    if (part.find('.') != std::string_view::npos) {
      return Unknown(name, "time zone name '" + shown +
                               "' has a character other than letters, digits, '_', '-', '+' "
                               "and '/'");
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return Status::OK();
}

std::string ZoneDirectory() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && dir[0] != '\0' ? std::string(dir) : std::string("/usr/share/zoneinfo");
}

// The bytes of the file at `path`.
Status ReadZoneFile(std::string_view name, const std::string& path, std::string* out) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG || err == ELOOP) {
      return Unknown(name, "unknown time zone '" + std::string(name) + "' (no file " + path + ")");
    }
    return Status::IOError("time zone '" + std::string(name) + "': opening " + path + ": " +
                           std::strerror(err))
        .WithField("time_zone", std::string(name));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return Status::IOError("time zone '" + std::string(name) + "': " + std::strerror(errno))
        .WithField("time_zone", std::string(name));
  }
  if (!S_ISREG(st.st_mode)) {
    return Unknown(
        name, "unknown time zone '" + std::string(name) + "' (" + path + " is not a zone file)");
  }
  if (st.st_size > kMaxFileBytes) return Corrupt(name, path + " is too large for a zone file");
  out->clear();
  char buffer[8192];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Status::IOError("time zone '" + std::string(name) + "': reading " + path + ": " +
                             std::strerror(errno))
          .WithField("time_zone", std::string(name));
    }
    if (n == 0) break;
    out->append(buffer, static_cast<size_t>(n));
    if (static_cast<int64_t>(out->size()) > kMaxFileBytes) {
      return Corrupt(name, path + " is too large for a zone file");
    }
  }
  return Status::OK();
}

// Zones loaded so far, by path: the files do not change while the process runs (a tzdata
// upgrade takes effect at the next start).
struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const Data>> zones;
};
Cache& TheCache() {
  static Cache* cache = new Cache();
  return *cache;
}
constexpr size_t kMaxCachedZones = 4096;

std::shared_ptr<const Data> UtcData(std::string_view name) {
  auto data = std::make_shared<Data>();
  data->name = std::string(name);
  return data;
}

}  // namespace

TimeZone TimeZone::Utc() {
  static const std::shared_ptr<const Data> utc = UtcData("UTC");
  return TimeZone(utc);
}

Result<TimeZone> TimeZone::FromTzif(std::string_view name, std::string_view tzif) {
  auto data = std::make_shared<Data>();
  data->name = std::string(name);
  Header h1;
  TARN_RETURN_NOT_OK(ReadHeader(name, tzif, 0, &h1));
  size_t at = kHeaderBytes;
  if (h1.version == '\0') {
    TARN_RETURN_NOT_OK(ReadBlock(name, tzif, at, h1, 4, data.get()));
    return TimeZone(std::move(data));
  }
  // Version 2+: skip the version 1 block, read the 64-bit one and the footer.
  const uint64_t v1_bytes = BlockBytes(h1, 4);
  if (v1_bytes > tzif.size() - at) return Corrupt(name, "truncated version 1 data block");
  at += v1_bytes;
  Header h2;
  TARN_RETURN_NOT_OK(ReadHeader(name, tzif, at, &h2));
  if (h2.version != h1.version) return Corrupt(name, "the two headers disagree on the version");
  at += kHeaderBytes;
  TARN_RETURN_NOT_OK(ReadBlock(name, tzif, at, h2, 8, data.get()));
  at += BlockBytes(h2, 8);
  if (at >= tzif.size() || tzif[at] != '\n') return Corrupt(name, "missing footer");
  const size_t end = tzif.find('\n', at + 1);
  if (end == std::string_view::npos) return Corrupt(name, "unterminated footer");
  const std::string_view tz = tzif.substr(at + 1, end - at - 1);
  if (!tz.empty()) {
    Data::Posix posix;
    if (!PosixParser(tz).Parse(&posix)) {
      std::string shown;
      for (char c : tz.substr(0, 64)) {
        shown += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
                     ? '?'
                     : c;
      }
      return Corrupt(name, "bad TZ string '" + shown + "' in the footer");
    }
    data->footer = posix;
  }
  return TimeZone(std::move(data));
}

Result<TimeZone> TimeZone::Load(std::string_view name) {
  if (name == "UTC") return Utc();
  if (name == "Etc/UTC") {
    static const std::shared_ptr<const Data> etc_utc = UtcData("Etc/UTC");
    return TimeZone(etc_utc);
  }
  TARN_RETURN_NOT_OK(ValidateName(name));
  const std::string path = ZoneDirectory() + "/" + std::string(name);
  Cache& cache = TheCache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.zones.find(path);
    if (it != cache.zones.end()) return TimeZone(it->second);
  }
  std::string bytes;
  TARN_RETURN_NOT_OK(ReadZoneFile(name, path, &bytes));
  if (!std::string_view(bytes).starts_with("TZif")) {
    return Unknown(name, "unknown time zone '" + std::string(name) + "' (" + path +
                             " is not a TZif zone file)");
  }
  TARN_ASSIGN_OR_RETURN(TimeZone zone, FromTzif(name, bytes));
  std::lock_guard<std::mutex> lock(cache.mu);
  if (cache.zones.size() < kMaxCachedZones) cache.zones.emplace(path, zone.data_);
  return zone;
}

const std::string& TimeZone::name() const { return data_->name; }

int64_t TimeZone::OffsetAt(int64_t utc_seconds) const { return data_->OffsetAt(utc_seconds); }

std::vector<int64_t> TimeZone::LocalToUtc(int64_t local_seconds) const {
  int64_t out[kMaxWalk + 1];
  const int n = data_->Resolve(local_seconds, out);
  return std::vector<int64_t>(out, out + n);
}

std::optional<int64_t> TimeZone::EarliestUtc(int64_t local_seconds) const {
  int64_t out[kMaxWalk + 1];
  if (data_->Resolve(local_seconds, out) == 0) return std::nullopt;
  return out[0];
}

}  // namespace tarn::schedule
