// The fixture of the catalog suites that run on both metastore backends: SQLite (files on
// tmpfs when there is one) and PostgreSQL (each test in its own schema of the database at
// $TARN_TEST_PG_URI; skipped when unset). Test-only.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "alerts/alerts.h"
#include "catalog/catalog.h"
#include "common/test_util.h"
#include "metastore/test_util.h"
#include "types/value_text.h"

namespace tarn {

inline std::string FieldOf(const Status& st, const std::string& name) {
  for (const auto& [k, v] : st.fields()) {
    if (k == name) return v;
  }
  return "";
}

class CatalogBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = testing_util::ScratchDir() / ("tarn-catalog-" + std::to_string(::getpid()) + "-" +
                                         GetParam() + "-" + testing_util::TestName());
    std::filesystem::remove_all(dir_);
    if (GetParam() == "sqlite") {
      auto c = Catalog::OpenEmbedded(dir_.string(), clock_);
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      cat_ = std::move(*c);
      return;
    }
    const char* base = testing_util::PgBaseUri();
    if (!base || !*base)
      GTEST_SKIP() << "TARN_TEST_PG_URI not set (run under tests/run_with_pg.sh)";
    std::string schema = "c_" + testing_util::TestName();
    testing_util::PgExec(base,
                         "DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema);
    std::string b = base;
    std::string uri =
        b + (b.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
    auto c = Catalog::Open(uri, (dir_ / "warehouse").string(), clock_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cat_ = std::move(*c);
  }
  void TearDown() override {
    cat_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  // The clock the fixture's catalog reads; a suite may set it in its constructor.
  std::shared_ptr<Clock> clock_ = Clock::Real();
  std::unique_ptr<Catalog> cat_;
};

// A CatalogBackendTest whose catalog starts with workspace `w` and collection `w.c`.
class CollectionTest : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
  }
};

// A CatalogBackendTest whose catalog's alerts go to a temporary file instead of stdout, where
// Alerts() reads them (the cool-off still shared through the catalog's metastore).
class AlertCapturingTest : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    alerts::AlertsConfig config;
    config.stream = alert_file_ = std::tmpfile();
    cat_->SetAlerter(std::make_shared<alerts::Alerter>(&cat_->metastore(), nullptr, config));
  }
  void TearDown() override {
    cat_.reset();
    if (alert_file_) std::fclose(alert_file_);
    CatalogBackendTest::TearDown();
  }
  // Every alert line written so far.
  std::string Alerts() {
    std::fflush(alert_file_);
    std::rewind(alert_file_);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, alert_file_)) > 0) out.append(buf, n);
    return out;
  }
  std::FILE* alert_file_ = nullptr;
};

// A batch of `schema` from rows of canonical text ("" = null).
inline RecordBatch MakeBatch(const Schema& schema,
                             const std::vector<std::vector<std::string>>& rows) {
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  for (const auto& row : rows) {
    for (size_t c = 0; c < schema.fields.size(); ++c) {
      if (row[c].empty()) {
        b.columns[c].AppendNull();
      } else {
        Status st = AppendParsedValue(row[c], &b.columns[c]);
        EXPECT_TRUE(st.ok()) << st.ToString();
      }
    }
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  return b;
}

}  // namespace tarn
