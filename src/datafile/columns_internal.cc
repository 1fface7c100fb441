#include "datafile/columns_internal.h"

#include <cmath>
#include <cstring>

#include "parquet/column_writer.h"
#include "types/cast.h"

namespace tarn::datafile_internal {

std::vector<int> MatchFileFields(const parquet::ParquetSchema& file, const Schema& schema) {
  const std::vector<Field>& ff = file.schema.fields;
  bool by_id = false;
  for (const Field& f : ff) by_id = by_id || f.field_id >= 0;
  std::vector<int> out(schema.fields.size(), -1);
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& want = schema.fields[i];
    for (size_t j = 0; j < ff.size(); ++j) {
      if (by_id ? (want.field_id >= 0 && ff[j].field_id == want.field_id)
                : ff[j].name == want.name) {
        out[i] = static_cast<int>(j);
        break;
      }
    }
  }
  return out;
}

namespace {

// The file member of a STRUCT that holds `want`: by field id when the file's members carry
// ids, else by name; -1 when the file has none.
int FileMember(const DataType& file, const Field& want) {
  bool by_id = false;
  for (const Field& m : file.children()) by_id = by_id || m.field_id >= 0;
  for (size_t i = 0; i < file.children().size(); ++i) {
    const Field& m = file.children()[i];
    if (by_id ? (want.field_id >= 0 && m.field_id == want.field_id) : m.name == want.name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool ScalarReads(const DataType& from, const DataType& to) {
  if (from == to || IsLosslessWidening(from, to)) return true;
  // A TIME file in a TIME[ns] column: every value fits, read and bounds are cast exactly (not a
  // schema widening, which would reinterpret stored microsecond bounds: types/cast.h).
  return from.id() == TypeId::kTime && to.id() == TypeId::kTime &&
         from.unit() == TimeUnit::kMicro && to.unit() == TimeUnit::kNano;
}

}  // namespace

std::optional<FileLeaf> FindFileStructLeaf(const parquet::ParquetSchema& file, int file_field,
                                           const Schema& schema, const FieldPath& path) {
  if (!file.unsupported[file_field].empty()) return std::nullopt;
  FileLeaf out;
  out.leaf = file.field_leaves[file_field][0];
  out.type = file.schema.fields[file_field].type;
  const DataType* want = &schema.fields[path.indices[0]].type;
  for (size_t level = 1; level < path.indices.size(); ++level) {
    if (out.type.id() != TypeId::kStruct || want->id() != TypeId::kStruct) return std::nullopt;
    const Field& member = want->children()[path.indices[level]];
    const int at = FileMember(out.type, member);
    if (at < 0) return std::nullopt;
    for (int k = 0; k < at; ++k) out.leaf += parquet::LeafCount(out.type.children()[k].type);
    out.type = out.type.children()[at].type;
    want = &member.type;
  }
  if (out.type.is_nested()) return std::nullopt;
  return out;
}

std::string NestedReadMismatch(const DataType& from, const DataType& to) {
  if (!to.is_nested() || !from.is_nested()) {
    if (to.is_nested() != from.is_nested() || !ScalarReads(from, to)) {
      return from.ToString() + " does not widen to " + to.ToString();
    }
    return {};
  }
  if (from.id() != to.id()) return from.ToString() + " is not " + to.ToString();
  if (to.id() != TypeId::kStruct) {  // ARRAY element, MAP key and value, position by position
    for (size_t i = 0; i < to.children().size(); ++i) {
      std::string why = NestedReadMismatch(from.children()[i].type, to.children()[i].type);
      if (!why.empty()) return to.children()[i].name + ": " + why;
    }
    return {};
  }
  for (const Field& want : to.children()) {
    int at = FileMember(from, want);
    if (at < 0) {
      if (!want.nullable) return "NOT NULL member " + want.name + " is missing from the file";
      continue;
    }
    std::string why = NestedReadMismatch(from.children()[at].type, want.type);
    if (!why.empty()) return want.name + ": " + why;
  }
  return {};
}

Result<Column> ConformColumn(Column src, const DataType& to) {
  if (!to.is_nested()) {
    if (src.type == to) return src;
    return CastColumn(src, to);
  }
  Column out(to);
  out.length = src.length;
  out.validity = std::move(src.validity);
  if (to.is_repeated()) out.offsets = std::move(src.offsets);
  if (to.id() == TypeId::kArray) {
    TARN_ASSIGN_OR_RETURN(*out.child, ConformColumn(std::move(*src.child), to.element()));
  } else if (to.id() == TypeId::kMap) {
    for (size_t i = 0; i < 2; ++i) {
      TARN_ASSIGN_OR_RETURN(out.members[i],
                            ConformColumn(std::move(src.members[i]), to.children()[i].type));
    }
  } else {
    for (size_t i = 0; i < to.children().size(); ++i) {
      const Field& want = to.children()[i];
      int at = FileMember(src.type, want);
      if (at < 0) {
        out.members[i] = Column::Nulls(want.type, src.length);
        continue;
      }
      Result<Column> member = ConformColumn(std::move(src.members[at]), want.type);
      if (!member.ok()) return member.status().WithContext("member " + want.name);
      out.members[i] = std::move(member).value();
    }
  }
  return out;
}

Status CheckFileColumn(const parquet::ParquetSchema& file, int file_field, const Field& to) {
  if (!file.unsupported[file_field].empty()) {
    return Status::InvalidArgument("column '" + to.name + "' cannot be read from the file: " +
                                   file.unsupported[file_field])
        .WithField("column", to.name);
  }
  const DataType& from = file.schema.fields[file_field].type;
  if (!from.is_nested() && !to.type.is_nested() && ScalarReads(from, to.type)) {
    return Status::OK();
  }
  const std::string why = NestedReadMismatch(from, to.type);
  if (why.empty()) return Status::OK();
  return Status::InvalidArgument("column '" + to.name + "' has type " + from.ToString() +
                                 " in the file, which does not widen to the dataset's " +
                                 to.type.ToString() + (from.is_nested() ? " (" + why + ")" : ""))
      .WithField("column", to.name);
}

void AppendScalarRow(const Column& src, int64_t row, Column* dst) {
  const int width = src.type.PhysicalWidth();
  if (width > 0) {
    dst->AppendFixedBytes(src.data.data() + row * width, width);
  } else {
    dst->AppendBytes(src.StringAt(row));
  }
}

namespace {

bool IsUnsignedType(const DataType& t) {
  switch (t.id()) {
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kIpv4:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool LegacyStatsUsable(const parquet::LeafColumn& leaf, const DataType& type) {
  switch (leaf.physical) {
    case parquet::Type::BOOLEAN:
    case parquet::Type::INT32:
    case parquet::Type::INT64:
    case parquet::Type::FLOAT:
    case parquet::Type::DOUBLE:
      return !IsUnsignedType(type);
    default:
      return false;
  }
}

bool WidenFloatBounds(Column* mins, Column* maxes) {
  const bool f32 = mins->type.id() == TypeId::kFloat32;
  bool usable = true;
  for (int64_t i = 0; i < mins->length; ++i) {
    double lo = f32 ? mins->Value<float>(i) : mins->Value<double>(i);
    double hi = f32 ? maxes->Value<float>(i) : maxes->Value<double>(i);
    if (std::isnan(lo) || std::isnan(hi)) usable = false;
    if (lo == 0 && !std::signbit(lo)) {
      if (f32) {
        mins->mutable_values<float>()[i] = -0.0f;
      } else {
        mins->mutable_values<double>()[i] = -0.0;
      }
    }
    if (hi == 0 && std::signbit(hi)) {
      if (f32) {
        maxes->mutable_values<float>()[i] = 0.0f;
      } else {
        maxes->mutable_values<double>()[i] = 0.0;
      }
    }
  }
  return usable;
}

}  // namespace tarn::datafile_internal
