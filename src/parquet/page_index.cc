#include "parquet/page_index.h"

#include <algorithm>
#include <cstring>

namespace tarn::parquet {
namespace {

template <typename T>
int CompareFixed(std::string_view a, std::string_view b) {
  T x{}, y{};
  std::memcpy(&x, a.data(), std::min(a.size(), sizeof(T)));
  std::memcpy(&y, b.data(), std::min(b.size(), sizeof(T)));
  return x < y ? -1 : (y < x ? 1 : 0);
}

}  // namespace

int CompareStatBytes(Type type, StatsOrder order, std::string_view a, std::string_view b) {
  switch (order) {
    case StatsOrder::kBytes:
      return CompareBytes(a, b);
    case StatsOrder::kSignedBigEndian:
      return CompareSignedBigEndian(a, b);
    case StatsOrder::kFloat:
      return type == Type::FLOAT ? CompareFixed<float>(a, b) : CompareFixed<double>(a, b);
    case StatsOrder::kUnsigned:
      return type == Type::INT32 ? CompareFixed<uint32_t>(a, b) : CompareFixed<uint64_t>(a, b);
    case StatsOrder::kSigned:
      break;
  }
  switch (type) {
    case Type::BOOLEAN:
      return CompareFixed<uint8_t>(a, b);
    case Type::INT32:
      return CompareFixed<int32_t>(a, b);
    case Type::INT64:
      return CompareFixed<int64_t>(a, b);
    default:
      return CompareBytes(a, b);
  }
}

std::optional<ColumnIndex> BuildColumnIndex(const std::vector<PageIndexEntry>& pages, Type type,
                                            StatsOrder order) {
  if (pages.empty()) return std::nullopt;
  ColumnIndex ci;
  ci.null_counts.emplace();
  for (const PageIndexEntry& p : pages) {
    if (!p.null_page && (!p.min || !p.max)) return std::nullopt;
    ci.null_pages.push_back(p.null_page);
    ci.min_values.push_back(p.null_page ? std::string() : *p.min);
    ci.max_values.push_back(p.null_page ? std::string() : *p.max);
    ci.null_counts->push_back(p.null_count);
  }
  // Ordered when consecutive pages with values never go the other way (null pages are left
  // out of the comparison, as parquet-mr does). All-equal bounds count as ascending.
  bool ascending = true, descending = true;
  const std::string* prev_min = nullptr;
  const std::string* prev_max = nullptr;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (ci.null_pages[i]) continue;
    const std::string& mn = ci.min_values[i];
    const std::string& mx = ci.max_values[i];
    if (prev_min != nullptr) {
      const int c_min = CompareStatBytes(type, order, *prev_min, mn);
      const int c_max = CompareStatBytes(type, order, *prev_max, mx);
      if (c_min > 0 || c_max > 0) ascending = false;
      if (c_min < 0 || c_max < 0) descending = false;
    }
    prev_min = &mn;
    prev_max = &mx;
  }
  ci.boundary_order = ascending    ? BoundaryOrder::ASCENDING
                      : descending ? BoundaryOrder::DESCENDING
                                   : BoundaryOrder::UNORDERED;
  return ci;
}

OffsetIndex BuildOffsetIndex(int64_t first_page, const std::vector<PageIndexEntry>& pages) {
  OffsetIndex oi;
  oi.page_locations.reserve(pages.size());
  int64_t at = first_page;
  for (const PageIndexEntry& p : pages) {
    PageLocation loc;
    loc.offset = at;
    loc.compressed_page_size = p.size;
    loc.first_row_index = p.first_row;
    oi.page_locations.push_back(loc);
    at += p.size;
  }
  return oi;
}

Status ValidateOffsetIndex(const OffsetIndex& index, int64_t num_rows, int64_t chunk_begin,
                           int64_t chunk_end) {
  const std::vector<PageLocation>& locs = index.page_locations;
  if (locs.empty()) return Status::Corruption("offset index without pages");
  int64_t prev_end = chunk_begin;
  for (size_t i = 0; i < locs.size(); ++i) {
    const PageLocation& l = locs[i];
    auto bad = [&](const std::string& what) {
      return Status::Corruption("offset index page " + std::to_string(i) + ": " + what);
    };
    if (i == 0 ? l.first_row_index != 0 : l.first_row_index <= locs[i - 1].first_row_index) {
      return bad("first row " + std::to_string(l.first_row_index) + " out of order");
    }
    if (l.first_row_index >= num_rows) {
      return bad("first row " + std::to_string(l.first_row_index) + " past the row group's " +
                 std::to_string(num_rows) + " rows");
    }
    if (l.compressed_page_size <= 0 || l.offset < prev_end || l.offset > chunk_end ||
        l.compressed_page_size > chunk_end - l.offset) {
      return bad("page at offset " + std::to_string(l.offset) + " of " +
                 std::to_string(l.compressed_page_size) + " bytes lies outside its column chunk");
    }
    prev_end = l.offset + l.compressed_page_size;
  }
  return Status::OK();
}

Status ValidateColumnIndex(const ColumnIndex& index, size_t pages) {
  if (index.null_pages.size() != pages || index.min_values.size() != pages ||
      index.max_values.size() != pages ||
      (index.null_counts && index.null_counts->size() != pages)) {
    return Status::Corruption("column index lists do not have one entry for each of the " +
                              std::to_string(pages) + " pages");
  }
  return Status::OK();
}

RowRange PageRows(const OffsetIndex& index, size_t i, int64_t num_rows) {
  const auto& locs = index.page_locations;
  return {locs[i].first_row_index, i + 1 < locs.size() ? locs[i + 1].first_row_index : num_rows};
}

std::vector<size_t> PagesForRanges(const OffsetIndex& index, int64_t num_rows,
                                   const std::vector<RowRange>& ranges) {
  std::vector<size_t> out;
  size_t r = 0;
  for (size_t i = 0; i < index.page_locations.size() && r < ranges.size(); ++i) {
    const RowRange pr = PageRows(index, i, num_rows);
    while (r < ranges.size() && ranges[r].end <= pr.begin) ++r;
    if (r < ranges.size() && ranges[r].begin < pr.end) out.push_back(i);
  }
  return out;
}

}  // namespace tarn::parquet
