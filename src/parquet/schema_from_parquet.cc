// Parquet schema -> tarn schema (the reader's half of schema.h).
#include <string>
#include <vector>

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

  void CollectLeaves(int node, int field, std::vector<std::string>* path, int16_t def, int16_t rep,
                     std::vector<ListLevel>* lists) {
    const SchemaElement& e = el[node];
    const Repetition r = RepetitionOf(e);
    size_t lists_before = lists->size();
    if (r == Repetition::OPTIONAL) ++def;
    if (r == Repetition::REPEATED) {
      lists->push_back({def, static_cast<int16_t>(def + 1)});
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
      leaf.lists = *lists;
      out->field_leaves[field].push_back(static_cast<int>(out->leaves.size()));
      out->leaves.push_back(std::move(leaf));
    } else {
      for (int c : children[node]) CollectLeaves(c, field, path, def, rep, lists);
    }
    path->pop_back();
    lists->resize(lists_before);
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

  // Type of the values at `node`, ignoring the node's own repetition.
  std::string InnerType(int node, int depth, DataType* type, int32_t* elem_id,
                        bool* elem_nullable) const {
    const SchemaElement& e = el[node];
    if (depth > static_cast<int>(kMaxSchemaDepth)) return "nested too deeply";
    if (!KnownRepetition(e))
      return "repetition " + std::to_string(static_cast<int>(RepetitionOf(e))) + " of '" + e.name +
             "' is not supported";
    if (IsPrimitive(e)) return ScalarType(e, type);
    const bool is_list = (e.logical_type && e.logical_type->kind == LogicalType::LIST) ||
                         (!e.logical_type && e.converted_type == ConvertedType::LIST);
    const bool is_map = (e.logical_type && e.logical_type->kind == LogicalType::MAP) ||
                        e.converted_type == ConvertedType::MAP ||
                        e.converted_type == ConvertedType::MAP_KEY_VALUE;
    if (is_map) return "MAP is not supported";
    if (!is_list) return "struct (group) fields are not supported";
    const auto& kids = children[node];
    if (kids.size() != 1) return "LIST group '" + e.name + "' must have exactly one child";
    const int rep = kids[0];
    const SchemaElement& r = el[rep];
    if (RepetitionOf(r) != Repetition::REPEATED) {
      return "LIST group '" + e.name + "' has no repeated child";
    }
    DataType elem;
    int element_node;
    bool nullable;
    if (IsPrimitive(r)) {
      // Legacy 2-level list: the repeated field is the (required) element.
      element_node = rep;
      nullable = false;
      std::string why = ScalarType(r, &elem);
      if (!why.empty()) return why;
    } else {
      const auto& rkids = children[rep];
      if (rkids.size() != 1 || r.name == "array" || r.name == e.name + "_tuple") {
        return "LIST of struct elements is not supported";
      }
      // 3-level list: the repeated group's only child is the element.
      element_node = rkids[0];
      const SchemaElement& x = el[element_node];
      nullable = RepetitionOf(x) == Repetition::OPTIONAL;
      int32_t unused_id;
      bool unused_nullable;
      std::string why = NodeType(element_node, depth + 1, &elem, &unused_id, &unused_nullable);
      if (!why.empty()) return why;
    }
    *type = DataType::Array(elem);
    *elem_id = el[element_node].field_id.value_or(-1);
    *elem_nullable = nullable;
    return "";
  }

  // Type of the values at `node` including its repetition (a bare repeated field is an ARRAY).
  std::string NodeType(int node, int depth, DataType* type, int32_t* elem_id,
                       bool* elem_nullable) const {
    const SchemaElement& e = el[node];
    if (RepetitionOf(e) != Repetition::REPEATED) {
      return InnerType(node, depth, type, elem_id, elem_nullable);
    }
    DataType inner;
    int32_t unused_id;
    bool unused_nullable;
    std::string why = InnerType(node, depth + 1, &inner, &unused_id, &unused_nullable);
    if (!why.empty()) return why;
    *type = DataType::Array(inner);
    *elem_id = -1;
    *elem_nullable = false;
    return "";
  }
};

int ArrayDepth(const DataType& t) {
  int d = 0;
  for (const DataType* p = &t; p->id() == TypeId::kArray; p = &p->element()) ++d;
  return d;
}

// Whether a derived type is one a recorded tarn type may refine (see CompatibleOverride).
bool Refinable(const DataType& t) {
  if (t.id() == TypeId::kArray) return Refinable(t.element());
  return t.id() == TypeId::kUInt32 ||
         ((t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampTz) &&
          t.unit() == TimeUnit::kMilli);
}

// Whether the tarn type recorded by tarn's writer may replace the one derived from Parquet:
// same type, or one Parquet cannot name stored in the layout tarn's writer uses for it.
bool CompatibleOverride(const DataType& recorded, const DataType& derived) {
  if (recorded == derived) return true;
  if (recorded.id() == TypeId::kArray && derived.id() == TypeId::kArray) {
    return CompatibleOverride(recorded.element(), derived.element());
  }
  if (recorded.id() == TypeId::kIpv4) return derived.id() == TypeId::kUInt32;
  if ((recorded.id() == TypeId::kTimestamp || recorded.id() == TypeId::kTimestampTz) &&
      recorded.unit() == TimeUnit::kSecond) {
    return derived.id() == recorded.id() && derived.unit() == TimeUnit::kMilli;
  }
  return false;
}

}  // namespace

Result<ParquetSchema> SchemaFromParquet(const FileMetaData& md) {
  std::vector<std::vector<int>> children;
  TARN_RETURN_NOT_OK(BuildTree(md.schema, &children));
  ParquetSchema ps;
  Builder b{md.schema, children, &ps};
  const auto& fields = children[0];
  ps.schema.fields.resize(fields.size());
  ps.field_leaves.resize(fields.size());
  ps.unsupported.resize(fields.size());
  for (size_t f = 0; f < fields.size(); ++f) {
    const int node = fields[f];
    const SchemaElement& e = md.schema[node];
    Field& field = ps.schema.fields[f];
    field.name = e.name;
    field.field_id = e.field_id.value_or(-1);
    field.nullable = RepetitionOf(e) == Repetition::OPTIONAL;
    std::vector<std::string> path;
    std::vector<ListLevel> lists;
    b.CollectLeaves(node, static_cast<int>(f), &path, 0, 0, &lists);
    DataType type;
    int32_t elem_id = -1;
    bool elem_nullable = true;
    std::string why = b.NodeType(node, 0, &type, &elem_id, &elem_nullable);
    if (why.empty() && ps.field_leaves[f].size() != 1) why = "fields with several leaves";
    if (why.empty() &&
        ArrayDepth(type) != static_cast<int>(ps.leaves[ps.field_leaves[f][0]].lists.size())) {
      why = "unsupported nesting of repeated fields";
    }
    if (why.empty()) {
      const LeafColumn& leaf = ps.leaves[ps.field_leaves[f][0]];
      if (leaf.physical == Type::FIXED_LEN_BYTE_ARRAY && leaf.type_length <= 0) {
        return Status::Corruption("FIXED_LEN_BYTE_ARRAY column '" + e.name +
                                  "' has no positive type_length");
      }
      // Logical type UNKNOWN (Arrow's Null type): the values are all null, whatever the
      // repetition says; the type is the physical type's.
      const SchemaElement& le = md.schema[leaf.schema_index];
      const bool unknown = le.logical_type && le.logical_type->kind == LogicalType::UNKNOWN;
      field.type = type;
      if (type.id() == TypeId::kArray) {
        field.type = DataType::Array(type.element(), elem_id, elem_nullable || unknown);
      } else if (unknown) {
        field.nullable = true;
      }
    } else {
      field.type = DataType::Blob();
      ps.unsupported[f] = why;
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
