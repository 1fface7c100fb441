// Reading Parquet files into RecordBatches.
//
// Thread safety: a FileReader is immutable after Open; ReadRowGroup may be called from several
// threads at once. Every malformed byte sequence yields kCorruption naming what is wrong
// (file, row group, column, page), never a crash.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "common/io.h"
#include "parquet/metadata.h"
#include "parquet/page_index.h"
#include "parquet/schema.h"
#include "tarn/column.h"

namespace tarn::parquet {

struct ReaderOptions {
  // Threads used to decode the columns of a row group in parallel (1 = calling thread only).
  int threads = 2;
  // With an empty field list, leave out fields tarn cannot read (a MAP without values, ...)
  // instead of failing with kInvalidArgument.
  bool skip_unsupported = false;
};

// Per row group (all of the file's, in order): the rows to read, as sorted, disjoint,
// non-empty ranges relative to the group's first row. A group without ranges is not read.
using RowSelection = std::vector<std::vector<RowRange>>;

// The page index of one column chunk, as far as the file has a usable one.
struct ChunkPageIndex {
  std::optional<OffsetIndex> offset_index;
  std::optional<ColumnIndex> column_index;  // only set together with offset_index
};

// What a FileReader has read since Open (every thread's reads added up).
struct ReadStats {
  int64_t data_pages_read = 0;     // data pages decoded
  int64_t data_pages_skipped = 0;  // data pages of read row groups left unread (page index)
  int64_t row_groups_skipped = 0;  // row groups a RowSelection left out entirely
};

class BatchReader;

class FileReader {
 public:
  // Reads and validates the footer. kCorruption if the file is not Parquet or is truncated.
  static Result<std::unique_ptr<FileReader>> Open(std::shared_ptr<RandomAccessFile> file,
                                                  ReaderOptions options = {});
  // Reads only the footer with ranged reads (the last 64 KiB, then the rest if needed).
  static Result<FileMetaData> ReadFooter(const RandomAccessFile& file);

  const FileMetaData& metadata() const { return metadata_; }
  const ParquetSchema& schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }

  // Reads one row group. `fields` are indices of top-level fields (empty = every field; an
  // unsupported field named here is kInvalidArgument, skipped silently when `fields` is empty
  // only if `skip_unsupported`). The batch schema holds the selected fields in that order.
  Result<RecordBatch> ReadRowGroup(int row_group, const std::vector<int>& fields = {}) const;
  // All row groups concatenated.
  Result<RecordBatch> ReadAll(const std::vector<int>& fields = {}) const;
  // The listed row groups (ascending indices), concatenated in that order.
  Result<RecordBatch> ReadRowGroupSubset(const std::vector<int>& row_groups,
                                         const std::vector<int>& fields = {}) const;
  // The selected rows of every row group, concatenated (fields as for ReadRowGroup). In a row
  // group read in part, a column with a usable offset index reads and decodes only its data
  // pages that hold selected rows (and its dictionary page); one without reads its whole chunk.
  // Either way the result holds exactly the selected rows. kInvalidArgument when `rows` does
  // not have one entry per row group or its ranges are not sorted, disjoint and inside their
  // group; kCorruption when a page disagrees with the offset index.
  Result<RecordBatch> ReadRows(const RowSelection& rows, const std::vector<int>& fields = {}) const;
  // Every row group in order (fields as for ReadRowGroup), handed to `fn` in batches of at most
  // `batch_rows` rows: consecutive row groups that fit together make one batch; a larger row
  // group is decoded a few pages at a time and cut into batches of `batch_rows` (its last one
  // shorter), so memory holds its compressed chunks and one batch, not the decoded group. A
  // flat column's pages are each decoded once, with its dictionary once per chunk; a field of
  // several leaves (STRUCT, MAP, LIST) is decoded whole per row group and cut. No batch for a
  // file without rows. `batch_rows` <= 0: one batch of every row (ReadAll). Stops at the first
  // error of the file or of `fn`, which it returns.
  Status ReadBatches(const std::vector<int>& fields, int64_t batch_rows,
                     const std::function<Status(RecordBatch&&)>& fn) const;
  // The batches of ReadBatches, pulled one at a time (the reader must outlive them).
  // kInvalidArgument for fields as ReadRowGroup's.
  Result<std::unique_ptr<BatchReader>> Batches(const std::vector<int>& fields,
                                               int64_t batch_rows) const;

  // The page indexes of the chunks (row group, leaf column index into schema().leaves), in that
  // order, read with as few ranged reads as their layout allows (they lie together before the
  // footer). A chunk without a page index, or whose index does not decode or does not agree with
  // its chunk (pages outside it, rows out of order, lists of other lengths) gets an empty entry:
  // the index only ever saves work. The column index is read only with `with_column_index`.
  // Errors: I/O errors of the file, kInvalidArgument for a chunk out of range.
  Result<std::vector<ChunkPageIndex>> ReadPageIndex(const std::vector<std::pair<int, int>>& chunks,
                                                    bool with_column_index) const;

  ReadStats stats() const;

 private:
  FileReader() = default;
  std::shared_ptr<RandomAccessFile> file_;
  ReaderOptions options_;
  FileMetaData metadata_;
  ParquetSchema schema_;
  mutable std::atomic<int64_t> pages_read_{0}, pages_skipped_{0}, groups_skipped_{0};
};

// FileReader::Batches: the next batch on each call. Not thread-safe (one puller); several may
// read one FileReader at once.
class BatchReader {
 public:
  ~BatchReader();
  BatchReader(const BatchReader&) = delete;
  BatchReader& operator=(const BatchReader&) = delete;
  // The next batch; nullopt after the last. After an error the reader is done with.
  Result<std::optional<RecordBatch>> Next();

 private:
  friend class FileReader;
  struct State;
  explicit BatchReader(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace tarn::parquet
