#include "parquet/writer.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>

#include "common/text.h"
#include "parquet/column_writer.h"
#include "parquet/schema.h"

namespace tarn::parquet {
namespace {

constexpr char kMagic[] = "PAR1";
// Rows encoded per parallel step; between steps the writer checks the row group's byte size.
constexpr int64_t kSliceRows = 1 << 17;

// Below this many bytes of input a step runs on the calling thread: starting and waking
// workers costs more than encoding a small slice (a 10-row append spawned a thread per file).
constexpr int64_t kParallelBytes = 64 << 10;

// A small persistent pool: Run(n, fn, worth) runs fn(0..n-1) on the workers and the calling
// thread and returns when every call has returned; the workers start at the first step worth
// running in parallel (most files of small appends never start them). Run is called from one
// thread at a time.
class TaskPool {
 public:
  explicit TaskPool(int threads) : threads_(threads) {}
  ~TaskPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void Run(int n, const std::function<void(int)>& fn, bool worth) {
    if (threads_ <= 1 || n <= 1 || !worth) {
      for (int i = 0; i < n; ++i) fn(i);
      return;
    }
    if (workers_.empty()) {
      for (int i = 1; i < threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
    }
    {
      // A worker woken late for the previous round may still be inside Work(): let it leave
      // before the round's fields change under it.
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [this] { return busy_ == 0; });
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      pending_.store(n);
      ++generation_;
    }
    wake_.notify_all();
    Work();
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return pending_.load() == 0 && busy_ == 0; });
    fn_ = nullptr;
  }

 private:
  void Work() {
    while (true) {
      int i = next_.fetch_add(1);
      if (i >= n_) return;
      (*fn_)(i);
      if (pending_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(mu_);
        done_.notify_all();
      }
    }
  }

  void WorkerLoop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      ++busy_;
      lock.unlock();
      Work();
      lock.lock();
      --busy_;
      if (busy_ == 0 && pending_.load() == 0) done_.notify_all();
    }
  }

  const int threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  bool stop_ = false;
  uint64_t generation_ = 0;
  int busy_ = 0;
  const std::function<void(int)>* fn_ = nullptr;
  int n_ = 0;
  std::atomic<int> next_{0};
  std::atomic<int> pending_{0};
};

}  // namespace

class FileWriter::Impl {
 public:
  Impl(std::unique_ptr<OutputStream> sink, Schema schema, WriterOptions options)
      : sink_(std::move(sink)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        pool_(std::max(1, options_.threads)) {}

  Status Init() {
    if (options_.row_group_rows <= 0 || options_.row_group_bytes <= 0 ||
        options_.data_page_bytes <= 0 || options_.data_page_rows <= 0 ||
        options_.dictionary_page_bytes < 0) {
      return Status::InvalidArgument("writer options: sizes must be positive");
    }
    if (options_.data_page_version != 1 && options_.data_page_version != 2) {
      return Status::InvalidArgument("writer options: data_page_version must be 1 or 2");
    }
    if (schema_.fields.empty()) {
      return Status::InvalidArgument("a Parquet file needs at least one column");
    }
    TARN_ASSIGN_OR_RETURN(metadata_.schema, SchemaToParquet(schema_));
    ColumnWriterOptions co;
    co.codec = options_.codec;
    co.compression_level = options_.compression_level;
    co.data_page_bytes = options_.data_page_bytes;
    co.data_page_rows = options_.data_page_rows;
    co.dictionary_page_bytes = options_.dictionary_page_bytes;
    co.enable_dictionary = options_.enable_dictionary;
    co.write_statistics = options_.write_statistics;
    co.page_index = options_.page_index;
    co.data_page_version = options_.data_page_version;
    TARN_ASSIGN_OR_RETURN(std::vector<std::vector<bool>> bloom, BloomFilterLeaves());
    // One writer per leaf column, in file order: a STRUCT or MAP field has several.
    for (size_t i = 0; i < schema_.fields.size(); ++i) {
      const Field& f = schema_.fields[i];
      ColumnWriterOptions field_options = co;
      if (f.type.id() == TypeId::kVariant) {
        // A VARIANT has no statistics: bounds of its encoded bytes would order nothing.
        field_options.write_statistics = false;
        field_options.page_index = false;
      }
      for (int leaf = 0; leaf < LeafCount(f.type); ++leaf) {
        ColumnWriterOptions leaf_options = field_options;
        if (bloom[i][static_cast<size_t>(leaf)]) leaf_options.bloom_filter = options_.bloom_filter;
        TARN_ASSIGN_OR_RETURN(std::unique_ptr<ColumnChunkWriter> w,
                              ColumnChunkWriter::Make(f, leaf, leaf_options));
        columns_.push_back(std::move(w));
        column_field_.push_back(i);
      }
    }
    statuses_.resize(columns_.size());
    return Emit(kMagic, 4);
  }

  Status Write(const RecordBatch& batch) {
    TARN_RETURN_NOT_OK(CheckUsable());
    if (batch.columns.size() != schema_.fields.size()) {
      return Status::InvalidArgument("batch has " + std::to_string(batch.columns.size()) +
                                     " columns, the schema " +
                                     std::to_string(schema_.fields.size()));
    }
    for (size_t i = 0; i < batch.columns.size(); ++i) {
      const Column& c = batch.columns[i];
      if (c.length != batch.num_rows) {
        return Status::InvalidArgument("field " + schema_.fields[i].name + ": " +
                                       std::to_string(c.length) + " rows in a batch of " +
                                       std::to_string(batch.num_rows));
      }
      TARN_RETURN_NOT_OK(ValidateColumnForWrite(schema_.fields[i], c));
    }
    // Slices keep a row group's overshoot of row_group_bytes to about a quarter of it.
    int64_t row_bytes = batch.num_rows > 0 ? BatchBytes(batch) / batch.num_rows + 1 : 1;
    int64_t slice_rows =
        std::clamp<int64_t>(options_.row_group_bytes / 4 / row_bytes, 1, kSliceRows);
    int64_t done = 0;
    while (done < batch.num_rows) {
      int64_t n =
          std::min({batch.num_rows - done, options_.row_group_rows - row_group_rows_, slice_rows});
      int64_t begin = done;
      RunColumns(n * row_bytes, [&](size_t i) {
        return columns_[i]->WriteRows(batch.columns[column_field_[i]], begin, begin + n);
      });
      TARN_RETURN_NOT_OK(Sticky());
      TARN_RETURN_NOT_OK(CompressPending());
      done += n;
      row_group_rows_ += n;
      if (row_group_rows_ >= options_.row_group_rows ||
          BufferedBytes() >= options_.row_group_bytes) {
        TARN_RETURN_NOT_OK(FlushRowGroup());
      }
    }
    return Status::OK();
  }

  Status Close() {
    TARN_RETURN_NOT_OK(CheckUsable());
    if (row_group_rows_ > 0) TARN_RETURN_NOT_OK(FlushRowGroup());
    TARN_RETURN_NOT_OK(WritePageIndex());
    metadata_.version = options_.data_page_version;
    metadata_.num_rows = rows_written_;
    metadata_.created_by = options_.created_by;
    metadata_.column_orders_type_defined = true;
    for (const KeyValue& kv : options_.key_value_metadata) {
      if (kv.key != kTarnSchemaKey) metadata_.key_value_metadata.push_back(kv);
    }
    metadata_.key_value_metadata.push_back({kTarnSchemaKey, schema_.ToString()});
    ByteBuffer footer;
    EncodeFileMetaData(metadata_, &footer);
    if (footer.size() > std::numeric_limits<uint32_t>::max()) {
      return Fail(Status::TooLarge("footer exceeds 4 GiB"));
    }
    uint32_t len = static_cast<uint32_t>(footer.size());
    uint8_t tail[8];
    std::memcpy(tail, &len, 4);
    std::memcpy(tail + 4, kMagic, 4);
    footer.insert(footer.end(), tail, tail + 8);
    TARN_RETURN_NOT_OK(Emit(footer));
    Status st = sink_->Close();
    if (!st.ok()) return Fail(std::move(st));
    closed_ = true;
    return Status::OK();
  }

  const FileMetaData& metadata() const { return metadata_; }
  int64_t rows_written() const { return rows_written_ + row_group_rows_; }

 private:
  Status CheckUsable() const {
    if (closed_) return Status::FailedPrecondition("the Parquet writer is closed");
    if (!error_.ok()) {
      return Status(error_.kind(), "the Parquet writer failed earlier: " + error_.message());
    }
    return Status::OK();
  }

  // Which leaves get bloom filters (WriterOptions::bloom_filter_columns): per field, per leaf.
  Result<std::vector<std::vector<bool>>> BloomFilterLeaves() const {
    std::vector<std::vector<bool>> out;
    for (const Field& f : schema_.fields) out.emplace_back(LeafCount(f.type), false);
    if (options_.bloom_filter_columns.empty()) return out;
    if (!(options_.bloom_filter.fpp > 0 && options_.bloom_filter.fpp < 1) ||
        options_.bloom_filter.max_bytes < kBloomFilterMinBytes) {
      return Status::InvalidArgument(
          "writer options: a bloom filter's fpp is in (0, 1) and max_bytes at least 32");
    }
    for (const std::string& name : options_.bloom_filter_columns) {
      auto refuse = [&](const std::string& why) {
        return Status::InvalidArgument("bloom filter column '" + name + "' " + why)
            .WithField("column", name);
      };
      // A top-level field by name, else a STRUCT member by its dotted path.
      std::vector<std::string> path{name};
      int i = schema_.FieldIndex(name);
      if (i < 0) {
        path = SplitOn(name, '.');
        i = schema_.FieldIndex(path[0]);
      }
      if (i < 0) return refuse("is not in the schema");
      const Field* at = &schema_.fields[static_cast<size_t>(i)];
      size_t leaf = 0;  // of the field's leaves, the member's
      for (size_t level = 1; level < path.size(); ++level) {
        if (at->type.id() != TypeId::kStruct) return refuse("is not in the schema");
        Schema members;
        members.fields = at->type.children();
        const int m = members.FieldIndex(path[level]);
        if (m < 0) return refuse("is not in the schema");
        for (int k = 0; k < m; ++k) leaf += static_cast<size_t>(LeafCount(members.fields[k].type));
        at = &at->type.children()[static_cast<size_t>(m)];
      }
      if (!BloomFilterSupports(at->type)) {
        return refuse("is " + at->type.ToString() +
                      ": only flat, non-BOOLEAN columns and STRUCT members get bloom filters");
      }
      out[static_cast<size_t>(i)][leaf] = true;
    }
    return out;
  }

  // Writes the row group's bloom filters after its chunks, in column order, and points their
  // chunks at them.
  Status EmitBloomFilters(std::vector<std::optional<BloomFilter>>& filters, RowGroup* rg) {
    ByteBuffer bytes;
    for (size_t i = 0; i < filters.size(); ++i) {
      if (!filters[i]) continue;
      bytes.clear();
      EncodeBloomFilter(*filters[i], &bytes);
      filters[i].reset();
      ColumnMetaData& m = *rg->columns[i].meta_data;
      m.bloom_filter_offset = static_cast<int64_t>(sink_->Tell());
      m.bloom_filter_length = static_cast<int32_t>(bytes.size());
      TARN_RETURN_NOT_OK(Emit(bytes));
    }
    return Status::OK();
  }

  Status Fail(Status st) {
    error_ = st;
    return st;
  }

  Status Emit(const char* data, size_t n) {
    Status st = sink_->Write(reinterpret_cast<const uint8_t*>(data), n);
    if (!st.ok()) return Fail(std::move(st));
    return Status::OK();
  }

  Status Emit(const ByteBuffer& b) {
    return Emit(reinterpret_cast<const char*>(b.data()), b.size());
  }

  // `bytes`: about how much input the step has (is it worth the workers?).
  template <typename F>
  void RunColumns(int64_t bytes, F fn) {
    pool_.Run(
        static_cast<int>(columns_.size()), [&](int i) { statuses_[i] = fn(i); },
        bytes >= kParallelBytes);
  }

  // The first failure of the last parallel step; it breaks the writer (columns are out of step).
  Status Sticky() {
    for (Status& st : statuses_) {
      if (!st.ok()) return Fail(std::move(st));
    }
    return Status::OK();
  }

  // In-memory size of a batch's values (an estimate of its encoded size).
  static int64_t ColumnBytes(const Column& c) {
    int64_t n = static_cast<int64_t>(c.data.size() + c.validity.size() + c.offsets.size() * 4);
    if (c.child) n += ColumnBytes(*c.child);
    for (const Column& m : c.members) n += ColumnBytes(m);
    return n;
  }
  static int64_t BatchBytes(const RecordBatch& b) {
    int64_t n = 0;
    for (const Column& c : b.columns) n += ColumnBytes(c);
    return n;
  }

  // Compresses the pages every column has queued, as parallel tasks of one page each (so one
  // heavy column does not hold up the others).
  Status CompressPending() {
    tasks_.clear();
    for (size_t c = 0; c < columns_.size(); ++c) {
      for (int i = 0; i < columns_[c]->pending_pages(); ++i) tasks_.emplace_back(c, i);
    }
    if (tasks_.empty()) return Status::OK();
    task_statuses_.assign(tasks_.size(), Status::OK());
    pool_.Run(
        static_cast<int>(tasks_.size()),
        [&](int t) {
          task_statuses_[t] = columns_[tasks_[t].first]->CompressPage(tasks_[t].second);
        },
        BufferedBytes() >= kParallelBytes);
    for (Status& st : task_statuses_) {
      if (!st.ok()) return Fail(std::move(st));
    }
    for (auto& c : columns_) c->SettlePages();
    return Status::OK();
  }

  int64_t BufferedBytes() const {
    int64_t total = 0;
    for (const auto& c : columns_) total += c->buffered_bytes();
    return total;
  }

  Status FlushRowGroup() {
    RunColumns(BufferedBytes(), [&](size_t i) { return columns_[i]->CloseChunk(); });
    TARN_RETURN_NOT_OK(Sticky());
    TARN_RETURN_NOT_OK(CompressPending());
    std::vector<EncodedChunk> chunks(columns_.size());
    for (size_t i = 0; i < columns_.size(); ++i) columns_[i]->TakeChunk(&chunks[i]);
    RowGroup rg;
    rg.num_rows = row_group_rows_;
    rg.file_offset = static_cast<int64_t>(sink_->Tell());
    if (metadata_.row_groups.size() < static_cast<size_t>(INT16_MAX)) {
      rg.ordinal = static_cast<int16_t>(metadata_.row_groups.size());
    }
    int64_t compressed = 0;
    std::vector<std::optional<BloomFilter>> filters(chunks.size());
    for (size_t i = 0; i < chunks.size(); ++i) filters[i] = std::move(chunks[i].bloom_filter);
    for (EncodedChunk& ch : chunks) {
      int64_t start = static_cast<int64_t>(sink_->Tell());
      for (const EncodedPage& p : ch.pages) {
        TARN_RETURN_NOT_OK(Emit(reinterpret_cast<const char*>(p.data()), p.size()));
      }
      ColumnChunk cc;
      cc.file_offset = start;
      ColumnMetaData m = std::move(ch.meta);
      KeepPageIndex(metadata_.row_groups.size(), rg.columns.size(), start + m.data_page_offset, ch);
      m.data_page_offset += start;
      if (m.dictionary_page_offset) *m.dictionary_page_offset += start;
      rg.total_byte_size += m.total_uncompressed_size;
      compressed += m.total_compressed_size;
      cc.meta_data = std::move(m);
      rg.columns.push_back(std::move(cc));
      ch = EncodedChunk();  // release the pages
    }
    rg.total_compressed_size = compressed;
    TARN_RETURN_NOT_OK(EmitBloomFilters(filters, &rg));
    metadata_.row_groups.push_back(std::move(rg));
    rows_written_ += row_group_rows_;
    row_group_rows_ = 0;
    return Status::OK();
  }

  // The page index of a chunk just written (its first data page at file offset `first_page`),
  // encoded and held until Close writes it.
  void KeepPageIndex(size_t row_group, size_t column, int64_t first_page, const EncodedChunk& ch) {
    if (ch.page_entries.empty()) return;
    PendingPageIndex p;
    p.row_group = row_group;
    p.column = column;
    if (ch.column_index) EncodeColumnIndex(*ch.column_index, &p.column_index);
    EncodeOffsetIndex(BuildOffsetIndex(first_page, ch.page_entries), &p.offset_index);
    page_indexes_.push_back(std::move(p));
  }

  // Writes every column index, then every offset index (the layout of parquet-mr and Arrow),
  // and points the column chunks at them.
  Status WritePageIndex() {
    constexpr size_t kMaxIndex = static_cast<size_t>(std::numeric_limits<int32_t>::max());
    for (bool offsets : {false, true}) {
      for (PendingPageIndex& p : page_indexes_) {
        ByteBuffer& bytes = offsets ? p.offset_index : p.column_index;
        if (bytes.empty() || bytes.size() > kMaxIndex) continue;  // none, or not describable
        ColumnChunk& cc = metadata_.row_groups[p.row_group].columns[p.column];
        const int64_t at = static_cast<int64_t>(sink_->Tell());
        TARN_RETURN_NOT_OK(Emit(bytes));
        (offsets ? cc.offset_index_offset : cc.column_index_offset) = at;
        (offsets ? cc.offset_index_length : cc.column_index_length) =
            static_cast<int32_t>(bytes.size());
        bytes = ByteBuffer();
      }
    }
    page_indexes_.clear();
    return Status::OK();
  }

  struct PendingPageIndex {
    size_t row_group = 0, column = 0;
    ByteBuffer column_index;  // empty: the chunk has none
    ByteBuffer offset_index;
  };

  std::unique_ptr<OutputStream> sink_;
  Schema schema_;
  WriterOptions options_;
  TaskPool pool_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> columns_;  // one per leaf column
  std::vector<size_t> column_field_;                         // the schema field of each
  std::vector<Status> statuses_;
  std::vector<std::pair<size_t, int>> tasks_;  // (column, pending page) to compress
  std::vector<Status> task_statuses_;
  FileMetaData metadata_;
  std::vector<PendingPageIndex> page_indexes_;
  int64_t row_group_rows_ = 0;
  int64_t rows_written_ = 0;
  bool closed_ = false;
  Status error_;
};

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::unique_ptr<OutputStream> sink,
                                                     Schema schema, WriterOptions options) {
  if (sink == nullptr) return Status::InvalidArgument("no output stream");
  auto impl = std::make_unique<Impl>(std::move(sink), std::move(schema), std::move(options));
  TARN_RETURN_NOT_OK(impl->Init());
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(impl)));
}

FileWriter::FileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileWriter::~FileWriter() = default;

Status FileWriter::Write(const RecordBatch& batch) { return impl_->Write(batch); }
Status FileWriter::Close() { return impl_->Close(); }
const FileMetaData& FileWriter::metadata() const { return impl_->metadata(); }
int64_t FileWriter::rows_written() const { return impl_->rows_written(); }

}  // namespace tarn::parquet
