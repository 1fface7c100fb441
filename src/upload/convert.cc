#include "upload/convert.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <utility>

#include "common/bounded_queue.h"
#include "formats/error_codes.h"
#include "formats/format.h"
#include "formats/infer.h"
#include "formats/reader_common.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "table/schema_json.h"
#include "types/batch.h"

namespace tarn::upload {

namespace {

// Prefix of the first CSV/NDJSON input that inference looks at (as the upload samples do).
constexpr size_t kSampleBytes = 4u << 20;
// Rows per batch: the CSV reader converts a batch column by column, so a batch whose input stays
// in the core's cache (16Ki rows of ~200 bytes: ~3 MB) parses faster (measured: -14% CPU against
// 64Ki rows, bench/README.md "Uploads").
constexpr int64_t kBatchRows = 16384;
// Batches parsed ahead of the writer: at most this many, and past the first one at most this
// many bytes (a Parquet input's batches are whole row groups).
constexpr size_t kQueueBatches = 3;
constexpr int64_t kQueueBytes = 64ll << 20;

// A file that records how far into it reads have reached (for progress).
class ProgressFile final : public RandomAccessFile {
 public:
  ProgressFile(std::shared_ptr<RandomAccessFile> base, std::atomic<uint64_t>* reached)
      : base_(std::move(base)), reached_(reached) {}
  uint64_t Size() const override { return base_->Size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    TARN_RETURN_NOT_OK(base_->ReadAt(offset, n, out));
    uint64_t end = offset + n;
    uint64_t seen = reached_->load(std::memory_order_relaxed);
    while (end > seen && !reached_->compare_exchange_weak(seen, end)) {
    }
    return Status::OK();
  }
  const std::string& name() const override { return base_->name(); }

 private:
  std::shared_ptr<RandomAccessFile> base_;
  std::atomic<uint64_t>* reached_;
};

// Counts the bytes written through it.
class CountingSink final : public OutputStream {
 public:
  explicit CountingSink(std::unique_ptr<OutputStream> base) : base_(std::move(base)) {}
  Status Write(const uint8_t* data, size_t n) override {
    TARN_RETURN_NOT_OK(base_->Write(data, n));
    written_ += static_cast<int64_t>(n);
    return Status::OK();
  }
  uint64_t Tell() const override { return base_->Tell(); }
  Status Close() override { return base_->Close(); }
  int64_t written() const { return written_; }

 private:
  std::unique_ptr<OutputStream> base_;
  int64_t written_ = 0;
};

struct Input {
  std::string path;
  std::shared_ptr<RandomAccessFile> file;
  formats::Format format = formats::Format::kCsv;
  uint64_t size = 0;
};

bool HasField(const Status& st, std::string_view name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return true;
  }
  return false;
}

std::string FieldOf(const Status& st, std::string_view name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "";
}

// Adds what the readers do not know to their typed errors: the file and the declared type.
Status Annotate(Status st, const std::string& path, const Schema& schema) {
  if (st.ok() || st.kind() != ErrorKind::kInvalidArgument) return st;
  const std::string code = FieldOf(st, "code");
  if (code.empty()) return st;
  if (!HasField(st, "file")) st = std::move(st).WithField("file", path);
  if (code == codes::kValueNotCastable.name && !HasField(st, "declared")) {
    const int i = schema.FieldIndex(FieldOf(st, "column"));
    if (i >= 0) st = std::move(st).WithField("declared", schema.fields[i].type.ToString());
  }
  return st;
}

Result<Input> OpenInput(const std::string& path) {
  Input in;
  in.path = path;
  TARN_ASSIGN_OR_RETURN(in.format, formats::DetectFormat(path));
  TARN_ASSIGN_OR_RETURN(in.file, OpenLocalFile(path));
  in.size = in.file->Size();
  return in;
}

// What inference makes of the start of a CSV or NDJSON input; sets how to read a CSV input
// (delimiter, header) from it.
Result<formats::InferredSchema> Sample(const Input& first, formats::ReadOptions* read) {
  const bool whole = first.size <= kSampleBytes;
  std::string sample(static_cast<size_t>(std::min<uint64_t>(first.size, kSampleBytes)), '\0');
  TARN_RETURN_NOT_OK(
      first.file->ReadAt(0, sample.size(), reinterpret_cast<uint8_t*>(sample.data())));
  formats::InferOptions io;
  auto sampled = formats::InferSample(first.path, sample, whole, io);
  if (!sampled.ok()) return Annotate(std::move(sampled).status(), first.path, Schema{});
  if (first.format == formats::Format::kCsv) {
    read->delimiter = sampled->delimiter;
    read->header = sampled->header;
  }
  return std::move(sampled).value();
}

// Field ids for a schema that has none: 1..N by position, then each column's nested fields
// (AssignNestedIds), as Schema::Parse assigns them (so `tarn convert` and `tarn dataset create
// --schema` number the same columns alike).
Status AssignPositionalIds(Schema* schema) {
  int32_t last = 0;
  for (Field& f : schema->fields) f.field_id = ++last;
  for (Field& f : schema->fields) {
    TARN_ASSIGN_OR_RETURN(f.type, AssignNestedIds(ClearNestedIds(f.type), &last));
  }
  return Status::OK();
}

// The declared schema, with fresh ids for the fields that have none.
Result<Schema> DeclaredSchema(const ConvertOptions& options) {
  if (!options.types.empty() || options.infer) {
    return Status::InvalidArgument(
        "convert: a declared schema says every type; it takes neither --type nor --infer");
  }
  Schema schema = *options.schema;
  if (schema.fields.empty())
    return Status::InvalidArgument("convert: the declared schema is empty");
  for (const Field& f : schema.fields) {
    std::vector<int32_t> ids = {f.field_id};
    ForEachNestedField(f.type, [&](const Field& n) { ids.push_back(n.field_id); });
    for (int32_t id : ids) {
      if (id == 0 || id < -1) {
        return Status::InvalidArgument("convert: declared column " + f.name + " has the field id " +
                                       std::to_string(id) + " (ids are positive)");
      }
    }
  }
  int32_t last = 0;
  TARN_RETURN_NOT_OK(AssignFieldIds(&schema, &last).WithContext("convert: declared schema"));
  return schema;
}

// The output schema from the first input (or the declared one), and how to read that input (CSV
// delimiter, header).
Result<Schema> ResolveSchema(const Input& first, const ConvertOptions& options,
                             formats::ReadOptions* read) {
  if (options.schema.has_value()) {
    TARN_ASSIGN_OR_RETURN(Schema declared, DeclaredSchema(options));
    if (first.format == formats::Format::kCsv) {
      // The delimiter and whether a header row names the columns, as inference sees them.
      TARN_RETURN_NOT_OK(Sample(first, read).status());
    }
    return declared;
  }
  Schema schema;
  if (first.format == formats::Format::kParquet) {
    auto unreadable = [&](Status st) {
      return st.WithContext(first.path)
          .WithCode(codes::kFormatUnreadable)
          .WithField("file", first.path);
    };
    auto md = parquet::FileReader::ReadFooter(*first.file);
    if (!md.ok()) return unreadable(std::move(md).status());
    auto parsed = parquet::SchemaFromParquet(*md);
    if (!parsed.ok()) return unreadable(std::move(parsed).status());
    const parquet::ParquetSchema& ps = *parsed;
    for (size_t i = 0; i < ps.schema.fields.size(); ++i) {
      if (!ps.unsupported[i].empty()) {
        return Status::Of(
                   codes::kFormatUnreadable,
                   first.path + ": column " + ps.schema.fields[i].name + ": " + ps.unsupported[i])
            .WithField("file", first.path)
            .WithField("column", ps.schema.fields[i].name);
      }
      Field f = ps.schema.fields[i];
      f.field_id = -1;
      f.type = ClearNestedIds(f.type);
      schema.fields.push_back(std::move(f));
    }
  } else {
    TARN_ASSIGN_OR_RETURN(formats::InferredSchema inferred, Sample(first, read));
    for (const formats::InferredColumn& c : inferred.columns) {
      Field f;
      f.name = c.name;
      f.type = options.infer ? c.type : DataType::Varchar();
      schema.fields.push_back(std::move(f));
    }
  }
  for (const auto& [name, text] : options.types) {
    const int i = formats::internal::MatchField(schema, name);
    if (i < 0) {
      return Status::Of(codes::kColumnMissing, "--type " + name + ": " + first.path +
                                                   " has no column named '" + name + "'")
          .WithField("column", name);
    }
    auto type = DataType::Parse(text);
    if (!type.ok()) return std::move(type).status().WithContext("--type " + name + "=" + text);
    schema.fields[i].type = *type;
  }
  if (schema.fields.empty()) {
    return Status::Of(codes::kFormatUnreadable, first.path + ": no columns")
        .WithField("file", first.path);
  }
  TARN_RETURN_NOT_OK(AssignPositionalIds(&schema));
  return schema;
}

// Reads every input in turn into `sink` (called with each batch; false stops).
class Producer {
 public:
  Producer(std::vector<Input>* inputs, const Schema* schema, formats::ReadOptions first_read,
           std::atomic<uint64_t>* reached, std::atomic<int>* current)
      : inputs_(inputs),
        schema_(schema),
        first_read_(std::move(first_read)),
        reached_(reached),
        current_(current) {}

  template <typename Sink>
  Status Run(Sink&& sink) {
    for (size_t i = 0; i < inputs_->size(); ++i) {
      Input& in = (*inputs_)[i];
      reached_->store(0);
      current_->store(static_cast<int>(i));
      formats::ReadOptions ro;
      if (i == 0) {
        ro = first_read_;
      } else {
        ro.header = first_read_.header;  // the delimiter is detected per file
      }
      ro.batch_rows = kBatchRows;
      auto file = std::make_shared<ProgressFile>(in.file, reached_);
      auto opened = formats::OpenBatchReader(file, in.path, in.format, *schema_, ro);
      if (!opened.ok()) return Annotate(std::move(opened).status(), in.path, *schema_);
      std::unique_ptr<formats::BatchReader> reader = std::move(opened).value();
      while (true) {
        auto next = reader->Next();
        if (!next.ok()) return Annotate(std::move(next).status(), in.path, *schema_);
        if (!next->has_value()) break;
        if (!sink(std::move(**next))) return Status::OK();
      }
    }
    return Status::OK();
  }

 private:
  std::vector<Input>* inputs_;
  const Schema* schema_;
  formats::ReadOptions first_read_;
  std::atomic<uint64_t>* reached_;
  std::atomic<int>* current_;
};

}  // namespace

Result<ConvertResult> ConvertFiles(const std::vector<std::string>& inputs,
                                   std::unique_ptr<OutputStream> sink,
                                   const ConvertOptions& options) {
  if (inputs.empty()) return Status::InvalidArgument("convert: no input files");
  if (sink == nullptr) return Status::InvalidArgument("convert: no output");
  std::vector<Input> opened;
  int64_t total = 0;
  for (const std::string& path : inputs) {
    TARN_ASSIGN_OR_RETURN(Input in, OpenInput(path));
    total += static_cast<int64_t>(in.size);
    opened.push_back(std::move(in));
  }
  formats::ReadOptions first_read;
  TARN_ASSIGN_OR_RETURN(Schema schema, ResolveSchema(opened[0], options, &first_read));

  auto counting = std::make_unique<CountingSink>(std::move(sink));
  CountingSink* out = counting.get();
  parquet::WriterOptions wo;
  wo.codec = options.codec;
  wo.threads = std::max(1, options.threads);
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileWriter> writer,
                        parquet::FileWriter::Open(std::move(counting), schema, wo));

  std::atomic<uint64_t> reached{0};
  std::atomic<int> current{0};
  std::vector<int64_t> before(opened.size() + 1, 0);  // input bytes of the files before each
  for (size_t i = 0; i < opened.size(); ++i) {
    before[i + 1] = before[i] + static_cast<int64_t>(opened[i].size);
  }
  int64_t reported = 0;  // never goes back (the reader moves to the next file meanwhile)
  auto report = [&] {
    if (!options.progress) return;
    const int i = current.load();
    const int64_t done = std::min<int64_t>(before[i] + static_cast<int64_t>(reached.load()),
                                           before[static_cast<size_t>(i) + 1]);
    reported = std::max(reported, done);
    options.progress(reported, total);
  };

  Producer producer(&opened, &schema, first_read, &reached, &current);
  Status status;
  if (options.threads <= 1) {
    Status write_error;
    status = producer.Run([&](RecordBatch batch) {
      write_error = writer->Write(batch);
      if (!write_error.ok()) return false;
      report();
      return true;
    });
    if (status.ok()) status = std::move(write_error);
  } else {
    // The batches the reader thread parsed ahead: at most kQueueBatches waiting, and beyond the
    // first at most kQueueBytes of them.
    BoundedQueue<RecordBatch> queue(kQueueBytes, kQueueBatches);
    std::thread reader_thread;
    try {
      reader_thread = std::thread([&] {
        queue.Finish(producer.Run([&](RecordBatch batch) {
          const int64_t bytes = BatchBytes(batch);
          return queue.Push(std::move(batch), bytes);
        }));
      });
    } catch (const std::system_error& e) {
      return Status::Internal(std::string("convert: cannot start the reader thread: ") + e.what());
    }
    while (true) {
      Result<std::optional<RecordBatch>> batch = queue.Pop();
      if (!batch.ok() || !*batch) {
        status = batch.status();
        break;
      }
      status = writer->Write(**batch);
      if (!status.ok()) break;
      report();
    }
    queue.Cancel();
    reader_thread.join();
  }
  if (!status.ok()) return status;

  TARN_RETURN_NOT_OK(writer->Close());
  if (options.progress) options.progress(total, total);
  ConvertResult result;
  result.schema = std::move(schema);
  result.rows = writer->rows_written();
  result.input_bytes = total;
  result.output_bytes = out->written();
  return result;
}

}  // namespace tarn::upload
