#include "tarn/column.h"

#include <algorithm>
#include <utility>

namespace tarn {

Column::Column(DataType t) : type(std::move(t)) {
  if (type.is_variable_width() || type.is_repeated()) offsets.push_back(0);
  if (type.id() == TypeId::kArray) child = std::make_unique<Column>(type.element());
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kMap) {
    members.reserve(type.children().size());
    for (const Field& f : type.children()) members.emplace_back(f.type);
  }
  if (type.id() == TypeId::kVariant) {
    members.emplace_back(DataType::Blob());  // metadata
    members.emplace_back(DataType::Blob());  // value
  }
}

Column Column::Nulls(const DataType& type, int64_t n) {
  Column c(type);
  c.length = n;
  c.validity.assign(static_cast<size_t>(n), 0);
  const int width = type.PhysicalWidth();
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kVariant) {
    for (Column& m : c.members) m = Nulls(m.type, n);
  } else if (width > 0) {
    c.data.assign(static_cast<size_t>(n) * width, 0);
  } else {
    c.offsets.assign(static_cast<size_t>(n) + 1, 0);
  }
  return c;
}

Column Column::Clone() const {
  Column c;
  c.type = type;
  c.length = length;
  c.validity = validity;
  c.data = data;
  c.offsets = offsets;
  if (child) c.child = std::make_unique<Column>(child->Clone());
  c.members.reserve(members.size());
  for (const Column& m : members) c.members.push_back(m.Clone());
  return c;
}

int64_t Column::null_count() const {
  if (validity.empty()) return 0;
  int64_t n = 0;
  for (int64_t i = 0; i < length; ++i) n += validity[i] == 0;
  return n;
}

void Column::MarkValid() {
  if (!validity.empty()) validity.push_back(1);
}

void Column::AppendNull() {
  if (validity.empty()) validity.assign(static_cast<size_t>(length), 1);
  validity.push_back(0);
  int width = type.PhysicalWidth();
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kVariant) {
    for (Column& m : members) m.AppendNull();
  } else if (width > 0) {
    data.resize(data.size() + width);
    std::memset(data.data() + data.size() - width, 0, width);
  } else {
    offsets.push_back(offsets.empty() ? 0 : offsets.back());
  }
  ++length;
}

void Column::AppendBytes(std::string_view v) {
  MarkValid();
  data.insert(data.end(), v.begin(), v.end());
  offsets.push_back(static_cast<int64_t>(data.size()));
  ++length;
}

void Column::AppendArrayRow() {
  MarkValid();
  offsets.push_back(type.id() == TypeId::kMap ? members[0].length : child->length);
  ++length;
}

void Column::AppendColumn(const Column& src) { AppendRows(src, 0, src.length); }

void Column::AppendRows(const Column& src, int64_t begin, int64_t end) {
  if (end <= begin) return;
  const size_t b = static_cast<size_t>(begin), e = static_cast<size_t>(end);
  if (!src.validity.empty()) {
    const bool any_null = std::find(src.validity.begin() + b, src.validity.begin() + e, 0) !=
                          src.validity.begin() + e;
    const bool tracked = !validity.empty();  // (empty also when this column has no rows yet)
    if (any_null && !tracked) validity.assign(static_cast<size_t>(length), 1);
    if (any_null || tracked) {
      validity.insert(validity.end(), src.validity.begin() + b, src.validity.begin() + e);
    }
  } else if (!validity.empty()) {
    validity.insert(validity.end(), e - b, 1);
  }
  // Offsets of rows [b, e) rebased onto `base`; returns the source range they cover.
  auto append_offsets = [&](int64_t base) {
    const int64_t first = src.offsets[b];
    for (size_t i = b + 1; i <= e; ++i) offsets.push_back(base + src.offsets[i] - first);
    return std::pair<int64_t, int64_t>(first, src.offsets[e]);
  };
  switch (type.id()) {
    case TypeId::kArray: {
      auto [first, last] = append_offsets(child->length);
      child->AppendRows(*src.child, first, last);
      break;
    }
    case TypeId::kMap: {
      auto [first, last] = append_offsets(members[0].length);
      members[0].AppendRows(src.members[0], first, last);
      members[1].AppendRows(src.members[1], first, last);
      break;
    }
    case TypeId::kStruct:
    case TypeId::kVariant:
      for (size_t i = 0; i < members.size(); ++i) members[i].AppendRows(src.members[i], begin, end);
      break;
    default:
      if (type.is_variable_width()) {
        auto [first, last] = append_offsets(static_cast<int64_t>(data.size()));
        data.insert(data.end(), src.data.begin() + first, src.data.begin() + last);
      } else {
        const size_t width = static_cast<size_t>(type.PhysicalWidth());
        data.insert(data.end(), src.data.begin() + b * width, src.data.begin() + e * width);
      }
      break;
  }
  length += end - begin;
}

void Column::AppendStructRow() {
  MarkValid();
  ++length;
}

void Column::AppendVariant(std::string_view metadata, std::string_view value) {
  members[0].AppendBytes(metadata);
  members[1].AppendBytes(value);
  AppendStructRow();
}

}  // namespace tarn
