#include "datafile/columns_internal.h"

#include <cmath>
#include <cstring>

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

Status CheckFileColumn(const parquet::ParquetSchema& file, int file_field, const Field& to) {
  if (!file.unsupported[file_field].empty()) {
    return Status::InvalidArgument("column '" + to.name + "' cannot be read from the file: " +
                                   file.unsupported[file_field])
        .WithField("column", to.name);
  }
  const DataType& from = file.schema.fields[file_field].type;
  if (from == to.type || IsLosslessWidening(from, to.type)) return Status::OK();
  // A TIME file in a TIME[ns] column: every value fits, read and bounds are cast exactly (not a
  // schema widening, which would reinterpret stored microsecond bounds: types/cast.h).
  if (from.id() == TypeId::kTime && to.type.id() == TypeId::kTime &&
      from.unit() == TimeUnit::kMicro && to.type.unit() == TimeUnit::kNano) {
    return Status::OK();
  }
  return Status::InvalidArgument("column '" + to.name + "' has type " + from.ToString() +
                                 " in the file, which does not widen to the dataset's " +
                                 to.type.ToString())
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
