// Helpers shared by the test suites that run on both metastore backends (the metastore's own
// conformance suite and the catalog's). Test-only: include from *_test.cc files.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tarn::testing_util {

// The PostgreSQL server tests/run_with_pg.sh started, or nullptr (PostgreSQL cases then skip).
inline const char* PgBaseUri() {
  const char* uri = std::getenv("TARN_TEST_PG_URI");
  return uri && *uri ? uri : nullptr;
}

// SQLite files go to tmpfs when there is one: the suites test isolation, not the disk's fsync.
inline std::filesystem::path ScratchDir() {
  if (::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

// The running test's name, lower-cased with non-alphanumerics as '_' (for schema and file names).
inline std::string TestName() {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string out;
  for (char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
               : '_';
  }
  return out;
}

// Runs SQL on the PostgreSQL server directly (test setup only).
inline void PgExec(const std::string& uri, const std::string& sql) {
  PGconn* conn = PQconnectdb(uri.c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  PGresult* res = PQexec(conn, sql.c_str());
  EXPECT_TRUE(PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
      << PQresultErrorMessage(res);
  PQclear(res);
  PQfinish(conn);
}

}  // namespace tarn::testing_util
