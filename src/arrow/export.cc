// tarn -> Arrow: schemas, batches and pull streams.
//
// Every exported node (ArrowSchema or ArrowArray) owns its private data alone: the strings or
// buffers it points to and the structs of its children. Its release releases the children that
// are still there (a consumer that moved one out marked it released), then frees its own data;
// so parent and moved-out children can be released in any order, each exactly once. An array's
// private data holds the Column whose buffers it shares; a parent's Column has given its child
// and members to the children's nodes before it is kept.
#include <array>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "arrow/arrow_internal.h"

namespace tarn::arrow {
namespace {

// What empty buffers point to: some consumers take a NULL buffer for a missing one, and an
// offsets buffer of a zero-row column (one zero offset) is read even when tarn has none.
alignas(64) const uint8_t kZeros[64] = {};

const void* OrZeros(const void* p) { return p != nullptr ? p : kZeros; }

// ---- Schemas ----

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;  // never resized once child_ptrs point into it
  std::vector<ArrowSchema*> child_ptrs;
  ~SchemaPrivate() {
    for (ArrowSchema* c : child_ptrs) {
      if (c->release != nullptr) c->release(c);
    }
  }
};

void ReleaseSchema(ArrowSchema* s) {
  if (s == nullptr || s->release == nullptr) return;
  delete static_cast<SchemaPrivate*>(s->private_data);
  s->release = nullptr;
  s->private_data = nullptr;
}

// Fills `out` with a node of `n` children, each filled by fill(i, child). If `fill` throws, the
// children filled so far are released.
template <typename Fill>
void MakeSchema(ArrowSchema* out, std::string format, std::string name, std::string metadata,
                int64_t flags, size_t n, Fill&& fill) {
  auto p = std::make_unique<SchemaPrivate>();
  p->format = std::move(format);
  p->name = std::move(name);
  p->metadata = std::move(metadata);
  p->children.resize(n);  // value-initialized: release == NULL until filled
  for (ArrowSchema& c : p->children) p->child_ptrs.push_back(&c);
  for (size_t i = 0; i < n; ++i) fill(i, &p->children[i]);
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = p->metadata.empty() ? nullptr : p->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<int64_t>(n);
  out->children = n > 0 ? p->child_ptrs.data() : nullptr;
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = p.release();
}

std::string FieldMetadata(int32_t field_id, const ArrowTypeName& name) {
  Metadata md;
  if (field_id >= 0) md.emplace_back(kFieldIdKey, std::to_string(field_id));
  if (!name.extension.empty()) {
    md.emplace_back(kExtensionNameKey, name.extension);
    md.emplace_back(kExtensionMetadataKey, "");
  }
  if (!name.tarn_type.empty()) md.emplace_back(kTarnTypeKey, name.tarn_type);
  return EncodeMetadata(md);
}

void ExportField(const Field& f, ArrowSchema* out) {
  ArrowTypeName n = ArrowTypeOf(f.type);
  std::string md = FieldMetadata(f.field_id, n);
  const int64_t flags = f.nullable ? ARROW_FLAG_NULLABLE : 0;
  const DataType& t = f.type;
  switch (t.id()) {
    case TypeId::kArray:
    case TypeId::kStruct:
      MakeSchema(out, std::move(n.format), f.name, std::move(md), flags, t.children().size(),
                 [&](size_t i, ArrowSchema* c) { ExportField(t.children()[i], c); });
      break;
    case TypeId::kMap:
      // One non-nullable struct child "entries" of key and value; keys are not sorted.
      MakeSchema(out, std::move(n.format), f.name, std::move(md), flags, 1,
                 [&](size_t, ArrowSchema* entries) {
                   MakeSchema(entries, "+s", "entries", "", 0, 2, [&](size_t i, ArrowSchema* c) {
                     ExportField(i == 0 ? t.key_field() : t.value_field(), c);
                   });
                 });
      break;
    case TypeId::kVariant:
      // The canonical storage: metadata (non-nullable) and value, binaries.
      MakeSchema(out, std::move(n.format), f.name, std::move(md), flags, 2,
                 [&](size_t i, ArrowSchema* c) {
                   const std::string format = ArrowTypeOf(DataType::Blob()).format;
                   MakeSchema(c, format, i == 0 ? "metadata" : "value", "",
                              i == 0 ? 0 : ARROW_FLAG_NULLABLE, 0, [](size_t, ArrowSchema*) {});
                 });
      break;
    default:
      MakeSchema(out, std::move(n.format), f.name, std::move(md), flags, 0,
                 [](size_t, ArrowSchema*) {});
      break;
  }
}

// ---- Arrays ----

struct ArrayPrivate {
  Column column;                   // the tarn buffers shared: values, bytes, int64 offsets
  std::vector<uint8_t> validity;   // the validity bitmap (empty: no nulls, buffer NULL)
  std::vector<uint8_t> values;     // BOOLEAN's values bitmap
  std::vector<int32_t> offsets32;  // MAP's offsets
  std::array<const void*, 3> buffers{};
  std::vector<ArrowArray> children;  // never resized once child_ptrs point into it
  std::vector<ArrowArray*> child_ptrs;
  ~ArrayPrivate() {
    for (ArrowArray* c : child_ptrs) {
      if (c->release != nullptr) c->release(c);
    }
  }
  void SetChildren(size_t n) {
    children.resize(n);  // value-initialized: release == NULL until exported
    for (ArrowArray& c : children) child_ptrs.push_back(&c);
  }
};

void ReleaseArray(ArrowArray* a) {
  if (a == nullptr || a->release == nullptr) return;
  delete static_cast<ArrayPrivate*>(a->private_data);
  a->release = nullptr;
  a->private_data = nullptr;
}

void Publish(std::unique_ptr<ArrayPrivate> p, int64_t length, int64_t null_count, int n_buffers,
             ArrowArray* out) {
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = n_buffers;
  out->n_children = static_cast<int64_t>(p->children.size());
  out->buffers = p->buffers.data();
  out->children = p->children.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = p.release();
}

// LSB-first bits of `n` bytes (non-zero = 1).
std::vector<uint8_t> Bitmap(const uint8_t* bytes, int64_t n) {
  std::vector<uint8_t> bits(static_cast<size_t>((n + 7) / 8), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return bits;
}

Status Malformed(std::string_view path, const std::string& what) {
  return Status::InvalidArgument("exporting column " + std::string(path) +
                                 ": malformed column: " + what);
}

// The checks that keep the exported buffers inside the Column's: sizes against `length`, child
// and member shapes. An ARRAY's or MAP's child is checked when it is exported.
Status CheckShape(const Column& c, std::string_view path) {
  const std::string len = std::to_string(c.length);
  if (c.length < 0) return Malformed(path, "a negative length");
  if (!c.validity.empty() && static_cast<int64_t>(c.validity.size()) != c.length) {
    return Malformed(path,
                     std::to_string(c.validity.size()) + " validity bytes for " + len + " rows");
  }
  const DataType& t = c.type;
  auto check_members = [&](const std::vector<Field>& fields) -> Status {
    if (c.members.size() != fields.size()) {
      return Malformed(path, std::to_string(c.members.size()) + " member columns for " +
                                 std::to_string(fields.size()) + " fields");
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (c.members[i].type != fields[i].type) {
        return Malformed(path, "member " + fields[i].name + " is a " +
                                   c.members[i].type.ToString() + " column, not " +
                                   fields[i].type.ToString());
      }
    }
    return Status::OK();
  };
  // The end of the last row's range (a zero-row column may have no offsets at all).
  const int64_t last = c.offsets.empty() ? 0 : c.offsets.back();
  if ((t.is_variable_width() || t.is_repeated()) && !(c.offsets.empty() && c.length == 0)) {
    if (static_cast<int64_t>(c.offsets.size()) != c.length + 1) {
      return Malformed(path, std::to_string(c.offsets.size()) + " offsets for " + len + " rows");
    }
    if (c.offsets.front() < 0 || c.offsets.back() < c.offsets.front()) {
      return Malformed(path, "offsets out of order");
    }
  }
  if (t.is_variable_width()) {
    if (last > static_cast<int64_t>(c.data.size())) {
      return Malformed(path, "offsets past the end of the bytes");
    }
    return Status::OK();
  }
  switch (t.id()) {
    case TypeId::kArray:
      if (c.child == nullptr) return Malformed(path, "no element column");
      if (c.child->type != t.element()) return Malformed(path, "an element column of another type");
      if (last > c.child->length) return Malformed(path, "offsets past the elements");
      return Status::OK();
    case TypeId::kMap:
      TARN_RETURN_NOT_OK(check_members(t.children()));
      if (c.members[0].length != c.members[1].length) {
        return Malformed(path, "keys and values of different lengths");
      }
      if (last > c.members[0].length) return Malformed(path, "offsets past the entries");
      return Status::OK();
    case TypeId::kStruct:
    case TypeId::kVariant: {
      static const std::vector<Field> kVariantMembers = {{"metadata", DataType::Blob()},
                                                         {"value", DataType::Blob()}};
      TARN_RETURN_NOT_OK(check_members(t.id() == TypeId::kStruct ? t.children() : kVariantMembers));
      for (const Column& m : c.members) {
        if (m.length < c.length) return Malformed(path, "a member shorter than the column");
      }
      return Status::OK();
    }
    default: {
      const int64_t need = c.length * t.PhysicalWidth();
      if (static_cast<int64_t>(c.data.size()) < need) {
        return Malformed(path, std::to_string(c.data.size()) + " value bytes for " + len +
                                   " rows of " + t.ToString());
      }
      return Status::OK();
    }
  }
}

Status ExportColumn(Column col, const std::string& path, ArrowArray* out);

// A struct array without nulls of `members` (the batch's columns, a map's entries).
Status ExportStruct(std::vector<Column> members, const std::vector<std::string>& paths,
                    int64_t length, ArrowArray* out) {
  auto p = std::make_unique<ArrayPrivate>();
  p->SetChildren(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    TARN_RETURN_NOT_OK(ExportColumn(std::move(members[i]), paths[i], &p->children[i]));
  }
  Publish(std::move(p), length, 0, 1, out);
  return Status::OK();
}

Status ExportColumn(Column col, const std::string& path, ArrowArray* out) {
  out->release = nullptr;
  const DataType type = col.type;
  if (type.id() == TypeId::kMap && !col.offsets.empty() && col.offsets.back() > INT32_MAX) {
    return Status::InvalidArgument("exporting column " + path + ": a MAP of " +
                                   std::to_string(col.offsets.back()) +
                                   " entries: Arrow's map offsets are int32 (at most 2147483647)");
  }
  TARN_RETURN_NOT_OK(CheckShape(col, path));
  if ((type.is_variable_width() || type.is_repeated()) && !col.offsets.empty() &&
      col.offsets.front() != 0) {
    // Offsets that do not start at 0 (not a column built by appending): rebase them, and the
    // values they cover, so the exported offsets start at 0.
    Column rebased(type);
    rebased.AppendRows(col, 0, col.length);
    col = std::move(rebased);
  }
  auto p = std::make_unique<ArrayPrivate>();
  int64_t nulls = 0;
  for (uint8_t v : col.validity) nulls += v == 0;
  if (nulls > 0) p->validity = Bitmap(col.validity.data(), col.length);
  p->buffers[0] = nulls > 0 ? p->validity.data() : nullptr;
  const int64_t length = col.length;
  std::unique_ptr<Column> child = std::move(col.child);
  std::vector<Column> members = std::move(col.members);
  p->column = std::move(col);
  const Column& c = p->column;
  int n_buffers = 2;
  switch (type.id()) {
    case TypeId::kBoolean:
      p->values = Bitmap(c.data.data(), length);
      p->buffers[1] = OrZeros(p->values.data());
      break;
    case TypeId::kArray:
      p->buffers[1] = OrZeros(c.offsets.data());
      p->SetChildren(1);
      TARN_RETURN_NOT_OK(ExportColumn(std::move(*child), path + ".element", &p->children[0]));
      break;
    case TypeId::kMap: {
      p->offsets32.assign(c.offsets.begin(), c.offsets.end());
      if (p->offsets32.empty()) p->offsets32.push_back(0);
      p->buffers[1] = p->offsets32.data();
      p->SetChildren(1);
      const int64_t entries = members[0].length;
      TARN_RETURN_NOT_OK(ExportStruct(std::move(members), {path + ".key", path + ".value"}, entries,
                                      &p->children[0]));
      break;
    }
    case TypeId::kStruct:
    case TypeId::kVariant: {
      n_buffers = 1;
      std::vector<std::string> paths;
      if (type.id() == TypeId::kStruct) {
        for (const Field& f : type.children()) paths.push_back(path + "." + f.name);
      } else {
        paths = {path + ".metadata", path + ".value"};
      }
      p->SetChildren(members.size());
      for (size_t i = 0; i < members.size(); ++i) {
        TARN_RETURN_NOT_OK(ExportColumn(std::move(members[i]), paths[i], &p->children[i]));
      }
      break;
    }
    default:
      if (type.is_variable_width()) {
        n_buffers = 3;
        p->buffers[1] = OrZeros(c.offsets.data());
        p->buffers[2] = OrZeros(c.data.data());
      } else {
        p->buffers[1] = OrZeros(c.data.data());
      }
      break;
  }
  Publish(std::move(p), length, nulls, n_buffers, out);
  return Status::OK();
}

// Whether `columns` have the types of `fields` and `rows` rows.
Status CheckColumns(const std::vector<Column>& columns, const Schema& schema, int64_t rows) {
  if (columns.size() != schema.fields.size()) {
    return Status::InvalidArgument("a batch of " + std::to_string(columns.size()) +
                                   " columns for a schema of " +
                                   std::to_string(schema.fields.size()) + " fields");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = schema.fields[i];
    if (columns[i].type != f.type) {
      return Status::InvalidArgument("column " + f.name + " is a " + columns[i].type.ToString() +
                                     " column; the schema says " + f.type.ToString());
    }
    if (columns[i].length != rows) {
      return Status::InvalidArgument("column " + f.name + " has " +
                                     std::to_string(columns[i].length) + " rows, the batch " +
                                     std::to_string(rows));
    }
  }
  return Status::OK();
}

// ---- Streams ----

struct StreamPrivate {
  std::function<Result<std::optional<RecordBatch>>()> next;
  Schema schema;
  int error_code = 0;  // once set, every get_next returns it
  std::string error;   // get_last_error's text
  bool done = false;
  int64_t batches = 0;
};

StreamPrivate* PrivateOf(ArrowArrayStream* s) {
  return static_cast<StreamPrivate*>(s->private_data);
}

int Fail(StreamPrivate* p, int code, std::string text) noexcept {
  p->error_code = code;
  try {
    p->error = std::move(text);
  } catch (...) {
    p->error.clear();  // get_last_error gives NULL rather than a wrong text
  }
  return code;
}

int StreamGetSchema(ArrowArrayStream* s, ArrowSchema* out) noexcept {
  StreamPrivate* p = PrivateOf(s);
  out->release = nullptr;
  try {
    Status st = ExportSchema(p->schema, out);
    if (!st.ok()) return Fail(p, EIO, st.ToString());
    return 0;
  } catch (const std::bad_alloc&) {
    return Fail(p, ENOMEM, "out of memory exporting the schema");
  } catch (...) {
    return Fail(p, EIO, "an exception exporting the schema");
  }
}

int StreamGetNext(ArrowArrayStream* s, ArrowArray* out) noexcept {
  StreamPrivate* p = PrivateOf(s);
  out->release = nullptr;  // the end of the stream, unless a batch follows
  if (p->error_code != 0) return p->error_code;
  if (p->done) return 0;
  try {
    Result<std::optional<RecordBatch>> r = p->next();
    if (!r.ok()) return Fail(p, EIO, r.status().ToString());
    if (!r->has_value()) {
      p->done = true;
      p->next = nullptr;  // the producer's resources go now, not at release
      return 0;
    }
    RecordBatch batch = std::move(**r);
    Status st = CheckColumns(batch.columns, p->schema, batch.num_rows);
    if (!st.ok()) {
      return Fail(
          p, EIO,
          st.WithContext("batch " + std::to_string(p->batches) + " of the stream").ToString());
    }
    batch.schema = p->schema;
    st = ExportBatch(std::move(batch), out);
    if (!st.ok()) return Fail(p, EIO, st.ToString());
    ++p->batches;
    return 0;
  } catch (const std::bad_alloc&) {
    return Fail(p, ENOMEM, "out of memory reading the next batch");
  } catch (...) {
    return Fail(p, EIO, "an exception reading the next batch");
  }
}

const char* StreamLastError(ArrowArrayStream* s) noexcept {
  StreamPrivate* p = PrivateOf(s);
  return p->error.empty() ? nullptr : p->error.c_str();
}

void StreamRelease(ArrowArrayStream* s) noexcept {
  if (s == nullptr || s->release == nullptr) return;
  delete PrivateOf(s);
  s->release = nullptr;
  s->private_data = nullptr;
}

}  // namespace

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  out->release = nullptr;
  MakeSchema(out, "+s", "", "", 0, schema.fields.size(),
             [&](size_t i, ArrowSchema* c) { ExportField(schema.fields[i], c); });
  return Status::OK();
}

Status ExportBatch(RecordBatch batch, ArrowArray* out) {
  out->release = nullptr;
  TARN_RETURN_NOT_OK(CheckColumns(batch.columns, batch.schema, batch.num_rows));
  std::vector<std::string> paths;
  for (const Field& f : batch.schema.fields) paths.push_back(f.name);
  return ExportStruct(std::move(batch.columns), paths, batch.num_rows, out);
}

Status ExportStream(std::function<Result<std::optional<RecordBatch>>()> next, Schema schema,
                    ArrowArrayStream* out) {
  out->release = nullptr;
  if (!next) return Status::InvalidArgument("exporting an Arrow stream without a producer");
  auto p = std::make_unique<StreamPrivate>();
  p->next = std::move(next);
  p->schema = std::move(schema);
  out->get_schema = StreamGetSchema;
  out->get_next = StreamGetNext;
  out->get_last_error = StreamLastError;
  out->release = StreamRelease;
  out->private_data = p.release();
  return Status::OK();
}

}  // namespace tarn::arrow
