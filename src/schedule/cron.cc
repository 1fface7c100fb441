#include "schedule/cron.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <vector>

#include "schedule/error_codes.h"

namespace tarn::schedule {
namespace {

constexpr size_t kMaxTextBytes = 1024;

struct Field {
  std::string_view name;  // as the messages name it
  int min;
  int max;       // largest value written
  int star_max;  // largest value of `*` and `a/s` (day-of-week: 6, Saturday)
  const std::array<std::string_view, 12>* names;  // or nullptr
  int names_count;
  int first_name_value;  // the value of names[0]
};

constexpr std::array<std::string_view, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                          "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<std::string_view, 12> kWeekdayNames = {"sun", "mon", "tue", "wed",
                                                            "thu", "fri", "sat"};

constexpr Field kFields[5] = {
    {"minute", 0, 59, 59, nullptr, 0, 0},           {"hour", 0, 23, 23, nullptr, 0, 0},
    {"day-of-month", 1, 31, 31, nullptr, 0, 0},     {"month", 1, 12, 12, &kMonthNames, 12, 1},
    {"day-of-week", 0, 7, 6, &kWeekdayNames, 7, 0},
};

// `s` for a message: at most 40 bytes, control bytes shown as '?'.
std::string Shown(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  }
  if (s.size() > 40) out += "...";
  return out;
}

Status Invalid(std::string_view text, std::string message) {
  return Status::Of(codes::kInvalidSchedule, std::move(message))
      .WithField("schedule", std::string(text));
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The value of digits `s`, saturated at 1'000'000 (out of every range).
int DigitsValue(std::string_view s) {
  int v = 0;
  for (char c : s) {
    v = v * 10 + (c - '0');
    if (v > 1'000'000) return 1'000'000;
  }
  return v;
}

class FieldParser {
 public:
  FieldParser(std::string_view text, const Field& field) : text_(text), field_(field) {}

  // Parses `field_text` (the whole field) into `*bits`.
  Status Parse(std::string_view field_text, uint64_t* bits) {
    *bits = 0;
    size_t start = 0;
    while (true) {
      size_t comma = field_text.find(',', start);
      std::string_view element = field_text.substr(
          start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      if (element.empty()) {
        return Error("'" + Shown(field_text) + "' has an empty list element");
      }
      TARN_RETURN_NOT_OK(ParseElement(element, bits));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return Status::OK();
  }

 private:
  Status Error(std::string what) const {
    return Invalid(text_, std::string(field_.name) + " field " + std::move(what));
  }

  // One value: digits, or a name where the field has names.
  Status ParseValue(std::string_view element, std::string_view s, int* value) const {
    if (IsDigits(s)) {
      *value = DigitsValue(s);
    } else {
      bool found = false;
      if (field_.names != nullptr && s.size() == 3) {
        std::string lower;
        for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        for (int i = 0; i < field_.names_count; ++i) {
          if ((*field_.names)[i] == lower) {
            *value = field_.first_name_value + i;
            found = true;
          }
        }
      }
      if (!found) {
        return Error("'" + Shown(element) + "' is not a number, range or step" +
                     (field_.names == nullptr    ? ""
                      : field_.names_count == 12 ? " (months are 1-12 or JAN-DEC)"
                                                 : " (weekdays are 0-7 or SUN-SAT)"));
      }
    }
    if (*value < field_.min || *value > field_.max) {
      return Error("'" + Shown(element) + "' is out of range " + std::to_string(field_.min) + "-" +
                   std::to_string(field_.max));
    }
    return Status::OK();
  }

  Status ParseElement(std::string_view element, uint64_t* bits) const {
    std::string_view base = element;
    int step = 1;
    bool stepped = false;
    if (size_t slash = element.find('/'); slash != std::string_view::npos) {
      base = element.substr(0, slash);
      std::string_view s = element.substr(slash + 1);
      if (!IsDigits(s)) {
        return Error("'" + Shown(element) + "' has a step that is not a number");
      }
      step = DigitsValue(s);
      const int span = field_.star_max - field_.min + 1;
      if (step < 1 || step > span) {
        return Error("'" + Shown(element) + "' has a step out of range 1-" + std::to_string(span));
      }
      stepped = true;
      if (base.empty()) {
        return Error("'" + Shown(element) + "' is not a number, range or step");
      }
    }
    int lo = 0;
    int hi = 0;
    if (base == "*") {
      lo = field_.min;
      hi = field_.star_max;
    } else if (size_t dash = base.find('-'); dash != std::string_view::npos && dash > 0) {
      TARN_RETURN_NOT_OK(ParseValue(element, base.substr(0, dash), &lo));
      TARN_RETURN_NOT_OK(ParseValue(element, base.substr(dash + 1), &hi));
      if (lo > hi) return Error("'" + Shown(element) + "' is a backwards range");
    } else {
      TARN_RETURN_NOT_OK(ParseValue(element, base, &lo));
      hi = stepped ? std::max(lo, field_.star_max) : lo;
    }
    for (int v = lo; v <= hi; v += step) {
      *bits |= uint64_t{1} << (v == 7 && field_.max == 7 ? 0 : v);
    }
    return Status::OK();
  }

  std::string_view text_;
  const Field& field_;
};

// The text of the values of `bits` in [lo, hi] as a comma list of numbers and ranges.
std::string ListText(uint64_t bits, int lo, int hi) {
  std::string out;
  for (int v = lo; v <= hi;) {
    if (!((bits >> v) & 1)) {
      ++v;
      continue;
    }
    int end = v;
    while (end + 1 <= hi && ((bits >> (end + 1)) & 1)) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(v);
    if (end == v + 1) {
      out += ',' + std::to_string(end);
    } else if (end > v + 1) {
      out += '-' + std::to_string(end);
    }
    v = end + 1;
  }
  return out;
}

uint64_t Progression(int lo, int hi, int step) {
  uint64_t bits = 0;
  for (int v = lo; v <= hi; v += step) bits |= uint64_t{1} << v;
  return bits;
}

// The text of one field. A restricted day field is its list. Otherwise `*` when full, `*/s` when
// the field is exactly that progression (of two values or more but for a day field), else the
// list; an unrestricted day field must start with '*': `*/s,list`, s the smallest progression
// it holds.
std::string FieldText(uint64_t bits, int lo, int hi, bool day_field, bool restricted) {
  if (restricted) return ListText(bits, lo, hi);
  if (bits == Progression(lo, hi, 1)) return "*";
  for (int step = 2; step <= hi - lo + 1; ++step) {
    const uint64_t p = Progression(lo, hi, step);
    if (bits == p && (day_field || std::popcount(p) > 1)) return "*/" + std::to_string(step);
  }
  if (!day_field) return ListText(bits, lo, hi);
  for (int step = 2; step <= hi - lo + 1; ++step) {
    const uint64_t p = Progression(lo, hi, step);
    if ((bits & p) == p) return "*/" + std::to_string(step) + "," + ListText(bits & ~p, lo, hi);
  }
  return ListText(bits, lo, hi);  // not reached: an unrestricted day field holds its first day
}

}  // namespace

bool CronSpec::MatchesDay(int month, int day_of_month, int weekday) const {
  if (!HasMonth(month)) return false;
  const bool dom = (days_of_month >> day_of_month) & 1;
  const bool dow = (days_of_week >> weekday) & 1;
  return dom_restricted && dow_restricted ? dom || dow : dom && dow;
}

std::string CronSpec::ToString() const {
  return FieldText(minutes, 0, 59, false, false) + ' ' + FieldText(hours, 0, 23, false, false) +
         ' ' + FieldText(days_of_month, 1, 31, true, dom_restricted) + ' ' +
         FieldText(months, 1, 12, false, false) + ' ' +
         FieldText(days_of_week, 0, 6, true, dow_restricted);
}

Result<CronSpec> ParseCron(std::string_view text) {
  if (text.size() > kMaxTextBytes) {
    return Invalid(text, "schedule is longer than " + std::to_string(kMaxTextBytes) + " bytes");
  }
  std::vector<std::string_view> fields;
  for (size_t i = 0; i < text.size();) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    fields.push_back(text.substr(i, end - i));
    i = end;
  }
  if (fields.size() == 1 && fields[0].starts_with('@')) {
    return Invalid(text, "schedule '" + Shown(text) +
                             "': macros such as @hourly and @daily are not supported; write five "
                             "fields (minute hour day-of-month month day-of-week)");
  }
  if (fields.size() != 5) {
    return Invalid(text, "schedule '" + Shown(text) + "' has " + std::to_string(fields.size()) +
                             " fields; expected 5 (minute hour day-of-month month day-of-week)");
  }
  uint64_t bits[5];
  for (int i = 0; i < 5; ++i) {
    TARN_RETURN_NOT_OK(FieldParser(text, kFields[i]).Parse(fields[i], &bits[i]));
  }
  CronSpec spec;
  spec.text = std::string(text);
  spec.minutes = bits[0];
  spec.hours = static_cast<uint32_t>(bits[1]);
  spec.days_of_month = static_cast<uint32_t>(bits[2]);
  spec.months = static_cast<uint16_t>(bits[3]);
  spec.days_of_week = static_cast<uint8_t>(bits[4]);
  spec.dom_restricted = !fields[2].starts_with('*');
  spec.dow_restricted = !fields[4].starts_with('*');

  // When both day fields are restricted, every month has every weekday: the spec fires. Else a
  // day of the month must exist in one of the months (February 29 in leap years); every such
  // date falls on every weekday in some year.
  if (!(spec.dom_restricted && spec.dow_restricted)) {
    bool fires = false;
    for (int month = 1; month <= 12 && !fires; ++month) {
      if (!spec.HasMonth(month)) continue;
      static constexpr int kMaxDays[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
      for (int day = 1; day <= kMaxDays[month] && !fires; ++day) {
        fires = (spec.days_of_month >> day) & 1;
      }
    }
    if (!fires) {
      return Invalid(text, "schedule '" + Shown(text) +
                               "' never fires: no day of month it names exists in the months it "
                               "names");
    }
  }
  return spec;
}

}  // namespace tarn::schedule
