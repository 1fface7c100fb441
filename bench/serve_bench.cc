// Append commits over HTTP against the embedded library on the same metastore (bench/README.md,
// "Service"). Driven by bench/serve_run.sh, which starts PostgreSQL and `tarn serve`.
//
//   serve_bench append (--url http://HOST:PORT | --metastore URI --warehouse DIR)
//                      [--dataset W.C.D] [--clients N] [--rows R] [--seconds S] [--warmup S]
//                      [--label L] [--inline SIZE]
//       N threads, each appending batches of R rows (id INT64, v VARCHAR) as its own commits
//       through tarn::Client::Append: remote with --url (credentials from TARN_CLIENT_ID /
//       TARN_CLIENT_SECRET; one client per thread, as separate processes would have), embedded
//       with --metastore/--warehouse (one Catalog shared by the threads, as one process would).
//       The dataset is created when missing, with --inline as its inline.max_bytes (appends
//       kept in the metastore: docs/design/catalog-core.md "Inlined appends").
//
// Prints one JSON object on stdout: commits, per_s, p50_ms, p99_ms.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "tarn/client.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "serve_bench: %s\n", msg.c_str());
  std::exit(2);
}

void Check(const tarn::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

struct Args {
  std::string url, metastore, warehouse, label, inline_max;
  std::string dataset = "bench.serve.appends";
  int clients = 8;
  int rows = 10;
  double seconds = 5, warmup = 1;
};

Args ParseArgs(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) != "append") Die("usage: serve_bench append ...");
  Args a;
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Die(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--url") {
      a.url = next();
    } else if (arg == "--metastore") {
      a.metastore = next();
    } else if (arg == "--warehouse") {
      a.warehouse = next();
    } else if (arg == "--dataset") {
      a.dataset = next();
    } else if (arg == "--clients") {
      a.clients = std::stoi(next());
    } else if (arg == "--rows") {
      a.rows = std::stoi(next());
    } else if (arg == "--seconds") {
      a.seconds = std::stod(next());
    } else if (arg == "--warmup") {
      a.warmup = std::stod(next());
    } else if (arg == "--label") {
      a.label = next();
    } else if (arg == "--inline") {
      a.inline_max = next();
    } else {
      Die("unknown argument " + std::string(arg));
    }
  }
  if (a.url.empty() == (a.metastore.empty() || a.warehouse.empty())) {
    Die("give --url, or --metastore and --warehouse");
  }
  return a;
}

tarn::RecordBatch Batch(int64_t lo, int rows) {
  tarn::RecordBatch b;
  b.schema.fields = {tarn::Field{"id", tarn::DataType::Int64(), false},
                     tarn::Field{"v", tarn::DataType::Varchar(), true}};
  b.columns.emplace_back(tarn::DataType::Int64());
  b.columns.emplace_back(tarn::DataType::Varchar());
  for (int i = 0; i < rows; ++i) {
    b.columns[0].AppendFixed<int64_t>(lo + i);
    b.columns[1].AppendBytes("value-" + std::to_string(lo + i));
  }
  b.num_rows = rows;
  return b;
}

std::unique_ptr<tarn::Client> Open(const Args& a) {
  if (!a.url.empty()) {
    tarn::ClientOptions o;
    o.FillFromEnvironment();
    auto c = tarn::Client::Connect(a.url, o);
    Check(c.status(), "connecting to " + a.url);
    return std::move(*c);
  }
  auto c = tarn::Catalog::Open(a.metastore, a.warehouse);
  Check(c.status(), "opening " + a.metastore);
  return std::move(*c);
}

void EnsureDataset(tarn::Client& c, const std::string& qualified, const std::string& inline_max) {
  auto dot1 = qualified.find('.');
  auto dot2 = qualified.find('.', dot1 + 1);
  if (dot1 == std::string::npos || dot2 == std::string::npos) Die("--dataset W.C.D");
  Check(c.CreateWorkspace(qualified.substr(0, dot1), true), "workspace");
  Check(c.CreateCollection(qualified.substr(0, dot2), true), "collection");
  tarn::DatasetDefinition def;
  def.schema.fields = {tarn::Field{"id", tarn::DataType::Int64(), false},
                       tarn::Field{"v", tarn::DataType::Varchar(), true}};
  if (!inline_max.empty()) def.properties[tarn::kInlineMaxBytesProperty] = inline_max;
  Check(c.CreateDataset(qualified, def, true).status(), "dataset");
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t k = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  std::unique_ptr<tarn::Client> shared = Open(a);
  EnsureDataset(*shared, a.dataset, a.inline_max);

  std::vector<std::unique_ptr<tarn::Client>> remote;
  if (!a.url.empty()) {
    for (int t = 0; t < a.clients; ++t) remote.push_back(Open(a));
  }
  std::atomic<bool> measuring{false}, stop{false};
  std::mutex mu;
  std::vector<double> latencies_ms;
  std::atomic<int64_t> commits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < a.clients; ++t) {
    threads.emplace_back([&, t] {
      tarn::Client& c = remote.empty() ? *shared : *remote[t];
      std::vector<double> mine;
      for (int64_t i = 0; !stop; ++i) {
        tarn::CommitMeta meta;
        meta.author = "bench";
        meta.receipt = tarn::Receipt{};
        std::vector<tarn::RecordBatch> batches;
        batches.push_back(Batch((int64_t{t} << 40) + i * a.rows, a.rows));
        auto start = Clock::now();
        auto snap = c.Append(a.dataset, batches, meta);
        Check(snap.status(), "append");
        if (measuring && !stop) {
          mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
          commits++;
        }
      }
      std::lock_guard<std::mutex> l(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(a.warmup));
  measuring = true;
  auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(a.seconds));
  stop = true;
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& th : threads) th.join();

  nlohmann::json out = {{"bench", "serve_append"},
                        {"mode", a.url.empty() ? "embedded" : "http"},
                        {"label", a.label},
                        {"inline", a.inline_max},
                        {"clients", a.clients},
                        {"rows_per_commit", a.rows},
                        {"commits", commits.load()},
                        {"per_s", static_cast<double>(commits.load()) / elapsed},
                        {"p50_ms", Percentile(latencies_ms, 50)},
                        {"p99_ms", Percentile(latencies_ms, 99)}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
