#include "parquet/decoding.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace tarn::parquet {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the decoders assume a little-endian host");

namespace {

// memcpy that accepts null pointers when n is 0 (empty buffers have no storage).
inline void CopyBytes(void* dst, const void* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

// ---- bit unpacking ------------------------------------------------------------------------

// Unpacks 8 values of W bits. Reads up to W + 9 bytes from `in` (callers pad).
template <typename T, int W>
inline void Unpack8(const uint8_t* in, T* out) {
  if constexpr (W == 0) {
    for (int i = 0; i < 8; ++i) out[i] = 0;
  } else {
    constexpr uint64_t kMask = W == 64 ? ~uint64_t{0} : (uint64_t{1} << W) - 1;
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const int bit = i * W;
      const int byte = bit >> 3;
      const int shift = bit & 7;
      uint64_t word;
      std::memcpy(&word, in + byte, 8);
      uint64_t v = word >> shift;
      if constexpr (W > 56) {
        if (shift != 0) v |= uint64_t{in[byte + 8]} << (64 - shift);
      }
      out[i] = static_cast<T>(v & kMask);
    }
  }
}

constexpr size_t kUnpackSlack = 16;

template <typename T, int W>
void UnpackW(const uint8_t* in, size_t in_len, T* out, int64_t n) {
  if constexpr (W == 0) {
    std::fill_n(out, n, T{0});
    return;
  } else {
    const int64_t full = n / 8;
    int64_t g = 0;
    if (in_len >= W + kUnpackSlack) {
      const int64_t safe = static_cast<int64_t>((in_len - W - kUnpackSlack) / W) + 1;
      const int64_t fast = std::min(full, safe);
      for (; g < fast; ++g) Unpack8<T, W>(in + g * W, out + g * 8);
    }
    int64_t done = g * 8;
    while (done < n) {
      uint8_t buf[64 + kUnpackSlack] = {};
      const size_t off = static_cast<size_t>(g) * W;
      const size_t avail = off < in_len ? std::min<size_t>(W, in_len - off) : 0;
      CopyBytes(buf, in + off, avail);
      T tmp[8];
      Unpack8<T, W>(buf, tmp);
      const int64_t k = std::min<int64_t>(8, n - done);
      std::memcpy(out + done, tmp, k * sizeof(T));
      done += k;
      ++g;
    }
  }
}

template <typename T>
using UnpackFn = void (*)(const uint8_t*, size_t, T*, int64_t);

template <typename T, size_t... Ws>
constexpr std::array<UnpackFn<T>, sizeof...(Ws)> MakeUnpackTable(std::index_sequence<Ws...>) {
  return {&UnpackW<T, static_cast<int>(Ws)>...};
}

template <typename T, int kMaxWidth>
void UnpackDispatch(const uint8_t* in, size_t in_len, int bit_width, T* out, int64_t n) {
  static constexpr auto kTable = MakeUnpackTable<T>(std::make_index_sequence<kMaxWidth + 1>());
  if (bit_width < 0 || bit_width > kMaxWidth) {
    std::fill_n(out, n, T{0});  // callers validate widths; never leave memory undefined
    return;
  }
  kTable[bit_width](in, in_len, out, n);
}

// ---- byte-level helpers --------------------------------------------------------------------

bool ReadUleb(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return false;
    uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

bool ReadZigZag(const uint8_t** p, const uint8_t* end, int64_t* out) {
  uint64_t u;
  if (!ReadUleb(p, end, &u)) return false;
  *out = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

Status Corrupt(const std::string& what) { return Status::Corruption(what); }

}  // namespace

void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, uint8_t* out, int64_t n) {
  UnpackDispatch<uint8_t, 32>(in, in_len, bit_width, out, n);
}
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, int16_t* out, int64_t n) {
  UnpackDispatch<int16_t, 32>(in, in_len, bit_width, out, n);
}
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, uint32_t* out, int64_t n) {
  UnpackDispatch<uint32_t, 32>(in, in_len, bit_width, out, n);
}
void UnpackBits(const uint8_t* in, size_t in_len, int bit_width, uint64_t* out, int64_t n) {
  UnpackDispatch<uint64_t, 64>(in, in_len, bit_width, out, n);
}

// ---- RLE / bit-packed hybrid ---------------------------------------------------------------

bool RleBitPackedDecoder::NextRun() {
  if (pos_ >= end_) return false;
  uint64_t header;
  if (!ReadUleb(&pos_, end_, &header)) {
    pos_ = end_;
    return false;
  }
  const size_t avail = static_cast<size_t>(end_ - pos_);
  if (header & 1) {
    const uint64_t groups = std::min<uint64_t>(header >> 1, uint64_t{1} << 40);
    uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    // A final run may be cut short: decode the values whose bytes are present.
    if (bytes > avail) bytes = avail;
    bp_data_ = pos_;
    bp_bytes_ = static_cast<size_t>(bytes);
    bp_left_ = bit_width_ == 0 ? static_cast<int64_t>(groups * 8)
                               : static_cast<int64_t>(std::min<uint64_t>(
                                     groups * 8, bytes * 8 / static_cast<uint64_t>(bit_width_)));
    bp_index_ = 0;
    pos_ += bytes;
  } else {
    const size_t nbytes = static_cast<size_t>(bit_width_ + 7) / 8;
    if (avail < nbytes) {
      pos_ = end_;
      return false;
    }
    uint32_t v = 0;
    for (size_t i = 0; i < nbytes; ++i) v |= static_cast<uint32_t>(pos_[i]) << (8 * i);
    pos_ += nbytes;
    rle_value_ = v;
    rle_left_ = static_cast<int64_t>(std::min<uint64_t>(header >> 1, uint64_t{1} << 62));
  }
  return true;
}

template <typename T>
int64_t RleBitPackedDecoder::GetBatch(T* out, int64_t n) {
  int64_t done = 0;
  while (done < n) {
    if (rle_left_ > 0) {
      const int64_t k = std::min(n - done, rle_left_);
      std::fill_n(out + done, k, static_cast<T>(rle_value_));
      rle_left_ -= k;
      done += k;
    } else if (bp_left_ > 0) {
      int64_t k = std::min(n - done, bp_left_);
      const int64_t head = bp_index_ & 7;
      const size_t byte_off = static_cast<size_t>(bp_index_ >> 3) * bit_width_;
      const size_t in_len = bp_bytes_ - byte_off;
      if (head != 0) {
        T tmp[8];
        UnpackBits(bp_data_ + byte_off, in_len, bit_width_, tmp,
                   std::min<int64_t>(8, head + bp_left_));
        k = std::min<int64_t>(k, 8 - head);
        std::memcpy(out + done, tmp + head, k * sizeof(T));
      } else {
        UnpackBits(bp_data_ + byte_off, in_len, bit_width_, out + done, k);
      }
      bp_index_ += k;
      bp_left_ -= k;
      done += k;
    } else if (!NextRun()) {
      break;
    }
  }
  return done;
}

template int64_t RleBitPackedDecoder::GetBatch<uint8_t>(uint8_t*, int64_t);
template int64_t RleBitPackedDecoder::GetBatch<int16_t>(int16_t*, int64_t);
template int64_t RleBitPackedDecoder::GetBatch<uint32_t>(uint32_t*, int64_t);

Status DecodeBitPackedLegacy(const uint8_t* data, size_t len, int bit_width, int16_t* out,
                             int64_t n) {
  if (bit_width < 0 || bit_width > 16) return Corrupt("BIT_PACKED level width out of range");
  const uint64_t bits = static_cast<uint64_t>(n) * bit_width;
  if ((bits + 7) / 8 > len) return Corrupt("BIT_PACKED levels truncated");
  uint64_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    int v = 0;
    for (int b = 0; b < bit_width; ++b, ++pos) {
      v = (v << 1) | ((data[pos >> 3] >> (7 - (pos & 7))) & 1);
    }
    out[i] = static_cast<int16_t>(v);
  }
  return Status::OK();
}

// ---- PLAIN ---------------------------------------------------------------------------------

Status DecodePlainBoolean(const uint8_t* data, size_t len, int64_t n, uint8_t* out,
                          size_t* consumed) {
  const uint64_t need = (static_cast<uint64_t>(n) + 7) / 8;
  if (need > len) {
    return Corrupt("PLAIN BOOLEAN needs " + std::to_string(need) + " bytes, page has " +
                   std::to_string(len));
  }
  UnpackBits(data, len, 1, out, n);
  *consumed = static_cast<size_t>(need);
  return Status::OK();
}

Status DecodePlainByteArray(const uint8_t* data, size_t len, int64_t n, ByteBuffer* out_data,
                            std::vector<int64_t>* offsets, size_t* consumed) {
  const uint8_t* p = data;
  const uint8_t* end = data + len;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (end - p < 4) return Corrupt("PLAIN BYTE_ARRAY value " + std::to_string(i) + " truncated");
    uint32_t l;
    std::memcpy(&l, p, 4);
    p += 4;
    if (l > static_cast<uint64_t>(end - p)) {
      return Corrupt("PLAIN BYTE_ARRAY value " + std::to_string(i) + " of " + std::to_string(l) +
                     " bytes runs past the page");
    }
    p += l;
    total += l;
  }
  const size_t base = out_data->size();
  out_data->resize(base + total);
  const size_t off_base = offsets->size();
  offsets->resize(off_base + n);
  int64_t* off = offsets->data() + off_base;
  uint8_t* dst = out_data->data() + base;
  int64_t at = static_cast<int64_t>(base);
  p = data;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t l;
    std::memcpy(&l, p, 4);
    CopyBytes(dst, p + 4, l);
    dst += l;
    p += 4 + static_cast<size_t>(l);
    at += l;
    off[i] = at;
  }
  *consumed = static_cast<size_t>(p - data);
  return Status::OK();
}

// ---- DELTA_BINARY_PACKED -------------------------------------------------------------------

template <typename T>
Status DecodeDeltaBinaryPacked(const uint8_t* data, size_t len, int64_t n, T* out,
                               size_t* consumed) {
  using U = std::make_unsigned_t<T>;
  const uint8_t* p = data;
  const uint8_t* end = data + len;
  uint64_t block_size, mini_count, total;
  int64_t first;
  if (!ReadUleb(&p, end, &block_size) || !ReadUleb(&p, end, &mini_count) ||
      !ReadUleb(&p, end, &total) || !ReadZigZag(&p, end, &first)) {
    return Corrupt("DELTA_BINARY_PACKED header truncated");
  }
  if (block_size == 0 || block_size % 128 != 0 || block_size > (uint64_t{1} << 20) ||
      mini_count == 0 || block_size % mini_count != 0 || (block_size / mini_count) % 32 != 0) {
    return Corrupt("DELTA_BINARY_PACKED block size " + std::to_string(block_size) + " with " +
                   std::to_string(mini_count) + " miniblocks is invalid");
  }
  if (total < static_cast<uint64_t>(n)) {
    return Corrupt("DELTA_BINARY_PACKED stream holds " + std::to_string(total) +
                   " values, expected " + std::to_string(n));
  }
  const int64_t per_mini = static_cast<int64_t>(block_size / mini_count);
  if (total == 0) {
    *consumed = static_cast<size_t>(p - data);
    return Status::OK();
  }
  U last = static_cast<U>(first);
  if (n > 0) out[0] = static_cast<T>(last);
  int64_t idx = 1;
  uint64_t left = total - 1;
  uint64_t tmp[256];
  while (left > 0) {
    int64_t min_delta_raw;
    if (!ReadZigZag(&p, end, &min_delta_raw)) return Corrupt("DELTA_BINARY_PACKED block truncated");
    const U min_delta = static_cast<U>(min_delta_raw);
    if (static_cast<uint64_t>(end - p) < mini_count) {
      return Corrupt("DELTA_BINARY_PACKED block truncated");
    }
    const uint8_t* widths = p;
    p += mini_count;
    for (uint64_t m = 0; m < mini_count && left > 0; ++m) {
      const int w = widths[m];
      if (w > 64) return Corrupt("DELTA_BINARY_PACKED bit width " + std::to_string(w));
      const int64_t k = static_cast<int64_t>(std::min<uint64_t>(per_mini, left));
      const size_t full_bytes = static_cast<size_t>(per_mini) * w / 8;
      const size_t need = (static_cast<size_t>(k) * w + 7) / 8;
      const size_t avail = static_cast<size_t>(end - p);
      if (avail < need) return Corrupt("DELTA_BINARY_PACKED miniblock truncated");
      const int64_t decode = idx < n ? std::min<int64_t>(k, n - idx) : 0;
      for (int64_t c = 0; c < decode; c += 256) {
        const int64_t cnt = std::min<int64_t>(256, decode - c);
        const size_t off = static_cast<size_t>(c) * w / 8;  // c is a multiple of 8
        UnpackBits(p + off, avail - off, w, tmp, cnt);
        T* o = out + idx;
        for (int64_t j = 0; j < cnt; ++j) {
          last = static_cast<U>(last + min_delta + static_cast<U>(tmp[j]));
          o[j] = static_cast<T>(last);
        }
        idx += cnt;
      }
      idx += k - decode;
      p += std::min(full_bytes, avail);
      left -= static_cast<uint64_t>(k);
    }
  }
  *consumed = static_cast<size_t>(p - data);
  return Status::OK();
}

template Status DecodeDeltaBinaryPacked<int32_t>(const uint8_t*, size_t, int64_t, int32_t*,
                                                 size_t*);
template Status DecodeDeltaBinaryPacked<int64_t>(const uint8_t*, size_t, int64_t, int64_t*,
                                                 size_t*);

// ---- DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY --------------------------------------------

Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t len, int64_t n, ByteBuffer* out_data,
                                  std::vector<int64_t>* offsets, std::vector<int32_t>* scratch,
                                  size_t* consumed) {
  scratch->resize(static_cast<size_t>(n));
  size_t c1;
  TARN_RETURN_NOT_OK(DecodeDeltaBinaryPacked<int32_t>(data, len, n, scratch->data(), &c1));
  const int32_t* lens = scratch->data();
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (lens[i] < 0) return Corrupt("DELTA_LENGTH_BYTE_ARRAY negative length");
    total += static_cast<uint64_t>(lens[i]);
  }
  if (total > len - c1) {
    return Corrupt("DELTA_LENGTH_BYTE_ARRAY values need " + std::to_string(total) +
                   " bytes, page has " + std::to_string(len - c1));
  }
  const size_t base = out_data->size();
  out_data->resize(base + total);
  CopyBytes(out_data->data() + base, data + c1, total);
  const size_t off_base = offsets->size();
  offsets->resize(off_base + n);
  int64_t* off = offsets->data() + off_base;
  int64_t at = static_cast<int64_t>(base);
  for (int64_t i = 0; i < n; ++i) {
    at += lens[i];
    off[i] = at;
  }
  *consumed = c1 + static_cast<size_t>(total);
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* data, size_t len, int64_t n, ByteBuffer* out_data,
                            std::vector<int64_t>* offsets, std::vector<int32_t>* scratch) {
  scratch->resize(static_cast<size_t>(n) * 2);
  int32_t* prefix = scratch->data();
  int32_t* suffix = scratch->data() + n;
  size_t c1, c2;
  TARN_RETURN_NOT_OK(DecodeDeltaBinaryPacked<int32_t>(data, len, n, prefix, &c1));
  TARN_RETURN_NOT_OK(DecodeDeltaBinaryPacked<int32_t>(data + c1, len - c1, n, suffix, &c2));
  const uint8_t* sfx = data + c1 + c2;
  const size_t sfx_len = len - c1 - c2;
  uint64_t suffix_total = 0;
  uint64_t total = 0;
  int64_t prev_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (prefix[i] < 0 || suffix[i] < 0) return Corrupt("DELTA_BYTE_ARRAY negative length");
    if (prefix[i] > prev_len) {
      return Corrupt("DELTA_BYTE_ARRAY prefix " + std::to_string(prefix[i]) + " of value " +
                     std::to_string(i) + " exceeds the previous value's length " +
                     std::to_string(prev_len));
    }
    suffix_total += static_cast<uint64_t>(suffix[i]);
    prev_len = static_cast<int64_t>(prefix[i]) + suffix[i];
    total += static_cast<uint64_t>(prev_len);
    if (total > static_cast<uint64_t>(kMaxDecodedBinaryBytes)) {
      return Status::TooLarge("DELTA_BYTE_ARRAY page decodes to more than " +
                              std::to_string(kMaxDecodedBinaryBytes) + " bytes");
    }
  }
  if (suffix_total > sfx_len) return Corrupt("DELTA_BYTE_ARRAY suffixes run past the page");
  const size_t base = out_data->size();
  out_data->resize(base + total);
  uint8_t* dst = out_data->data() + base;
  const uint8_t* prev = dst;
  const size_t off_base = offsets->size();
  offsets->resize(off_base + n);
  int64_t* off = offsets->data() + off_base;
  int64_t at = static_cast<int64_t>(base);
  for (int64_t i = 0; i < n; ++i) {
    CopyBytes(dst, prev, static_cast<size_t>(prefix[i]));
    CopyBytes(dst + prefix[i], sfx, static_cast<size_t>(suffix[i]));
    sfx += suffix[i];
    prev = dst;
    const int64_t l = static_cast<int64_t>(prefix[i]) + suffix[i];
    dst += l;
    at += l;
    off[i] = at;
  }
  return Status::OK();
}

// ---- BYTE_STREAM_SPLIT ---------------------------------------------------------------------

namespace {
template <int W>
void SplitW(const uint8_t* data, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
#pragma GCC unroll 16
    for (int b = 0; b < W; ++b) out[i * W + b] = data[b * n + i];
  }
}
}  // namespace

Status DecodeByteStreamSplit(const uint8_t* data, size_t len, int width, int64_t n, uint8_t* out) {
  if (width <= 0) return Corrupt("BYTE_STREAM_SPLIT width must be positive");
  if (static_cast<uint64_t>(n) > len / static_cast<size_t>(width)) {
    return Corrupt("BYTE_STREAM_SPLIT needs " + std::to_string(n) + " values of " +
                   std::to_string(width) + " bytes, page has " + std::to_string(len));
  }
  switch (width) {
    case 2:
      SplitW<2>(data, n, out);
      break;
    case 4:
      SplitW<4>(data, n, out);
      break;
    case 8:
      SplitW<8>(data, n, out);
      break;
    case 16:
      SplitW<16>(data, n, out);
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        for (int b = 0; b < width; ++b) out[i * width + b] = data[b * n + i];
      }
  }
  return Status::OK();
}

// ---- dictionary gathers --------------------------------------------------------------------

namespace {
Status IndexOutOfRange(uint32_t index, uint32_t dict_size) {
  return Corrupt("dictionary index " + std::to_string(index) + " out of range (dictionary has " +
                 std::to_string(dict_size) + " values)");
}

template <int W>
Status GatherW(const uint8_t* dict, uint32_t dict_size, const uint32_t* idx, int64_t n,
               uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t k = idx[i];
    if (k >= dict_size) [[unlikely]]
      return IndexOutOfRange(k, dict_size);
    std::memcpy(out + i * W, dict + static_cast<size_t>(k) * W, W);
  }
  return Status::OK();
}
}  // namespace

Status GatherFixed(int width, const uint8_t* dict, uint32_t dict_size, const uint32_t* indices,
                   int64_t n, uint8_t* out) {
  switch (width) {
    case 1:
      return GatherW<1>(dict, dict_size, indices, n, out);
    case 2:
      return GatherW<2>(dict, dict_size, indices, n, out);
    case 4:
      return GatherW<4>(dict, dict_size, indices, n, out);
    case 8:
      return GatherW<8>(dict, dict_size, indices, n, out);
    case 16:
      return GatherW<16>(dict, dict_size, indices, n, out);
    default:
      return Status::Internal("GatherFixed: unsupported width " + std::to_string(width));
  }
}

Status GatherBinary(const uint8_t* dict_data, const int64_t* dict_offsets, uint32_t dict_size,
                    const uint32_t* indices, int64_t n, ByteBuffer* out_data,
                    std::vector<int64_t>* offsets) {
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t k = indices[i];
    if (k >= dict_size) [[unlikely]]
      return IndexOutOfRange(k, dict_size);
    total += static_cast<uint64_t>(dict_offsets[k + 1] - dict_offsets[k]);
  }
  if (total > static_cast<uint64_t>(kMaxDecodedBinaryBytes)) {
    return Status::TooLarge("dictionary-encoded page decodes to more than " +
                            std::to_string(kMaxDecodedBinaryBytes) + " bytes");
  }
  const size_t base = out_data->size();
  out_data->resize(base + total);
  uint8_t* dst = out_data->data() + base;
  const size_t off_base = offsets->size();
  offsets->resize(off_base + n);
  int64_t* off = offsets->data() + off_base;
  int64_t at = static_cast<int64_t>(base);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t k = indices[i];
    const int64_t b = dict_offsets[k];
    const size_t l = static_cast<size_t>(dict_offsets[k + 1] - b);
    CopyBytes(dst, dict_data + b, l);
    dst += l;
    at += static_cast<int64_t>(l);
    off[i] = at;
  }
  return Status::OK();
}

}  // namespace tarn::parquet
