// The Metastore conformance suite, run against SQLite (a file in a temp directory) and
// PostgreSQL (each test in its own schema of the database at $TARN_TEST_PG_URI). The
// "postgres" instances skip unless tests/run_with_pg.sh started a server; then they must pass.
// g++ 12 reports a std::variant<..., std::string> moved into a vector as possibly
// uninitialised (a known false positive of its -O2 flow analysis).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "metastore/metastore.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <latch>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "alerts/store.h"
#include "catalog/access_store.h"
#include "catalog/provenance.h"
#include "catalog/store.h"
#include "catalog/views_store.h"
#include "common/test_util.h"
#include "metastore/fault/fault_metastore.h"
#include "metastore/test_util.h"
#include "upload/store.h"

namespace tarn {
namespace {

using testing_util::PgBaseUri;
using testing_util::PgExec;
using testing_util::ScratchDir;
using testing_util::TestName;

// The suite runs on the real schema, which the modules owning tables contribute (catalog:
// store.cc, access_store.cc; upload: store.cc). Naming their lists links those files in.
[[maybe_unused]] const size_t kSchemaSteps =
    catalog_store::CatalogTables().size() + access_store::AccessTables().size() +
    views_store::ViewTables().size() + upload::internal::UploadTables().size();

Result<int64_t> QueryInt(Metastore& ms, const std::string& sql, const SqlParams& params = {}) {
  int64_t out = 0;
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(sql, params));
        if (!row) return Status::NotFound("no row");
        TARN_ASSIGN_OR_RETURN(out, row->Int64(0));
        return Status::OK();
      },
      TxMode::kReadOnly));
  return out;
}

// Read-modify-write of counters.v where k = 1: loses updates unless transactions serialize.
Status Increment(Metastore& ms) {
  return ms.RunInTransaction([](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT v FROM counters WHERE k = ?", {1}));
    if (!row) return Status::NotFound("counter");
    TARN_ASSIGN_OR_RETURN(int64_t v, row->Int64(0));
    TARN_ASSIGN_OR_RETURN(int64_t n,
                          tx.Execute("UPDATE counters SET v = ? WHERE k = ?", {v + 1, 1}));
    if (n != 1) return Status::Internal("update changed " + std::to_string(n) + " rows");
    return Status::OK();
  });
}

std::vector<Migration> TestMigrations(int n) {
  std::vector<Migration> m = {
      {1, "log", "CREATE TABLE m_log (x BIGINT NOT NULL)"},
      {2, "two", "INSERT INTO m_log (x) VALUES (2)"},
      {3, "three", "CREATE TABLE m_three (id ${ID}, b ${BLOB}); INSERT INTO m_log (x) VALUES (3)"},
      {4, "four", "INSERT INTO m_log (x) VALUES (4)"},
  };
  m.resize(n);
  return m;
}

class MetastoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      dir_ = ScratchDir() / ("tarn-metastore-" + std::to_string(::getpid()) + "-" + TestName());
      std::filesystem::remove_all(dir_);
      std::filesystem::create_directories(dir_);
      uri_ = (dir_ / "catalog.db").string();
    } else {
      const char* base = PgBaseUri();
      if (!base) GTEST_SKIP() << "TARN_TEST_PG_URI not set (run under tests/run_with_pg.sh)";
      std::string schema = "t_" + TestName();
      PgExec(base, "DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
      std::string b = base;
      uri_ =
          b + (b.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
    }
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<Metastore> Open(MetastoreOptions options = {}) {
    auto ms = Metastore::Open(uri_, std::move(options));
    EXPECT_TRUE(ms.ok()) << ms.status().ToString();
    return ms.ok() ? std::move(*ms) : nullptr;
  }

  void CreateCounter(Metastore& ms) {
    ASSERT_OK(ms.RunInTransaction([](Transaction& tx) -> Status {
      TARN_RETURN_NOT_OK(
          tx.Execute("CREATE TABLE counters (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)").status());
      return tx.Execute("INSERT INTO counters (k, v) VALUES (1, 0)").status();
    }));
  }

  // Forks `n` children that each run `body` and exit 0 when it returns true; returns how many
  // succeeded. The parent must hold no open connection to the database while forking.
  static int ForkAll(int n, const std::function<bool(int)>& body) {
    std::vector<pid_t> pids;
    for (int i = 0; i < n; ++i) {
      pid_t pid = ::fork();
      if (pid == 0) _exit(body(i) ? 0 : 1);
      if (pid > 0) pids.push_back(pid);
    }
    int ok = 0;
    for (pid_t pid : pids) {
      int status = 0;
      if (::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) ++ok;
    }
    return ok;
  }

  std::filesystem::path dir_;
  std::string uri_;
};

TEST_P(MetastoreConformance, OpenAppliesCatalogSchema) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  EXPECT_EQ(ms->backend(),
            GetParam() == "sqlite" ? MetastoreBackend::kSqlite : MetastoreBackend::kPostgres);
  auto applied = ms->AppliedMigrations();
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(*applied, std::vector<int64_t>(
                          {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
  for (const char* table : {"catalog_properties", "workspaces",
                            "collections",        "datasets",
                            "dataset_schemas",    "dataset_partition_specs",
                            "snapshots",          "data_files",
                            "deletion_vectors",   "tags",
                            "consumer_offsets",   "removal_ledger",
                            "access_tokens",      "signing_keys",
                            "audit_log",          "upload_contracts",
                            "upload_parts",       "dataset_locations",
                            "federation_rules",   "views",
                            "view_versions"}) {
    auto n = QueryInt(*ms, std::string("SELECT COUNT(*) FROM ") + table);
    ASSERT_TRUE(n.ok()) << table << ": " << n.status().ToString();
    EXPECT_EQ(*n, 0) << table;
  }
  // Opening again applies nothing and keeps the data.
  ASSERT_OK(ms->RunInTransaction([](Transaction& tx) {
    return tx.Execute("INSERT INTO catalog_properties (key, value) VALUES ('k', 'v')").status();
  }));
  ms.reset();
  ms = Open();
  ASSERT_TRUE(ms);
  EXPECT_EQ(*ms->AppliedMigrations(),
            std::vector<int64_t>(
                {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), 1);
}

TEST_P(MetastoreConformance, TypedValuesRoundTrip) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  std::string blob;
  for (int i = 0; i < 256; ++i) blob += static_cast<char>(i);
  const std::string text = "h\xc3\xa9llo \xe2\x98\x83 'quoted' ? $1";
  ASSERT_OK(ms->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_RETURN_NOT_OK(
        tx.Execute(ExpandMigrationSql("CREATE TABLE vals (id BIGINT PRIMARY KEY, i BIGINT, "
                                      "d DOUBLE PRECISION, s TEXT, b ${BLOB})",
                                      tx.backend()))
            .status());
    const char* insert = "INSERT INTO vals (id, i, d, s, b) VALUES (?, ?, ?, ?, ?)";
    TARN_RETURN_NOT_OK(
        tx.Execute(insert, {1, INT64_MIN, 0.1, text, SqlValue::Blob(blob)}).status());
    TARN_RETURN_NOT_OK(tx.Execute(insert, {2, INT64_MAX, -1e300, "", SqlValue::Blob("")}).status());
    TARN_RETURN_NOT_OK(tx.Execute(insert, {3, nullptr, nullptr, SqlValue(), SqlValue()}).status());
    return tx
        .Execute(insert, {4, true, 5e-324, SqlValue::OptionalText(std::nullopt),
                          SqlValue::OptionalInt64(7)})
        .status();
  }));
  std::vector<Row> rows;
  ASSERT_OK(ms->RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(rows, tx.Query("SELECT id, i, d, s, b FROM vals ORDER BY id"));
        return Status::OK();
      },
      TxMode::kReadOnly));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(*rows[0].Int64(1), INT64_MIN);
  EXPECT_EQ(*rows[0].Double(2), 0.1);
  EXPECT_EQ(*rows[0].Text(3), text);
  EXPECT_EQ(rows[0].Get(4).value()->type(), SqlType::kBlob);
  EXPECT_EQ(*rows[0].Blob(4), blob);
  EXPECT_EQ(*rows[1].Int64(1), INT64_MAX);
  EXPECT_EQ(*rows[1].Double(2), -1e300);
  EXPECT_EQ(*rows[1].Text(3), "");
  EXPECT_EQ(*rows[1].Blob(4), "");
  for (size_t c = 1; c < 5; ++c) EXPECT_TRUE(rows[2].IsNull(c)) << c;
  EXPECT_EQ(*rows[2].OptionalInt64(1), std::nullopt);
  EXPECT_EQ(*rows[2].OptionalText(3), std::nullopt);
  EXPECT_EQ(*rows[3].Int64(1), 1);
  EXPECT_EQ(*rows[3].Double(2), 5e-324);
  // Typed access refuses the wrong type and indexes past the end, without aborting.
  EXPECT_EQ(rows[0].Int64(3).status().kind(), ErrorKind::kInternal);
  EXPECT_EQ(rows[0].Text(1).status().kind(), ErrorKind::kInternal);
  EXPECT_EQ(rows[2].Int64(1).status().kind(), ErrorKind::kInternal);
  EXPECT_EQ(rows[0].Int64(9).status().kind(), ErrorKind::kInternal);
  EXPECT_TRUE(rows[0].IsNull(9));
}

TEST_P(MetastoreConformance, ReturningUpsertAndAffectedRows) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  ASSERT_OK(ms->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_RETURN_NOT_OK(
        tx.Execute(ExpandMigrationSql("CREATE TABLE kv (id ${ID}, k TEXT NOT NULL UNIQUE, "
                                      "v BIGINT NOT NULL)",
                                      tx.backend()))
            .status());
    TARN_ASSIGN_OR_RETURN(
        auto a, tx.QueryOne("INSERT INTO kv (k, v) VALUES (?, ?) RETURNING id, v", {"a", 10}));
    TARN_ASSIGN_OR_RETURN(
        auto b, tx.QueryOne("INSERT INTO kv (k, v) VALUES (?, ?) RETURNING id, v", {"b", 20}));
    EXPECT_TRUE(a && b);
    if (!a || !b) return Status::Internal("no RETURNING row");
    EXPECT_GT(*b->Int64(0), *a->Int64(0));
    EXPECT_EQ(*a->Int64(1), 10);
    // Upsert that updates, returning the new value.
    TARN_ASSIGN_OR_RETURN(
        auto up, tx.QueryOne("INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE "
                             "SET v = kv.v + excluded.v RETURNING v",
                             {"a", 5}));
    EXPECT_TRUE(up && *up->Int64(0) == 15);
    // Upsert that does nothing changes no row.
    TARN_ASSIGN_OR_RETURN(int64_t n, tx.Execute("INSERT INTO kv (k, v) VALUES (?, ?) "
                                                "ON CONFLICT (k) DO NOTHING",
                                                {"b", 99}));
    EXPECT_EQ(n, 0);
    TARN_ASSIGN_OR_RETURN(n, tx.Execute("UPDATE kv SET v = v + 1"));
    EXPECT_EQ(n, 2);
    TARN_ASSIGN_OR_RETURN(n, tx.Execute("DELETE FROM kv WHERE k = ?", {"zzz"}));
    EXPECT_EQ(n, 0);
    TARN_ASSIGN_OR_RETURN(n, tx.Execute("DELETE FROM kv WHERE k = ? RETURNING id", {"b"}));
    EXPECT_EQ(n, 1);
    // A placeholder inside a literal is not a placeholder.
    TARN_ASSIGN_OR_RETURN(auto lit,
                          tx.QueryOne("SELECT v FROM kv WHERE k = ? AND '?' = '?'", {"a"}));
    EXPECT_TRUE(lit && *lit->Int64(0) == 16);
    return Status::OK();
  }));
}

TEST_P(MetastoreConformance, ConstraintErrorsMapToKinds) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  auto run = [&](const std::string& sql, const SqlParams& params = {}) {
    return ms->RunInTransaction([&](Transaction& tx) { return tx.Execute(sql, params).status(); });
  };
  const int64_t now = 1700000000000000;
  ASSERT_OK(run("INSERT INTO workspaces (name, created_at, updated_at) VALUES (?, ?, ?)",
                {"acme", now, now}));
  EXPECT_EQ(run("INSERT INTO workspaces (name, created_at, updated_at) VALUES (?, ?, ?)",
                {"acme", now, now})
                .kind(),
            ErrorKind::kAlreadyExists);
  EXPECT_EQ(run("INSERT INTO collections (workspace_id, name, created_at, updated_at) "
                "VALUES (?, ?, ?, ?)",
                {999, "c", now, now})
                .kind(),
            ErrorKind::kFailedPrecondition);
  EXPECT_EQ(run("INSERT INTO workspaces (name, created_at, updated_at) VALUES (?, ?, ?)",
                {nullptr, now, now})
                .kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(run("SELEC 1").kind(), ErrorKind::kInternal);
  EXPECT_EQ(run("SELECT * FROM no_such_table").kind(), ErrorKind::kInternal);
  // A placeholder count that does not match the parameters is refused, not guessed.
  EXPECT_EQ(run("SELECT ?", {}).kind(), ErrorKind::kInternal);
  EXPECT_EQ(run("SELECT 1", {1}).kind(), ErrorKind::kInternal);
  EXPECT_EQ(run("SELECT 1; SELECT 2").kind(), ErrorKind::kInternal);
  // A write in a read-only transaction fails and changes nothing.
  Status ro = ms->RunInTransaction(
      [&](Transaction& tx) {
        return tx.Execute("INSERT INTO catalog_properties (key, value) VALUES ('a', 'b')").status();
      },
      TxMode::kReadOnly);
  EXPECT_FALSE(ro.ok());
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), 0);
  // After all those errors the store still works.
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM workspaces"), 1);
}

TEST_P(MetastoreConformance, ErrorStatusRollsBack) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  int calls = 0;
  Status st = ms->RunInTransaction([&](Transaction& tx) -> Status {
    ++calls;
    TARN_RETURN_NOT_OK(
        tx.Execute("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', 1, 1)")
            .status());
    TARN_RETURN_NOT_OK(
        tx.Execute("INSERT INTO catalog_properties (key, value) VALUES ('x', 'y')").status());
    return Status::Conflict("changed since read");
  });
  EXPECT_EQ(st.kind(), ErrorKind::kConflict);
  EXPECT_EQ(st.message(), "changed since read");
  EXPECT_EQ(calls, 1) << "a caller's error is not retried";
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM workspaces"), 0);
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), 0);
  // A failed statement's error, returned, rolls back the statements before it.
  st = ms->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_RETURN_NOT_OK(
        tx.Execute("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', 1, 1)")
            .status());
    return tx.Execute("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', 1, 1)")
        .status();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kAlreadyExists);
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM workspaces"), 0);
  // A callback that ignores a failed statement and returns OK still gets that error, and
  // nothing it did is committed; statements after the failure fail too (both backends).
  Status later;
  st = ms->RunInTransaction([&](Transaction& tx) -> Status {
    TARN_RETURN_NOT_OK(
        tx.Execute("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('v', 1, 1)")
            .status());
    (void)tx.Execute("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('v', 1, 1)");
    later = tx.Execute("INSERT INTO catalog_properties (key, value) VALUES ('x', 'y')").status();
    return Status::OK();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kAlreadyExists) << st.ToString();
  EXPECT_EQ(later.kind(), ErrorKind::kAlreadyExists) << later.ToString();
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM workspaces"), 0);
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), 0);
  // An error from a QueryEach callback is the caller's: the transaction goes on.
  ASSERT_OK(ms->RunInTransaction([&](Transaction& tx) -> Status {
    Status mine = tx.QueryEach("SELECT 1", {}, [](const Row&) { return Status::NotFound("x"); });
    EXPECT_EQ(mine.kind(), ErrorKind::kNotFound);
    return tx.Execute("INSERT INTO catalog_properties (key, value) VALUES ('x', 'y')").status();
  }));
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), 1);
}

TEST_P(MetastoreConformance, DeferredStatementsRunInOrderAndFailTheTransaction) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  for (TxMode mode : {TxMode::kReadWrite, TxMode::kLockingWrite}) {
    // Deferred writes are visible to the next statement of the same transaction, in order.
    ASSERT_OK(ms->RunInTransaction(
        [](Transaction& tx) -> Status {
          TARN_RETURN_NOT_OK(tx.ExecuteDeferred("UPDATE counters SET v = v + 1 WHERE k = ?", {1}));
          TARN_RETURN_NOT_OK(tx.ExecuteDeferred("UPDATE counters SET v = v * 10 WHERE k = ?", {1}));
          TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT v FROM counters WHERE k = 1"));
          TARN_ASSIGN_OR_RETURN(int64_t v, row->Int64(0));
          if (v % 10 != 0) return Status::Internal("deferred statements ran out of order");
          // Deferred until COMMIT.
          return tx.ExecuteDeferred("INSERT INTO counters (k, v) VALUES (?, ?)", {v + 100, v});
        },
        mode));
    // A failing deferred statement (duplicate key) fails the whole transaction, whether it
    // surfaces at the next statement or at COMMIT.
    auto before = QueryInt(*ms, "SELECT v FROM counters WHERE k = 1");
    ASSERT_TRUE(before.ok());
    Status st = ms->RunInTransaction(
        [](Transaction& tx) -> Status {
          TARN_RETURN_NOT_OK(tx.ExecuteDeferred("UPDATE counters SET v = v + 1 WHERE k = ?", {1}));
          return tx.ExecuteDeferred("INSERT INTO counters (k, v) VALUES (?, ?)", {1, 5});
        },
        mode);
    EXPECT_EQ(st.kind(), ErrorKind::kAlreadyExists) << st.ToString();
    EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), *before);
    // The connection is usable afterwards.
    EXPECT_TRUE(QueryInt(*ms, "SELECT COUNT(*) FROM counters").ok());
  }
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM counters"), 3);
}

TEST_P(MetastoreConformance, QueryEachStreamsAndStops) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  ASSERT_OK(ms->RunInTransaction([](Transaction& tx) -> Status {
    for (int i = 0; i < 100; ++i) {
      TARN_RETURN_NOT_OK(tx.Execute("INSERT INTO catalog_properties (key, value) VALUES (?, ?)",
                                    {"k" + std::to_string(1000 + i), std::to_string(i)})
                             .status());
    }
    return Status::OK();
  }));
  int seen = 0;
  Status st = ms->RunInTransaction(
      [&](Transaction& tx) {
        return tx.QueryEach("SELECT key, value FROM catalog_properties ORDER BY key", {},
                            [&](const Row& row) -> Status {
                              if (*row.Text(0) != "k" + std::to_string(1000 + seen)) {
                                return Status::Internal("order");
                              }
                              if (++seen == 10) return Status::Cancelled("enough");
                              return Status::OK();
                            });
      },
      TxMode::kReadOnly);
  EXPECT_EQ(st.kind(), ErrorKind::kCancelled);
  EXPECT_EQ(seen, 10);
  st = ms->RunInTransaction(
      [&](Transaction& tx) { return tx.QueryOne("SELECT key FROM catalog_properties").status(); },
      TxMode::kReadOnly);
  EXPECT_EQ(st.kind(), ErrorKind::kInternal);
  // The connection is still usable after an abandoned stream.
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), 100);
}

TEST_P(MetastoreConformance, ManyDistinctStatementsStayUsable) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  // More distinct statements than the per-connection cache keeps (512), e.g. IN lists of
  // varying length; a statement being streamed survives the cache starting over.
  ASSERT_OK(ms->RunInTransaction([](Transaction& tx) -> Status {
    for (int n = 1; n <= 600; ++n) {
      std::string sql = "SELECT COUNT(*) FROM workspaces WHERE id IN (?";
      SqlParams params = {0};
      for (int i = 1; i < n; ++i) {
        sql += ", ?";
        params.push_back(i);
      }
      TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(sql + ")", params));
      if (!row || *row->Int64(0) != 0) return Status::Internal("count");
    }
    return Status::OK();
  }));
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM workspaces WHERE id IN (?, ?)", {1, 2}), 0);
}

TEST_P(MetastoreConformance, CatalogSchemaConstraints) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  auto run = [&](const std::string& sql, const SqlParams& params = {}) {
    return ms->RunInTransaction([&](Transaction& tx) { return tx.Execute(sql, params).status(); });
  };
  ASSERT_OK(run("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', 1, 1)"));
  ASSERT_OK(
      run("INSERT INTO collections (workspace_id, name, created_at, updated_at) "
          "SELECT id, 'c', 1, 1 FROM workspaces WHERE name = 'w'"));
  const char* create_ds =
      "INSERT INTO datasets (uuid, collection_id, name, created_at, updated_at) "
      "SELECT ?, id, ?, 1, 1 FROM collections WHERE name = 'c'";
  ASSERT_OK(run(create_ds, {"uuid-1", "d"}));
  EXPECT_EQ(run(create_ds, {"uuid-2", "d"}).kind(), ErrorKind::kAlreadyExists) << "live name";
  EXPECT_EQ(run(create_ds, {"uuid-1", "e"}).kind(), ErrorKind::kAlreadyExists) << "uuid";
  ASSERT_OK(run("UPDATE datasets SET dropped_at = 2 WHERE uuid = 'uuid-1'"));
  ASSERT_OK(run(create_ds, {"uuid-2", "d"})) << "a dropped dataset's name is free again";
  auto ds = QueryInt(*ms, "SELECT id FROM datasets WHERE uuid = 'uuid-2'");
  ASSERT_TRUE(ds.ok());
  const int64_t d = *ds;

  const char* snap =
      "INSERT INTO snapshots (dataset_id, snapshot_id, parent_snapshot_id, committed_at, author, "
      "operation, schema_id, idempotency_key) VALUES (?, ?, ?, ?, 'me', 'append', 0, ?)";
  ASSERT_OK(run(snap, {d, 1, nullptr, 10, "key-1"}));
  ASSERT_OK(run(snap, {d, 2, 1, 20, nullptr}));
  ASSERT_OK(run(snap, {d, 3, 2, 30, nullptr})) << "NULL idempotency keys do not collide";
  EXPECT_EQ(run(snap, {d, 3, 2, 40, nullptr}).kind(), ErrorKind::kAlreadyExists) << "dense id";
  EXPECT_EQ(run(snap, {d, 4, 3, 40, "key-1"}).kind(), ErrorKind::kAlreadyExists)
      << "idempotency key";
  EXPECT_EQ(run(snap, {d, 4, 5, 40, nullptr}).kind(), ErrorKind::kInvalidArgument)
      << "parent after child";
  EXPECT_EQ(run(snap, {d + 100, 1, nullptr, 10, nullptr}).kind(), ErrorKind::kFailedPrecondition);

  const char* tag =
      "INSERT INTO tags (dataset_id, name, snapshot_id, created_at) VALUES (?, ?, ?, 1)";
  ASSERT_OK(run(tag, {d, "v1", 2}));
  EXPECT_EQ(run(tag, {d, "v1", 3}).kind(), ErrorKind::kAlreadyExists);
  // Since migration 18 the catalog, not the schema, keeps tags on snapshots that exist and
  // tagged snapshots from expiring (src/catalog/retention_test.cc); a tag still needs its dataset.
  EXPECT_EQ(run(tag, {d + 100, "v9", 2}).kind(), ErrorKind::kFailedPrecondition) << "no dataset";

  const char* file =
      "INSERT INTO data_files (dataset_id, path, added_snapshot_id, record_count, "
      "file_size_bytes, first_row_id) VALUES (?, ?, ?, 10, 100, ?) RETURNING id";
  ASSERT_OK(run(file, {d, "a.parquet", 1, 0}));
  EXPECT_EQ(run(file, {d, "a.parquet", 2, 10}).kind(), ErrorKind::kAlreadyExists)
      << "one live registration per path";
  ASSERT_OK(run("UPDATE data_files SET removed_snapshot_id = 2 WHERE path = 'a.parquet'"));
  ASSERT_OK(run(file, {d, "a.parquet", 3, 10})) << "re-registered after removal";
  EXPECT_EQ(run("UPDATE data_files SET removed_snapshot_id = 3 WHERE added_snapshot_id = 3").kind(),
            ErrorKind::kInvalidArgument)
      << "removed before added";
  EXPECT_EQ(*QueryInt(*ms,
                      "SELECT COUNT(*) FROM data_files WHERE dataset_id = ? AND "
                      "added_snapshot_id <= ? AND (removed_snapshot_id IS NULL OR "
                      "removed_snapshot_id > ?)",
                      {d, 2, 2}),
            0);
  EXPECT_EQ(*QueryInt(*ms,
                      "SELECT COUNT(*) FROM data_files WHERE dataset_id = ? AND "
                      "added_snapshot_id <= ? AND (removed_snapshot_id IS NULL OR "
                      "removed_snapshot_id > ?)",
                      {d, 1, 1}),
            1);

  auto file_id = QueryInt(*ms, "SELECT id FROM data_files WHERE added_snapshot_id = 3");
  ASSERT_TRUE(file_id.ok());
  const char* dv =
      "INSERT INTO deletion_vectors (dataset_id, data_file_id, added_snapshot_id, cardinality, "
      "positions) VALUES (?, ?, ?, 2, ?)";
  ASSERT_OK(run(dv, {d, *file_id, 3, SqlValue::Blob(std::string("\x01\x00\x02", 3))}));
  EXPECT_EQ(run(dv, {d, *file_id, 3, SqlValue::Blob("x")}).kind(), ErrorKind::kAlreadyExists)
      << "one live deletion vector per file";
  EXPECT_EQ(run("INSERT INTO deletion_vectors (dataset_id, data_file_id, added_snapshot_id, "
                "cardinality) VALUES (?, ?, 3, 1)",
                {d, *file_id})
                .kind(),
            ErrorKind::kInvalidArgument)
      << "positions or path";

  EXPECT_EQ(run("DELETE FROM collections WHERE name = 'c'").kind(), ErrorKind::kFailedPrecondition)
      << "a collection with datasets cannot be dropped";

  ASSERT_OK(
      run("INSERT INTO removal_ledger (dataset_id, path, reason, recorded_at) "
          "VALUES (?, 'a.parquet', 'expired', 5)",
          {d}));
  EXPECT_EQ(run("INSERT INTO removal_ledger (dataset_id, path, reason, recorded_at) "
                "VALUES (?, 'a.parquet', 'expired', 6)",
                {d})
                .kind(),
            ErrorKind::kAlreadyExists);
  // Consumer offsets: upsert that only moves forward.
  const char* offset =
      "INSERT INTO consumer_offsets (dataset_id, consumer, snapshot_id, updated_at) "
      "VALUES (?, 'etl', ?, 0) ON CONFLICT (dataset_id, consumer) DO UPDATE SET "
      "snapshot_id = excluded.snapshot_id WHERE consumer_offsets.snapshot_id <= "
      "excluded.snapshot_id";
  ASSERT_OK(run(offset, {d, 2}));
  ASSERT_OK(run(offset, {d, 1}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT snapshot_id FROM consumer_offsets WHERE dataset_id = ?", {d}),
            2);
  ASSERT_OK(run(offset, {d, 3}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT snapshot_id FROM consumer_offsets WHERE dataset_id = ?", {d}),
            3);
}

TEST_P(MetastoreConformance, ConcurrentIncrementsLoseNoUpdate) {
  constexpr int kThreads = 8, kPerThread = 200;
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      auto mine = Metastore::Open(uri_);  // a handle, and so a connection, of its own
      if (!mine.ok()) {
        ++failures;
        return;
      }
      for (int i = 0; i < kPerThread; ++i) {
        if (!Increment(**mine).ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), kThreads * kPerThread);
}

TEST_P(MetastoreConformance, LockingWriteIncrementsLoseNoUpdate) {
  constexpr int kThreads = 8, kPerThread = 100;
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      MetastoreOptions o;
      o.max_attempts = 1;  // locking transactions on one row wait; they never need a retry
      auto mine = Metastore::Open(uri_, o);
      if (!mine.ok()) {
        ++failures;
        return;
      }
      for (int i = 0; i < kPerThread; ++i) {
        Status st = (*mine)->RunInTransaction(
            [](Transaction& tx) -> Status {
              TARN_ASSIGN_OR_RETURN(
                  auto row,
                  tx.QueryOne("UPDATE counters SET v = v + 1 WHERE k = ? RETURNING v", {1}));
              if (!row) return Status::NotFound("counter");
              TARN_ASSIGN_OR_RETURN(int64_t v, row->Int64(0));
              return tx
                  .Execute("INSERT INTO catalog_properties (key, value) VALUES (?, 'x')",
                           {"seen-" + std::to_string(v)})
                  .status();
            },
            TxMode::kLockingWrite);
        if (!st.ok()) {
          ADD_FAILURE() << st.ToString();
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), kThreads * kPerThread);
  // Every transaction saw a distinct value.
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM catalog_properties"), kThreads * kPerThread);
}

TEST_P(MetastoreConformance, SharedHandleIsThreadSafe) {
  constexpr int kThreads = 4, kPerThread = 100;
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!Increment(*ms).ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), kThreads * kPerThread);
}

TEST_P(MetastoreConformance, ConcurrentIncrementsAcrossProcesses) {
  constexpr int kProcs = 3, kPerProc = 100;
  {
    auto ms = Open();
    ASSERT_TRUE(ms);
    CreateCounter(*ms);
  }
  std::string uri = uri_;
  int ok = ForkAll(kProcs, [&](int) {
    auto ms = Metastore::Open(uri);
    if (!ms.ok()) return false;
    for (int i = 0; i < kPerProc; ++i) {
      if (!Increment(**ms).ok()) return false;
    }
    return true;
  });
  EXPECT_EQ(ok, kProcs);
  auto ms = Open();
  ASSERT_TRUE(ms);
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), kProcs * kPerProc);
}

TEST_P(MetastoreConformance, AcknowledgedCommitsSurviveSigkill) {
  {
    auto ms = Open();
    ASSERT_TRUE(ms);
    CreateCounter(*ms);
  }
  int64_t previous = 0;
  for (int round = 0; round < 5; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // commits in a loop, acknowledging each committed value on the pipe
      ::close(fds[0]);
      auto ms = Metastore::Open(uri_);
      if (!ms.ok()) _exit(2);
      for (;;) {
        int64_t v = 0;
        Status st = (*ms)->RunInTransaction([&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(
              auto row, tx.QueryOne("UPDATE counters SET v = v + 1 WHERE k = 1 RETURNING v"));
          if (!row) return Status::NotFound("counter");
          TARN_ASSIGN_OR_RETURN(v, row->Int64(0));
          return Status::OK();
        });
        if (!st.ok() || ::write(fds[1], &v, sizeof(v)) != sizeof(v)) _exit(3);
      }
    }
    ::close(fds[1]);
    // Kill only after the child acknowledged some commits (more each round), while it runs the
    // next: opening a connection on a loaded machine can take longer than any fixed sleep, and a
    // kill before then proves nothing.
    int64_t acked = previous, v = 0;
    for (int n = 0; n < 1 + 10 * round && ::read(fds[0], &v, sizeof(v)) == sizeof(v); ++n) {
      acked = v;
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status)) << "the child stopped by itself: " << status;
    while (::read(fds[0], &v, sizeof(v)) == sizeof(v)) acked = v;
    ::close(fds[0]);
    auto ms = Open();
    ASSERT_TRUE(ms);
    auto now = QueryInt(*ms, "SELECT v FROM counters WHERE k = 1");
    ASSERT_TRUE(now.ok()) << now.status().ToString();
    // Every acknowledged commit is there; at most the one in flight when killed is extra.
    EXPECT_GE(*now, acked) << "round " << round;
    EXPECT_LE(*now, acked + 1) << "round " << round;
    EXPECT_GT(*now, previous) << "round " << round << ": the child committed nothing";
    previous = *now;
  }
}

TEST_P(MetastoreConformance, MigrationsRunOnceUnderConcurrentOpensFromThreads) {
  constexpr int kThreads = 8;
  std::atomic<int> failures{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      MetastoreOptions o;
      o.migrations = TestMigrations(3);
      auto ms = Metastore::Open(uri_, o);
      if (!ms.ok()) {
        ADD_FAILURE() << ms.status().ToString();
        ++failures;
      }
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  MetastoreOptions o;
  o.migrations = TestMigrations(3);
  auto ms = Open(o);
  ASSERT_TRUE(ms);
  EXPECT_EQ(*ms->AppliedMigrations(), std::vector<int64_t>({1, 2, 3}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM m_log"), 2);
  EXPECT_EQ(*QueryInt(*ms, "SELECT SUM(x) FROM m_log"), 5);
}

TEST_P(MetastoreConformance, MigrationsRunOnceUnderConcurrentOpensFromProcesses) {
  constexpr int kProcs = 6;
  std::string uri = uri_;
  int ok = ForkAll(kProcs, [&](int i) {
    MetastoreOptions o;
    o.migrations = TestMigrations(i % 2 == 0 ? 3 : 4);  // old and new binaries racing
    return Metastore::Open(uri, o).ok() || i % 2 == 0;  // an old binary may see "newer"
  });
  EXPECT_EQ(ok, kProcs);
  MetastoreOptions o;
  o.migrations = TestMigrations(4);
  auto ms = Open(o);
  ASSERT_TRUE(ms);
  EXPECT_EQ(*ms->AppliedMigrations(), std::vector<int64_t>({1, 2, 3, 4}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM m_log"), 3);
  EXPECT_EQ(*QueryInt(*ms, "SELECT SUM(x) FROM m_log"), 9);
}

TEST_P(MetastoreConformance, MigrationsAreIncrementalAndRefuseNewerSchema) {
  MetastoreOptions two;
  two.migrations = TestMigrations(2);
  ASSERT_TRUE(Open(two));
  ASSERT_TRUE(Open(two));  // idempotent
  MetastoreOptions four;
  four.migrations = TestMigrations(4);
  auto ms = Open(four);
  ASSERT_TRUE(ms);
  EXPECT_EQ(*ms->AppliedMigrations(), std::vector<int64_t>({1, 2, 3, 4}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT SUM(x) FROM m_log"), 9);
  auto old = Metastore::Open(uri_, two);
  EXPECT_EQ(old.status().kind(), ErrorKind::kFailedPrecondition) << old.status().ToString();
  // A failing migration applies nothing of itself and records nothing.
  MetastoreOptions bad;
  bad.migrations = TestMigrations(4);
  bad.migrations->push_back(
      {5, "bad", "INSERT INTO m_log (x) VALUES (5); INSERT INTO no_such_table VALUES (1)"});
  auto failed = Metastore::Open(uri_, bad);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(*ms->AppliedMigrations(), std::vector<int64_t>({1, 2, 3, 4}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT SUM(x) FROM m_log"), 9);
}

TEST_P(MetastoreConformance, LockContentionRetriesThenGivesUp) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  MetastoreOptions impatient;
  impatient.max_attempts = 1;
  impatient.sqlite_busy_timeout_ms = 20;
  impatient.sqlite_serialize_local_writers = false;
  auto other = Metastore::Open(uri_, impatient);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  MetastoreOptions patient = impatient;
  patient.max_attempts = 1000;
  auto third = Metastore::Open(uri_, patient);
  ASSERT_TRUE(third.ok()) << third.status().ToString();

  // The holder keeps the write lock until the impatient writer gave up (SQLite's busy timeout),
  // or for 400 ms where that writer waits for the lock instead (PostgreSQL), and a moment longer
  // so the patient one meets it too.
  std::latch holding(1);
  std::promise<void> impatient_done;
  std::future<void> impatient_done_f = impatient_done.get_future();
  bool signalled = false;  // the holder's transaction may be attempted more than once
  std::thread holder([&] {
    Status st = ms->RunInTransaction([&](Transaction& tx) -> Status {
      TARN_RETURN_NOT_OK(tx.Execute("UPDATE counters SET v = v + 1 WHERE k = 1").status());
      if (!std::exchange(signalled, true)) holding.count_down();
      impatient_done_f.wait_for(std::chrono::milliseconds(400));
      // Real time on purpose: nothing tells when the patient writer meets the lock (on SQLite
      // it waits in BEGIN IMMEDIATE, where no statement is counted).
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  holding.wait();
  Status gave_up = Increment(**other);
  impatient_done.set_value();
  EXPECT_EQ(gave_up.kind(), ErrorKind::kUnavailable) << gave_up.ToString();
  Status retried = Increment(**third);  // retried invisibly until the holder commits
  EXPECT_TRUE(retried.ok()) << retried.ToString();
  holder.join();
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 2);
}

// A database an older binary made without some module's steps (here: without upload's 4)
// gets them from the next binary that knows them; nothing else changes.
TEST_P(MetastoreConformance, MissingStepsAreFilledIn) {
  std::vector<Migration> without_uploads;
  for (const Migration& m : SchemaMigrations()) {
    if (m.version != 4) without_uploads.push_back(m);
  }
  MetastoreOptions o;
  o.migrations = without_uploads;
  auto ms = Open(o);
  ASSERT_TRUE(ms);
  EXPECT_EQ(*ms->AppliedMigrations(), std::vector<int64_t>({1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                                            14, 15, 16, 17, 18, 19, 20}));
  EXPECT_FALSE(QueryInt(*ms, "SELECT COUNT(*) FROM upload_contracts").ok());
  ms.reset();
  ms = Open();
  ASSERT_TRUE(ms);
  EXPECT_EQ(*ms->AppliedMigrations(),
            std::vector<int64_t>(
                {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
  EXPECT_EQ(*QueryInt(*ms, "SELECT COUNT(*) FROM upload_contracts"), 0);
}

// Migration 18 drops the foreign keys expiry paid per row (SQLite: by rebuilding the three
// tables): the rows, their ids and the other constraints stay, and new ids follow the old ones.
TEST_P(MetastoreConformance, ExpiryChecksGoAndTheRowsStay) {
  std::vector<Migration> before;
  for (const Migration& m : SchemaMigrations()) {
    if (m.version < 18) before.push_back(m);
  }
  MetastoreOptions o;
  o.migrations = before;
  auto ms = Open(o);
  ASSERT_TRUE(ms);
  auto run = [&](const std::string& sql, const SqlParams& params = {}) {
    return ms->RunInTransaction([&](Transaction& tx) { return tx.Execute(sql, params).status(); });
  };
  ASSERT_OK(run("INSERT INTO workspaces (name, created_at, updated_at) VALUES ('w', 1, 1)"));
  ASSERT_OK(
      run("INSERT INTO collections (workspace_id, name, created_at, updated_at) "
          "SELECT id, 'c', 1, 1 FROM workspaces"));
  ASSERT_OK(
      run("INSERT INTO datasets (uuid, collection_id, name, created_at, updated_at) "
          "SELECT 'u', id, 'd', 1, 1 FROM collections"));
  const int64_t d = *QueryInt(*ms, "SELECT id FROM datasets");
  ASSERT_OK(
      run("INSERT INTO snapshots (dataset_id, snapshot_id, committed_at, author, operation, "
          "schema_id) VALUES (?, 1, 1, 'me', 'append', 0), (?, 2, 2, 'me', 'append', 0)",
          {d, d}));
  ASSERT_OK(
      run("INSERT INTO data_files (dataset_id, path, added_snapshot_id, record_count, "
          "file_size_bytes, first_row_id) VALUES (?, 'a.parquet', 1, 10, 100, 0)",
          {d}));
  const int64_t file = *QueryInt(*ms, "SELECT id FROM data_files");
  const char* dv =
      "INSERT INTO deletion_vectors (dataset_id, data_file_id, added_snapshot_id, cardinality, "
      "positions) VALUES (?, ?, 2, 1, ?)";
  ASSERT_OK(run(dv, {d, file, SqlValue::Blob("x")}));
  ASSERT_OK(run(
      "INSERT INTO tags (dataset_id, name, snapshot_id, created_at) VALUES (?, 't', 1, 3)", {d}));
  const char* ledger =
      "INSERT INTO removal_ledger (dataset_id, path, reason, recorded_at) VALUES (?, ?, "
      "'expired', 4)";
  ASSERT_OK(run(ledger, {d, "old.parquet"}));
  const int64_t dv_id = *QueryInt(*ms, "SELECT id FROM deletion_vectors");
  const int64_t ledger_id = *QueryInt(*ms, "SELECT id FROM removal_ledger");
  ms.reset();

  ms = Open();
  ASSERT_TRUE(ms);
  EXPECT_EQ(ms->AppliedMigrations()->back(), SchemaMigrations().back().version);
  EXPECT_EQ(*QueryInt(*ms, "SELECT id FROM deletion_vectors WHERE data_file_id = ?", {file}),
            dv_id);
  EXPECT_EQ(*QueryInt(*ms, "SELECT snapshot_id FROM tags WHERE dataset_id = ? AND name = 't'", {d}),
            1);
  EXPECT_EQ(*QueryInt(*ms, "SELECT id FROM removal_ledger WHERE path = 'old.parquet'"), ledger_id);
  // The constraints that stay.
  EXPECT_EQ(run(dv, {d, file, SqlValue::Blob("y")}).kind(), ErrorKind::kAlreadyExists)
      << "one live vector per file";
  EXPECT_EQ(run(dv, {d + 100, file + 100, SqlValue::Blob("y")}).kind(),
            ErrorKind::kFailedPrecondition)
      << "a vector's dataset";
  EXPECT_EQ(run(ledger, {d, "old.parquet"}).kind(), ErrorKind::kAlreadyExists) << "one path";
  EXPECT_EQ(run("INSERT INTO tags (dataset_id, name, snapshot_id, created_at) VALUES (?, 'x', 1, "
                "5)",
                {d + 100})
                .kind(),
            ErrorKind::kFailedPrecondition)
      << "a tag's dataset";
  // New ids come after the copied ones.
  ASSERT_OK(run(ledger, {d, "new.parquet"}));
  EXPECT_GT(*QueryInt(*ms, "SELECT id FROM removal_ledger WHERE path = 'new.parquet'"), ledger_id);
  // The checks that go: the catalog keeps these rules (src/catalog/README.md "Maintenance").
  ASSERT_OK(run(ledger, {d + 100, "other.parquet"}));
  ASSERT_OK(run(dv, {d, file + 100, SqlValue::Blob("z")}));
  ASSERT_OK(run("DELETE FROM data_files WHERE id = ?", {file}));
  ASSERT_OK(run("DELETE FROM snapshots WHERE dataset_id = ? AND snapshot_id = 1", {d}));
}

// ---- the fault-injecting wrapper (metastore/fault) ----

TEST_P(MetastoreConformance, PingAnswersAndReportsAFailure) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  EXPECT_TRUE(ms->Ping().ok());
  auto faults = std::make_shared<MetastoreFaults>();
  ms->SetFaults(faults);
  faults->FailNthStatement(1, Status::Unavailable("database down"));
  Status st = ms->Ping();
  EXPECT_EQ(st.kind(), ErrorKind::kUnavailable) << st.ToString();
  EXPECT_TRUE(ms->Ping().ok());  // the rule fired once
}

TEST_P(MetastoreConformance, FaultAtTheNthStatementRollsTheTransactionBack) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  auto faults = std::make_shared<MetastoreFaults>();
  ms->SetFaults(faults);
  faults->FailNthStatement(2);
  int calls = 0;
  Status st = ms->RunInTransaction([&](Transaction& tx) -> Status {
    ++calls;
    TARN_RETURN_NOT_OK(tx.Execute("UPDATE counters SET v = 10 WHERE k = 1").status());
    // The injected failure aborts the transaction even when the callback goes on.
    EXPECT_FALSE(tx.Execute("UPDATE counters SET v = 20 WHERE k = 1").ok());
    EXPECT_FALSE(tx.Execute("UPDATE counters SET v = 30 WHERE k = 1").ok());
    return Status::OK();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kUnavailable) << st.ToString();
  EXPECT_EQ(calls, 1);  // not retried
  EXPECT_EQ(faults->faults_injected(), 1u);
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 0);
}

TEST_P(MetastoreConformance, RetryableFaultRunsTheCallbackAgain) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  auto faults = std::make_shared<MetastoreFaults>();
  ms->SetFaults(faults);
  faults->FailNthStatement(2, MetastoreFaults::Retryable(Status::Unavailable("serialization")));
  ASSERT_OK(Increment(*ms));  // attempt 1 fails at its UPDATE, attempt 2 commits
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 1);
  faults->FailNthCommit(1, MetastoreFaults::Retryable(Status::Unavailable("serialization")));
  ASSERT_OK(Increment(*ms));
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 2);
  EXPECT_EQ(faults->faults_injected(), 2u);
}

TEST_P(MetastoreConformance, FaultAtCommitCommitsNothing) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  auto faults = std::make_shared<MetastoreFaults>();
  ms->SetFaults(faults);
  faults->FailNthCommit(1);
  Status st = Increment(*ms);
  EXPECT_EQ(st.kind(), ErrorKind::kUnavailable) << st.ToString();
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 0);
  ASSERT_OK(Increment(*ms));  // the rule fired once; the connection is fine
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 1);
}

TEST_P(MetastoreConformance, LostCommitReplyCommittedOnceAndIsReported) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  auto faults = std::make_shared<MetastoreFaults>();
  ms->SetFaults(faults);
  faults->LoseNthCommitReply(1);
  int calls = 0;
  Status st = ms->RunInTransaction([&](Transaction& tx) -> Status {
    ++calls;
    return tx.Execute("UPDATE counters SET v = v + 1 WHERE k = 1").status();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kUnavailable) << st.ToString();
  EXPECT_EQ(calls, 1);  // never retried: the commit happened
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 1);
  EXPECT_EQ(faults->commits(), 2u);  // that one and QueryInt's
  ms->SetFaults(nullptr);
  ASSERT_OK(Increment(*ms));
  EXPECT_EQ(*QueryInt(*ms, "SELECT v FROM counters WHERE k = 1"), 2);
  EXPECT_EQ(faults->commits(), 2u);  // removed
}

INSTANTIATE_TEST_SUITE_P(Backends, MetastoreConformance, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

// ---- PostgreSQL only ----

class MetastorePostgres : public MetastoreConformance {};

TEST_P(MetastorePostgres, LostConnectionIsUnavailableAndRecovers) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  Status st = ms->RunInTransaction([](Transaction& tx) {
    return tx.Execute("SELECT pg_terminate_backend(pg_backend_pid())").status();
  });
  EXPECT_EQ(st.kind(), ErrorKind::kUnavailable) << st.ToString();
  // The broken connection left the pool: the next transaction gets a fresh one.
  auto n = QueryInt(*ms, "SELECT COUNT(*) FROM workspaces");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0);
}

// A read-only transaction's BEGIN goes with its first statement and its COMMIT is not waited
// for: on one pooled connection, each next transaction (a write, a read of many rows, a failing
// statement) still starts after the previous read-only one ended.
TEST_P(MetastorePostgres, ReadOnlyTransactionsPipelineOnOneConnection) {
  MetastoreOptions options;
  options.max_connections = 1;
  auto ms = Open(options);
  ASSERT_TRUE(ms);
  CreateCounter(*ms);
  for (int i = 1; i <= 20; ++i) {
    auto before = QueryInt(*ms, "SELECT v FROM counters WHERE k = 1");
    ASSERT_TRUE(before.ok()) << before.status().ToString();
    EXPECT_EQ(*before, i - 1);
    // Refused inside a read-only transaction: this runs in a new read-write one.
    ASSERT_OK(ms->RunInTransaction([](Transaction& tx) -> Status {
      return tx.Execute("UPDATE counters SET v = v + 1 WHERE k = 1").status();
    }));
    // A read whose statement fails, then a listing streamed row by row.
    Status bad = ms->RunInTransaction(
        [](Transaction& tx) { return tx.Execute("SELECT no_such_column FROM counters").status(); },
        TxMode::kReadOnly);
    EXPECT_FALSE(bad.ok());
    int64_t rows = 0;
    ASSERT_OK(ms->RunInTransaction(
        [&](Transaction& tx) {
          return tx.QueryEach("SELECT g FROM generate_series(1, 5000) AS g", {},
                              [&](const Row&) -> Status {
                                ++rows;
                                return Status::OK();
                              });
        },
        TxMode::kReadOnly));
    EXPECT_EQ(rows, 5000);
  }
  auto after = QueryInt(*ms, "SELECT v FROM counters WHERE k = 1");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, 20);
}

TEST_P(MetastorePostgres, StalePooledConnectionIsReplaced) {
  auto ms = Open();
  ASSERT_TRUE(ms);
  ASSERT_TRUE(QueryInt(*ms, "SELECT COUNT(*) FROM workspaces").ok());  // a connection now idles
  // Each termination waits (up to 10 s) until the backend is gone.
  PgExec(PgBaseUri(),
         "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
         "WHERE application_name = 'tarn'");
  auto n = QueryInt(*ms, "SELECT COUNT(*) FROM workspaces");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, MetastorePostgres, ::testing::Values("postgres"),
                         [](const auto& info) { return info.param; });

// ---- Backend-independent units ----

TEST(Metastore, RewritesPlaceholdersOutsideLiteralsAndComments) {
  int n = 0;
  EXPECT_EQ(RewritePlaceholders("SELECT ?, '?', \"a?\", ? -- ?\n, /* ? */ ?", &n),
            "SELECT $1, '?', \"a?\", $2 -- ?\n, /* ? */ $3");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(RewritePlaceholders("SELECT 'it''s ?', ?", &n), "SELECT 'it''s ?', $1");
  EXPECT_EQ(n, 1);
  EXPECT_EQ(RewritePlaceholders("SELECT 'unterminated ?", &n), "SELECT 'unterminated ?");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(RewritePlaceholders("/* open ?", &n), "/* open ?");
  EXPECT_EQ(RewritePlaceholders("", &n), "");
}

TEST(Metastore, ExpandsMigrationMacros) {
  EXPECT_EQ(ExpandMigrationSql("a ${ID}, b ${BLOB}, c $1 ${X}", MetastoreBackend::kSqlite),
            "a INTEGER PRIMARY KEY, b BLOB, c $1 ${X}");
  EXPECT_EQ(ExpandMigrationSql("b ${BLOB}", MetastoreBackend::kPostgres), "b BYTEA");
}

TEST(Metastore, SqlValueAccessors) {
  EXPECT_EQ(*SqlValue(3).AsDouble(), 3.0);
  EXPECT_EQ(SqlValue(3.5).AsInt64().status().kind(), ErrorKind::kInternal);
  EXPECT_EQ(*SqlValue::Blob("ab").AsText(), "ab");
  EXPECT_EQ(SqlValue::Blob(std::string("\x00\xff", 2)).DebugString(), "x'00ff'");
  EXPECT_EQ(SqlValue("t").DebugString(), "'t'");
  EXPECT_EQ(SqlValue().DebugString(), "NULL");
  EXPECT_EQ(SqlValue(true), SqlValue(1));
  EXPECT_NE(SqlValue("1"), SqlValue(1));
  EXPECT_NE(SqlValue("ab"), SqlValue::Blob("ab"));
}

TEST(Metastore, OpenErrors) {
  EXPECT_EQ(Metastore::Open("").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(Metastore::Open("/nonexistent-dir-tarn/x/catalog.db").status().kind(),
            ErrorKind::kIOError);
  MetastoreOptions quick;
  quick.pg_connect_timeout_s = 2;
  EXPECT_EQ(Metastore::Open("postgresql://tarn@127.0.0.1:1/none", quick).status().kind(),
            ErrorKind::kUnavailable);
  MetastoreOptions dup;
  dup.migrations = std::vector<Migration>{{1, "a", "SELECT 1"}, {1, "b", "SELECT 1"}};
  auto dir = std::filesystem::temp_directory_path() /
             ("tarn-metastore-open-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_EQ(Metastore::Open((dir / "a.db").string(), dup).status().kind(),
            ErrorKind::kInvalidArgument);
  {
    std::ofstream junk(dir / "junk.db", std::ios::binary);
    junk << std::string(8192, 'x');
  }
  EXPECT_EQ(Metastore::Open((dir / "junk.db").string()).status().kind(), ErrorKind::kCorruption);
  std::filesystem::remove_all(dir);
}

// FNV-1a 64 of a migration's SQL.
uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Released migrations never change: the steps the modules contribute are, byte for byte, the
// ones existing databases were migrated with (the list src/metastore/schema.cc held before the
// tables moved into their modules).
TEST(Schema, ReleasedMigrationsAreUnchanged) {
  struct Released {
    int64_t version;
    const char* name;
    size_t bytes;
    uint64_t fnv;
    size_t sqlite_bytes = 0;  // the step's sqlite_sql, when it has one
    uint64_t sqlite_fnv = 0;
  };
  const std::vector<Released> released = {
      {1, "catalog core", 5298, 0x627bd529bb153e88ULL},
      {2, "datasets at work", 1031, 0xae75c85d43c911f4ULL},
      {3, "access control", 825, 0xccf696d1d1ac78a0ULL},
      {4, "uploads", 745, 0xc5dcbc38823f5da6ULL},
      {5, "file isolation", 263, 0x978d1a70ef9c6087ULL},
      {6, "federation", 367, 0x882d15a5090f4a04ULL},
      {7, "views", 760, 0x3ee097f1407fcd3eULL},
      {8, "materialized views and triggers", 1840, 0x49a756234aead670ULL},
      {9, "incremental refresh and trigger due times", 171, 0x3c3a218db045e996ULL},
      {10, "provenance", 816, 0x04c90ec2c0bf006cULL},
      {11, "alerts", 525, 0x945601e8d93a3f5eULL},
      {12, "periodic runs", 129, 0xb5dfde1ecd85e69fULL},
      {13, "tasks", 437, 0x48ee6b7c45ca85caULL},
      {14, "task windows", 122, 0x4e5a37e3720aa494ULL},
      {15, "row id watermark", 54, 0x035a8b2f64927117ULL},
      {16, "deletion vectors by file", 72, 0xc33e7698b11c59fcULL},
      {17, "deferred statistics", 166, 0x0daf2f5d95f2a81fULL},
      {18, "expiry without foreign-key checks", 296, 0x1868453037a65b1dULL, 2234,
       0x19a9ce0470451d13ULL},
      {19, "bounds index", 427, 0x668569a518644d79ULL},
      {20, "inlined files", 215, 0xa55a2a9100a6951cULL},
  };
  std::vector<Migration> all = SchemaMigrations();
  ASSERT_EQ(all.size(), released.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].version, released[i].version);
    EXPECT_EQ(all[i].name, released[i].name);
    EXPECT_EQ(all[i].sql.size(), released[i].bytes) << all[i].name;
    EXPECT_EQ(Fnv1a(all[i].sql), released[i].fnv) << all[i].name;
    EXPECT_EQ(all[i].sqlite_sql.size(), released[i].sqlite_bytes) << all[i].name;
    if (!all[i].sqlite_sql.empty()) {
      EXPECT_EQ(Fnv1a(all[i].sqlite_sql), released[i].sqlite_fnv) << all[i].name;
    }
  }
  // Each module's own list is what it contributes.
  EXPECT_EQ(catalog_store::CatalogTables().size(), 10u);
  EXPECT_EQ(access_store::AccessTables().size(), 2u);
  EXPECT_EQ(views_store::ViewTables().size(), 5u);
  EXPECT_EQ(upload::internal::UploadTables().size(), 1u);
  EXPECT_EQ(provenance::ProvenanceTables().size(), 1u);
  EXPECT_EQ(alerts::store::AlertTables().size(), 1u);
}

}  // namespace
}  // namespace tarn
