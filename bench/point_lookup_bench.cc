// Point lookups on a dataset sorted by id, with and without the Parquet page index (issue 21;
// bench/README.md, "Point lookup and the page index"). Driven by bench/point_lookup_run.sh
// beside DuckDB (bench/point_lookup_duckdb.mjs) over the same files. One JSON object per line on
// stdout; progress on stderr.
//
//   point_lookup_bench write --dir DIR [--rows N] [--files F]
//       Writes N rows (ids 0..N-1, in order) as F data files twice, through the data-file layer
//       the catalog's appends use (WriteDataFiles, default Parquet options): DIR/index/ with the
//       page index (the default), DIR/noindex/ without. DIR/files.json lists them.
//   point_lookup_bench lookup --dir DIR [--lookups K] [--full-lookups J]
//       K lookups `id = X` (X spread over the ids) as a catalog scan does them: the files are
//       planned by their statistics (MightMatch), then read with ReadDataFile and the filter.
//       Three ways: the files with the page index; the files without (row groups pruned by their
//       statistics only); and (J lookups) without pruning at all, the read before the page index.
//       Reports the median and p90 time of a lookup and the data pages and row groups it read.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "datafile/reader.h"
#include "datafile/writer.h"
#include "objectstore/local/local_store.h"
#include "table/predicate.h"

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "point_lookup_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(const tarn::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

struct Args {
  std::string cmd, dir;
  int64_t rows = 100'000'000;
  int64_t files = 10;
  int lookups = 25;
  int full_lookups = 3;
};

Args ParseArgs(int argc, char** argv) {
  if (argc < 2) Die("usage: point_lookup_bench write|lookup --dir DIR ... (see source)");
  Args a;
  a.cmd = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--dir") {
      a.dir = value();
    } else if (arg == "--rows") {
      a.rows = std::stoll(value());
    } else if (arg == "--files") {
      a.files = std::stoll(value());
    } else if (arg == "--lookups") {
      a.lookups = std::stoi(value());
    } else if (arg == "--full-lookups") {
      a.full_lookups = std::stoi(value());
    } else {
      Die("unknown argument " + std::string(arg));
    }
  }
  if (a.dir.empty()) Die("--dir DIR");
  if (a.rows < 1 || a.files < 1 || a.files > a.rows) Die("--rows and --files must be >= 1");
  return a;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  return q == 0.5 && v.size() % 2 == 0 ? (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2 : v[k];
}

// The dataset: an id and three payload columns, as an event table holds them.
tarn::Schema LookupSchema() {
  auto s = tarn::Schema::Parse("id INT64 NOT NULL, ts TIMESTAMP[us], amount FLOAT64, name VARCHAR");
  Check(s.status(), "schema");
  return *s;
}

// Rows [begin, end) of the dataset.
tarn::RecordBatch MakeRows(const tarn::Schema& schema, int64_t begin, int64_t end) {
  tarn::RecordBatch b;
  b.schema = schema;
  for (const tarn::Field& f : schema.fields) b.columns.emplace_back(f.type);
  const int64_t n = end - begin;
  b.num_rows = n;
  b.columns[0].data.resize(static_cast<size_t>(n) * 8);
  b.columns[1].data.resize(static_cast<size_t>(n) * 8);
  b.columns[2].data.resize(static_cast<size_t>(n) * 8);
  auto* id = b.columns[0].mutable_values<int64_t>();
  auto* ts = b.columns[1].mutable_values<int64_t>();
  auto* amount = b.columns[2].mutable_values<double>();
  tarn::Column& name = b.columns[3];
  name.offsets.reserve(static_cast<size_t>(n) + 1);
  char buf[32];
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = begin + k;
    id[k] = i;
    ts[k] = 1704067200000000 + i * 1000;
    amount[k] = static_cast<double>((i * 2654435761) % 1000000) / 100.0;
    const int len =
        std::snprintf(buf, sizeof(buf), "user_%lld", static_cast<long long>((i * 7) % 1000003));
    name.data.insert(name.data.end(), buf, buf + len);
    name.offsets.push_back(static_cast<int64_t>(name.data.size()));
  }
  for (int c = 0; c < 3; ++c) b.columns[c].length = n;
  name.length = n;
  return b;
}

std::shared_ptr<tarn::LocalObjectStore> Store(const std::string& dir) {
  auto store = tarn::LocalObjectStore::Open(dir);
  Check(store.status(), "open store " + dir);
  return *store;
}

void Write(const Args& a) {
  const tarn::Schema schema = LookupSchema();
  Json out = Json::object();
  for (const char* variant : {"index", "noindex"}) out[variant] = Json::array();
  double seconds[2] = {0, 0};
  int64_t bytes[2] = {0, 0};
  const int64_t per_file = (a.rows + a.files - 1) / a.files;
  constexpr int64_t kBatch = 1 << 20;
  for (int64_t f = 0; f < a.files; ++f) {
    const int64_t begin = f * per_file, end = std::min(a.rows, begin + per_file);
    if (begin >= end) break;
    std::vector<tarn::RecordBatch> batches;
    for (int64_t b = begin; b < end; b += kBatch) {
      batches.push_back(MakeRows(schema, b, std::min(end, b + kBatch)));
    }
    for (int v = 0; v < 2; ++v) {
      const std::string variant = v == 0 ? "index" : "noindex";
      auto store = Store(a.dir + "/" + variant);
      tarn::DataWriteOptions opts;
      opts.parquet.page_index = v == 0;
      const Clock::time_point t0 = Clock::now();
      auto files = tarn::WriteDataFiles(*store, schema, tarn::PartitionSpec{}, tarn::SortOrder{},
                                        batches, opts);
      Check(files.status(), "write " + variant);
      seconds[v] += Seconds(Clock::now() - t0);
      for (const tarn::DataFile& df : *files) {
        bytes[v] += df.file_size_bytes;
        out[variant].push_back(Json::parse(tarn::StatsToJson(df.columns)));
        out[variant].back()["path"] = df.path;
        out[variant].back()["records"] = df.record_count;
        out[variant].back()["bytes"] = df.file_size_bytes;
      }
    }
    std::fprintf(stderr, "point_lookup_bench: wrote file %lld of %lld\n",
                 static_cast<long long>(f + 1), static_cast<long long>(a.files));
  }
  std::ofstream(a.dir + "/files.json") << out.dump();
  for (int v = 0; v < 2; ++v) {
    Json line = {
        {"engine", "tarn"}, {"bench", "lookup_write"}, {"variant", v == 0 ? "index" : "noindex"},
        {"rows", a.rows},   {"files", a.files},        {"seconds", seconds[v]},
        {"bytes", bytes[v]}};
    std::printf("%s\n", line.dump().c_str());
  }
}

// The DataFiles of a variant as files.json lists them (statistics included, for planning).
std::vector<tarn::DataFile> LoadFiles(const std::string& dir, const std::string& variant) {
  std::ifstream in(dir + "/files.json");
  if (!in) Die("no " + dir + "/files.json (run write first)");
  const Json all = Json::parse(in);
  std::vector<tarn::DataFile> files;
  for (const Json& j : all.at(variant)) {
    tarn::DataFile df;
    df.path = j.at("path").get<std::string>();
    df.record_count = j.at("records").get<int64_t>();
    df.file_size_bytes = j.at("bytes").get<int64_t>();
    Json stats = j;
    stats.erase("path");
    stats.erase("records");
    stats.erase("bytes");
    auto cols = tarn::StatsFromJson(stats.dump());
    Check(cols.status(), "stats of " + df.path);
    df.columns = std::move(*cols);
    files.push_back(std::move(df));
  }
  return files;
}

void Lookup(const Args& a) {
  const tarn::Schema schema = LookupSchema();
  struct Mode {
    const char* name;
    const char* variant;
    bool prune;
    int lookups;
  };
  const Mode modes[] = {{"page_index", "index", true, a.lookups},
                        {"row_group_stats", "noindex", true, a.lookups},
                        {"no_pruning", "noindex", false, a.full_lookups}};
  for (const Mode& m : modes) {
    if (m.lookups < 1) continue;
    const std::vector<tarn::DataFile> files = LoadFiles(a.dir, m.variant);
    int64_t total = 0;
    for (const tarn::DataFile& f : files) total += f.record_count;
    auto store = Store(a.dir + "/" + m.variant);
    std::vector<double> times;
    int64_t pages = 0, skipped = 0, groups_skipped = 0, files_read = 0, rows_found = 0;
    for (int k = 0; k < m.lookups; ++k) {
      // Ids spread over the whole range, never twice the same page.
      const int64_t id =
          (total / m.lookups) * k + (k * 7919) % std::max<int64_t>(1, total / m.lookups);
      auto pred = tarn::ParseAndBindPredicate("id = " + std::to_string(id), schema);
      Check(pred.status(), "predicate");
      tarn::ReadStats st;
      tarn::ReadOptions ro;
      ro.prune_pages = m.prune;
      ro.stats = &st;
      ro.threads = 2;
      const Clock::time_point t0 = Clock::now();
      int64_t found = 0;
      for (const tarn::DataFile& f : files) {
        if (!tarn::MightMatch(*pred, f, tarn::PartitionSpec{}, schema)) continue;
        auto batch = tarn::ReadDataFile(*store, f, schema, {}, &*pred, ro);
        Check(batch.status(), "read " + f.path);
        found += batch->num_rows;
        ++files_read;
      }
      times.push_back(Seconds(Clock::now() - t0));
      if (found != 1)
        Die("id " + std::to_string(id) + " found " + std::to_string(found) + " times");
      rows_found += found;
      pages += st.data_pages_read;
      skipped += st.data_pages_skipped;
      groups_skipped += st.row_groups_skipped_by_statistics;
    }
    Json line = {
        {"engine", "tarn"},
        {"bench", "lookup"},
        {"mode", m.name},
        {"rows", total},
        {"lookups", m.lookups},
        {"median_s", Quantile(times, 0.5)},
        {"p90_s", Quantile(times, 0.9)},
        {"min_s", Quantile(times, 0)},
        {"files_read_per_lookup", static_cast<double>(files_read) / m.lookups},
        {"data_pages_read_per_lookup", static_cast<double>(pages) / m.lookups},
        {"data_pages_skipped_per_lookup", static_cast<double>(skipped) / m.lookups},
        {"row_groups_skipped_per_lookup", static_cast<double>(groups_skipped) / m.lookups}};
    std::printf("%s\n", line.dump().c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = ParseArgs(argc, argv);
  if (a.cmd == "write") {
    Write(a);
  } else if (a.cmd == "lookup") {
    Lookup(a);
  } else {
    Die("unknown command " + a.cmd);
  }
  return 0;
}
