// The C++ side of bench/python_bench.py (bench/README.md, "Python SDK"): the SDK's scan of a
// dataset, every batch kept (cloned out of the callback: the materialised result a DataFrame is
// the Python twin of), and the SDK's append of the same rows as one batch into a new dataset.
// Prints one JSON line: {"scan_s": [...], "append_s": [...], "rows": n}.
//
//   python_bench --catalog DIR --source w.c.src --runs 5 [--columns a,b,c] [--no-append]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/client.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

[[noreturn]] void Fail(const tarn::Status& st) {
  std::fprintf(stderr, "python_bench: %s\n", st.ToString().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::string catalog, source;
  int runs = 5;
  bool append = true;
  tarn::ScanOptions options;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--no-append") {
      append = false;
      continue;
    }
    if (i + 1 == argc) break;
    const std::string_view a = argv[i];
    if (a == "--columns") {
      std::string_view rest = argv[i + 1];
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        options.columns.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
      }
    }
    if (a == "--catalog") catalog = argv[i + 1];
    if (a == "--source") source = argv[i + 1];
    if (a == "--runs") runs = std::atoi(argv[i + 1]);
    ++i;
  }
  if (catalog.empty() || source.empty() || runs < 1) {
    std::fprintf(stderr, "usage: python_bench --catalog DIR --source W.C.D [--runs N]\n");
    return 2;
  }
  auto connected = tarn::Client::Connect(catalog, tarn::ClientOptions{});
  if (!connected.ok()) Fail(connected.status());
  std::unique_ptr<tarn::Client> c = std::move(*connected);
  auto info = c->LoadDataset(source);
  if (!info.ok()) Fail(info.status());

  nlohmann::json out;
  out["scan_s"] = nlohmann::json::array();
  int64_t rows = 0;
  for (int r = 0; r < runs; ++r) {
    std::vector<tarn::RecordBatch> kept;
    const auto t0 = std::chrono::steady_clock::now();
    tarn::Status st = c->Scan(source, options, [&](const tarn::RecordBatch& b) {
      tarn::RecordBatch copy;
      copy.schema = b.schema;
      copy.num_rows = b.num_rows;
      for (const tarn::Column& col : b.columns) copy.columns.push_back(col.Clone());
      kept.push_back(std::move(copy));
      return tarn::Status::OK();
    });
    out["scan_s"].push_back(Seconds(t0));
    if (!st.ok()) Fail(st);
    rows = 0;
    for (const auto& b : kept) rows += b.num_rows;
  }
  out["rows"] = rows;
  if (!append) {
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }

  // The same rows as one batch (what the Python side appends as one DataFrame).
  tarn::RecordBatch all;
  all.schema = info->schema;
  for (const tarn::Field& f : all.schema.fields) all.columns.emplace_back(f.type);
  tarn::Status st = c->Scan(source, tarn::ScanOptions{}, [&](const tarn::RecordBatch& b) {
    for (size_t k = 0; k < b.columns.size(); ++k) all.columns[k].AppendColumn(b.columns[k]);
    all.num_rows += b.num_rows;
    return tarn::Status::OK();
  });
  if (!st.ok()) Fail(st);
  const std::string prefix = source.substr(0, source.rfind('.') + 1);
  out["append_s"] = nlohmann::json::array();
  for (int r = 0; r < runs; ++r) {
    const std::string name = prefix + "cpp_append_" + std::to_string(r);
    tarn::DatasetDefinition def;
    def.schema = info->schema;
    auto made = c->CreateDataset(name, def, /*exists_ok=*/false);
    if (!made.ok()) Fail(made.status());
    tarn::CommitMeta meta;
    meta.author = "bench";
    meta.receipt = tarn::Receipt{};
    std::vector<tarn::RecordBatch> batches;
    tarn::RecordBatch copy;
    copy.schema = all.schema;
    copy.num_rows = all.num_rows;
    for (const tarn::Column& col : all.columns) copy.columns.push_back(col.Clone());
    batches.push_back(std::move(copy));
    // The earlier runs' files written back first, as the Python side does: an append is not
    // charged for the dirty pages of the one before it.
    sync();
    const auto t0 = std::chrono::steady_clock::now();
    auto snap = c->Append(name, batches, meta);
    out["append_s"].push_back(Seconds(t0));
    if (!snap.ok()) Fail(snap.status());
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
