#include "parquet/encoding.h"

#include <algorithm>

namespace tarn::parquet {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the encoders assume a little-endian host");

namespace {

void PutVarint(uint64_t v, ByteBuffer* out) {
  uint8_t buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<uint8_t>(v) | 0x80;
    v >>= 7;
  }
  buf[n++] = static_cast<uint8_t>(v);
  out->insert(out->end(), buf, buf + n);
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

// Packs n values of w <= 32 bits (LSB first) into dst, which has room for ceil(n * w / 8) bytes.
template <typename T>
void BitPack32(const T* v, int64_t n, int w, uint8_t* dst) {
  uint64_t acc = 0;
  int bits = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc |= static_cast<uint64_t>(v[i]) << bits;
    bits += w;
    if (bits >= 32) {
      uint32_t word = static_cast<uint32_t>(acc);
      std::memcpy(dst, &word, 4);
      dst += 4;
      acc >>= 32;
      bits -= 32;
    }
  }
  while (bits > 0) {
    *dst++ = static_cast<uint8_t>(acc);
    acc >>= 8;
    bits -= 8;
  }
}

// Packs n values of w <= 64 bits, LSB first, into dst (room for ceil(n * w / 8) bytes).
void BitPack64(const uint64_t* v, int64_t n, int w, uint8_t* dst) {
  unsigned __int128 acc = 0;
  int bits = 0;
  for (int64_t i = 0; i < n; ++i) {
    acc |= static_cast<unsigned __int128>(v[i]) << bits;
    bits += w;
    if (bits >= 64) {
      uint64_t word = static_cast<uint64_t>(acc);
      std::memcpy(dst, &word, 8);
      dst += 8;
      acc >>= 64;
      bits -= 64;
    }
  }
  while (bits > 0) {
    *dst++ = static_cast<uint8_t>(acc);
    acc >>= 8;
    bits -= 8;
  }
}

// Writes values[0, n) as one bit-packed run (n padded up to a multiple of 8 with zeros).
template <typename T>
void PutBitPackedRun(const T* values, int64_t n, int w, ByteBuffer* out) {
  if (n == 0) return;
  int64_t groups = (n + 7) / 8;
  PutVarint(static_cast<uint64_t>(groups) << 1 | 1, out);
  size_t at = out->size();
  out->resize(at + groups * w);
  uint8_t* dst = out->data() + at;
  int64_t full = n & ~int64_t{7};
  BitPack32(values, full, w, dst);
  if (full < n) {
    T tail[8] = {};
    std::copy(values + full, values + n, tail);
    BitPack32(tail, 8, w, dst + (full / 8) * w);
  }
}

template <typename T>
void PutRleRun(T value, int64_t count, int w, ByteBuffer* out) {
  PutVarint(static_cast<uint64_t>(count) << 1, out);
  uint32_t v = value;
  for (int b = 0; b < (w + 7) / 8; ++b) out->push_back(static_cast<uint8_t>(v >> (8 * b)));
}

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t Mix(uint64_t a, uint64_t b) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

constexpr uint64_t kK0 = 0xa0761d6478bd642full;
constexpr uint64_t kK1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kFib = 0x9E3779B97F4A7C15ull;

}  // namespace

template <typename T>
void EncodeRleBitPacked(const T* values, int64_t n, int bit_width, ByteBuffer* out) {
  int64_t lit_start = 0;  // pending literals are values[lit_start, i)
  int64_t i = 0;
  while (i < n) {
    T v = values[i];
    int64_t j = i + 1;
    while (j < n && values[j] == v) ++j;
    int64_t run = j - i;
    if (run >= 8) {
      // Literals before an RLE run must fill whole groups of 8: borrow from the run.
      int64_t pad = (8 - (i - lit_start) % 8) % 8;
      if (run - pad >= 8) {
        PutBitPackedRun(values + lit_start, i + pad - lit_start, bit_width, out);
        PutRleRun(v, run - pad, bit_width, out);
        lit_start = j;
      }
    }
    i = j;
  }
  PutBitPackedRun(values + lit_start, n - lit_start, bit_width, out);
}

template void EncodeRleBitPacked<uint8_t>(const uint8_t*, int64_t, int, ByteBuffer*);
template void EncodeRleBitPacked<uint16_t>(const uint16_t*, int64_t, int, ByteBuffer*);
template void EncodeRleBitPacked<uint32_t>(const uint32_t*, int64_t, int, ByteBuffer*);

void EncodeLevelsV1(const uint8_t* levels, int64_t n, int bit_width, ByteBuffer* out) {
  size_t at = out->size();
  out->resize(at + 4);
  EncodeRleBitPacked(levels, n, bit_width, out);
  uint32_t len = static_cast<uint32_t>(out->size() - at - 4);
  std::memcpy(out->data() + at, &len, 4);
}

void PlainEncodeBooleans(const uint8_t* values, int64_t n, ByteBuffer* out) {
  size_t at = out->size();
  out->resize(at + (n + 7) / 8);
  uint8_t* dst = out->data() + at;
  int64_t full = n / 8;
  for (int64_t g = 0; g < full; ++g) {
    const uint8_t* v = values + g * 8;
    dst[g] = static_cast<uint8_t>((v[0] != 0) | (v[1] != 0) << 1 | (v[2] != 0) << 2 |
                                  (v[3] != 0) << 3 | (v[4] != 0) << 4 | (v[5] != 0) << 5 |
                                  (v[6] != 0) << 6 | (v[7] != 0) << 7);
  }
  if (full * 8 < n) {
    uint8_t b = 0;
    for (int64_t i = full * 8; i < n; ++i)
      b |= static_cast<uint8_t>((values[i] != 0) << (i - full * 8));
    dst[full] = b;
  }
}

void PlainEncodeByteArrays(const std::string_view* values, int64_t n, ByteBuffer* out) {
  size_t total = 0;
  for (int64_t i = 0; i < n; ++i) total += 4 + values[i].size();
  size_t at = out->size();
  out->resize(at + total);
  uint8_t* dst = out->data() + at;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t len = static_cast<uint32_t>(values[i].size());
    std::memcpy(dst, &len, 4);
    std::memcpy(dst + 4, values[i].data(), len);
    dst += 4 + len;
  }
}

void PlainEncodeFixedLenByteArrays(const std::string_view* values, int64_t n, ByteBuffer* out) {
  if (n == 0) return;
  size_t width = values[0].size();
  size_t at = out->size();
  out->resize(at + n * width);
  uint8_t* dst = out->data() + at;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst, values[i].data(), width);
    dst += width;
  }
}

template <typename T>
void EncodeDeltaBinaryPacked(const T* values, int64_t n, ByteBuffer* out) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBlock = 128;
  constexpr int kMiniblocks = 4;
  constexpr int kMiniblockValues = kBlock / kMiniblocks;
  PutVarint(kBlock, out);
  PutVarint(kMiniblocks, out);
  PutVarint(static_cast<uint64_t>(n), out);
  PutVarint(ZigZag(n > 0 ? static_cast<int64_t>(values[0]) : 0), out);
  uint64_t packed[kBlock];
  for (int64_t start = 1; start < n; start += kBlock) {
    int64_t count = std::min<int64_t>(kBlock, n - start);
    // Deltas in T's width with wrap-around, as the decoder adds them back.
    T deltas[kBlock];
    T min_delta = 0;
    for (int64_t k = 0; k < count; ++k) {
      deltas[k] =
          static_cast<T>(static_cast<U>(values[start + k]) - static_cast<U>(values[start + k - 1]));
      if (k == 0 || deltas[k] < min_delta) min_delta = deltas[k];
    }
    for (int64_t k = 0; k < kBlock; ++k) {
      packed[k] =
          k < count ? static_cast<U>(static_cast<U>(deltas[k]) - static_cast<U>(min_delta)) : 0;
    }
    PutVarint(ZigZag(min_delta), out);
    int widths[kMiniblocks];
    int used = static_cast<int>((count + kMiniblockValues - 1) / kMiniblockValues);
    for (int m = 0; m < kMiniblocks; ++m) {
      uint64_t all = 0;
      if (m < used) {
        for (int k = 0; k < kMiniblockValues; ++k) all |= packed[m * kMiniblockValues + k];
      }
      widths[m] = BitWidth(all);
      out->push_back(static_cast<uint8_t>(widths[m]));
    }
    for (int m = 0; m < used; ++m) {
      size_t at = out->size();
      out->resize(at + kMiniblockValues * widths[m] / 8);
      BitPack64(packed + m * kMiniblockValues, kMiniblockValues, widths[m], out->data() + at);
    }
  }
}

template void EncodeDeltaBinaryPacked<int32_t>(const int32_t*, int64_t, ByteBuffer*);
template void EncodeDeltaBinaryPacked<int64_t>(const int64_t*, int64_t, ByteBuffer*);

void EncodeDeltaLengthByteArray(const std::string_view* values, int64_t n, ByteBuffer* out) {
  std::vector<int32_t> lengths(n);
  size_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    lengths[i] = static_cast<int32_t>(values[i].size());
    total += values[i].size();
  }
  EncodeDeltaBinaryPacked(lengths.data(), n, out);
  size_t at = out->size();
  out->resize(at + total);
  uint8_t* dst = out->data() + at;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst, values[i].data(), values[i].size());
    dst += values[i].size();
  }
}

void EncodeByteStreamSplit(const uint8_t* values, int64_t n, int width, ByteBuffer* out) {
  size_t at = out->size();
  out->resize(at + n * width);
  uint8_t* dst = out->data() + at;
  for (int b = 0; b < width; ++b) {
    uint8_t* stream = dst + b * n;
    for (int64_t i = 0; i < n; ++i) stream[i] = values[i * width + b];
  }
}

uint64_t HashBytes(const void* data, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t a, b;
  uint64_t seed = kK0 ^ (n * kFib);
  if (n <= 16) {
    if (n >= 8) {
      a = Load64(p);
      b = Load64(p + n - 8);
    } else if (n >= 4) {
      a = Load32(p);
      b = Load32(p + n - 4);
    } else if (n > 0) {
      a = static_cast<uint64_t>(p[0]) << 16 | static_cast<uint64_t>(p[n >> 1]) << 8 | p[n - 1];
      b = 0;
    } else {
      a = b = 0;
    }
  } else {
    size_t left = n;
    while (left > 16) {
      seed = Mix(Load64(p) ^ kK1, Load64(p + 8) ^ seed);
      p += 16;
      left -= 16;
    }
    a = Load64(p + left - 16);
    b = Load64(p + left - 8);
  }
  return Mix(kK1 ^ n, Mix(a ^ kK1, b ^ seed));
}

// --- FixedDictionary

template <typename Bits>
FixedDictionary<Bits>::FixedDictionary() {
  Clear();
}

template <typename Bits>
void FixedDictionary<Bits>::Clear() {
  values_.clear();
  slots_.assign(1024, 0);
  shift_ = 64 - 10;
}

template <typename Bits>
void FixedDictionary<Bits>::Grow() {
  size_t cap = slots_.size() * 2;
  slots_.assign(cap, 0);
  --shift_;
  uint64_t mask = cap - 1;
  for (size_t k = 0; k < values_.size(); ++k) {
    uint64_t pos = (static_cast<uint64_t>(values_[k]) * kFib) >> shift_;
    while (slots_[pos] != 0) pos = (pos + 1) & mask;
    slots_[pos] = static_cast<uint32_t>(k + 1);
  }
}

template <typename Bits>
void FixedDictionary<Bits>::Put(const Bits* values, int64_t n, uint32_t* indices) {
  uint64_t mask = slots_.size() - 1;
  for (int64_t i = 0; i < n; ++i) {
    Bits key = values[i];
    uint64_t pos = (static_cast<uint64_t>(key) * kFib) >> shift_;
    while (true) {
      uint32_t s = slots_[pos];
      if (s == 0) {
        values_.push_back(key);
        uint32_t index = static_cast<uint32_t>(values_.size() - 1);
        slots_[pos] = index + 1;
        indices[i] = index;
        if (values_.size() * 2 > slots_.size()) {
          Grow();
          mask = slots_.size() - 1;
        }
        break;
      }
      if (values_[s - 1] == key) {
        indices[i] = s - 1;
        break;
      }
      pos = (pos + 1) & mask;
    }
  }
}

template class FixedDictionary<uint32_t>;
template class FixedDictionary<uint64_t>;

// --- BytesDictionary

BytesDictionary::BytesDictionary(int fixed_len) : fixed_len_(fixed_len) { Clear(); }

void BytesDictionary::Clear() {
  data_.clear();
  offsets_.assign(1, 0);
  slots_.assign(1024, Slot{0, 0});
  mask_ = slots_.size() - 1;
}

int64_t BytesDictionary::plain_bytes() const {
  return static_cast<int64_t>(data_.size()) + (fixed_len_ > 0 ? 0 : 4 * size());
}

void BytesDictionary::Grow() {
  size_t cap = slots_.size() * 2;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(cap, Slot{0, 0});
  mask_ = cap - 1;
  for (const Slot& s : old) {
    if (s.index_plus_one == 0) continue;
    uint64_t pos = s.hash & mask_;
    while (slots_[pos].index_plus_one != 0) pos = (pos + 1) & mask_;
    slots_[pos] = s;
  }
}

void BytesDictionary::Put(const std::string_view* values, int64_t n, uint32_t* indices) {
  for (int64_t i = 0; i < n; ++i) {
    std::string_view v = values[i];
    uint32_t h = static_cast<uint32_t>(HashBytes(v.data(), v.size()));
    uint64_t pos = h & mask_;
    while (true) {
      Slot s = slots_[pos];
      if (s.index_plus_one == 0) {
        uint32_t index = static_cast<uint32_t>(size());
        data_.insert(data_.end(), v.begin(), v.end());
        offsets_.push_back(static_cast<int64_t>(data_.size()));
        slots_[pos] = Slot{index + 1, h};
        indices[i] = index;
        if (offsets_.size() * 2 > slots_.size()) Grow();
        break;
      }
      if (s.hash == h) {
        int64_t k = s.index_plus_one - 1;
        size_t len = static_cast<size_t>(offsets_[k + 1] - offsets_[k]);
        if (len == v.size() && std::memcmp(data_.data() + offsets_[k], v.data(), len) == 0) {
          indices[i] = static_cast<uint32_t>(k);
          break;
        }
      }
      pos = (pos + 1) & mask_;
    }
  }
}

void BytesDictionary::WritePlain(ByteBuffer* out) const {
  if (fixed_len_ > 0) {
    out->insert(out->end(), data_.begin(), data_.end());
    return;
  }
  size_t at = out->size();
  out->resize(at + plain_bytes());
  uint8_t* dst = out->data() + at;
  for (int64_t k = 0; k < size(); ++k) {
    uint32_t len = static_cast<uint32_t>(offsets_[k + 1] - offsets_[k]);
    std::memcpy(dst, &len, 4);
    std::memcpy(dst + 4, data_.data() + offsets_[k], len);
    dst += 4 + len;
  }
}

}  // namespace tarn::parquet
