// Uses the installed SDK as a library user would: an embedded catalog in argv[1], a workspace,
// a collection and a dataset, one appended batch, scanned back and checked.
#include <tarn/client.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void Check(const tarn::Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: embedded_app DIR\n");
    return 2;
  }
  auto client = tarn::Client::Connect(argv[1]);
  Check(client.status(), "connect");
  tarn::Client& c = **client;
  Check(c.CreateWorkspace("acme"), "create workspace");
  Check(c.CreateCollection("acme.sales"), "create collection");

  tarn::DatasetDefinition def;
  auto schema = tarn::Schema::Parse("id INT64 NOT NULL, name VARCHAR");
  Check(schema.status(), "schema");
  def.schema = *schema;
  auto ds = c.CreateDataset("acme.sales.orders", def);
  Check(ds.status(), "create dataset");

  tarn::RecordBatch batch;
  batch.schema = ds->schema;
  tarn::Column ids(tarn::DataType::Int64());
  tarn::Column names(tarn::DataType::Varchar());
  const std::vector<std::string> want = {"ada", "grace", "edsger"};
  for (size_t i = 0; i < want.size(); ++i) {
    ids.AppendFixed<int64_t>(static_cast<int64_t>(i + 1));
    names.AppendBytes(want[i]);
  }
  batch.columns.push_back(std::move(ids));
  batch.columns.push_back(std::move(names));
  batch.num_rows = static_cast<int64_t>(want.size());
  tarn::CommitMeta meta;
  meta.author = "install-test";
  meta.message = "one batch";
  std::vector<tarn::RecordBatch> batches;
  batches.push_back(std::move(batch));
  auto snap = c.Append("acme.sales.orders", batches, meta);
  Check(snap.status(), "append");
  if (snap->added_records != 3) {
    std::fprintf(stderr, "append added %lld rows, want 3\n",
                 static_cast<long long>(snap->added_records));
    return 1;
  }

  std::vector<std::pair<int64_t, std::string>> rows;
  Check(c.Scan("acme.sales.orders", {}, "", false,
               [&](const tarn::RecordBatch& b) {
                 int id = b.schema.FieldIndex("id");
                 int name = b.schema.FieldIndex("name");
                 if (id < 0 || name < 0) return tarn::Status::Internal("columns missing");
                 for (int64_t r = 0; r < b.num_rows; ++r) {
                   rows.emplace_back(b.columns[id].Value<int64_t>(r),
                                     std::string(b.columns[name].StringAt(r)));
                 }
                 return tarn::Status::OK();
               }),
        "scan");
  if (rows.size() != want.size()) {
    std::fprintf(stderr, "scan returned %zu rows, want %zu\n", rows.size(), want.size());
    return 1;
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (rows[i].first != static_cast<int64_t>(i + 1) || rows[i].second != want[i]) {
      std::fprintf(stderr, "row %zu: %lld %s\n", i, static_cast<long long>(rows[i].first),
                   rows[i].second.c_str());
      return 1;
    }
  }
  // SQL through the installed SDK (DuckDB loaded at the first query).
  int64_t count = -1;
  std::string longest;
  auto q = c.Query("SELECT count(*) AS n, max(name) AS m FROM acme.sales.orders", {},
                   [&](const tarn::RecordBatch& b) {
                     count = b.columns[0].Value<int64_t>(0);
                     longest = std::string(b.columns[1].StringAt(0));
                     return tarn::Status::OK();
                   });
  Check(q.status(), "query");
  if (count != 3 || longest != "grace" || q->reads.size() != 1) {
    std::fprintf(stderr, "query: count %lld, max '%s', %zu reads\n", static_cast<long long>(count),
                 longest.c_str(), q->reads.size());
    return 1;
  }
  std::printf("embedded ok: %zu rows scanned back\n", rows.size());
  return 0;
}
