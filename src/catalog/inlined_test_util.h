// What the suites of inlined appends share (inlined_test.cc, housekeeping_flush_test.cc): a
// catalog fixture with readers of a dataset's files, ids and kept bytes. Test-only.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "catalog/test_fixture.h"

namespace tarn {

class InlinedTest : public CollectionTest {
 protected:
  // The live files of `ds` at `at`.
  std::vector<DataFile> Files(const std::string& ds, SnapshotSelector at = {}) {
    std::vector<DataFile> out;
    EXPECT_OK(cat_->PlanFiles(ds, at, "", [&](const PlannedFile& pf) {
      out.push_back(pf.file);
      return Status::OK();
    }));
    return out;
  }
  // The ids (first column, INT64) a scan of `ds` reads.
  std::multiset<int64_t> Ids(const std::string& ds, ScanOptions options = {}) {
    std::multiset<int64_t> ids;
    EXPECT_OK(cat_->Scan(ds, options, [&](const RecordBatch& b) {
      const int64_t* col = b.columns[0].values<int64_t>();
      for (int64_t r = 0; r < b.num_rows; ++r) ids.insert(col[r]);
      return Status::OK();
    }));
    return ids;
  }
  static std::multiset<int64_t> Range(int64_t from, int64_t n) {
    std::multiset<int64_t> out;
    for (int64_t i = from; i < from + n; ++i) out.insert(i);
    return out;
  }
  // Whether the warehouse directory holds an object at `path`.
  bool OnDisk(const std::string& path) {
    return std::filesystem::exists(dir_ / "warehouse" / path);
  }
  // Rows of inlined_files: all of them, or those of `path`.
  int64_t Kept(const std::string& path = "") {
    int64_t n = -1;
    EXPECT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(
          auto row, path.empty()
                        ? tx.QueryOne("SELECT COUNT(*) FROM inlined_files")
                        : tx.QueryOne("SELECT COUNT(*) FROM inlined_files WHERE path = ?", {path}));
      TARN_ASSIGN_OR_RETURN(n, row->Int64(0));
      return Status::OK();
    }));
    return n;
  }
};

}  // namespace tarn
