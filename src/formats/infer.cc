#include "formats/infer.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "formats/error_codes.h"
#include "formats/json_scan.h"
#include "formats/reader_common.h"
#include "formats/sample.h"
#include "parquet/schema.h"
#include "parquet/stat_value.h"
#include "types/value_text.h"

namespace tarn::formats {

using internal::EndsWithIgnoreCase;

namespace {

// Decoded text looked at, at most, from one compressed sample.
constexpr size_t kMaxDecodedBytes = 64u << 20;
// Records scanned per delimiter candidate.
constexpr int kDelimiterProbeRecords = 50;
// Decimals are given at least this precision, so later rows with more integer digits fit.
constexpr int kMinDecimalPrecision = 18;

Status Unreadable(std::string_view name, std::string_view what) {
  return Status::Of(codes::kFormatUnreadable, std::string(name) + ": " + std::string(what));
}

// `row` is the 1-based data row.
Status NotUtf8(std::string_view name, std::string_view column, int64_t row) {
  return Status::Of(codes::kFormatUnreadable,
                    std::string(name) + ": row " + std::to_string(row) + ", column '" +
                        std::string(column) +
                        "': the text is not valid UTF-8 (inputs must be UTF-8)")
      .WithField("column", std::string(column))
      .WithField("row", std::to_string(row));
}

// ---------------------------------------------------------------------------------------------
// Text values

enum Candidate : uint32_t {
  kCBool = 1u << 0,
  kCInt = 1u << 1,
  kCDecimal = 1u << 2,
  kCFloat = 1u << 3,
  kCDate = 1u << 4,
  kCTimestampTz = 1u << 5,
  kCTimestamp = 1u << 6,
  kCUuid = 1u << 7,
  kCIpv4 = 1u << 8,
};
constexpr uint32_t kAllCandidates = (1u << 9) - 1;
constexpr uint32_t kNumeric = kCInt | kCDecimal | kCFloat;
// In the order of the rules of infer.h.
constexpr Candidate kOrder[] = {kCBool,        kCInt,       kCDecimal, kCFloat, kCDate,
                                kCTimestampTz, kCTimestamp, kCUuid,    kCIpv4};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The parsers of types/value_text.h trim these.
std::string_view TrimAscii(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
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

// What one value could be.
struct TextClass {
  uint32_t mask = 0;
  int scale = 0;       // DECIMAL: fraction digits
  int int_digits = 0;  // DECIMAL: significant integer digits
  bool nanos = false;  // TIMESTAMP(TZ): more than 6 fraction digits
};

TextClass ClassifyText(std::string_view raw) {
  TextClass tc;
  const std::string_view v = TrimAscii(raw);
  if (v.empty()) return tc;
  if (EqualsIgnoreCase(v, "true") || EqualsIgnoreCase(v, "false")) {
    tc.mask = kCBool;
    return tc;
  }
  const char c0 = v[0];
  if (IsDigit(c0) || c0 == '-' || c0 == '+') {
    // Numbers: [sign] digits [. digits] [e [sign] digits], no leading zeros.
    size_t i = (c0 == '-' || c0 == '+') ? 1 : 0;
    const size_t int_begin = i;
    while (i < v.size() && IsDigit(v[i])) ++i;
    const size_t int_len = i - int_begin;
    size_t frac_len = 0;
    bool has_frac = false, has_exp = false, ok = int_len > 0;
    if (ok && i < v.size() && v[i] == '.') {
      has_frac = true;
      const size_t f = ++i;
      while (i < v.size() && IsDigit(v[i])) ++i;
      frac_len = i - f;
      ok = frac_len > 0;
    }
    if (ok && i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
      has_exp = true;
      ++i;
      if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
      const size_t e = i;
      while (i < v.size() && IsDigit(v[i])) ++i;
      ok = i > e;
    }
    ok = ok && i == v.size() && !(int_len > 1 && v[int_begin] == '0');
    if (ok) {
      if (!has_frac && !has_exp && ParseInteger<int64_t>(v).ok()) tc.mask |= kCInt;
      if (has_frac && !has_exp && frac_len <= 38) {
        size_t lead = int_begin;
        while (lead < int_begin + int_len && v[lead] == '0') ++lead;
        tc.scale = static_cast<int>(frac_len);
        tc.int_digits = static_cast<int>(int_begin + int_len - lead);
        if (tc.int_digits + tc.scale <= 38) tc.mask |= kCDecimal;
      }
      if (ParseFloat64(v).ok()) tc.mask |= kCFloat;
      return tc;
    }
  }
  if (v.size() >= 10 && IsDigit(c0) && v[4] == '-') {
    if (v.size() == 10) {
      if (ParseDate(v).ok()) tc.mask |= kCDate;
      return tc;
    }
    if ((v[10] == 'T' || v[10] == 't' || v[10] == ' ') && v.size() > 11 && IsDigit(v[11])) {
      size_t frac = 0;
      if (v.size() > 19 && v[19] == '.') {
        size_t i = 20;
        while (i < v.size() && IsDigit(v[i])) ++i;
        frac = i - 20;
      }
      tc.nanos = frac > 6;
      const TimeUnit unit = tc.nanos ? TimeUnit::kNano : TimeUnit::kMicro;
      if (ParseTimestamp(v, unit).ok()) {
        tc.mask |= kCTimestamp;
      } else if (ParseTimestampTz(v, unit).ok()) {
        tc.mask |= kCTimestampTz;
      }
      return tc;
    }
  }
  if (v.size() == 36 && ParseUuid(v).ok()) {
    tc.mask |= kCUuid;
    return tc;
  }
  if (v.size() >= 7 && v.size() <= 15 && IsDigit(c0) && ParseIpv4(v).ok()) tc.mask |= kCIpv4;
  return tc;
}

// Whether `text` is a value of `type` for the readers (the parsers of types/value_text.h).
bool Parses(std::string_view text, const DataType& type) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return ParseBoolean(text).ok();
    case TypeId::kInt64:
      return ParseInteger<int64_t>(text).ok();
    case TypeId::kDecimal: {
      int128 v;
      return TryParseDecimal(text, type.precision(), type.scale(), &v) == DecimalParseError::kOk;
    }
    case TypeId::kFloat64:
      return ParseFloat64(text).ok();
    case TypeId::kDate:
      return ParseDate(text).ok();
    case TypeId::kTimestamp:
      return ParseTimestamp(text, type.unit()).ok();
    case TypeId::kTimestampTz:
      return ParseTimestampTz(text, type.unit()).ok();
    case TypeId::kUuid:
      return ParseUuid(text).ok();
    case TypeId::kIpv4:
      return ParseIpv4(text).ok();
    case TypeId::kJson:
    case TypeId::kVariant:
      return ValidateJson(text).ok();
    default:
      return true;
  }
}

// The type of the values one column has shown so far.
class TextColumn {
 public:
  explicit TextColumn(int64_t max_values) : max_values_(max_values) {}
  int64_t max_values() const { return max_values_; }

  void AddNull() { ++nulls_; }
  void Add(std::string_view text) {
    if (values_ == 0) sample_.assign(text);
    ++values_;
    if (values_ > max_values_) return;
    const TextClass tc = ClassifyText(text);
    mask_ &= tc.mask;
    if (mask_ & kCDecimal) {
      if (scale_ < 0) scale_ = tc.scale;
      if (tc.scale != scale_) {
        mask_ &= ~kCDecimal;
      } else {
        int_digits_ = std::max(int_digits_, tc.int_digits);
      }
    }
    nanos_ = nanos_ || tc.nanos;
    if (mask_ != 0) kept_.push_back(text);
  }

  // Restricts the candidates (NDJSON numbers may only be numeric).
  void Restrict(uint32_t mask) { mask_ &= mask; }

  // Takes in the values `other` looked at, as if this column had seen them too (the values of
  // several STRUCT members become one MAP value). The views `other` kept stay valid.
  void Merge(const TextColumn& other) {
    nulls_ += other.nulls_;
    if (other.values_ == 0) return;
    if (values_ == 0) sample_ = other.sample_;
    values_ += other.values_;
    mask_ &= other.mask_;
    if ((mask_ & kCDecimal) && other.scale_ >= 0) {
      if (scale_ < 0) scale_ = other.scale_;
      if (other.scale_ != scale_) {
        mask_ &= ~kCDecimal;
      } else {
        int_digits_ = std::max(int_digits_, other.int_digits_);
      }
    }
    nanos_ = nanos_ || other.nanos_;
    if (mask_ != 0) kept_.insert(kept_.end(), other.kept_.begin(), other.kept_.end());
  }

  int64_t values() const { return values_; }
  int64_t nulls() const { return nulls_; }
  const std::string& sample() const { return sample_; }

  // The first candidate by the rules of infer.h that parses every value looked at.
  DataType Type() {
    if (values_ == 0) return DataType::Varchar();
    for (Candidate c : kOrder) {
      if ((mask_ & c) == 0) continue;
      const DataType type = TypeFor(c);
      bool all = true;
      for (std::string_view v : kept_) {
        if (!Parses(v, type)) {
          all = false;
          break;
        }
      }
      if (all) return type;
    }
    return DataType::Varchar();
  }

 private:
  DataType TypeFor(Candidate c) const {
    const TimeUnit unit = nanos_ ? TimeUnit::kNano : TimeUnit::kMicro;
    switch (c) {
      case kCBool:
        return DataType::Boolean();
      case kCInt:
        return DataType::Int64();
      case kCDecimal: {
        const int needed = std::max(1, int_digits_ + scale_);
        return DataType::Decimal(std::min(38, std::max(needed, kMinDecimalPrecision)), scale_);
      }
      case kCFloat:
        return DataType::Float64();
      case kCDate:
        return DataType::Date();
      case kCTimestampTz:
        return DataType::TimestampTz(unit);
      case kCTimestamp:
        return DataType::Timestamp(unit);
      case kCUuid:
        return DataType::Uuid();
      case kCIpv4:
        return DataType::Ipv4();
    }
    return DataType::Varchar();
  }

  int64_t max_values_;
  uint32_t mask_ = kAllCandidates;
  int scale_ = -1;
  int int_digits_ = 0;
  bool nanos_ = false;
  int64_t values_ = 0;
  int64_t nulls_ = 0;
  std::string sample_;
  // The values looked at, while some candidate remains; the caller keeps them alive.
  std::vector<std::string_view> kept_;
};

InferredColumn Finish(std::string name, TextColumn* col) {
  InferredColumn out;
  out.name = std::move(name);
  out.type = col->Type();
  out.sample = col->sample();
  out.values = col->values();
  out.nulls = col->nulls();
  out.all_null = col->values() == 0;
  return out;
}

// ---------------------------------------------------------------------------------------------
// CSV

// A field; `text` views the sample or, when it had "" escapes, the arena.
struct Cell {
  std::string_view text;
  bool quoted = false;
};

// Null for the CSV reader: an empty unquoted field, unquoted null / NULL.
bool IsCsvNull(const Cell& c) {
  return !c.quoted && (c.text.empty() || c.text == "null" || c.text == "NULL");
}

enum class Scan { kRecord, kBlank, kIncomplete, kEnd };

// Scans one record of `s` at *pos the way CsvReader does. `at_end`: `s` ends the file, so the
// end of `s` ends a record; otherwise a record must end with a line break. `cells` (optional)
// receives the fields; *nfields their count.
Result<Scan> ScanCsvRecord(std::string_view s, size_t* pos, char delim, bool at_end,
                           std::vector<Cell>* cells, std::deque<std::string>* arena, int* nfields) {
  const size_t n = s.size();
  size_t p = *pos;
  if (p >= n) return at_end ? Scan::kEnd : Scan::kIncomplete;
  if (s[p] == '\n') {
    *pos = p + 1;
    return Scan::kBlank;
  }
  if (s[p] == '\r') {
    if (p + 1 >= n && !at_end) return Scan::kIncomplete;
    *pos = p + 1 + (p + 1 < n && s[p + 1] == '\n');
    return Scan::kBlank;
  }
  if (cells) cells->clear();
  int count = 0;
  while (true) {
    Cell cell;
    if (p < n && s[p] == '"') {
      size_t q = p + 1;
      bool escaped = false;
      size_t close;
      while (true) {
        const size_t h = q < n ? s.find('"', q) : std::string_view::npos;
        if (h == std::string_view::npos) {
          if (!at_end) return Scan::kIncomplete;
          return Status::InvalidArgument("a quoted field is not closed");
        }
        if (h + 1 >= n && !at_end) return Scan::kIncomplete;
        if (h + 1 < n && s[h + 1] == '"') {
          escaped = true;
          q = h + 2;
          continue;
        }
        close = h;
        break;
      }
      if (cells) {
        cell.quoted = true;
        std::string_view inner = s.substr(p + 1, close - p - 1);
        if (!escaped) {
          cell.text = inner;
        } else {
          std::string& t = arena->emplace_back();
          t.reserve(inner.size());
          for (size_t k = 0; k < inner.size(); ++k) {
            t.push_back(inner[k]);
            if (inner[k] == '"') ++k;
          }
          cell.text = t;
        }
      }
      p = close + 1;
      if (p < n && s[p] != delim && s[p] != '\n' && s[p] != '\r') {
        return Status::InvalidArgument("a character follows a closing quote");
      }
    } else {
      const size_t b = p;
      while (p < n && s[p] != delim && s[p] != '\n' && s[p] != '\r') ++p;
      if (p >= n && !at_end) return Scan::kIncomplete;
      if (cells) cell.text = s.substr(b, p - b);
    }
    if (cells) cells->push_back(std::move(cell));
    ++count;
    if (p >= n) break;
    const char c = s[p];
    if (c == delim) {
      ++p;
      if (p >= n && !at_end) return Scan::kIncomplete;
      continue;
    }
    if (c == '\n') {
      ++p;
      break;
    }
    if (p + 1 >= n && !at_end) return Scan::kIncomplete;
    p += 1 + (p + 1 < n && s[p + 1] == '\n');
    break;
  }
  *pos = p;
  *nfields = count;
  return Scan::kRecord;
}

// Picks the delimiter among , tab ; | whose first records have one consistent field count, the
// largest; else the one splitting the first record most; ',' when none splits it.
char DetectCsvDelimiter(std::string_view s, bool at_end) {
  static constexpr char kCandidates[] = {',', '\t', ';', '|'};
  char best = ',';
  int best_fields = 1;
  bool best_consistent = false;
  for (char d : kCandidates) {
    size_t pos = 0;
    int first = -1;
    int records = 0;
    bool consistent = true;
    while (records < kDelimiterProbeRecords) {
      int nf = 0;
      auto scanned = ScanCsvRecord(s, &pos, d, at_end, nullptr, nullptr, &nf);
      if (!scanned.ok()) {
        consistent = false;
        break;
      }
      if (*scanned == Scan::kBlank) continue;
      if (*scanned != Scan::kRecord) break;
      ++records;
      if (first < 0) {
        first = nf;
      } else if (nf != first) {
        consistent = false;
      }
    }
    if (first <= 1) continue;
    const bool better = consistent != best_consistent ? consistent : first > best_fields;
    if (better) {
      best = d;
      best_fields = first;
      best_consistent = consistent;
    }
  }
  return best;
}

// Header names look like this: a non-empty text that is no other type and starts with a letter
// or '_'.
bool IdentifierLike(const Cell& c) {
  if (IsCsvNull(c)) return false;
  const std::string_view v = TrimAscii(c.text);
  if (v.empty() || v.size() > 256) return false;
  const unsigned char c0 = static_cast<unsigned char>(v[0]);
  if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_' || c0 >= 0x80)) {
    return false;
  }
  for (unsigned char ch : v) {
    if (ch < 0x20 || ch == 0x7f) return false;
  }
  return ClassifyText(v).mask == 0;
}

// Reader-side header names are trimmed of spaces and tabs.
std::string HeaderName(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<InferredColumn> InferCsvColumns(const std::vector<std::vector<Cell>>& records,
                                            size_t first, int ncols, int64_t max_values,
                                            const std::vector<std::string>& names) {
  std::vector<InferredColumn> out;
  for (int c = 0; c < ncols; ++c) {
    TextColumn col(max_values);
    const size_t end = std::min(records.size(), first + static_cast<size_t>(max_values));
    for (size_t r = first; r < end; ++r) {
      const Cell& cell = records[r][c];
      if (IsCsvNull(cell)) {
        col.AddNull();
      } else {
        col.Add(cell.text);
      }
    }
    out.push_back(Finish(names[c], &col));
  }
  return out;
}

Result<InferredSchema> InferCsv(std::string_view name, std::string_view stem, std::string_view s,
                                size_t bom, bool at_end, const InferOptions& options,
                                InferredSchema result) {
  const std::string_view body = s.substr(bom);
  char delim;
  if (options.delimiter) {
    delim = *options.delimiter;
    if (delim == '"' || delim == '\n' || delim == '\r') {
      return Status::InvalidArgument("a CSV delimiter cannot be a quote or a line break");
    }
  } else if (EndsWithIgnoreCase(stem, ".tsv")) {
    delim = '\t';
  } else {
    delim = DetectCsvDelimiter(body, at_end);
  }
  result.delimiter = delim;

  const int64_t max_rows = std::max<int64_t>(1, options.max_rows);
  std::vector<std::vector<Cell>> records;  // the first max_rows + 1 (a header, maybe)
  std::deque<std::string> arena;
  int64_t total = 0;
  int ncols = -1;
  size_t pos = 0;
  size_t used = 0;  // end of the last complete record
  std::vector<Cell> cells;
  while (true) {
    int nf = 0;
    const bool keep = static_cast<int64_t>(records.size()) <= max_rows;
    auto scanned = ScanCsvRecord(body, &pos, delim, at_end, keep ? &cells : nullptr, &arena, &nf);
    if (!scanned.ok()) {
      return internal::MalformedRow(name, total + 1, scanned.status().message());
    }
    if (*scanned == Scan::kBlank) {
      used = pos;
      continue;
    }
    if (*scanned != Scan::kRecord) break;
    if (ncols < 0) ncols = nf;
    if (nf != ncols) {
      return internal::MalformedRow(
          name, total + 1,
          "expected " + std::to_string(ncols) + " fields, found " + std::to_string(nf));
    }
    ++total;
    used = pos;
    if (keep) records.push_back(std::move(cells));
  }
  if (total == 0) return Unreadable(name, "the sample holds no complete CSV record");
  result.sample_bytes = static_cast<int64_t>(bom + used);
  if (used < body.size()) result.truncated = true;

  bool header;
  if (options.header) {
    header = *options.header;
  } else {
    // Rule 1: a first-row field that is not a value of its column's type.
    header = false;
    if (records.size() > 1) {
      std::vector<std::string> dummy(static_cast<size_t>(ncols));
      std::vector<InferredColumn> rest = InferCsvColumns(records, 1, ncols, max_rows, dummy);
      for (int c = 0; c < ncols && !header; ++c) {
        const Cell& f = records[0][c];
        if (IsCsvNull(f) || rest[c].all_null) continue;
        if (!Parses(f.text, rest[c].type) ||
            (rest[c].type.id() != TypeId::kVarchar && ClassifyText(f.text).mask == 0)) {
          header = true;
        }
      }
    }
    // Rule 2: every first-row field is an identifier.
    if (!header) {
      header = std::all_of(records[0].begin(), records[0].end(), IdentifierLike);
      if (header) {
        std::unordered_set<std::string> seen;
        for (const Cell& f : records[0]) header = header && seen.insert(HeaderName(f.text)).second;
      }
    }
  }
  result.header = header;

  std::vector<std::string> names;
  if (header) {
    std::unordered_set<std::string> seen;
    for (const Cell& f : records[0]) {
      names.push_back(HeaderName(f.text));
      if (!seen.insert(names.back()).second) {
        return Unreadable(name, "the header names the column '" + names.back() + "' twice");
      }
    }
  } else {
    for (int c = 0; c < ncols; ++c) names.push_back("column_" + std::to_string(c + 1));
  }
  for (const std::string& n : names) {
    if (!IsValidUtf8(n)) return Unreadable(name, "a column name is not valid UTF-8");
  }
  result.columns = InferCsvColumns(records, header ? 1 : 0, ncols, max_rows, names);
  // The readers refuse text that is not UTF-8; say so now rather than at the write.
  for (int c = 0; c < ncols; ++c) {
    if (result.columns[c].type.id() != TypeId::kVarchar) continue;
    for (size_t r = header ? 1 : 0; r < records.size(); ++r) {
      const Cell& cell = records[r][c];
      if (!IsCsvNull(cell) && !IsValidUtf8(cell.text)) {
        return NotUtf8(name, names[c], static_cast<int64_t>(r) + (header ? 0 : 1));
      }
    }
  }
  result.rows = total - (header ? 1 : 0);
  return result;
}

// ---------------------------------------------------------------------------------------------
// NDJSON

enum Kind : uint8_t { kKBool = 1, kKNumber = 2, kKString = 4, kKObject = 8, kKArray = 16 };
constexpr uint8_t kKNested = kKObject | kKArray;

// The limits of the nested rules of infer.h.
constexpr int kMaxNestedLevels = 10;
constexpr size_t kMaxStructMembers = 64;
constexpr double kMinKeyAppearance = 0.1;

// What the values at one place of a column have shown: the column's own values, one member's
// over every object, or every element of every array. Objects and arrays keep a node for what
// is inside them.
struct JsonNode {
  explicit JsonNode(int64_t max_values) : text(max_values) {}

  struct Member {
    std::string name;
    int64_t present = 0;       // objects holding the key
    int64_t last_object = -1;  // the object that last held it (a key given twice in one)
    std::unique_ptr<JsonNode> node;
  };

  uint8_t kinds = 0;
  int64_t values = 0;  // non-null
  int64_t nulls = 0;
  TextColumn text;  // strings and numbers
  // Objects: the keys in first-seen order, until there are more than kMaxStructMembers; then
  // every value of every key goes to `any_value` (the keys are data: MAP or JSON).
  int64_t objects = 0;
  int64_t keys_used = 0;  // keys over all objects
  std::vector<Member> members;
  std::unique_ptr<JsonNode> any_value;
  std::string repeated_key;  // a key some object holds twice
  // Arrays.
  int64_t arrays = 0;
  std::unique_ptr<JsonNode> element;
  // Objects or arrays below kMaxNestedLevels: delimited and checked, not looked into.
  bool too_deep = false;

  JsonNode* Element() {
    if (!element) element = std::make_unique<JsonNode>(text.max_values());
    return element.get();
  }

  // Takes in what `other` saw (the values of several members become one MAP value).
  void Merge(JsonNode&& other) {
    kinds |= other.kinds;
    values += other.values;
    nulls += other.nulls;
    text.Merge(other.text);
    objects += other.objects;
    keys_used += other.keys_used;
    if (repeated_key.empty()) repeated_key = std::move(other.repeated_key);
    too_deep = too_deep || other.too_deep;
    arrays += other.arrays;
    if (other.element) Element()->Merge(std::move(*other.element));
    if (other.any_value) {
      KeysAreData();
      any_value->Merge(std::move(*other.any_value));
    }
    for (Member& m : other.members) {
      if (any_value) {
        any_value->Merge(std::move(*m.node));
        continue;
      }
      Member* mine = nullptr;
      for (Member& x : members) {
        if (x.name == m.name) mine = &x;
      }
      if (mine == nullptr && members.size() == kMaxStructMembers) {
        KeysAreData();
        any_value->Merge(std::move(*m.node));
        continue;
      }
      if (mine == nullptr) {
        members.push_back(std::move(m));
        members.back().last_object = -1;
        continue;
      }
      mine->present += m.present;
      mine->node->Merge(std::move(*m.node));
    }
  }

  // From now on every value of every key goes to one node.
  void KeysAreData() {
    if (any_value) return;
    any_value = std::make_unique<JsonNode>(text.max_values());
    for (Member& m : members) any_value->Merge(std::move(*m.node));
    members.clear();
  }
};

// Scans JSON values into nodes. Strings whose unescaped text lives in the scratch buffer are
// copied to the arena, so the text columns' views stay valid.
struct JsonWalk {
  std::string scratch, key_scratch;
  std::deque<std::string>* arena;
  bool not_utf8 = false;

  // Adds the value at the cursor to `node`; `level` is its nesting level (1: a column's value).
  // Returns why the JSON is not well formed (not_utf8 set for text that is not UTF-8).
  const char* Add(internal::LineScanner& sc, JsonNode* node, int level) {
    const char c = sc.Peek();
    if (c == 'n') {
      if (!sc.Literal("null")) return "a bad literal";
      ++node->nulls;
      return nullptr;
    }
    ++node->values;
    std::string_view raw;
    if (c == '"') {
      std::string_view value;
      if (const char* why = sc.String(&raw, &value, &scratch)) return why;
      if (!IsValidUtf8(value)) return Utf8();
      node->kinds |= kKString;
      if (value.data() == scratch.data()) value = arena->emplace_back(value);
      node->text.Add(value);
      return nullptr;
    }
    if (c == 't' || c == 'f') {
      if (!sc.Literal(c == 't' ? "true" : "false")) return "a bad literal";
      node->kinds |= kKBool;
      return nullptr;
    }
    if (c != '{' && c != '[') {
      if (const char* why = sc.Number(&raw)) return why;
      node->kinds |= kKNumber;
      node->text.Add(raw);
      return nullptr;
    }
    node->kinds |= c == '{' ? kKObject : kKArray;
    if (level > kMaxNestedLevels) {
      node->too_deep = true;
      if (const char* why = sc.Nested(&raw, internal::kMaxJsonDepth - (level - 1))) return why;
      if (!ValidateJson(raw).ok()) return "a nested value is not valid JSON";
      return nullptr;
    }
    if (c == '[') {
      sc.Consume('[');
      ++node->arrays;
      if (sc.Consume(']')) return nullptr;
      JsonNode* element = node->Element();
      while (true) {
        if (const char* why = Add(sc, element, level + 1)) return why;
        if (sc.Consume(',')) continue;
        if (sc.Consume(']')) return nullptr;
        return "expected ',' or ']'";
      }
    }
    sc.Consume('{');
    const int64_t object = node->objects++;
    if (sc.Consume('}')) return nullptr;
    size_t hint = 0;
    // Keys of this object once they are data (the check for a key given twice).
    std::vector<std::string> data_keys;
    while (true) {
      sc.SkipWs();
      std::string_view raw_key, key;
      if (const char* why = sc.String(&raw_key, &key, &key_scratch)) return why;
      if (!sc.Consume(':')) return "expected ':' after a key";
      if (!IsValidUtf8(key)) return Utf8();
      ++node->keys_used;
      JsonNode* into = nullptr;
      if (!node->any_value) {
        JsonNode::Member* m = nullptr;
        if (hint < node->members.size() && node->members[hint].name == key) {
          m = &node->members[hint];
        } else {
          for (JsonNode::Member& x : node->members) {
            if (x.name == key) m = &x;
          }
        }
        if (m == nullptr && node->members.size() == kMaxStructMembers) {
          for (const JsonNode::Member& x : node->members) {
            if (x.last_object == object) data_keys.push_back(x.name);
          }
          node->KeysAreData();
        } else {
          if (m == nullptr) {
            node->members.push_back(
                {std::string(key), 0, -1, std::make_unique<JsonNode>(node->text.max_values())});
            m = &node->members.back();
          }
          if (m->last_object == object && node->repeated_key.empty()) {
            node->repeated_key.assign(key);
          }
          m->last_object = object;
          ++m->present;
          hint = static_cast<size_t>(m - node->members.data()) + 1;
          into = m->node.get();
        }
      }
      if (node->any_value) {
        if (std::find(data_keys.begin(), data_keys.end(), key) != data_keys.end()) {
          if (node->repeated_key.empty()) node->repeated_key.assign(key);
        } else {
          data_keys.emplace_back(key);
        }
        into = node->any_value.get();
      }
      if (const char* why = Add(sc, into, level + 1)) return why;
      if (sc.Consume(',')) continue;
      if (sc.Consume('}')) return nullptr;
      return "expected ',' or '}'";
    }
  }

  const char* Utf8() {
    not_utf8 = true;
    return "the text is not valid UTF-8";
  }
};

std::string KindsText(uint8_t kinds) {
  std::vector<std::string> parts;
  if (kinds & kKObject) parts.push_back("objects");
  if (kinds & kKArray) parts.push_back("arrays");
  if (kinds & kKString) parts.push_back("strings");
  if (kinds & kKNumber) parts.push_back("numbers");
  if (kinds & kKBool) parts.push_back("booleans");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

std::string Percent(double fraction) {
  const int tenths = static_cast<int>(fraction * 1000 + 0.5);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + "%";
}

// Types the values of `node` by the rules of infer.h; `path` names the place in the column
// ("" for the column itself, "items[].sku"). Adds to `notes` why objects became STRUCT, MAP or
// JSON, and why other values were kept as JSON.
class NodeTyper {
 public:
  NodeTyper(const InferOptions& options, std::vector<std::string>* notes)
      : options_(options), notes_(notes) {}

  DataType Type(JsonNode& node, const std::string& path) {
    if (node.values == 0) {
      if (!path.empty()) Note(path, "only nulls: VARCHAR");
      return DataType::Varchar();
    }
    const uint8_t nested = node.kinds & kKNested;
    if (nested == 0) {
      switch (node.kinds) {
        case kKBool:
          return DataType::Boolean();
        case kKNumber:
          node.text.Restrict(kNumeric);
          return node.text.Type();
        case kKString:
          return node.text.Type();
        default:
          return DataType::Varchar();
      }
    }
    if (node.kinds != nested || nested == kKNested) {
      return Json(path, KindsText(node.kinds) + " in different rows");
    }
    if (node.too_deep) {
      return Json(path, "nested more than " + std::to_string(kMaxNestedLevels) + " levels deep");
    }
    if (nested == kKArray) {
      if (!node.element) return Json(path, "only empty arrays");
      return DataType::Array(Type(*node.element, path + "[]"));
    }
    return Object(node, path);
  }

 private:
  DataType Object(JsonNode& node, const std::string& path) {
    if (!node.repeated_key.empty()) {
      return Json(path, "an object holds the key '" + node.repeated_key + "' twice");
    }
    if (!node.any_value && node.members.empty()) return Json(path, "only empty objects");
    if (node.any_value) {
      return KeysAsData(node, path,
                        "more than " + std::to_string(kMaxStructMembers) + " distinct keys");
    }
    const double appearance =
        static_cast<double>(node.keys_used) /
        (static_cast<double>(node.members.size()) * static_cast<double>(node.objects));
    if (appearance < kMinKeyAppearance) {
      node.KeysAreData();
      return KeysAsData(node, path,
                        std::to_string(node.keys_used) + " keys over " +
                            std::to_string(node.objects) + " objects, each in " +
                            Percent(appearance) + " of the objects on average (under " +
                            Percent(kMinKeyAppearance) + ")");
    }
    std::unordered_set<std::string> lower;
    for (const JsonNode::Member& m : node.members) {
      if (m.name.empty()) return Json(path, "a key is empty, which no STRUCT member can be");
      if (options_.member_name) {
        Status valid = options_.member_name(m.name);
        if (!valid.ok()) {
          return Json(path, "the key '" + m.name + "' is not a valid column name (" +
                                valid.message() + ")");
        }
      }
      std::string key = m.name;
      for (char& ch : key) ch = ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch + 32) : ch;
      if (!lower.insert(key).second) {
        return Json(path, "two keys differ only in case ('" + m.name +
                              "'), as STRUCT members "
                              "may not");
      }
    }
    std::string missing;
    for (const JsonNode::Member& m : node.members) {
      if (m.present < node.objects) missing += (missing.empty() ? "" : ", ") + m.name;
    }
    std::string why = "objects of one shape: STRUCT of " + std::to_string(node.members.size()) +
                      (node.members.size() == 1 ? " member" : " members");
    if (!missing.empty()) why += " (not in every object, so null there: " + missing + ")";
    Note(path, why);
    std::vector<Field> fields;
    for (JsonNode::Member& m : node.members) {
      Field f;
      f.name = m.name;
      f.type = Type(*m.node, path.empty() ? m.name : path + "." + m.name);
      fields.push_back(std::move(f));
    }
    return DataType::Struct(std::move(fields));
  }

  // MAP<VARCHAR, T> when the values give one type, else JSON.
  DataType KeysAsData(JsonNode& node, const std::string& path, const std::string& why) {
    JsonNode& values = *node.any_value;
    const uint8_t nested = values.kinds & kKNested;
    if (nested != 0 && (values.kinds != nested || nested == kKNested)) {
      return Json(path, why + ": the keys look like data, but their values are " +
                            KindsText(values.kinds) + ", not one type");
    }
    const size_t at = notes_->size();
    notes_->emplace_back();
    DataType value = Type(values, path + "[*]");
    DataType map = DataType::Map(DataType::Varchar(), value);
    (*notes_)[at] = Prefix(path) + map.ToString() + ": " + why + ": the keys look like data";
    return map;
  }

  DataType Json(const std::string& path, const std::string& why) {
    Note(path, "JSON: " + why);
    return DataType::Json();
  }

  static std::string Prefix(const std::string& path) { return path.empty() ? "" : path + ": "; }
  void Note(const std::string& path, const std::string& text) {
    notes_->push_back(Prefix(path) + text);
  }

  const InferOptions& options_;
  std::vector<std::string>* notes_;
};

std::string CompactJson(std::string_view raw) {
  try {
    auto j = nlohmann::json::parse(raw.begin(), raw.end(), nullptr, false);
    if (j.is_discarded()) return std::string(raw);
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (...) {
    return std::string(raw);
  }
}

struct JsonColumn {
  JsonColumn(std::string n, int64_t max_values) : name(std::move(n)), node(max_values) {}
  std::string name;
  std::string sample;
  JsonNode node;
};

Result<InferredSchema> InferNdjson(std::string_view name, std::string_view s, size_t bom,
                                   bool at_end, const InferOptions& options,
                                   InferredSchema result) {
  const int64_t max_rows = std::max<int64_t>(1, options.max_rows);
  // Columns stay put (nodes point into them while a line is walked).
  std::deque<JsonColumn> cols;
  std::vector<std::pair<std::string, int>> index;  // key -> column, in first-seen order
  std::vector<uint8_t> seen;
  std::string key_scratch, sample_scratch;
  std::deque<std::string> arena;  // unescaped string values the columns look at
  JsonWalk walk;
  walk.arena = &arena;
  int64_t rows = 0;
  int64_t looked = 0;
  size_t pos = bom;
  size_t used = bom;
  auto find = [&](std::string_view key) -> int {
    for (const auto& [k, i] : index) {
      if (k == key) return i;
    }
    return -1;
  };
  while (pos < s.size()) {
    const size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos && !at_end) break;
    const size_t line_end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(pos, line_end - pos);
    pos = nl == std::string_view::npos ? s.size() : nl + 1;
    used = pos;
    size_t k = 0;
    while (k < line.size() && internal::IsJsonWs(line[k])) ++k;
    if (k == line.size()) continue;
    ++rows;
    if (rows > max_rows) continue;  // counted only
    ++looked;
    auto malformed = [&](std::string_view why) {
      return internal::MalformedRow(name, rows, "invalid JSON: " + std::string(why));
    };
    std::fill(seen.begin(), seen.end(), 0);
    internal::LineScanner sc(line);
    if (!sc.Consume('{')) return malformed("expected a JSON object");
    if (!sc.Consume('}')) {
      while (true) {
        sc.SkipWs();
        std::string_view raw_key, key;
        if (const char* why = sc.String(&raw_key, &key, &key_scratch)) return malformed(why);
        if (!sc.Consume(':')) return malformed("expected ':' after a key");
        if (!IsValidUtf8(key)) return malformed("a key is not valid UTF-8");
        int c = find(key);
        if (c < 0) {
          c = static_cast<int>(cols.size());
          cols.emplace_back(std::string(key), max_rows);
          index.emplace_back(std::string(key), c);
          seen.push_back(0);
        }
        if (seen[c]) return malformed("the key '" + std::string(key) + "' appears twice");
        seen[c] = 1;
        JsonColumn& col = cols[c];
        const char ch = sc.Peek();
        const size_t begin = sc.pos();
        const int64_t before = col.node.values;
        if (const char* why = walk.Add(sc, &col.node, 1)) {
          if (walk.not_utf8) return NotUtf8(name, col.name, rows);
          return malformed(why);
        }
        if (before == 0 && col.node.values == 1) {
          const std::string_view raw = line.substr(begin, sc.pos() - begin);
          if (ch == '"') {
            internal::LineScanner text(raw);
            std::string_view r, value;
            if (text.String(&r, &value, &sample_scratch) == nullptr) col.sample.assign(value);
          } else if (ch == '{' || ch == '[') {
            col.sample = CompactJson(raw);
          } else {
            col.sample.assign(raw);
          }
        }
        if (sc.Consume(',')) continue;
        if (sc.Consume('}')) break;
        return malformed("expected ',' or '}'");
      }
    }
    if (!sc.AtEnd()) return malformed("text after the object");
  }
  if (rows == 0) return Unreadable(name, "the sample holds no complete JSON line");
  result.sample_bytes = static_cast<int64_t>(used);
  if (used < s.size()) result.truncated = true;
  result.rows = rows;
  for (JsonColumn& col : cols) {
    InferredColumn out;
    out.name = col.name;
    out.values = col.node.values;
    out.nulls = looked - col.node.values;
    out.all_null = col.node.values == 0;
    out.sample = col.sample;
    std::vector<std::string> notes;
    out.type = NodeTyper(options, &notes).Type(col.node, "");
    for (const std::string& n : notes) out.note += (out.note.empty() ? "" : "; ") + n;
    result.columns.push_back(std::move(out));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Parquet

Result<InferredSchema> InferParquet(std::string_view name, std::string_view bytes,
                                    InferredSchema result) {
  constexpr size_t kTail = 8;
  if (bytes.size() < kTail + 4 || bytes.substr(bytes.size() - 4) != "PAR1") {
    return Unreadable(name, "not a Parquet file (no PAR1 footer)");
  }
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size() - kTail;
  const uint64_t len = static_cast<uint64_t>(p[0]) | static_cast<uint64_t>(p[1]) << 8 |
                       static_cast<uint64_t>(p[2]) << 16 | static_cast<uint64_t>(p[3]) << 24;
  if (len == 0 || len > bytes.size() - kTail) {
    return Unreadable(name, "the sample does not hold the whole Parquet footer (" +
                                std::to_string(len) + " bytes)");
  }
  const uint8_t* footer = p - len;
  auto md = parquet::DecodeFileMetaData(footer, static_cast<size_t>(len));
  if (!md.ok()) return Unreadable(name, "bad Parquet footer: " + md.status().message());
  if (md->encrypted) return Unreadable(name, "an encrypted Parquet file cannot be read");
  auto ps = parquet::SchemaFromParquet(*md);
  if (!ps.ok()) return Unreadable(name, "bad Parquet schema: " + ps.status().message());
  if (md->num_rows < 0) {
    return Unreadable(name, "bad Parquet footer: " + std::to_string(md->num_rows) + " rows");
  }
  result.rows = md->num_rows;
  result.sample_bytes = static_cast<int64_t>(len + kTail);
  result.truncated = false;
  for (size_t i = 0; i < ps->schema.fields.size(); ++i) {
    if (i < ps->unsupported.size() && !ps->unsupported[i].empty()) continue;
    const Field& field = ps->schema.fields[i];
    InferredColumn col;
    col.name = field.name;
    col.type = field.type;
    if (i >= ps->field_leaves.size() || ps->field_leaves[i].empty()) {
      result.columns.push_back(std::move(col));
      continue;
    }
    const int leaf_index = ps->field_leaves[i][0];
    const parquet::LeafColumn& leaf = ps->leaves[leaf_index];
    // Null counts: top-level scalars only (for nested fields they count their leaf's nulls).
    bool counted = leaf.nodes.size() == 1;
    int64_t nulls = 0;
    for (const parquet::RowGroup& rg : md->row_groups) {
      if (static_cast<size_t>(leaf_index) >= rg.columns.size() ||
          !rg.columns[leaf_index].meta_data || !rg.columns[leaf_index].meta_data->statistics ||
          !rg.columns[leaf_index].meta_data->statistics->null_count) {
        counted = false;
        break;
      }
      // A footer's counts are the writer's word: a negative one is not counted at all, and
      // the sum cannot pass the rows (nor overflow).
      const int64_t n = *rg.columns[leaf_index].meta_data->statistics->null_count;
      if (n < 0) {
        counted = false;
        break;
      }
      nulls = n >= md->num_rows - nulls ? md->num_rows : nulls + n;
    }
    if (counted) {
      col.nulls = std::min(nulls, md->num_rows);
      col.values = md->num_rows - col.nulls;
      col.all_null = md->num_rows > 0 && col.values == 0;
    } else {
      col.values = md->num_rows;
    }
    if (!md->row_groups.empty() &&
        static_cast<size_t>(leaf_index) < md->row_groups[0].columns.size()) {
      const auto& meta = md->row_groups[0].columns[leaf_index].meta_data;
      if (meta && meta->statistics) {
        const parquet::Statistics& st = *meta->statistics;
        const std::optional<std::string>& min = st.min_value ? st.min_value : st.min;
        DataType leaf_type = field.type;
        while (leaf_type.is_nested()) leaf_type = leaf_type.element();
        if (min) {
          auto v = parquet::DecodeStatValue(*md, leaf, leaf_type, *min);
          if (v.ok() && v->length == 1 && v->IsValid(0)) col.sample = ValueText(*v, 0);
        }
      }
    }
    result.columns.push_back(std::move(col));
  }
  return result;
}

}  // namespace

Schema InferredSchema::ToSchema() const {
  Schema s;
  for (const InferredColumn& c : columns) {
    Field f;
    f.name = c.name;
    f.type = c.type;
    f.nullable = true;
    s.fields.push_back(std::move(f));
  }
  return s;
}

DataType InferTextValue(std::string_view value) {
  TextColumn col(1);
  col.Add(value);
  return col.Type();
}

Result<InferredSchema> InferSample(std::string_view name, std::string_view bytes, bool whole_file,
                                   const InferOptions& options) {
  TARN_ASSIGN_OR_RETURN(Format format, DetectFormat(name));
  std::string_view stem;
  const InputCompression by_suffix = CompressionFromSuffix(name, &stem);
  InferredSchema result;
  result.format = format;
  result.compression = options.compression.value_or(by_suffix);
  if (format == Format::kParquet) {
    if (result.compression != InputCompression::kNone) {
      return Unreadable(name, "a compressed Parquet file cannot be read");
    }
    return InferParquet(name, bytes, std::move(result));
  }
  std::string decoded;
  std::string_view text = bytes;
  bool cut = false;
  if (result.compression != InputCompression::kNone || bytes.size() > kMaxDecodedBytes) {
    TARN_ASSIGN_OR_RETURN(
        internal::DecodedSample d,
        internal::DecodeSample(name, bytes, result.compression, whole_file, kMaxDecodedBytes));
    decoded = std::move(d.bytes);
    text = decoded;
    cut = d.cut;
  }
  const bool at_end = whole_file && !cut;
  const size_t bom = text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  Result<InferredSchema> r =
      format == Format::kNdjson
          ? InferNdjson(name, text, bom, at_end, options, std::move(result))
          : InferCsv(name, stem, text, bom, at_end, options, std::move(result));
  if (r.ok() && !at_end) r->truncated = true;
  return r;
}

}  // namespace tarn::formats
