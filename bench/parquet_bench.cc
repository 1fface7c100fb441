// tarn's Parquet benchmarks, run beside DuckDB by bench/run.sh (bench/README.md says what each
// measures). Prints one JSON object per line on stdout; progress and errors go to stderr.
//
//   parquet_bench [--rows N] [--runs N] [--dir DIR] [--read FILE]... [--only-read]
//                 [--skip-footer]
//
// Without --only-read: generates the 8-column table (bench_table.h; the formulas are mirrored
// exactly in bench/duckdb_bench.mjs), writes it as ZSTD Parquet to DIR/tarn.parquet `runs`
// times, reads every column of it back `runs` times, and times footer decoding of a
// 1,000-column, 20-row-group file. Each --read FILE is also read `runs` times.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench_table.h"
#include "common/io.h"
#include "parquet/metadata.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "tarn/column.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  int64_t rows = 1000000;
  int runs = 5;
  std::string dir = "/tmp";
  std::vector<std::string> reads;
  bool only_read = false;
  bool skip_footer = false;
};

[[noreturn]] void Fail(const std::string& what, const tarn::Status& st) {
  std::fprintf(stderr, "parquet_bench: %s: %s\n", what.c_str(), st.ToString().c_str());
  std::exit(1);
}

[[noreturn]] void Usage(const char* msg) {
  std::fprintf(stderr,
               "parquet_bench: %s\nusage: parquet_bench [--rows N] [--runs N] [--dir DIR] "
               "[--read FILE]... [--only-read] [--skip-footer]\n",
               msg);
  std::exit(2);
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) Usage("missing value after an option");
      return argv[++i];
    };
    if (arg == "--rows") {
      a.rows = std::atoll(next());
    } else if (arg == "--runs") {
      a.runs = std::atoi(next());
    } else if (arg == "--dir") {
      a.dir = next();
    } else if (arg == "--read") {
      a.reads.emplace_back(next());
    } else if (arg == "--only-read") {
      a.only_read = true;
    } else if (arg == "--skip-footer") {
      a.skip_footer = true;
    } else {
      Usage("unknown option");
    }
  }
  if (a.rows <= 0 || a.runs <= 0) Usage("--rows and --runs must be positive");
  return a;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

using tarn_bench::MakeTable;  // the table, shared with compaction_bench (bench_table.h)

// A sink that keeps nothing: writing to it times encoding and compression without I/O.
class CountingSink : public tarn::OutputStream {
 public:
  explicit CountingSink(uint64_t* total) : total_(total) {}
  tarn::Status Write(const uint8_t* /*data*/, size_t n) override {
    *total_ += n;
    return tarn::Status::OK();
  }
  uint64_t Tell() const override { return *total_; }
  tarn::Status Close() override { return tarn::Status::OK(); }

 private:
  uint64_t* total_;
};

// A plain buffered file, closed without fsync: what DuckDB's COPY TO does (it neither fsyncs nor
// renames), so the headline write figure compares the same work.
class PlainFileSink : public tarn::OutputStream {
 public:
  static std::unique_ptr<PlainFileSink> Create(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) Fail("creating " + path, tarn::Status::IOError(std::strerror(errno)));
    return std::unique_ptr<PlainFileSink>(new PlainFileSink(f));
  }
  ~PlainFileSink() override {
    if (file_ != nullptr) std::fclose(file_);
  }
  tarn::Status Write(const uint8_t* data, size_t n) override {
    if (std::fwrite(data, 1, n, file_) != n) return tarn::Status::IOError("fwrite failed");
    pos_ += n;
    return tarn::Status::OK();
  }
  uint64_t Tell() const override { return pos_; }
  tarn::Status Close() override {
    int rc = std::fclose(file_);
    file_ = nullptr;
    return rc == 0 ? tarn::Status::OK() : tarn::Status::IOError("fclose failed");
  }

 private:
  explicit PlainFileSink(FILE* f) : file_(f) { std::setvbuf(file_, nullptr, _IOFBF, 1 << 20); }
  FILE* file_;
  uint64_t pos_ = 0;
};

// Writes `batch` to `sink` with default options (ZSTD, 2 threads).
void WriteBatch(const tarn::RecordBatch& batch, std::unique_ptr<tarn::OutputStream> sink) {
  auto writer = tarn::parquet::FileWriter::Open(std::move(sink), batch.schema);
  if (!writer.ok()) Fail("opening the writer", writer.status());
  tarn::Status st = (*writer)->Write(batch);
  if (!st.ok()) Fail("writing", st);
  st = (*writer)->Close();
  if (!st.ok()) Fail("closing the writer", st);
}

uint64_t FileSize(const std::string& path) {
  auto f = tarn::OpenLocalFile(path);
  if (!f.ok()) Fail("opening " + path, f.status());
  return (*f)->Size();
}

void PrintWrite(const char* target, const Args& args, int64_t rows, const std::vector<double>& t,
                uint64_t bytes) {
  std::printf(
      "{\"engine\":\"tarn\",\"bench\":\"write\",\"target\":\"%s\",\"codec\":\"zstd\","
      "\"rows\":%lld,\"columns\":8,\"runs\":%d,\"median_s\":%.6f,\"min_s\":%.6f,"
      "\"bytes\":%llu}\n",
      target, (long long)rows, args.runs, Median(t), Min(t), (unsigned long long)bytes);
}

// Three writes per run: to a plain file (as DuckDB does), to a durable local file
// (CreateLocalFile: temporary name, fsync, rename), and to a sink that keeps nothing.
void BenchWrite(const Args& args, const tarn::RecordBatch& batch) {
  std::string path = args.dir + "/tarn.parquet";
  std::string durable_path = args.dir + "/tarn-durable.parquet";
  std::vector<double> plain, durable, no_io;
  uint64_t no_io_bytes = 0;
  for (int r = 0; r < args.runs; ++r) {
    auto start = Clock::now();
    WriteBatch(batch, PlainFileSink::Create(path));
    plain.push_back(Seconds(start));

    start = Clock::now();
    auto sink = tarn::CreateLocalFile(durable_path);
    if (!sink.ok()) Fail("creating " + durable_path, sink.status());
    WriteBatch(batch, std::move(*sink));
    durable.push_back(Seconds(start));

    no_io_bytes = 0;
    start = Clock::now();
    WriteBatch(batch, std::make_unique<CountingSink>(&no_io_bytes));
    no_io.push_back(Seconds(start));
    std::fprintf(stderr, "tarn write run %d: file %.3f s, durable file %.3f s, no I/O %.3f s\n",
                 r + 1, plain.back(), durable.back(), no_io.back());
  }
  uint64_t bytes = FileSize(path);
  PrintWrite("file", args, batch.num_rows, plain, bytes);
  PrintWrite("durable_file", args, batch.num_rows, durable, FileSize(durable_path));
  PrintWrite("none", args, batch.num_rows, no_io, no_io_bytes);
  std::fflush(stdout);
  std::remove(durable_path.c_str());
}

void BenchRead(const Args& args, const std::string& path) {
  std::vector<double> times;
  int64_t rows = 0;
  for (int r = 0; r < args.runs; ++r) {
    auto start = Clock::now();
    auto file = tarn::OpenLocalFile(path);
    if (!file.ok()) Fail("opening " + path, file.status());
    auto reader = tarn::parquet::FileReader::Open(*file);
    if (!reader.ok()) Fail("opening " + path, reader.status());
    auto batch = (*reader)->ReadAll();
    if (!batch.ok()) Fail("reading " + path, batch.status());
    times.push_back(Seconds(start));
    rows = batch->num_rows;
    std::fprintf(stderr, "tarn read %s run %d: %.3f s\n", path.c_str(), r + 1, times.back());
  }
  std::printf(
      "{\"engine\":\"tarn\",\"bench\":\"read\",\"file\":\"%s\",\"rows\":%lld,\"runs\":%d,"
      "\"median_s\":%.6f,\"min_s\":%.6f}\n",
      path.c_str(), (long long)rows, args.runs, Median(times), Min(times));
  std::fflush(stdout);
}

// Times `fn` per call in microseconds: batches of calls sized to ~20 ms, median over 25 batches.
template <typename Fn>
double MicrosPerCall(Fn&& fn) {
  auto start = Clock::now();
  fn();
  double one = std::max(Seconds(start), 1e-7);
  int per_batch = std::max(1, static_cast<int>(0.02 / one));
  std::vector<double> batches;
  for (int b = 0; b < 25; ++b) {
    start = Clock::now();
    for (int k = 0; k < per_batch; ++k) fn();
    batches.push_back(Seconds(start) * 1e6 / per_batch);
  }
  return Median(batches);
}

void BenchFooter() {
  constexpr int kColumns = 1000;
  constexpr int kRowGroups = 20;
  constexpr int kRowsPerGroup = 5;
  tarn::RecordBatch b;
  b.num_rows = kRowGroups * kRowsPerGroup;
  for (int c = 0; c < kColumns; ++c) {
    tarn::Field f;
    f.name = "column_" + std::to_string(c);
    switch (c % 4) {
      case 0:
        f.type = tarn::DataType::Int64();
        break;
      case 1:
        f.type = tarn::DataType::Float64();
        break;
      case 2:
        f.type = tarn::DataType::Varchar();
        break;
      default:
        f.type = tarn::DataType::Timestamp(tarn::TimeUnit::kMicro);
        break;
    }
    f.field_id = c + 1;
    tarn::Column col(f.type);
    for (int64_t i = 0; i < b.num_rows; ++i) {
      if (f.type.id() == tarn::TypeId::kVarchar) {
        col.AppendBytes("value_" + std::to_string(i * 31 + c));
      } else if (f.type.id() == tarn::TypeId::kFloat64) {
        col.AppendFixed<double>(i * 0.5 + c);
      } else {
        col.AppendFixed<int64_t>(i * 1000 + c);
      }
    }
    b.schema.fields.push_back(std::move(f));
    b.columns.push_back(std::move(col));
  }
  tarn::parquet::WriterOptions options;
  options.row_group_rows = kRowsPerGroup;
  auto mem = std::make_unique<tarn::MemoryOutputStream>();
  tarn::MemoryOutputStream* mem_raw = mem.get();
  std::string bytes;
  {
    auto writer = tarn::parquet::FileWriter::Open(std::move(mem), b.schema, options);
    if (!writer.ok()) Fail("opening the footer writer", writer.status());
    tarn::Status st = (*writer)->Write(b);
    if (st.ok()) st = (*writer)->Close();
    if (!st.ok()) Fail("writing the footer file", st);
    bytes = mem_raw->bytes();
  }
  if (bytes.size() < 12) Fail("footer file", tarn::Status::Internal("file too small"));
  uint32_t footer_len;
  std::memcpy(&footer_len, bytes.data() + bytes.size() - 8, 4);
  if (footer_len > bytes.size() - 12) Fail("footer file", tarn::Status::Internal("bad length"));
  const auto* footer =
      reinterpret_cast<const uint8_t*>(bytes.data() + bytes.size() - 8 - footer_len);

  auto check = tarn::parquet::DecodeFileMetaData(footer, footer_len);
  if (!check.ok()) Fail("decoding the footer", check.status());
  if (check->row_groups.size() != kRowGroups || check->schema.size() != kColumns + 1) {
    std::fprintf(stderr, "parquet_bench: footer file has %zu row groups and %zu schema elements\n",
                 check->row_groups.size(), check->schema.size());
  }
  double decode_us = MicrosPerCall([&] {
    auto md = tarn::parquet::DecodeFileMetaData(footer, footer_len);
    if (!md.ok()) Fail("decoding the footer", md.status());
  });
  auto file = tarn::MemoryFile(bytes, "footer.parquet");
  double open_us = MicrosPerCall([&] {
    auto r = tarn::parquet::FileReader::Open(file);
    if (!r.ok()) Fail("opening the footer file", r.status());
  });
  std::printf(
      "{\"engine\":\"tarn\",\"bench\":\"footer_decode\",\"columns\":%d,\"row_groups\":%zu,"
      "\"footer_bytes\":%u,\"median_us\":%.1f}\n",
      kColumns, check->row_groups.size(), footer_len, decode_us);
  std::printf(
      "{\"engine\":\"tarn\",\"bench\":\"footer_open\",\"columns\":%d,\"row_groups\":%zu,"
      "\"footer_bytes\":%u,\"median_us\":%.1f}\n",
      kColumns, check->row_groups.size(), footer_len, open_us);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  if (!args.only_read) {
    auto start = Clock::now();
    tarn::RecordBatch batch = MakeTable(args.rows);
    std::fprintf(stderr, "generated %lld rows in %.2f s\n", (long long)args.rows, Seconds(start));
    BenchWrite(args, batch);
    BenchRead(args, args.dir + "/tarn.parquet");
  }
  for (const auto& path : args.reads) BenchRead(args, path);
  if (!args.only_read && !args.skip_footer) BenchFooter();
  return 0;
}
