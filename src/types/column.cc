#include "tarn/column.h"

namespace tarn {

Column::Column(DataType t) : type(std::move(t)) {
  if (type.is_variable_width() || type.is_repeated()) offsets.push_back(0);
  if (type.id() == TypeId::kArray) child = std::make_unique<Column>(type.element());
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kMap) {
    members.reserve(type.children().size());
    for (const Field& f : type.children()) members.emplace_back(f.type);
  }
}

Column Column::Nulls(const DataType& type, int64_t n) {
  Column c(type);
  c.length = n;
  c.validity.assign(static_cast<size_t>(n), 0);
  const int width = type.PhysicalWidth();
  if (type.id() == TypeId::kStruct) {
    for (size_t i = 0; i < c.members.size(); ++i) {
      c.members[i] = Nulls(type.children()[i].type, n);
    }
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
  if (type.id() == TypeId::kStruct) {
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

void Column::AppendColumn(const Column& src) {
  if (!src.validity.empty() || !validity.empty()) {
    if (validity.empty()) validity.assign(static_cast<size_t>(length), 1);
    if (src.validity.empty()) {
      validity.insert(validity.end(), static_cast<size_t>(src.length), 1);
    } else {
      validity.insert(validity.end(), src.validity.begin(), src.validity.end());
    }
  }
  auto append_offsets = [&](int64_t base) {
    for (int64_t i = 1; i <= src.length; ++i) {
      offsets.push_back(base + src.offsets[i] - src.offsets[0]);
    }
  };
  switch (type.id()) {
    case TypeId::kArray:
      append_offsets(child->length);
      child->AppendColumn(*src.child);
      break;
    case TypeId::kMap:
      append_offsets(members[0].length);
      members[0].AppendColumn(src.members[0]);
      members[1].AppendColumn(src.members[1]);
      break;
    case TypeId::kStruct:
      for (size_t i = 0; i < members.size(); ++i) members[i].AppendColumn(src.members[i]);
      break;
    default:
      if (type.is_variable_width()) {
        append_offsets(static_cast<int64_t>(data.size()));
        data.insert(data.end(), src.data.begin() + src.offsets[0],
                    src.data.begin() + src.offsets[src.length]);
      } else {
        data.insert(data.end(), src.data.begin(), src.data.end());
      }
      break;
  }
  length += src.length;
}

void Column::AppendStructRow() {
  MarkValid();
  ++length;
}

}  // namespace tarn
