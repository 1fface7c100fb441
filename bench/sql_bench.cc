// One timed query through tarn's SQL engine (src/sql) over an embedded catalog: prints one JSON
// line {"seconds","rows","files_read","bytes_read","direct_files","io_read_bytes","max_rss_kb"}
// (io_read_bytes: what the process read from files during the query, the kernel's count in
// /proc/self/io "rchar", the same measure for both sides). bench/sql_run.sh runs it for tarn's
// datasets and, with --allow-local-files, for DuckDB's own read_parquet over the same files,
// alternately, in separate processes (so each peak memory is the query's own).
// With --refresh VIEW [--full] it times one refresh of a materialized view instead (the SQL,
// the write and the commit; "mode" says whether it ran incrementally).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "catalog/catalog.h"
#include "sql/engine.h"

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The bytes this process has read through read(2)/pread(2) so far (/proc/self/io "rchar").
long long ReadChars() {
  std::FILE* f = std::fopen("/proc/self/io", "r");
  if (!f) return 0;
  char line[128];
  long long n = 0;
  while (std::fgets(line, sizeof line, f)) {
    if (std::sscanf(line, "rchar: %lld", &n) == 1) break;
  }
  std::fclose(f);
  return n;
}

long MaxRssKb() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

int Fail(const tarn::Status& st) {
  std::fprintf(stderr, "sql_bench: %s\n", st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string catalog, query, refresh;
  bool full = false;
  tarn::QueryOptions options;
  options.threads = 2;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--catalog" && i + 1 < argc) {
      catalog = argv[++i];
    } else if (a == "--query" && i + 1 < argc) {
      query = argv[++i];
    } else if (a == "--threads" && i + 1 < argc) {
      options.threads = std::atoi(argv[++i]);
    } else if (a == "--allow-local-files") {
      options.allow_local_files = true;
    } else if (a == "--refresh" && i + 1 < argc) {
      refresh = argv[++i];
    } else if (a == "--full") {
      full = true;
    } else {
      std::fprintf(stderr,
                   "usage: sql_bench --catalog DIR (--query SQL | --refresh VIEW [--full]) "
                   "[--threads N] [--allow-local-files]\n");
      return 2;
    }
  }
  tarn::sql::TuneAllocatorForQueries();  // as `tarn sql` does
  auto cat = tarn::Catalog::OpenEmbedded(catalog);
  if (!cat.ok()) return Fail(cat.status());
  if (!refresh.empty()) {
    tarn::RefreshOptions ro;
    ro.author = "bench";
    ro.full = full;
    ro.query = options;
    const auto start = std::chrono::steady_clock::now();
    auto r = (*cat)->RefreshMaterializedView(refresh, ro);
    if (!r.ok()) return Fail(r.status());
    std::printf("{\"seconds\":%.4f,\"rows\":%lld,\"mode\":\"%s\",\"max_rss_kb\":%ld}\n",
                SecondsSince(start), static_cast<long long>(r->rows), r->record.mode.c_str(),
                MaxRssKb());
    return 0;
  }
  const long long read_before = ReadChars();
  const auto start = std::chrono::steady_clock::now();
  int64_t checksum = 0;
  auto r = tarn::sql::RunQuery(**cat, query, options, [&](const tarn::RecordBatch& b) {
    checksum += b.num_rows;
    return tarn::Status::OK();
  });
  const double seconds = SecondsSince(start);
  const long long io_read = ReadChars() - read_before;
  if (!r.ok()) return Fail(r.status());
  std::printf(
      "{\"seconds\":%.4f,\"rows\":%lld,\"files_read\":%lld,\"bytes_read\":%lld,"
      "\"direct_files\":%lld,\"io_read_bytes\":%lld,\"max_rss_kb\":%ld}\n",
      seconds, static_cast<long long>(r->rows), static_cast<long long>(r->files_read),
      static_cast<long long>(r->bytes_read), static_cast<long long>(r->direct_files), io_read,
      MaxRssKb());
  return 0;
}
