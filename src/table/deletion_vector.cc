#include "table/deletion_vector.h"

#include <algorithm>

namespace tarn {

namespace {

constexpr uint8_t kVersion = 1;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(std::string_view in, size_t* pos, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= in.size()) return false;
    auto b = static_cast<uint8_t>(in[(*pos)++]);
    if (shift == 63 && b > 1) return false;  // beyond 64 bits
    result |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string EncodeDeletionVector(const std::vector<uint64_t>& positions) {
  const std::vector<uint64_t>* p = &positions;
  std::vector<uint64_t> sorted;
  if (!std::is_sorted(positions.begin(), positions.end()) ||
      std::adjacent_find(positions.begin(), positions.end()) != positions.end()) {
    sorted = positions;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    p = &sorted;
  }
  std::string out;
  out.reserve(2 + p->size() * 2);
  out.push_back(static_cast<char>(kVersion));
  PutVarint(p->size(), &out);
  uint64_t prev = 0;
  for (size_t i = 0; i < p->size(); ++i) {
    uint64_t v = (*p)[i];
    PutVarint(i == 0 ? v : v - prev - 1, &out);
    prev = v;
  }
  return out;
}

Result<std::vector<uint64_t>> DecodeDeletionVector(std::string_view bytes) {
  if (bytes.empty()) return Status::Corruption("deletion vector: empty");
  if (static_cast<uint8_t>(bytes[0]) != kVersion) {
    return Status::Corruption("deletion vector: unknown version " +
                              std::to_string(static_cast<uint8_t>(bytes[0])));
  }
  size_t pos = 1;
  uint64_t count;
  if (!GetVarint(bytes, &pos, &count)) return Status::Corruption("deletion vector: bad count");
  if (count > bytes.size() - pos) {
    return Status::Corruption("deletion vector: count " + std::to_string(count) + " exceeds the " +
                              std::to_string(bytes.size() - pos) + " bytes left");
  }
  std::vector<uint64_t> out;
  out.reserve(count);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t d;
    if (!GetVarint(bytes, &pos, &d)) {
      return Status::Corruption("deletion vector: truncated or overlong varint at byte " +
                                std::to_string(pos));
    }
    uint64_t v;
    if (i == 0) {
      v = d;
    } else {
      if (prev == UINT64_MAX || d > UINT64_MAX - prev - 1) {
        return Status::Corruption("deletion vector: position overflows 64 bits");
      }
      v = prev + 1 + d;
    }
    out.push_back(v);
    prev = v;
  }
  if (pos != bytes.size()) {
    return Status::Corruption("deletion vector: " + std::to_string(bytes.size() - pos) +
                              " trailing bytes");
  }
  return out;
}

std::vector<uint64_t> UnionPositions(const std::vector<uint64_t>& a,
                                     const std::vector<uint64_t>& b) {
  std::vector<uint64_t> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace tarn
