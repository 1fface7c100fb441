#include "formats/parquet_source.h"

#include "formats/error_codes.h"
#include "types/cast.h"

namespace tarn::formats {

ParquetSource::~ParquetSource() = default;

Result<std::unique_ptr<ParquetSource>> ParquetSource::Open(std::shared_ptr<RandomAccessFile> file,
                                                           std::string name, const Schema& target) {
  std::unique_ptr<ParquetSource> s(new ParquetSource());
  parquet::ReaderOptions ro;
  ro.threads = 1;
  auto reader = parquet::FileReader::Open(std::move(file), ro);
  if (!reader.ok()) {
    return std::move(reader).status().WithContext(name).WithCode(codes::kFormatUnreadable);
  }
  s->reader_ = std::move(reader).value();
  s->name_ = std::move(name);
  s->target_ = target;
  const Schema& file_schema = s->reader_->schema().schema;
  std::vector<std::string> names;
  for (const Field& f : file_schema.fields) names.push_back(f.name);
  TARN_ASSIGN_OR_RETURN(s->mapping_, internal::MapColumns(names, target));
  for (size_t t = 0; t < target.fields.size(); ++t) {
    const int i = s->mapping_.target_to_input[t];
    if (i < 0) continue;
    const Field& from = file_schema.fields[i];
    const Field& to = target.fields[t];
    if (!s->reader_->schema().unsupported[i].empty()) {
      return Status::Of(codes::kValueNotCastable,
                        "column '" + from.name + "': " + s->reader_->schema().unsupported[i])
          .WithField("column", to.name);
    }
    if (!CanCast(from.type, to.type)) {
      return Status::Of(codes::kValueNotCastable,
                        "column '" + from.name + "' is " + from.type.ToString() +
                            " in the file and cannot be cast to " + to.type.ToString())
          .WithField("column", to.name)
          .WithField("from", from.type.ToString())
          .WithField("to", to.type.ToString());
    }
  }
  return s;
}

Result<std::optional<RecordBatch>> ParquetSource::Next() {
  while (next_row_group_ < reader_->num_row_groups()) {
    const int rg = next_row_group_++;
    auto read = reader_->ReadRowGroup(rg);
    if (!read.ok()) return std::move(read).status().WithContext(name_);
    RecordBatch in = std::move(read).value();
    if (in.num_rows == 0) continue;
    RecordBatch out;
    out.schema = target_;
    out.num_rows = in.num_rows;
    for (size_t t = 0; t < target_.fields.size(); ++t) {
      const Field& field = target_.fields[t];
      const int i = mapping_.target_to_input[t];
      if (i < 0) {
        out.columns.push_back(Column::Nulls(field.type, in.num_rows));
        continue;
      }
      Column col = std::move(in.columns[i]);
      if (col.type != field.type) {
        auto cast = CastColumn(col, field.type);
        if (!cast.ok()) {
          const Status& st = cast.status();
          int64_t row = 0;
          std::string value;
          for (const auto& [k, v] : st.fields()) {
            if (k == "row") row = std::strtoll(v.c_str(), nullptr, 10);
            if (k == "value") value = v;
          }
          return internal::ValueNotCastable(field.name, rows_before_ + row + 1, value,
                                            st.message());
        }
        col = std::move(cast).value();
      }
      if (!field.nullable && !col.validity.empty()) {
        for (int64_t r = 0; r < col.length; ++r) {
          if (!col.IsValid(r)) {
            return internal::NullNotAllowed(field.name, rows_before_ + r + 1, "null");
          }
        }
      }
      out.columns.push_back(std::move(col));
    }
    rows_before_ += in.num_rows;
    return std::optional<RecordBatch>(std::move(out));
  }
  return std::optional<RecordBatch>();
}

}  // namespace tarn::formats
