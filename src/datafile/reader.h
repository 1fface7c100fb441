// Reading one data file back as a dataset schema: schema evolution (field ids, added columns,
// promoted types), deletion vectors, row filters and row ids.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "objectstore/object_store.h"
#include "parquet/reader.h"
#include "table/predicate.h"
#include "tarn/column.h"
#include "tarn/data_file.h"
#include "tarn/status.h"

namespace tarn {

// Name of the row id column appended by ReadOptions::with_row_ids (its field id is
// kRowIdFieldId, tarn/data_file.h).
inline constexpr const char* kRowIdColumnName = "_tarn_row_id";
// That column as a field: kRowIdColumnName, NOT NULL INT64, field id kRowIdFieldId.
Field RowIdField();

// What reads did, added up over every read given the same ReadStats (ReadOptions::stats). A read
// with a filter first asks the bloom filters, then the statistics (page index, or row group
// bounds) of the row groups they leave, and reads only the rows both allow.
struct ReadStats {
  int64_t files = 0;       // files opened
  int64_t row_groups = 0;  // their row groups
  // Row groups the filter's equality and IN leaves ruled out by their bloom filters (no column
  // of them read), and files all of whose row groups they ruled out.
  int64_t row_groups_skipped_by_bloom_filter = 0;
  int64_t files_skipped_by_bloom_filter = 0;
  int64_t bloom_filters_read = 0;
  // Of the row groups the bloom filters left, those whose page or row group statistics rule the
  // filter out (ReadOptions::prune_pages; no column of them read).
  int64_t row_groups_skipped_by_statistics = 0;
  // Data pages decoded, and data pages of the row groups read left unread (page index).
  int64_t data_pages_read = 0;
  int64_t data_pages_skipped = 0;

  ReadStats& operator+=(const ReadStats& o);
  // What happened between two readings of the same running totals (`*this` the later one).
  ReadStats operator-(const ReadStats& earlier) const;
};

struct ReadOptions {
  // Columns wanted, in this order; empty = all of `schema`. A STRUCT member's id gives that
  // member as a column named by its dotted path (`payload.status`), null where a struct around
  // it is.
  std::vector<int32_t> field_ids;
  bool with_row_ids = false;
  // Only rows whose row id is at least this (an incremental read: the rows given out after a
  // snapshot, whose watermark this is; rows a compaction rewrote keep their older ids).
  std::optional<int64_t> min_row_id;
  int threads = 1;  // Parquet decoding threads
  // With a filter: read only the rows whose pages (Parquet page index) or row groups
  // (statistics) the filter does not rule out. The result is the same either way. (Bloom
  // filters rule out row groups whatever this says.)
  bool prune_pages = true;
  ReadStats* stats = nullptr;  // when set, what the read did is added to it
};

// Reads one data file as `schema` (the snapshot's schema): columns resolved by Parquet field id
// (by name when the file has no field ids), missing columns all null, promoted types widened
// with types/cast.h. Drops rows at `deleted` positions (sorted, unique), then rows failing
// `filter` (may be null; it may reference columns outside field_ids). With with_row_ids,
// appends a NOT NULL INT64 column kRowIdColumnName: the file's stored ids when it stores them
// (DataFile::StoresRowIds, compaction output), else file.first_row_id + position in the file.
// With min_row_id, rows with a lower id are dropped too. With a filter, the bloom filters of the
// columns its equality and IN leaves compare (parquet/bloom_filter.h; only where the file's
// column has the schema's type) rule out row groups before any column of them is read; a filter
// that cannot be read rules nothing out. Then, of the row groups left, pages and row groups
// whose statistics rule the filter out are not read (ReadOptions::prune_pages).
// Errors: kInvalidArgument for an unknown field id, a missing NOT NULL column, a file column of
// a type that does not widen to the schema's, or row ids asked of a file without first_row_id;
// kCorruption for a malformed file, a record count that disagrees with the file, or a deleted
// position past the end; store errors as they come.
Result<RecordBatch> ReadDataFile(ObjectStore& store, const DataFile& file, const Schema& schema,
                                 const std::vector<uint64_t>& deleted, const BoundPredicate* filter,
                                 const ReadOptions& options);

// Receives the batches of a read; an error stops the read and is its result.
using BatchFn = std::function<Status(RecordBatch&&)>;

// ReadDataFile's rows in batches of at most `batch_rows` rows, in file order, for a reader that
// need not hold a whole file: a file of more rows whose rows are all read (no filter, or one its
// statistics rule nothing out of) is decoded a few pages at a time
// (parquet::FileReader::ReadBatches), each batch then filtered and cut as ReadDataFile does, so
// a batch may hold fewer rows. Any other read is one batch. A batch left without rows is not
// handed on. `batch_rows` <= 0: one batch. Errors as ReadDataFile's, possibly after some
// batches were handed on, or `fn`'s as it returned them.
Status ReadDataFileBatches(ObjectStore& store, const DataFile& file, const Schema& schema,
                           const std::vector<uint64_t>& deleted, const BoundPredicate* filter,
                           const ReadOptions& options, int64_t batch_rows, const BatchFn& fn);

// ReadDataFileBatches pulled a batch at a time (for a reader that is itself pulled, like a
// DuckDB table function). `filter` must outlive it; `deleted` in any order.
class DataFileBatches {
 public:
  // Opens the file and resolves what to read (errors as ReadDataFile's, naming the file).
  static Result<std::unique_ptr<DataFileBatches>> Open(
      ObjectStore& store, const DataFile& file, const Schema& schema, std::vector<uint64_t> deleted,
      const BoundPredicate* filter, const ReadOptions& options, int64_t batch_rows);
  ~DataFileBatches();
  DataFileBatches(const DataFileBatches&) = delete;
  DataFileBatches& operator=(const DataFileBatches&) = delete;
  // The next batch with rows; nullopt after the last. ReadOptions::stats gets what the read did
  // when it ends or is dropped.
  Result<std::optional<RecordBatch>> Next();

 private:
  struct State;
  explicit DataFileBatches(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// Planning by bloom filters: false only when `file`'s bloom filters rule out every row group
// for the equality and IN leaves of `filter` (bound to `schema`, matched to the file's fields
// as ReadDataFile matches them), so no row of it can match. Reads the footer and the filters
// asked, never a data page. A file that cannot be opened or read, or has no filter for those
// columns, may match: the scan that reads it says what is wrong. `stats`: files (1),
// bloom_filters_read, files_skipped_by_bloom_filter.
bool MayMatchByBloomFilters(ObjectStore& store, const DataFile& file, const Schema& schema,
                            const BoundPredicate& filter, ReadStats* stats = nullptr);

// The rows of an open Parquet file that may satisfy `filter` (bound to `schema`, whose fields
// are matched to the file's as ReadDataFile matches them), from page bounds and null counts
// (the page index's column index) or row group statistics where a chunk has none: a superset
// of the matching rows, to read with FileReader::ReadRows and filter. A column the file lacks
// or holds in a type that does not widen to the schema's never prunes. Errors: I/O errors
// reading the page index.
Result<parquet::RowSelection> SelectRowsByStatistics(const parquet::FileReader& reader,
                                                     const BoundPredicate& filter,
                                                     const Schema& schema);

// How one field of a schema is found in a data file (InspectDataFile).
enum class FileColumnMatch : uint8_t {
  kSame,        // a column of the schema's type
  kWidened,     // a column of a type that widens losslessly to the schema's (types/cast.h)
  kAbsent,      // no such column: it reads as NULL (a NOT NULL field is kUnreadable instead)
  kUnreadable,  // a column ReadDataFile refuses (a type that does not widen, or unsupported)
};

struct FileColumns {
  bool by_field_id = false;  // the file's columns carry field ids (else they match by name)
  std::vector<FileColumnMatch> fields;  // per field of the schema, in order
  std::vector<DataType> file_types;     // per field: the file column's type (kSame, kWidened)
};

// What `file` holds for each field of `schema`, from its footer alone: for an engine that reads
// the file itself. The file is checked against the catalog as ReadDataFile checks it.
// Errors: kFileMetadataMismatch when its size or row count disagrees with `file`; kCorruption
// for a malformed footer; store errors as they come.
Result<FileColumns> InspectDataFile(ObjectStore& store, const DataFile& file, const Schema& schema);

}  // namespace tarn
