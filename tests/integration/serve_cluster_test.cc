// Three `tarn serve` processes on one metastore, driven at once by remote clients (issue 5,
// PRODUCT.md section 7): writers on every server append, delete rows, tag and move offsets while
// one server is SIGKILLed and restarted; clients retry with their idempotency keys. Afterwards
// the catalog, opened directly, must satisfy the invariants of the catalog stress test
// (stress_util.h), hold exactly the rows whose commits were acknowledged, and carry one audit
// row per committed append.
//
// PostgreSQL cases run under tests/run_with_pg.sh (integration.serve_cluster_pg); the SQLite
// case shares one database file between the three servers.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "metastore/metastore.h"
#include "stress_util.h"
#include "tarn/client.h"

namespace tarn::stress {
namespace {

constexpr char kOwnerId[] = "tarn_cluster_owner";
constexpr char kOwnerSecret[] = "cluster-owner-secret-0123456789";

// One `tarn serve` child; its stderr goes to `log`.
struct ServerProc {
  pid_t pid = -1;
  int port = 0;
  std::filesystem::path log;
};

const char* Binary() {
  const char* b = std::getenv("TARN_BINARY");
  return b ? b : "tarn";
}

// Starts `tarn serve` on 127.0.0.1:`port` (0 = any) and waits until it says where it listens.
ServerProc StartServer(const Backend& b, int port, const std::filesystem::path& log) {
  ServerProc s;
  s.log = log;
  std::vector<std::string> args = {
      Binary(),      "serve",     "--metastore", b.metastore_uri,
      "--warehouse", b.warehouse, "--listen",    "127.0.0.1:" + std::to_string(port)};
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.push_back(std::string("TARN_BOOTSTRAP_CLIENT_ID=") + kOwnerId);
  env.push_back(std::string("TARN_BOOTSTRAP_CLIENT_SECRET=") + kOwnerSecret);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string log_path = log.string();
  const size_t log_start = std::filesystem::exists(log) ? std::filesystem::file_size(log) : 0;
  s.pid = ::fork();
  if (s.pid == 0) {
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 2);
      ::dup2(fd, 1);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)");
  for (int i = 0; i < 400; ++i) {
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::string all = text.str();
    if (all.size() > log_start) all = all.substr(log_start);
    std::smatch m;
    if (std::regex_search(all, m, listening)) {
      s.port = std::stoi(m[1]);
      return s;
    }
    int status = 0;
    if (::waitpid(s.pid, &status, WNOHANG) == s.pid) {
      ADD_FAILURE() << "tarn serve exited early:\n" << all;
      s.pid = -1;
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "tarn serve did not start in 20 s";
  return s;
}

void StopServer(ServerProc& s, int sig) {
  if (s.pid <= 0) return;
  ::kill(s.pid, sig);
  int status = 0;
  ::waitpid(s.pid, &status, 0);
  if (sig == SIGTERM) {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "tarn serve did not shut down cleanly; log " << s.log;
  }
  s.pid = -1;
}

bool Transient(const Status& st) {
  return st.kind() == ErrorKind::kUnavailable || st.kind() == ErrorKind::kConflict ||
         st.kind() == ErrorKind::kIOError;
}

// Repeats `f` while it fails with a transient error (a killed server, a lost race), for up to
// ~30 s; returns its last result.
template <class F>
auto Retry(F f) -> decltype(f()) {
  for (int attempt = 0;; ++attempt) {
    auto r = f();
    Status st;
    if constexpr (std::is_same_v<decltype(r), Status>) {
      st = r;
    } else {
      st = r.status();
    }
    if (st.ok() || !Transient(st) || attempt >= 600) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<std::unique_ptr<Client>> Connect(int port, const std::string& id,
                                        const std::string& secret) {
  ClientOptions o;
  o.client_id = id;
  o.client_secret = secret;
  o.request_timeout_s = 30;
  return Client::Connect("http://127.0.0.1:" + std::to_string(port), o);
}

class ServeCluster : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string skip;
    auto b = Backend::Make(GetParam(), &skip);
    if (!b) GTEST_SKIP() << skip;
    backend_ = *b;
  }
  void TearDown() override {
    for (auto& s : servers_) StopServer(s, SIGKILL);
    if (!HasFailure() && !backend_.dir.empty()) backend_.Remove();
  }

  Backend backend_;
  std::vector<ServerProc> servers_;
};

TEST_P(ServeCluster, ConcurrentWritersAcrossServersWithAKill) {
  constexpr int kServers = 3;
  constexpr int kWriters = 6;
  constexpr int kOps = 30;
  const std::string ds = "w.c.events";
  for (int i = 0; i < kServers; ++i) {
    servers_.push_back(
        StartServer(backend_, 0, backend_.dir / ("server" + std::to_string(i) + ".log")));
    ASSERT_GT(servers_.back().port, 0);
  }

  // Set-up through server 0 as the bootstrap owner; a writer token for the workers.
  auto owner = Connect(servers_[0].port, kOwnerId, kOwnerSecret);
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  ASSERT_TRUE((*owner)->remote());
  ASSERT_TRUE((*owner)->CreateWorkspace("w").ok());
  ASSERT_TRUE((*owner)->CreateCollection("w.c").ok());
  DatasetDefinition def;
  def.schema.fields = {Field{"id", DataType::Int64(), false},
                       Field{"v", DataType::Varchar(), true}};
  auto created = (*owner)->CreateDataset(ds, def);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  AccessTokenSpec spec;
  spec.workspace = "w";
  spec.role = Role::kWriter;
  auto writer = (*owner)->CreateAccessToken(spec);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();

  std::mutex mu;
  std::set<int64_t> live, deleted;
  std::atomic<int> appends_done{0}, failures{0};
  std::vector<std::string> errors;
  auto fail = [&](const std::string& what, const Status& st) {
    std::lock_guard<std::mutex> l(mu);
    failures++;
    errors.push_back(what + ": " + st.ToString());
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      const int port = servers_[t % kServers].port;
      auto client =
          Retry([&] { return Connect(port, writer->info.client_id, writer->client_secret); });
      if (!client.ok()) return fail("connect", client.status());
      Client& c = **client;
      std::vector<int64_t> mine;
      int64_t last_snapshot = 0;
      for (int i = 0; i < kOps; ++i) {
        const int64_t lo = int64_t{t} * 1'000'000 + int64_t{i} * 10;
        std::string key = "w" + std::to_string(t) + "-a" + std::to_string(i);
        auto snap = Retry([&] {
          CommitMeta m = Meta("append " + key, key);
          std::vector<RecordBatch> batches;
          batches.push_back(IdBatch(lo, 10));
          return c.Append(ds, batches, m);
        });
        if (!snap.ok()) return fail("append " + key, snap.status());
        last_snapshot = std::max(last_snapshot, snap->snapshot_id);
        for (int64_t id = lo; id < lo + 10; ++id) mine.push_back(id);
        {
          std::lock_guard<std::mutex> l(mu);
          for (int64_t id = lo; id < lo + 10; ++id) live.insert(id);
        }
        appends_done++;
        if (i % 5 == 4) {
          int64_t victim = mine[static_cast<size_t>(i) * 7 % mine.size()];
          if (deleted.count(victim) == 0) {
            std::string dkey = "w" + std::to_string(t) + "-d" + std::to_string(i);
            auto del = Retry([&] {
              return c.DeleteRows(ds, "id = " + std::to_string(victim), Meta("delete", dkey));
            });
            if (!del.ok()) return fail("delete " + dkey, del.status());
            std::lock_guard<std::mutex> l(mu);
            live.erase(victim);
            deleted.insert(victim);
          }
        }
        if (i % 3 == 2) {
          Status st = Retry(
              [&] { return c.CommitOffset(ds, "consumer" + std::to_string(t), last_snapshot); });
          if (!st.ok()) return fail("offset", st);
        }
        if (i % 7 == 6) {
          SnapshotSelector at;
          at.snapshot_id = last_snapshot;
          Status st = Retry([&] {
            return c.CreateTag(ds, "t" + std::to_string(t) + "_" + std::to_string(i), at, true);
          });
          if (!st.ok()) return fail("tag", st);
        }
      }
    });
  }
  // The owner sets properties and reads while the writers run.
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    for (int i = 0; !stop; ++i) {
      Status st = Retry([&] {
        return (*owner)->SetDatasetProperties(ds, {{"round", std::to_string(i)}});
      });
      if (!st.ok()) return fail("properties", st);
      auto info = Retry([&] { return (*owner)->LoadDataset(ds); });
      if (!info.ok()) return fail("load", info.status());
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
  });
  // Server 1 is killed once a third of the appends are in, and comes back on its port.
  while (appends_done < kWriters * kOps / 3 && failures == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const int port1 = servers_[1].port;
  StopServer(servers_[1], SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  servers_[1] = StartServer(backend_, port1, backend_.dir / "server1.log");
  EXPECT_EQ(servers_[1].port, port1);

  for (auto& th : threads) th.join();
  stop = true;
  reader.join();
  for (const auto& e : errors) ADD_FAILURE() << e;
  ASSERT_EQ(failures.load(), 0);
  for (auto& s : servers_) StopServer(s, SIGTERM);
  backend_.Settle();

  auto cat = backend_.Open();
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  Expected expected;
  expected.live_ids = live;
  expected.absent_ids = deleted;
  for (const auto& problem : CheckInvariants(**cat, ds, &expected)) ADD_FAILURE() << problem;

  // One audit row per append snapshot, written with it; a request replayed by its key (the
  // retry of an append whose reply the kill swallowed) has its own row, marked as a replay.
  auto snaps = (*cat)->ListSnapshots(ds);
  ASSERT_TRUE(snaps.ok());
  int64_t append_snapshots = 0;
  for (const auto& s : *snaps) append_snapshots += s.operation == "append";
  EXPECT_EQ(append_snapshots, kWriters * kOps);
  int64_t audited = -1;
  ASSERT_TRUE(
      (*cat)
          ->metastore()
          .RunInTransaction(
              [&](Transaction& tx) -> Status {
                TARN_ASSIGN_OR_RETURN(
                    auto row,
                    tx.QueryOne("SELECT COUNT(*) FROM audit_log WHERE action = "
                                "'dataset.append' AND outcome = 'ok' AND target = ? AND detail NOT "
                                "LIKE '%idempotent_replay%'",
                                {ds}));
                if (row) {
                  TARN_ASSIGN_OR_RETURN(audited, row->Int64(0));
                }
                return Status::OK();
              },
              TxMode::kReadOnly)
          .ok());
  EXPECT_EQ(audited, append_snapshots);
}

INSTANTIATE_TEST_SUITE_P(Backends, ServeCluster, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn::stress
