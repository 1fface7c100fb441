#include "datafile/reader.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "datafile/columns_internal.h"
#include "datafile/error_codes.h"
#include "datafile/page_pruning.h"
#include "parquet/bloom_filter.h"
#include "parquet/reader.h"
#include "table/field_path.h"
#include "tarn/sort_order.h"
#include "types/cast.h"

namespace tarn {

namespace {

using datafile_internal::CheckFileColumn;
using datafile_internal::ConformColumn;
using datafile_internal::FilterColumn;
using datafile_internal::FilterColumnsOf;
using datafile_internal::MatchFileFields;
using datafile_internal::SelectRows;

int SchemaIndexOf(const Schema& schema, int32_t field_id) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (schema.fields[i].field_id == field_id) return static_cast<int>(i);
  }
  return -1;
}

// Opens `file` and checks it against what the catalog says of it (size, rows): a file that
// disagrees is reported, never served as if it held what the catalog says.
Result<std::unique_ptr<parquet::FileReader>> OpenChecked(
    ObjectStore& store, const DataFile& file, int threads,
    std::shared_ptr<RandomAccessFile>* opened = nullptr) {
  TARN_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> in, store.OpenRead(file.path));
  if (opened != nullptr) *opened = in;
  auto mismatch = [&](const std::string& what, int64_t registered, int64_t actual) {
    return Status::Of(codes::kFileMetadataMismatch,
                      "data file '" + file.path +
                          "' disagrees with the catalog: " + std::to_string(registered) + " " +
                          what + " registered, " + std::to_string(actual) + " in the file")
        .WithField("path", file.path);
  };
  if (static_cast<uint64_t>(file.file_size_bytes) != in->Size()) {
    return mismatch("bytes", file.file_size_bytes, static_cast<int64_t>(in->Size()));
  }
  parquet::ReaderOptions ropts;
  ropts.threads = std::max(1, threads);
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader,
                        parquet::FileReader::Open(std::move(in), ropts));
  if (file.record_count != reader->num_rows()) {
    return mismatch("rows", file.record_count, reader->num_rows());
  }
  return reader;
}

// The row groups of `reader` that `filter` may match by the bloom filters of the columns and
// STRUCT members its equality and IN leaves compare (fields of `needed`, found in the file as
// `match` says), ascending; every row group when no leaf can ask one. A filter that cannot be
// read (or a file column of another type than the schema's) rules nothing out.
std::vector<int> RowGroupsByBloomFilters(const RandomAccessFile& in,
                                         const parquet::FileReader& reader, const Schema& needed,
                                         const std::vector<int>& match,
                                         const BoundPredicate& filter, ReadStats* stats) {
  const parquet::ParquetSchema& ps = reader.schema();
  std::vector<int> all(static_cast<size_t>(reader.num_row_groups()));
  for (size_t g = 0; g < all.size(); ++g) all[g] = static_cast<int>(g);
  // Field id -> the file's leaf column whose filter can be asked about the schema's values.
  std::vector<std::pair<int32_t, int>> leaves;
  for (const FilterColumn& c : FilterColumnsOf(filter, needed, ps, match)) {
    if (c.file_field < 0 || c.field.type.is_nested()) continue;
    if (!c.member && ps.field_leaves[c.file_field].size() != 1) continue;
    const int leaf = c.member ? c.member->leaf : ps.field_leaves[c.file_field][0];
    const DataType& file_type = c.member ? c.member->type : ps.schema.fields[c.file_field].type;
    if (file_type != c.field.type || !parquet::BloomFilterApplies(c.field.type, ps.leaves[leaf])) {
      continue;
    }
    leaves.emplace_back(c.field.field_id, leaf);
  }
  if (leaves.empty()) return all;
  std::vector<int> kept;
  for (int g : all) {
    const parquet::RowGroup& rg = reader.metadata().row_groups[g];
    // The filters of this row group, read when first asked (nullopt: none, or unreadable).
    std::vector<std::optional<std::optional<parquet::BloomFilter>>> filters(leaves.size());
    auto might_contain = [&](int32_t field_id, const Column& literals, int64_t i) {
      size_t j = 0;
      while (j < leaves.size() && leaves[j].first != field_id) ++j;
      if (j == leaves.size()) return true;
      if (!filters[j]) {
        const auto& chunk = rg.columns[leaves[j].second];
        std::optional<parquet::BloomFilter> read;
        if (chunk.meta_data && chunk.meta_data->bloom_filter_offset) {
          auto r = parquet::ReadBloomFilter(in, *chunk.meta_data);
          if (r.ok()) read = std::move(*r);
          if (stats != nullptr) ++stats->bloom_filters_read;
        }
        filters[j] = std::move(read);
      }
      const std::optional<parquet::BloomFilter>& f = *filters[j];
      return !f || parquet::BloomFilterMightContain(*f, literals, i);
    };
    if (MightMatchMembership(filter, might_contain)) kept.push_back(g);
  }
  return kept;
}

// One data file read as a dataset schema, a batch at a time (ReadDataFile,
// ReadDataFileBatches, DataFileBatches): Open resolves the columns and the rows to read,
// Next reads them.
class FileRead {
 public:
  ~FileRead() { AddStats(); }

  // `deleted` in any order; `filter` must outlive the read.
  Status Open(ObjectStore& store, const DataFile& data_file, const Schema& schema,
              std::vector<uint64_t> deleted_positions, const BoundPredicate* row_filter,
              const ReadOptions& read_options, int64_t most_rows);
  // The next batch (maybe without rows), nullopt after the last.
  Result<std::optional<RecordBatch>> Next();

 private:
  // The rows of `raw` (read from the file positions `read`, `rows` in all) made the schema's
  // and filtered.
  Result<RecordBatch> Finish(RecordBatch raw, const std::vector<std::pair<int64_t, int64_t>>& read,
                             int64_t rows);
  // What the read did, into options.stats (once).
  void AddStats();

  DataFile file;
  const BoundPredicate* filter = nullptr;
  ReadOptions options;
  int64_t batch_rows = 0;
  bool drop_ids = false;          // row ids read only for min_row_id
  std::vector<uint64_t> deleted;  // sorted
  // Schema fields to return, then the extra ones only the filter reads. A STRUCT member asked
  // for reads its column and is cut out of it (`members`).
  std::vector<int> out_fields;
  std::vector<std::optional<FieldPath>> members;
  std::vector<int> needed;
  Schema needed_schema;
  std::unique_ptr<parquet::FileReader> reader;
  int64_t file_rows = 0;
  std::vector<int> file_fields;  // distinct file fields to read, in read order
  std::vector<int> read_pos;     // per needed field: its place in file_fields, or -1
  int stored_ids_pos = -1;       // the stored row ids' place in file_fields, or -1
  // The rows to read: `selection` when a filter narrowed them, `spans` their file positions
  // [begin, end) in order (deletion vectors and row ids are by position in the file).
  int groups_in_file = 0;
  std::optional<parquet::RowSelection> selection;
  std::vector<std::pair<int64_t, int64_t>> spans;
  int64_t selected_rows = 0;
  int64_t skipped_by_bloom = 0, skipped_by_statistics = 0;
  // The read in progress: streamed batches (and the file position of the next), or one read.
  std::unique_ptr<parquet::BatchReader> batches;
  int64_t next_position = 0;
  bool done = false;
  bool stats_added = false;
};

Status FileRead::Open(ObjectStore& store, const DataFile& data_file, const Schema& schema,
                      std::vector<uint64_t> deleted_positions, const BoundPredicate* row_filter,
                      const ReadOptions& read_options, int64_t most_rows) {
  file = data_file;
  filter = row_filter;
  options = read_options;
  batch_rows = most_rows;
  deleted = std::move(deleted_positions);
  if (options.min_row_id && !options.with_row_ids) {
    // The row ids decide which rows stay: read them, then drop them.
    options.with_row_ids = true;
    drop_ids = true;
  }
  // Schema fields to return, then the extra ones only the filter reads. A STRUCT member asked
  // for reads its column and is cut out of it (`members`).
  if (options.field_ids.empty()) {
    for (size_t i = 0; i < schema.fields.size(); ++i) out_fields.push_back(static_cast<int>(i));
  } else {
    for (int32_t id : options.field_ids) {
      std::optional<FieldPath> path = FindFieldPath(schema, id);
      if (!path) {
        return Status::InvalidArgument("no field with id " + std::to_string(id) + " in the schema");
      }
      out_fields.push_back(path->indices[0]);
      members.resize(out_fields.size());
      if (path->nested()) members.back() = std::move(path);
    }
  }
  members.resize(out_fields.size());
  needed = out_fields;
  if (filter != nullptr) {
    for (int32_t id : ReferencedColumnIds(*filter)) {
      int idx = SchemaIndexOf(schema, id);
      if (idx < 0) {
        return Status::InvalidArgument("the filter reads field id " + std::to_string(id) +
                                       ", which is not in the schema");
      }
      if (std::find(needed.begin(), needed.end(), idx) == needed.end()) needed.push_back(idx);
    }
  }

  std::shared_ptr<RandomAccessFile> in;
  TARN_ASSIGN_OR_RETURN(reader, OpenChecked(store, file, options.threads, &in));
  file_rows = reader->num_rows();
  // Deleted positions in order (each batch looks up its own range).
  if (!std::is_sorted(deleted.begin(), deleted.end())) std::sort(deleted.begin(), deleted.end());
  if (!deleted.empty() && deleted.back() >= static_cast<uint64_t>(file_rows)) {
    return Status::Corruption("deleted position " + std::to_string(deleted.back()) +
                              " is past the end of the file (" + std::to_string(file_rows) +
                              " rows)");
  }

  // Resolve each needed schema field to a file field.
  for (int idx : needed) needed_schema.fields.push_back(schema.fields[idx]);
  const std::vector<int> match = MatchFileFields(reader->schema(), needed_schema);
  read_pos.assign(needed.size(), -1);
  for (size_t k = 0; k < needed.size(); ++k) {
    const Field& f = needed_schema.fields[k];
    if (match[k] < 0) {
      if (!f.nullable) {
        return Status::InvalidArgument("NOT NULL column '" + f.name + "' is missing from the file")
            .WithField("column", f.name);
      }
      continue;
    }
    TARN_RETURN_NOT_OK(CheckFileColumn(reader->schema(), match[k], f));
    auto it = std::find(file_fields.begin(), file_fields.end(), match[k]);
    read_pos[k] = static_cast<int>(it - file_fields.begin());
    if (it == file_fields.end()) file_fields.push_back(match[k]);
  }
  // A file that stores its rows' ids (compaction output): the column is read with the others.
  if (options.with_row_ids && file.StoresRowIds()) {
    Schema ids_schema;
    const Field idf = RowIdField();
    ids_schema.fields.push_back(idf);
    const std::vector<int> id_match = MatchFileFields(reader->schema(), ids_schema);
    if (id_match[0] < 0) {
      return Status::Corruption("the catalog says the file stores row ids, but it has no " +
                                std::string(kRowIdColumnName) + " column");
    }
    TARN_RETURN_NOT_OK(CheckFileColumn(reader->schema(), id_match[0], idf));
    stored_ids_pos = static_cast<int>(file_fields.size());
    file_fields.push_back(id_match[0]);
  }
  // With a filter, the rows to read: those of the row groups its bloom filters leave, and of
  // those (with prune_pages) the rows their page (or row group) statistics do not rule out.
  // `spans` are the file positions [begin, end) read, in order (deletion vectors and row ids
  // are by position in the file).
  groups_in_file = reader->num_row_groups();
  const std::vector<parquet::RowGroup>& rgs = reader->metadata().row_groups;
  selected_rows = file_rows;
  if (filter != nullptr) {
    const std::vector<int> groups =
        RowGroupsByBloomFilters(*in, *reader, needed_schema, match, *filter, options.stats);
    skipped_by_bloom = groups_in_file - static_cast<int64_t>(groups.size());
    parquet::RowSelection sel(static_cast<size_t>(groups_in_file));
    if (options.prune_pages) {
      const std::vector<FilterColumn> columns =
          FilterColumnsOf(*filter, needed_schema, reader->schema(), match);
      // Only the row groups the bloom filters left (nor is the page index of others read).
      TARN_ASSIGN_OR_RETURN(sel, SelectRows(*reader, *filter, columns, &groups));
    } else {
      for (int g : groups) {
        if (rgs[g].num_rows > 0) sel[g].push_back({0, rgs[g].num_rows});
      }
    }
    for (int g : groups) {
      if (sel[g].empty() && rgs[g].num_rows > 0) ++skipped_by_statistics;
    }
    int64_t start = 0, kept = 0;
    for (size_t g = 0; g < sel.size(); ++g) {
      for (const parquet::RowRange& r : sel[g]) {
        if (!spans.empty() && spans.back().second == start + r.begin) {
          spans.back().second = start + r.end;
        } else {
          spans.emplace_back(start + r.begin, start + r.end);
        }
        kept += r.end - r.begin;
      }
      start += rgs[g].num_rows;
    }
    if (kept < file_rows) {
      selection = std::move(sel);
      selected_rows = kept;
    } else {
      spans.clear();
    }
  }
  if (!selection) spans.emplace_back(0, file_rows);

  // A file larger than a batch with every row wanted streams; the rest is one read.
  if (!selection && batch_rows > 0 && file_rows > batch_rows && !file_fields.empty()) {
    TARN_ASSIGN_OR_RETURN(batches, reader->Batches(file_fields, batch_rows));
  }
  return Status::OK();
}

Result<std::optional<RecordBatch>> FileRead::Next() {
  if (done) return std::optional<RecordBatch>();
  if (batches) {
    TARN_ASSIGN_OR_RETURN(std::optional<RecordBatch> raw, batches->Next());
    if (!raw) {
      done = true;
      AddStats();
      if (next_position != file_rows) {
        return Status::Corruption("the row groups hold " + std::to_string(next_position) +
                                  " rows, the footer says " + std::to_string(file_rows));
      }
      return std::optional<RecordBatch>();
    }
    const int64_t n = raw->num_rows;
    next_position += n;
    TARN_ASSIGN_OR_RETURN(RecordBatch out,
                          Finish(std::move(*raw), {{next_position - n, next_position}}, n));
    return std::optional<RecordBatch>(std::move(out));
  }
  done = true;
  RecordBatch raw;
  if (!file_fields.empty()) {
    if (selection) {
      TARN_ASSIGN_OR_RETURN(raw, reader->ReadRows(*selection, file_fields));
    } else {
      TARN_ASSIGN_OR_RETURN(raw, reader->ReadAll(file_fields));
    }
    if (raw.num_rows != selected_rows) {
      return Status::Corruption("the row groups hold " + std::to_string(raw.num_rows) +
                                " rows, the footer says " + std::to_string(selected_rows));
    }
  }
  AddStats();
  TARN_ASSIGN_OR_RETURN(RecordBatch out, Finish(std::move(raw), spans, selected_rows));
  return std::optional<RecordBatch>(std::move(out));
}

Result<RecordBatch> FileRead::Finish(RecordBatch raw,
                                     const std::vector<std::pair<int64_t, int64_t>>& read,
                                     const int64_t rows) {
  RecordBatch work;
  work.schema = needed_schema;
  work.num_rows = rows;
  work.columns.reserve(needed.size());
  for (size_t k = 0; k < needed.size(); ++k) {
    const Field& f = needed_schema.fields[k];
    if (read_pos[k] < 0) {
      work.columns.push_back(Column::Nulls(f.type, rows));
      continue;
    }
    // A file field used twice is only possible with duplicate ids in the schema; copy then.
    const bool shared = std::count(read_pos.begin(), read_pos.end(), read_pos[k]) > 1;
    Column& src = raw.columns[read_pos[k]];
    if (src.type == f.type && !f.type.is_nested()) {
      work.columns.push_back(shared ? src.Clone() : std::move(src));
    } else {
      // Nested columns always conform: their members are matched by field id.
      Result<Column> cast = ConformColumn(shared ? src.Clone() : std::move(src), f.type);
      if (!cast.ok()) return cast.status().WithContext("column '" + f.name + "'");
      work.columns.push_back(std::move(cast).value());
    }
  }

  // Rows to keep: not deleted, and passing the filter.
  std::vector<uint8_t> mask;
  if (filter != nullptr) {
    TARN_ASSIGN_OR_RETURN(mask, EvaluatePredicate(*filter, work));
  }
  if (!deleted.empty()) {
    if (mask.empty()) mask.assign(static_cast<size_t>(rows), 1);
    // Positions are the file's; a row not read has no place in the mask.
    size_t s = 0;
    int64_t before = 0;  // rows read before read[s]
    auto it = std::lower_bound(deleted.begin(), deleted.end(),
                               static_cast<uint64_t>(read.empty() ? 0 : read.front().first));
    for (; it != deleted.end() && !read.empty() && static_cast<int64_t>(*it) < read.back().second;
         ++it) {
      const int64_t pos = static_cast<int64_t>(*it);
      while (s < read.size() && read[s].second <= pos) {
        before += read[s].second - read[s].first;
        ++s;
      }
      if (s < read.size() && read[s].first <= pos) mask[before + pos - read[s].first] = 0;
    }
  }

  RecordBatch out;
  out.num_rows = rows;
  for (size_t k = 0; k < out_fields.size(); ++k) {
    if (!members[k]) {
      out.schema.fields.push_back(work.schema.fields[k]);
      out.columns.push_back(std::move(work.columns[k]));
      continue;
    }
    // Named by its path; nullable whatever it is declared (a struct around it may be null).
    const FieldPath& m = *members[k];
    out.schema.fields.push_back({m.Text(), m.field->type, true, m.field->field_id});
    out.columns.push_back(TakeFieldPathColumn(std::move(work.columns[k]), m));
  }
  if (stored_ids_pos >= 0) {
    Column& ids = raw.columns[stored_ids_pos];
    if (ids.type != DataType::Int64() || ids.null_count() > 0) {
      return Status::Corruption("the file's " + std::string(kRowIdColumnName) +
                                " column is not a NOT NULL INT64");
    }
    out.schema.fields.push_back(RowIdField());
    out.columns.push_back(std::move(ids));
  } else if (options.with_row_ids) {
    if (file.first_row_id < 0) {
      return Status::InvalidArgument("the file has no row ids assigned (first_row_id unset)");
    }
    if (file.first_row_id > std::numeric_limits<int64_t>::max() - file_rows) {
      return Status::Corruption("row ids overflow: first_row_id " +
                                std::to_string(file.first_row_id));
    }
    Column ids(DataType::Int64());
    ids.data.resize(static_cast<size_t>(rows) * sizeof(int64_t));
    int64_t* v = ids.mutable_values<int64_t>();
    for (const auto& [begin, end] : read) {
      for (int64_t i = begin; i < end; ++i) *v++ = file.first_row_id + i;
    }
    ids.length = rows;
    out.schema.fields.push_back(RowIdField());
    out.columns.push_back(std::move(ids));
  }
  if (options.min_row_id) {
    const int64_t* ids = out.columns.back().values<int64_t>();
    if (mask.empty()) mask.assign(static_cast<size_t>(rows), 1);
    for (int64_t i = 0; i < rows; ++i) {
      if (ids[i] < *options.min_row_id) mask[i] = 0;
    }
  }
  if (drop_ids) {
    out.schema.fields.pop_back();
    out.columns.pop_back();
  }
  if (mask.empty()) return out;
  return FilterRows(out, mask);
}

void FileRead::AddStats() {
  if (stats_added || reader == nullptr) return;
  stats_added = true;
  if (options.stats != nullptr) {
    ReadStats& st = *options.stats;
    const parquet::ReadStats pages = reader->stats();
    ++st.files;
    st.row_groups += groups_in_file;
    st.row_groups_skipped_by_bloom_filter += skipped_by_bloom;
    if (groups_in_file > 0 && skipped_by_bloom == groups_in_file) {
      ++st.files_skipped_by_bloom_filter;
    }
    st.row_groups_skipped_by_statistics += skipped_by_statistics;
    st.data_pages_read += pages.data_pages_read;
    st.data_pages_skipped += pages.data_pages_skipped;
  }
}

}  // namespace

ReadStats& ReadStats::operator+=(const ReadStats& o) {
  files += o.files;
  row_groups += o.row_groups;
  row_groups_skipped_by_bloom_filter += o.row_groups_skipped_by_bloom_filter;
  files_skipped_by_bloom_filter += o.files_skipped_by_bloom_filter;
  bloom_filters_read += o.bloom_filters_read;
  row_groups_skipped_by_statistics += o.row_groups_skipped_by_statistics;
  data_pages_read += o.data_pages_read;
  data_pages_skipped += o.data_pages_skipped;
  return *this;
}

ReadStats ReadStats::operator-(const ReadStats& earlier) const {
  ReadStats d;
  d.files = files - earlier.files;
  d.row_groups = row_groups - earlier.row_groups;
  d.row_groups_skipped_by_bloom_filter =
      row_groups_skipped_by_bloom_filter - earlier.row_groups_skipped_by_bloom_filter;
  d.files_skipped_by_bloom_filter =
      files_skipped_by_bloom_filter - earlier.files_skipped_by_bloom_filter;
  d.bloom_filters_read = bloom_filters_read - earlier.bloom_filters_read;
  d.row_groups_skipped_by_statistics =
      row_groups_skipped_by_statistics - earlier.row_groups_skipped_by_statistics;
  d.data_pages_read = data_pages_read - earlier.data_pages_read;
  d.data_pages_skipped = data_pages_skipped - earlier.data_pages_skipped;
  return d;
}

Field RowIdField() {
  Field f;
  f.name = kRowIdColumnName;
  f.type = DataType::Int64();
  f.nullable = false;
  f.field_id = kRowIdFieldId;
  return f;
}

Result<RecordBatch> ReadDataFile(ObjectStore& store, const DataFile& file, const Schema& schema,
                                 const std::vector<uint64_t>& deleted, const BoundPredicate* filter,
                                 const ReadOptions& options) {
  FileRead read;
  Status st = read.Open(store, file, schema, deleted, filter, options, 0);
  if (!st.ok()) return st.WithContext("reading data file " + file.path);
  Result<std::optional<RecordBatch>> out = read.Next();
  if (!out.ok()) return out.status().WithContext("reading data file " + file.path);
  if (!*out) return Status::Internal("reading data file " + file.path + " gave no batch");
  return std::move(**out);
}

Status ReadDataFileBatches(ObjectStore& store, const DataFile& file, const Schema& schema,
                           const std::vector<uint64_t>& deleted, const BoundPredicate* filter,
                           const ReadOptions& options, int64_t batch_rows, const BatchFn& fn) {
  TARN_ASSIGN_OR_RETURN(
      std::unique_ptr<DataFileBatches> batches,
      DataFileBatches::Open(store, file, schema, deleted, filter, options, batch_rows));
  for (;;) {
    TARN_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, batches->Next());
    if (!b) return Status::OK();
    TARN_RETURN_NOT_OK(fn(std::move(*b)));  // the caller's error as it is
  }
}

struct DataFileBatches::State {
  std::string path;
  FileRead read;
};

DataFileBatches::DataFileBatches(std::unique_ptr<State> s) : s_(std::move(s)) {}
DataFileBatches::~DataFileBatches() = default;

Result<std::unique_ptr<DataFileBatches>> DataFileBatches::Open(
    ObjectStore& store, const DataFile& file, const Schema& schema, std::vector<uint64_t> deleted,
    const BoundPredicate* filter, const ReadOptions& options, int64_t batch_rows) {
  auto s = std::make_unique<State>();
  s->path = file.path;
  Status st = s->read.Open(store, file, schema, std::move(deleted), filter, options, batch_rows);
  if (!st.ok()) return st.WithContext("reading data file " + file.path);
  return std::unique_ptr<DataFileBatches>(new DataFileBatches(std::move(s)));
}

Result<std::optional<RecordBatch>> DataFileBatches::Next() {
  for (;;) {
    Result<std::optional<RecordBatch>> b = s_->read.Next();
    if (!b.ok()) return b.status().WithContext("reading data file " + s_->path);
    if (!*b || (*b)->num_rows > 0) return b;  // a batch left without rows is not handed on
  }
}

Result<parquet::RowSelection> SelectRowsByStatistics(const parquet::FileReader& reader,
                                                     const BoundPredicate& filter,
                                                     const Schema& schema) {
  const std::vector<int> match = MatchFileFields(reader.schema(), schema);
  return SelectRows(reader, filter, FilterColumnsOf(filter, schema, reader.schema(), match));
}

bool MayMatchByBloomFilters(ObjectStore& store, const DataFile& file, const Schema& schema,
                            const BoundPredicate& filter, ReadStats* stats) {
  std::shared_ptr<RandomAccessFile> in;
  Result<std::unique_ptr<parquet::FileReader>> reader = OpenChecked(store, file, 1, &in);
  if (!reader.ok()) return true;  // the scan that reads it says what is wrong
  ReadStats here;
  here.files = 1;
  const parquet::FileReader& r = **reader;
  const std::vector<int> groups = RowGroupsByBloomFilters(
      *in, r, schema, MatchFileFields(r.schema(), schema), filter, &here);
  const bool may = !groups.empty() || r.num_row_groups() == 0;
  if (!may) ++here.files_skipped_by_bloom_filter;
  if (stats != nullptr) *stats += here;
  return may;
}

Result<FileColumns> InspectDataFile(ObjectStore& store, const DataFile& file,
                                    const Schema& schema) {
  auto inspect = [&]() -> Result<FileColumns> {
    TARN_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> reader, OpenChecked(store, file, 1));
    const parquet::ParquetSchema& fs = reader->schema();
    FileColumns out;
    for (const Field& f : fs.schema.fields) out.by_field_id = out.by_field_id || f.field_id >= 0;
    const std::vector<int> match = MatchFileFields(fs, schema);
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      const Field& want = schema.fields[i];
      FileColumnMatch m = FileColumnMatch::kUnreadable;
      DataType type = want.type;
      if (match[i] < 0) {
        if (want.nullable) m = FileColumnMatch::kAbsent;
      } else if (CheckFileColumn(fs, match[i], want).ok()) {
        type = fs.schema.fields[match[i]].type;
        m = type == want.type ? FileColumnMatch::kSame : FileColumnMatch::kWidened;
      }
      out.fields.push_back(m);
      out.file_types.push_back(type);
    }
    return out;
  };
  Result<FileColumns> r = inspect();
  if (!r.ok()) return r.status().WithContext("inspecting data file " + file.path);
  return r;
}

}  // namespace tarn
