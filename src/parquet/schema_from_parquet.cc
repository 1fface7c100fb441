// Parquet schema -> tarn schema (the reader's half of schema.h).
#include <string>
#include <unordered_set>
#include <vector>

#include "common/text.h"
#include "parquet/schema.h"

namespace tarn::parquet {
namespace {

// Deepest nesting of schema groups accepted; real schemas stay far below.
constexpr size_t kMaxSchemaDepth = 64;

bool IsPrimitive(const SchemaElement& e) { return e.type.has_value(); }

Repetition RepetitionOf(const SchemaElement& e) {
  return e.repetition_type.value_or(Repetition::REQUIRED);
}

bool KnownRepetition(const SchemaElement& e) {
  int r = static_cast<int>(RepetitionOf(e));
  return r >= 0 && r <= 2;
}

// Builds each element's children from the depth-first order and num_children.
Status BuildTree(const std::vector<SchemaElement>& el, std::vector<std::vector<int>>* children) {
  if (el.empty()) return Status::Corruption("schema is empty");
  if (IsPrimitive(el[0]) || !el[0].num_children) {
    return Status::Corruption("schema root is not a group");
  }
  children->assign(el.size(), {});
  struct Frame {
    int node;
    int64_t left;
  };
  std::vector<Frame> stack;
  size_t next = 1;
  if (*el[0].num_children < 0) return Status::Corruption("schema root has negative num_children");
  stack.push_back({0, *el[0].num_children});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.left == 0) {
      stack.pop_back();
      continue;
    }
    if (next >= el.size()) {
      return Status::Corruption("schema element '" + el[top.node].name +
                                "' declares more children"
                                " than the schema holds");
    }
    --top.left;
    const int child = static_cast<int>(next++);
    (*children)[top.node].push_back(child);
    const SchemaElement& e = el[child];
    if (IsPrimitive(e)) {
      if (e.num_children.value_or(0) > 0) {
        return Status::Corruption("schema element '" + e.name + "' has a type and children");
      }
      continue;
    }
    if (!e.num_children) {
      return Status::Corruption("schema element '" + e.name + "' has neither type nor children");
    }
    if (*e.num_children < 0) {
      return Status::Corruption("schema element '" + e.name + "' has negative num_children");
    }
    if (stack.size() >= kMaxSchemaDepth) {
      return Status::Corruption("schema is nested deeper than " + std::to_string(kMaxSchemaDepth));
    }
    stack.push_back({child, *e.num_children});
  }
  if (next != el.size()) {
    return Status::Corruption("schema has " + std::to_string(el.size() - next) +
                              " elements outside the tree");
  }
  return Status::OK();
}

struct Builder {
  const std::vector<SchemaElement>& el;
  const std::vector<std::vector<int>>& children;
  ParquetSchema* out;

  void CollectLeaves(int node, int field, std::vector<std::string>* path, int16_t def,
                     int16_t rep) {
    const SchemaElement& e = el[node];
    const Repetition r = RepetitionOf(e);
    if (r == Repetition::OPTIONAL) ++def;
    if (r == Repetition::REPEATED) {
      ++def;
      ++rep;
    }
    path->push_back(e.name);
    if (IsPrimitive(e)) {
      LeafColumn leaf;
      leaf.schema_index = node;
      leaf.path = *path;
      leaf.physical = *e.type;
      leaf.type_length = e.type_length.value_or(0);
      leaf.max_def_level = def;
      leaf.max_rep_level = rep;
      leaf.field = field;
      out->field_leaves[field].push_back(static_cast<int>(out->leaves.size()));
      out->leaves.push_back(std::move(leaf));
    } else {
      for (int c : children[node]) CollectLeaves(c, field, path, def, rep);
    }
    path->pop_back();
  }

  // The tarn type of a primitive element, or why it has none.
  std::string ScalarType(const SchemaElement& e, DataType* out_type) const {
    const Type pt = *e.type;
    const LogicalType* lt = e.logical_type ? &*e.logical_type : nullptr;
    const int ct = e.converted_type ? static_cast<int>(*e.converted_type) : -1;
    auto is_ct = [&](ConvertedType c) { return ct == static_cast<int>(c); };
    auto decimal = [&](int precision, int scale) -> std::string {
      if (precision < 1 || precision > 38) {
        return "DECIMAL precision " + std::to_string(precision) + " is not supported (1..38)";
      }
      if (scale < 0 || scale > precision) {
        return "DECIMAL scale " + std::to_string(scale) + " is invalid for precision " +
               std::to_string(precision);
      }
      if (pt == Type::FIXED_LEN_BYTE_ARRAY && e.type_length.value_or(0) > 16) {
        return "DECIMAL stored in more than 16 bytes is not supported";
      }
      *out_type = DataType::Decimal(precision, scale);
      return "";
    };
    auto timestamp = [&](TimeUnitKind unit, bool utc) {
      TimeUnit u = unit == TimeUnitKind::MILLIS  ? TimeUnit::kMilli
                   : unit == TimeUnitKind::NANOS ? TimeUnit::kNano
                                                 : TimeUnit::kMicro;
      *out_type = utc ? DataType::TimestampTz(u) : DataType::Timestamp(u);
      return std::string();
    };
    const bool decimal_capable = pt == Type::INT32 || pt == Type::INT64 ||
                                 pt == Type::FIXED_LEN_BYTE_ARRAY || pt == Type::BYTE_ARRAY;
    const bool lt_decimal = decimal_capable && lt && lt->kind == LogicalType::DECIMAL;
    const bool ct_decimal = decimal_capable && !lt && is_ct(ConvertedType::DECIMAL);
    if (lt_decimal) return decimal(lt->decimal_precision, lt->decimal_scale);
    if (ct_decimal) return decimal(e.precision.value_or(0), e.scale.value_or(0));

    switch (pt) {
      case Type::BOOLEAN:
        *out_type = DataType::Boolean();
        return "";
      case Type::INT32:
        if (lt && lt->kind == LogicalType::INTEGER) {
          switch (lt->bit_width) {
            case 8:
              *out_type = lt->is_signed ? DataType::Int8() : DataType::UInt8();
              return "";
            case 16:
              *out_type = lt->is_signed ? DataType::Int16() : DataType::UInt16();
              return "";
            case 32:
              *out_type = lt->is_signed ? DataType::Int32() : DataType::UInt32();
              return "";
            default:
              break;
          }
        }
        if ((lt && lt->kind == LogicalType::DATE) || (!lt && is_ct(ConvertedType::DATE))) {
          *out_type = DataType::Date();
          return "";
        }
        if ((lt && lt->kind == LogicalType::TIME && lt->unit == TimeUnitKind::MILLIS) ||
            (!lt && is_ct(ConvertedType::TIME_MILLIS))) {
          *out_type = DataType::Time();
          return "";
        }
        if (!lt) {
          if (is_ct(ConvertedType::INT_8))
            *out_type = DataType::Int8();
          else if (is_ct(ConvertedType::INT_16))
            *out_type = DataType::Int16();
          else if (is_ct(ConvertedType::UINT_8))
            *out_type = DataType::UInt8();
          else if (is_ct(ConvertedType::UINT_16))
            *out_type = DataType::UInt16();
          else if (is_ct(ConvertedType::UINT_32))
            *out_type = DataType::UInt32();
          else
            *out_type = DataType::Int32();
          return "";
        }
        *out_type = DataType::Int32();
        return "";
      case Type::INT64:
        if (lt && lt->kind == LogicalType::INTEGER && lt->bit_width == 64) {
          *out_type = lt->is_signed ? DataType::Int64() : DataType::UInt64();
          return "";
        }
        if (lt && lt->kind == LogicalType::TIME && lt->unit != TimeUnitKind::MILLIS) {
          *out_type =
              DataType::Time(lt->unit == TimeUnitKind::NANOS ? TimeUnit::kNano : TimeUnit::kMicro);
          return "";
        }
        if (lt && lt->kind == LogicalType::TIMESTAMP) {
          return timestamp(lt->unit, lt->is_adjusted_to_utc);
        }
        if (!lt) {
          // Legacy converted timestamps are instants (LogicalTypes.md compatibility rules).
          if (is_ct(ConvertedType::TIMESTAMP_MILLIS)) return timestamp(TimeUnitKind::MILLIS, true);
          if (is_ct(ConvertedType::TIMESTAMP_MICROS)) return timestamp(TimeUnitKind::MICROS, true);
          if (is_ct(ConvertedType::TIME_MICROS)) {
            *out_type = DataType::Time();
            return "";
          }
          if (is_ct(ConvertedType::UINT_64)) {
            *out_type = DataType::UInt64();
            return "";
          }
        }
        *out_type = DataType::Int64();
        return "";
      case Type::INT96:
        *out_type = DataType::Timestamp(TimeUnit::kNano);
        return "";
      case Type::FLOAT:
        *out_type = DataType::Float32();
        return "";
      case Type::DOUBLE:
        *out_type = DataType::Float64();
        return "";
      case Type::BYTE_ARRAY:
        if (lt) {
          if (lt->kind == LogicalType::STRING || lt->kind == LogicalType::ENUM) {
            *out_type = DataType::Varchar();
          } else if (lt->kind == LogicalType::JSON) {
            *out_type = DataType::Json();
          } else {
            *out_type = DataType::Blob();
          }
          return "";
        }
        if (is_ct(ConvertedType::UTF8) || is_ct(ConvertedType::ENUM)) {
          *out_type = DataType::Varchar();
        } else if (is_ct(ConvertedType::JSON)) {
          *out_type = DataType::Json();
        } else {
          *out_type = DataType::Blob();
        }
        return "";
      case Type::FIXED_LEN_BYTE_ARRAY:
        if (lt && lt->kind == LogicalType::UUID && e.type_length.value_or(0) == 16) {
          *out_type = DataType::Uuid();
        } else if (lt && lt->kind == LogicalType::FLOAT16 && e.type_length.value_or(0) == 2) {
          *out_type = DataType::Float32();
        } else {
          *out_type = DataType::Blob();
        }
        return "";
    }
    return "unknown physical type";
  }

  // The tarn field of Parquet node `node` (name, type, nullability, id), whose parent holds it
  // from definition level `def` and repetition level `rep`; `member` is its index among the
  // parent's nested columns. Appends the path of every leaf below it to `leaf_paths` (`path`
  // holds the nodes above). Returns why the node cannot be represented, or "".
  std::string Convert(int node, int16_t def, int16_t rep, int member, int depth, Field* out,
                      std::vector<PathNode>* path) {
    const SchemaElement& e = el[node];
    if (!KnownRepetition(e)) {
      return "repetition " + std::to_string(static_cast<int>(RepetitionOf(e))) + " of '" + e.name +
             "' is not supported";
    }
    out->name = e.name;
    out->field_id = e.field_id.value_or(-1);
    bool all_null = false;
    if (RepetitionOf(e) == Repetition::REPEATED) {
      // A bare repeated field: a NOT NULL list of NOT NULL elements.
      PathNode list;
      list.kind = PathNode::Kind::kList;
      list.member = member;
      list.def = def;
      list.def_element = static_cast<int16_t>(def + 1);
      list.rep = static_cast<int16_t>(rep + 1);
      path->push_back(list);
      DataType element;
      std::string why =
          Inner(node, list.def_element, list.rep, 0, depth + 1, &element, &all_null, path);
      path->pop_back();
      if (!why.empty()) return why;
      out->type = DataType::Array(std::move(element), -1, all_null);
      out->nullable = false;
      return "";
    }
    const bool optional = RepetitionOf(e) == Repetition::OPTIONAL;
    std::string why = Inner(node, static_cast<int16_t>(def + (optional ? 1 : 0)), rep, member,
                            depth, &out->type, &all_null, path);
    out->nullable = optional || all_null;
    return why;
  }

  // The tarn type of the values at `node`, ignoring the node's own repetition: they are not null
  // from definition level `def`. Sets *all_null for logical type UNKNOWN (Arrow's Null type,
  // which reads as nulls whatever the levels say).
  std::string Inner(int node, int16_t def, int16_t rep, int member, int depth, DataType* type,
                    bool* all_null, std::vector<PathNode>* path) {
    const SchemaElement& e = el[node];
    if (depth > static_cast<int>(kMaxSchemaDepth)) return "nested too deeply";
    PathNode self;
    self.member = member;
    self.def = def;
    if (IsPrimitive(e)) {
      std::string why = ScalarType(e, type);
      if (!why.empty()) return why;
      *all_null = e.logical_type && e.logical_type->kind == LogicalType::UNKNOWN;
      self.kind = PathNode::Kind::kLeaf;
      path->push_back(self);
      leaf_paths.push_back(*path);
      path->pop_back();
      return "";
    }
    const auto& kids = children[node];
    if (e.logical_type && e.logical_type->kind == LogicalType::VARIANT) {
      return VariantGroup(node, self, type, path);
    }
    const bool is_list = (e.logical_type && e.logical_type->kind == LogicalType::LIST) ||
                         (!e.logical_type && e.converted_type == ConvertedType::LIST);
    // MAP_KEY_VALUE where MAP belongs is read as MAP (LogicalTypes.md, maps, compatibility).
    const bool is_map = (e.logical_type && e.logical_type->kind == LogicalType::MAP) ||
                        e.converted_type == ConvertedType::MAP ||
                        e.converted_type == ConvertedType::MAP_KEY_VALUE;
    if (is_list || is_map) {
      const char* what = is_list ? "LIST" : "MAP";
      if (kids.size() != 1) {
        return std::string(what) + " group '" + e.name + "' must have exactly one child";
      }
      const int r = kids[0];
      const SchemaElement& re = el[r];
      if (RepetitionOf(re) != Repetition::REPEATED) {
        return std::string(what) + " group '" + e.name + "' has no repeated child";
      }
      self.kind = is_list ? PathNode::Kind::kList : PathNode::Kind::kMap;
      self.def_element = static_cast<int16_t>(def + 1);
      self.rep = static_cast<int16_t>(rep + 1);
      path->push_back(self);
      std::string why = is_list ? ListElement(e, r, self, depth, type, path)
                                : MapEntries(e, r, self, depth, type, path);
      path->pop_back();
      return why;
    }
    // Any other group is a struct of its fields.
    if (kids.empty()) return "group '" + e.name + "' has no fields";
    self.kind = PathNode::Kind::kStruct;
    path->push_back(self);
    std::vector<Field> members(kids.size());
    std::unordered_set<std::string> names;
    std::string why;
    for (size_t k = 0; k < kids.size() && why.empty(); ++k) {
      why = Convert(kids[k], def, rep, static_cast<int>(k), depth + 1, &members[k], path);
      if (why.empty() && members[k].name.empty()) why = "a member of '" + e.name + "' has no name";
      if (why.empty() && !names.insert(AsciiLower(members[k].name)).second) {
        why = "members of '" + e.name + "' named '" + members[k].name + "' differ only in case";
      }
    }
    path->pop_back();
    if (!why.empty()) return why;
    *type = DataType::Struct(std::move(members));
    return "";
  }

  // The element of a LIST group `e` whose repeated child is `r` (LogicalTypes.md's
  // backward-compatibility rules): a primitive, a group of several fields, or a one-field group
  // named "array" or "<list>_tuple" is itself the (NOT NULL) element; otherwise its only field
  // is, with that field's repetition.
  std::string ListElement(const SchemaElement& e, int r, const PathNode& list, int depth,
                          DataType* type, std::vector<PathNode>* path) {
    const SchemaElement& re = el[r];
    Field element;
    std::string why;
    if (IsPrimitive(re) || children[r].size() != 1 || re.name == "array" ||
        re.name == e.name + "_tuple") {
      bool all_null = false;
      why = Inner(r, list.def_element, list.rep, 0, depth + 1, &element.type, &all_null, path);
      element.nullable = all_null;
      element.field_id = re.field_id.value_or(-1);
    } else {
      why = Convert(children[r][0], list.def_element, list.rep, 0, depth + 1, &element, path);
    }
    if (!why.empty()) return why;
    *type = DataType::Array(std::move(element.type), element.field_id, element.nullable);
    return "";
  }

  // The entries of a MAP group `e` whose repeated child is `kv`: its key (required) and value.
  std::string MapEntries(const SchemaElement& e, int kv, const PathNode& map, int depth,
                         DataType* type, std::vector<PathNode>* path) {
    if (IsPrimitive(el[kv])) return "MAP group '" + e.name + "' has no key_value group";
    const auto& kids = children[kv];
    if (kids.size() == 1) return "MAP '" + e.name + "' has keys without values";
    if (kids.size() != 2) {
      return "MAP '" + e.name + "' has " + std::to_string(kids.size()) +
             " fields per entry (a key and a value expected)";
    }
    if (RepetitionOf(el[kids[0]]) != Repetition::REQUIRED) {
      return "MAP '" + e.name + "' has keys that are not required";
    }
    Field key, value;
    std::string why = Convert(kids[0], map.def_element, map.rep, 0, depth + 1, &key, path);
    if (why.empty() && key.nullable) why = "MAP '" + e.name + "' has keys of logical type UNKNOWN";
    if (why.empty()) why = Convert(kids[1], map.def_element, map.rep, 1, depth + 1, &value, path);
    if (!why.empty()) return why;
    *type = DataType::Map(std::move(key.type), std::move(value.type), key.field_id, value.field_id,
                          value.nullable);
    return "";
  }

  // A group annotated VARIANT: the unshredded form only (VariantEncoding.md), at the top level.
  // Its leaves fill the VARIANT column's members by name: metadata 0, value 1.
  std::string VariantGroup(int node, PathNode self, DataType* type, std::vector<PathNode>* path) {
    const SchemaElement& e = el[node];
    if (!path->empty()) return "VARIANT '" + e.name + "' below another column is not supported";
    if (e.logical_type->variant_version && *e.logical_type->variant_version != 1) {
      return "VARIANT '" + e.name + "' of specification version " +
             std::to_string(*e.logical_type->variant_version) + " is not supported";
    }
    const auto& kids = children[node];
    for (int k : kids) {
      if (el[k].name == "typed_value") {
        return "VARIANT '" + e.name + "' is shredded (typed_value), which is not supported";
      }
    }
    bool seen[2] = {false, false};
    for (int k : kids) {
      const SchemaElement& c = el[k];
      const int member = c.name == kVariantMetadataName ? 0 : c.name == kVariantValueName ? 1 : -1;
      if (member < 0 || seen[member] || !IsPrimitive(c) || *c.type != Type::BYTE_ARRAY ||
          RepetitionOf(c) != Repetition::REQUIRED) {
        return "VARIANT '" + e.name +
               "' must hold exactly a required binary metadata and a required binary value";
      }
      seen[member] = true;
    }
    if (!seen[0] || !seen[1]) {
      return "VARIANT '" + e.name +
             "' must hold exactly a required binary metadata and a required binary value";
    }
    self.kind = PathNode::Kind::kStruct;
    path->push_back(self);
    for (int k : kids) {
      PathNode leaf;
      leaf.kind = PathNode::Kind::kLeaf;
      leaf.member = el[k].name == kVariantMetadataName ? 0 : 1;
      leaf.def = self.def;
      path->push_back(leaf);
      leaf_paths.push_back(*path);
      path->pop_back();
    }
    path->pop_back();
    *type = DataType::Variant();
    return "";
  }

  // Every leaf's path, in file order, for the field being converted.
  std::vector<std::vector<PathNode>> leaf_paths;
};

// Whether a derived type is one a recorded tarn type may refine (see CompatibleOverride).
bool Refinable(const DataType& t) {
  for (const Field& f : t.children()) {
    if (Refinable(f.type)) return true;
  }
  return t.id() == TypeId::kUInt32 ||
         ((t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampTz) &&
          t.unit() == TimeUnit::kMilli);
}

// Whether the tarn type recorded by tarn's writer may replace the one derived from Parquet:
// same type, or one Parquet cannot name stored in the layout tarn's writer uses for it (at any
// nesting level; nested fields must match by name and position).
bool CompatibleOverride(const DataType& recorded, const DataType& derived) {
  if (recorded == derived) return true;
  if (recorded.is_nested() || derived.is_nested()) {
    if (recorded.id() != derived.id() || recorded.children().size() != derived.children().size()) {
      return false;
    }
    for (size_t i = 0; i < recorded.children().size(); ++i) {
      const Field& r = recorded.children()[i];
      const Field& d = derived.children()[i];
      if (r.name != d.name || !CompatibleOverride(r.type, d.type)) return false;
    }
    return true;
  }
  if (recorded.id() == TypeId::kIpv4) return derived.id() == TypeId::kUInt32;
  if ((recorded.id() == TypeId::kTimestamp || recorded.id() == TypeId::kTimestampTz) &&
      recorded.unit() == TimeUnit::kSecond) {
    return derived.id() == recorded.id() && derived.unit() == TimeUnit::kMilli;
  }
  return false;
}

}  // namespace

const DataType& LeafTypeOf(const DataType& field_type, const LeafColumn& leaf) {
  const DataType* t = &field_type;
  for (size_t i = 1; i < leaf.nodes.size(); ++i) {
    t = &StoredShape(*t).children()[static_cast<size_t>(leaf.nodes[i].member)].type;
  }
  return *t;
}

Result<ParquetSchema> SchemaFromParquet(const FileMetaData& md) {
  std::vector<std::vector<int>> children;
  TARN_RETURN_NOT_OK(BuildTree(md.schema, &children));
  ParquetSchema ps;
  Builder b{md.schema, children, &ps, {}};
  const auto& fields = children[0];
  ps.schema.fields.resize(fields.size());
  ps.field_leaves.resize(fields.size());
  ps.unsupported.resize(fields.size());
  for (size_t f = 0; f < fields.size(); ++f) {
    const int node = fields[f];
    const SchemaElement& e = md.schema[node];
    std::vector<std::string> path;
    b.CollectLeaves(node, static_cast<int>(f), &path, 0, 0);
    Field& field = ps.schema.fields[f];
    std::vector<PathNode> nodes;
    b.leaf_paths.clear();
    std::string why = b.Convert(node, 0, 0, 0, 0, &field, &nodes);
    const std::vector<int>& leaves = ps.field_leaves[f];
    if (why.empty() && b.leaf_paths.size() != leaves.size()) why = "leaves out of step";
    for (size_t k = 0; k < leaves.size() && why.empty(); ++k) {
      const LeafColumn& leaf = ps.leaves[leaves[k]];
      const std::vector<PathNode>& p = b.leaf_paths[k];
      int16_t rep = 0;  // the innermost list's or map's
      for (const PathNode& n : p) {
        if (n.kind == PathNode::Kind::kList || n.kind == PathNode::Kind::kMap) rep = n.rep;
      }
      if (p.back().def != leaf.max_def_level || rep != leaf.max_rep_level) {
        why = "levels out of step";
      }
      if (leaf.physical == Type::FIXED_LEN_BYTE_ARRAY && leaf.type_length <= 0) {
        return Status::Corruption("FIXED_LEN_BYTE_ARRAY column '" + e.name +
                                  "' has no positive type_length");
      }
    }
    if (!why.empty()) {
      field.name = e.name;
      field.field_id = e.field_id.value_or(-1);
      field.nullable = RepetitionOf(e) == Repetition::OPTIONAL;
      field.type = DataType::Blob();
      ps.unsupported[f] = why;
      continue;
    }
    // A leaf is the first below a column unless the previous leaf shares the column (the same
    // members all the way down to it).
    for (size_t k = leaves.size(); k-- > 0;) {
      std::vector<PathNode>& p = b.leaf_paths[k];
      size_t shared = 0;
      if (k > 0) {
        const std::vector<PathNode>& prev = b.leaf_paths[k - 1];
        while (shared < p.size() && shared < prev.size() &&
               prev[shared].member == p[shared].member) {
          ++shared;
        }
      }
      for (size_t i = 0; i < p.size(); ++i) p[i].first = i >= shared;
      ps.leaves[leaves[k]].nodes = std::move(p);  // leaf k - 1, still to do, does not look at k
    }
  }

  // tarn's writer records the exact schema; use it where it names types Parquet cannot. Parsing
  // it is skipped when no field could change.
  bool refinable = false;
  for (size_t f = 0; f < ps.schema.fields.size(); ++f) {
    refinable = refinable || (ps.unsupported[f].empty() && Refinable(ps.schema.fields[f].type));
  }
  for (const KeyValue& kv : md.key_value_metadata) {
    if (!refinable) break;
    if (kv.key != kTarnSchemaKey || !kv.value) continue;
    Result<Schema> recorded = Schema::Parse(*kv.value);
    if (!recorded.ok() || recorded->fields.size() != ps.schema.fields.size()) break;
    for (size_t f = 0; f < ps.schema.fields.size(); ++f) {
      Field& field = ps.schema.fields[f];
      const Field& rec = recorded->fields[f];
      if (!ps.unsupported[f].empty() || rec.name != field.name) continue;
      if (CompatibleOverride(rec.type, field.type))
        field.type = WithNestedFieldsOf(rec.type, field.type);
    }
    break;
  }
  return ps;
}

}  // namespace tarn::parquet
