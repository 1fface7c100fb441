#include "datafile/writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <utility>

#include "common/discard.h"
#include "common/random.h"
#include "datafile/columns_internal.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "parquet/stat_value.h"
#include "table/field_path.h"
#include "table/ordered_key.h"
#include "types/cast.h"
#include "types/value_text.h"

namespace tarn {

namespace {

using datafile_internal::AppendScalarRow;
using datafile_internal::CheckFileColumn;
using datafile_internal::FileLeaf;
using datafile_internal::FindFileStructLeaf;
using datafile_internal::LegacyStatsUsable;
using datafile_internal::MatchFileFields;
using datafile_internal::WidenFloatBounds;

// Forwards to a sink and counts the bytes, so the file size is known without a Head.
class CountingStream : public OutputStream {
 public:
  CountingStream(std::unique_ptr<OutputStream> inner, uint64_t* bytes)
      : inner_(std::move(inner)), bytes_(bytes) {}
  Status Write(const uint8_t* data, size_t n) override {
    TARN_RETURN_NOT_OK(inner_->Write(data, n));
    *bytes_ += n;
    return Status::OK();
  }
  uint64_t Tell() const override { return inner_->Tell(); }
  Status Close() override { return inner_->Close(); }

 private:
  std::unique_ptr<OutputStream> inner_;
  uint64_t* bytes_;
};

bool IsAligned(const RecordBatch& b, const Schema& schema) {
  if (b.columns.size() != schema.fields.size() || b.schema.fields.size() != schema.fields.size()) {
    return false;
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (b.schema.fields[i].field_id != schema.fields[i].field_id ||
        b.columns[i].type != schema.fields[i].type || b.columns[i].length != b.num_rows) {
      return false;
    }
  }
  return true;
}

// `b`'s columns in the order and under the field ids of `schema` (copies).
Result<RecordBatch> Align(const RecordBatch& b, const Schema& schema) {
  if (b.columns.size() != b.schema.fields.size()) {
    return Status::InvalidArgument("batch has " + std::to_string(b.columns.size()) +
                                   " columns and " + std::to_string(b.schema.fields.size()) +
                                   " fields");
  }
  RecordBatch out;
  out.schema = schema;
  out.num_rows = b.num_rows;
  for (const Field& f : schema.fields) {
    int found = -1;
    for (size_t j = 0; j < b.schema.fields.size() && found < 0; ++j) {
      const Field& bf = b.schema.fields[j];
      if (bf.field_id >= 0 ? bf.field_id == f.field_id : bf.name == f.name) {
        found = static_cast<int>(j);
      }
    }
    if (found < 0) {
      if (!f.nullable) {
        return Status::InvalidArgument("NOT NULL column '" + f.name + "' is missing")
            .WithField("column", f.name);
      }
      out.columns.push_back(Column::Nulls(f.type, b.num_rows));
      continue;
    }
    const Column& c = b.columns[found];
    if (c.type != f.type) {
      return Status::InvalidArgument("column '" + f.name + "' has type " + c.type.ToString() +
                                     ", the dataset's type is " + f.type.ToString())
          .WithField("column", f.name);
    }
    if (c.length != b.num_rows) {
      return Status::InvalidArgument("column '" + f.name + "' has " + std::to_string(c.length) +
                                     " rows in a batch of " + std::to_string(b.num_rows));
    }
    out.columns.push_back(c.Clone());
  }
  return out;
}

// Appends all rows of `src` to `dst` (same type).
void AppendColumn(const Column& src, Column* dst) {
  if (!src.validity.empty() || !dst->validity.empty()) {
    if (dst->validity.empty()) dst->validity.assign(static_cast<size_t>(dst->length), 1);
    if (src.validity.empty()) {
      dst->validity.insert(dst->validity.end(), static_cast<size_t>(src.length), 1);
    } else {
      dst->validity.insert(dst->validity.end(), src.validity.begin(), src.validity.end());
    }
  }
  if (src.type.id() == TypeId::kStruct || src.type.id() == TypeId::kVariant) {
    for (size_t m = 0; m < src.members.size(); ++m) AppendColumn(src.members[m], &dst->members[m]);
  } else if (src.type.is_variable_width() || src.type.is_repeated()) {
    const bool map = src.type.id() == TypeId::kMap;
    const int64_t base = map                    ? dst->members[0].length
                         : src.type.is_nested() ? dst->child->length
                                                : static_cast<int64_t>(dst->data.size());
    const int64_t first = src.offsets[0];
    for (int64_t i = 1; i <= src.length; ++i) dst->offsets.push_back(base + src.offsets[i] - first);
    if (map) {
      // Whole member columns: offsets of a batch's column start where its entries do.
      for (size_t m = 0; m < src.members.size(); ++m) {
        AppendColumn(src.members[m], &dst->members[m]);
      }
    } else if (src.type.is_nested()) {
      AppendColumn(*src.child, dst->child.get());
    } else {
      dst->data.insert(dst->data.end(), src.data.begin() + first,
                       src.data.begin() + src.offsets[src.length]);
    }
  } else {
    dst->data.insert(dst->data.end(), src.data.begin(), src.data.end());
  }
  dst->length += src.length;
}

RecordBatch Concat(const std::vector<const RecordBatch*>& parts, const Schema& schema) {
  RecordBatch out;
  out.schema = schema;
  for (const Field& f : schema.fields) out.columns.emplace_back(f.type);
  for (const RecordBatch* p : parts) {
    for (size_t i = 0; i < out.columns.size(); ++i) AppendColumn(p->columns[i], &out.columns[i]);
    out.num_rows += p->num_rows;
  }
  return out;
}

struct FileWrite {
  ObjectStore& store;
  const Schema& schema;
  const PartitionSpec& spec;
  const DataWriteOptions& options;
  std::vector<std::string> written;

  // Writes `parts` (aligned batches) as one file.
  Result<DataFile> Write(const std::vector<const RecordBatch*>& parts,
                         const PartitionValues& values) {
    TARN_ASSIGN_OR_RETURN(std::unique_ptr<DataFileWriter> w,
                          DataFileWriter::Open(store, schema, spec, values, options));
    written.push_back(w->path());
    for (const RecordBatch* b : parts) TARN_RETURN_NOT_OK(w->Write(*b));
    return w->Finish();
  }
};

}  // namespace

struct DataFileWriter::State {
  State(ObjectStore& st, Schema sc) : store(st), schema(std::move(sc)) {}
  ObjectStore& store;
  Schema schema;
  uint64_t bytes = 0;
  std::unique_ptr<parquet::FileWriter> writer;
  DataFile df;
  std::vector<FieldPath> members;  // STRUCT members, whose statistics are kept too
  bool finished = false;
};

DataFileWriter::DataFileWriter(std::unique_ptr<State> s) : s_(std::move(s)) {}

DataFileWriter::~DataFileWriter() {
  if (s_ && !s_->finished) {
    s_->writer.reset();  // an unclosed sink leaves no object; a half-closed one may
    DiscardError(s_->store.DeleteMany({s_->df.path}), "deleting an unfinished data file");
  }
}

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(ObjectStore& store,
                                                             const Schema& schema,
                                                             const PartitionSpec& spec,
                                                             const PartitionValues& values,
                                                             const DataWriteOptions& options) {
  std::string key = options.prefix;
  if (!key.empty() && key.back() != '/') key += '/';
  if (!spec.unpartitioned()) key += PartitionPath(spec, schema, values) + "/";
  key += NewUuidV4() + ".parquet";
  auto s = std::make_unique<State>(store, schema);
  DataFile& df = s->df;
  df.path = key;
  df.spec_id = spec.spec_id;
  df.partition = values;
  df.stats_pending = options.defer_stats;
  // Statistics of every column and every STRUCT member (by the member's field id, as
  // Iceberg keeps them: a predicate on `payload.status` prunes by them).
  if (!df.stats_pending) {
    ForEachStructMember(schema, [&](const FieldPath& p) { s->members.push_back(p); });
    df.columns.resize(schema.fields.size() + s->members.size());
  }
  WriteOptions wo;
  wo.if_absent = true;
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<OutputStream> sink, store.OpenWrite(key, wo));
  TARN_ASSIGN_OR_RETURN(s->writer, parquet::FileWriter::Open(
                                       std::make_unique<CountingStream>(std::move(sink), &s->bytes),
                                       schema, options.parquet));
  return std::unique_ptr<DataFileWriter>(new DataFileWriter(std::move(s)));
}

const std::string& DataFileWriter::path() const { return s_->df.path; }

int64_t DataFileWriter::rows() const { return s_->df.record_count; }

Status DataFileWriter::Write(const RecordBatch& batch) {
  if (s_->finished) return Status::Internal("a data file written after its Finish");
  if (batch.num_rows == 0) return Status::OK();
  RecordBatch aligned;
  const RecordBatch* b = &batch;
  if (!IsAligned(batch, s_->schema)) {
    TARN_ASSIGN_OR_RETURN(aligned, Align(batch, s_->schema));
    b = &aligned;
  }
  TARN_RETURN_NOT_OK(s_->writer->Write(*b));
  DataFile& df = s_->df;
  auto add = [&](size_t i, const Field& f, const Column& values) {
    ColumnStats st = ComputeColumnStats(f.field_id, values);
    if (df.record_count == 0) {
      df.columns[i] = std::move(st);
    } else {
      MergeColumnStats(f.type, st, &df.columns[i]);
    }
  };
  for (size_t i = 0; i < df.columns.size(); ++i) {
    if (i < s_->schema.fields.size()) {
      add(i, s_->schema.fields[i], b->columns[i]);
      continue;
    }
    const FieldPath& p = s_->members[i - s_->schema.fields.size()];
    Column scratch;
    add(i, *p.field, FieldPathColumn(b->columns[p.indices[0]], p, &scratch));
  }
  df.record_count += b->num_rows;
  return Status::OK();
}

Result<DataFile> DataFileWriter::Finish() {
  if (s_->finished) return Status::Internal("a data file finished twice");
  TARN_RETURN_NOT_OK(s_->writer->Close());
  s_->finished = true;
  DataFile df = std::move(s_->df);
  df.file_size_bytes = static_cast<int64_t>(s_->bytes);
  std::sort(df.columns.begin(), df.columns.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.field_id < b.field_id; });
  return df;
}

namespace {

Result<std::vector<DataFile>> WriteImpl(FileWrite& fw, const Schema& schema,
                                        const PartitionSpec& spec, const SortOrder& sort,
                                        const std::vector<RecordBatch>& batches) {
  // Batches in the schema's column order, copied only when they are not already.
  std::vector<RecordBatch> aligned_store;
  std::vector<const RecordBatch*> parts;
  for (const RecordBatch& b : batches) {
    if (b.num_rows == 0) continue;
    if (IsAligned(b, schema)) {
      parts.push_back(&b);
    } else {
      TARN_ASSIGN_OR_RETURN(RecordBatch a, Align(b, schema));
      aligned_store.push_back(std::move(a));
    }
  }
  for (RecordBatch& a : aligned_store) parts.push_back(&a);
  std::vector<DataFile> files;
  if (parts.empty()) return files;
  if (spec.unpartitioned() && sort.unsorted()) {
    TARN_ASSIGN_OR_RETURN(DataFile df, fw.Write(parts, PartitionValues{}));
    files.push_back(std::move(df));
    return files;
  }

  RecordBatch concat;
  const RecordBatch* all = parts[0];
  if (parts.size() > 1) {
    concat = Concat(parts, schema);
    all = &concat;
  }
  std::vector<PartitionGroup> groups;
  if (spec.unpartitioned()) {
    groups.emplace_back();  // rows filled by the sort below
  } else {
    TARN_ASSIGN_OR_RETURN(groups, GroupByPartition(spec, *all));
  }
  if (!sort.unsorted()) {
    TARN_ASSIGN_OR_RETURN(std::vector<int64_t> perm, SortPermutation(*all, sort));
    if (groups.size() == 1) {
      groups[0].rows = std::move(perm);
    } else {
      // Distribute the sorted rows to their groups: each group keeps the sorted order.
      std::vector<uint32_t> group_of(static_cast<size_t>(all->num_rows));
      for (size_t g = 0; g < groups.size(); ++g) {
        for (int64_t r : groups[g].rows) group_of[r] = static_cast<uint32_t>(g);
        groups[g].rows.clear();
      }
      for (int64_t r : perm) groups[group_of[r]].rows.push_back(r);
    }
  }
  for (const PartitionGroup& g : groups) {
    const bool identity = sort.unsorted() && groups.size() == 1 &&
                          static_cast<int64_t>(g.rows.size()) == all->num_rows;
    RecordBatch taken;
    const RecordBatch* b = all;
    if (!identity) {
      taken = TakeRows(*all, g.rows);
      b = &taken;
    }
    TARN_ASSIGN_OR_RETURN(DataFile df, fw.Write({b}, g.values));
    files.push_back(std::move(df));
  }
  return files;
}

// ---- Footer statistics ----

// What the footer tells about one column, in the dataset's type.
struct FooterColumn {
  int32_t field_id = 0;
  bool nulls_known = true;
  bool bounds_known = true;
  bool exact = true;  // min/max are values of the column (not truncated)
  int64_t values = 0;
  int64_t nulls = 0;
  Column mins, maxes;  // one row per row group with non-null values
};

// The statistics of leaf column `leaf_index` (of type `file_type` in the file) as `field`: a flat
// top-level column or a STRUCT member (one value per row either way).
Result<FooterColumn> ReadFooterColumn(const parquet::FileMetaData& md,
                                      const parquet::ParquetSchema& ps, int leaf_index,
                                      const DataType& file_type, const Field& field) {
  FooterColumn fc;
  fc.field_id = field.field_id;
  const parquet::LeafColumn& leaf = ps.leaves[leaf_index];
  fc.mins = Column(file_type);
  fc.maxes = Column(file_type);
  // Logical type UNKNOWN (Arrow's Null type) reads as nulls whatever the statistics say (arrow-rs
  // writes min = max = 0 and no nulls for a required one).
  const parquet::SchemaElement& element = md.schema[leaf.schema_index];
  const bool all_null = element.logical_type &&
                        element.logical_type->kind == parquet::LogicalType::UNKNOWN;
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const parquet::RowGroup& rg = md.row_groups[g];
    if (static_cast<size_t>(leaf_index) >= rg.columns.size()) {
      return Status::Corruption("row group " + std::to_string(g) + " has " +
                                std::to_string(rg.columns.size()) + " columns, the schema " +
                                std::to_string(ps.leaves.size()));
    }
    fc.values += rg.num_rows;
    if (all_null) {
      fc.nulls += rg.num_rows;
      continue;
    }
    const parquet::ColumnChunk& cc = rg.columns[leaf_index];
    const parquet::Statistics* st =
        cc.meta_data && cc.meta_data->statistics ? &*cc.meta_data->statistics : nullptr;
    if (st == nullptr || !st->null_count) {
      fc.nulls_known = false;
      fc.bounds_known = false;
      continue;
    }
    fc.nulls += *st->null_count;
    const std::optional<std::string>* lo = &st->min_value;
    const std::optional<std::string>* hi = &st->max_value;
    if (!lo->has_value() && !hi->has_value() && LegacyStatsUsable(leaf, file_type)) {
      lo = &st->min;
      hi = &st->max;
    }
    if (leaf.physical == parquet::Type::INT96) {
      fc.bounds_known = false;  // no defined order
      continue;
    }
    if (!lo->has_value() || !hi->has_value()) {
      // Fine only when the row group has no values.
      if (*st->null_count < rg.num_rows) fc.bounds_known = false;
      continue;
    }
    if (st->is_min_value_exact == false || st->is_max_value_exact == false) fc.exact = false;
    TARN_ASSIGN_OR_RETURN(Column lo_col, parquet::DecodeStatValue(md, leaf, file_type, **lo));
    TARN_ASSIGN_OR_RETURN(Column hi_col, parquet::DecodeStatValue(md, leaf, file_type, **hi));
    if (lo_col.length != 1 || hi_col.length != 1 || !lo_col.IsValid(0) || !hi_col.IsValid(0)) {
      fc.bounds_known = false;
      continue;
    }
    AppendScalarRow(lo_col, 0, &fc.mins);
    AppendScalarRow(hi_col, 0, &fc.maxes);
  }
  if (fc.nulls_known && (fc.nulls < 0 || fc.nulls > fc.values)) {
    return Status::Corruption("column '" + field.name + "' has a null count of " +
                              std::to_string(fc.nulls) + " in " + std::to_string(fc.values) +
                              " rows");
  }
  if (file_type != field.type) {
    TARN_ASSIGN_OR_RETURN(fc.mins, CastColumn(fc.mins, field.type));
    TARN_ASSIGN_OR_RETURN(fc.maxes, CastColumn(fc.maxes, field.type));
  }
  if (field.type.is_floating() && !WidenFloatBounds(&fc.mins, &fc.maxes)) {
    fc.bounds_known = false;
  }
  return fc;
}

ColumnStats StatsOf(const FooterColumn& fc) {
  ColumnStats st;
  if (fc.bounds_known && fc.mins.length > 0) {
    Column both(fc.mins.type);
    for (int64_t i = 0; i < fc.mins.length; ++i) AppendScalarRow(fc.mins, i, &both);
    for (int64_t i = 0; i < fc.maxes.length; ++i) AppendScalarRow(fc.maxes, i, &both);
    st = ComputeColumnStats(fc.field_id, both);
  }
  st.field_id = fc.field_id;
  st.value_count = fc.values;
  st.null_count = fc.nulls;
  st.nan_count.reset();
  if (!fc.bounds_known) {
    st.lower.reset();
    st.upper.reset();
  }
  return st;
}

// The partition value of a whole file for one spec field, from its source column's footer.
Result<std::optional<std::string>> FooterPartitionValue(const PartitionField& pf,
                                                        const Field& source,
                                                        const FooterColumn* fc) {
  if (pf.transform.kind == TransformKind::kVoid) return std::optional<std::string>();
  if (fc == nullptr) return std::optional<std::string>();  // column absent: all null
  auto cannot = [&](const std::string& why) {
    return Status::InvalidArgument("cannot tell the partition '" + pf.name +
                                   "' of the file: " + why)
        .WithField("column", source.name);
  };
  if (!fc->nulls_known) return cannot("no null count for column '" + source.name + "'");
  if (fc->nulls == fc->values) return std::optional<std::string>();
  if (!fc->bounds_known || fc->mins.length == 0) {
    return cannot("no min/max statistics for column '" + source.name + "'");
  }
  if (!fc->exact) return cannot("the min/max of column '" + source.name + "' are truncated");
  if (fc->nulls > 0) {
    return Status::InvalidArgument("the file spans partitions: column '" + source.name +
                                   "' has nulls and values (partition '" + pf.name + "')")
        .WithField("column", source.name);
  }
  Column both(fc->mins.type);
  for (int64_t i = 0; i < fc->mins.length; ++i) AppendScalarRow(fc->mins, i, &both);
  for (int64_t i = 0; i < fc->maxes.length; ++i) AppendScalarRow(fc->maxes, i, &both);
  const Column* check = &both;
  Column transformed;
  if (pf.transform.IsMonotone()) {
    TARN_ASSIGN_OR_RETURN(transformed, ApplyTransform(pf.transform, both));
    check = &transformed;
  }
  // Monotone: equal transformed bounds bound every value. Otherwise the column must be constant.
  const std::string first = OrderedKey(*check, 0);
  for (int64_t i = 1; i < check->length; ++i) {
    if (OrderedKey(*check, i) != first) {
      return Status::InvalidArgument("the file spans partitions: column '" + source.name +
                                     "' has values in several partitions of '" + pf.name + "'")
          .WithField("column", source.name);
    }
  }
  if (check == &both) {
    TARN_ASSIGN_OR_RETURN(transformed, ApplyTransform(pf.transform, both));
  }
  if (transformed.length < 1 || !transformed.IsValid(0)) return std::optional<std::string>();
  return std::optional<std::string>(ValueText(transformed, 0));
}

Result<DataFile> FromFooterImpl(ObjectStore& store, std::string_view path, const Schema& schema,
                                const PartitionSpec& spec) {
  TARN_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> file, store.OpenRead(path));
  TARN_ASSIGN_OR_RETURN(parquet::FileMetaData md, parquet::FileReader::ReadFooter(*file));
  TARN_ASSIGN_OR_RETURN(parquet::ParquetSchema ps, parquet::SchemaFromParquet(md));
  if (md.num_rows < 0) return Status::Corruption("negative row count in the footer");
  int64_t rg_rows = 0;
  for (const parquet::RowGroup& rg : md.row_groups) {
    if (rg.num_rows < 0 || rg.num_rows > md.num_rows - rg_rows) {
      return Status::Corruption("row group row counts do not add up to the file's " +
                                std::to_string(md.num_rows));
    }
    rg_rows += rg.num_rows;
  }
  if (rg_rows != md.num_rows) {
    return Status::Corruption("row groups hold " + std::to_string(rg_rows) +
                              " rows, the footer says " + std::to_string(md.num_rows));
  }

  DataFile df;
  df.path = std::string(path);
  df.record_count = md.num_rows;
  df.file_size_bytes = static_cast<int64_t>(file->Size());
  df.spec_id = spec.spec_id;

  const std::vector<int> match = MatchFileFields(ps, schema);
  std::map<int32_t, FooterColumn> by_id;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& f = schema.fields[i];
    if (match[i] < 0) {
      if (!f.nullable) {
        return Status::InvalidArgument("NOT NULL column '" + f.name + "' is missing from the file")
            .WithField("column", f.name);
      }
      continue;
    }
    TARN_RETURN_NOT_OK(CheckFileColumn(ps, match[i], f));
    if (f.type.is_nested()) continue;
    if (ps.field_leaves[match[i]].size() != 1) continue;
    Result<FooterColumn> fc = ReadFooterColumn(md, ps, ps.field_leaves[match[i]][0],
                                               ps.schema.fields[match[i]].type, f);
    if (!fc.ok()) return fc.status().WithContext("column '" + f.name + "'");
    if (!f.nullable && fc->nulls_known && fc->nulls > 0) {
      return Status::InvalidArgument("NOT NULL column '" + f.name + "' has " +
                                     std::to_string(fc->nulls) + " nulls in the file")
          .WithField("column", f.name);
    }
    if (fc->nulls_known) df.columns.push_back(StatsOf(*fc));
    by_id.emplace(f.field_id, std::move(fc).value());
  }
  // STRUCT members: their leaf columns' statistics, as the writer keeps them (by member id).
  std::vector<FieldPath> members;
  ForEachStructMember(schema, [&](const FieldPath& p) { members.push_back(p); });
  for (const FieldPath& p : members) {
    const int file_field = match[p.indices[0]];
    if (file_field < 0 || p.field->type.is_nested()) continue;
    const std::optional<FileLeaf> fl = FindFileStructLeaf(ps, file_field, schema, p);
    if (!fl) continue;
    Result<FooterColumn> fc = ReadFooterColumn(md, ps, fl->leaf, fl->type, *p.field);
    if (!fc.ok()) return fc.status().WithContext("column '" + p.Text() + "'");
    if (fc->nulls_known) df.columns.push_back(StatsOf(*fc));
    by_id.emplace(p.field->field_id, std::move(fc).value());
  }
  std::sort(df.columns.begin(), df.columns.end(),
            [](const ColumnStats& a, const ColumnStats& b) { return a.field_id < b.field_id; });

  for (const PartitionField& pf : spec.fields) {
    const std::optional<FieldPath> src = FindFieldPath(schema, pf.source_id);
    if (!src) {
      return Status::InvalidArgument("partition field '" + pf.name + "' has source id " +
                                     std::to_string(pf.source_id) + ", not in the schema");
    }
    auto it = by_id.find(pf.source_id);
    TARN_ASSIGN_OR_RETURN(
        std::optional<std::string> v,
        FooterPartitionValue(pf, *src->field, it == by_id.end() ? nullptr : &it->second));
    df.partition.push_back(std::move(v));
  }
  return df;
}

}  // namespace

Result<std::vector<DataFile>> WriteDataFiles(ObjectStore& store, const Schema& schema,
                                             const PartitionSpec& spec, const SortOrder& sort,
                                             const std::vector<RecordBatch>& batches,
                                             const DataWriteOptions& options) {
  FileWrite fw{store, schema, spec, options, {}};
  Result<std::vector<DataFile>> r = WriteImpl(fw, schema, spec, sort, batches);
  if (!r.ok() && !fw.written.empty()) {
    DiscardError(store.DeleteMany(fw.written), "deleting the files of a failed write");
  }
  return r;
}

Result<DataFile> DataFileFromFooter(ObjectStore& store, std::string_view path, const Schema& schema,
                                    const PartitionSpec& spec) {
  Result<DataFile> r = FromFooterImpl(store, path, schema, spec);
  if (!r.ok()) return r.status().WithContext("reading the footer of " + std::string(path));
  return r;
}

}  // namespace tarn
