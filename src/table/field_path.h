// Fields inside STRUCT columns: named by dotted paths (`payload.user.id`) in predicates and
// partition specs, found by field id in schemas and batches. One place for the rule.
//
// Only STRUCT members are addressed below the top level: an ARRAY element or a MAP key or value
// is not one value per row. A member's value in a row is null when the member is null or any
// struct around it is (what Parquet's definition levels and Iceberg's null counts say too).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

struct FieldPath {
  std::vector<int> indices;       // the top-level field's index, then member indices
  std::vector<std::string> names;  // the names along the path, as the schema spells them
  const Field* field = nullptr;    // the field named (top-level or member); points into the schema
  bool nested() const { return indices.size() > 1; }
  int32_t top_field_id = -1;  // the id of the top-level field it lies in
  // "payload.user.id", each name quoted as the text syntaxes read it back when needed.
  std::string Text() const;
};

// The top-level field or STRUCT member (reached through STRUCTs only) with `field_id`; nullopt
// when there is none.
std::optional<FieldPath> FindFieldPath(const Schema& schema, int32_t field_id);

// Resolves `names` (top-level column, then members): each level by exact name, else by its one
// case-insensitive match (Schema::FieldIndex). Errors: kInvalidArgument with field column= the
// dotted text: an unknown column or member (naming the members there are), or a member of a
// field that is no STRUCT.
Result<FieldPath> ResolveFieldPath(const Schema& schema, const std::vector<std::string>& names);

// A top-level column by its name (Schema::FieldIndex, so a column name is never cut at dots),
// else a STRUCT member by its dotted path, "payload.user.id" (ResolveFieldPath's rules and
// errors). No quoting: a member whose name holds a dot cannot be named so.
Result<FieldPath> ResolveColumnOrMember(const Schema& schema, std::string_view text);

// The values of the field at `path` for every row of `top` (the batch column of
// path.indices[0]): the member's column as is when no struct around it has a null row, else a
// copy in *scratch with those rows null.
const Column& FieldPathColumn(const Column& top, const FieldPath& path, Column* scratch);

// FieldPathColumn for a column the caller gives up: the member is moved out of it.
Column TakeFieldPathColumn(Column top, const FieldPath& path);

// The column of field `field_id` (top-level or STRUCT member) in `batch`, found by the batch
// schema's ids: a top-level column as is, a member's through FieldPathColumn into *scratch.
// nullptr when the batch has no such field.
const Column* FindFieldColumn(const RecordBatch& batch, int32_t field_id, Column* scratch);

// Every STRUCT member of `schema` reachable through STRUCTs only, depth-first in schema order
// (top-level fields are not visited).
void ForEachStructMember(const Schema& schema, const std::function<void(const FieldPath&)>& fn);

}  // namespace tarn
