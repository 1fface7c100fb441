// Datasets (C3): create, load, list, rename, drop, properties; schema, partition spec and sort
// order evolution (C6, C7).
#include <algorithm>
#include <cctype>
#include <functional>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "catalog/inlined.h"
#include "catalog/store.h"
#include "common/random.h"
#include "common/text.h"
#include "iceberg/schema.h"
#include "metastore/metastore.h"
#include "parquet/bloom_filter.h"
#include "table/field_path.h"
#include "table/schema_json.h"
#include "types/cast.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

// STRUCT member names follow the column name rule, so a dotted path (`payload.status`) names
// one nested field.
Status ValidateMemberNames(const std::string& column, const DataType& type) {
  Status st = Status::OK();
  auto check = [&](const DataType& t) {
    if (t.id() != TypeId::kStruct || !st.ok()) return;
    for (const Field& m : t.children()) {
      Status valid = ValidateColumnName(m.name);
      if (!valid.ok()) st = valid.WithContext("column '" + column + "'");
    }
  };
  check(type);
  ForEachNestedField(type, [&](const Field& f) { check(f.type); });
  return st;
}

// A VARIANT is a top-level column only (types/data_type.h): Parquet's VARIANT group holds its
// own two leaves, and type text already refuses it below ARRAY, STRUCT or MAP.
Status RefuseNestedVariant(const std::string& column, const DataType& type) {
  Status st = Status::OK();
  ForEachNestedField(type, [&](const Field& f) {
    if (st.ok() && f.type.id() == TypeId::kVariant) {
      st = Status::InvalidArgument("column '" + column + "': VARIANT is only allowed as a " +
                                   "top-level column type (member '" + f.name + "')")
               .WithField("column", column);
    }
  });
  return st;
}

Status ValidateSchema(const Schema& schema) {
  if (schema.fields.empty()) return Status::InvalidArgument("a dataset needs at least one column");
  for (const Field& f : schema.fields) {
    TARN_RETURN_NOT_OK(ValidateColumnName(f.name));
    TARN_RETURN_NOT_OK(ValidateMemberNames(f.name, f.type));
    TARN_RETURN_NOT_OK(RefuseNestedVariant(f.name, f.type));
  }
  return Status::OK();
}

Status CheckReadSnapshot(const DatasetInfo& ds, std::optional<int64_t> read_snapshot_id) {
  if (!read_snapshot_id) return Status::OK();
  int64_t current = ds.current_snapshot_id.value_or(0);
  if (current == *read_snapshot_id) return Status::OK();
  return Status::Of(codes::kCommitConflict, "dataset '" + ds.name.ToString() +
                                                "' changed since snapshot " +
                                                std::to_string(*read_snapshot_id) + " (now at " +
                                                std::to_string(current) + "); reload and retry")
      .WithField("dataset", ds.name.ToString())
      .WithField("current_snapshot_id", std::to_string(current));
}

bool PartitionUses(const PartitionSpec& spec, int32_t field_id) {
  for (const auto& pf : spec.fields) {
    if (pf.source_id == field_id) return true;
  }
  return false;
}

bool SortUses(const SortOrder& order, int32_t field_id) {
  for (const auto& sf : order.fields) {
    if (sf.field_id == field_id) return true;
  }
  return false;
}

// True when `field_id` or a nested field below `type` is a partition or sort source.
bool SubtreeUsed(const DatasetInfo& ds, int32_t field_id, const DataType& type) {
  bool used = PartitionUses(ds.spec, field_id) || SortUses(ds.sort_order, field_id);
  ForEachNestedField(type, [&](const Field& f) {
    used = used || PartitionUses(ds.spec, f.field_id) || SortUses(ds.sort_order, f.field_id);
  });
  return used;
}

// Index of the nested field named `name` among `parent`'s (STRUCT members case-insensitively
// like columns; "element", "key", "value" for ARRAY and MAP); -1 when absent.
int ChildIndex(const DataType& parent, std::string_view name) {
  Schema members;
  members.fields = parent.children();
  return members.FieldIndex(name);
}

// `parent` with other nested fields (a STRUCT may gain or lose members).
DataType Rebuilt(const DataType& parent, std::vector<Field> children) {
  if (parent.id() == TypeId::kStruct) return DataType::Struct(std::move(children));
  return parent.WithChildren(std::move(children));
}

// A change to a nested field named by a dotted path: `payload.status`, `items.element.sku`,
// `attrs.value.unit`. The last step is edited within its parent's nested fields.
Status ApplyNestedChange(const DatasetInfo& ds, const SchemaChange& ch, Schema* schema,
                         int32_t* last_field_id) {
  std::vector<std::string> path;
  for (size_t start = 0;;) {
    size_t dot = ch.column.find('.', start);
    path.push_back(ch.column.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const std::string& leaf = path.back();
  auto missing = [&](const std::string& what) {
    return Status::Of(codes::kColumnNotFound, "column '" + ch.column + "' does not exist in '" +
                                                  ds.name.ToString() + "': no " + what)
        .WithField("column", ch.column);
  };
  auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument("cannot change '" + ch.column + "': " + why)
        .WithField("column", ch.column);
  };
  const int top = schema->FieldIndex(path[0]);
  if (top < 0) return missing("column '" + path[0] + "'");

  // Edits `siblings` (the nested fields of `parent`, which holds the last step).
  auto edit = [&](const DataType& parent, std::vector<Field>* siblings) -> Status {
    const bool is_struct = parent.id() == TypeId::kStruct;
    const int at = ChildIndex(parent, leaf);
    auto place = [&](Field f) -> Status {
      if (ch.first) {
        siblings->insert(siblings->begin(), std::move(f));
      } else if (ch.after) {
        Schema s;
        s.fields = *siblings;
        int after = s.FieldIndex(*ch.after);
        if (after < 0) return missing("member '" + *ch.after + "' beside it");
        siblings->insert(siblings->begin() + after + 1, std::move(f));
      } else {
        siblings->push_back(std::move(f));
      }
      return Status::OK();
    };
    if (ch.kind == SchemaChange::Kind::kAddColumn) {
      if (!is_struct) return refuse("only a STRUCT takes new members");
      TARN_RETURN_NOT_OK(ValidateColumnName(leaf));
      if (at >= 0) {
        return Status::AlreadyExists("column '" + ch.column + "' already exists")
            .WithField("column", ch.column);
      }
      if (!ch.type) return refuse("an added member needs a type");
      if (ch.type->id() == TypeId::kVariant) {
        return refuse("VARIANT is only allowed as a top-level column type");
      }
      TARN_RETURN_NOT_OK(ValidateMemberNames(ch.column, *ch.type));
      TARN_RETURN_NOT_OK(RefuseNestedVariant(ch.column, *ch.type));
      if (!ch.nullable) return refuse("an added member must be nullable: existing rows have none");
      Field f;
      f.name = leaf;
      f.nullable = true;
      if (*last_field_id == INT32_MAX) return Status::InvalidArgument("field ids exhausted");
      f.field_id = ++*last_field_id;
      TARN_ASSIGN_OR_RETURN(f.type, AssignNestedIds(ClearNestedIds(*ch.type), last_field_id));
      return place(std::move(f));
    }
    if (at < 0) return missing("nested field '" + leaf + "'");
    Field& target = (*siblings)[at];
    switch (ch.kind) {
      case SchemaChange::Kind::kDropColumn:
        if (!is_struct) return refuse("only STRUCT members can be dropped");
        if (siblings->size() == 1) return refuse("a STRUCT keeps at least one member");
        if (SubtreeUsed(ds, target.field_id, target.type)) {
          return Status::FailedPrecondition("'" + ch.column +
                                            "' is a partition or sort source; change the "
                                            "partition spec or sort order first")
              .WithField("column", ch.column);
        }
        siblings->erase(siblings->begin() + at);
        return Status::OK();
      case SchemaChange::Kind::kRenameColumn: {
        if (!is_struct) return refuse("only STRUCT members can be renamed");
        TARN_RETURN_NOT_OK(ValidateColumnName(ch.new_name));
        const int other = ChildIndex(parent, ch.new_name);
        if (other >= 0 && other != at) {
          return Status::AlreadyExists("member '" + ch.new_name + "' already exists")
              .WithField("column", ch.column);
        }
        target.name = ch.new_name;
        return Status::OK();
      }
      case SchemaChange::Kind::kPromoteColumn: {
        if (!ch.type) return refuse("promote needs a type");
        if (target.type == *ch.type) return Status::OK();
        if (!IsLosslessWidening(target.type, *ch.type)) {
          return Status::Of(codes::kPromotionNotLossless,
                            "cannot promote '" + ch.column + "' from " + target.type.ToString() +
                                " to " + ch.type->ToString() +
                                ": only lossless widenings are allowed")
              .WithField("column", ch.column);
        }
        if (PartitionUses(ds.spec, target.field_id)) {
          return Status::FailedPrecondition("'" + ch.column +
                                            "' is a partition source; its type cannot change")
              .WithField("column", ch.column);
        }
        // A widening keeps the shape, so the nested ids carry over.
        target.type = WithNestedFieldsOf(*ch.type, target.type);
        return Status::OK();
      }
      case SchemaChange::Kind::kMoveColumn: {
        if (!is_struct) return refuse("only STRUCT members can move");
        if (ch.after && ChildIndex(parent, *ch.after) == at) {
          return Status::InvalidArgument("cannot move a column after itself");
        }
        Field f = std::move(target);
        siblings->erase(siblings->begin() + at);
        return place(std::move(f));
      }
      case SchemaChange::Kind::kSetNullable:
        if (!ch.nullable) {
          return Status::InvalidArgument(
                     "a column cannot become NOT NULL: existing rows may hold nulls")
              .WithField("column", ch.column);
        }
        if (parent.id() == TypeId::kMap && at == 0) return refuse("a MAP key is never null");
        target.nullable = true;
        return Status::OK();
      case SchemaChange::Kind::kAddColumn:
        break;
    }
    return Status::Internal("unknown schema change");
  };

  // Walks down to the parent of the last step, then rebuilds the types on the way up.
  std::function<Status(DataType*, size_t)> descend = [&](DataType* type, size_t step) -> Status {
    if (!type->is_nested()) {
      return missing("nested field '" + path[step] + "' (" + path[step - 1] + " is " +
                     type->ToString() + ")");
    }
    std::vector<Field> children = type->children();
    if (step + 1 == path.size()) {
      TARN_RETURN_NOT_OK(edit(*type, &children));
    } else {
      const int at = ChildIndex(*type, path[step]);
      if (at < 0) return missing("nested field '" + path[step] + "'");
      TARN_RETURN_NOT_OK(descend(&children[at].type, step + 1));
    }
    *type = Rebuilt(*type, std::move(children));
    return Status::OK();
  };
  DataType type = schema->fields[top].type;
  TARN_RETURN_NOT_OK(descend(&type, 1));
  schema->fields[top].type = std::move(type);
  return Status::OK();
}

// Applies one change to `schema` (the dataset's current one in `ds`, being edited).
Status ApplyChange(const DatasetInfo& ds, const SchemaChange& ch, Schema* schema,
                   int32_t* last_field_id) {
  if (ch.column.find('.') != std::string::npos) {
    return ApplyNestedChange(ds, ch, schema, last_field_id);
  }
  int idx = schema->FieldIndex(ch.column);
  auto missing = [&] {
    return Status::Of(codes::kColumnNotFound,
                      "column '" + ch.column + "' does not exist in '" + ds.name.ToString() + "'")
        .WithField("column", ch.column);
  };
  auto place = [&](Field f) -> Status {
    if (ch.first) {
      schema->fields.insert(schema->fields.begin(), std::move(f));
    } else if (ch.after) {
      int at = schema->FieldIndex(*ch.after);
      if (at < 0) {
        return Status::InvalidArgument("column '" + *ch.after + "' does not exist")
            .WithField("column", *ch.after);
      }
      schema->fields.insert(schema->fields.begin() + at + 1, std::move(f));
    } else {
      schema->fields.push_back(std::move(f));
    }
    return Status::OK();
  };
  switch (ch.kind) {
    case SchemaChange::Kind::kAddColumn: {
      TARN_RETURN_NOT_OK(ValidateColumnName(ch.column));
      if (idx >= 0) {
        return Status::AlreadyExists("column '" + ch.column + "' already exists")
            .WithField("column", ch.column);
      }
      if (!ch.type) return Status::InvalidArgument("add column '" + ch.column + "' needs a type");
      if (!ch.nullable) {
        return Status::InvalidArgument(
                   "an added column must be nullable: existing rows have no "
                   "value for '" +
                   ch.column + "'")
            .WithField("column", ch.column);
      }
      Field f;
      f.name = ch.column;
      f.type = *ch.type;
      f.nullable = true;
      Schema one;
      one.fields.push_back(std::move(f));
      TARN_RETURN_NOT_OK(AssignFieldIds(&one, last_field_id));
      return place(std::move(one.fields[0]));
    }
    case SchemaChange::Kind::kDropColumn: {
      if (idx < 0) return missing();
      int32_t id = schema->fields[idx].field_id;
      if (PartitionUses(ds.spec, id)) {
        return Status::FailedPrecondition("column '" + ch.column +
                                          "' is a partition source; change the partition spec "
                                          "first")
            .WithField("column", ch.column);
      }
      if (SortUses(ds.sort_order, id)) {
        return Status::FailedPrecondition("column '" + ch.column +
                                          "' is in the sort order; change the sort order first")
            .WithField("column", ch.column);
      }
      if (schema->fields.size() == 1) {
        return Status::FailedPrecondition("cannot drop the last column of a dataset");
      }
      schema->fields.erase(schema->fields.begin() + idx);
      return Status::OK();
    }
    case SchemaChange::Kind::kRenameColumn: {
      if (idx < 0) return missing();
      TARN_RETURN_NOT_OK(ValidateColumnName(ch.new_name));
      if (schema->FieldIndex(ch.new_name) >= 0) {
        return Status::AlreadyExists("column '" + ch.new_name + "' already exists")
            .WithField("column", ch.new_name);
      }
      schema->fields[idx].name = ch.new_name;
      return Status::OK();
    }
    case SchemaChange::Kind::kPromoteColumn: {
      if (idx < 0) return missing();
      if (!ch.type) return Status::InvalidArgument("promote '" + ch.column + "' needs a type");
      const DataType& from = schema->fields[idx].type;
      if (from == *ch.type) return Status::OK();
      if (!IsLosslessWidening(from, *ch.type)) {
        return Status::Of(codes::kPromotionNotLossless,
                          "cannot promote '" + ch.column + "' from " + from.ToString() + " to " +
                              ch.type->ToString() + ": only lossless widenings are allowed")
            .WithField("column", ch.column);
      }
      if (PartitionUses(ds.spec, schema->fields[idx].field_id)) {
        return Status::FailedPrecondition("column '" + ch.column +
                                          "' is a partition source; its type cannot change")
            .WithField("column", ch.column);
      }
      // A widening keeps the shape, so the nested ids (an ARRAY's element id) carry over.
      schema->fields[idx].type = WithNestedFieldsOf(*ch.type, schema->fields[idx].type);
      return Status::OK();
    }
    case SchemaChange::Kind::kMoveColumn: {
      if (idx < 0) return missing();
      if (ch.after && *ch.after == ch.column) {
        return Status::InvalidArgument("cannot move a column after itself");
      }
      Field f = std::move(schema->fields[idx]);
      schema->fields.erase(schema->fields.begin() + idx);
      return place(std::move(f));
    }
    case SchemaChange::Kind::kSetNullable: {
      if (idx < 0) return missing();
      if (!ch.nullable) {
        return Status::InvalidArgument(
                   "a column cannot become NOT NULL: existing rows may hold "
                   "nulls")
            .WithField("column", ch.column);
      }
      schema->fields[idx].nullable = true;
      return Status::OK();
    }
  }
  return Status::Internal("unknown schema change");
}

}  // namespace

namespace {

// The names a column list property holds: comma-separated, spaces around them ignored, empty
// entries dropped.
std::vector<std::string> ColumnList(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string& part : SplitOn(text, ',')) {
    const std::string_view name = TrimSpace(part);
    if (!name.empty()) out.emplace_back(name);
  }
  return out;
}

// The schema's spelling of a path, dotted and unquoted (what the Parquet writer resolves again;
// FieldPath::Text quotes names for the predicate syntax).
std::string DottedName(const FieldPath& path) {
  std::string out;
  for (const std::string& n : path.names) out += (out.empty() ? "" : ".") + n;
  return out;
}

}  // namespace

std::vector<std::string> BloomFilterColumns(const PropertyMap& properties, const Schema& schema) {
  std::vector<std::string> out;
  auto it = properties.find(kBloomFilterColumnsProperty);
  if (it == properties.end()) return out;
  for (const std::string& name : ColumnList(it->second)) {
    Result<FieldPath> path = ResolveColumnOrMember(schema, name);
    if (!path.ok() || !parquet::BloomFilterSupports(path->field->type)) continue;
    std::string dotted = DottedName(*path);
    if (std::find(out.begin(), out.end(), dotted) == out.end()) out.push_back(std::move(dotted));
  }
  return out;
}

std::vector<int32_t> catalog_internal::BloomFilterFieldIds(const PropertyMap& properties,
                                                           const Schema& schema) {
  std::vector<int32_t> out;
  for (const std::string& name : BloomFilterColumns(properties, schema)) {
    out.push_back(ResolveColumnOrMember(schema, name)->field->field_id);
  }
  return out;
}

namespace {

// invalid_property (field property) unless every name of the column list property `key` of
// `props` (when set) resolves in `schema` to a field `supports` accepts; `what` says which do.
Status ValidateColumnListSetting(const PropertyMap& props, const char* key, const Schema& schema,
                                 bool (*supports)(const DataType&), const char* what) {
  auto it = props.find(key);
  if (it == props.end()) return Status::OK();
  auto bad = [&](const std::string& why) {
    return Status::Of(codes::kInvalidProperty,
                      "property " + std::string(key) + " is '" + it->second.substr(0, 200) +
                          "': " + why)
        .WithField("property", key);
  };
  for (const std::string& name : ColumnList(it->second)) {
    Result<FieldPath> path = ResolveColumnOrMember(schema, name);
    if (!path.ok()) {
      if (name.find('.') == std::string::npos)
        return bad("no column '" + name.substr(0, 200) + "'");
      return bad(path.status().message());
    }
    if (!supports(path->field->type)) {
      return bad((path->nested() ? "member '" : "column '") + DottedName(*path) + "' is " +
                 path->field->type.ToString() + "; " + what);
    }
  }
  return Status::OK();
}

}  // namespace

Status catalog_internal::ValidateBloomFilterSetting(const PropertyMap& props,
                                                    const Schema& schema) {
  return ValidateColumnListSetting(
      props, kBloomFilterColumnsProperty, schema,
      [](const DataType& t) { return parquet::BloomFilterSupports(t); },
      "bloom filters are for flat columns and STRUCT members other than BOOLEAN");
}

namespace {

// What the bounds index can hold: scalar fields (points of table/bounds_index.h).
bool BoundsIndexSupports(const DataType& type) {
  return !type.is_nested() && type.id() != TypeId::kVariant;
}

// The field ids of the property's names that `schema` holds as fields the index supports.
std::vector<int32_t> BoundsIndexFieldIds(const PropertyMap& properties, const Schema& schema) {
  std::vector<int32_t> out;
  auto it = properties.find(kBoundsIndexColumnsProperty);
  if (it == properties.end()) return out;
  for (const std::string& name : ColumnList(it->second)) {
    Result<FieldPath> path = ResolveColumnOrMember(schema, name);
    if (!path.ok() || !BoundsIndexSupports(path->field->type)) continue;
    const int32_t id = path->field->field_id;
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

}  // namespace

Status catalog_internal::ValidateBoundsIndexSetting(const PropertyMap& props,
                                                    const Schema& schema) {
  return ValidateColumnListSetting(props, kBoundsIndexColumnsProperty, schema,
                                   BoundsIndexSupports,
                                   "the bounds index holds scalar columns and STRUCT members");
}

Status catalog_internal::SyncBoundsIndex(Transaction& tx, int64_t dataset_id,
                                         const PropertyMap& props, const Schema* before,
                                         const Schema& after) {
  TARN_ASSIGN_OR_RETURN(std::vector<int32_t> had, catalog_store::BoundsFields(tx, dataset_id));
  const std::vector<int32_t> want = BoundsIndexFieldIds(props, after);
  std::vector<int32_t> build;
  for (int32_t id : want) {
    const bool held = std::find(had.begin(), had.end(), id) != had.end();
    bool retyped = false;
    if (held && before != nullptr) {
      const std::optional<FieldPath> old_path = FindFieldPath(*before, id);
      const std::optional<FieldPath> new_path = FindFieldPath(after, id);
      retyped = !old_path || !new_path || !(old_path->field->type == new_path->field->type);
    }
    if (!held || retyped) build.push_back(id);
  }
  for (int32_t id : had) {
    if (std::find(want.begin(), want.end(), id) == want.end()) {
      TARN_RETURN_NOT_OK(catalog_store::DeleteFieldBounds(tx, dataset_id, id));
    }
  }
  TARN_RETURN_NOT_OK(
      catalog_store::BuildFieldBounds(tx, dataset_id, catalog_store::BoundsFieldsIn(build, after)));
  if (want == had) return Status::OK();
  return catalog_store::SetBoundsFields(tx, dataset_id, want);
}

std::optional<std::string> catalog_internal::ColumnListSettingAfter(const PropertyMap& props,
                                                                    std::string_view key,
                                                                    const Schema& before,
                                                                    const Schema& after) {
  auto it = props.find(std::string(key));
  if (it == props.end()) return std::nullopt;
  std::string now;
  for (const std::string& name : ColumnList(it->second)) {
    Result<FieldPath> path = ResolveColumnOrMember(before, name);
    std::string keep = name;  // a name that matched nothing before stays as it was
    if (path.ok()) {
      std::optional<FieldPath> moved = FindFieldPath(after, path->field->field_id);
      if (!moved) continue;  // dropped (or no longer reached through STRUCTs)
      keep = DottedName(*moved);
    }
    now += (now.empty() ? "" : ",") + keep;
  }
  if (now == it->second) return std::nullopt;
  return now;
}

namespace {

// Runs `fn` when it goes out of scope: a definition change forgets what the catalog keeps of
// datasets' definitions (appends, manifest.on_commit) once it ended, committed or not.
class OnExit {
 public:
  explicit OnExit(std::function<void()> fn) : fn_(std::move(fn)) {}
  OnExit(const OnExit&) = delete;
  OnExit& operator=(const OnExit&) = delete;
  ~OnExit() { fn_(); }

 private:
  std::function<void()> fn_;
};

}  // namespace

DataWriteOptions catalog_internal::DataWriteOptionsFor(const DatasetInfo& ds,
                                                       const Schema& schema) {
  DataWriteOptions options;
  options.prefix = DatasetPrefix(ds.uuid) + "data/";
  options.parquet.bloom_filter_columns = BloomFilterColumns(ds.properties, schema);
  if (auto json = iceberg::ParquetSchemaJson(schema, ds.schema_id)) {
    options.parquet.key_value_metadata.push_back({iceberg::kParquetSchemaKey, *json});
  }
  return options;
}

Result<DatasetInfo> Catalog::DoCreateDataset(std::string_view qualified, DatasetDefinition def,
                                             bool exists_ok) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateSchema(def.schema));
  TARN_RETURN_NOT_OK(ValidatePropertyKeys(def.properties));
  TARN_RETURN_NOT_OK(ValidateManifestSetting(def.properties));
  TARN_RETURN_NOT_OK(ValidateInlineSetting(def.properties));
  int32_t last_field_id = MaxFieldId(def.schema);
  TARN_RETURN_NOT_OK(AssignFieldIds(&def.schema, &last_field_id));
  TARN_RETURN_NOT_OK(ValidateBloomFilterSetting(def.properties, def.schema));
  TARN_RETURN_NOT_OK(ValidateBoundsIndexSetting(def.properties, def.schema));
  TARN_ASSIGN_OR_RETURN(auto spec, PartitionSpec::Parse(def.partition_spec, def.schema, 0));
  TARN_ASSIGN_OR_RETURN(auto sort, SortOrder::Parse(def.sort_order, def.schema));
  catalog_store::NewDataset row;
  row.uuid = NewUuidV4();
  row.name = n.dataset;
  row.description = def.description;
  row.properties = def.properties;
  row.last_field_id = last_field_id;
  row.sort_order = std::move(sort);
  row.schema = def.schema;
  row.spec = std::move(spec);
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(row.collection_id,
                          CollectionId(tx, CollectionName{n.workspace, n.collection}));
    TARN_RETURN_NOT_OK(CheckNoViewNamed(tx, row.collection_id, n));
    int64_t now = clock_->NowMicros();
    TARN_ASSIGN_OR_RETURN(auto id, catalog_store::InsertDataset(tx, row, now));
    if (!id) {
      if (exists_ok) return Status::OK();  // the existing dataset is returned below
      return Status::Of(codes::kDatasetExists, "dataset '" + n.ToString() + "' already exists")
          .WithField("dataset", n.ToString());
    }
    return SyncBoundsIndex(tx, *id, row.properties, nullptr, row.schema);
  }));
  return LoadDataset(qualified);
}

Result<DatasetInfo> Catalog::DoLoadDataset(std::string_view qualified, const SnapshotSelector& at) {
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  DatasetInfo out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(out, LoadLiveDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(out.specs, LoadSpecs(tx, out.id));
        if (at.empty()) return Status::OK();
        TARN_ASSIGN_OR_RETURN(auto resolved, ResolveSnapshot(tx, out, at));
        if (!resolved.snapshot_id) return Status::OK();
        TARN_RETURN_NOT_OK(UseSnapshotSchema(tx, &out, *resolved.snapshot_id));
        out.current_snapshot_id = resolved.snapshot_id;
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<std::vector<Catalog::DatasetEntry>> Catalog::ListDatasetNames(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(auto cn, ParseCollectionName(collection));
  std::vector<DatasetEntry> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        TARN_ASSIGN_OR_RETURN(int64_t coll_id, CollectionId(tx, cn));
        TARN_ASSIGN_OR_RETURN(auto rows, catalog_store::DatasetNamesOf(tx, coll_id));
        for (auto& r : rows) out.push_back(DatasetEntry{std::move(r.name), r.dropped});
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Result<std::vector<DatasetInfo>> Catalog::ListDatasets(std::string_view collection) {
  TARN_ASSIGN_OR_RETURN(auto cn, ParseCollectionName(collection));
  std::vector<DatasetInfo> out;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        out.clear();
        TARN_ASSIGN_OR_RETURN(int64_t coll_id, CollectionId(tx, cn));
        TARN_ASSIGN_OR_RETURN(out, catalog_store::LiveDatasetsOf(tx, coll_id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

Status Catalog::RenameDataset(std::string_view qualified, std::string_view new_name) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidateIdentifier("dataset name", new_name));
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LoadLiveDataset(tx, n));
    if (ds.name.dataset == new_name) return Status::OK();
    TARN_RETURN_NOT_OK(CheckRenamable(tx, ds));
    TARN_ASSIGN_OR_RETURN(bool clash, catalog_store::SiblingNamed(tx, ds.id, new_name));
    DatasetName target = n;
    target.dataset = std::string(new_name);
    TARN_ASSIGN_OR_RETURN(int64_t coll_id,
                          CollectionId(tx, CollectionName{n.workspace, n.collection}));
    TARN_RETURN_NOT_OK(CheckNoViewNamed(tx, coll_id, target));
    if (clash) {
      return Status::Of(codes::kDatasetExists, "dataset '" + target.ToString() + "' already exists")
          .WithField("dataset", target.ToString());
    }
    return catalog_store::SetDatasetName(tx, ds.id, new_name, clock_->NowMicros());
  });
}

Status Catalog::DoDropDataset(std::string_view qualified, bool purge,
                              std::optional<std::string> expected_uuid) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  std::vector<std::string> released;
  return metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto rows, catalog_store::DatasetIncarnations(tx, n));
    std::optional<int64_t> live_id;
    std::vector<int64_t> ids;
    for (const auto& r : rows) {
      if (r.live) {
        live_id = r.id;
        if (expected_uuid && *expected_uuid != r.uuid) {
          return Status::Of(codes::kIncarnationChanged, "dataset '" + n.ToString() +
                                                            "' was recreated (uuid " + r.uuid +
                                                            ", expected " + *expected_uuid + ")")
              .WithField("dataset", n.ToString());
        }
      }
      ids.push_back(r.id);
    }
    if (live_id) TARN_RETURN_NOT_OK(ForgetDataset(tx, *live_id));
    if (!purge) {
      if (!live_id) return DatasetNotFound(tx, n);
      return catalog_store::MarkDatasetDropped(tx, *live_id, clock_->NowMicros(),
                                               clock_->NowMicros());
    }
    if (ids.empty()) return DatasetNotFound(tx, n);
    TARN_ASSIGN_OR_RETURN(auto dp, catalog_store::WorkspaceDeletionProtection(tx, n.workspace));
    if (ProtectionOn(dp)) {
      return Status::Of(codes::kDeletionProtected, "workspace '" + n.workspace +
                                                       "' has deletion_protection on; purging '" +
                                                       n.ToString() + "' would delete its data")
          .WithField("dataset", n.ToString());
    }
    int64_t now = clock_->NowMicros();
    for (int64_t id : ids) {
      TARN_RETURN_NOT_OK(ForgetDataset(tx, id));
      TARN_RETURN_NOT_OK(catalog_store::ForgetProvenance(tx, id));
      TARN_RETURN_NOT_OK(catalog_store::PurgeDatasetRows(tx, id, now));
    }
    return Status::OK();
  });
}

Status Catalog::DoSetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                       const std::vector<std::string>& unset) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(ValidatePropertyKeys(set));
  TARN_RETURN_NOT_OK(ValidateManifestSetting(set));
  TARN_RETURN_NOT_OK(ValidateRetentionSetting(set));
  TARN_RETURN_NOT_OK(ValidateInlineSetting(set));
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
    TARN_RETURN_NOT_OK(ValidateBloomFilterSetting(set, ds.schema));
    TARN_RETURN_NOT_OK(ValidateBoundsIndexSetting(set, ds.schema));
    std::string description = ds.description;
    for (const auto& k : unset) {
      if (k == kDescriptionProperty) description.clear();
      ds.properties.erase(k);
    }
    for (const auto& [k, v] : set) {
      if (k == kDescriptionProperty) {
        description = v;
      } else {
        ds.properties[k] = v;
      }
    }
    TARN_RETURN_NOT_OK(catalog_store::UpdateDatasetProperties(tx, ds.id, ds.properties, description,
                                                              clock_->NowMicros()));
    return SyncBoundsIndex(tx, ds.id, ds.properties, nullptr, ds.schema);
  }));
  return Status::OK();
}

Result<DatasetInfo> Catalog::DoAlterSchema(std::string_view qualified,
                                           const std::vector<SchemaChange>& changes,
                                           std::optional<int64_t> read_snapshot_id) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  if (changes.empty()) return Status::InvalidArgument("no schema change given");
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
        TARN_RETURN_NOT_OK(CheckReadSnapshot(ds, read_snapshot_id));
        Schema schema = ds.schema;
        int32_t last_field_id = ds.last_field_id;
        for (const auto& ch : changes) {
          TARN_RETURN_NOT_OK(ApplyChange(ds, ch, &schema, &last_field_id));
        }
        TARN_ASSIGN_OR_RETURN(int64_t max_id, catalog_store::MaxSchemaId(tx, ds.id));
        int64_t now = clock_->NowMicros();
        // The columns that get bloom filters or the bounds index follow their renames and
        // drops.
        bool changed = false;
        for (const char* key : {kBloomFilterColumnsProperty, kBoundsIndexColumnsProperty}) {
          if (auto now_set = ColumnListSettingAfter(ds.properties, key, ds.schema, schema)) {
            ds.properties[key] = *now_set;
            changed = true;
          }
        }
        if (changed) {
          TARN_RETURN_NOT_OK(catalog_store::UpdateDatasetProperties(tx, ds.id, ds.properties,
                                                                    ds.description, now));
        }
        TARN_RETURN_NOT_OK(SyncBoundsIndex(tx, ds.id, ds.properties, &ds.schema, schema));
        TARN_RETURN_NOT_OK(catalog_store::InsertSchema(tx, ds.id, max_id + 1, schema, now));
        return catalog_store::SetCurrentSchema(tx, ds.id, max_id + 1, last_field_id, now);
      },
      TxMode::kLockingWrite));
  return LoadDataset(qualified);
}

Result<DatasetInfo> Catalog::SetPartitionSpec(std::string_view qualified, std::string_view text) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(int64_t max_id, catalog_store::MaxSpecId(tx, ds.id));
        TARN_ASSIGN_OR_RETURN(
            auto spec, PartitionSpec::Parse(text, ds.schema, static_cast<int32_t>(max_id + 1)));
        if (spec.fields == ds.spec.fields) return Status::OK();
        int64_t now = clock_->NowMicros();
        TARN_RETURN_NOT_OK(catalog_store::InsertSpec(tx, ds.id, max_id + 1, spec, now));
        return catalog_store::SetCurrentSpec(tx, ds.id, max_id + 1, now);
      },
      TxMode::kLockingWrite));
  return LoadDataset(qualified);
}

Result<DatasetInfo> Catalog::SetSortOrder(std::string_view qualified, std::string_view text) {
  const OnExit forget([this] { DefinitionsChanged(); });  // committed or not
  TARN_ASSIGN_OR_RETURN(auto n, ParseDatasetName(qualified));
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto ds, LockDataset(tx, n));
        TARN_ASSIGN_OR_RETURN(auto order, SortOrder::Parse(text, ds.schema));
        return catalog_store::SetSortOrder(tx, ds.id, order, clock_->NowMicros());
      },
      TxMode::kLockingWrite));
  return LoadDataset(qualified);
}

}  // namespace tarn
