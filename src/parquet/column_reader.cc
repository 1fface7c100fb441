#include "parquet/column_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/compression.h"
#include "parquet/decoding.h"
#include "types/value_text.h"
#include "types/variant.h"

namespace tarn::parquet {
namespace {

// Largest uncompressed page accepted (Parquet pages are usually about 1 MiB).
constexpr int64_t kMaxPageBytes = int64_t{1} << 30;
// Dictionary indices decoded per gather.
constexpr int64_t kIndexBatch = 4096;
// Julian day number of 1970-01-01.
constexpr int64_t kJulianEpochDay = 2440588;
constexpr int64_t kNanosPerDay = 86400LL * 1000 * 1000 * 1000;

template <typename T>
inline T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
inline void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

}  // namespace

bool Int96ToNanos(const uint8_t* raw, int64_t* out) {
  const int64_t nanos = Load<int64_t>(raw);
  const int64_t days = int64_t{Load<int32_t>(raw + 8)} - kJulianEpochDay;
  // In 128 bits: the product alone leaves int64 at the low end of the range (1677-09-21).
  const int128 v = static_cast<int128>(days) * kNanosPerDay + nanos;
  if (v < INT64_MIN || v > INT64_MAX) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

Status Int96OutOfRange(const uint8_t* raw) {
  const int64_t nanos = Load<int64_t>(raw);
  const int32_t julian = Load<int32_t>(raw + 8);
  std::string text;
  if (nanos >= 0 && nanos < kNanosPerDay) {
    // The value as a timestamp: the date of the Julian day, then the time of day.
    const CivilDate d = CivilFromDays(int64_t{julian} - kJulianEpochDay);
    char buf[96];
    const int64_t secs = nanos / 1000000000, frac = nanos % 1000000000;
    int len = std::snprintf(
        buf, sizeof(buf), "%04lld-%02d-%02d %02lld:%02lld:%02lld", static_cast<long long>(d.year),
        d.month, d.day, static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
        static_cast<long long>(secs % 60));
    if (frac != 0 && len > 0 && len < static_cast<int>(sizeof(buf))) {
      std::snprintf(buf + len, sizeof(buf) - len, ".%09lld", static_cast<long long>(frac));
    }
    text = buf;
  } else {
    text = std::to_string(nanos) + " ns after the start of Julian day " + std::to_string(julian);
  }
  return Status::InvalidArgument("INT96 timestamp " + text +
                                 " is outside the range of TIMESTAMP[ns] (1677-09-21 "
                                 "00:12:43.145224192 to 2262-04-11 23:47:16.854775807)");
}

namespace {

int64_t Pow10(int e) {
  int64_t f = 1;
  for (int i = 0; i < e; ++i) f *= 10;
  return f;
}

int UnitExponent(TimeUnit u) {
  switch (u) {
    case TimeUnit::kSecond:
      return 0;
    case TimeUnit::kMilli:
      return 3;
    case TimeUnit::kMicro:
      return 6;
    case TimeUnit::kNano:
      return 9;
  }
  return 6;
}

// Decimal exponent of the unit an INT32/INT64 time or timestamp element is stored in.
int SourceExponent(const SchemaElement& e) {
  if (e.logical_type && (e.logical_type->kind == LogicalType::TIME ||
                         e.logical_type->kind == LogicalType::TIMESTAMP)) {
    switch (e.logical_type->unit) {
      case TimeUnitKind::MILLIS:
        return 3;
      case TimeUnitKind::MICROS:
        return 6;
      case TimeUnitKind::NANOS:
        return 9;
    }
  }
  if (e.converted_type == ConvertedType::TIMESTAMP_MILLIS ||
      e.converted_type == ConvertedType::TIME_MILLIS) {
    return 3;
  }
  return 6;
}

Result<CompressionCodec> MapCodec(Codec c) {
  switch (c) {
    case Codec::UNCOMPRESSED:
      return CompressionCodec::kNone;
    case Codec::SNAPPY:
      return CompressionCodec::kSnappy;
    case Codec::GZIP:
      return CompressionCodec::kGzip;
    case Codec::BROTLI:
      return CompressionCodec::kBrotli;
    case Codec::LZ4:
      return CompressionCodec::kLz4Hadoop;
    case Codec::ZSTD:
      return CompressionCodec::kZstd;
    case Codec::LZ4_RAW:
      return CompressionCodec::kLz4Raw;
    case Codec::LZO:
      return Status::InvalidArgument("the LZO codec is not supported");
  }
  return Status::Corruption("unknown compression codec " + std::to_string(static_cast<int>(c)));
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {
      float f = std::ldexp(static_cast<float>(mant), -24);
      return sign ? -f : f;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Big-endian two's complement of `len` (<= 16) bytes.
int128 BigEndianToInt128(const uint8_t* p, size_t len) {
  uint128 v = (len > 0 && (p[0] & 0x80)) ? ~uint128{0} : uint128{0};
  for (size_t i = 0; i < len; ++i) v = (v << 8) | p[i];
  return static_cast<int128>(v);
}

// Converts n fixed-width Parquet values at `raw` into plan.target's form at `out`. Fails only
// for a value the target cannot hold (an INT96 timestamp outside TIMESTAMP[ns]).
Status ConvertFixed(const LeafPlan& p, const uint8_t* raw, int64_t n, uint8_t* out) {
  switch (p.conv) {
    case Conversion::kCopy:
      if (n > 0) std::memcpy(out, raw, static_cast<size_t>(n) * p.out_width);
      break;
    case Conversion::kInt32ToInt8:
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(Load<int32_t>(raw + 4 * i));
      break;
    case Conversion::kInt32ToInt16:
      for (int64_t i = 0; i < n; ++i) {
        Store<uint16_t>(out + 2 * i, static_cast<uint16_t>(Load<int32_t>(raw + 4 * i)));
      }
      break;
    case Conversion::kInt32ToInt128:
      for (int64_t i = 0; i < n; ++i) {
        Store<int128>(out + 16 * i, static_cast<int128>(Load<int32_t>(raw + 4 * i)));
      }
      break;
    case Conversion::kInt64ToInt128:
      for (int64_t i = 0; i < n; ++i) {
        Store<int128>(out + 16 * i, static_cast<int128>(Load<int64_t>(raw + 8 * i)));
      }
      break;
    case Conversion::kInt32Scale:
      for (int64_t i = 0; i < n; ++i) {
        Store<int64_t>(out + 8 * i, static_cast<int64_t>(Load<int32_t>(raw + 4 * i)) * p.factor);
      }
      break;
    case Conversion::kInt64ScaleDown:
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = Load<int64_t>(raw + 8 * i);
        int64_t q = v / p.factor;
        if (v % p.factor != 0 && v < 0) --q;
        Store<int64_t>(out + 8 * i, q);
      }
      break;
    case Conversion::kInt64ScaleUp:
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t v = static_cast<uint64_t>(Load<int64_t>(raw + 8 * i));
        Store<int64_t>(out + 8 * i, static_cast<int64_t>(v * static_cast<uint64_t>(p.factor)));
      }
      break;
    case Conversion::kInt96ToNanos:
      for (int64_t i = 0; i < n; ++i) {
        int64_t v;
        if (!Int96ToNanos(raw + 12 * i, &v)) return Int96OutOfRange(raw + 12 * i);
        Store<int64_t>(out + 8 * i, v);
      }
      break;
    case Conversion::kFloat16ToFloat:
      for (int64_t i = 0; i < n; ++i)
        Store<float>(out + 4 * i, HalfToFloat(Load<uint16_t>(raw + 2 * i)));
      break;
    case Conversion::kFixedBigEndianToInt128:
      for (int64_t i = 0; i < n; ++i) {
        Store<int128>(out + 16 * i, BigEndianToInt128(raw + static_cast<size_t>(p.raw_width) * i,
                                                      static_cast<size_t>(p.raw_width)));
      }
      break;
    case Conversion::kFixedToBinary:
    case Conversion::kBinary:
    case Conversion::kBinaryToInt128:
      break;  // handled by the callers
  }
  return Status::OK();
}

using Levels = std::vector<int16_t, DefaultInitAllocator<int16_t>>;

// Decodes the values, levels and pages of one column chunk. Dense (non-null) values are
// appended to `values` in tarn form; levels go to scratch->def / scratch->rep.
class ChunkDecoder {
 public:
  ChunkDecoder(const LeafColumn& leaf, const LeafPlan& plan, CompressionCodec codec,
               DecodeScratch* s, Column* values)
      : leaf_(leaf), plan_(plan), codec_(codec), s_(s), values_(values), dict_(plan.target) {}

  Status Run(const uint8_t* data, size_t len, int64_t expected);
  // Decodes every page in data[0, len) (at most `expected` levels in all, counting earlier
  // calls); unlike Run, ending with fewer levels is not an error.
  Status RunSome(const uint8_t* data, size_t len, int64_t expected);
  // Decodes the page at data[*pos, len) (the `page`-th of the chunk, for messages) and moves
  // *pos past it.
  Status Step(const uint8_t* data, size_t len, int64_t expected, size_t* pos, int page);
  // Levels decoded in all, and those (and the non-null values among them) not yet taken: the
  // levels in scratch->def / scratch->rep are those not taken.
  int64_t num_levels() const { return num_levels_; }
  int64_t pending_levels() const { return num_levels_ - taken_levels_; }
  int64_t pending_dense() const { return dense_ - taken_dense_; }
  // The pending levels were assembled: the next page's levels start the buffers again.
  void TakeLevels() {
    taken_levels_ = num_levels_;
    taken_dense_ = dense_;
  }
  int64_t data_pages() const { return data_pages_; }

 private:
  Status Page(const PageHeader& h, const uint8_t* body, size_t body_len, int64_t expected);
  Status DictionaryPage(const PageHeader& h, const uint8_t* body, size_t body_len);
  Status DataPageV1(const PageHeader& h, const uint8_t* body, size_t body_len, int64_t n);
  Status DataPageV2(const PageHeader& h, const uint8_t* body, size_t body_len, int64_t n);
  // The page's bytes after decompression; the first `raw_prefix` bytes are never compressed.
  Status PageBytes(const PageHeader& h, const uint8_t* body, size_t body_len, size_t raw_prefix,
                   bool compressed, const uint8_t** out, size_t* out_len);
  Status LevelsV1(Encoding enc, int max_level, const uint8_t* data, size_t len, int64_t n,
                  int16_t* out, size_t* consumed);
  Status LevelsRle(int max_level, const uint8_t* data, size_t len, int64_t n, int16_t* out);
  Status Values(Encoding enc, const uint8_t* data, size_t len, int64_t n, Column* dst);
  Status DictionaryValues(const uint8_t* data, size_t len, int64_t n, Column* dst);
  // Appends n raw fixed-width Parquet values converted to tarn form.
  Status AppendRawFixed(const uint8_t* raw, int64_t n, Column* dst);
  // Appends the n variable-width values in scratch tmp_data/tmp_offsets converted to tarn form.
  Status AppendTmpBinary(int64_t n, Column* dst);
  uint8_t* GrowFixed(Column* dst, int64_t n) {
    const size_t at = dst->data.size();
    dst->data.resize(at + static_cast<size_t>(n) * plan_.out_width);
    return dst->data.data() + at;
  }
  void ResetTmp() {
    s_->tmp_data.clear();
    s_->tmp_offsets.assign(1, 0);
  }

  const LeafColumn& leaf_;
  const LeafPlan& plan_;
  CompressionCodec codec_;
  DecodeScratch* s_;
  Column* values_;
  Column dict_;
  bool has_dict_ = false;
  uint32_t dict_size_ = 0;
  int64_t num_levels_ = 0;
  int64_t dense_ = 0;
  int64_t taken_levels_ = 0;
  int64_t taken_dense_ = 0;
  int64_t data_pages_ = 0;
};

Status ChunkDecoder::Run(const uint8_t* data, size_t len, int64_t expected) {
  TARN_RETURN_NOT_OK(RunSome(data, len, expected));
  if (num_levels_ < expected) {
    return Status::Corruption("column chunk ends after " + std::to_string(num_levels_) + " of " +
                              std::to_string(expected) + " values");
  }
  return Status::OK();
}

Status ChunkDecoder::RunSome(const uint8_t* data, size_t len, int64_t expected) {
  size_t pos = 0;
  for (int page = 0; num_levels_ < expected && pos < len; ++page) {
    TARN_RETURN_NOT_OK(Step(data, len, expected, &pos, page));
  }
  return Status::OK();
}

Status ChunkDecoder::Step(const uint8_t* data, size_t len, int64_t expected, size_t* pos,
                          int page) {
  size_t header_len = 0;
  auto header = DecodePageHeader(data + *pos, len - *pos, &header_len);
  if (!header.ok()) return header.status().WithContext("page " + std::to_string(page) + " header");
  *pos += header_len;
  const PageHeader& h = *header;
  if (static_cast<uint64_t>(h.compressed_page_size) > len - *pos) {
    return Status::Corruption("page " + std::to_string(page) + ": compressed size " +
                              std::to_string(h.compressed_page_size) +
                              " runs past the end of the column chunk");
  }
  Status st = Page(h, data + *pos, static_cast<size_t>(h.compressed_page_size), expected);
  if (!st.ok()) return st.WithContext("page " + std::to_string(page));
  *pos += static_cast<size_t>(h.compressed_page_size);
  return Status::OK();
}

Status ChunkDecoder::Page(const PageHeader& h, const uint8_t* body, size_t body_len,
                          int64_t expected) {
  switch (h.type) {
    case PageType::DICTIONARY_PAGE:
      if (!h.dictionary_page_header) return Status::Corruption("dictionary page without header");
      if (has_dict_ || num_levels_ > 0) {
        return Status::Corruption("dictionary page after the first page of the column chunk");
      }
      return DictionaryPage(h, body, body_len);
    case PageType::DATA_PAGE: {
      if (!h.data_page_header) return Status::Corruption("data page without data_page_header");
      const int64_t n = h.data_page_header->num_values;
      if (n < 0 || n > expected - num_levels_) {
        return Status::Corruption("data page holds " + std::to_string(n) +
                                  " values, the column chunk has " +
                                  std::to_string(expected - num_levels_) + " left");
      }
      ++data_pages_;
      return DataPageV1(h, body, body_len, n);
    }
    case PageType::DATA_PAGE_V2: {
      if (!h.data_page_header_v2) {
        return Status::Corruption("data page v2 without data_page_header_v2");
      }
      const int64_t n = h.data_page_header_v2->num_values;
      if (n < 0 || n > expected - num_levels_) {
        return Status::Corruption("data page holds " + std::to_string(n) +
                                  " values, the column chunk has " +
                                  std::to_string(expected - num_levels_) + " left");
      }
      ++data_pages_;
      return DataPageV2(h, body, body_len, n);
    }
    default:
      return Status::OK();  // index pages and page types from the future carry no values
  }
}

Status ChunkDecoder::PageBytes(const PageHeader& h, const uint8_t* body, size_t body_len,
                               size_t raw_prefix, bool compressed, const uint8_t** out,
                               size_t* out_len) {
  if (!compressed || codec_ == CompressionCodec::kNone) {
    *out = body;
    *out_len = body_len;
    return Status::OK();
  }
  const int64_t size = h.uncompressed_page_size;
  if (size > kMaxPageBytes) {
    return Status::TooLarge("uncompressed page size " + std::to_string(size) + " exceeds " +
                            std::to_string(kMaxPageBytes));
  }
  if (size < static_cast<int64_t>(raw_prefix)) {
    return Status::Corruption("uncompressed page size " + std::to_string(size) +
                              " is smaller than its levels");
  }
  s_->page.resize(static_cast<size_t>(size));
  if (raw_prefix > 0) std::memcpy(s_->page.data(), body, raw_prefix);
  const size_t in_len = body_len - raw_prefix;
  const size_t want = static_cast<size_t>(size) - raw_prefix;
  if (in_len > 0 || want > 0) {
    TARN_RETURN_NOT_OK(
        Decompress(codec_, body + raw_prefix, in_len, s_->page.data() + raw_prefix, want));
  }
  *out = s_->page.data();
  *out_len = static_cast<size_t>(size);
  return Status::OK();
}

Status ChunkDecoder::DictionaryPage(const PageHeader& h, const uint8_t* body, size_t body_len) {
  const DictionaryPageHeader& d = *h.dictionary_page_header;
  if (d.num_values < 0) return Status::Corruption("dictionary page with negative num_values");
  if (d.encoding != Encoding::PLAIN && d.encoding != Encoding::PLAIN_DICTIONARY) {
    return Status::Corruption(std::string("dictionary page encoding ") + EncodingName(d.encoding) +
                              " is not supported");
  }
  const uint8_t* p;
  size_t len;
  TARN_RETURN_NOT_OK(PageBytes(h, body, body_len, 0, true, &p, &len));
  dict_ = Column(plan_.target);
  TARN_RETURN_NOT_OK(
      Values(Encoding::PLAIN, p, len, d.num_values, &dict_).WithContext("dictionary"));
  dict_size_ = static_cast<uint32_t>(d.num_values);
  has_dict_ = true;
  return Status::OK();
}

// Checks levels against their maximum; returns how many equal it (the non-null values).
// Written as min/max/count reductions so that the compiler vectorizes it.
bool CheckLevels(const int16_t* levels, int64_t n, int16_t max_level, int64_t* at_max) {
  int16_t lo = 0, hi = 0;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int16_t l = levels[i];
    lo = std::min(lo, l);
    hi = std::max(hi, l);
    count += l == max_level;
  }
  *at_max = count;
  return lo >= 0 && hi <= max_level;
}

Status ChunkDecoder::LevelsRle(int max_level, const uint8_t* data, size_t len, int64_t n,
                               int16_t* out) {
  RleBitPackedDecoder dec(data, len, BitWidthOf(static_cast<uint64_t>(max_level)));
  const int64_t got = dec.GetBatch(out, n);
  if (got != n) {
    return Status::Corruption("levels end after " + std::to_string(got) + " of " +
                              std::to_string(n) + " values");
  }
  return Status::OK();
}

Status ChunkDecoder::LevelsV1(Encoding enc, int max_level, const uint8_t* data, size_t len,
                              int64_t n, int16_t* out, size_t* consumed) {
  if (enc == Encoding::RLE) {
    if (len < 4) return Status::Corruption("level length prefix truncated");
    const uint32_t l = Load<uint32_t>(data);
    if (l > len - 4) {
      return Status::Corruption("levels of " + std::to_string(l) + " bytes run past the page");
    }
    TARN_RETURN_NOT_OK(LevelsRle(max_level, data + 4, l, n, out));
    *consumed = 4 + static_cast<size_t>(l);
    return Status::OK();
  }
  if (enc == Encoding::BIT_PACKED) {
    const int w = BitWidthOf(static_cast<uint64_t>(max_level));
    TARN_RETURN_NOT_OK(DecodeBitPackedLegacy(data, len, w, out, n));
    *consumed = static_cast<size_t>((static_cast<uint64_t>(n) * w + 7) / 8);
    return Status::OK();
  }
  return Status::Corruption(std::string("level encoding ") + EncodingName(enc) +
                            " is not supported");
}

Status ChunkDecoder::DataPageV1(const PageHeader& h, const uint8_t* body, size_t body_len,
                                int64_t n) {
  const DataPageHeader& d = *h.data_page_header;
  const uint8_t* p;
  size_t len;
  TARN_RETURN_NOT_OK(PageBytes(h, body, body_len, 0, true, &p, &len));
  size_t off = 0;
  const size_t at = static_cast<size_t>(num_levels_ - taken_levels_);
  if (leaf_.max_rep_level > 0) {
    s_->rep.resize(at + n);
    size_t c;
    TARN_RETURN_NOT_OK(LevelsV1(d.repetition_level_encoding, leaf_.max_rep_level, p, len, n,
                                s_->rep.data() + at, &c)
                           .WithContext("repetition levels"));
    off += c;
    int64_t unused;
    if (!CheckLevels(s_->rep.data() + at, n, leaf_.max_rep_level, &unused)) {
      return Status::Corruption("repetition level above the maximum " +
                                std::to_string(leaf_.max_rep_level));
    }
  }
  int64_t valid = n;
  if (leaf_.max_def_level > 0) {
    s_->def.resize(at + n);
    size_t c;
    TARN_RETURN_NOT_OK(LevelsV1(d.definition_level_encoding, leaf_.max_def_level, p + off,
                                len - off, n, s_->def.data() + at, &c)
                           .WithContext("definition levels"));
    off += c;
    if (!CheckLevels(s_->def.data() + at, n, leaf_.max_def_level, &valid)) {
      return Status::Corruption("definition level above the maximum " +
                                std::to_string(leaf_.max_def_level));
    }
  }
  TARN_RETURN_NOT_OK(Values(d.encoding, p + off, len - off, valid, values_));
  num_levels_ += n;
  dense_ += valid;
  return Status::OK();
}

Status ChunkDecoder::DataPageV2(const PageHeader& h, const uint8_t* body, size_t body_len,
                                int64_t n) {
  const DataPageHeaderV2& d = *h.data_page_header_v2;
  if (d.repetition_levels_byte_length < 0 || d.definition_levels_byte_length < 0 ||
      static_cast<uint64_t>(d.repetition_levels_byte_length) +
              static_cast<uint64_t>(d.definition_levels_byte_length) >
          body_len) {
    return Status::Corruption("level lengths of the data page v2 run past the page");
  }
  const size_t rep_len = static_cast<size_t>(d.repetition_levels_byte_length);
  const size_t def_len = static_cast<size_t>(d.definition_levels_byte_length);
  const size_t at = static_cast<size_t>(num_levels_ - taken_levels_);
  if (leaf_.max_rep_level > 0) {
    s_->rep.resize(at + n);
    TARN_RETURN_NOT_OK(LevelsRle(leaf_.max_rep_level, body, rep_len, n, s_->rep.data() + at)
                           .WithContext("repetition levels"));
    int64_t unused;
    if (!CheckLevels(s_->rep.data() + at, n, leaf_.max_rep_level, &unused)) {
      return Status::Corruption("repetition level above the maximum " +
                                std::to_string(leaf_.max_rep_level));
    }
  }
  int64_t valid = n;
  if (leaf_.max_def_level > 0) {
    s_->def.resize(at + n);
    TARN_RETURN_NOT_OK(
        LevelsRle(leaf_.max_def_level, body + rep_len, def_len, n, s_->def.data() + at)
            .WithContext("definition levels"));
    if (!CheckLevels(s_->def.data() + at, n, leaf_.max_def_level, &valid)) {
      return Status::Corruption("definition level above the maximum " +
                                std::to_string(leaf_.max_def_level));
    }
  }
  const uint8_t* p;
  size_t len;
  TARN_RETURN_NOT_OK(PageBytes(h, body, body_len, rep_len + def_len, d.is_compressed, &p, &len));
  TARN_RETURN_NOT_OK(
      Values(d.encoding, p + rep_len + def_len, len - rep_len - def_len, valid, values_));
  num_levels_ += n;
  dense_ += valid;
  return Status::OK();
}

Status ChunkDecoder::AppendRawFixed(const uint8_t* raw, int64_t n, Column* dst) {
  if (plan_.conv == Conversion::kFixedToBinary) {
    const size_t w = static_cast<size_t>(plan_.raw_width);
    const size_t base = dst->data.size();
    dst->data.resize(base + w * n);
    if (n > 0) std::memcpy(dst->data.data() + base, raw, w * n);
    const size_t ob = dst->offsets.size();
    dst->offsets.resize(ob + n);
    for (int64_t i = 0; i < n; ++i) {
      dst->offsets[ob + i] = static_cast<int64_t>(base + w * (i + 1));
    }
    return Status::OK();
  }
  return ConvertFixed(plan_, raw, n, GrowFixed(dst, n));
}

Status ChunkDecoder::AppendTmpBinary(int64_t n, Column* dst) {
  const int64_t* off = s_->tmp_offsets.data();
  const uint8_t* data = s_->tmp_data.data();
  if (plan_.conv == Conversion::kBinaryToInt128) {
    uint8_t* out = GrowFixed(dst, n);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t l = off[i + 1] - off[i];
      if (l > 16) {
        return Status::Corruption("DECIMAL value of " + std::to_string(l) +
                                  " bytes does not fit 128 bits");
      }
      Store<int128>(out + 16 * i, BigEndianToInt128(data + off[i], static_cast<size_t>(l)));
    }
    return Status::OK();
  }
  // FIXED_LEN_BYTE_ARRAY decoded through a variable-width encoding.
  const int64_t w = plan_.raw_width;
  for (int64_t i = 0; i < n; ++i) {
    if (off[i + 1] - off[i] != w) {
      return Status::Corruption("FIXED_LEN_BYTE_ARRAY value of " +
                                std::to_string(off[i + 1] - off[i]) + " bytes, expected " +
                                std::to_string(w));
    }
  }
  return AppendRawFixed(data, n, dst);
}

Status ChunkDecoder::DictionaryValues(const uint8_t* data, size_t len, int64_t n, Column* dst) {
  if (!has_dict_) return Status::Corruption("dictionary-encoded page without a dictionary page");
  if (n == 0) return Status::OK();
  if (len < 1) return Status::Corruption("dictionary indices missing");
  const int bw = data[0];
  if (bw > 32) return Status::Corruption("dictionary index bit width " + std::to_string(bw));
  RleBitPackedDecoder dec(data + 1, len - 1, bw);
  s_->indices.resize(static_cast<size_t>(std::min(n, kIndexBatch)));
  uint32_t* idx = s_->indices.data();
  for (int64_t done = 0; done < n;) {
    const int64_t k = std::min(kIndexBatch, n - done);
    const int64_t got = dec.GetBatch(idx, k);
    if (got != k) {
      return Status::Corruption("dictionary indices end after " + std::to_string(done + got) +
                                " of " + std::to_string(n) + " values");
    }
    if (plan_.out_width > 0) {
      TARN_RETURN_NOT_OK(
          GatherFixed(plan_.out_width, dict_.data.data(), dict_size_, idx, k, GrowFixed(dst, k)));
    } else {
      TARN_RETURN_NOT_OK(GatherBinary(dict_.data.data(), dict_.offsets.data(), dict_size_, idx, k,
                                      &dst->data, &dst->offsets));
    }
    done += k;
  }
  return Status::OK();
}

Status ChunkDecoder::Values(Encoding enc, const uint8_t* data, size_t len, int64_t n, Column* dst) {
  const Type pt = plan_.physical;
  auto invalid = [&] {
    return Status::Corruption(std::string("encoding ") + EncodingName(enc) + " is not valid for " +
                              TypeName(pt));
  };
  switch (enc) {
    case Encoding::PLAIN: {
      if (pt == Type::BOOLEAN) {
        size_t c;
        return DecodePlainBoolean(data, len, n, GrowFixed(dst, n), &c);
      }
      if (pt == Type::BYTE_ARRAY) {
        size_t c;
        if (plan_.conv == Conversion::kBinary) {
          return DecodePlainByteArray(data, len, n, &dst->data, &dst->offsets, &c);
        }
        ResetTmp();
        TARN_RETURN_NOT_OK(DecodePlainByteArray(data, len, n, &s_->tmp_data, &s_->tmp_offsets, &c));
        return AppendTmpBinary(n, dst);
      }
      const size_t w = static_cast<size_t>(plan_.raw_width);
      if (static_cast<uint64_t>(n) > len / w) {
        return Status::Corruption("PLAIN page holds " + std::to_string(len / w) +
                                  " values, expected " + std::to_string(n));
      }
      return AppendRawFixed(data, n, dst);
    }
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY:
      return DictionaryValues(data, len, n, dst);
    case Encoding::RLE: {
      if (pt != Type::BOOLEAN) return invalid();
      if (len < 4) return Status::Corruption("RLE boolean length prefix truncated");
      const uint32_t l = Load<uint32_t>(data);
      if (l > len - 4) return Status::Corruption("RLE booleans run past the page");
      RleBitPackedDecoder dec(data + 4, l, 1);
      uint8_t* out = GrowFixed(dst, n);
      const int64_t got = dec.GetBatch(out, n);
      if (got != n) {
        return Status::Corruption("RLE booleans end after " + std::to_string(got) + " of " +
                                  std::to_string(n) + " values");
      }
      for (int64_t i = 0; i < n; ++i) out[i] = out[i] != 0;
      return Status::OK();
    }
    case Encoding::DELTA_BINARY_PACKED: {
      // Decoded straight into the column when no conversion is needed, else into scratch.
      auto decode = [&](auto zero) -> Status {
        using T = decltype(zero);
        size_t c;
        if (plan_.conv == Conversion::kCopy) {
          return DecodeDeltaBinaryPacked<T>(data, len, n, reinterpret_cast<T*>(GrowFixed(dst, n)),
                                            &c);
        }
        s_->ints.resize(static_cast<size_t>(n) * sizeof(T));
        TARN_RETURN_NOT_OK(
            DecodeDeltaBinaryPacked<T>(data, len, n, reinterpret_cast<T*>(s_->ints.data()), &c));
        return AppendRawFixed(s_->ints.data(), n, dst);
      };
      if (pt == Type::INT32) return decode(int32_t{0});
      if (pt == Type::INT64) return decode(int64_t{0});
      return invalid();
    }
    case Encoding::DELTA_LENGTH_BYTE_ARRAY: {
      if (pt != Type::BYTE_ARRAY) return invalid();
      size_t c;
      if (plan_.conv == Conversion::kBinary) {
        return DecodeDeltaLengthByteArray(data, len, n, &dst->data, &dst->offsets, &s_->lens, &c);
      }
      ResetTmp();
      TARN_RETURN_NOT_OK(
          DecodeDeltaLengthByteArray(data, len, n, &s_->tmp_data, &s_->tmp_offsets, &s_->lens, &c));
      return AppendTmpBinary(n, dst);
    }
    case Encoding::DELTA_BYTE_ARRAY: {
      if (pt != Type::BYTE_ARRAY && pt != Type::FIXED_LEN_BYTE_ARRAY) return invalid();
      if (plan_.conv == Conversion::kBinary) {
        return DecodeDeltaByteArray(data, len, n, &dst->data, &dst->offsets, &s_->lens);
      }
      ResetTmp();
      TARN_RETURN_NOT_OK(
          DecodeDeltaByteArray(data, len, n, &s_->tmp_data, &s_->tmp_offsets, &s_->lens));
      return AppendTmpBinary(n, dst);
    }
    case Encoding::BYTE_STREAM_SPLIT: {
      if (pt != Type::INT32 && pt != Type::INT64 && pt != Type::FLOAT && pt != Type::DOUBLE &&
          pt != Type::FIXED_LEN_BYTE_ARRAY) {
        return invalid();
      }
      const int w = plan_.raw_width;
      if (plan_.conv == Conversion::kCopy) {
        return DecodeByteStreamSplit(data, len, w, n, GrowFixed(dst, n));
      }
      if (static_cast<uint64_t>(n) > len / static_cast<size_t>(w)) {
        return Status::Corruption("BYTE_STREAM_SPLIT page too short");
      }
      s_->ints.resize(static_cast<size_t>(n) * w);
      TARN_RETURN_NOT_OK(DecodeByteStreamSplit(data, len, w, n, s_->ints.data()));
      return AppendRawFixed(s_->ints.data(), n, dst);
    }
    default:
      return Status::Corruption("unsupported encoding " + std::to_string(static_cast<int>(enc)));
  }
}

// ---- record assembly -------------------------------------------------------------------------

// Appends validity for n new rows after `base` existing ones.
void AppendValidity(Column* c, int64_t base, const uint8_t* valid, int64_t n, bool any_null) {
  if (!any_null) {
    if (!c->validity.empty()) c->validity.resize(static_cast<size_t>(base + n), 1);
    return;
  }
  if (c->validity.empty()) c->validity.assign(static_cast<size_t>(base), 1);
  c->validity.insert(c->validity.end(), valid, valid + n);
}

template <int W>
void SpreadFixed(uint8_t* d, int64_t dense, const uint8_t* valid, int64_t n) {
  int64_t k = dense;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (valid[i]) {
      --k;
      if (k != i) std::memcpy(d + i * W, d + k * W, W);
    } else {
      std::memset(d + i * W, 0, W);
    }
  }
}

// Moves the `dense` values appended after row `base` to the valid slots of the next n rows.
void Spread(Column* c, int out_width, int64_t base, int64_t dense, const uint8_t* valid,
            int64_t n) {
  if (out_width > 0) {
    c->data.resize(static_cast<size_t>(base + n) * out_width);
    if (dense == n) return;
    uint8_t* d = c->data.data() + base * out_width;
    switch (out_width) {
      case 1:
        SpreadFixed<1>(d, dense, valid, n);
        break;
      case 2:
        SpreadFixed<2>(d, dense, valid, n);
        break;
      case 4:
        SpreadFixed<4>(d, dense, valid, n);
        break;
      case 8:
        SpreadFixed<8>(d, dense, valid, n);
        break;
      default:
        SpreadFixed<16>(d, dense, valid, n);
        break;
    }
    return;
  }
  c->offsets.resize(static_cast<size_t>(base + 1 + n));
  if (dense == n) return;
  int64_t* o = c->offsets.data() + base + 1;
  int64_t k = dense;
  for (int64_t i = n - 1; i >= 0; --i) {
    if (valid[i]) {
      --k;
      o[i] = o[k];
    } else {
      o[i] = o[k - 1];  // o[-1] is the start offset
    }
  }
}

Status FinishFlat(const ChunkDecoder& dec, const LeafColumn& leaf, const LeafPlan& plan,
                  int64_t num_rows, Column* c, DecodeScratch* s) {
  const int64_t n = dec.pending_levels();
  if (n != num_rows) {
    return Status::Corruption("column chunk holds " + std::to_string(n) + " values for " +
                              std::to_string(num_rows) + " rows");
  }
  const int64_t base = c->length;
  const int64_t dense = dec.pending_dense();
  if (dense == n) {
    AppendValidity(c, base, nullptr, n, false);
  } else {
    s->valid.resize(static_cast<size_t>(n));
    const int16_t* def = s->def.data();
    const int16_t max_def = leaf.max_def_level;
    uint8_t* v = s->valid.data();
    for (int64_t i = 0; i < n; ++i) v[i] = def[i] == max_def;
    AppendValidity(c, base, v, n, true);
    Spread(c, plan.out_width, base, dense, v, n);
  }
  c->length = base + n;
  return Status::OK();
}

// The column of leaf.nodes[depth] below the top-level column `top`.
Result<Column*> NodeColumn(Column* top, const LeafColumn& leaf, size_t depth) {
  Column* c = top;
  for (size_t i = 1; i <= depth; ++i) {
    if (leaf.nodes[i - 1].kind == PathNode::Kind::kList) {
      c = c->child.get();
    } else {
      const size_t m = static_cast<size_t>(leaf.nodes[i].member);
      c = m < c->members.size() ? &c->members[m] : nullptr;
    }
    if (c == nullptr) return Status::Internal("column without the nested column of its type");
  }
  return c;
}

// Dremel record assembly of one leaf: each level entry gives a slot to the columns from the one
// its repetition level continues down to the first that is null or an empty list or map (and,
// below a null, to the struct members under it, which hold a null too). The leaf builds the
// validity and offsets of the columns it is the first leaf of, and its own values.
Status AssembleNested(const ChunkDecoder& dec, const LeafColumn& leaf, const LeafPlan& plan,
                      int64_t num_rows, Column* top, DecodeScratch* s) {
  using Kind = PathNode::Kind;
  const std::vector<PathNode>& nodes = leaf.nodes;
  const size_t depth = nodes.size();
  std::vector<Column*> cols(depth);
  std::vector<int64_t> base(depth);
  for (size_t i = 0; i < depth; ++i) {
    TARN_ASSIGN_OR_RETURN(cols[i], NodeColumn(top, leaf, i));
    // Another leaf may be building a column this one is not the first below: never touch it.
    if (nodes[i].first) base[i] = cols[i]->length;
  }
  // start[r]: the first column an entry of repetition level r gives a slot to; list[r]: the
  // list or map whose elements repeat at level r.
  const size_t max_rep = static_cast<size_t>(leaf.max_rep_level);
  std::vector<size_t> start(max_rep + 1, 0), list(max_rep + 1, 0);
  for (size_t i = 0; i < depth; ++i) {
    if (nodes[i].kind == Kind::kList || nodes[i].kind == Kind::kMap) {
      const size_t r = static_cast<size_t>(nodes[i].rep);
      if (r == 0 || r > max_rep) return Status::Internal("repetition levels out of step");
      start[r] = i + 1;
      list[r] = i;
    }
  }
  s->list_valid.resize(depth);
  for (auto& v : s->list_valid) v.clear();
  std::vector<char> any_null(depth, 0);

  const int64_t n = dec.pending_levels();
  const int16_t* def = s->def.data();
  const int16_t* rep = s->rep.data();
  const bool has_def = leaf.max_def_level > 0;
  int64_t rows = 0;
  size_t open = 0;  // deepest repetition level whose list holds an element after the last entry
  for (int64_t j = 0; j < n; ++j) {
    const int16_t d = has_def ? def[j] : 0;
    const size_t r = max_rep > 0 ? static_cast<size_t>(rep[j]) : 0;
    if (r > open) {
      return Status::Corruption("repetition level " + std::to_string(r) + " at value " +
                                std::to_string(j) + " continues a list that is not open");
    }
    if (r == 0) {
      ++rows;
    } else {
      if (d < nodes[list[r]].def_element) {
        return Status::Corruption("definition level " + std::to_string(d) + " at value " +
                                  std::to_string(j) + " is below the list it continues");
      }
      if (nodes[list[r]].first) ++cols[list[r]]->offsets.back();  // one more element
    }
    open = r;
    for (size_t i = start[r]; i < depth; ++i) {
      const PathNode& node = nodes[i];
      if (d < node.def) {
        // Null here, and in the struct members down to the next list or the leaf.
        for (;; ++i) {
          const PathNode& nd = nodes[i];
          if (nd.first) {
            s->list_valid[i].push_back(0);
            any_null[i] = 1;
            if (nd.kind == Kind::kList || nd.kind == Kind::kMap) {
              cols[i]->offsets.push_back(cols[i]->offsets.back());
            }
          }
          if (nd.kind != Kind::kStruct) break;
        }
        break;
      }
      if (node.first) s->list_valid[i].push_back(1);
      if (node.kind == Kind::kList || node.kind == Kind::kMap) {
        const bool element = d >= node.def_element;
        if (node.first) cols[i]->offsets.push_back(cols[i]->offsets.back() + (element ? 1 : 0));
        if (!element) break;  // an empty list or map
        open = static_cast<size_t>(node.rep);
      }
    }
  }
  if (rows != num_rows) {
    return Status::Corruption("column chunk holds " + std::to_string(rows) + " rows, expected " +
                              std::to_string(num_rows));
  }
  for (size_t i = 0; i < depth; ++i) {
    if (!nodes[i].first) continue;
    const ByteBuffer& valid = s->list_valid[i];
    const int64_t slots = static_cast<int64_t>(valid.size());
    AppendValidity(cols[i], base[i], valid.data(), slots, any_null[i]);
    if (i + 1 == depth)
      Spread(cols[i], plan.out_width, base[i], dec.pending_dense(), valid.data(), slots);
    cols[i]->length = base[i] + slots;
  }
  return Status::OK();
}

// Makes the values of *c from `base` on null (and their bytes zero, or empty).
void SetNull(Column* c, int64_t base, int out_width) {
  const size_t from = static_cast<size_t>(base), to = static_cast<size_t>(c->length);
  if (c->validity.size() < from) c->validity.resize(from, 1);
  c->validity.resize(to, 0);
  std::fill(c->validity.begin() + static_cast<std::ptrdiff_t>(from), c->validity.end(), 0);
  if (out_width > 0) {
    std::fill(c->data.begin() + static_cast<std::ptrdiff_t>(from * out_width), c->data.end(), 0);
  } else {
    const int64_t start = c->offsets[from];
    std::fill(c->offsets.begin() + static_cast<std::ptrdiff_t>(from), c->offsets.end(), start);
    c->data.resize(static_cast<size_t>(start));
  }
}

}  // namespace

Result<LeafPlan> PlanLeaf(const SchemaElement& element, const LeafColumn& leaf,
                          const DataType& target) {
  LeafPlan p;
  p.physical = leaf.physical;
  p.target = target;
  p.out_width = target.PhysicalWidth();
  p.all_null = element.logical_type && element.logical_type->kind == LogicalType::UNKNOWN;
  const TypeId t = target.id();
  bool ok = false;
  auto set = [&](Conversion c) {
    p.conv = c;
    ok = true;
  };
  switch (leaf.physical) {
    case Type::BOOLEAN:
      p.raw_width = 1;
      if (t == TypeId::kBoolean) set(Conversion::kCopy);
      break;
    case Type::INT32:
      p.raw_width = 4;
      switch (t) {
        case TypeId::kInt32:
        case TypeId::kUInt32:
        case TypeId::kDate:
        case TypeId::kIpv4:
          set(Conversion::kCopy);
          break;
        case TypeId::kInt8:
        case TypeId::kUInt8:
          set(Conversion::kInt32ToInt8);
          break;
        case TypeId::kInt16:
        case TypeId::kUInt16:
          set(Conversion::kInt32ToInt16);
          break;
        case TypeId::kDecimal:
          set(Conversion::kInt32ToInt128);
          break;
        case TypeId::kTime:
          set(Conversion::kInt32Scale);
          p.factor = Pow10(UnitExponent(target.unit()) - std::min(SourceExponent(element), 6));
          break;
        default:
          break;
      }
      break;
    case Type::INT64:
      p.raw_width = 8;
      switch (t) {
        case TypeId::kInt64:
        case TypeId::kUInt64:
          set(Conversion::kCopy);
          break;
        case TypeId::kDecimal:
          set(Conversion::kInt64ToInt128);
          break;
        case TypeId::kTime:
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz: {
          const int src = SourceExponent(element);
          const int dst = UnitExponent(target.unit());
          if (src == dst) {
            set(Conversion::kCopy);
          } else if (src > dst) {
            set(Conversion::kInt64ScaleDown);
            p.factor = Pow10(src - dst);
          } else {
            set(Conversion::kInt64ScaleUp);
            p.factor = Pow10(dst - src);
          }
          break;
        }
        default:
          break;
      }
      break;
    case Type::INT96:
      p.raw_width = 12;
      if ((t == TypeId::kTimestamp || t == TypeId::kTimestampTz) &&
          target.unit() == TimeUnit::kNano) {
        set(Conversion::kInt96ToNanos);
      }
      break;
    case Type::FLOAT:
      p.raw_width = 4;
      if (t == TypeId::kFloat32) set(Conversion::kCopy);
      break;
    case Type::DOUBLE:
      p.raw_width = 8;
      if (t == TypeId::kFloat64) set(Conversion::kCopy);
      break;
    case Type::BYTE_ARRAY:
      p.raw_width = 0;
      if (target.is_variable_width()) set(Conversion::kBinary);
      if (t == TypeId::kDecimal) set(Conversion::kBinaryToInt128);
      break;
    case Type::FIXED_LEN_BYTE_ARRAY:
      p.raw_width = leaf.type_length;
      if (p.raw_width <= 0) break;
      if (t == TypeId::kUuid && p.raw_width == 16) set(Conversion::kCopy);
      if (t == TypeId::kDecimal && p.raw_width <= 16) set(Conversion::kFixedBigEndianToInt128);
      if (t == TypeId::kFloat32 && p.raw_width == 2) set(Conversion::kFloat16ToFloat);
      if (target.is_variable_width()) set(Conversion::kFixedToBinary);
      break;
  }
  if (!ok) {
    return Status::Internal(std::string("no conversion from Parquet ") + TypeName(leaf.physical) +
                            " to " + target.ToString());
  }
  return p;
}

namespace {

// After the pages of a chunk (or some of them) are decoded: their `rows` rows assembled into *out
// (whose leaf column is `values`), made all null for logical type UNKNOWN, pages counted.
Status FinishDecode(const ChunkDecoder& dec, const LeafColumn& leaf, const LeafPlan& plan,
                    int64_t rows, Column* out, Column* values, DecodeScratch* scratch) {
  scratch->data_pages += dec.data_pages();
  const int64_t base = values->length;
  TARN_RETURN_NOT_OK(leaf.nodes.size() == 1
                         ? FinishFlat(dec, leaf, plan, rows, out, scratch)
                         : AssembleNested(dec, leaf, plan, rows, out, scratch));
  if (plan.all_null) SetNull(values, base, plan.out_width);
  return Status::OK();
}

}  // namespace

Status DecodeColumnChunk(const uint8_t* data, size_t len, const ColumnMetaData& meta,
                         int64_t num_rows, const LeafColumn& leaf, const LeafPlan& plan,
                         Column* out, DecodeScratch* scratch) {
  TARN_ASSIGN_OR_RETURN(CompressionCodec codec, MapCodec(meta.codec));
  if (leaf.nodes.empty()) return Status::Internal("a leaf of an unsupported field");
  TARN_ASSIGN_OR_RETURN(Column * values, NodeColumn(out, leaf, leaf.nodes.size() - 1));
  ChunkDecoder dec(leaf, plan, codec, scratch, values);
  TARN_RETURN_NOT_OK(dec.Run(data, len, meta.num_values));
  return FinishDecode(dec, leaf, plan, num_rows, out, values, scratch);
}

namespace {

// Cuts a flat column to its first `rows` rows.
void TruncateFlat(Column* c, int64_t rows, int out_width) {
  const size_t n = static_cast<size_t>(rows);
  if (out_width > 0) {
    c->data.resize(n * static_cast<size_t>(out_width));
  } else {
    c->offsets.resize(n + 1);
    c->data.resize(static_cast<size_t>(c->offsets[n]));
  }
  if (!c->validity.empty()) c->validity.resize(n);
  c->length = rows;
}

}  // namespace

struct FlatChunkStream::Impl {
  Impl(ByteBuffer bytes, const ColumnMetaData& m, int64_t rows, const LeafColumn& l,
       const LeafPlan& p, CompressionCodec codec)
      : chunk(std::move(bytes)),
        meta(m),
        num_rows(rows),
        leaf(l),
        plan(p),
        ready(p.target),
        dec(leaf, plan, codec, &scratch, &ready) {}

  ByteBuffer chunk;
  const ColumnMetaData& meta;
  const int64_t num_rows;
  const LeafColumn& leaf;
  const LeafPlan plan;
  DecodeScratch scratch;
  Column ready;  // rows decoded and not yet given out (the decoder's values column)
  ChunkDecoder dec;
  size_t pos = 0;  // of the next page in `chunk`
  int page = 0;    // its number
  int64_t given = 0;
};

FlatChunkStream::FlatChunkStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FlatChunkStream::~FlatChunkStream() = default;

Result<std::unique_ptr<FlatChunkStream>> FlatChunkStream::Make(ByteBuffer chunk,
                                                               const ColumnMetaData& meta,
                                                               int64_t num_rows,
                                                               const LeafColumn& leaf,
                                                               const LeafPlan& plan) {
  if (leaf.nodes.size() != 1 || leaf.max_rep_level > 0) {
    return Status::Internal("a streamed column chunk must be of a flat column");
  }
  TARN_ASSIGN_OR_RETURN(CompressionCodec codec, MapCodec(meta.codec));
  return std::unique_ptr<FlatChunkStream>(new FlatChunkStream(
      std::make_unique<Impl>(std::move(chunk), meta, num_rows, leaf, plan, codec)));
}

Status FlatChunkStream::Next(int64_t rows, Column* out) {
  Impl& s = *impl_;
  if (rows < 0 || rows > s.num_rows - s.given) {
    return Status::Internal("asked for " + std::to_string(rows) + " rows of a column chunk with " +
                            std::to_string(s.num_rows - s.given) + " left");
  }
  const size_t len = s.chunk.size();
  while (s.ready.length < rows && s.pos < len) {
    TARN_RETURN_NOT_OK(s.dec.Step(s.chunk.data(), len, s.meta.num_values, &s.pos, s.page++));
    const int64_t levels = s.dec.pending_levels();
    if (levels == 0) continue;  // a dictionary page, or a page of no values
    const int64_t base = s.ready.length;
    TARN_RETURN_NOT_OK(FinishFlat(s.dec, s.leaf, s.plan, levels, &s.ready, &s.scratch));
    if (s.plan.all_null) SetNull(&s.ready, base, s.plan.out_width);
    s.dec.TakeLevels();
  }
  if (s.ready.length < rows) {
    return Status::Corruption("column chunk ends after " +
                              std::to_string(s.given + s.ready.length) + " of " +
                              std::to_string(s.num_rows) + " rows");
  }
  // The rows asked for leave with the column; the rest of its last page stays.
  Column all = std::move(s.ready);
  s.ready = Column(s.plan.target);
  if (all.length > rows) {
    s.ready.AppendRows(all, rows, all.length);
    TruncateFlat(&all, rows, s.plan.out_width);
  }
  *out = std::move(all);
  s.given += rows;
  return Status::OK();
}

int64_t FlatChunkStream::data_pages() const { return impl_->dec.data_pages(); }

Status CheckAssembled(const Column& c) {
  if (c.type.id() == TypeId::kArray) return CheckAssembled(*c.child);
  if (c.type.id() == TypeId::kStruct || c.type.id() == TypeId::kMap) {
    const int64_t want = c.type.id() == TypeId::kMap ? c.offsets.back() : c.length;
    for (const Column& m : c.members) {
      if (m.length != want) {
        return Status::Corruption("the leaf columns of a " +
                                  std::string(c.type.id() == TypeId::kMap ? "MAP" : "STRUCT") +
                                  " disagree on its structure (" + std::to_string(m.length) +
                                  " values where another leaf has " + std::to_string(want) + ")");
      }
      TARN_RETURN_NOT_OK(CheckAssembled(m));
    }
  }
  if (c.type.id() == TypeId::kVariant) {
    // Both leaves are required below the group, so a valid row has both byte strings.
    if (c.members.size() != 2 || c.members[0].length != c.length ||
        c.members[1].length != c.length) {
      return Status::Corruption("the metadata and value of a VARIANT disagree on its rows");
    }
    for (int64_t i = 0; i < c.length; ++i) {
      if (!c.IsValid(i)) continue;
      Status st = ValidateVariant(c.members[0].StringAt(i), c.members[1].StringAt(i));
      if (!st.ok()) return st.WithContext("row " + std::to_string(i));
    }
  }
  return Status::OK();
}

Status DecodeColumnPages(const uint8_t* head, size_t head_len, const std::vector<PageSpan>& pages,
                         const ColumnMetaData& meta, const LeafColumn& leaf, const LeafPlan& plan,
                         Column* out, DecodeScratch* scratch) {
  TARN_ASSIGN_OR_RETURN(CompressionCodec codec, MapCodec(meta.codec));
  if (leaf.nodes.empty()) return Status::Internal("a leaf of an unsupported field");
  TARN_ASSIGN_OR_RETURN(Column * values, NodeColumn(out, leaf, leaf.nodes.size() - 1));
  ChunkDecoder dec(leaf, plan, codec, scratch, values);
  TARN_RETURN_NOT_OK(dec.RunSome(head, head_len, meta.num_values).WithContext("dictionary"));
  if (dec.num_levels() > 0) {
    return Status::Corruption("a data page precedes the first page of the offset index");
  }
  int64_t rows = 0;
  for (size_t p = 0; p < pages.size(); ++p) {
    const PageSpan& span = pages[p];
    const int64_t before = dec.num_levels();
    const int64_t pages_before = dec.data_pages();
    Status st = dec.RunSome(span.data, span.len, meta.num_values);
    if (!st.ok()) return st.WithContext("page " + std::to_string(span.index));
    const int64_t levels = dec.num_levels() - before;
    int64_t got = levels;
    if (leaf.max_rep_level > 0) {
      got = 0;
      const int16_t* rep = scratch->rep.data() + before;
      for (int64_t j = 0; j < levels; ++j) got += rep[j] == 0;
    }
    if (dec.data_pages() - pages_before != 1 || got != span.rows ||
        (leaf.max_rep_level > 0 && levels > 0 && scratch->rep[before] != 0)) {
      return Status::Corruption("page " + std::to_string(span.index) +
                                " disagrees with the offset index (" + std::to_string(got) +
                                " rows, the index says " + std::to_string(span.rows) + ")");
    }
    rows += span.rows;
  }
  return FinishDecode(dec, leaf, plan, rows, out, values, scratch);
}

}  // namespace tarn::parquet
