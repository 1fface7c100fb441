// The in-process side of the upload benchmark (bench/README.md, "Uploads"), run by
// bench/upload_run.sh beside `tarn convert` and DuckDB. Prints one JSON object per run on
// stdout; errors go to stderr.
//
//   upload_bench convert IN OUT [--infer] [--threads N] [--codec NAME] [--runs N]
//       upload::ConvertFiles to a plain file (no fsync, no rename: what DuckDB's COPY does).
//   upload_bench parse IN --schema "a INT64, b VARCHAR, ..." [--batch-rows N] [--runs N]
//       the CSV/NDJSON reader alone: every batch parsed and dropped.
//   upload_bench write IN --schema "..." [--threads N] [--codec NAME] [--runs N]
//       the Parquet writer alone: IN parsed into memory first (not timed), then written to a
//       sink that discards the bytes.
// The phases show where the conversion's time goes.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/compression.h"
#include "common/io.h"
#include "formats/format.h"
#include "parquet/writer.h"
#include "upload/convert.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Fail(const std::string& what, const tarn::Status& st) {
  std::fprintf(stderr, "upload_bench: %s: %s\n", what.c_str(), st.ToString().c_str());
  std::exit(1);
}

[[noreturn]] void Usage(const char* msg) {
  std::fprintf(stderr,
               "upload_bench: %s\nusage: upload_bench convert IN OUT [--infer] [--threads N] "
               "[--codec NAME] [--runs N]\n       upload_bench parse|write IN --schema TEXT "
               "[--threads N] [--codec NAME] [--runs N]\n",
               msg);
  std::exit(2);
}

// A plain buffered file closed without fsync.
class PlainFileSink : public tarn::OutputStream {
 public:
  explicit PlainFileSink(const std::string& path) : file_(std::fopen(path.c_str(), "wb")) {
    if (file_ == nullptr) Usage(("cannot create " + path).c_str());
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
  }
  ~PlainFileSink() override {
    if (file_ != nullptr) std::fclose(file_);
  }
  tarn::Status Write(const uint8_t* data, size_t n) override {
    if (std::fwrite(data, 1, n, file_) != n) return tarn::Status::IOError("write failed");
    pos_ += n;
    return tarn::Status::OK();
  }
  uint64_t Tell() const override { return pos_; }
  tarn::Status Close() override {
    int rc = std::fclose(file_);
    file_ = nullptr;
    return rc == 0 ? tarn::Status::OK() : tarn::Status::IOError("close failed");
  }

 private:
  FILE* file_;
  uint64_t pos_ = 0;
};

class NullSink : public tarn::OutputStream {
 public:
  tarn::Status Write(const uint8_t*, size_t n) override {
    pos_ += n;
    return tarn::Status::OK();
  }
  uint64_t Tell() const override { return pos_; }
  tarn::Status Close() override { return tarn::Status::OK(); }

 private:
  uint64_t pos_ = 0;
};

struct Args {
  std::string mode, in, out, schema;
  bool infer = false;
  int threads = 2;
  int runs = 1;
  int64_t batch_rows = 65536;
  tarn::CompressionCodec codec = tarn::CompressionCodec::kZstd;
};

// CPU seconds used so far by every thread of the process.
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::unique_ptr<tarn::formats::BatchReader> OpenReader(const Args& a, const tarn::Schema& s,
                                                       uint64_t* size) {
  auto format = tarn::formats::DetectFormat(a.in);
  if (!format.ok()) Fail(a.in, format.status());
  auto file = tarn::OpenLocalFile(a.in);
  if (!file.ok()) Fail(a.in, file.status());
  *size = (*file)->Size();
  tarn::formats::ReadOptions ro;
  ro.batch_rows = a.batch_rows;
  auto reader = tarn::formats::OpenBatchReader(*file, a.in, *format, s, ro);
  if (!reader.ok()) Fail(a.in, reader.status());
  return std::move(*reader);
}

// `cpu` is the CPU time of every thread over the same span (cpu / seconds = cores kept busy).
void Emit(const Args& a, double secs, double cpu, uint64_t bytes, int64_t rows, int64_t out_bytes) {
  std::printf(
      "{\"engine\":\"tarn\",\"bench\":\"%s\",\"threads\":%d,\"seconds\":%.4f,\"cpu_s\":%.3f,"
      "\"input_bytes\":%llu,\"mb_s\":%.2f,\"rows\":%lld,\"output_bytes\":%lld}\n",
      a.mode.c_str(), a.threads, secs, cpu, static_cast<unsigned long long>(bytes),
      static_cast<double>(bytes) / 1e6 / secs, static_cast<long long>(rows),
      static_cast<long long>(out_bytes));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) Usage("missing value");
      return argv[++i];
    };
    if (arg == "--infer") {
      a.infer = true;
    } else if (arg == "--threads") {
      a.threads = std::atoi(next());
    } else if (arg == "--runs") {
      a.runs = std::atoi(next());
    } else if (arg == "--batch-rows") {
      a.batch_rows = std::atoll(next());
    } else if (arg == "--schema") {
      a.schema = next();
    } else if (arg == "--codec") {
      auto c = tarn::ParseCompressionCodec(next());
      if (!c.ok()) Fail("--codec", c.status());
      a.codec = *c;
    } else if (!arg.empty() && arg[0] == '-') {
      Usage("unknown option");
    } else {
      positional.emplace_back(arg);
    }
  }
  if (positional.size() < 2) Usage("missing arguments");
  a.mode = positional[0];
  a.in = positional[1];

  if (a.mode == "convert") {
    if (positional.size() != 3) Usage("convert needs IN and OUT");
    a.out = positional[2];
    for (int run = 0; run < a.runs; ++run) {
      tarn::upload::ConvertOptions o;
      o.infer = a.infer;
      o.threads = a.threads;
      o.codec = a.codec;
      const double cpu0 = CpuSeconds();
      auto start = Clock::now();
      auto res = tarn::upload::ConvertFiles({a.in}, std::make_unique<PlainFileSink>(a.out), o);
      const double secs = Seconds(start);
      if (!res.ok()) Fail("convert", res.status());
      Emit(a, secs, CpuSeconds() - cpu0, static_cast<uint64_t>(res->input_bytes), res->rows,
           res->output_bytes);
      if (run == 0)
        std::fprintf(stderr, "upload_bench: schema: %s\n", res->schema.ToString().c_str());
    }
    return 0;
  }

  if (a.schema.empty()) Usage("--schema is required");
  auto schema = tarn::Schema::Parse(a.schema);
  if (!schema.ok()) Fail("--schema", schema.status());
  if (a.mode == "parse") {
    for (int run = 0; run < a.runs; ++run) {
      uint64_t size = 0;
      const double cpu0 = CpuSeconds();
      auto start = Clock::now();
      auto reader = OpenReader(a, *schema, &size);
      int64_t rows = 0;
      while (true) {
        auto b = reader->Next();
        if (!b.ok()) Fail("parse", b.status());
        if (!b->has_value()) break;
        rows += (*b)->num_rows;
      }
      Emit(a, Seconds(start), CpuSeconds() - cpu0, size, rows, 0);
    }
    return 0;
  }
  if (a.mode == "write") {
    uint64_t size = 0;
    auto reader = OpenReader(a, *schema, &size);
    std::vector<tarn::RecordBatch> batches;
    int64_t rows = 0;
    while (true) {
      auto b = reader->Next();
      if (!b.ok()) Fail("parse", b.status());
      if (!b->has_value()) break;
      rows += (*b)->num_rows;
      batches.push_back(std::move(**b));
    }
    for (int run = 0; run < a.runs; ++run) {
      tarn::parquet::WriterOptions wo;
      wo.codec = a.codec;
      wo.threads = a.threads;
      const double cpu0 = CpuSeconds();
      auto start = Clock::now();
      auto sink = std::make_unique<NullSink>();
      NullSink* s = sink.get();
      auto w = tarn::parquet::FileWriter::Open(std::move(sink), *schema, wo);
      if (!w.ok()) Fail("writer", w.status());
      for (const auto& b : batches) {
        tarn::Status st = (*w)->Write(b);
        if (!st.ok()) Fail("write", st);
      }
      tarn::Status st = (*w)->Close();
      if (!st.ok()) Fail("close", st);
      Emit(a, Seconds(start), CpuSeconds() - cpu0, size, rows, static_cast<int64_t>(s->Tell()));
    }
    return 0;
  }
  Usage("unknown mode");
}
