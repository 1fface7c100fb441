// Compaction of many small files (issue 20; bench/README.md, "Maintenance: compaction"), driven
// by bench/compaction_run.sh beside DuckDB's COPY over the same files
// (bench/compaction_duckdb.mjs). Prints one JSON object per line on stdout; progress on stderr.
//
//   compaction_bench prepare --catalog DIR [--files N] [--rows R] [--threads T]
//                            [--dataset W.C.D] [--list FILE]
//       An embedded catalog at DIR with one unpartitioned dataset of the 8 columns of
//       bench_table.h, filled by N appends of R rows each (rows k*R .. k*R+R-1 of the table;
//       each append writes one file and commits one snapshot), T threads appending at once (the
//       commit queue groups their commits). FILE gets the absolute paths of the live files, one a
//       line.
//   compaction_bench compact --catalog DIR [--dataset W.C.D]
//       One compaction pass with the default thresholds, timed (Catalog::Compact's two halves,
//       PlanCompaction and RunCompaction, timed apart), and the process's peak RSS
//       (getrusage ru_maxrss: opening the catalog included, nothing of the preparation).
//   compaction_bench time --runs N --label L [--out FILE] -- COMMAND [ARGS...]
//       Runs COMMAND N times, one process after the other (stdout to /dev/null, or to FILE for
//       the first run): median and minimum wall time, peak RSS of the children (wait4).
//   compaction_bench report FILE
//       The table of bench/README.md from the JSON lines of a run.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench_table.h"
#include "catalog/catalog.h"

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "compaction_bench: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(1);
}

void Check(const tarn::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

struct Args {
  std::string cmd;
  std::string catalog;
  std::string dataset = "bench.compaction.t";
  std::string list;
  std::string label;
  std::string out;
  std::string file;
  int64_t files = 10'000;
  int64_t rows = 100;
  int threads = 8;
  int runs = 3;
  std::vector<std::string> command;
};

Args ParseArgs(int argc, char** argv) {
  if (argc < 2) Die("usage: compaction_bench prepare|compact|time|report ... (see source)");
  Args a;
  a.cmd = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--") {
      for (++i; i < argc; ++i) a.command.emplace_back(argv[i]);
    } else if (arg == "--catalog") {
      a.catalog = value();
    } else if (arg == "--dataset") {
      a.dataset = value();
    } else if (arg == "--list") {
      a.list = value();
    } else if (arg == "--label") {
      a.label = value();
    } else if (arg == "--out") {
      a.out = value();
    } else if (arg == "--files") {
      a.files = std::stoll(value());
    } else if (arg == "--rows") {
      a.rows = std::stoll(value());
    } else if (arg == "--threads") {
      a.threads = std::stoi(value());
    } else if (arg == "--runs") {
      a.runs = std::stoi(value());
    } else if (a.cmd == "report" && a.file.empty()) {
      a.file = std::string(arg);
    } else {
      Die("unknown argument " + std::string(arg));
    }
  }
  return a;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::unique_ptr<tarn::Catalog> OpenCatalog(const Args& a) {
  if (a.catalog.empty()) Die("--catalog DIR");
  auto c = tarn::Catalog::OpenEmbedded(a.catalog);
  Check(c.status(), "open catalog " + a.catalog);
  return std::move(*c);
}

tarn::CommitMeta Meta(const std::string& message) {
  tarn::CommitMeta m;
  m.author = "bench";
  m.message = message;
  m.receipt = tarn::Receipt::Of({}, "task:bench.c.compaction_bench");
  return m;
}

int64_t ProcStatusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atoll(line.c_str() + std::strlen(key));
  }
  return -1;
}

int64_t PeakRssKb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// ---- prepare ----

void RunPrepare(const Args& a) {
  auto cat = OpenCatalog(a);
  const std::string& q = a.dataset;
  auto first = q.find('.');
  auto second = q.find('.', first + 1);
  if (first == std::string::npos || second == std::string::npos) Die("--dataset W.C.D");
  Check(cat->CreateWorkspace(q.substr(0, first), true), "create workspace");
  Check(cat->CreateCollection(q.substr(0, second), true), "create collection");
  tarn::DatasetDefinition def;
  auto schema = tarn::Schema::Parse(tarn_bench::kTableSchema);
  Check(schema.status(), "schema");
  def.schema = *schema;
  for (auto& f : def.schema.fields) f.field_id = -1;
  auto ds = cat->CreateDataset(q, def);
  Check(ds.status(), "create dataset " + q + " (prepare wants a new catalog)");

  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  Clock::time_point t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < a.threads; ++t) {
    threads.emplace_back([&] {
      for (int64_t k = next++; k < a.files; k = next++) {
        std::vector<tarn::RecordBatch> batch;
        batch.push_back(tarn_bench::MakeTable(a.rows, k * a.rows));
        auto snap = cat->Append(q, batch, Meta("part " + std::to_string(k)));
        Check(snap.status(), "append " + std::to_string(k));
        if (snap->added_files != 1) Die("an append wrote " + std::to_string(snap->added_files));
        int64_t n = ++done;
        if (n % 1000 == 0) {
          std::fprintf(stderr, "compaction_bench: %lld appends (%.0f/s)\n",
                       static_cast<long long>(n),
                       static_cast<double>(n) / Seconds(Clock::now() - t0));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  const double secs = Seconds(Clock::now() - t0);

  auto loaded = cat->LoadDataset(q);
  Check(loaded.status(), "load dataset");
  if (loaded->total_files != a.files || loaded->total_records != a.files * a.rows) {
    Die("the dataset holds " + std::to_string(loaded->total_files) + " files and " +
        std::to_string(loaded->total_records) + " rows");
  }
  if (!a.list.empty()) {
    std::ofstream out(a.list);
    const std::string root = a.catalog + "/warehouse/";
    int64_t n = 0;
    Check(cat->PlanFiles(q, {}, "",
                         [&](const tarn::PlannedFile& f) {
                           out << root << f.file.path << '\n';
                           ++n;
                           return tarn::Status::OK();
                         }),
          "list files");
    out.close();
    if (!out || n != a.files) Die("cannot write the file list " + a.list);
  }
  Json j;
  j["bench"] = "prepare";
  j["files"] = a.files;
  j["rows_per_file"] = a.rows;
  j["rows"] = loaded->total_records;
  j["bytes"] = loaded->total_bytes;
  j["threads"] = a.threads;
  j["seconds"] = secs;
  j["appends_per_s"] = static_cast<double>(a.files) / secs;
  std::printf("%s\n", j.dump().c_str());
}

// ---- compact ----

void RunCompact(const Args& a) {
  auto cat = OpenCatalog(a);
  const int64_t rss_before = ProcStatusKb("VmRSS:");
  // Catalog::Compact is exactly these two calls (compaction.cc); apart, the plan is timed too.
  tarn::CommitMeta meta;
  meta.author = "bench";
  Clock::time_point t0 = Clock::now();
  auto plan = cat->PlanCompaction(a.dataset, tarn::CompactionOptions{});
  Check(plan.status(), "plan compaction");
  Clock::time_point t1 = Clock::now();
  auto result = cat->RunCompaction(std::move(*plan), std::move(meta));
  Check(result.status(), "compaction");
  Clock::time_point t2 = Clock::now();
  const int64_t peak = PeakRssKb();
  if (!result->nothing_to_do.empty()) Die("nothing to do: " + result->nothing_to_do);

  auto ds = cat->LoadDataset(a.dataset);
  Check(ds.status(), "load dataset");
  int64_t out_bytes = 0, out_rows = 0;
  Json paths = Json::array();
  for (const auto& o : result->outputs) {
    out_bytes += o.bytes;
    out_rows += o.rows;
    paths.push_back(a.catalog + "/warehouse/" + o.path);
  }
  if (out_rows != result->rows_out() ||
      ds->total_files != static_cast<int64_t>(result->outputs.size())) {
    Die("after compaction: " + std::to_string(ds->total_files) + " live files, " +
        std::to_string(out_rows) + " rows written");
  }
  Json j;
  j["bench"] = "compact";
  j["engine"] = "tarn";
  j["seconds"] = Seconds(t2 - t0);
  j["plan_s"] = Seconds(t1 - t0);
  j["run_s"] = Seconds(t2 - t1);
  j["files_in"] = result->files_in();
  j["bytes_in"] = result->bytes_in();
  j["outputs"] = result->outputs.size();
  j["rows"] = out_rows;
  j["bytes"] = out_bytes;
  j["live_rows"] = ds->total_records;
  j["target_file_size"] = result->target_file_size;
  j["rss_before_kb"] = rss_before;
  j["peak_rss_kb"] = peak;
  j["output_paths"] = paths;
  std::printf("%s\n", j.dump().c_str());
}

// ---- time ----

void RunTime(const Args& a) {
  if (a.command.empty()) Die("time: -- COMMAND [ARGS...]");
  if (a.runs <= 0) Die("--runs must be positive");
  std::vector<double> secs;
  int64_t peak = 0;
  for (int r = 0; r < a.runs; ++r) {
    Clock::time_point t0 = Clock::now();
    pid_t pid = fork();
    if (pid < 0) Die("fork");
    if (pid == 0) {
      const std::string out = (r == 0 && !a.out.empty()) ? a.out : "/dev/null";
      int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, 1) < 0) _exit(127);
      close(fd);
      std::vector<char*> argv;
      for (const auto& s : a.command) argv.push_back(const_cast<char*>(s.c_str()));
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    if (wait4(pid, &status, 0, &ru) != pid) Die("wait4");
    secs.push_back(Seconds(Clock::now() - t0));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      Die("time: " + a.command[0] + " failed (status " + std::to_string(status) + ")");
    }
    peak = std::max<int64_t>(peak, ru.ru_maxrss);
    std::fprintf(stderr, "compaction_bench: %s run %d: %.3f s\n", a.label.c_str(), r + 1,
                 secs.back());
  }
  Json j;
  j["bench"] = "time";
  j["label"] = a.label;
  j["runs"] = a.runs;
  j["median_s"] = Median(secs);
  j["min_s"] = *std::min_element(secs.begin(), secs.end());
  j["peak_rss_kb"] = peak;
  std::printf("%s\n", j.dump().c_str());
}

// ---- report ----

void RunReport(const Args& a) {
  std::ifstream in(a.file);
  if (!in) Die("cannot read " + a.file);
  std::vector<Json> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    Json j = Json::parse(line, nullptr, false);
    if (!j.is_discarded()) rows.push_back(std::move(j));
  }
  std::vector<double> tarn_s, plan_s, duck_s;
  int64_t tarn_rss = 0, duck_rss = 0, duck_base = 0, tarn_base = 0;
  int64_t files = 0, rows_in = 0, outputs = 0, tarn_bytes = 0, duck_bytes = 0, in_bytes = 0;
  const Json* before = nullptr;
  const Json* after = nullptr;
  const Json* compare = nullptr;
  std::string version;
  for (const Json& r : rows) {
    const std::string bench = r.value("bench", "");
    if (bench == "prepare") {
      files = r.value("files", int64_t{0});
      rows_in = r.value("rows", int64_t{0});
      in_bytes = r.value("bytes", int64_t{0});
    } else if (bench == "compact" && r.value("engine", "") == "tarn") {
      tarn_s.push_back(r.value("seconds", 0.0));
      plan_s.push_back(r.value("plan_s", 0.0));
      tarn_rss = std::max(tarn_rss, r.value("peak_rss_kb", int64_t{0}));
      tarn_base = std::max(tarn_base, r.value("rss_before_kb", int64_t{0}));
      outputs = r.value("outputs", int64_t{0});
      tarn_bytes = r.value("bytes", int64_t{0});
    } else if (bench == "compact" && r.value("engine", "") == "duckdb") {
      duck_s.push_back(r.value("seconds", 0.0));
      duck_rss = std::max(duck_rss, r.value("peak_rss_kb", int64_t{0}));
      duck_base = std::max(duck_base, r.value("rss_before_kb", int64_t{0}));
      duck_bytes = r.value("bytes", int64_t{0});
      version = r.value("version", "");
    } else if (bench == "compare") {
      compare = &r;
    } else if (bench == "time" && r.value("label", "") == "sql_before") {
      before = &r;
    } else if (bench == "time" && r.value("label", "") == "sql_after") {
      after = &r;
    }
  }
  const double t = Median(tarn_s), d = Median(duck_s);
  std::printf(
      "| compaction, %lld files, %lld rows (median of %zu / %zu) | tarn | DuckDB %s | "
      "tarn/DuckDB | goal |\n",
      static_cast<long long>(files), static_cast<long long>(rows_in), tarn_s.size(), duck_s.size(),
      version.c_str());
  std::printf("|---|---:|---:|---:|---|\n");
  std::printf("| time, s | %.3f | %.3f | **%.2f** | <= 1.0 |\n", t, d, d > 0 ? t / d : 0.0);
  const double tmin = tarn_s.empty() ? 0 : *std::min_element(tarn_s.begin(), tarn_s.end());
  const double dmin = duck_s.empty() ? 0 : *std::min_element(duck_s.begin(), duck_s.end());
  std::printf("| (fastest run, s) | %.3f | %.3f | %.2f | |\n", tmin, dmin,
              dmin > 0 ? tmin / dmin : 0.0);
  std::printf("| (tarn: planning, s) | %.3f | | | |\n", Median(plan_s));
  std::printf("| peak RSS, MB (process) | %.0f | %.0f | %.2f | reported |\n", tarn_rss / 1024.0,
              duck_rss / 1024.0, duck_rss > 0 ? static_cast<double>(tarn_rss) / duck_rss : 0.0);
  std::printf("| (RSS before the work, MB) | %.0f | %.0f | | |\n", tarn_base / 1024.0,
              duck_base / 1024.0);
  std::printf("| output files | %lld | 1 | | |\n", static_cast<long long>(outputs));
  std::printf("| output MB (input %.1f MB) | %.1f | %.1f | %.2f | |\n", in_bytes / 1e6,
              tarn_bytes / 1e6, duck_bytes / 1e6,
              duck_bytes > 0 ? static_cast<double>(tarn_bytes) / duck_bytes : 0.0);
  if (compare) {
    std::printf("\nDuckDB's check of tarn's output: %lld rows, %lld extra, %lld missing (%s)\n",
                static_cast<long long>(compare->value("rows", int64_t{0})),
                static_cast<long long>(compare->value("extra_rows", int64_t{0})),
                static_cast<long long>(compare->value("missing_rows", int64_t{0})),
                compare->value("equal", false) ? "the same rows, every column" : "DIFFERENT");
  }
  if (before && after) {
    const double b = before->value("median_s", 0.0), f = after->value("median_s", 0.0);
    std::printf(
        "\n| `tarn sql` aggregate (median of %d) | before (%lld files) | after (%lld) | "
        "speed-up |\n",
        before->value("runs", 0), static_cast<long long>(files), static_cast<long long>(outputs));
    std::printf("|---|---:|---:|---:|\n");
    std::printf("| wall time, s | %.3f | %.3f | **%.1fx** |\n", b, f, f > 0 ? b / f : 0.0);
    std::printf("| peak RSS, MB | %.0f | %.0f | |\n",
                before->value("peak_rss_kb", int64_t{0}) / 1024.0,
                after->value("peak_rss_kb", int64_t{0}) / 1024.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  if (a.cmd == "prepare") {
    RunPrepare(a);
  } else if (a.cmd == "compact") {
    RunCompact(a);
  } else if (a.cmd == "time") {
    RunTime(a);
  } else if (a.cmd == "report") {
    RunReport(a);
  } else {
    Die("unknown command " + a.cmd);
  }
  std::fflush(stdout);
  return 0;
}
