// Catalog commit throughput and planning latency (bench/README.md, "Catalog"). Driven by
// bench/catalog_run.sh, which runs it beside pgbench and a raw SQLite loop in the same run.
//
//   catalog_bench commit --metastore URI --warehouse DIR | --embedded DIR
//                        [--dataset W.C.D] [--threads N] [--procs N] [--seconds S] [--warmup S]
//       Each commit registers one small file with 10 columns of stats (kAddFiles) through
//       Catalog::Commit. --threads: threads of one process sharing one Catalog; --procs:
//       separate processes (fork before any connection), each with its own Catalog.
//   catalog_bench sqlite-raw --dir DIR [--threads N] [--seconds S] [--warmup S] [--mutex]
//       BEGIN IMMEDIATE; INSERT one row; COMMIT on a WAL database with synchronous=FULL, one
//       connection per thread (--mutex: threads queue on a mutex, as tarn's metastore does).
//   catalog_bench load --metastore URI --warehouse DIR | --embedded DIR [--files N]
//                      [--per-commit K] [--files-per-day F] [--dataset W.C.D]
//       Fills a `day(ts)`-partitioned dataset up to N live files, K files per commit.
//   catalog_bench plan --metastore URI --warehouse DIR | --embedded DIR [--runs N]
//                      [--files-per-day F] [--dataset W.C.D]
//       Full listing through PlanFiles (time and peak RSS), then a selective predicate (one day
//       of ts: partition pushdown; p50/p99 over --runs) and a predicate on `id` (bounds only,
//       as costly as a full listing: one run).
//   catalog_bench expire --metastore URI --warehouse DIR | --embedded DIR [--snapshots N]
//                        [--threads T] [--overwrite] [--dataset W.C.D] [--skip-expire]
//       Commits N snapshots that each add one file (N - 1 appends from T threads, grouped by
//       the commit queue, then one truncate_and_add replacing every live file; with
//       --overwrite every snapshot is a truncate_and_add from one thread), and one more append
//       to keep as the current snapshot; then times one ExpireSnapshots call that expires all
//       N (snapshots/s) and releases N - 1 files. --skip-expire stops before the expiry (to
//       profile its statements on the database as it would find it).
//   catalog_bench iceberg --metastore URI --warehouse DIR | --embedded DIR [--runs N]
//                         [--dataset W.C.D]
//       Iceberg metadata of the loaded dataset (issue 23): N times, one more file is committed
//       (a new snapshot) and Client::IcebergTable times the first request (the snapshot's
//       manifests produced) and then 20 more (found): p50/p99 of each, manifest bytes.
//   catalog_bench report FILE
//       Prints the table of bench/README.md from the JSON lines of a run.
//
// Every measurement prints one JSON object per line on stdout; progress goes to stderr.
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "metastore/metastore.h"
#include "tarn/partition.h"
#include "types/iceberg.h"
#include "types/value_text.h"

namespace {

using tarn::Status;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr int64_t kMicrosPerDay = 86'400'000'000;
constexpr int64_t kBaseDay = 19'723;  // 2024-01-01

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "catalog_bench: %s\n", what.c_str());
  std::fflush(stderr);
  _exit(1);
}

void Check(const Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

struct Args {
  std::string cmd;
  std::string metastore;
  std::string warehouse;
  std::string embedded;
  std::string dir;
  std::string dataset;
  int threads = 1;
  int procs = 0;
  double seconds = 5;
  double warmup = 1;
  bool mutex = false;
  int64_t files = 1'000'000;
  int64_t per_commit = 5'000;
  int64_t files_per_day = 1'000;
  int runs = 20;
  int triggers = 0;               // commit: refresh triggers on the dataset (issue 17)
  int64_t trigger_interval = -1;  // their floor in seconds; -1: the default (120)
  int64_t tasks = 10'000;         // tick: schedule tasks in the catalog (issue 19)
  int64_t due = 100;              // tick: of them due at each tick
  int64_t snapshots = 100'000;    // expire: snapshots to expire (issue 20)
  bool overwrite = false;         // expire: every snapshot a truncate_and_add
  bool skip_expire = false;       // expire: prepare only
  std::string label;
  std::string file;
  std::string bounds_index;  // commit, load: the bounds index columns of the dataset made
};

Args ParseArgs(int argc, char** argv) {
  if (argc < 2) {
    Die("usage: catalog_bench commit|sqlite-raw|load|plan|iceberg|tick|expire|report ... (see "
        "source)");
  }
  Args a;
  a.cmd = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--metastore") {
      a.metastore = value();
    } else if (arg == "--warehouse") {
      a.warehouse = value();
    } else if (arg == "--embedded") {
      a.embedded = value();
    } else if (arg == "--dir") {
      a.dir = value();
    } else if (arg == "--dataset") {
      a.dataset = value();
    } else if (arg == "--threads") {
      a.threads = std::stoi(value());
    } else if (arg == "--procs") {
      a.procs = std::stoi(value());
    } else if (arg == "--seconds") {
      a.seconds = std::stod(value());
    } else if (arg == "--warmup") {
      a.warmup = std::stod(value());
    } else if (arg == "--mutex") {
      a.mutex = true;
    } else if (arg == "--files") {
      a.files = std::stoll(value());
    } else if (arg == "--per-commit") {
      a.per_commit = std::stoll(value());
    } else if (arg == "--files-per-day") {
      a.files_per_day = std::stoll(value());
    } else if (arg == "--runs") {
      a.runs = std::stoi(value());
    } else if (arg == "--triggers") {
      a.triggers = std::stoi(value());
    } else if (arg == "--trigger-interval") {
      a.trigger_interval = std::stoll(value());
    } else if (arg == "--tasks") {
      a.tasks = std::stoll(value());
    } else if (arg == "--due") {
      a.due = std::stoll(value());
    } else if (arg == "--snapshots") {
      a.snapshots = std::stoll(value());
    } else if (arg == "--overwrite") {
      a.overwrite = true;
    } else if (arg == "--skip-expire") {
      a.skip_expire = true;
    } else if (arg == "--label") {
      a.label = value();
    } else if (arg == "--bounds-index") {
      a.bounds_index = value();
    } else if (a.cmd == "report" && a.file.empty()) {
      a.file = std::string(arg);
    } else {
      Die("unknown argument " + std::string(arg));
    }
  }
  return a;
}

std::string Backend(const Args& a) { return a.embedded.empty() ? "postgres" : "sqlite"; }

std::unique_ptr<tarn::Catalog> OpenCatalog(const Args& a) {
  auto c = a.embedded.empty() ? tarn::Catalog::Open(a.metastore, a.warehouse)
                              : tarn::Catalog::OpenEmbedded(a.embedded);
  Check(c.status(), "open catalog");
  return std::move(*c);
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// p in [0, 100] of sorted `v` (nearest rank).
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// ---- the dataset and its files ----

constexpr char kSchema[] =
    "id INT64 NOT NULL, ts TIMESTAMP[us] NOT NULL, user_id INT64, amount FLOAT64, "
    "country VARCHAR, status VARCHAR, qty INT32, price FLOAT64, flag BOOLEAN, event_date DATE";

template <typename T>
std::string Bound(const tarn::DataType& type, T v) {
  std::string b = tarn::EncodeBoundPhysical(
      type, std::string_view(reinterpret_cast<const char*>(&v), sizeof v));
  if (b.empty()) Die("cannot encode a bound of " + type.ToString());
  return b;
}

std::string StrBound(const tarn::DataType& type, std::string_view v) {
  return tarn::EncodeBoundPhysical(type, v);
}

// What a writer sends for file number `k`: rows, size, day partition and 10 columns of stats,
// with bounds that narrow with k so predicates can prune. `slot` (0..slots-1) places the file's
// ts range inside its day.
tarn::DataFile MakeFile(const tarn::DatasetInfo& ds, int64_t k, int64_t day, int64_t slot,
                        int64_t slots, const std::string& path) {
  tarn::DataFile f;
  f.path = path;
  f.record_count = 10'000 + k % 5'000;
  f.file_size_bytes = f.record_count * 38 + 4'096;
  f.spec_id = ds.spec.spec_id;
  f.partition = {std::to_string(day)};
  const int64_t width = kMicrosPerDay / slots;
  const int64_t ts_lo = day * kMicrosPerDay + slot * width;
  const int64_t rows = f.record_count;
  f.columns.reserve(ds.schema.fields.size());
  for (const tarn::Field& fld : ds.schema.fields) {
    tarn::ColumnStats s;
    s.field_id = fld.field_id;
    s.value_count = rows;
    const tarn::DataType& t = fld.type;
    if (fld.name == "id") {
      s.lower = Bound(t, int64_t{k * 20'000});
      s.upper = Bound(t, int64_t{k * 20'000 + rows - 1});
    } else if (fld.name == "ts") {
      s.lower = Bound(t, ts_lo);
      s.upper = Bound(t, ts_lo + width - 1);
    } else if (fld.name == "user_id") {
      s.null_count = k % 7;
      s.lower = Bound(t, int64_t{k % 1'000});
      s.upper = Bound(t, int64_t{k % 1'000 + 100'000});
    } else if (fld.name == "amount") {
      s.null_count = k % 3;
      s.nan_count = 0;
      s.lower = Bound(t, 0.5);
      s.upper = Bound(t, 999.5 + static_cast<double>(k % 100));
    } else if (fld.name == "country") {
      s.lower = StrBound(t, "AR");
      s.upper = StrBound(t, "US");
    } else if (fld.name == "status") {
      s.null_count = k % 11;
      s.lower = StrBound(t, "cancelled");
      s.upper = StrBound(t, "shipped");
    } else if (fld.name == "qty") {
      s.lower = Bound(t, int32_t{1});
      s.upper = Bound(t, int32_t{100 + static_cast<int32_t>(k % 50)});
    } else if (fld.name == "price") {
      s.nan_count = 0;
      s.lower = Bound(t, 0.99);
      s.upper = Bound(t, 4999.99);
    } else if (fld.name == "flag") {
      s.lower = Bound(t, uint8_t{0});
      s.upper = Bound(t, uint8_t{1});
    } else if (fld.name == "event_date") {
      s.lower = Bound(t, static_cast<int32_t>(day));
      s.upper = Bound(t, static_cast<int32_t>(day));
    }
    f.columns.push_back(std::move(s));
  }
  return f;
}

// The partition value text the catalog expects for a day, checked once against the transform.
void CheckDayPartitionText(const tarn::DatasetInfo& ds) {
  if (ds.spec.fields.size() != 1) Die("the bench dataset must be partitioned by day(ts)");
  tarn::Column ts(tarn::DataType::Timestamp(tarn::TimeUnit::kMicro));
  ts.AppendFixed<int64_t>((kBaseDay + 3) * kMicrosPerDay + 12'345);
  auto part = tarn::ApplyTransform(ds.spec.fields[0].transform, ts);
  Check(part.status(), "day transform");
  std::string text = tarn::ValueText(*part, 0);
  if (text != std::to_string(kBaseDay + 3)) Die("unexpected day partition text: " + text);
}

// The bounds index columns of datasets the bench creates (--bounds-index; empty: none).
std::string g_bounds_index;

tarn::DatasetInfo EnsureDataset(tarn::Catalog& cat, const std::string& qualified) {
  auto first = qualified.find('.');
  auto second = qualified.find('.', first + 1);
  if (first == std::string::npos || second == std::string::npos) Die("--dataset W.C.D");
  Check(cat.CreateWorkspace(qualified.substr(0, first), true), "create workspace");
  Check(cat.CreateCollection(qualified.substr(0, second), true), "create collection");
  tarn::DatasetDefinition def;
  auto schema = tarn::Schema::Parse(kSchema);
  Check(schema.status(), "schema");
  def.schema = *schema;
  for (auto& f : def.schema.fields) f.field_id = -1;
  def.partition_spec = "day(ts)";
  if (!g_bounds_index.empty()) {
    def.properties[tarn::kBoundsIndexColumnsProperty] = g_bounds_index;
  }
  auto ds = cat.CreateDataset(qualified, def, true);
  Check(ds.status(), "create dataset");
  auto loaded = cat.LoadDataset(qualified);
  Check(loaded.status(), "load dataset");
  CheckDayPartitionText(*loaded);
  return *loaded;
}

tarn::CommitMeta Meta(const std::string& message) {
  tarn::CommitMeta m;
  m.author = "bench";
  m.message = message;
  m.receipt = tarn::Receipt::Of({}, "task:bench.c.catalog_bench");
  return m;
}

// ---- commit throughput ----

struct WriterResult {
  int64_t commits = 0;         // completed inside the measured window
  std::vector<double> lat_ms;  // their latencies
};

// Commits one file per call until `end`; counts those completed in [start, end].
void WriterLoop(tarn::Catalog& cat, const tarn::DatasetInfo& ds, const std::string& dataset,
                const std::string& tag, Clock::time_point start, Clock::time_point end,
                WriterResult* out) {
  for (int64_t i = 0;; ++i) {
    Clock::time_point t0 = Clock::now();
    if (t0 >= end) break;
    int64_t day = kBaseDay + i % 30;
    tarn::DatasetCommit part;
    part.dataset = dataset;
    part.operation = tarn::CommitOperation::kAddFiles;
    part.meta = Meta("add 1 file");
    part.added.push_back(MakeFile(ds, i, day, i % 1'000, 1'000,
                                  "datasets/bench/data/ts_day=" + std::to_string(day) + "/" + tag +
                                      "-" + std::to_string(i) + ".parquet"));
    // The commit engine alone: the bench's files are never written (CommitWritten skips the
    // checks a client's files get).
    auto r = cat.CommitWritten({std::move(part)});
    Check(r.status(), "commit");
    Clock::time_point t1 = Clock::now();
    if (t0 >= start && t1 <= end) {
      out->commits += 1;
      out->lat_ms.push_back(Seconds(t1 - t0) * 1e3);
    }
  }
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

Json Summary(const std::string& bench, const Args& a, int writers, const std::string& mode,
             const std::vector<double>& lat, double seconds) {
  Json j;
  j["bench"] = bench;
  j["backend"] = Backend(a);
  j["writers"] = writers;
  j["mode"] = a.bounds_index.empty() ? mode : mode + "+bounds-index";
  j["commits"] = lat.size();
  j["seconds"] = seconds;
  j["per_s"] = static_cast<double>(lat.size()) / seconds;
  j["p50_ms"] = Percentile(lat, 50);
  j["p99_ms"] = Percentile(lat, 99);
  j["triggers"] = a.triggers;
  if (!a.label.empty()) j["label"] = a.label;
  return j;
}

// Puts `n` materialized views' refresh triggers on `dataset` (their definitions only: the
// commit path fires them and records jobs, nothing runs them).
void EnsureTriggers(tarn::Catalog& cat, const std::string& dataset, const Args& a) {
  auto triggers = cat.ListTriggers(dataset);
  Check(triggers.status(), "list triggers");
  if (static_cast<int>(triggers->size()) >= a.triggers) return;
  const std::string coll = dataset.substr(0, dataset.rfind('.'));
  for (int i = 0; i < a.triggers; ++i) {
    const std::string view = coll + ".mv" + std::to_string(i);
    tarn::DatasetDefinition def;
    def.schema = *tarn::Schema::Parse("n INT64");
    Check(cat.CreateDataset(view, def, true).status(), "create view dataset");
    tarn::ViewDefinition v;
    v.sql = "SELECT count(*) AS n FROM " + dataset;
    Check(cat.RegisterMaterializedView(view, v, {dataset}, true, tarn::kRefreshFull, "bench")
              .status(),
          "register");
    if (a.trigger_interval >= 0) {
      Check(cat.SetTriggerInterval(
                dataset, "refresh__" + coll.substr(coll.find('.') + 1) + "__mv" + std::to_string(i),
                a.trigger_interval),
            "trigger interval");
    }
  }
}

void RunCommit(const Args& a) {
  std::string dataset = a.dataset.empty() ? "bench.commits.files" : a.dataset;
  std::vector<double> lat;
  if (a.procs > 0) {
    {
      auto cat = OpenCatalog(a);
      EnsureDataset(*cat, dataset);
      if (a.triggers > 0) EnsureTriggers(*cat, dataset, a);
    }  // closed before fork: children must not share connections
    if (a.dir.empty()) Die("--procs needs --dir for the children's results");
    int ready[2], go[2];
    if (pipe(ready) != 0 || pipe(go) != 0) Die("pipe");
    std::vector<pid_t> kids;
    for (int p = 0; p < a.procs; ++p) {
      pid_t pid = fork();
      if (pid < 0) Die("fork");
      if (pid == 0) {
        auto cat = OpenCatalog(a);
        auto ds = cat->LoadDataset(dataset);
        Check(ds.status(), "load dataset");
        char c = 'r';
        if (write(ready[1], &c, 1) != 1) Die("ready pipe");
        int64_t start_ns = 0;
        if (read(go[0], &start_ns, sizeof start_ns) != sizeof start_ns) Die("go pipe");
        Clock::time_point start{std::chrono::nanoseconds(start_ns)};
        std::this_thread::sleep_until(start - std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(a.warmup)));
        Clock::time_point end = start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(a.seconds));
        WriterResult r;
        WriterLoop(*cat, *ds, dataset, "p" + std::to_string(getpid()), start, end, &r);
        std::ofstream out(a.dir + "/lat." + std::to_string(p));
        for (double v : r.lat_ms) out << v << "\n";
        out.close();
        cat.reset();
        _exit(out ? 0 : 1);
      }
      kids.push_back(pid);
    }
    for (int p = 0; p < a.procs; ++p) {
      char c;
      if (read(ready[0], &c, 1) != 1) Die("a child did not get ready");
    }
    int64_t start_ns =
        NowNanos() + static_cast<int64_t>(a.warmup * 1e9) + 50'000'000;  // all start together
    for (int p = 0; p < a.procs; ++p) {
      if (write(go[1], &start_ns, sizeof start_ns) != sizeof start_ns) Die("go pipe");
    }
    for (pid_t pid : kids) {
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die("a writer process failed");
    }
    for (int p = 0; p < a.procs; ++p) {
      std::ifstream in(a.dir + "/lat." + std::to_string(p));
      double v;
      while (in >> v) lat.push_back(v);
      std::remove((a.dir + "/lat." + std::to_string(p)).c_str());
    }
    std::printf("%s\n",
                Summary("tarn_commit", a, a.procs, "processes", lat, a.seconds).dump().c_str());
    return;
  }
  auto cat = OpenCatalog(a);
  tarn::DatasetInfo ds = EnsureDataset(*cat, dataset);
  if (a.triggers > 0) EnsureTriggers(*cat, dataset, a);
  std::vector<WriterResult> results(a.threads);
  std::vector<std::thread> threads;
  Clock::time_point start = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(a.warmup));
  Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds));
  std::string run = std::to_string(getpid());
  for (int t = 0; t < a.threads; ++t) {
    threads.emplace_back([&, t] {
      WriterLoop(*cat, ds, dataset, run + "-t" + std::to_string(t), start, end, &results[t]);
    });
  }
  for (auto& th : threads) th.join();
  for (auto& r : results) lat.insert(lat.end(), r.lat_ms.begin(), r.lat_ms.end());
  std::printf("%s\n",
              Summary("tarn_commit", a, a.threads, "threads", lat, a.seconds).dump().c_str());
}

// ---- raw SQLite one-row insert transactions ----

void SqliteCheck(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    Die(std::string("sqlite ") + what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
}

sqlite3* SqliteOpen(const std::string& path) {
  sqlite3* db = nullptr;
  SqliteCheck(
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr),
      db, "open");
  sqlite3_busy_timeout(db, 5000);
  SqliteCheck(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), db, "wal");
  SqliteCheck(sqlite3_exec(db, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr), db,
              "synchronous");
  return db;
}

void RunSqliteRaw(const Args& a) {
  if (a.dir.empty()) Die("sqlite-raw needs --dir");
  std::string path = a.dir + "/raw.db";
  {
    sqlite3* db = SqliteOpen(path);
    SqliteCheck(sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS t (a INTEGER, b TEXT)", nullptr,
                             nullptr, nullptr),
                db, "create");
    sqlite3_close(db);
  }
  std::mutex mu;
  std::vector<WriterResult> results(a.threads);
  Clock::time_point start = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(a.warmup));
  Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds));
  std::vector<std::thread> threads;
  for (int t = 0; t < a.threads; ++t) {
    threads.emplace_back([&, t] {
      sqlite3* db = SqliteOpen(path);
      sqlite3_stmt *begin, *ins, *commit, *rollback;
      SqliteCheck(sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nullptr), db, "prep");
      SqliteCheck(sqlite3_prepare_v2(db, "INSERT INTO t (a, b) VALUES (?, 'x')", -1, &ins, nullptr),
                  db, "prep");
      SqliteCheck(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nullptr), db, "prep");
      SqliteCheck(sqlite3_prepare_v2(db, "ROLLBACK", -1, &rollback, nullptr), db, "prep");
      for (int64_t i = 0;; ++i) {
        Clock::time_point t0 = Clock::now();
        if (t0 >= end) break;
        std::unique_lock<std::mutex> lock(mu, std::defer_lock);
        if (a.mutex) lock.lock();
        while (true) {
          int rc = sqlite3_step(begin);
          sqlite3_reset(begin);
          if (rc == SQLITE_BUSY) continue;  // the busy timeout expired: try again
          SqliteCheck(rc, db, "begin");
          sqlite3_bind_int64(ins, 1, t * 1'000'000'000LL + i);
          SqliteCheck(sqlite3_step(ins), db, "insert");
          sqlite3_reset(ins);
          rc = sqlite3_step(commit);
          sqlite3_reset(commit);
          SqliteCheck(rc, db, "commit");
          break;
        }
        if (lock.owns_lock()) lock.unlock();
        Clock::time_point t1 = Clock::now();
        if (t0 >= start && t1 <= end) {
          results[t].commits += 1;
          results[t].lat_ms.push_back(Seconds(t1 - t0) * 1e3);
        }
      }
      for (sqlite3_stmt* s : {begin, ins, commit, rollback}) sqlite3_finalize(s);
      sqlite3_close(db);
    });
  }
  for (auto& th : threads) th.join();
  std::vector<double> lat;
  for (auto& r : results) lat.insert(lat.end(), r.lat_ms.begin(), r.lat_ms.end());
  Args b = a;
  b.embedded = a.dir;  // backend sqlite
  std::printf("%s\n", Summary("sqlite_raw", b, a.threads, a.mutex ? "threads+mutex" : "threads",
                              lat, a.seconds)
                          .dump()
                          .c_str());
}

// ---- planning ----

void RunLoad(const Args& a) {
  std::string dataset = a.dataset.empty() ? "bench.plan.files" : a.dataset;
  auto cat = OpenCatalog(a);
  tarn::DatasetInfo ds = EnsureDataset(*cat, dataset);
  int64_t have = ds.total_files;
  Clock::time_point t0 = Clock::now();
  int64_t commits = 0;
  for (int64_t k = have; k < a.files;) {
    tarn::DatasetCommit part;
    part.dataset = dataset;
    part.operation = tarn::CommitOperation::kAddFiles;
    part.meta = Meta("bulk add_files");
    int64_t n = std::min(a.per_commit, a.files - k);
    part.added.reserve(n);
    for (int64_t i = 0; i < n; ++i, ++k) {
      int64_t day = kBaseDay + k / a.files_per_day;
      part.added.push_back(MakeFile(ds, k, day, k % a.files_per_day, a.files_per_day,
                                    "datasets/bench/data/ts_day=" + std::to_string(day) + "/f" +
                                        std::to_string(k) + ".parquet"));
    }
    Check(cat->CommitWritten({std::move(part)}).status(), "bulk commit");
    ++commits;
    if (commits % 20 == 0) {
      std::fprintf(stderr, "catalog_bench: loaded %lld files (%.0f files/s)\n",
                   static_cast<long long>(k),
                   static_cast<double>(k - have) / Seconds(Clock::now() - t0));
    }
  }
  double secs = Seconds(Clock::now() - t0);
  Json j;
  j["bench"] = "load";
  j["backend"] = Backend(a);
  j["files"] = a.files;
  j["loaded"] = a.files - have;
  j["per_commit"] = a.per_commit;
  j["seconds"] = secs;
  j["files_per_s"] = secs > 0 ? static_cast<double>(a.files - have) / secs : 0;
  std::printf("%s\n", j.dump().c_str());
}

// Iceberg metadata of the loaded dataset: the first request of each new snapshot produces its
// manifests (every live file), the next ones find them.
void RunIceberg(const Args& a) {
  std::string dataset = a.dataset.empty() ? "bench.plan.files" : a.dataset;
  auto cat = OpenCatalog(a);
  auto ds = cat->LoadDataset(dataset);
  Check(ds.status(), "load dataset");
  std::vector<double> first, again;
  int64_t k = ds->total_files;
  for (int r = 0; r < a.runs; ++r, ++k) {
    tarn::DatasetCommit part;
    part.dataset = dataset;
    part.operation = tarn::CommitOperation::kAddFiles;
    part.meta = Meta("one more file");
    const int64_t day = kBaseDay + k / a.files_per_day;
    part.added.push_back(MakeFile(*ds, k, day, k % a.files_per_day, a.files_per_day,
                                  "datasets/bench/data/ts_day=" + std::to_string(day) + "/f" +
                                      std::to_string(k) + ".parquet"));
    Check(cat->CommitWritten({std::move(part)}).status(), "commit");
    Clock::time_point t0 = Clock::now();
    auto info = cat->IcebergTable(dataset, {});
    Check(info.status(), "iceberg (first)");
    first.push_back(Seconds(Clock::now() - t0) * 1e3);
    if (!info->produced) Die("the first request of a new snapshot did not produce it");
    for (int i = 0; i < 20; ++i) {
      Clock::time_point t1 = Clock::now();
      auto found = cat->IcebergTable(dataset, {});
      Check(found.status(), "iceberg (again)");
      again.push_back(Seconds(Clock::now() - t1) * 1e3);
      if (found->produced || found->metadata_location != info->metadata_location) {
        Die("a second request produced again or named another location");
      }
    }
    std::fprintf(stderr, "catalog_bench: iceberg run %d: first %.0f ms\n", r, first.back());
  }
  int64_t manifest_bytes = 0;
  auto objects = cat->warehouse().ListAll("datasets/" + ds->uuid + "/iceberg/");
  Check(objects.status(), "list");
  for (const auto& o : *objects) {
    if (o.key.find("-m0.avro") != std::string::npos) {
      manifest_bytes = std::max<int64_t>(manifest_bytes, static_cast<int64_t>(o.size));
    }
  }
  Json j;
  j["bench"] = "iceberg_load_table";
  j["backend"] = Backend(a);
  j["files"] = k;
  j["runs"] = a.runs;
  j["first_p50_ms"] = Percentile(first, 50);
  j["first_p99_ms"] = Percentile(first, 99);
  j["again_p50_ms"] = Percentile(again, 50);
  j["again_p99_ms"] = Percentile(again, 99);
  j["manifest_bytes"] = manifest_bytes;
  std::printf("%s\n", j.dump().c_str());
}

// The peak resident set since the last ResetPeakRss (kB), from /proc/self/status VmHWM.
int64_t ProcStatusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atoll(line.c_str() + std::strlen(key));
  }
  return -1;
}

bool ResetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.close();
  return static_cast<bool>(out);
}

std::string TimestampText(int64_t micros) {
  std::string s;
  tarn::AppendTimestamp(micros, tarn::TimeUnit::kMicro, false, &s);
  return s;
}

void RunPlan(const Args& a) {
  std::string dataset = a.dataset.empty() ? "bench.plan.files" : a.dataset;
  auto cat = OpenCatalog(a);
  auto ds = cat->LoadDataset(dataset);
  Check(ds.status(), "load dataset");
  const int64_t total = ds->total_files;

  // (a) Full listing, streamed: the callback keeps nothing but counters.
  bool reset = ResetPeakRss();
  int64_t rss_before = ProcStatusKb("VmRSS:");
  int64_t n = 0, records = 0, stats_cols = 0;
  Clock::time_point t0 = Clock::now();
  Check(cat->PlanFiles(dataset, {}, "",
                       [&](const tarn::PlannedFile& f) {
                         ++n;
                         records += f.file.record_count;
                         stats_cols += static_cast<int64_t>(f.file.columns.size());
                         return Status::OK();
                       }),
        "full listing");
  double full_s = Seconds(Clock::now() - t0);
  int64_t peak = ProcStatusKb("VmHWM:");
  if (n != total)
    Die("listing returned " + std::to_string(n) + " files of " + std::to_string(total));
  Json j;
  j["bench"] = "plan_full";
  j["backend"] = Backend(a);
  j["files"] = n;
  j["seconds"] = full_s;
  j["files_per_s"] = static_cast<double>(n) / full_s;
  j["rss_before_kb"] = rss_before;
  j["peak_rss_kb"] = peak;
  j["peak_reset"] = reset;
  std::printf("%s\n", j.dump().c_str());
  std::fflush(stdout);

  // (b) One day of ts: ~1/days of the files, pruned in SQL through partition_key.
  const int64_t days = std::max<int64_t>(1, (total + a.files_per_day - 1) / a.files_per_day);
  auto timed = [&](const std::string& name, const std::function<std::string(int)>& where,
                   int runs) {
    std::vector<double> lat;
    int64_t matched = 0;
    for (int r = 0; r < runs; ++r) {
      std::string w = where(r);
      int64_t m = 0;
      Clock::time_point s = Clock::now();
      Check(cat->PlanFiles(dataset, {}, w,
                           [&](const tarn::PlannedFile&) {
                             ++m;
                             return Status::OK();
                           }),
            "plan " + w);
      lat.push_back(Seconds(Clock::now() - s) * 1e3);
      matched += m;
      if (r == 0)
        std::fprintf(stderr, "catalog_bench: %s: '%s' -> %lld files\n", name.c_str(), w.c_str(),
                     static_cast<long long>(m));
    }
    Json o;
    o["bench"] = name;
    o["backend"] = Backend(a);
    o["files"] = total;
    o["runs"] = runs;
    o["where_example"] = where(0);
    o["matched_avg"] = static_cast<double>(matched) / runs;
    o["p50_ms"] = Percentile(lat, 50);
    o["p99_ms"] = Percentile(lat, 99);
    o["min_ms"] = Percentile(lat, 0);
    std::printf("%s\n", o.dump().c_str());
    std::fflush(stdout);
  };
  timed(
      "plan_day",
      [&](int r) {
        int64_t day = kBaseDay + (r * 37 + 11) % days;
        return "ts >= '" + TimestampText(day * kMicrosPerDay) + "' AND ts < '" +
               TimestampText((day + 1) * kMicrosPerDay) + "'";
      },
      a.runs);
  // (c) A range of `id` holding ~0.1% of the files: no partition pushdown, so without the
  // bounds index every live file is read and pruned on its bounds in the process (the cost of
  // a full listing): one run. Then the index is built (timed) unless the dataset has it, and
  // the same ranges are planned through it.
  const int64_t span = std::max<int64_t>(1, total / 1'000);
  auto id_range = [&](int r) {
    int64_t first = (r * 7919 + 101) % std::max<int64_t>(1, total - span);
    return "id >= " + std::to_string(first * 20'000) + " AND id < " +
           std::to_string((first + span) * 20'000);
  };
  const bool had_index = ds->properties.count(tarn::kBoundsIndexColumnsProperty) > 0;
  if (!had_index) {
    timed("plan_id", id_range, 1);
    Clock::time_point b0 = Clock::now();
    Check(cat->SetDatasetProperties(dataset, {{tarn::kBoundsIndexColumnsProperty, "id"}}),
          "build the bounds index");
    Json o;
    o["bench"] = "bounds_index_build";
    o["backend"] = Backend(a);
    o["files"] = total;
    o["seconds"] = Seconds(Clock::now() - b0);
    std::printf("%s\n", o.dump().c_str());
    std::fflush(stdout);
  }
  timed("plan_id_indexed", id_range, a.runs);
}

// ---- snapshot expiry (issue 20) ----

// N snapshots of one file each on a new dataset, then one ExpireSnapshots that expires them all
// (everything but the current snapshot: the cutoff is the end of time) and releases their files.
void RunExpire(const Args& a) {
  std::string dataset = a.dataset.empty() ? "bench.expire.files" : a.dataset;
  if (a.snapshots < 2) Die("--snapshots must be at least 2");
  auto cat = OpenCatalog(a);
  tarn::DatasetInfo ds = EnsureDataset(*cat, dataset);
  if (ds.current_snapshot_id) Die("expire wants a new dataset (" + dataset + " has snapshots)");
  const int64_t n = a.snapshots;
  auto file = [&](int64_t k) {
    const int64_t day = kBaseDay + k / a.files_per_day;
    // Under the dataset's uuid: the removal ledger's paths are unique across datasets.
    return MakeFile(ds, k, day, k % a.files_per_day, a.files_per_day,
                    "datasets/" + ds.uuid + "/data/ts_day=" + std::to_string(day) + "/e" +
                        std::to_string(k) + ".parquet");
  };
  auto commit = [&](int64_t k, tarn::CommitOperation op) {
    tarn::DatasetCommit part;
    part.dataset = dataset;
    part.operation = op;
    part.meta = Meta(op == tarn::CommitOperation::kAddFiles ? "add 1 file" : "replace all files");
    part.added.push_back(file(k));
    Check(cat->CommitWritten({std::move(part)}).status(), "commit " + std::to_string(k));
  };
  Clock::time_point t0 = Clock::now();
  std::atomic<int64_t> next{0}, done{0};
  auto progress = [&] {
    int64_t d = ++done;
    if (d % 10'000 == 0) {
      std::fprintf(stderr, "catalog_bench: %lld snapshots (%.0f/s)\n", static_cast<long long>(d),
                   static_cast<double>(d) / Seconds(Clock::now() - t0));
    }
  };
  if (a.overwrite) {
    for (int64_t k = 0; k < n; ++k) {
      commit(k, tarn::CommitOperation::kTruncateAndAdd);
      progress();
    }
  } else {
    std::vector<std::thread> threads;
    for (int t = 0; t < std::max(1, a.threads); ++t) {
      threads.emplace_back([&] {
        for (int64_t k = next++; k < n - 1; k = next++) {
          commit(k, tarn::CommitOperation::kAddFiles);
          progress();
        }
      });
    }
    for (auto& th : threads) th.join();
    commit(n - 1, tarn::CommitOperation::kTruncateAndAdd);  // every earlier file removed
  }
  commit(n, tarn::CommitOperation::kAddFiles);  // the current snapshot, kept
  const double load_s = Seconds(Clock::now() - t0);
  auto before = cat->LoadDataset(dataset);
  Check(before.status(), "load dataset");
  if (before->current_snapshot_id.value_or(0) - before->expired_through != n + 1) {
    Die("the dataset has " +
        std::to_string(before->current_snapshot_id.value_or(0) - before->expired_through) +
        " snapshots, not " + std::to_string(n + 1));
  }
  if (a.skip_expire) {
    std::fprintf(stderr, "catalog_bench: %lld snapshots committed in %.1f s; not expired\n",
                 static_cast<long long>(n + 1), load_s);
    return;
  }

  tarn::ExpiryOptions options;
  options.older_than_us = std::numeric_limits<int64_t>::max();
  Clock::time_point s = Clock::now();
  auto r = cat->ExpireSnapshots(dataset, options);
  const double secs = Seconds(Clock::now() - s);
  Check(r.status(), "expire");
  const int64_t released = n - 1;  // the file of snapshot n stays live
  if (r->expired_snapshots != n || r->files_released != released) {
    Die("expiry expired " + std::to_string(r->expired_snapshots) + " snapshots and released " +
        std::to_string(r->files_released) + " files; expected " + std::to_string(n) + " and " +
        std::to_string(released));
  }
  auto left = cat->ListSnapshots(dataset);
  Check(left.status(), "list snapshots");
  if (left->size() != 1) Die(std::to_string(left->size()) + " snapshots left, not 1");
  Json j;
  j["bench"] = "expire";
  j["backend"] = Backend(a);
  j["shape"] = a.overwrite ? "overwrite" : "append";
  j["snapshots"] = r->expired_snapshots;
  j["files_released"] = r->files_released;
  j["seconds"] = secs;
  j["per_s"] = static_cast<double>(r->expired_snapshots) / secs;
  j["load_s"] = load_s;
  j["load_per_s"] = static_cast<double>(n + 1) / load_s;
  if (!a.label.empty()) j["label"] = a.label;
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
    rows.push_back(Json::parse(line, nullptr, false));
  }
  auto find = [&](const std::string& bench, const std::string& backend, int writers,
                  const std::string& mode) -> const Json* {
    for (const Json& r : rows) {
      if (r.value("bench", "") == bench && r.value("backend", "") == backend &&
          r.value("writers", 0) == writers && r.value("mode", "") == mode) {
        return &r;
      }
    }
    return nullptr;
  };
  auto any = [&](std::initializer_list<const char*> benches) {
    for (const Json& r : rows) {
      for (const char* b : benches) {
        if (r.value("bench", "") == b) return true;
      }
    }
    return false;
  };
  if (any({"tarn_commit"})) {
    std::printf(
        "| backend | writers | tarn commits/s | p50 / p99 ms | reference | ref/s | ref p50 / p99 "
        "ms | ratio | goal |\n");
    std::printf("|---|---|---:|---:|---|---:|---:|---:|---|\n");
  }
  for (const char* backend : {"postgres", "sqlite"}) {
    for (int w : {1, 8}) {
      const Json* ref = nullptr;
      std::string ref_name;
      if (std::string(backend) == "postgres") {
        ref = find("pgbench", backend, w, "clients");
        ref_name = "pgbench";
      } else {
        const Json* plain = find("sqlite_raw", backend, w, "threads");
        const Json* mutex = find("sqlite_raw", backend, w, "threads+mutex");
        ref = plain;
        ref_name = "raw SQLite";
        if (mutex && (!plain || mutex->value("per_s", 0.0) > plain->value("per_s", 0.0))) {
          ref = mutex;
          ref_name = "raw SQLite + mutex";
        }
      }
      for (const char* mode : {"threads", "processes"}) {
        const Json* t = find("tarn_commit", backend, w, mode);
        if (!t) continue;
        if (w == 1 && std::string(mode) == "processes") continue;
        double ratio = ref ? t->value("per_s", 0.0) / ref->value("per_s", 1.0) : 0;
        std::printf(
            "| %s | %d %s | %.0f | %.1f / %.1f | %s | %.0f | %.1f / %.1f | **%.2f** | >= 0.5 |\n",
            backend, w, w == 1 ? "" : mode, t->value("per_s", 0.0), t->value("p50_ms", 0.0),
            t->value("p99_ms", 0.0), ref_name.c_str(), ref ? ref->value("per_s", 0.0) : 0.0,
            ref ? ref->value("p50_ms", 0.0) : 0.0, ref ? ref->value("p99_ms", 0.0) : 0.0, ratio);
      }
    }
  }
  bool expiry_header = false;
  for (const Json& r : rows) {
    if (r.value("bench", "") != "expire") continue;
    if (!expiry_header) {
      std::printf(
          "\n| backend | expire (shape) | snapshots | files released | seconds | "
          "snapshots/s | goal | (load: snapshots/s) |\n");
      std::printf("|---|---|---:|---:|---:|---:|---|---:|\n");
      expiry_header = true;
    }
    const bool pg = r.value("backend", "") == "postgres";
    std::printf(
        "| %s | %s | %lld | %lld | %.2f | **%.0f** | %s | %.0f |\n", r.value("backend", "").c_str(),
        r.value("shape", "").c_str(), static_cast<long long>(r.value("snapshots", int64_t{0})),
        static_cast<long long>(r.value("files_released", int64_t{0})), r.value("seconds", 0.0),
        r.value("per_s", 0.0), pg ? ">= 20,000" : "", r.value("load_per_s", 0.0));
  }
  if (any({"load", "plan_full", "plan_day", "plan_id", "plan_id_indexed", "bounds_index_build"})) {
    std::printf("\n| backend | planning | files | result | p50 ms | p99 ms | peak RSS |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  }
  for (const Json& r : rows) {
    std::string b = r.value("bench", "");
    if (b == "load") {
      std::printf("| %s | load (%lld files/commit) | %lld | %.0f files/s | %.1f s total | | |\n",
                  r.value("backend", "").c_str(),
                  static_cast<long long>(r.value("per_commit", int64_t{0})),
                  static_cast<long long>(r.value("files", int64_t{0})), r.value("files_per_s", 0.0),
                  r.value("seconds", 0.0));
    } else if (b == "plan_full") {
      std::printf(
          "| %s | full listing | %lld | %.0f files/s | %.0f (one run) | | %.0f MB (%.0f MB before) "
          "|\n",
          r.value("backend", "").c_str(), static_cast<long long>(r.value("files", int64_t{0})),
          r.value("files_per_s", 0.0), r.value("seconds", 0.0) * 1e3,
          r.value("peak_rss_kb", int64_t{0}) / 1024.0,
          r.value("rss_before_kb", int64_t{0}) / 1024.0);
    } else if (b == "bounds_index_build") {
      std::printf("| %s | build the bounds index of `id` | %lld | | %.1f s (one run) | | |\n",
                  r.value("backend", "").c_str(),
                  static_cast<long long>(r.value("files", int64_t{0})), r.value("seconds", 0.0));
    } else if (b == "plan_day" || b == "plan_id" || b == "plan_id_indexed") {
      std::printf("| %s | %s | %lld | %.0f files | %.1f | %.1f | |\n",
                  r.value("backend", "").c_str(),
                  b == "plan_day"  ? "one day of ts (partition pushdown)"
                  : b == "plan_id" ? "id range (bounds only), no index"
                                   : "id range (bounds only), bounds index",
                  static_cast<long long>(r.value("files", int64_t{0})), r.value("matched_avg", 0.0),
                  r.value("p50_ms", 0.0), r.value("p99_ms", 0.0));
    }
  }
}

}  // namespace

// The schedule tick (issue 19, docs/design/tasks.md): `--tasks` schedule tasks, of which `--due`
// are made due before each of `--runs` ticks; the time of Catalog::FireDueSchedules (find the
// due slots with one indexed query, claim each, record a job each, in one transaction).
void RunTick(const Args& a) {
  auto cat = OpenCatalog(a);
  const std::string coll = "bench.tick";
  (void)cat->CreateWorkspace("bench");
  (void)cat->CreateCollection(coll);
  tarn::DatasetDefinition def;
  def.schema = *tarn::Schema::Parse("id INT64");
  (void)cat->CreateDataset(coll + ".dst", def);
  auto have = cat->ListTasks(coll);
  Check(have.status(), "list tasks");
  tarn::TaskDefinition task;
  task.sql = "SELECT 1 AS id";
  task.target = coll + ".dst";
  task.trigger = tarn::kTaskTriggerSchedule;
  task.schedule = "0 0 1 1 *";  // yearly: due only when the bench makes it so
  task.time_zone = "Europe/London";
  Clock::time_point t0 = Clock::now();
  for (int64_t i = static_cast<int64_t>(have->size()); i < a.tasks; ++i) {
    Check(cat->RegisterTask(coll + ".t" + std::to_string(i), task, {}, false, "bench").status(),
          "register task");
  }
  const double setup_s = Seconds(Clock::now() - t0);
  std::vector<double> ms;
  for (int run = 0; run < a.runs; ++run) {
    Check(cat->metastore().RunInTransaction([&](tarn::Transaction& tx) -> Status {
      return tx
          .Execute(
              "UPDATE tasks SET next_due_at = 1 WHERE view_id IN (SELECT view_id FROM "
              "tasks ORDER BY view_id LIMIT ?)",
              {a.due})
          .status();
    }),
          "make tasks due");
    Clock::time_point start = Clock::now();
    auto fired = cat->FireDueSchedules(10'000);
    ms.push_back(Seconds(Clock::now() - start) * 1e3);
    Check(fired.status(), "tick");
    if (static_cast<int64_t>(fired->size()) != a.due) {
      Die("the tick fired " + std::to_string(fired->size()) + " of " + std::to_string(a.due));
    }
    (void)cat->PurgeJobs();
  }
  Json j;
  j["bench"] = "schedule_tick";
  j["backend"] = Backend(a);
  j["tasks"] = a.tasks;
  j["due"] = a.due;
  j["runs"] = a.runs;
  j["setup_s"] = setup_s;
  j["p50_ms"] = Percentile(ms, 50);
  j["p99_ms"] = Percentile(ms, 99);
  j["max_ms"] = Percentile(ms, 100);
  std::printf("%s\n", j.dump().c_str());
}

int main(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  g_bounds_index = a.bounds_index;
  if (a.cmd == "commit") {
    RunCommit(a);
  } else if (a.cmd == "sqlite-raw") {
    RunSqliteRaw(a);
  } else if (a.cmd == "load") {
    RunLoad(a);
  } else if (a.cmd == "plan") {
    RunPlan(a);
  } else if (a.cmd == "iceberg") {
    RunIceberg(a);
  } else if (a.cmd == "report") {
    RunReport(a);
  } else if (a.cmd == "tick") {
    RunTick(a);
  } else if (a.cmd == "expire") {
    RunExpire(a);
  } else {
    Die("unknown command " + a.cmd);
  }
  std::fflush(stdout);
  return 0;
}
