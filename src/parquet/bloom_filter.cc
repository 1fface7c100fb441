#include "parquet/bloom_filter.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <string>

#include "common/hash.h"
#include "parquet/column_writer.h"
#include "parquet/thrift_reader.h"
#include "parquet/thrift_writer.h"

namespace tarn::parquet {

namespace {

constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

// Bytes read for a header when the chunk does not say the filter's length (a header is about
// 15 bytes; other writers add nothing to it).
constexpr size_t kHeaderProbe = 256;

int64_t FloorPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p <= n / 2) p *= 2;
  return p;
}

uint64_t HashBytes(const void* data, size_t n) { return XxHash64(data, n, 0); }

template <typename T>
uint64_t HashFixed(T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // PLAIN is little-endian, as every host tarn builds for
  return HashBytes(b, sizeof(T));
}

// Reads the union `name` (one struct-valued field): true in *known when its field 1 is set.
bool DecodeUnion(ThriftReader& r, bool* known) {
  int16_t last = 0;
  for (;;) {
    int16_t id = 0;
    uint8_t t = 0;
    if (!r.ReadFieldHeader(&last, &id, &t)) return false;
    if (t == kThriftStop) return true;
    if (id == 1 && t == kThriftStruct) *known = true;
    if (!r.SkipField(t)) return false;
  }
}

struct Header {
  int32_t num_bytes = 0;
  bool block = false, xxhash = false, uncompressed = false;
  size_t length = 0;  // bytes of the header itself
};

Result<Header> DecodeHeader(const uint8_t* data, size_t n) {
  ThriftReader r(data, n);
  Header h;
  bool seen_bytes = false, seen_alg = false, seen_hash = false, seen_comp = false;
  int16_t last = 0;
  for (;;) {
    int16_t id = 0;
    uint8_t t = 0;
    if (!r.ReadFieldHeader(&last, &id, &t)) return r.status();
    if (t == kThriftStop) break;
    bool ok = true;
    if (id == 1 && t == kThriftI32) {
      ok = r.ReadI32(&h.num_bytes);
      seen_bytes = true;
    } else if (id == 2 && t == kThriftStruct) {
      ok = DecodeUnion(r, &h.block);
      seen_alg = true;
    } else if (id == 3 && t == kThriftStruct) {
      ok = DecodeUnion(r, &h.xxhash);
      seen_hash = true;
    } else if (id == 4 && t == kThriftStruct) {
      ok = DecodeUnion(r, &h.uncompressed);
      seen_comp = true;
    } else if (id >= 1 && id <= 4) {
      ok = r.FailFieldType("BloomFilterHeader field", t, id == 1 ? kThriftI32 : kThriftStruct);
    } else {
      ok = r.SkipField(t);
    }
    if (!ok) return r.status();
  }
  // The compression field came with format 2.10; files written before it lack it.
  if (!seen_comp) h.uncompressed = true;
  if (!seen_bytes || !seen_alg || !seen_hash) {
    return Status::Corruption("bloom filter header without numBytes, algorithm or hash");
  }
  h.length = r.position();
  return h;
}

Status CheckHeader(const Header& h) {
  if (!h.block || !h.xxhash || !h.uncompressed) {
    return Status::InvalidArgument(
        "bloom filter of an algorithm, hash or compression other than split block, xxHash and "
        "uncompressed");
  }
  if (h.num_bytes < kBloomFilterMinBytes || h.num_bytes > kBloomFilterMaxBytes ||
      h.num_bytes % 32 != 0) {
    return Status::Corruption("bloom filter of " + std::to_string(h.num_bytes) +
                              " bytes (32 bytes to 128 MiB, a multiple of 32)");
  }
  return Status::OK();
}

}  // namespace

int64_t BloomFilterBytes(int64_t ndv, double fpp, int64_t max_bytes) {
  const int64_t cap =
      FloorPowerOfTwo(std::clamp(max_bytes, kBloomFilterMinBytes, kBloomFilterMaxBytes));
  if (ndv <= 0) return kBloomFilterMinBytes;
  fpp = std::clamp(fpp, 1e-9, 0.5);
  const double bits = -8.0 * static_cast<double>(ndv) / std::log(1.0 - std::pow(fpp, 1.0 / 8));
  const double bytes = std::ceil(bits / 8);
  if (!(bytes < static_cast<double>(cap))) return cap;
  int64_t n = kBloomFilterMinBytes;
  while (static_cast<double>(n) < bytes) n *= 2;
  return std::min(n, cap);
}

BloomFilter::BloomFilter(int64_t num_bytes) {
  assert(num_bytes >= kBloomFilterMinBytes && num_bytes % 32 == 0);
  words_.assign(static_cast<size_t>(num_bytes / 4), 0);
}

Result<BloomFilter> BloomFilter::FromBitset(const uint8_t* data, size_t n) {
  if (n < static_cast<size_t>(kBloomFilterMinBytes) ||
      n > static_cast<size_t>(kBloomFilterMaxBytes) || n % 32 != 0) {
    return Status::Corruption("bloom filter bitset of " + std::to_string(n) +
                              " bytes (32 bytes to 128 MiB, a multiple of 32)");
  }
  BloomFilter f(static_cast<int64_t>(n));
  for (size_t i = 0; i < f.words_.size(); ++i) {
    const uint8_t* p = data + i * 4;
    f.words_[i] = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                  static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  return f;
}

void BloomFilter::Insert(uint64_t hash) {
  const uint64_t blocks = words_.size() / 8;
  uint32_t* block = words_.data() + ((hash >> 32) * blocks >> 32) * 8;
  const auto key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) block[i] |= uint32_t{1} << ((key * kSalt[i]) >> 27);
}

bool BloomFilter::MightContain(uint64_t hash) const {
  const uint64_t blocks = words_.size() / 8;
  const uint32_t* block = words_.data() + ((hash >> 32) * blocks >> 32) * 8;
  const auto key = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    if ((block[i] & (uint32_t{1} << ((key * kSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

void BloomFilter::AppendBitset(ByteBuffer* out) const {
  size_t at = out->size();
  out->resize(at + words_.size() * 4);
  uint8_t* p = out->data() + at;
  for (uint32_t w : words_) {
    p[0] = static_cast<uint8_t>(w);
    p[1] = static_cast<uint8_t>(w >> 8);
    p[2] = static_cast<uint8_t>(w >> 16);
    p[3] = static_cast<uint8_t>(w >> 24);
    p += 4;
  }
}

uint64_t BloomHash(int32_t v) { return HashFixed(v); }
uint64_t BloomHash(int64_t v) { return HashFixed(v); }
uint64_t BloomHash(float v) { return HashFixed(v); }
uint64_t BloomHash(double v) { return HashFixed(v); }
uint64_t BloomHash(std::string_view v) { return HashBytes(v.data(), v.size()); }

bool BloomFilterSupports(const DataType& type) {
  return !type.is_nested() && type.id() != TypeId::kBoolean && type.id() != TypeId::kVariant;
}

bool BloomFilterApplies(const DataType& type, const LeafColumn& leaf) {
  if (!BloomFilterSupports(type) || leaf.max_rep_level != 0) return false;
  const PhysicalMapping pm = PhysicalFor(type);
  return pm.type == leaf.physical &&
         (pm.type != Type::FIXED_LEN_BYTE_ARRAY || pm.type_length == leaf.type_length);
}

bool BloomFilterMightContain(const BloomFilter& filter, const Column& values, int64_t row) {
  const DataType& type = values.type;
  auto has = [&](uint64_t h) { return filter.MightContain(h); };
  switch (type.id()) {
    case TypeId::kInt8:
      return has(BloomHash(static_cast<int32_t>(values.Value<int8_t>(row))));
    case TypeId::kInt16:
      return has(BloomHash(static_cast<int32_t>(values.Value<int16_t>(row))));
    case TypeId::kInt32:
    case TypeId::kDate:
      return has(BloomHash(values.Value<int32_t>(row)));
    case TypeId::kUInt8:
      return has(BloomHash(static_cast<int32_t>(values.Value<uint8_t>(row))));
    case TypeId::kUInt16:
      return has(BloomHash(static_cast<int32_t>(values.Value<uint16_t>(row))));
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return has(BloomHash(static_cast<int32_t>(values.Value<uint32_t>(row))));
    case TypeId::kInt64:
    case TypeId::kTime:
      return has(BloomHash(values.Value<int64_t>(row)));
    case TypeId::kUInt64:
      return has(BloomHash(static_cast<int64_t>(values.Value<uint64_t>(row))));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      int64_t v = values.Value<int64_t>(row);
      // TIMESTAMP[s] is stored in milliseconds (schema.h).
      if (type.unit() == TimeUnit::kSecond) {
        v = static_cast<int64_t>(static_cast<uint64_t>(v) * 1000);
      }
      return has(BloomHash(v));
    }
    case TypeId::kFloat32: {
      const float v = values.Value<float>(row);
      if (std::isnan(v)) return true;
      if (v == 0) return has(BloomHash(0.0f)) || has(BloomHash(-0.0f));
      return has(BloomHash(v));
    }
    case TypeId::kFloat64: {
      const double v = values.Value<double>(row);
      if (std::isnan(v)) return true;
      if (v == 0) return has(BloomHash(0.0)) || has(BloomHash(-0.0));
      return has(BloomHash(v));
    }
    case TypeId::kDecimal: {
      const int128 v = values.Value<int128>(row);
      if (type.precision() <= 9) return has(BloomHash(static_cast<int32_t>(v)));
      if (type.precision() <= 18) return has(BloomHash(static_cast<int64_t>(v)));
      // Big-endian two's complement in the writer's width.
      const int width = DecimalFlbaWidth(type.precision());
      char be[16];
      auto u = static_cast<uint128>(v);
      for (int b = width - 1; b >= 0; --b) {
        be[b] = static_cast<char>(static_cast<uint8_t>(u));
        u >>= 8;
      }
      return has(BloomHash(std::string_view(be, static_cast<size_t>(width))));
    }
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson:
      return has(BloomHash(values.StringAt(row)));
    case TypeId::kUuid:
      return has(BloomHash(
          std::string_view(reinterpret_cast<const char*>(values.data.data()) + row * 16, 16)));
    case TypeId::kBoolean:
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      break;
  }
  return true;
}

void BloomFilterBuilder::Deduplicate() {
  std::sort(hashes_.begin(), hashes_.end());
  hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
  next_dedup_ = std::max(kFirstDedup, hashes_.size() * 2);
}

BloomFilter BloomFilterBuilder::Finish() {
  Deduplicate();
  BloomFilter filter(
      BloomFilterBytes(static_cast<int64_t>(hashes_.size()), options_.fpp, options_.max_bytes));
  for (uint64_t h : hashes_) filter.Insert(h);
  hashes_.clear();
  hashes_.shrink_to_fit();
  next_dedup_ = kFirstDedup;
  return filter;
}

void EncodeBloomFilter(const BloomFilter& filter, ByteBuffer* out) {
  thrift::CompactWriter w(out);
  w.I32(1, static_cast<int32_t>(filter.num_bytes()));
  for (int16_t id : {2, 3, 4}) {  // algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED
    w.BeginStruct(id);
    w.BeginStruct(1);
    w.End();
    w.End();
  }
  w.End();
  filter.AppendBitset(out);
}

Result<std::optional<BloomFilter>> ReadBloomFilter(const RandomAccessFile& file,
                                                   const ColumnMetaData& meta) {
  if (!meta.bloom_filter_offset) return std::optional<BloomFilter>();
  const uint64_t size = file.Size();
  const int64_t offset = *meta.bloom_filter_offset;
  const std::string where = file.name() + ": bloom filter at offset " + std::to_string(offset);
  auto corrupt = [&](const std::string& what) { return Status::Corruption(where + ": " + what); };
  if (offset < 4 || static_cast<uint64_t>(offset) >= size) {
    return corrupt("outside the file of " + std::to_string(size) + " bytes");
  }
  const uint64_t room = size - static_cast<uint64_t>(offset);
  // The first read: the whole filter when the chunk says its length, else enough for a header.
  uint64_t first = std::min<uint64_t>(room, kHeaderProbe);
  if (meta.bloom_filter_length) {
    const int64_t length = *meta.bloom_filter_length;
    if (length <= 0 || static_cast<uint64_t>(length) > room ||
        length > kBloomFilterMaxBytes + static_cast<int64_t>(kHeaderProbe)) {
      return corrupt("length " + std::to_string(length) + " does not fit");
    }
    first = static_cast<uint64_t>(length);
  }
  ByteBuffer buf(static_cast<size_t>(first));
  TARN_RETURN_NOT_OK(file.ReadAt(static_cast<uint64_t>(offset), buf.size(), buf.data()));
  auto decoded = DecodeHeader(buf.data(), buf.size());
  if (!decoded.ok()) return corrupt(decoded.status().message());
  const Header h = *decoded;
  TARN_RETURN_NOT_OK(CheckHeader(h).WithContext(where));
  const uint64_t total = h.length + static_cast<uint64_t>(h.num_bytes);
  if (total > room) {
    return corrupt("a bitset of " + std::to_string(h.num_bytes) + " bytes past the end");
  }
  if (total > buf.size()) {  // a length that left the bitset out, or no length
    const size_t have = buf.size();
    buf.resize(static_cast<size_t>(total));
    TARN_RETURN_NOT_OK(
        file.ReadAt(static_cast<uint64_t>(offset) + have, buf.size() - have, buf.data() + have));
  }
  TARN_ASSIGN_OR_RETURN(BloomFilter f, BloomFilter::FromBitset(buf.data() + h.length,
                                                               static_cast<size_t>(h.num_bytes)));
  return std::optional<BloomFilter>(std::move(f));
}

}  // namespace tarn::parquet
