// Arrow -> tarn: schemas, batches and streams, copied into tarn Columns.
//
// A batch is checked whole against its layout first (CheckArray: buffer and child counts, the
// buffers a non-empty array needs, offsets in order and inside their child), then copied row
// range by row range (Append): a run of valid rows is copied in bulk, a null row is appended as
// tarn's null (an empty range, zeroed values, a null in every struct member), whatever the
// producer's buffers hold under it. The data buffers of strings cannot be bounded (the spec
// gives no sizes); everything else read is inside the ranges the checks proved.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>
#include <utility>

#include "arrow/arrow_internal.h"
#include "common/text.h"
#include "types/value_text.h"
#include "types/variant.h"

namespace tarn::arrow {
namespace {

constexpr int kMaxDepth = 64;  // as type text's nesting limit

// Releases a consumed structure on every path.
template <typename T>
struct ReleaseOnExit {
  T* p;
  ~ReleaseOnExit() {
    if (p != nullptr && p->release != nullptr) p->release(p);
  }
};

// ---- Schemas ----

std::string JoinPath(std::string_view parent, std::string_view name) {
  return parent.empty() ? std::string(name) : std::string(parent) + "." + std::string(name);
}

Status CheckNames(const std::vector<Field>& fields, std::string_view where) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name.empty()) {
      return Status::InvalidArgument(std::string(where) + ": field " + std::to_string(i) +
                                     " has no name");
    }
    for (size_t j = 0; j < i; ++j) {
      if (AsciiLower(fields[i].name) == AsciiLower(fields[j].name)) {
        return Status::InvalidArgument(std::string(where) + ": two fields named " + fields[j].name +
                                       " and " + fields[i].name +
                                       " (names are case-insensitive in tarn)");
      }
    }
  }
  return Status::OK();
}

Result<ArrowLayout> ReadField(const ArrowSchema* s, std::string_view parent, size_t index,
                              bool top_level, int depth);

// A variant's storage: metadata and value binaries, in either order.
Status ReadVariantChildren(const ArrowSchema* s, ArrowLayout* node, int depth) {
  node->children.resize(2);
  bool seen[2] = {false, false};
  for (int64_t i = 0; i < s->n_children; ++i) {
    const ArrowSchema* c = s->children[i];
    const std::string_view name = c != nullptr && c->name != nullptr ? c->name : "";
    const int k = name == "metadata" ? 0 : name == "value" ? 1 : -1;
    if (k < 0) {
      return Status::InvalidArgument(
          "field " + node->path + ": a Variant field named \"" + std::string(name) +
          "\" (shredded variants, with typed_value, are not supported; only metadata and value)");
    }
    if (seen[k]) {
      return Status::InvalidArgument("field " + node->path + ": two Variant fields named " +
                                     std::string(name));
    }
    seen[k] = true;
    TARN_ASSIGN_OR_RETURN(ArrowLayout child, ReadField(c, node->path, i, false, depth + 1));
    if (child.field.type.id() != TypeId::kBlob || child.layout == Layout::kFixedBinary) {
      return Status::InvalidArgument(
          "field " + child.path +
          ": a Variant's metadata and value are binary (z, Z or vz), not \"" +
          std::string(c->format) + "\"");
    }
    child.arrow_child = static_cast<int>(i);
    child.field.nullable = true;  // a null variant row holds nulls (checked row by row)
    node->children[k] = std::move(child);
  }
  if (!seen[0] || !seen[1]) {
    return Status::InvalidArgument("field " + node->path +
                                   ": a Variant needs a metadata and a value field");
  }
  return Status::OK();
}

Result<ArrowLayout> ReadField(const ArrowSchema* s, std::string_view parent, size_t index,
                              bool top_level, int depth) {
  const std::string fallback = JoinPath(parent, "#" + std::to_string(index));
  if (s == nullptr || s->format == nullptr) {
    return Status::InvalidArgument("field " + fallback + ": no schema or no format");
  }
  if (depth > kMaxDepth) {
    return Status::InvalidArgument("field " + fallback + ": nested deeper than " +
                                   std::to_string(kMaxDepth) + " levels");
  }
  ArrowLayout node;
  node.field.name = s->name != nullptr ? s->name : "";
  node.path = node.field.name.empty() ? fallback : JoinPath(parent, node.field.name);
  const std::string format = s->format;
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument("field " + node.path + " (Arrow format \"" + format +
                                   "\"): " + what);
  };
  if (s->dictionary != nullptr) {
    return bad("dictionary-encoded fields are not supported; decode them first");
  }
  if (s->n_children < 0 || (s->n_children > 0 && s->children == nullptr)) {
    return bad("children missing");
  }
  Result<Metadata> md = DecodeMetadata(s->metadata);
  if (!md.ok()) return bad(md.status().message());
  ArrowTypeName name{format, "", ""};
  for (const auto& [k, v] : *md) {
    if (k == kExtensionNameKey) name.extension = v;
    if (k == kTarnTypeKey) name.tarn_type = v;
    if (k == kFieldIdKey) {
      int32_t id = -1;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), id);
      if (ec != std::errc() || end != v.data() + v.size() || id < 0) {
        return bad("PARQUET:field_id \"" + v + "\" is not a field id");
      }
      node.field.field_id = id;
    }
  }
  node.field.nullable = (s->flags & ARROW_FLAG_NULLABLE) != 0;
  Result<ArrowMatch> match = MatchArrowType(name);
  if (!match.ok()) return match.status().WithContext("field " + node.path);
  node.layout = match->layout;
  node.fixed_size = match->fixed_size;
  std::vector<Field> fields;
  switch (node.layout) {
    case Layout::kList32:
    case Layout::kList64:
    case Layout::kFixedList: {
      if (s->n_children != 1) return bad("a list has one child");
      TARN_ASSIGN_OR_RETURN(ArrowLayout e,
                            ReadField(s->children[0], node.path, 0, false, depth + 1));
      e.field.name = "element";
      fields.push_back(e.field);
      node.children.push_back(std::move(e));
      break;
    }
    case Layout::kStruct:
      for (int64_t i = 0; i < s->n_children; ++i) {
        TARN_ASSIGN_OR_RETURN(ArrowLayout m,
                              ReadField(s->children[i], node.path, i, false, depth + 1));
        m.arrow_child = static_cast<int>(i);
        fields.push_back(m.field);
        node.children.push_back(std::move(m));
      }
      TARN_RETURN_NOT_OK(CheckNames(fields, "field " + node.path));
      break;
    case Layout::kMap: {
      const ArrowSchema* entries = s->n_children == 1 ? s->children[0] : nullptr;
      if (entries == nullptr || entries->format == nullptr ||
          std::string_view(entries->format) != "+s" || entries->n_children != 2 ||
          entries->children == nullptr) {
        return bad("a map has one child, a struct of key and value");
      }
      for (int i = 0; i < 2; ++i) {
        TARN_ASSIGN_OR_RETURN(ArrowLayout kv,
                              ReadField(entries->children[i], node.path, i, false, depth + 1));
        kv.field.name = i == 0 ? "key" : "value";
        kv.path = JoinPath(node.path, kv.field.name);
        kv.arrow_child = i;
        if (i == 0) kv.field.nullable = false;  // a key is never null (checked row by row)
        fields.push_back(kv.field);
        node.children.push_back(std::move(kv));
      }
      break;
    }
    case Layout::kVariant:
      if (!top_level) return bad("a VARIANT is a top-level column only in tarn");
      TARN_RETURN_NOT_OK(ReadVariantChildren(s, &node, depth));
      break;
    default:
      break;
  }
  Result<DataType> type = TypeFromMatch(*match, std::move(fields));
  if (!type.ok()) return bad(type.status().message());
  node.field.type = std::move(*type);
  return node;
}

// ---- Arrays ----

bool Bit(const void* bits, int64_t i) {
  return (static_cast<const uint8_t*>(bits)[i >> 3] >> (i & 7)) & 1;
}

// The validity bitmap, or NULL when every row is valid.
const void* ValidityOf(const ArrowArray* a) {
  return a->null_count != 0 && a->n_buffers > 0 ? a->buffers[0] : nullptr;
}

template <typename O>
const O* Offsets(const ArrowArray* a) {
  return static_cast<const O*>(a->buffers[1]);
}

bool Wide(Layout l) { return l == Layout::kBinary64 || l == Layout::kList64; }

// Offset `i` (physical) of a var-width or list layout.
int64_t OffsetAt(Layout l, const ArrowArray* a, int64_t i) {
  return Wide(l) ? Offsets<int64_t>(a)[i] : Offsets<int32_t>(a)[i];
}

Status CheckArray(const ArrowLayout& node, const ArrowArray* a) {
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument("field " + (node.path.empty() ? "(the batch)" : node.path) +
                                   ": " + what);
  };
  if (a == nullptr) return bad("a NULL array");
  if (a->length < 0 || a->offset < 0 || a->null_count < -1 ||
      a->offset > INT64_MAX / 2 - a->length) {
    return bad("a negative or too large length, offset or null_count");
  }
  if (a->dictionary != nullptr) return bad("dictionary-encoded arrays are not supported");
  int64_t n_buffers = 2, n_children = 0;
  switch (node.layout) {
    case Layout::kBinary32:
    case Layout::kBinary64:
      n_buffers = 3;
      break;
    case Layout::kList32:
    case Layout::kList64:
    case Layout::kMap:
      n_children = 1;
      break;
    case Layout::kFixedList:
      n_buffers = 1;
      n_children = 1;
      break;
    case Layout::kStruct:
    case Layout::kVariant:
      n_buffers = 1;
      n_children = node.layout == Layout::kVariant ? 2 : static_cast<int64_t>(node.children.size());
      break;
    default:
      break;
  }
  if (node.layout == Layout::kBinaryView) {
    n_buffers = std::max<int64_t>(a->n_buffers, 3);  // validity, views, data..., sizes
  }
  if (a->n_buffers != n_buffers || a->buffers == nullptr) {
    return bad("an array of " + std::to_string(a->n_buffers) + " buffers; its format has " +
               std::to_string(n_buffers));
  }
  if (a->n_children != n_children || (n_children > 0 && a->children == nullptr)) {
    return bad("an array of " + std::to_string(a->n_children) + " children; its format has " +
               std::to_string(n_children));
  }
  const int64_t end = a->offset + a->length;
  if (ValidityOf(a) == nullptr && a->null_count > 0) return bad("nulls without a validity bitmap");
  const ArrowArray* child = n_children > 0 ? a->children[0] : nullptr;
  if (n_children > 0 && child == nullptr) return bad("a NULL child");
  switch (node.layout) {
    case Layout::kBinary32:
    case Layout::kBinary64:
    case Layout::kList32:
    case Layout::kList64:
    case Layout::kMap: {
      // Offsets in order; the range they cover inside the data or the child.
      int64_t first = 0, last = 0;
      if (a->length > 0) {
        if (a->buffers[1] == nullptr) return bad("no offsets buffer");
        first = last = OffsetAt(node.layout, a, a->offset);
        if (first < 0) return bad("a negative offset");
        for (int64_t i = a->offset + 1; i <= end; ++i) {
          const int64_t o = OffsetAt(node.layout, a, i);
          if (o < last) return bad("offsets out of order at " + std::to_string(i));
          last = o;
        }
      }
      if (node.layout == Layout::kBinary32 || node.layout == Layout::kBinary64) {
        if (last > first && a->buffers[2] == nullptr) return bad("no data buffer");
        return Status::OK();
      }
      if (last > child->length) return bad("offsets past the end of the child");
      if (node.layout != Layout::kMap) break;
      // The entries: a struct without nulls of key and value.
      if (child->n_children != 2 || child->children == nullptr || child->n_buffers != 1 ||
          child->buffers == nullptr || child->length < 0 || child->offset < 0 ||
          child->dictionary != nullptr) {
        return bad("a map's child is not a struct of key and value");
      }
      if (const void* bits = ValidityOf(child)) {
        for (int64_t i = child->offset + first; i < child->offset + last; ++i) {
          if (!Bit(bits, i)) return bad("a null map entry");
        }
      }
      for (const ArrowLayout& kv : node.children) {
        const ArrowArray* c = child->children[kv.arrow_child];
        if (c == nullptr || c->length < child->offset + child->length) {
          return bad("a map's key or value shorter than its entries");
        }
        TARN_RETURN_NOT_OK(CheckArray(kv, c));
      }
      return Status::OK();
    }
    case Layout::kBinaryView:
      // Each view is checked against its data buffer's size when it is read (ViewAt).
      if (a->length > 0 && a->buffers[1] == nullptr) return bad("no views buffer");
      if (a->n_buffers > 3 && a->buffers[a->n_buffers - 1] == nullptr) {
        return bad("no buffer of the data buffers' sizes");
      }
      return Status::OK();
    case Layout::kStruct:
    case Layout::kVariant:
      for (const ArrowLayout& m : node.children) {
        const ArrowArray* c = a->children[m.arrow_child];
        if (c == nullptr || c->length < end) {
          return bad("member " + m.field.name + " is shorter than the struct");
        }
        TARN_RETURN_NOT_OK(CheckArray(m, c));
      }
      return Status::OK();
    case Layout::kFixedList:
      if (child->length / node.fixed_size < end) return bad("a child shorter than its lists");
      break;
    default:
      if (a->length > 0 && a->buffers[1] == nullptr) return bad("no values buffer");
      return Status::OK();
  }
  // A list's element.
  return CheckArray(node.children[0], child);
}

// Calls f(valid, begin, end) for each run of rows [begin, end) of `a` (logical indices) that
// are all valid or all null.
template <typename F>
Status ForEachRun(const ArrowArray* a, int64_t begin, int64_t end, F&& f) {
  const void* bits = ValidityOf(a);
  if (bits == nullptr) return begin < end ? f(true, begin, end) : Status::OK();
  for (int64_t i = begin; i < end;) {
    const bool valid = Bit(bits, a->offset + i);
    int64_t j = i + 1;
    while (j < end && Bit(bits, a->offset + j) == valid) ++j;
    TARN_RETURN_NOT_OK(f(valid, i, j));
    i = j;
  }
  return Status::OK();
}

// `n` valid rows whose values the caller appended.
void AddValid(Column* out, int64_t n) {
  if (!out->validity.empty()) out->validity.insert(out->validity.end(), n, 1);
  out->length += n;
}

// Value `i` (logical) of a binary view array: a view is int32 length, then the bytes inline
// when they are at most 12, else a 4-byte prefix, int32 data buffer index, int32 offset. The
// C Data Interface appends a buffer of each data buffer's int64 size, so every view is checked.
bool ViewAt(const ArrowArray* a, int64_t i, std::string_view* out) {
  const auto* view = static_cast<const uint8_t*>(a->buffers[1]) + (a->offset + i) * 16;
  int32_t len, index, offset;
  std::memcpy(&len, view, 4);
  if (len < 0) return false;
  if (len <= 12) {
    *out = {reinterpret_cast<const char*>(view + 4), static_cast<size_t>(len)};
    return true;
  }
  std::memcpy(&index, view + 8, 4);
  std::memcpy(&offset, view + 12, 4);
  const int64_t n_data = a->n_buffers - 3;
  if (index < 0 || index >= n_data || offset < 0) return false;
  int64_t size;
  std::memcpy(&size, static_cast<const uint8_t*>(a->buffers[a->n_buffers - 1]) + index * 8, 8);
  const auto* data = static_cast<const char*>(a->buffers[2 + index]);
  if (data == nullptr || int64_t{offset} + len > size) return false;
  *out = {data + offset, static_cast<size_t>(len)};
  return true;
}

// Value `i` (logical) of a binary array of any of the three layouts.
Status BinaryAt(const ArrowLayout& node, const ArrowArray* a, int64_t i, std::string_view* out) {
  if (node.layout == Layout::kBinaryView) {
    if (ViewAt(a, i, out)) return Status::OK();
    return Status::InvalidArgument("field " + node.path + ": value " + std::to_string(i) +
                                   ": a view outside its data buffer");
  }
  const int64_t p = a->offset + i;
  const int64_t b = OffsetAt(node.layout, a, p), e = OffsetAt(node.layout, a, p + 1);
  *out = {static_cast<const char*>(a->buffers[2]) + b, static_cast<size_t>(e - b)};
  return Status::OK();
}

template <typename T>
T ValueAt(const ArrowArray* a, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(a->buffers[1]) + (a->offset + i) * sizeof(T),
              sizeof(T));
  return v;
}

int128 Pow10(int n) {
  int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

Status Append(const ArrowLayout& node, const ArrowArray* a, int64_t begin, int64_t end,
              Column* out);

// Rows [s, e) of `a`, all valid.
Status AppendValid(const ArrowLayout& node, const ArrowArray* a, int64_t s, int64_t e,
                   Column* out) {
  auto bad = [&](int64_t i, const std::string& what) {
    return Status::InvalidArgument("field " + node.path + ": value " + std::to_string(i) + ": " +
                                   what);
  };
  const int64_t n = e - s;
  const DataType& type = node.field.type;
  switch (node.layout) {
    case Layout::kFixed: {
      const size_t w = static_cast<size_t>(type.PhysicalWidth());
      const auto* src = static_cast<const uint8_t*>(a->buffers[1]) + (a->offset + s) * w;
      if (type.id() == TypeId::kDecimal) {
        const int128 limit = Pow10(type.precision());
        for (int64_t i = s; i < e; ++i) {
          const int128 v = ValueAt<int128>(a, i);
          if (v >= limit || v <= -limit) return bad(i, "more digits than " + type.ToString());
        }
      }
      out->data.insert(out->data.end(), src, src + n * w);
      AddValid(out, n);
      return Status::OK();
    }
    case Layout::kBoolean:
      for (int64_t i = s; i < e; ++i) {
        out->AppendFixed<uint8_t>(Bit(a->buffers[1], a->offset + i) ? 1 : 0);
      }
      return Status::OK();
    case Layout::kDecimal32:
    case Layout::kDecimal64: {
      const int128 limit = Pow10(type.precision());
      for (int64_t i = s; i < e; ++i) {
        const int128 v =
            node.layout == Layout::kDecimal32 ? ValueAt<int32_t>(a, i) : ValueAt<int64_t>(a, i);
        if (v >= limit || v <= -limit) return bad(i, "more digits than " + type.ToString());
        out->AppendFixed<int128>(v);
      }
      return Status::OK();
    }
    case Layout::kTime32Seconds:
    case Layout::kTime32Millis: {
      const int64_t scale = node.layout == Layout::kTime32Seconds ? 1'000'000 : 1'000;
      for (int64_t i = s; i < e; ++i) out->AppendFixed<int64_t>(ValueAt<int32_t>(a, i) * scale);
      return Status::OK();
    }
    case Layout::kDate64: {
      constexpr int64_t kMsPerDay = 86'400'000;
      for (int64_t i = s; i < e; ++i) {
        const int64_t ms = ValueAt<int64_t>(a, i);
        const int64_t days = ms / kMsPerDay;
        if (ms % kMsPerDay != 0) {
          return bad(i, "a date64 of " + std::to_string(ms) +
                            " ms is not a whole day (tarn's DATE holds days)");
        }
        if (days < INT32_MIN || days > INT32_MAX) return bad(i, "a date64 beyond DATE's range");
        out->AppendFixed<int32_t>(static_cast<int32_t>(days));
      }
      return Status::OK();
    }
    case Layout::kBinary32:
    case Layout::kBinary64:
    case Layout::kBinaryView: {
      if (node.layout == Layout::kBinaryView) {
        for (int64_t i = s; i < e; ++i) {
          std::string_view v;
          TARN_RETURN_NOT_OK(BinaryAt(node, a, i, &v));
          out->AppendBytes(v);
        }
      } else {
        const int64_t first = OffsetAt(node.layout, a, a->offset + s);
        const int64_t last = OffsetAt(node.layout, a, a->offset + e);
        const int64_t base = static_cast<int64_t>(out->data.size());
        const auto* src = static_cast<const uint8_t*>(a->buffers[2]);
        if (last > first) out->data.insert(out->data.end(), src + first, src + last);
        for (int64_t i = a->offset + s + 1; i <= a->offset + e; ++i) {
          out->offsets.push_back(base + OffsetAt(node.layout, a, i) - first);
        }
        AddValid(out, n);
      }
      if (type.id() == TypeId::kVarchar || type.id() == TypeId::kJson) {
        const int64_t row0 = out->length - n;  // the first row appended here
        for (int64_t r = row0; r < out->length; ++r) {
          const std::string_view v = out->StringAt(r);
          if (!IsValidUtf8(v)) return bad(s + r - row0, "not UTF-8");
          if (type.id() == TypeId::kJson) {
            Status st = ValidateJson(v);
            if (!st.ok()) return bad(s + r - row0, st.message());
          }
        }
      }
      return Status::OK();
    }
    case Layout::kFixedBinary: {
      const auto* src = static_cast<const char*>(a->buffers[1]);
      const size_t w = static_cast<size_t>(node.fixed_size);
      for (int64_t i = s; i < e; ++i) out->AppendBytes({src + (a->offset + i) * w, w});
      return Status::OK();
    }
    case Layout::kList32:
    case Layout::kList64:
    case Layout::kFixedList: {
      const ArrowArray* child = a->children[0];
      auto at = [&](int64_t i) {
        return node.layout == Layout::kFixedList ? (a->offset + i) * node.fixed_size
                                                 : OffsetAt(node.layout, a, a->offset + i);
      };
      const int64_t first = at(s), base = out->child->length;
      TARN_RETURN_NOT_OK(Append(node.children[0], child, first, at(e), out->child.get()));
      for (int64_t i = s + 1; i <= e; ++i) out->offsets.push_back(base + at(i) - first);
      AddValid(out, n);
      return Status::OK();
    }
    case Layout::kMap: {
      const ArrowArray* entries = a->children[0];
      const int64_t first = OffsetAt(node.layout, a, a->offset + s);
      const int64_t last = OffsetAt(node.layout, a, a->offset + e);
      const int64_t base = out->members[0].length;
      for (size_t k = 0; k < 2; ++k) {
        const ArrowLayout& kv = node.children[k];
        TARN_RETURN_NOT_OK(Append(kv, entries->children[kv.arrow_child], entries->offset + first,
                                  entries->offset + last, &out->members[k]));
      }
      for (int64_t i = a->offset + s + 1; i <= a->offset + e; ++i) {
        out->offsets.push_back(base + OffsetAt(node.layout, a, i) - first);
      }
      AddValid(out, n);
      return Status::OK();
    }
    case Layout::kStruct:
      for (size_t k = 0; k < node.children.size(); ++k) {
        const ArrowLayout& m = node.children[k];
        TARN_RETURN_NOT_OK(
            Append(m, a->children[m.arrow_child], a->offset + s, a->offset + e, &out->members[k]));
      }
      AddValid(out, n);
      return Status::OK();
    case Layout::kVariant: {
      const ArrowLayout& ml = node.children[0];
      const ArrowLayout& vl = node.children[1];
      const ArrowArray* m = a->children[ml.arrow_child];
      const ArrowArray* v = a->children[vl.arrow_child];
      const void* m_bits = ValidityOf(m);
      const void* v_bits = ValidityOf(v);
      for (int64_t i = a->offset + s; i < a->offset + e; ++i) {
        if ((m_bits != nullptr && !Bit(m_bits, m->offset + i)) ||
            (v_bits != nullptr && !Bit(v_bits, v->offset + i))) {
          return bad(i - a->offset, "a Variant with a null metadata or value");
        }
        std::string_view md, val;
        TARN_RETURN_NOT_OK(BinaryAt(ml, m, i, &md));
        TARN_RETURN_NOT_OK(BinaryAt(vl, v, i, &val));
        Status st = ValidateVariant(md, val);
        if (!st.ok()) return bad(i - a->offset, "not a Variant value: " + st.message());
        out->AppendVariant(md, val);
      }
      return Status::OK();
    }
  }
  return Status::Internal("field " + node.path + ": an unknown layout");
}

// Rows [begin, end) of `a` (logical indices), appended to `out`.
Status Append(const ArrowLayout& node, const ArrowArray* a, int64_t begin, int64_t end,
              Column* out) {
  return ForEachRun(a, begin, end, [&](bool valid, int64_t s, int64_t e) -> Status {
    if (valid) return AppendValid(node, a, s, e, out);
    if (!node.field.nullable) {
      return Status::InvalidArgument("field " + node.path + ": value " + std::to_string(s) +
                                     " is null, and the field is NOT NULL");
    }
    for (int64_t i = s; i < e; ++i) out->AppendNull();
    return Status::OK();
  });
}

Status StreamError(ArrowArrayStream* stream, int code, const char* call) {
  const char* text = stream->get_last_error != nullptr ? stream->get_last_error(stream) : nullptr;
  std::string msg = std::string("Arrow stream: ") + call + " failed (" + std::strerror(code) + ")";
  if (text != nullptr) msg += std::string(": ") + text;
  return code == EINVAL ? Status::InvalidArgument(std::move(msg)) : Status::IOError(std::move(msg));
}

}  // namespace

Result<ImportedSchema> ImportSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) {
    return Status::InvalidArgument("importing an Arrow schema that is released");
  }
  ReleaseOnExit<ArrowSchema> release{schema};
  if (schema->format == nullptr || std::string_view(schema->format) != "+s") {
    return Status::InvalidArgument(
        std::string("importing an Arrow schema: a batch's schema is a struct (\"+s\"), not \"") +
        (schema->format != nullptr ? schema->format : "") + "\"");
  }
  if (schema->n_children < 0 || (schema->n_children > 0 && schema->children == nullptr)) {
    return Status::InvalidArgument("importing an Arrow schema: children missing");
  }
  auto top = std::make_shared<ArrowLayout>();
  top->layout = Layout::kStruct;
  Schema out;
  for (int64_t i = 0; i < schema->n_children; ++i) {
    TARN_ASSIGN_OR_RETURN(ArrowLayout f, ReadField(schema->children[i], "", i, true, 1));
    f.arrow_child = static_cast<int>(i);
    out.fields.push_back(f.field);
    top->children.push_back(std::move(f));
  }
  TARN_RETURN_NOT_OK(CheckNames(out.fields, "importing an Arrow schema"));
  top->field.type = DataType::Struct(out.fields);
  return ImportedSchema{std::move(out), std::move(top)};
}

Result<RecordBatch> ImportBatch(ArrowArray* array, const ImportedSchema& schema) {
  if (array == nullptr || array->release == nullptr) {
    return Status::InvalidArgument("importing an Arrow array that is released");
  }
  ReleaseOnExit<ArrowArray> release{array};
  if (schema.layout == nullptr) return Status::InvalidArgument("an empty ImportedSchema");
  const ArrowLayout& top = *schema.layout;
  TARN_RETURN_NOT_OK(CheckArray(top, array));
  if (const void* bits = ValidityOf(array)) {
    for (int64_t i = array->offset; i < array->offset + array->length; ++i) {
      if (!Bit(bits, i)) {
        return Status::InvalidArgument("importing an Arrow batch: row " +
                                       std::to_string(i - array->offset) +
                                       " of the struct array is null");
      }
    }
  }
  RecordBatch batch;
  batch.schema = schema.schema;
  batch.num_rows = array->length;
  for (const ArrowLayout& f : top.children) {
    Column c(f.field.type);
    TARN_RETURN_NOT_OK(Append(f, array->children[f.arrow_child], array->offset,
                              array->offset + array->length, &c));
    batch.columns.push_back(std::move(c));
  }
  return batch;
}

Result<RecordBatch> ImportBatch(ArrowArray* array, const Schema& schema) {
  ReleaseOnExit<ArrowArray> release{array};  // when the schema cannot be read
  ArrowSchema s;
  TARN_RETURN_NOT_OK(ExportSchema(schema, &s));
  TARN_ASSIGN_OR_RETURN(ImportedSchema imported, ImportSchema(&s));
  imported.schema = schema;
  return ImportBatch(array, imported);
}

Status ImportStream(ArrowArrayStream* stream, const std::function<Status(RecordBatch)>& fn) {
  if (stream == nullptr || stream->release == nullptr) {
    return Status::InvalidArgument("importing an Arrow stream that is released");
  }
  ReleaseOnExit<ArrowArrayStream> release{stream};
  ArrowSchema s{};
  int rc = stream->get_schema(stream, &s);
  if (rc != 0) {
    ReleaseOnExit<ArrowSchema> release_schema{&s};
    return StreamError(stream, rc, "get_schema");
  }
  TARN_ASSIGN_OR_RETURN(ImportedSchema schema, ImportSchema(&s));
  for (int64_t n = 0;; ++n) {
    ArrowArray a{};
    rc = stream->get_next(stream, &a);
    if (rc != 0) {
      ReleaseOnExit<ArrowArray> release_array{&a};
      return StreamError(stream, rc, "get_next");
    }
    if (a.release == nullptr) return Status::OK();
    Result<RecordBatch> batch = ImportBatch(&a, schema);
    if (!batch.ok()) return batch.status().WithContext("batch " + std::to_string(n));
    TARN_RETURN_NOT_OK(fn(std::move(*batch)));
  }
}

}  // namespace tarn::arrow
