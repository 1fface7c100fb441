// Helpers of the catalog stress and crash tests (catalog_stress_test.cc): the backend a test
// runs on, child processes, small batches of unique ids, and the global invariants of a dataset.
// Test-only.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "metastore/metastore.h"
#include "metastore/test_util.h"
#include "objectstore/fault/fault_store.h"
#include "objectstore/local/local_store.h"
#include "objectstore/object_store.h"
#include "tarn/column.h"

namespace tarn::stress {

// Where one test's catalog lives: a metastore URI (SQLite file or a PostgreSQL schema of its
// own) and a local warehouse directory. Children of the test open the same two.
struct Backend {
  std::string name;  // "sqlite" or "postgres"
  std::filesystem::path dir;
  std::string metastore_uri;
  std::string warehouse;

  // A fresh backend for the running test; nullopt (with *skip set) when PostgreSQL is not
  // configured.
  static std::optional<Backend> Make(const std::string& name, std::string* skip) {
    Backend b;
    b.name = name;
    std::string test = testing_util::TestName();
    b.dir = testing_util::ScratchDir() /
            ("tarn-stress-" + std::to_string(::getpid()) + "-" + name + "-" + test);
    std::filesystem::remove_all(b.dir);
    std::filesystem::create_directories(b.dir);
    b.warehouse = (b.dir / "warehouse").string();
    if (name == "sqlite") {
      b.metastore_uri = (b.dir / "catalog.db").string();
      return b;
    }
    const char* base = testing_util::PgBaseUri();
    if (!base) {
      *skip = "TARN_TEST_PG_URI not set (run under tests/run_with_pg.sh)";
      return std::nullopt;
    }
    std::string schema = "s_" + test;
    if (schema.size() > 60) schema.resize(60);
    testing_util::PgExec(base,
                         "DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
    std::string u = base;
    b.metastore_uri =
        u + (u.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
    return b;
  }

  // After a child was killed: PostgreSQL may still be running (and will still commit) what the
  // child had pipelined before it died, so wait until no other session of the server is inside
  // a statement or a transaction. SQLite needs nothing: the dead process's locks are gone.
  void Settle() const {
    if (name != "postgres") return;
    const char* base = testing_util::PgBaseUri();
    PGconn* conn = PQconnectdb(base);
    for (int i = 0; i < 500 && PQstatus(conn) == CONNECTION_OK; ++i) {
      PGresult* res = PQexec(conn,
                             "SELECT COUNT(*) FROM pg_stat_activity WHERE pid <> "
                             "pg_backend_pid() AND backend_type = 'client backend' AND "
                             "state IS NOT NULL AND state <> 'idle'");
      bool busy = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
                  std::string(PQgetvalue(res, 0, 0)) != "0";
      PQclear(res);
      if (!busy) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    PQfinish(conn);
  }

  // A catalog over this backend; with `faults`, its warehouse goes through a fault-injecting
  // store returned in *faults.
  Result<std::unique_ptr<Catalog>> Open(
      std::shared_ptr<FaultInjectingObjectStore>* faults = nullptr) const {
    if (!faults) return Catalog::Open(metastore_uri, warehouse);
    TARN_ASSIGN_OR_RETURN(auto local, LocalObjectStore::Open(warehouse));
    *faults = std::make_shared<FaultInjectingObjectStore>(local);
    return Catalog::Open(metastore_uri, std::shared_ptr<ObjectStore>(*faults));
  }

  void Remove() const { std::filesystem::remove_all(dir); }
};

inline int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// `n` rows with ids lo..lo+n-1: columns `id` (INT64) and `v` (VARCHAR), matched by name.
inline RecordBatch IdBatch(int64_t lo, int64_t n) {
  RecordBatch b;
  Field id{"id", DataType::Int64(), false};
  Field v{"v", DataType::Varchar(), true};
  b.schema.fields = {id, v};
  b.columns.emplace_back(DataType::Int64());
  b.columns.emplace_back(DataType::Varchar());
  for (int64_t i = 0; i < n; ++i) {
    b.columns[0].AppendFixed<int64_t>(lo + i);
    b.columns[1].AppendBytes("row-" + std::to_string(lo + i));
  }
  b.num_rows = n;
  return b;
}

inline CommitMeta Meta(std::string message, std::optional<std::string> key = std::nullopt) {
  CommitMeta m;
  m.author = "stress";
  m.message = std::move(message);
  m.receipt = Receipt{};
  m.idempotency_key = std::move(key);
  return m;
}

inline bool IsCode(const Status& st, const std::string& code) {
  for (const auto& [k, v] : st.fields()) {
    if (k == "code" && v == code) return true;
  }
  return false;
}

// Runs `body` in a forked child and returns its pid. The child returns its exit code from
// `body` and leaves with _exit (no destructors, no atexit handlers, nothing flushed that the
// parent owns). Fork only while this process holds no open catalog and runs no other thread.
inline pid_t ForkChild(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 1;
    code = body();
    ::_exit(code);
  }
  return pid;
}

// What the dataset must hold: the ids of committed rows and the ids deleted since.
struct Expected {
  std::set<int64_t> live_ids;
  // Ids that must not be present (their commit failed).
  std::set<int64_t> absent_ids;
};

// Checks the global invariants of `dataset` and returns one line per broken one (empty = all
// hold):
// - snapshots listed are exactly expired_through+1..current plus tagged ones at or below
//   expired_through; each one's parent is id-1; committed_at never decreases with the id;
//   totals chain (total[i] = total[i-1] + added[i] - deleted[i]) for files, records, bytes;
// - the dataset's totals equal the current snapshot's, the live files' (minus deletion vectors)
//   and the rows a full scan returns;
// - no _tarn_row_id and no id is returned twice; with `expected`, the ids are exactly its
//   live ids and none of its absent ids;
// - live files' row-id ranges are disjoint and below next_row_id, and so are those of every
//   file row the catalog still has; every live file exists in the warehouse with its size;
// - a tagged snapshot and `extra_snapshots` scan to their snapshot's total_records.
inline std::vector<std::string> CheckInvariants(Catalog& cat, const std::string& dataset,
                                                const Expected* expected,
                                                const std::vector<int64_t>& extra_snapshots = {}) {
  std::vector<std::string> bad;
  auto fail = [&](std::string s) { bad.push_back(std::move(s)); };
  auto ds = cat.LoadDataset(dataset);
  if (!ds.ok()) return {"LoadDataset: " + ds.status().ToString()};
  auto snaps = cat.ListSnapshots(dataset);
  if (!snaps.ok()) return {"ListSnapshots: " + snaps.status().ToString()};
  auto tags = cat.ListTags(dataset);
  if (!tags.ok()) return {"ListTags: " + tags.status().ToString()};
  const int64_t current = ds->current_snapshot_id.value_or(0);
  const int64_t expired = ds->expired_through;
  std::set<int64_t> tagged;
  for (const auto& t : *tags) tagged.insert(t.snapshot_id);

  // Snapshot ids, parents, times, totals.
  std::vector<int64_t> want;
  for (int64_t t : tagged) {
    if (t <= expired) want.push_back(t);
  }
  for (int64_t i = expired + 1; i <= current; ++i) want.push_back(i);
  std::vector<int64_t> got;
  for (const auto& s : *snaps) got.push_back(s.snapshot_id);
  if (got != want) {
    std::string g, w;
    for (auto x : got) g += std::to_string(x) + " ";
    for (auto x : want) w += std::to_string(x) + " ";
    if (g.size() > 400) g = g.substr(0, 200) + "..." + g.substr(g.size() - 200);
    if (w.size() > 400) w = w.substr(0, 200) + "..." + w.substr(w.size() - 200);
    fail("snapshot ids [" + g + "] != expected [" + w + "] (expired_through " +
         std::to_string(expired) + ", current " + std::to_string(current) + ")");
  }
  const SnapshotInfo* prev = nullptr;
  for (const auto& s : *snaps) {
    std::optional<int64_t> want_parent;
    if (s.snapshot_id > 1) want_parent = s.snapshot_id - 1;
    if (s.parent_snapshot_id != want_parent) {
      fail("snapshot " + std::to_string(s.snapshot_id) + " has parent " +
           (s.parent_snapshot_id ? std::to_string(*s.parent_snapshot_id) : "none"));
    }
    if (s.dataset_uuid != ds->uuid) fail("snapshot " + std::to_string(s.snapshot_id) + " uuid");
    if (prev) {
      if (s.committed_at_us < prev->committed_at_us) {
        fail("snapshot " + std::to_string(s.snapshot_id) + " committed at " +
             std::to_string(s.committed_at_us) + " before snapshot " +
             std::to_string(prev->snapshot_id) + " (" + std::to_string(prev->committed_at_us) +
             ")");
      }
      if (prev->snapshot_id == s.snapshot_id - 1) {
        auto chain = [&](const char* what, int64_t before, int64_t added, int64_t deleted,
                         int64_t after) {
          if (before + added - deleted != after) {
            fail(std::string("snapshot ") + std::to_string(s.snapshot_id) + " " + what + ": " +
                 std::to_string(before) + " + " + std::to_string(added) + " - " +
                 std::to_string(deleted) + " != " + std::to_string(after) + " (" + s.operation +
                 ")");
          }
        };
        chain("files", prev->total_files, s.added_files, s.deleted_files, s.total_files);
        chain("records", prev->total_records, s.added_records, s.deleted_records, s.total_records);
        chain("bytes", prev->total_bytes, s.added_bytes, s.deleted_bytes, s.total_bytes);
      }
    } else if (s.snapshot_id == 1) {
      if (s.total_files != s.added_files - s.deleted_files ||
          s.total_records != s.added_records - s.deleted_records) {
        fail("snapshot 1 totals do not equal its changes");
      }
    }
    if (s.total_records < 0 || s.total_files < 0 || s.total_bytes < 0) {
      fail("snapshot " + std::to_string(s.snapshot_id) + " has negative totals");
    }
    prev = &s;
  }
  if (!snaps->empty()) {
    const SnapshotInfo& last = snaps->back();
    if (last.snapshot_id != current) {
      fail("last listed snapshot " + std::to_string(last.snapshot_id) + " != current " +
           std::to_string(current));
    }
    if (last.total_records != ds->total_records || last.total_files != ds->total_files ||
        last.total_bytes != ds->total_bytes) {
      fail("dataset totals (" + std::to_string(ds->total_files) + " files, " +
           std::to_string(ds->total_records) + " records, " + std::to_string(ds->total_bytes) +
           " bytes) != current snapshot's (" + std::to_string(last.total_files) + ", " +
           std::to_string(last.total_records) + ", " + std::to_string(last.total_bytes) + ")");
    }
  } else if (current != 0) {
    fail("no snapshots listed but current is " + std::to_string(current));
  }

  // Live files.
  SnapshotSelector at_current;
  if (current) at_current.snapshot_id = current;
  std::vector<PlannedFile> files;
  Status st = cat.PlanFiles(dataset, at_current, "", [&](const PlannedFile& f) {
    files.push_back(f);
    return Status::OK();
  });
  if (!st.ok()) fail("PlanFiles: " + st.ToString());
  int64_t live_records = 0, live_bytes = 0;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const auto& f : files) {
    live_records += f.file.record_count - f.deleted_rows;
    live_bytes += f.file.file_size_bytes;
    if (f.deleted_rows >= f.file.record_count) {
      fail("live file " + f.file.path + " has every row deleted");
    }
    ranges.emplace_back(f.file.first_row_id, f.file.first_row_id + f.file.record_count);
    if (f.file.first_row_id < 0 || f.file.first_row_id + f.file.record_count > ds->next_row_id) {
      fail("live file " + f.file.path + " row ids [" + std::to_string(f.file.first_row_id) + ", +" +
           std::to_string(f.file.record_count) + ") not below next_row_id " +
           std::to_string(ds->next_row_id));
    }
    auto head = cat.warehouse().Head(f.file.path);
    if (!head.ok()) {
      fail("live file " + f.file.path + " missing from the warehouse: " + head.status().ToString());
    } else if (static_cast<int64_t>(head->size) != f.file.file_size_bytes) {
      fail("live file " + f.file.path + " has " + std::to_string(head->size) +
           " bytes, the catalog says " + std::to_string(f.file.file_size_bytes));
    }
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) {
      fail("live files' row-id ranges overlap at " + std::to_string(ranges[i].first));
    }
  }
  if (static_cast<int64_t>(files.size()) != ds->total_files || live_records != ds->total_records ||
      live_bytes != ds->total_bytes) {
    fail("live files (" + std::to_string(files.size()) + " files, " + std::to_string(live_records) +
         " records, " + std::to_string(live_bytes) + " bytes) != dataset totals (" +
         std::to_string(ds->total_files) + ", " + std::to_string(ds->total_records) + ", " +
         std::to_string(ds->total_bytes) + ")");
  }

  // Every file row the catalog keeps (live or removed but retained): disjoint row-id ranges.
  std::vector<std::pair<int64_t, int64_t>> all_ranges;
  st = cat.metastore().RunInTransaction(
      [&](Transaction& tx) -> Status {
        all_ranges.clear();
        return tx.QueryEach(
            "SELECT first_row_id, record_count FROM data_files WHERE dataset_id = ?", {ds->id},
            [&](const Row& r) -> Status {
              TARN_ASSIGN_OR_RETURN(int64_t first, r.Int64(0));
              TARN_ASSIGN_OR_RETURN(int64_t count, r.Int64(1));
              all_ranges.emplace_back(first, first + count);
              return Status::OK();
            });
      },
      TxMode::kReadOnly);
  if (!st.ok()) fail("data_files: " + st.ToString());
  std::sort(all_ranges.begin(), all_ranges.end());
  for (size_t i = 1; i < all_ranges.size(); ++i) {
    if (all_ranges[i].first < all_ranges[i - 1].second) {
      fail("file rows' row-id ranges overlap at " + std::to_string(all_ranges[i].first));
      break;
    }
  }
  if (!all_ranges.empty() && all_ranges.back().second > ds->next_row_id) {
    fail("a file row's row ids reach past next_row_id");
  }

  // The rows.
  std::set<int64_t> ids, row_ids;
  int64_t rows = 0;
  st = cat.Scan(dataset, at_current, "", true, [&](const RecordBatch& b) {
    int ci = b.schema.FieldIndex("id"), ri = b.schema.FieldIndex("_tarn_row_id");
    if (ci < 0 || ri < 0) return Status::Internal("scan lacks id or _tarn_row_id");
    for (int64_t r = 0; r < b.num_rows; ++r) {
      ++rows;
      int64_t id = b.columns[ci].Value<int64_t>(r);
      int64_t rid = b.columns[ri].Value<int64_t>(r);
      if (!ids.insert(id).second) fail("id " + std::to_string(id) + " returned twice");
      if (!row_ids.insert(rid).second) fail("_tarn_row_id " + std::to_string(rid) + " twice");
    }
    return Status::OK();
  });
  if (!st.ok()) fail("Scan: " + st.ToString());
  if (rows != ds->total_records) {
    fail("scan returned " + std::to_string(rows) + " rows, total_records is " +
         std::to_string(ds->total_records));
  }
  if (expected) {
    std::vector<int64_t> missing, extra, resurrected;
    std::set_difference(expected->live_ids.begin(), expected->live_ids.end(), ids.begin(),
                        ids.end(), std::back_inserter(missing));
    std::set_difference(ids.begin(), ids.end(), expected->live_ids.begin(),
                        expected->live_ids.end(), std::back_inserter(extra));
    for (int64_t id : ids) {
      if (expected->absent_ids.count(id)) resurrected.push_back(id);
    }
    auto some = [](const std::vector<int64_t>& v) {
      std::string s;
      for (size_t i = 0; i < v.size() && i < 8; ++i) s += std::to_string(v[i]) + " ";
      return s + (v.size() > 8 ? "..." : "");
    };
    if (!missing.empty()) {
      fail(std::to_string(missing.size()) + " acknowledged rows missing: " + some(missing));
    }
    if (!extra.empty()) fail(std::to_string(extra.size()) + " unexpected rows: " + some(extra));
    if (!resurrected.empty()) {
      fail(std::to_string(resurrected.size()) +
           " rows of failed commits visible: " + some(resurrected));
    }
  }

  // Older snapshots: tagged ones and the ones asked for still scan to their totals.
  std::set<int64_t> older(extra_snapshots.begin(), extra_snapshots.end());
  older.insert(tagged.begin(), tagged.end());
  std::map<int64_t, const SnapshotInfo*> by_id;
  for (const auto& s : *snaps) by_id[s.snapshot_id] = &s;
  for (int64_t id : older) {
    auto it = by_id.find(id);
    if (it == by_id.end()) continue;  // expired (untagged) or beyond the list
    SnapshotSelector at;
    at.snapshot_id = id;
    int64_t n = 0;
    st = cat.Scan(dataset, at, "", false, [&](const RecordBatch& b) {
      n += b.num_rows;
      return Status::OK();
    });
    if (!st.ok()) {
      fail("scan at snapshot " + std::to_string(id) + ": " + st.ToString());
    } else if (n != it->second->total_records) {
      fail("scan at snapshot " + std::to_string(id) + " returned " + std::to_string(n) +
           " rows, its total_records is " + std::to_string(it->second->total_records));
    }
  }
  return bad;
}

// Objects under the warehouse's datasets/ prefix that no data_files row and no pending
// removal-ledger entry names (in-progress writes are not listed by the local store).
inline Result<std::vector<std::string>> UnreferencedObjects(Catalog& cat) {
  std::set<std::string> known;
  TARN_RETURN_NOT_OK(cat.metastore().RunInTransaction(
      [&](Transaction& tx) -> Status {
        known.clear();
        auto add = [&](const Row& r) -> Status {
          TARN_ASSIGN_OR_RETURN(auto p, r.Text(0));
          known.emplace(p);
          return Status::OK();
        };
        TARN_RETURN_NOT_OK(tx.QueryEach("SELECT path FROM data_files", {}, add));
        return tx.QueryEach("SELECT path FROM removal_ledger WHERE deleted_at IS NULL", {}, add);
      },
      TxMode::kReadOnly));
  TARN_ASSIGN_OR_RETURN(auto objects, cat.warehouse().ListAll("datasets/"));
  std::vector<std::string> out;
  for (const auto& o : objects) {
    if (!known.count(o.key)) out.push_back(o.key);
  }
  return out;
}

}  // namespace tarn::stress
