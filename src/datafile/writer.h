// Writing data files: a dataset's rows become sorted, partitioned Parquet files with the stats
// and partition values the catalog records; and the same description read from the footer of a
// file written elsewhere (add_files).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "objectstore/object_store.h"
#include "parquet/writer.h"
#include "tarn/column.h"
#include "tarn/data_file.h"
#include "tarn/partition.h"
#include "tarn/sort_order.h"
#include "tarn/status.h"

namespace tarn {

struct DataWriteOptions {
  parquet::WriterOptions parquet;
  std::string
      prefix;  // key prefix, e.g. "<dataset uuid>/data/" (a trailing '/' is added if absent)
  // Compute no column statistics: the files come back with stats_pending set, for hydration
  // from their footers later (DataFileFromFooter).
  bool defer_stats = false;
};

// Sorts `batches` by `sort`, splits the rows by partition tuple under `spec` and writes one
// Parquet file per partition (field ids from `schema`, the dataset's current schema) under
// `<prefix>[<partition path>/]<uuid v4>.parquet`. Batch columns are matched to `schema` by field
// id (by name when the batch has no ids) and must already have its types; a schema field missing
// from the batches is written as nulls when nullable. Returns one DataFile per file (stats by
// field id ascending, partition values, spec id); nothing is committed. No rows, no files.
// Errors: kInvalidArgument for a type mismatch, a missing NOT NULL column or a null in one, or a
// transform that does not apply; store errors as they come. On error, files already written
// are deleted (best effort).
Result<std::vector<DataFile>> WriteDataFiles(ObjectStore& store, const Schema& schema,
                                             const PartitionSpec& spec, const SortOrder& sort,
                                             const std::vector<RecordBatch>& batches,
                                             const DataWriteOptions& options);

// One data file of WriteDataFiles written a batch at a time, for rows that need neither sorting
// nor splitting by partition (all of `values`' partition): the same key, columns, statistics
// and errors, with memory bounded by the Parquet writer's row group, not the file. A writer
// destroyed before Finish succeeded deletes its file (best effort).
class DataFileWriter {
 public:
  // Opens `<prefix>[<partition path>/]<uuid v4>.parquet` for writing. Errors: the store's.
  static Result<std::unique_ptr<DataFileWriter>> Open(ObjectStore& store, const Schema& schema,
                                                      const PartitionSpec& spec,
                                                      const PartitionValues& values,
                                                      const DataWriteOptions& options);
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  const std::string& path() const;
  int64_t rows() const;  // written so far
  // Appends the batch's rows, matched to the schema as WriteDataFiles matches them.
  // Errors: WriteDataFiles's (the writer is unusable after one).
  Status Write(const RecordBatch& batch);
  // Closes the file and describes it (stats by field id ascending, partition values, spec
  // id). Once.
  Result<DataFile> Finish();

 private:
  struct State;
  explicit DataFileWriter(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// Describes an existing Parquet file from its footer (add_files): record count, size, and
// ColumnStats by `schema` field id (file columns matched by Parquet field id, or by name when
// the file has no ids). Bounds come from the footer's min/max (unset when a row group lacks
// them); NaN counts are unknown (unset); a column without null counts in every row group gets
// no stats entry; ARRAY columns get none either. Partition values are computed from the bounds
// of each partition source column: the file must hold one partition only.
// Errors: kInvalidArgument when a file column's type is neither the dataset's nor losslessly
// widenable to it, a NOT NULL column is missing or has nulls, or the file spans partitions (or
// its partition cannot be told from the stats); kCorruption for a malformed footer.
Result<DataFile> DataFileFromFooter(ObjectStore& store, std::string_view path, const Schema& schema,
                                    const PartitionSpec& spec);

}  // namespace tarn
