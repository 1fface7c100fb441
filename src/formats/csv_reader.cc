#include "formats/csv_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include "common/text.h"
#include "formats/error_codes.h"
#include "formats/fast_parse.h"
#include "formats/ndjson_reader.h"
#include "types/value_text.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tarn::formats {

namespace {

using internal::FastParseBoolean;
using internal::FastParseDate;
using internal::FastParseDecimal;
using internal::FastParseFloat;
using internal::FastParseTimestamp;

constexpr size_t kReadChunk = 1 << 20;
// A batch ends once it spans this much input, whatever batch_rows says.
constexpr size_t kMaxBatchBytes = 32u << 20;
// A record longer than this is refused (most likely an unterminated quote).
constexpr size_t kMaxRecordBytes = 256u << 20;

// Fast path for plain decimal integers; false sends the text to the full parser.
template <typename T>
inline bool FastParseInt(std::string_view s, T* out) {
  size_t i = 0;
  const size_t n = s.size();
  if (n == 0 || n > 19) return false;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (n == 1) return false;
  }
  uint64_t v = 0;
  for (; i < n; ++i) {
    const unsigned d = static_cast<unsigned char>(s[i]) - '0';
    if (d > 9) return false;
    v = v * 10 + d;  // at most 19 digits: no overflow
  }
  if constexpr (std::is_signed_v<T>) {
    if (negative) {
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max()) + 1) return false;
      *out = static_cast<T>(0 - v);
    } else {
      if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
      *out = static_cast<T>(v);
    }
  } else {
    if (negative || v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return false;
    *out = static_cast<T>(v);
  }
  return true;
}

// Counts of candidate delimiters in the first line (outside quotes); ',' when none occurs.
char DetectDelimiter(const uint8_t* p, size_t n) {
  static constexpr char kCandidates[] = {',', '\t', ';', '|'};
  size_t counts[4] = {};
  bool quoted = false;
  for (size_t i = 0; i < n; ++i) {
    const char c = static_cast<char>(p[i]);
    if (c == '"') {
      quoted = !quoted;
    } else if (!quoted) {
      if (c == '\n' || c == '\r') break;
      for (int k = 0; k < 4; ++k) counts[k] += c == kCandidates[k];
    }
  }
  int best = 0;
  for (int k = 1; k < 4; ++k) {
    if (counts[k] > counts[best]) best = k;
  }
  return kCandidates[best];
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

CsvReader::~CsvReader() = default;

Status CsvReader::ReadMore() {
  // Read at least as much as the record in progress holds, so long records cost O(n log n).
  const size_t want = std::max(kReadChunk, end_ - pos_);
  if (buf_.size() < end_ + want) buf_.resize(end_ + want);
  TARN_ASSIGN_OR_RETURN(size_t got, input_->Read(buf_.data() + end_, want));
  end_ += got;
  if (got < want) eof_ = true;
  return Status::OK();
}

Result<std::unique_ptr<CsvReader>> CsvReader::Open(std::unique_ptr<InputStream> input,
                                                   std::string name, const Schema& target,
                                                   const CsvOptions& options) {
  std::unique_ptr<CsvReader> r(new CsvReader());
  r->input_ = std::move(input);
  r->name_ = std::move(name);
  r->target_ = target;
  r->batch_rows_ = options.batch_rows > 0 ? options.batch_rows : 65536;

  // The first line (up to 1 MiB of it) for the BOM and the delimiter.
  TARN_RETURN_NOT_OK(r->ReadMore());
  if (r->end_ >= 3 && r->buf_[0] == 0xEF && r->buf_[1] == 0xBB && r->buf_[2] == 0xBF) {
    r->pos_ = 3;
  }
  if (options.delimiter) {
    r->delim_ = *options.delimiter;
    if (r->delim_ == '"' || r->delim_ == '\n' || r->delim_ == '\r') {
      return Status::InvalidArgument("a CSV delimiter cannot be a quote or a line break");
    }
  } else {
    r->delim_ = DetectDelimiter(r->buf_.data() + r->pos_, r->end_ - r->pos_);
  }
  r->special_[static_cast<uint8_t>(r->delim_)] = true;
  r->special_[static_cast<uint8_t>('\n')] = true;
  r->special_[static_cast<uint8_t>('\r')] = true;

  if (options.header) {
    r->ncols_ = -1;  // any count for the header row
    while (true) {
      int n = 0;
      auto scanned = r->ScanRecord(&n);
      if (!scanned.ok()) {
        Status st = std::move(scanned).status();
        if (st.kind() != ErrorKind::kInvalidArgument) return st;
        return Status::Of(codes::kFormatUnreadable, r->name_ + ": header: " + st.message());
      }
      const Scan s = *scanned;
      if (s == Scan::kBlank) continue;
      if (s == Scan::kNeedMore) {
        if (r->end_ - r->pos_ > kMaxRecordBytes) {
          return Status::Of(codes::kFormatUnreadable,
                            r->name_ + ": the header is longer than 256 MiB");
        }
        TARN_RETURN_NOT_OK(r->ReadMore());
        continue;
      }
      if (s == Scan::kEnd) {
        r->done_ = true;  // empty input: no header, no rows
        break;
      }
      for (FieldRef& f : r->fields_) r->names_.emplace_back(TrimSpaces(r->Text(&f)));
      r->fields_.clear();
      break;
    }
    if (r->done_) return r;
    TARN_ASSIGN_OR_RETURN(r->mapping_, internal::MapColumns(r->names_, target));
    r->ncols_ = static_cast<int>(r->names_.size());
  } else {
    for (const Field& f : target.fields) r->names_.push_back(f.name);
    TARN_ASSIGN_OR_RETURN(r->mapping_, internal::MapColumns(r->names_, target));
    r->ncols_ = static_cast<int>(r->names_.size());
  }
  return r;
}

Result<CsvReader::Scan> CsvReader::ScanRecord(int* nfields) {
  const uint8_t* base = buf_.data();
  const size_t end = end_;
  size_t p = pos_;
  if (p >= end) return eof_ ? Scan::kEnd : Scan::kNeedMore;
  if (base[p] == '\n') {
    pos_ = p + 1;
    return Scan::kBlank;
  }
  if (base[p] == '\r') {
    if (p + 1 >= end && !eof_) return Scan::kNeedMore;
    pos_ = p + 1 + (p + 1 < end && base[p + 1] == '\n');
    return Scan::kBlank;
  }
  const size_t first_field = fields_.size();
  auto need_more = [&]() {
    fields_.resize(first_field);
    return Scan::kNeedMore;
  };
  const uint8_t delim = static_cast<uint8_t>(delim_);
  int n = 0;
  while (true) {
    FieldRef f{};
    if (p < end && base[p] == '"') {
      size_t q = p + 1;
      bool escaped = false;
      size_t close;
      while (true) {
        const void* hit = q < end ? std::memchr(base + q, '"', end - q) : nullptr;
        if (hit == nullptr) {
          if (!eof_) return need_more();
          return Status::InvalidArgument("a quoted field is not closed");
        }
        const size_t h = static_cast<size_t>(static_cast<const uint8_t*>(hit) - base);
        if (h + 1 >= end && !eof_) return need_more();
        if (h + 1 < end && base[h + 1] == '"') {
          escaped = true;
          q = h + 2;
          continue;
        }
        close = h;
        break;
      }
      f.start = static_cast<uint32_t>(p + 1);
      f.len = static_cast<uint32_t>(close - p - 1);
      f.quoted = 1;
      f.escaped = escaped;
      p = close + 1;
      if (p < end && base[p] != delim && base[p] != '\n' && base[p] != '\r') {
        return Status::InvalidArgument("a character follows a closing quote");
      }
    } else {
      const size_t s = p;
#if defined(__SSE2__)
      const __m128i vd = _mm_set1_epi8(static_cast<char>(delim));
      const __m128i vn = _mm_set1_epi8('\n');
      const __m128i vr = _mm_set1_epi8('\r');
      while (p + 16 <= end) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + p));
        const int m = _mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(x, vd), _mm_cmpeq_epi8(x, vn)), _mm_cmpeq_epi8(x, vr)));
        if (m != 0) {
          p += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(m)));
          goto found;
        }
        p += 16;
      }
#endif
      while (p < end && !special_[base[p]]) ++p;
      if (p >= end && !eof_) return need_more();
#if defined(__SSE2__)
    found:
#endif
      f.start = static_cast<uint32_t>(s);
      f.len = static_cast<uint32_t>(p - s);
    }
    fields_.push_back(f);
    ++n;
    if (p >= end) break;  // end of input ends the record
    const uint8_t c = base[p];
    if (c == delim) {
      ++p;
      if (p >= end && !eof_) return need_more();
      continue;
    }
    if (c == '\n') {
      ++p;
      break;
    }
    // '\r', alone or before '\n'.
    if (p + 1 >= end && !eof_) return need_more();
    p += 1 + (p + 1 < end && base[p + 1] == '\n');
    break;
  }
  pos_ = p;
  *nfields = n;
  return Scan::kRecord;
}

std::string_view CsvReader::Text(FieldRef* f) {
  char* s = reinterpret_cast<char*>(buf_.data()) + f->start;
  if (f->escaped) {
    // Collapse "" to " in place.
    size_t w = 0;
    for (size_t r = 0; r < f->len; ++r) {
      s[w++] = s[r];
      if (s[r] == '"') ++r;
    }
    f->len = static_cast<uint32_t>(w);
    f->escaped = 0;
  }
  return {s, f->len};
}

bool CsvReader::IsNull(const FieldRef& f) const {
  if (f.quoted) return false;
  if (f.len == 0) return true;
  if (f.len != 4) return false;
  const char* s = reinterpret_cast<const char*>(buf_.data()) + f.start;
  return std::memcmp(s, "null", 4) == 0 || std::memcmp(s, "NULL", 4) == 0;
}

Status CsvReader::BadValue(int t, int64_t r, std::string_view text, std::string_view why) const {
  return internal::ValueNotCastable(target_.fields[t].name, rows_before_ + r + 1, text, why);
}

template <typename T, typename Parse>
Status CsvReader::ConvertFixed(int t, int c, int64_t n, Column* out, int64_t* bad_row,
                               Parse parse) {
  const bool nullable = target_.fields[t].nullable;
  out->data.resize(static_cast<size_t>(n) * sizeof(T));
  uint8_t* values = out->data.data();
  ByteBuffer validity;
  bool any_null = false;
  FieldRef* fields = fields_.data();
  for (int64_t r = 0; r < n; ++r) {
    FieldRef& f = fields[r * ncols_ + c];
    T v{};
    if (IsNull(f)) {
      if (!nullable) {
        *bad_row = r;
        return internal::NullNotAllowed(target_.fields[t].name, rows_before_ + r + 1, Text(&f));
      }
      if (!any_null) {
        validity.assign(static_cast<size_t>(n), 1);
        any_null = true;
      }
      validity[r] = 0;
    } else {
      std::string_view text = Text(&f);
      Status st = parse(text, &v);
      if (!st.ok()) {
        *bad_row = r;
        return BadValue(t, r, text, st.message());
      }
    }
    std::memcpy(values + r * sizeof(T), &v, sizeof(T));
  }
  out->length = n;
  if (any_null) out->validity = std::move(validity);
  return Status::OK();
}

Status CsvReader::ConvertVariable(int t, int c, int64_t n, Column* out, int64_t* bad_row) {
  const bool nullable = target_.fields[t].nullable;
  const TypeId id = out->type.id();
  FieldRef* fields = fields_.data();
  size_t total = 0;
  for (int64_t r = 0; r < n; ++r) total += fields[r * ncols_ + c].len;
  out->offsets.resize(static_cast<size_t>(n) + 1);
  out->offsets[0] = 0;
  ByteBuffer validity;
  bool any_null = false;
  if (id == TypeId::kVarchar) out->data.resize(total);
  size_t w = 0;
  for (int64_t r = 0; r < n; ++r) {
    FieldRef& f = fields[r * ncols_ + c];
    if (IsNull(f)) {
      if (!nullable) {
        *bad_row = r;
        return internal::NullNotAllowed(target_.fields[t].name, rows_before_ + r + 1, Text(&f));
      }
      if (!any_null) {
        validity.assign(static_cast<size_t>(n), 1);
        any_null = true;
      }
      validity[r] = 0;
    } else {
      std::string_view text = Text(&f);
      if (id == TypeId::kVarchar) {
        if (!text.empty()) std::memcpy(out->data.data() + w, text.data(), text.size());
        w += text.size();
      } else {
        // JSON (validated) and BLOB (base64) through the shared parser.
        Column one(out->type);
        Status st = AppendParsedValue(text, &one);
        if (!st.ok()) {
          *bad_row = r;
          return BadValue(t, r, text, st.message());
        }
        out->data.resize(w + one.data.size());
        if (!one.data.empty()) {
          std::memcpy(out->data.data() + w, one.data.data(), one.data.size());
        }
        w += one.data.size();
      }
    }
    out->offsets[r + 1] = static_cast<int64_t>(w);
  }
  out->data.resize(w);
  if (id == TypeId::kVarchar &&
      !AllAscii(std::string_view(reinterpret_cast<const char*>(out->data.data()), w))) {
    for (int64_t r = 0; r < n; ++r) {
      std::string_view v(reinterpret_cast<const char*>(out->data.data()) + out->offsets[r],
                         static_cast<size_t>(out->offsets[r + 1] - out->offsets[r]));
      if (!IsValidUtf8(v)) {
        *bad_row = r;
        return BadValue(t, r, v, "the value is not valid UTF-8");
      }
    }
  }
  out->length = n;
  if (any_null) out->validity = std::move(validity);
  return Status::OK();
}

Status CsvReader::ConvertGeneric(int t, int c, int64_t n, Column* out, int64_t* bad_row) {
  const bool nullable = target_.fields[t].nullable;
  const bool is_nested = out->type.is_nested();  // JSON text: formats/json_append.h
  FieldRef* fields = fields_.data();
  for (int64_t r = 0; r < n; ++r) {
    FieldRef& f = fields[r * ncols_ + c];
    if (IsNull(f)) {
      if (!nullable) {
        *bad_row = r;
        return internal::NullNotAllowed(target_.fields[t].name, rows_before_ + r + 1, Text(&f));
      }
      out->AppendNull();
      continue;
    }
    std::string_view text = Text(&f);
    Status st = is_nested ? AppendJsonText(text, out) : AppendParsedValue(text, out);
    if (!st.ok()) {
      *bad_row = r;
      return BadValue(t, r, text, st.message());
    }
  }
  return Status::OK();
}

Status CsvReader::ConvertColumn(int t, int c, int64_t n, Column* out, int64_t* bad_row) {
  const DataType& type = out->type;
  switch (type.id()) {
#define TARN_CSV_INT(ID, T)                                                      \
  case TypeId::ID:                                                               \
    return ConvertFixed<T>(t, c, n, out, bad_row, [](std::string_view s, T* v) { \
      if (FastParseInt<T>(s, v)) return Status::OK();                            \
      auto res = ParseInteger<T>(s);                                             \
      if (!res.ok()) return std::move(res).status();                             \
      *v = *res;                                                                 \
      return Status::OK();                                                       \
    });
    TARN_CSV_INT(kInt8, int8_t)
    TARN_CSV_INT(kInt16, int16_t)
    TARN_CSV_INT(kInt32, int32_t)
    TARN_CSV_INT(kInt64, int64_t)
    TARN_CSV_INT(kUInt8, uint8_t)
    TARN_CSV_INT(kUInt16, uint16_t)
    TARN_CSV_INT(kUInt32, uint32_t)
    TARN_CSV_INT(kUInt64, uint64_t)
#undef TARN_CSV_INT
#define TARN_CSV_FIXED(ID, T, EXPR)                                               \
  case TypeId::ID:                                                                \
    return ConvertFixed<T>(t, c, n, out, bad_row, [&](std::string_view s, T* v) { \
      auto res = EXPR;                                                            \
      if (!res.ok()) return std::move(res).status();                              \
      std::memcpy(v, &*res, sizeof(T));                                           \
      return Status::OK();                                                        \
    });
    TARN_CSV_FIXED(kTime, int64_t, ParseTime(s, type.unit()))
    TARN_CSV_FIXED(kIpv4, uint32_t, ParseIpv4(s))
#undef TARN_CSV_FIXED
// As TARN_CSV_FIXED, trying FAST(s, v) first.
#define TARN_CSV_FAST(ID, T, FAST, EXPR)                                          \
  case TypeId::ID:                                                                \
    return ConvertFixed<T>(t, c, n, out, bad_row, [&](std::string_view s, T* v) { \
      if (FAST) return Status::OK();                                              \
      auto res = EXPR;                                                            \
      if (!res.ok()) return std::move(res).status();                              \
      std::memcpy(v, &*res, sizeof(T));                                           \
      return Status::OK();                                                        \
    });
    TARN_CSV_FAST(kBoolean, uint8_t, FastParseBoolean(s, v), ParseBoolean(s))
    TARN_CSV_FAST(kFloat32, float, FastParseFloat(s, v), ParseFloat32(s))
    TARN_CSV_FAST(kFloat64, double, FastParseFloat(s, v), ParseFloat64(s))
    TARN_CSV_FAST(kDate, int32_t, FastParseDate(s, v), ParseDate(s))
    TARN_CSV_FAST(kTimestamp, int64_t, FastParseTimestamp(s, type.unit(), false, v),
                  ParseTimestamp(s, type.unit()))
    TARN_CSV_FAST(kTimestampTz, int64_t, FastParseTimestamp(s, type.unit(), true, v),
                  ParseTimestampTz(s, type.unit()))
#undef TARN_CSV_FAST
    case TypeId::kDecimal:
      return ConvertFixed<int128>(t, c, n, out, bad_row, [&](std::string_view s, int128* v) {
        if (FastParseDecimal(s, type.precision(), type.scale(), v)) return Status::OK();
        if (TryParseDecimal(s, type.precision(), type.scale(), v) == DecimalParseError::kOk) {
          return Status::OK();
        }
        return ParseDecimal(s, type.precision(), type.scale()).status();
      });
    case TypeId::kUuid: {
      using Bytes16 = std::array<uint8_t, 16>;
      return ConvertFixed<Bytes16>(t, c, n, out, bad_row, [](std::string_view s, Bytes16* v) {
        auto res = ParseUuid(s);
        if (!res.ok()) return std::move(res).status();
        *v = *res;
        return Status::OK();
      });
    }
    case TypeId::kVarchar:
    case TypeId::kJson:
    case TypeId::kBlob:
      return ConvertVariable(t, c, n, out, bad_row);
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      return ConvertGeneric(t, c, n, out, bad_row);
  }
  return ConvertGeneric(t, c, n, out, bad_row);
}

Result<std::optional<RecordBatch>> CsvReader::Next() {
  if (done_) return std::optional<RecordBatch>();
  // Drop the bytes of the previous batch.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  fields_.clear();
  fields_.reserve(static_cast<size_t>(std::min<int64_t>(batch_rows_, 1 << 20)) * ncols_);
  int64_t rows = 0;
  while (rows < batch_rows_ && pos_ < kMaxBatchBytes) {
    int n = 0;
    auto scanned = ScanRecord(&n);
    if (!scanned.ok()) {
      // Name the row the scanner stopped in.
      Status st = std::move(scanned).status();
      if (st.kind() != ErrorKind::kInvalidArgument) return st;
      return internal::MalformedRow(name_, rows_before_ + rows + 1, st.message());
    }
    const Scan s = *scanned;
    if (s == Scan::kRecord) {
      if (n != ncols_) {
        return internal::MalformedRow(
            name_, rows_before_ + rows + 1,
            "expected " + std::to_string(ncols_) + " fields, found " + std::to_string(n));
      }
      ++rows;
    } else if (s == Scan::kNeedMore) {
      if (end_ - pos_ > kMaxRecordBytes) {
        return internal::MalformedRow(name_, rows_before_ + rows + 1,
                                      "the record is longer than 256 MiB (an unclosed quote?)");
      }
      TARN_RETURN_NOT_OK(ReadMore());
    } else if (s == Scan::kEnd) {
      done_ = true;
      break;
    }
  }
  if (rows == 0) {
    done_ = true;
    return std::optional<RecordBatch>();
  }

  RecordBatch batch;
  batch.schema = target_;
  batch.num_rows = rows;
  batch.columns.reserve(target_.fields.size());
  Status first_error;
  int64_t first_bad = std::numeric_limits<int64_t>::max();
  for (size_t t = 0; t < target_.fields.size(); ++t) {
    const int c = mapping_.target_to_input[t];
    if (c < 0) {
      batch.columns.push_back(Column::Nulls(target_.fields[t].type, rows));
      continue;
    }
    Column col(target_.fields[t].type);
    int64_t bad = -1;
    Status st = ConvertColumn(static_cast<int>(t), c, rows, &col, &bad);
    if (!st.ok()) {
      // Report the earliest bad row of the batch (the leftmost column on ties).
      if (bad < first_bad) {
        first_bad = bad;
        first_error = std::move(st);
      }
      continue;
    }
    batch.columns.push_back(std::move(col));
  }
  if (!first_error.ok()) {
    done_ = true;
    return first_error;
  }
  rows_before_ += rows;
  return std::optional<RecordBatch>(std::move(batch));
}

}  // namespace tarn::formats
