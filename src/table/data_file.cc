#include "tarn/data_file.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/hex.h"
#include "common/utf8.h"
#include "table/ordered_key.h"
#include "types/iceberg.h"

namespace tarn {

using nlohmann::json;

const ColumnStats* DataFile::FindStats(int32_t field_id) const {
  for (const ColumnStats& s : columns) {
    if (s.field_id == field_id) return &s;
  }
  return nullptr;
}

std::optional<std::pair<int64_t, int64_t>> DataFile::RowIdRange() const {
  if (const ColumnStats* s = FindStats(kRowIdFieldId)) {
    if (!s->lower || !s->upper || s->lower->size() != 8 || s->upper->size() != 8) {
      return std::nullopt;
    }
    int64_t lo = 0, hi = 0;
    std::memcpy(&lo, s->lower->data(), 8);  // Iceberg's long bound: 8 bytes little-endian
    std::memcpy(&hi, s->upper->data(), 8);
    return std::make_pair(lo, hi);
  }
  if (first_row_id < 0 || record_count <= 0) return std::nullopt;
  return std::make_pair(first_row_id, first_row_id + record_count - 1);
}

namespace {

// Min and max of the valid rows of a fixed-width column, compared with `less`.
template <typename T, typename Less>
bool MinMax(const Column& col, Less less, T* lo, T* hi) {
  const T* v = col.values<T>();
  bool any = false;
  const bool all_valid = col.validity.empty();
  for (int64_t i = 0; i < col.length; ++i) {
    if (!all_valid && col.validity[i] == 0) continue;
    T x;
    std::memcpy(&x, v + i, sizeof(T));
    if (!any) {
      *lo = *hi = x;
      any = true;
    } else {
      if (less(x, *lo)) *lo = x;
      if (less(*hi, x)) *hi = x;
    }
  }
  return any;
}

template <typename T>
void SetBounds(const DataType& type, const T& lo, const T& hi, ColumnStats* s) {
  s->lower =
      EncodeBoundPhysical(type, std::string_view(reinterpret_cast<const char*>(&lo), sizeof(T)));
  s->upper =
      EncodeBoundPhysical(type, std::string_view(reinterpret_cast<const char*>(&hi), sizeof(T)));
}

template <typename T>
void IntegerBounds(const Column& col, ColumnStats* s) {
  T lo{}, hi{};
  if (MinMax<T>(
          col, [](T a, T b) { return a < b; }, &lo, &hi))
    SetBounds(col.type, lo, hi, s);
}

// Floats: NaNs counted and skipped; -0 orders before +0.
template <typename F>
void FloatBounds(const Column& col, ColumnStats* s) {
  int64_t nans = 0;
  bool any = false;
  F lo = 0, hi = 0;
  const F* v = col.values<F>();
  const bool all_valid = col.validity.empty();
  for (int64_t i = 0; i < col.length; ++i) {
    if (!all_valid && col.validity[i] == 0) continue;
    F x;
    std::memcpy(&x, v + i, sizeof(F));
    if (std::isnan(x)) {
      ++nans;
      continue;
    }
    if (!any) {
      lo = hi = x;
      any = true;
      continue;
    }
    if (x < lo || (x == lo && std::signbit(x) && !std::signbit(lo))) lo = x;
    if (x > hi || (x == hi && !std::signbit(x) && std::signbit(hi))) hi = x;
  }
  s->nan_count = nans;
  if (any) SetBounds(col.type, lo, hi, s);
}

// Smallest string greater than every string with prefix `s`, for raw bytes: drop trailing 0xFF,
// increment the last byte. False when none exists.
bool IncrementBytes(std::string* s) {
  while (!s->empty() && static_cast<uint8_t>(s->back()) == 0xFF) s->pop_back();
  if (s->empty()) return false;
  s->back() = static_cast<char>(static_cast<uint8_t>(s->back()) + 1);
  return true;
}

// The same for valid UTF-8: increment the last code point that can be (skipping surrogates),
// dropping the ones after it; the result stays valid UTF-8 and fits in s->size() + 1 bytes.
bool IncrementUtf8(std::string* s) {
  while (!s->empty()) {
    const size_t start = Utf8CodePointStart(*s, s->size() - 1);
    const auto* p = reinterpret_cast<const uint8_t*>(s->data()) + start;
    const size_t len = s->size() - start;
    // A lone byte stands for itself; a longer run is read as (at most) 4 bytes of a sequence.
    const uint32_t cp =
        len == 1 ? p[0] : DecodeUtf8Sequence(p, static_cast<int>(std::min<size_t>(len, 4)));
    s->resize(start);
    uint32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next <= 0x10FFFF) {
      AppendUtf8(next, s);
      return true;
    }
  }
  return false;
}

void StringBounds(const Column& col, ColumnStats* s) {
  bool any = false;
  std::string_view lo, hi;
  for (int64_t i = 0; i < col.length; ++i) {
    if (!col.IsValid(i)) continue;
    std::string_view x = col.StringAt(i);
    if (!any) {
      lo = hi = x;
      any = true;
    } else {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  if (!any) return;
  const bool utf8 = col.type.id() != TypeId::kBlob;
  size_t lo_len =
      utf8 ? Utf8Cut(lo, kMaxStringBoundBytes) : std::min(lo.size(), kMaxStringBoundBytes);
  s->lower = std::string(lo.substr(0, lo_len));
  if (hi.size() <= kMaxStringBoundBytes) {
    s->upper = std::string(hi);
    return;
  }
  std::string up(hi.substr(0, utf8 ? Utf8Cut(hi, kMaxStringBoundBytes) : kMaxStringBoundBytes));
  if (utf8 ? IncrementUtf8(&up) : IncrementBytes(&up)) s->upper = std::move(up);
}

}  // namespace

ColumnStats ComputeColumnStats(int32_t field_id, const Column& col) {
  ColumnStats s;
  s.field_id = field_id;
  s.value_count = col.length;
  s.null_count = col.null_count();
  if (s.null_count == col.length &&
      !col.type.is_floating()) {  // all null: no bounds (floats still report nans = 0)
    return s;
  }
  switch (col.type.id()) {
    case TypeId::kBoolean:
    case TypeId::kUInt8:
      IntegerBounds<uint8_t>(col, &s);
      break;
    case TypeId::kInt8:
      IntegerBounds<int8_t>(col, &s);
      break;
    case TypeId::kInt16:
      IntegerBounds<int16_t>(col, &s);
      break;
    case TypeId::kUInt16:
      IntegerBounds<uint16_t>(col, &s);
      break;
    case TypeId::kInt32:
    case TypeId::kDate:
      IntegerBounds<int32_t>(col, &s);
      break;
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      IntegerBounds<uint32_t>(col, &s);
      break;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      IntegerBounds<int64_t>(col, &s);
      break;
    case TypeId::kUInt64:
      IntegerBounds<uint64_t>(col, &s);
      break;
    case TypeId::kDecimal:
      IntegerBounds<int128>(col, &s);
      break;
    case TypeId::kFloat32:
      FloatBounds<float>(col, &s);
      break;
    case TypeId::kFloat64:
      FloatBounds<double>(col, &s);
      break;
    case TypeId::kUuid: {
      int lo = -1, hi = -1;
      for (int64_t i = 0; i < col.length; ++i) {
        if (!col.IsValid(i)) continue;
        const uint8_t* p = col.data.data() + i * 16;
        if (lo < 0 || std::memcmp(p, col.data.data() + lo * 16, 16) < 0) lo = static_cast<int>(i);
        if (hi < 0 || std::memcmp(p, col.data.data() + hi * 16, 16) > 0) hi = static_cast<int>(i);
      }
      if (lo >= 0) {
        s.lower = EncodeBound(col, lo);
        s.upper = EncodeBound(col, hi);
      }
      break;
    }
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
      StringBounds(col, &s);
      break;
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:  // no bounds: a VARIANT's values have no order
      break;
  }
  if (s.lower && s.lower->empty() && !col.type.is_variable_width()) s.lower.reset();
  if (s.upper && s.upper->empty() && !col.type.is_variable_width()) s.upper.reset();
  return s;
}

void MergeColumnStats(const DataType& type, const ColumnStats& other, ColumnStats* into) {
  into->value_count += other.value_count;
  into->null_count += other.null_count;
  if (into->nan_count || other.nan_count) {
    into->nan_count = into->nan_count.value_or(0) + other.nan_count.value_or(0);
  }
  auto key = [&](const std::optional<std::string>& b) -> std::optional<std::string> {
    if (!b) return std::nullopt;
    Result<Column> c = DecodeBound(type, *b);
    if (!c.ok()) return std::nullopt;
    return OrderedKey(*c, 0);
  };
  // A side with no values at all contributes no bounds; a side with values but no bound (an
  // omitted upper) makes the merged bound unknown.
  const bool into_has = into->value_count - other.value_count > into->null_count - other.null_count;
  const bool other_has = other.value_count > other.null_count;
  auto merge = [&](std::optional<std::string>* mine, const std::optional<std::string>& theirs,
                   bool want_lower) {
    if (!other_has) return;
    if (!into_has) {
      *mine = theirs;
      return;
    }
    if (!*mine || !theirs) {
      mine->reset();
      return;
    }
    std::optional<std::string> a = key(*mine), b = key(theirs);
    if (!a || !b) {
      mine->reset();
      return;
    }
    if (want_lower ? (*b < *a) : (*b > *a)) *mine = theirs;
  };
  merge(&into->lower, other.lower, true);
  merge(&into->upper, other.upper, false);
}

// Stats JSON is written and read on every commit and every planned file, so both directions
// have a hand-written path for the exact shape written here (the same text nlohmann would dump:
// keys in string order, no spaces); any other valid JSON falls back to the general parser.
std::string StatsToJson(const std::vector<ColumnStats>& stats) {
  std::vector<std::pair<std::string, const ColumnStats*>> keyed;
  keyed.reserve(stats.size());
  for (const ColumnStats& s : stats) keyed.emplace_back(std::to_string(s.field_id), &s);
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  keyed.erase(std::unique(keyed.begin(), keyed.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              keyed.end());
  std::string out = "{";
  for (const auto& [key, s] : keyed) {
    if (out.size() > 1) out += ',';
    out += '"';
    out += key;
    out += "\":{";
    if (s->lower) out += "\"lower\":\"" + HexEncode(*s->lower) + "\",";
    if (s->nan_count) out += "\"nans\":" + std::to_string(*s->nan_count) + ",";
    out += "\"nulls\":" + std::to_string(s->null_count) + ",";
    if (s->upper) out += "\"upper\":\"" + HexEncode(*s->upper) + "\",";
    out += "\"values\":" + std::to_string(s->value_count) + "}";
  }
  out += '}';
  return out;
}

namespace {

// The fast reader of StatsToJson's own output; false on anything else (the caller then uses
// the general parser, which also produces the error messages).
bool ParseStatsFast(std::string_view t, std::vector<ColumnStats>* out) {
  size_t i = 0;
  auto eat = [&](char c) {
    if (i < t.size() && t[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  auto digits = [&](int64_t* v, size_t max_digits) {
    size_t start = i;
    int64_t x = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - start < max_digits) {
      x = x * 10 + (t[i] - '0');
      ++i;
    }
    if (i == start || (i < t.size() && t[i] >= '0' && t[i] <= '9')) return false;
    if (i - start > 1 && t[start] == '0') return false;
    *v = x;
    return true;
  };
  auto word = [&](std::string_view* w) {
    if (!eat('"')) return false;
    size_t end = t.find('"', i);
    if (end == std::string_view::npos) return false;
    *w = t.substr(i, end - i);
    if (w->find('\\') != std::string_view::npos) return false;
    i = end + 1;
    return true;
  };
  if (!eat('{')) return false;
  if (eat('}')) return i == t.size();
  do {
    ColumnStats s;
    if (!eat('"')) return false;
    int64_t id;
    if (!digits(&id, 10) || id > INT32_MAX || !eat('"') || !eat(':') || !eat('{')) return false;
    s.field_id = static_cast<int32_t>(id);
    bool have_values = false, have_nulls = false;
    do {
      std::string_view key;
      if (!word(&key) || !eat(':')) return false;
      if (key == "values" || key == "nulls" || key == "nans") {
        int64_t v;
        if (!digits(&v, 18)) return false;
        if (key == "values") {
          s.value_count = v;
          have_values = true;
        } else if (key == "nulls") {
          s.null_count = v;
          have_nulls = true;
        } else {
          s.nan_count = v;
        }
      } else if (key == "lower" || key == "upper") {
        std::string_view hex;
        if (!word(&hex)) return false;
        auto bytes = HexDecode(hex);
        if (!bytes) return false;
        (key == "lower" ? s.lower : s.upper) = std::move(*bytes);
      } else {
        return false;
      }
    } while (eat(','));
    if (!eat('}') || !have_values || !have_nulls) return false;
    out->push_back(std::move(s));
  } while (eat(','));
  return eat('}') && i == t.size();
}

}  // namespace

Result<std::vector<ColumnStats>> StatsFromJson(std::string_view text) {
  std::vector<ColumnStats> fast;
  if (ParseStatsFast(text, &fast)) {
    auto by_id = [](const ColumnStats& a, const ColumnStats& b) { return a.field_id < b.field_id; };
    if (!std::is_sorted(fast.begin(), fast.end(), by_id)) {
      std::stable_sort(fast.begin(), fast.end(), by_id);
    }
    auto same_id = [](const ColumnStats& a, const ColumnStats& b) {
      return a.field_id == b.field_id;
    };
    // Duplicate keys are left to the general parser (a JSON object keeps one of them).
    if (std::adjacent_find(fast.begin(), fast.end(), same_id) == fast.end()) return fast;
  }
  auto bad = [](std::string what) { return Status::InvalidArgument("stats JSON: " + what); };
  json root = json::parse(text.begin(), text.end(), nullptr, false);
  if (root.is_discarded()) return bad("not valid JSON");
  if (!root.is_object()) return bad("not a JSON object");
  std::vector<ColumnStats> out;
  for (auto it = root.begin(); it != root.end(); ++it) {
    ColumnStats s;
    const std::string& key = it.key();
    if (key.empty() || key.size() > 10 ||
        !std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return bad("field id \"" + key.substr(0, 20) + "\" is not a number");
    }
    // One spelling per id, as StatsToJson writes it: "01" beside "1" would be a second entry
    // for field 1 that no writer produces and no reader could tell from the first.
    if (key.size() > 1 && key[0] == '0') {
      return bad("field id \"" + key + "\" has a leading zero");
    }
    int64_t id = std::stoll(key);
    if (id > INT32_MAX) return bad("field id " + key + " out of range");
    s.field_id = static_cast<int32_t>(id);
    const json& o = it.value();
    if (!o.is_object()) return bad("stats of field " + key + " are not an object");
    auto count = [&](const char* name, bool required, std::optional<int64_t>* out) -> Status {
      auto f = o.find(name);
      if (f == o.end()) {
        if (required) return bad("field " + key + " has no \"" + name + "\"");
        return Status::OK();
      }
      if (!f->is_number_integer() || (f->is_number_unsigned() && f->get<uint64_t>() > INT64_MAX) ||
          f->get<int64_t>() < 0) {
        return bad("field " + key + ": \"" + name + "\" is not a count");
      }
      *out = f->get<int64_t>();
      return Status::OK();
    };
    std::optional<int64_t> values, nulls;
    TARN_RETURN_NOT_OK(count("values", true, &values));
    TARN_RETURN_NOT_OK(count("nulls", true, &nulls));
    TARN_RETURN_NOT_OK(count("nans", false, &s.nan_count));
    s.value_count = *values;
    s.null_count = *nulls;
    for (auto [name, dst] : {std::pair{"lower", &s.lower}, std::pair{"upper", &s.upper}}) {
      auto f = o.find(name);
      if (f == o.end()) continue;
      auto bytes = f->is_string() ? HexDecode(f->get_ref<const std::string&>()) : std::nullopt;
      if (!bytes) return bad("field " + key + ": \"" + name + "\" is not hex");
      *dst = std::move(*bytes);
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.field_id < b.field_id; });
  return out;
}

}  // namespace tarn
