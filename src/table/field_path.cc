#include "table/field_path.h"

#include <utility>

#include "common/text.h"
#include "table/schema_json.h"

namespace tarn {

namespace {

// Depth-first through STRUCT members below `path` (whose field is a STRUCT or not).
template <typename Fn>
bool Walk(FieldPath* path, Fn&& fn) {
  if (path->field->type.id() != TypeId::kStruct) return false;
  const std::vector<Field>& members = path->field->type.children();
  const Field* parent = path->field;
  for (size_t i = 0; i < members.size(); ++i) {
    path->indices.push_back(static_cast<int>(i));
    path->names.push_back(members[i].name);
    path->field = &members[i];
    if (fn(*path) || Walk(path, fn)) return true;
    path->indices.pop_back();
    path->names.pop_back();
    path->field = parent;
  }
  return false;
}

FieldPath Top(const Schema& schema, size_t i) {
  FieldPath p;
  p.indices.push_back(static_cast<int>(i));
  p.names.push_back(schema.fields[i].name);
  p.field = &schema.fields[i];
  p.top_field_id = schema.fields[i].field_id;
  return p;
}

}  // namespace

std::string FieldPath::Text() const {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out.push_back('.');
    out += QuoteColumnName(names[i]);
  }
  return out;
}

std::optional<FieldPath> FindFieldPath(const Schema& schema, int32_t field_id) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    FieldPath p = Top(schema, i);
    if (p.field->field_id == field_id) return p;
    if (Walk(&p, [&](const FieldPath& at) { return at.field->field_id == field_id; })) return p;
  }
  return std::nullopt;
}

Result<FieldPath> ResolveFieldPath(const Schema& schema, const std::vector<std::string>& names) {
  if (names.empty()) return Status::InvalidArgument("an empty column name");
  // Names come from the caller (a request): what errors echo is cut at 200 bytes.
  auto dotted = [&](size_t upto) {
    std::string s;
    for (size_t i = 0; i <= upto && i < names.size() && s.size() <= 200; ++i) {
      if (i) s.push_back('.');
      s += QuoteColumnName(names[i].substr(0, 200));
    }
    return s.size() > 200 ? s.substr(0, 200) + "..." : s;
  };
  const int top = schema.FieldIndex(names[0]);
  if (top < 0) {
    return Status::InvalidArgument("unknown column " + dotted(0)).WithField("column", dotted(0));
  }
  FieldPath p = Top(schema, static_cast<size_t>(top));
  for (size_t level = 1; level < names.size(); ++level) {
    const DataType& t = p.field->type;
    if (t.id() != TypeId::kStruct) {
      return Status::InvalidArgument(dotted(level - 1) + " is " + t.ToString() +
                                     ", not a STRUCT: it has no member " +
                                     QuoteColumnName(names[level]))
          .WithField("column", dotted(names.size() - 1));
    }
    Schema members;
    members.fields = t.children();
    const int at = members.FieldIndex(names[level]);
    if (at < 0) {
      std::string known;
      for (const Field& m : t.children()) known += (known.empty() ? "" : ", ") + m.name;
      return Status::InvalidArgument("unknown member " + dotted(level) + " (" + dotted(level - 1) +
                                     " has " + known + ")")
          .WithField("column", dotted(names.size() - 1));
    }
    p.indices.push_back(at);
    p.names.push_back(t.children()[static_cast<size_t>(at)].name);
    p.field = &t.children()[static_cast<size_t>(at)];
  }
  return p;
}

Result<FieldPath> ResolveColumnOrMember(const Schema& schema, std::string_view text) {
  const int i = schema.FieldIndex(text);
  if (i >= 0) return Top(schema, static_cast<size_t>(i));
  return ResolveFieldPath(schema, SplitOn(text, '.'));
}

const Column& FieldPathColumn(const Column& top, const FieldPath& path, Column* scratch) {
  const Column* at = &top;
  // Rows where a struct around the member is null (empty: none is).
  ByteBuffer valid;
  for (size_t level = 1; level < path.indices.size(); ++level) {
    if (at->null_count() > 0) {
      if (valid.empty()) valid.assign(static_cast<size_t>(at->length), 1);
      for (size_t r = 0; r < valid.size(); ++r) valid[r] &= at->validity[r] != 0;
    }
    at = &at->members[static_cast<size_t>(path.indices[level])];
  }
  if (valid.empty()) return *at;
  *scratch = at->Clone();
  if (scratch->validity.empty()) scratch->validity.assign(static_cast<size_t>(scratch->length), 1);
  for (size_t r = 0; r < valid.size(); ++r) scratch->validity[r] &= valid[r];
  return *scratch;
}

Column TakeFieldPathColumn(Column top, const FieldPath& path) {
  Column scratch;
  const Column& values = FieldPathColumn(top, path, &scratch);
  if (&values == &scratch) return scratch;
  Column* at = &top;
  for (size_t level = 1; level < path.indices.size(); ++level) {
    at = &at->members[static_cast<size_t>(path.indices[level])];
  }
  return std::move(*at);
}

const Column* FindFieldColumn(const RecordBatch& batch, int32_t field_id, Column* scratch) {
  for (size_t i = 0; i < batch.schema.fields.size() && i < batch.columns.size(); ++i) {
    if (batch.schema.fields[i].field_id == field_id) return &batch.columns[i];
  }
  std::optional<FieldPath> p = FindFieldPath(batch.schema, field_id);
  if (!p || static_cast<size_t>(p->indices[0]) >= batch.columns.size()) return nullptr;
  return &FieldPathColumn(batch.columns[static_cast<size_t>(p->indices[0])], *p, scratch);
}

void ForEachStructMember(const Schema& schema, const std::function<void(const FieldPath&)>& fn) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    FieldPath p = Top(schema, i);
    Walk(&p, [&](const FieldPath& at) {
      fn(at);
      return false;
    });
  }
}

}  // namespace tarn
