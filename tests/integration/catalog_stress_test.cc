// Correctness under concurrency and crashes (issue 4), on SQLite and PostgreSQL:
// - ConcurrentMix: threads of several processes mix appends, add_files commits, DDL, property
//   updates, row deletes, consumer offsets, expiry, cleanup and readers on one dataset for a few
//   seconds; then the global invariants of stress_util.h hold and the rows are exactly the
//   acknowledged appends minus the acknowledged deletes. ConcurrentMixInlined: the same with the
//   dataset's small appends inlined (kept in the metastore) and flushed by the maintenance thread.
// - CrashLoop / CrashLoopWithFaults: a child commits in a loop (keyed appends, deletes, DDL,
//   properties, offsets) and reports every acknowledged commit through a pipe; the parent
//   SIGKILLs it at a random moment, many times, and after each kill checks that every
//   acknowledged commit is there (and replays to the same snapshot), nothing failed or
//   half-written is visible, and the invariants hold. The faults variant runs the child's
//   warehouse through a FaultInjectingObjectStore that fails random writes.
// PostgreSQL cases run when TARN_TEST_PG_URI is set (tests/run_with_pg.sh), each test in its
// own schema. TARN_STRESS_SEED fixes the random seed (it is printed on every run).
#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "datafile/writer.h"
#include "stress_util.h"

namespace tarn::stress {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr char kDataset[] = "w.c.d";
constexpr char kSharedConsumer[] = "shared";

std::vector<RecordBatch> One(RecordBatch b) {
  std::vector<RecordBatch> v;
  v.push_back(std::move(b));
  return v;
}

uint64_t Seed() {
  if (const char* s = std::getenv("TARN_STRESS_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<uint64_t>(NowUs());
}

std::string Join(const std::vector<std::string>& lines, size_t max = 25) {
  std::string out;
  for (size_t i = 0; i < lines.size() && i < max; ++i) out += "\n  " + lines[i];
  if (lines.size() > max) out += "\n  ... " + std::to_string(lines.size() - max) + " more";
  return out;
}

// Creates the workspace, collection and dataset of the tests.
Status CreateDataset(Catalog& cat, const std::string& partition, bool inlined = false) {
  TARN_RETURN_NOT_OK(cat.CreateWorkspace("w"));
  TARN_RETURN_NOT_OK(cat.CreateCollection("w.c"));
  DatasetDefinition def;
  TARN_ASSIGN_OR_RETURN(def.schema, Schema::Parse("id INT64 NOT NULL, v VARCHAR"));
  def.partition_spec = partition;
  def.sort_order = "id";
  // Small appends kept in the metastore (docs/design/catalog-core.md "Inlined appends").
  if (inlined) def.properties[kInlineMaxBytesProperty] = "64KiB";
  return cat.CreateDataset(kDataset, def).status();
}

// ---------------------------------------------------------------------------------------------
// ConcurrentMix

// What one worker was told succeeded, and what it saw go wrong. Serialized as lines so that
// child processes can hand it to the parent through a file.
struct WorkerLog {
  std::vector<std::pair<int64_t, int64_t>> appended;  // (first id, rows) acknowledged
  std::vector<std::pair<int64_t, int64_t>> failed;    // (first id, rows) whose commit failed
  std::vector<int64_t> deleted;                       // ids an acknowledged delete removed
  std::map<std::string, std::string> props;           // last value set per property key
  std::map<std::string, int64_t> offsets;             // highest offset committed per consumer
  std::vector<std::string> columns;                   // columns added
  std::vector<std::string> failures;                  // broken expectations
  std::map<std::string, int64_t> counts;              // operation outcomes

  void Fail(std::string msg) { failures.push_back(std::move(msg)); }

  std::string Serialize() const {
    std::ostringstream o;
    for (auto [lo, n] : appended) o << "A " << lo << " " << n << "\n";
    for (auto [lo, n] : failed) o << "X " << lo << " " << n << "\n";
    for (int64_t id : deleted) o << "D " << id << "\n";
    for (const auto& [k, v] : props) o << "P " << k << " " << v << "\n";
    for (const auto& [k, v] : offsets) o << "O " << k << " " << v << "\n";
    for (const auto& c : columns) o << "L " << c << "\n";
    for (const auto& [k, v] : counts) o << "N " << k << " " << v << "\n";
    for (const auto& f : failures) {
      std::string one = f;
      std::replace(one.begin(), one.end(), '\n', ' ');
      o << "F " << one << "\n";
    }
    return o.str();
  }

  void MergeFrom(std::istream& in) {
    std::string line;
    while (std::getline(in, line)) {
      if (line.size() < 2) continue;
      std::istringstream l(line.substr(2));
      std::string k, v;
      int64_t a = 0, b = 0;
      switch (line[0]) {
        case 'A':
          l >> a >> b;
          appended.emplace_back(a, b);
          break;
        case 'X':
          l >> a >> b;
          failed.emplace_back(a, b);
          break;
        case 'D':
          l >> a;
          deleted.push_back(a);
          break;
        case 'P':
          l >> k >> v;
          props[k] = v;
          break;
        case 'O':
          l >> k >> a;
          offsets[k] = std::max(offsets[k], a);
          break;
        case 'L':
          l >> k;
          columns.push_back(k);
          break;
        case 'N':
          l >> k >> a;
          counts[k] += a;
          break;
        case 'F':
          failures.push_back(line.substr(2));
          break;
        default:
          failures.push_back("bad log line: " + line);
      }
    }
  }

  void MergeFrom(const WorkerLog& o) {
    std::istringstream in(o.Serialize());
    MergeFrom(in);
  }
};

std::string ConsumerOf(int worker) { return "c_w" + std::to_string(worker); }

// One worker: random operations until `deadline`. Ids are (worker + 1) * 10^9 + a counter, so
// every row of the test is unique; the worker deletes only its own ids, so it knows exactly how
// many rows each of its deletes must remove.
void RunWorker(Catalog& cat, int worker, Clock::time_point deadline, uint64_t seed,
               WorkerLog* log) {
  std::mt19937_64 rng(seed);
  const int64_t base = (worker + 1) * int64_t{1000000000};
  int64_t next_id = base;
  std::set<int64_t> own_live;  // this worker's rows that must be visible
  std::vector<std::pair<int64_t, int64_t>> acked;
  int64_t prop_counter = 0;
  int64_t own_offset = 0, shared_seen = 0;
  int columns_added = 0;
  const std::string prop_key = "k_w" + std::to_string(worker);
  const std::string consumer = ConsumerOf(worker);
  auto count = [&](const std::string& what) { ++log->counts[what]; };
  auto unexpected = [&](const std::string& what, const Status& st) {
    count(what + ".error");
    log->Fail("worker " + std::to_string(worker) + " " + what + ": " + st.ToString());
  };

  auto append = [&] {
    int64_t n = 1 + static_cast<int64_t>(rng() % 3);
    int64_t lo = next_id;
    next_id += n;
    std::optional<std::string> key;
    if (rng() % 2) key = "w" + std::to_string(worker) + "-" + std::to_string(lo);
    auto s = cat.Append(kDataset, One(IdBatch(lo, n)), Meta("append", key));
    if (!s.ok()) {
      log->failed.emplace_back(lo, n);
      return unexpected("append", s.status());
    }
    count("append");
    if (s->added_records != n || s->operation != "append" || s->idempotent_replay) {
      log->Fail("append of " + std::to_string(n) + " rows: snapshot " +
                std::to_string(s->snapshot_id) + " says " + std::to_string(s->added_records) +
                " rows, op " + s->operation);
    }
    log->appended.emplace_back(lo, n);
    acked.emplace_back(lo, n);
    for (int64_t i = 0; i < n; ++i) own_live.insert(lo + i);
  };

  // add_files: the worker writes the Parquet itself and commits DataFile records.
  auto add_files = [&] {
    auto ds = cat.LoadDataset(kDataset);
    if (!ds.ok()) return unexpected("add_files.load", ds.status());
    int64_t n = 1 + static_cast<int64_t>(rng() % 4);
    int64_t lo = next_id;
    next_id += n;
    DataWriteOptions options;
    options.prefix = "datasets/" + ds->uuid + "/data/";
    auto files = WriteDataFiles(cat.warehouse(), ds->schema, ds->spec, ds->sort_order,
                                One(IdBatch(lo, n)), options);
    if (!files.ok()) {
      log->failed.emplace_back(lo, n);
      return unexpected("add_files.write", files.status());
    }
    DatasetCommit part;
    part.dataset = kDataset;
    part.expected_uuid = ds->uuid;
    part.operation = CommitOperation::kAddFiles;
    part.written_spec_id = ds->spec.spec_id;
    part.added = *files;
    part.meta = Meta("add_files");
    auto s = cat.Commit(std::move(part));
    if (!s.ok()) {
      std::vector<std::string> keys;
      for (const auto& f : *files) keys.push_back(f.path);
      (void)cat.warehouse().DeleteMany(keys);  // the writer cleans up what it did not commit
      log->failed.emplace_back(lo, n);
      return unexpected("add_files", s.status());
    }
    count("add_files");
    if (s->added_records != n || s->added_files != static_cast<int64_t>(files->size()) ||
        s->operation != "add_files") {
      log->Fail("add_files of " + std::to_string(n) + " rows in " + std::to_string(files->size()) +
                " files: snapshot says " + std::to_string(s->added_records) + " rows, " +
                std::to_string(s->added_files) + " files");
    }
    log->appended.emplace_back(lo, n);
    acked.emplace_back(lo, n);
    for (int64_t i = 0; i < n; ++i) own_live.insert(lo + i);
  };

  auto remove = [&] {
    if (acked.empty()) return;
    size_t i = rng() % acked.size();
    size_t j = std::min(acked.size() - 1, i + rng() % 3);
    int64_t a = acked[i].first, b = acked[j].first + acked[j].second;  // [a, b)
    std::string where;
    std::set<int64_t> target;  // ids the predicate names
    int kind = static_cast<int>(rng() % 10);
    if (kind < 5) {
      where = "id >= " + std::to_string(a) + " AND id < " + std::to_string(b);
      for (int64_t x = a; x < b; ++x) target.insert(x);
    } else if (kind < 8) {
      where = "id IN (";
      for (int k = 0; k < 3; ++k) {
        int64_t x = a + static_cast<int64_t>(rng() % static_cast<uint64_t>(b - a));
        where += (k ? ", " : "") + std::to_string(x);
        target.insert(x);
      }
      where += ")";
    } else {
      where = "id = " + std::to_string(a);
      target.insert(a);
    }
    std::vector<int64_t> gone;
    for (int64_t x : target) {
      if (own_live.count(x)) gone.push_back(x);
    }
    for (int attempt = 0; attempt < 4; ++attempt) {
      auto s = cat.DeleteRows(kDataset, where, Meta("delete"));
      if (!s.ok() && s.status().kind() == ErrorKind::kConflict) {
        count("delete.conflict");
        continue;
      }
      if (!s.ok()) return unexpected("delete", s.status());
      count(s->snapshot_id ? "delete" : "delete.nothing");
      int64_t deleted = s->snapshot_id ? s->deleted_records : 0;
      if (deleted != static_cast<int64_t>(gone.size())) {
        log->Fail("delete '" + where + "' removed " + std::to_string(deleted) + " rows (snapshot " +
                  std::to_string(s->snapshot_id) + "), expected " + std::to_string(gone.size()));
      }
      for (int64_t x : gone) {
        own_live.erase(x);
        log->deleted.push_back(x);
      }
      return;
    }
    count("delete.starved");
  };

  auto ddl = [&] {
    if (columns_added >= 2) return;
    SchemaChange ch;
    ch.kind = SchemaChange::Kind::kAddColumn;
    ch.column = "c" + std::to_string(worker) + "_" + std::to_string(columns_added);
    ch.type = DataType::Int64();
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto ds = cat.LoadDataset(kDataset);
      if (!ds.ok()) return unexpected("ddl.load", ds.status());
      auto r = cat.AlterSchema(kDataset, {ch}, ds->current_snapshot_id.value_or(0));
      if (!r.ok() && r.status().kind() == ErrorKind::kConflict) {
        count("ddl.conflict");
        continue;
      }
      if (!r.ok()) return unexpected("ddl", r.status());
      count("ddl");
      if (r->schema.FieldIndex(ch.column) < 0) {
        log->Fail("AlterSchema returned a schema without " + ch.column);
      }
      log->columns.push_back(ch.column);
      ++columns_added;
      return;
    }
    count("ddl.starved");
  };

  auto props = [&] {
    std::string value = std::to_string(++prop_counter);
    Status st = cat.SetDatasetProperties(kDataset, {{prop_key, value}});
    if (!st.ok()) return unexpected("props", st);
    count("props");
    log->props[prop_key] = value;
    auto ds = cat.LoadDataset(kDataset);
    if (!ds.ok()) return unexpected("props.load", ds.status());
    auto it = ds->properties.find(prop_key);
    if (it == ds->properties.end() || it->second != value) {
      log->Fail("property " + prop_key + " reads '" +
                (it == ds->properties.end() ? "<unset>" : it->second) + "' right after set to " +
                value + " (lost update)");
    }
  };

  auto offsets = [&] {
    auto ds = cat.LoadDataset(kDataset);
    if (!ds.ok()) return unexpected("offset.load", ds.status());
    int64_t cur = ds->current_snapshot_id.value_or(0);
    if (cur > own_offset) {
      Status st = cat.CommitOffset(kDataset, consumer, cur);
      if (!st.ok()) return unexpected("offset", st);
      own_offset = cur;
      log->offsets[consumer] = cur;
      count("offset");
    }
    auto got = cat.GetOffset(kDataset, consumer);
    if (!got.ok()) return unexpected("offset.get", got.status());
    if (!*got || **got != own_offset) {
      log->Fail("consumer " + consumer + " reads " + (*got ? std::to_string(**got) : "none") +
                ", last committed " + std::to_string(own_offset));
    }
    if (own_offset > 0 && rng() % 3 == 0) {
      Status back = cat.CommitOffset(kDataset, consumer, own_offset - 1);
      if (back.kind() != ErrorKind::kFailedPrecondition || !IsCode(back, "offset_regression")) {
        log->Fail("moving " + consumer + " back was not refused: " + back.ToString());
      }
    }
    Status st = cat.CommitOffset(kDataset, kSharedConsumer, cur);
    if (st.ok()) {
      log->offsets[kSharedConsumer] = std::max(log->offsets[kSharedConsumer], cur);
      count("offset.shared");
    } else if (!IsCode(st, "offset_regression")) {
      return unexpected("offset.shared", st);
    } else {
      count("offset.shared.regression");
    }
    auto shared = cat.GetOffset(kDataset, kSharedConsumer);
    if (!shared.ok()) return unexpected("offset.shared.get", shared.status());
    int64_t now = shared->value_or(-1);
    if (now < shared_seen || (st.ok() && now < cur)) {
      log->Fail("shared consumer went back: read " + std::to_string(now) + " after " +
                std::to_string(shared_seen) + " / committing " + std::to_string(cur));
    }
    shared_seen = std::max(shared_seen, now);
  };

  // A reader: the snapshot list is consistent, and a pinned snapshot scans to its total.
  auto read = [&] {
    auto snaps = cat.ListSnapshots(kDataset);
    if (!snaps.ok()) return unexpected("read.list", snaps.status());
    for (size_t i = 1; i < snaps->size(); ++i) {
      const auto& a = (*snaps)[i - 1];
      const auto& b = (*snaps)[i];
      if (b.snapshot_id <= a.snapshot_id || b.committed_at_us < a.committed_at_us ||
          b.parent_snapshot_id != std::optional<int64_t>(b.snapshot_id - 1)) {
        log->Fail("listing: snapshot " + std::to_string(b.snapshot_id) + " after " +
                  std::to_string(a.snapshot_id) + " breaks order/parent/time");
      }
    }
    if (snaps->empty()) return;
    const SnapshotInfo& s =
        (*snaps)[snaps->size() - 1 - rng() % std::min<size_t>(3, snaps->size())];
    SnapshotSelector at;
    at.snapshot_id = s.snapshot_id;
    int64_t rows = 0;
    std::set<int64_t> row_ids;
    Status st = cat.Scan(kDataset, at, "", true, [&](const RecordBatch& b) {
      int ri = b.schema.FieldIndex("_tarn_row_id");
      if (ri < 0) return Status::Internal("no _tarn_row_id");
      for (int64_t r = 0; r < b.num_rows; ++r) {
        if (!row_ids.insert(b.columns[ri].Value<int64_t>(r)).second) {
          return Status::Internal("row id returned twice");
        }
      }
      rows += b.num_rows;
      return Status::OK();
    });
    if (!st.ok() && (st.kind() == ErrorKind::kExpired || st.kind() == ErrorKind::kNotFound)) {
      count("read.expired");  // expiry and cleanup overtook the reader
      return;
    }
    if (!st.ok()) return unexpected("read.scan", st);
    count("read");
    if (rows != s.total_records) {
      log->Fail("scan at snapshot " + std::to_string(s.snapshot_id) + " returned " +
                std::to_string(rows) + " rows, its total_records is " +
                std::to_string(s.total_records));
    }
  };

  while (Clock::now() < deadline) {
    int op = static_cast<int>(rng() % 100);
    if (op < 40) {
      append();
    } else if (op < 52) {
      add_files();
    } else if (op < 64) {
      remove();
    } else if (op < 68) {
      ddl();
    } else if (op < 76) {
      props();
    } else if (op < 88) {
      offsets();
    } else {
      read();
    }
  }
}

// The parent's maintenance thread: expiry respecting consumer offsets, a tag, cleanup.
struct Maintenance {
  int64_t expired_through = 0;
  std::optional<int64_t> tagged;
  std::vector<std::string> failures;
  std::map<std::string, int64_t> counts;
};

void RunMaintenance(Catalog& cat, const std::vector<std::string>& consumers,
                    Clock::time_point start, Clock::time_point deadline, uint64_t seed, bool flush,
                    Maintenance* m) {
  std::mt19937_64 rng(seed);
  int iteration = 0;
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(80 + rng() % 120));
    ++iteration;
    if (!m->tagged && Clock::now() - start > (deadline - start) / 4) {
      auto ds = cat.LoadDataset(kDataset);
      if (ds.ok() && ds->current_snapshot_id) {
        SnapshotSelector at;
        at.snapshot_id = ds->current_snapshot_id;
        Status st = cat.CreateTag(kDataset, "pin", at);
        if (st.ok()) {
          m->tagged = *ds->current_snapshot_id;
        } else {
          m->failures.push_back("CreateTag: " + st.ToString());
        }
      }
    }
    ExpiryOptions opt;
    opt.older_than_us = NowUs() - 300000;
    opt.respect_consumer_offsets = true;
    auto r = cat.ExpireSnapshots(kDataset, opt);
    if (!r.ok()) {
      m->failures.push_back("ExpireSnapshots: " + r.status().ToString());
      continue;
    }
    ++m->counts["expire"];
    m->counts["expired_snapshots"] += r->expired_snapshots;
    if (r->expired_through < m->expired_through) {
      m->failures.push_back("expired_through went back from " + std::to_string(m->expired_through) +
                            " to " + std::to_string(r->expired_through));
    }
    m->expired_through = r->expired_through;
    // Every consumer existed before the run, and offsets only move forward: none may be
    // behind the frontier.
    for (const auto& c : consumers) {
      auto off = cat.GetOffset(kDataset, c);
      if (!off.ok() || !*off) {
        m->failures.push_back("GetOffset " + c + ": " +
                              (off.ok() ? "none" : off.status().ToString()));
      } else if (**off < r->expired_through) {
        m->failures.push_back("expiry went to " + std::to_string(r->expired_through) +
                              " past consumer " + c + " at " + std::to_string(**off));
      }
    }
    if (flush) {
      auto f = cat.FlushInlined(kDataset);
      if (!f.ok()) {
        m->failures.push_back("FlushInlined: " + f.status().ToString());
      } else {
        m->counts["flushed"] += f->files_written;
      }
    }
    if (iteration % 3 == 0) {
      auto c = cat.Cleanup(false);
      if (!c.ok()) {
        m->failures.push_back("Cleanup: " + c.status().ToString());
      } else {
        m->counts["cleanup_deleted"] += c->objects_deleted;
        if (c->pending != 0 || !c->orphans.empty()) {
          m->failures.push_back("Cleanup: " + std::to_string(c->pending) + " pending, " +
                                std::to_string(c->orphans.size()) + " orphans");
        }
      }
    }
  }
}

class CatalogStress : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string skip;
    backend_ = Backend::Make(GetParam(), &skip);
    if (!backend_) GTEST_SKIP() << skip;
    seed_ = Seed();
    std::cout << "[ seed     ] TARN_STRESS_SEED=" << seed_ << std::endl;
  }
  void TearDown() override {
    if (backend_ && !HasFailure()) backend_->Remove();
    if (backend_ && HasFailure()) std::cout << "kept " << backend_->dir << std::endl;
  }

  bool sqlite() const { return GetParam() == "sqlite"; }
  // ConcurrentMix, with the dataset's small appends inlined and flushed by the maintenance
  // thread when `inlined`.
  void RunConcurrentMix(bool inlined);

  std::optional<Backend> backend_;
  uint64_t seed_ = 0;
};

TEST_P(CatalogStress, ConcurrentMix) { RunConcurrentMix(false); }

// The same with inlined appends: every commit keeps its files' bytes in the metastore, and the
// maintenance thread flushes them while workers append, delete and read.
TEST_P(CatalogStress, ConcurrentMixInlined) { RunConcurrentMix(true); }

void CatalogStress::RunConcurrentMix(bool inlined) {
  constexpr int kProcesses = 3;  // this one and two children
  constexpr int kThreads = 2;    // workers per process
  const auto duration = milliseconds(4000);
  std::vector<std::string> consumers = {kSharedConsumer};
  for (int w = 0; w < kProcesses * kThreads; ++w) consumers.push_back(ConsumerOf(w));

  WorkerLog setup;  // the parent's first rows
  {
    auto cat = backend_->Open();
    ASSERT_TRUE(cat.ok()) << cat.status().ToString();
    ASSERT_TRUE(CreateDataset(**cat, "bucket(2, id)", inlined).ok());
    auto s = (*cat)->Append(kDataset, One(IdBatch(1, 3)), Meta("seed"));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    setup.appended.emplace_back(1, 3);
    for (const auto& c : consumers) {
      auto st = (*cat)->CommitOffset(kDataset, c, 0);
      ASSERT_TRUE(st.ok()) << st.ToString();
    }
  }  // closed before forking: a child must not inherit open SQLite or PostgreSQL handles

  const auto start = Clock::now();
  const auto deadline = start + duration;
  std::vector<pid_t> children;
  for (int p = 1; p < kProcesses; ++p) {
    std::string report = (backend_->dir / ("child-" + std::to_string(p) + ".log")).string();
    uint64_t seed = seed_ + 1000 * p;
    const Backend backend = *backend_;
    pid_t pid = ForkChild([=]() -> int {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      auto cat = backend.Open();
      WorkerLog merged;
      if (!cat.ok()) {
        merged.Fail("child open: " + cat.status().ToString());
      } else {
        std::vector<WorkerLog> logs(kThreads);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
          threads.emplace_back(
              [&, t] { RunWorker(**cat, p * kThreads + t, deadline, seed + t, &logs[t]); });
        }
        for (auto& t : threads) t.join();
        for (const auto& l : logs) merged.MergeFrom(l);
      }
      std::ofstream out(report);
      out << merged.Serialize();
      out.close();
      return out ? 0 : 3;
    });
    ASSERT_GT(pid, 0) << "fork: " << std::strerror(errno);
    children.push_back(pid);
  }

  auto cat = backend_->Open();
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  std::vector<WorkerLog> logs(kThreads);
  Maintenance maintenance;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { RunWorker(**cat, t, deadline, seed_ + t, &logs[t]); });
  }
  threads.emplace_back([&] {
    RunMaintenance(**cat, consumers, start, deadline, seed_ + 77, inlined, &maintenance);
  });
  for (auto& t : threads) t.join();

  WorkerLog all;
  all.MergeFrom(setup);
  for (const auto& l : logs) all.MergeFrom(l);
  for (size_t i = 0; i < children.size(); ++i) {
    int status = 0;
    ASSERT_EQ(::waitpid(children[i], &status, 0), children[i]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << i + 1 << " status " << status;
    std::ifstream in(backend_->dir / ("child-" + std::to_string(i + 1) + ".log"));
    EXPECT_TRUE(in.good()) << "child " << i + 1 << " left no report";
    all.MergeFrom(in);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  std::string summary;
  for (const auto& [k, v] : all.counts) summary += " " + k + "=" + std::to_string(v);
  for (const auto& [k, v] : maintenance.counts) summary += " " + k + "=" + std::to_string(v);
  std::cout << "[ stress   ] " << GetParam() << " " << seconds << " s:" << summary
            << " expired_through=" << maintenance.expired_through << std::endl;

  EXPECT_TRUE(all.failures.empty()) << "workers saw:" << Join(all.failures);
  EXPECT_TRUE(maintenance.failures.empty()) << "maintenance saw:" << Join(maintenance.failures);
  // Every kind of operation happened.
  for (const char* op : {"append", "add_files", "delete", "ddl", "props", "offset", "read"}) {
    EXPECT_GT(all.counts[op], 0) << op << " never succeeded";
  }
  ASSERT_TRUE(maintenance.tagged.has_value());
  if (inlined) {
    EXPECT_GT(maintenance.counts["flushed"], 0) << "no append was inlined and flushed";
  }

  // Offsets: each consumer is exactly where its last acknowledged commit put it.
  for (const auto& c : consumers) {
    auto off = (*cat)->GetOffset(kDataset, c);
    ASSERT_TRUE(off.ok()) << off.status().ToString();
    EXPECT_EQ(off->value_or(-1), all.offsets.count(c) ? all.offsets[c] : 0) << c;
  }
  // Properties: the last value each worker set (no lost update).
  auto ds = (*cat)->LoadDataset(kDataset);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  for (const auto& [k, v] : all.props) {
    auto it = ds->properties.find(k);
    EXPECT_TRUE(it != ds->properties.end() && it->second == v)
        << k << " = " << (it == ds->properties.end() ? "<unset>" : it->second) << ", want " << v;
  }
  // Schema: every added column once, field ids unique.
  std::set<int32_t> field_ids;
  for (const auto& f : ds->schema.fields) {
    EXPECT_TRUE(field_ids.insert(f.field_id).second) << "field id " << f.field_id << " twice";
  }
  for (const auto& c : all.columns) EXPECT_GE(ds->schema.FieldIndex(c), 0) << c;
  EXPECT_EQ(ds->schema.fields.size(), 2 + all.columns.size());

  Expected expected;
  for (auto [lo, n] : all.appended) {
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_TRUE(expected.live_ids.insert(lo + i).second) << "id " << lo + i << " acked twice";
    }
  }
  for (int64_t id : all.deleted) EXPECT_EQ(expected.live_ids.erase(id), 1u) << id;
  for (auto [lo, n] : all.failed) {
    for (int64_t i = 0; i < n; ++i) expected.absent_ids.insert(lo + i);
  }
  auto bad = CheckInvariants(**cat, kDataset, &expected);
  EXPECT_TRUE(bad.empty()) << "after the run:" << Join(bad);

  // Expiry stops at the consumers' floor: move the private consumers to the current snapshot
  // and leave the shared one where it is; then move it too and expire everything but the
  // current and the tagged snapshot. Cleanup keeps every live file.
  ASSERT_TRUE(ds->current_snapshot_id);
  const int64_t current = *ds->current_snapshot_id;
  int64_t floor = current;
  for (const auto& c : consumers) {
    if (c != kSharedConsumer) {
      Status st = (*cat)->CommitOffset(kDataset, c, current);
      EXPECT_TRUE(st.ok()) << c << ": " << st.ToString();
    }
    auto off = (*cat)->GetOffset(kDataset, c);
    ASSERT_TRUE(off.ok() && *off);
    floor = std::min(floor, **off);
  }
  ExpiryOptions opt;
  opt.older_than_us = NowUs() + 1;
  auto r = (*cat)->ExpireSnapshots(kDataset, opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expired_through,
            std::max(maintenance.expired_through, std::min(current - 1, floor)));
  ASSERT_TRUE((*cat)->CommitOffset(kDataset, kSharedConsumer, current).ok());
  r = (*cat)->ExpireSnapshots(kDataset, opt);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->expired_through, current - 1);
  auto c = (*cat)->Cleanup(false);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->pending, 0);
  EXPECT_TRUE(c->orphans.empty());
  bad = CheckInvariants(**cat, kDataset, &expected);
  EXPECT_TRUE(bad.empty()) << "after expiry and cleanup:" << Join(bad);
  auto orphans = UnreferencedObjects(**cat);
  ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
  EXPECT_TRUE(orphans->empty()) << orphans->size() << " objects nobody references, e.g. "
                                << orphans->front();
  auto snaps = (*cat)->ListSnapshots(kDataset);
  ASSERT_TRUE(snaps.ok());
  std::vector<int64_t> left;
  for (const auto& s : *snaps) left.push_back(s.snapshot_id);
  std::vector<int64_t> want = {current};
  if (*maintenance.tagged < current) want.insert(want.begin(), *maintenance.tagged);
  EXPECT_EQ(left, want);
}

// ---------------------------------------------------------------------------------------------
// Crash loops

// One commit the child attempted, as the pipe reported it.
struct Intent {
  char kind = 'A';  // 'A' append of ids [lo, lo + n), 'D' delete of ids in [lo, lo + n)
  std::string key;
  int64_t lo = 0, n = 0;
  int round = 0;
  enum { kUnknown, kAcked, kFailed } outcome = kUnknown;
  int64_t acked_snapshot = 0;
};

void WriteLine(int fd, const std::string& line) {
  std::string l = line + "\n";
  // One write per line: lines are shorter than PIPE_BUF, so they arrive whole or not at all.
  while (::write(fd, l.data(), l.size()) < 0 && errno == EINTR) {
  }
}

// The child of one crash round: commits until it is killed (or 20 s pass).
int CrashChild(const Backend& backend, int round, bool faults, uint64_t seed, int fd,
               const std::vector<std::pair<int64_t, int64_t>>& earlier_ids) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::mt19937_64 rng(seed);
  std::shared_ptr<FaultInjectingObjectStore> store;
  auto opened = backend.Open(faults ? &store : nullptr);
  if (!opened.ok()) {
    WriteLine(fd, "F open: " + opened.status().ToString());
    return 2;
  }
  Catalog& cat = **opened;
  const auto stop = Clock::now() + std::chrono::seconds(20);
  const int64_t base = (round + 1) * int64_t{1000000};
  int64_t next = base;
  int64_t i = 0;
  bool ddl_done = false;
  std::string r = "r" + std::to_string(round) + "-";
  while (Clock::now() < stop) {
    ++i;
    if (store) {
      store->Reset();
      if (rng() % 100 < 40) store->FailNthCall(1 + rng() % 5);
    }
    int op = static_cast<int>(rng() % 100);
    if (op < 72) {
      int64_t n = 1 + static_cast<int64_t>(rng() % 3);
      std::string key = r + std::to_string(i);
      WriteLine(fd, "I A " + key + " " + std::to_string(next) + " " + std::to_string(n));
      auto s = cat.Append(kDataset, One(IdBatch(next, n)), Meta("append", key));
      next += n;
      if (s.ok()) {
        WriteLine(fd, "K " + key + " " + std::to_string(s->snapshot_id));
      } else {
        WriteLine(fd, "E " + key + " " + s.status().ToString());
      }
    } else if (op < 84) {
      // A range of this round's ids, or of an earlier round's.
      int64_t lo;
      if (earlier_ids.empty() || (next > base && rng() % 2)) {
        lo = base + static_cast<int64_t>(rng() % static_cast<uint64_t>(next - base + 1));
      } else {
        auto [elo, en] = earlier_ids[rng() % earlier_ids.size()];
        lo = elo + static_cast<int64_t>(rng() % static_cast<uint64_t>(en));
      }
      int64_t n = 1 + static_cast<int64_t>(rng() % 4);
      std::string key = r + "d" + std::to_string(i);
      WriteLine(fd, "I D " + key + " " + std::to_string(lo) + " " + std::to_string(n));
      auto s = cat.DeleteRows(kDataset,
                              "id >= " + std::to_string(lo) + " AND id < " + std::to_string(lo + n),
                              Meta("delete", key));
      if (s.ok()) {
        WriteLine(fd, "K " + key + " " + std::to_string(s->snapshot_id));
      } else {
        WriteLine(fd, "E " + key + " " + s.status().ToString());
      }
    } else if (op < 88) {
      if (ddl_done || round % 3 != 0) continue;
      SchemaChange ch;
      ch.kind = SchemaChange::Kind::kAddColumn;
      ch.column = "c" + std::to_string(round);
      ch.type = DataType::Int64();
      auto d = cat.AlterSchema(kDataset, {ch});
      if (d.ok()) {
        ddl_done = true;
        WriteLine(fd, "L " + ch.column);
      } else {
        WriteLine(fd, "F ddl: " + d.status().ToString());
      }
    } else if (op < 94) {
      std::string value = std::to_string(base + i);
      Status st = cat.SetDatasetProperties(kDataset, {{"p", value}});
      if (st.ok()) {
        WriteLine(fd, "P " + value);
      } else {
        WriteLine(fd, "F props: " + st.ToString());
      }
    } else {
      auto ds = cat.LoadDataset(kDataset);
      if (!ds.ok()) continue;
      int64_t cur = ds->current_snapshot_id.value_or(0);
      Status st = cat.CommitOffset(kDataset, "cons", cur);
      if (st.ok()) {
        WriteLine(fd, "O " + std::to_string(cur));
      } else if (!IsCode(st, "offset_regression")) {
        WriteLine(fd, "F offset: " + st.ToString());
      }
    }
  }
  return 0;
}

// What the parent knows across rounds.
struct CrashState {
  std::vector<Intent> landed;  // commits present in the catalog, all rounds
  std::vector<Intent> acked;   // acknowledged appends and deletes (with a snapshot)
  std::vector<std::pair<int64_t, int64_t>> appended_ranges;  // for the children's deletes
  std::set<int64_t> absent;                                  // ids of appends that never landed
  std::set<std::string> columns;
  int64_t max_prop = 0, max_offset = 0, last_offset_seen = 0;
  int64_t interrupted_appends = 0;
  std::map<std::string, int64_t> counts;
};

void RunCrashLoop(const Backend& backend, bool faults, int rounds, Clock::duration budget,
                  uint64_t seed) {
  {
    auto cat = backend.Open();
    ASSERT_TRUE(cat.ok()) << cat.status().ToString();
    ASSERT_TRUE(CreateDataset(**cat, "").ok());
    ASSERT_TRUE((*cat)->CommitOffset(kDataset, "cons", 0).ok());
  }
  std::mt19937_64 rng(seed);
  CrashState state;
  const auto start = Clock::now();
  int round = 0;
  for (; round < rounds && Clock::now() - start < budget; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    uint64_t child_seed = rng();
    auto earlier = state.appended_ranges;
    pid_t pid = ForkChild([&]() -> int {
      ::close(fds[0]);
      return CrashChild(backend, round, faults, child_seed, fds[1], earlier);
    });
    ASSERT_GT(pid, 0);
    ::close(fds[1]);
    std::this_thread::sleep_for(milliseconds(5 + rng() % 296));
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    backend.Settle();
    std::string text;
    char buf[4096];
    ssize_t got;
    while ((got = ::read(fds[0], buf, sizeof buf)) != 0) {
      if (got < 0 && errno == EINTR) continue;
      ASSERT_GT(got, 0) << std::strerror(errno);
      text.append(buf, static_cast<size_t>(got));
    }
    ::close(fds[0]);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the child ended by itself (status " << status << "):\n"
        << text;

    // The child's report.
    std::vector<Intent> intents;
    std::map<std::string, size_t> by_key;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream l(line);
      std::string tag;
      l >> tag;
      if (tag == "I") {
        Intent it;
        std::string kind;
        l >> kind >> it.key >> it.lo >> it.n;
        it.kind = kind[0];
        it.round = round;
        by_key[it.key] = intents.size();
        intents.push_back(it);
      } else if (tag == "K" || tag == "E") {
        std::string key;
        l >> key;
        auto f = by_key.find(key);
        ASSERT_TRUE(f != by_key.end()) << line;
        Intent& it = intents[f->second];
        if (tag == "K") {
          it.outcome = Intent::kAcked;
          l >> it.acked_snapshot;
        } else {
          it.outcome = Intent::kFailed;
          ++state.counts[it.kind == 'A' ? "append.failed" : "delete.failed"];
          // Without faults nothing may fail; with them, only storage may.
          EXPECT_TRUE(faults) << "commit failed without faults: " << line;
        }
      } else if (tag == "L") {
        std::string c;
        l >> c;
        state.columns.insert(c);
      } else if (tag == "P") {
        int64_t v = 0;
        l >> v;
        state.max_prop = std::max(state.max_prop, v);
      } else if (tag == "O") {
        int64_t v = 0;
        l >> v;
        state.max_offset = std::max(state.max_offset, v);
      } else if (tag == "F") {
        ADD_FAILURE() << "child: " << line;
      } else if (!line.empty()) {
        ADD_FAILURE() << "bad line from the child: " << line;
      }
    }

    // Reopen and check.
    auto cat = backend.Open();
    ASSERT_TRUE(cat.ok()) << cat.status().ToString();
    auto snaps = (*cat)->ListSnapshots(kDataset);
    ASSERT_TRUE(snaps.ok()) << snaps.status().ToString();
    std::map<std::string, const SnapshotInfo*> by_snapshot_key;
    for (const auto& s : *snaps) {
      if (s.idempotency_key) by_snapshot_key[*s.idempotency_key] = &s;
    }
    for (Intent& it : intents) {
      auto f = by_snapshot_key.find(it.key);
      bool present = f != by_snapshot_key.end();
      if (it.outcome == Intent::kAcked) {
        if (it.kind == 'D' && it.acked_snapshot == 0) {
          EXPECT_FALSE(present) << "delete " << it.key << " said nothing to delete";
          ++state.counts["delete.nothing"];
          continue;
        }
        ++state.counts[it.kind == 'A' ? "append.acked" : "delete.acked"];
        state.acked.push_back(it);
        EXPECT_TRUE(present) << "acknowledged commit " << it.key << " (snapshot "
                             << it.acked_snapshot << ") is gone";
        if (present) {
          EXPECT_EQ(f->second->snapshot_id, it.acked_snapshot) << it.key;
        }
      } else if (it.outcome == Intent::kFailed) {
        EXPECT_FALSE(present) << "failed commit " << it.key << " is visible as snapshot "
                              << f->second->snapshot_id;
      } else if (present) {
        ++state.counts["unacked.landed"];
      } else {
        ++state.counts["unacked.lost"];
      }
      if (present) {
        it.acked_snapshot = f->second->snapshot_id;
        EXPECT_EQ(f->second->operation, it.kind == 'A' ? "append" : "delete_rows") << it.key;
        state.landed.push_back(it);
        if (it.kind == 'A') state.appended_ranges.emplace_back(it.lo, it.n);
      } else if (it.kind == 'A') {
        for (int64_t k = 0; k < it.n; ++k) state.absent.insert(it.lo + k);
      }
    }
    // Every keyed snapshot is one the children attempted.
    std::set<std::string> known;
    for (const auto& it : state.landed) known.insert(it.key);
    for (const auto& [key, s] : by_snapshot_key) {
      EXPECT_TRUE(known.count(key)) << "snapshot " << s->snapshot_id << " has unknown key " << key;
    }

    // The model: landed commits replayed in snapshot order; each one's row counts match.
    std::sort(state.landed.begin(), state.landed.end(),
              [](const Intent& a, const Intent& b) { return a.acked_snapshot < b.acked_snapshot; });
    std::map<int64_t, const SnapshotInfo*> by_id;
    for (const auto& s : *snaps) by_id[s.snapshot_id] = &s;
    Expected expected;
    expected.absent_ids = state.absent;
    for (const Intent& it : state.landed) {
      int64_t changed = 0;
      for (int64_t k = it.lo; k < it.lo + it.n; ++k) {
        changed += it.kind == 'A' ? expected.live_ids.insert(k).second
                                  : static_cast<int64_t>(expected.live_ids.erase(k));
      }
      const SnapshotInfo* s = by_id[it.acked_snapshot];
      if (!s) continue;
      int64_t reported = it.kind == 'A' ? s->added_records : s->deleted_records;
      EXPECT_EQ(reported, changed) << it.key << " at snapshot " << it.acked_snapshot;
    }
    auto bad = CheckInvariants(**cat, kDataset, &expected);
    ASSERT_TRUE(bad.empty()) << "after kill " << round << ":" << Join(bad);

    // Storage: the only objects no catalog row names are the files of appends a kill
    // interrupted (at most one each); failed appends removed theirs.
    for (const Intent& it : intents) {
      if (it.kind == 'A' && it.outcome == Intent::kUnknown) ++state.interrupted_appends;
    }
    auto orphans = UnreferencedObjects(**cat);
    ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
    EXPECT_LE(static_cast<int64_t>(orphans->size()), state.interrupted_appends)
        << "objects nobody references, e.g. " << (orphans->empty() ? "" : orphans->front());

    // Acknowledged appends replay to their snapshot: this round's last one and a few others.
    // The probe file is never written: if the key were not found, the probe would be committed
    // and the live-files check of the next round would fail too.
    std::vector<const Intent*> probes;
    for (auto it = state.acked.rbegin(); it != state.acked.rend(); ++it) {
      if (it->kind == 'A') {
        probes.push_back(&*it);
        break;
      }
    }
    for (int k = 0; k < 3 && !state.acked.empty(); ++k) {
      const Intent& it = state.acked[rng() % state.acked.size()];
      if (it.kind == 'A') probes.push_back(&it);
    }
    for (const Intent* it : probes) {
      DatasetCommit part;
      part.dataset = kDataset;
      part.operation = CommitOperation::kAppend;
      DataFile probe;
      probe.path = "probe/never-written.parquet";
      probe.record_count = 1;
      probe.file_size_bytes = 1;
      part.added.push_back(probe);
      part.meta = Meta("replay", it->key);
      auto s = (*cat)->Commit(std::move(part));
      ASSERT_TRUE(s.ok()) << it->key << ": " << s.status().ToString();
      EXPECT_TRUE(s->idempotent_replay) << it->key;
      EXPECT_EQ(s->snapshot_id, it->acked_snapshot) << it->key;
    }

    // DDL, properties and offsets the child was told succeeded.
    auto ds = (*cat)->LoadDataset(kDataset);
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    for (const auto& c : state.columns) EXPECT_GE(ds->schema.FieldIndex(c), 0) << c;
    if (state.max_prop) {
      auto p = ds->properties.find("p");
      ASSERT_TRUE(p != ds->properties.end());
      EXPECT_GE(std::stoll(p->second), state.max_prop);
    }
    auto off = (*cat)->GetOffset(kDataset, "cons");
    ASSERT_TRUE(off.ok() && *off);
    EXPECT_GE(**off, state.max_offset);
    EXPECT_GE(**off, state.last_offset_seen) << "consumer offset went back";
    state.last_offset_seen = **off;
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::string summary;
  for (const auto& [k, v] : state.counts) summary += " " + k + "=" + std::to_string(v);
  std::cout << "[ crash    ] " << round << " kills in "
            << std::chrono::duration<double>(Clock::now() - start).count() << " s:" << summary
            << std::endl;
  EXPECT_GE(round, rounds / 2) << "too few rounds in the time budget";
  EXPECT_GT(state.counts["append.acked"], 0);
}

TEST_P(CatalogStress, CrashLoop) {
  RunCrashLoop(*backend_, /*faults=*/false, sqlite() ? 30 : 25, std::chrono::seconds(35), seed_);
}

TEST_P(CatalogStress, CrashLoopWithFaults) {
  RunCrashLoop(*backend_, /*faults=*/true, sqlite() ? 20 : 15, std::chrono::seconds(25), seed_);
}

// What a client does after losing the answer to a commit: it retries with the same key and
// must get the original snapshot back, with nothing new left behind.
TEST_P(CatalogStress, IdempotentRetries) {
  auto cat = backend_->Open();
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  ASSERT_TRUE(CreateDataset(**cat, "").ok());
  auto a = (*cat)->Append(kDataset, One(IdBatch(1, 3)), Meta("append", "a1"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto retry = (*cat)->Append(kDataset, One(IdBatch(1, 3)), Meta("append", "a1"));
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_TRUE(retry->idempotent_replay);
  EXPECT_EQ(retry->snapshot_id, a->snapshot_id);
  auto orphans = UnreferencedObjects(**cat);
  ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
  EXPECT_TRUE(orphans->empty()) << "the retried append left " << orphans->size()
                                << " unreferenced object(s), e.g. "
                                << (orphans->empty() ? "" : orphans->front());

  auto d = (*cat)->DeleteRows(kDataset, "id = 2", Meta("delete", "d1"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_GT(d->snapshot_id, 0);
  auto again = (*cat)->DeleteRows(kDataset, "id = 2", Meta("delete", "d1"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->idempotent_replay);
  EXPECT_EQ(again->snapshot_id, d->snapshot_id) << "a retried delete must return its snapshot";

  Expected expected;
  expected.live_ids = {1, 3};
  auto bad = CheckInvariants(**cat, kDataset, &expected);
  EXPECT_TRUE(bad.empty()) << Join(bad);
}

INSTANTIATE_TEST_SUITE_P(Backends, CatalogStress, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::stress
