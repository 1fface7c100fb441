// The bounds index (docs/design/catalog-core.md "The bounds index"), on SQLite and PostgreSQL:
// plans through it equal the plans of a dataset without it, file for file, through commits,
// deletes, time travel, paging, the property set late, rollback, expiry, renames, promotions and
// drops; and it prunes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "catalog/catalog.h"
#include "catalog/store.h"
#include "catalog/test_fixture.h"
#include "metastore/metastore.h"
#include "types/iceberg.h"
#include "types/value_text.h"

namespace tarn {
namespace {

constexpr char kSchema[] = "id INT64, name VARCHAR, score FLOAT64, n INT32";
constexpr char kIndexed[] = "id,name,score,n";

CommitMeta Meta() {
  CommitMeta m;
  m.author = "tester";
  m.receipt = Receipt{};
  return m;
}

std::string Enc(const DataType& type, const std::string& text) {
  Column c(type);
  EXPECT_OK(AppendParsedValue(text, &c));
  return EncodeBound(c, 0);
}

class BoundsIndexSuite : public CollectionTest {
 protected:
  void SetUp() override {
    CollectionTest::SetUp();
    if (!cat_) return;
    // a: indexed from its creation; b: indexed after its first commits; plain: never.
    for (const char* name : {"a", "b", "plain"}) {
      DatasetDefinition def;
      def.schema = *Schema::Parse(kSchema);
      if (std::string(name) == "a") def.properties[kBoundsIndexColumnsProperty] = kIndexed;
      ASSERT_TRUE(cat_->CreateDataset(std::string("w.c.") + name, def).ok());
    }
  }

  // A file of random statistics: clustered or wide bounds, some all-null, some without
  // statistics for a field, some with statistics pending; `name` often shares a long prefix.
  DataFile RandomFile(int k) {
    const Schema schema = *Schema::Parse(kSchema);
    DataFile f;
    f.path = "f" + std::to_string(k) + ".parquet";
    f.record_count = 10 + static_cast<int64_t>(rng_() % 100);
    f.file_size_bytes = 1000;
    if (rng_() % 20 == 0) {
      f.stats_pending = true;
      return f;
    }
    for (const Field& field : schema.fields) {
      const uint64_t roll = rng_() % 20;
      if (roll == 0) continue;  // no statistics for this field
      ColumnStats s;
      s.field_id = field.field_id;
      s.value_count = f.record_count;
      if (roll == 1) {  // every value null
        s.null_count = f.record_count;
        f.columns.push_back(s);
        continue;
      }
      s.null_count = roll < 5 ? static_cast<int64_t>(rng_() % 5) : 0;
      const int64_t lo = static_cast<int64_t>(rng_() % 10'000) - 100;
      const int64_t hi = lo + (roll == 2 ? static_cast<int64_t>(rng_() % 10'000)
                                         : static_cast<int64_t>(rng_() % 40));
      if (field.name == "name") {
        auto text = [&](int64_t v) {
          char buf[32];
          std::snprintf(buf, sizeof buf, roll % 2 ? "order-%05lld" : "%lld",
                        static_cast<long long>(v));
          return std::string(buf);
        };
        std::string a = text(lo), b = text(hi);
        if (a > b) std::swap(a, b);
        s.lower = Enc(field.type, a);
        s.upper = Enc(field.type, b);
      } else if (field.name == "score") {
        s.nan_count = roll == 3 ? 2 : 0;
        s.lower = Enc(field.type, std::to_string(lo / 8.0));
        s.upper = Enc(field.type, std::to_string(hi / 8.0));
      } else {
        s.lower = Enc(field.type, std::to_string(lo));
        s.upper = Enc(field.type, std::to_string(hi));
      }
      f.columns.push_back(s);
    }
    return f;
  }

  // The same files (paths under each dataset's own folder) committed to each dataset.
  void AddToAll(int count) {
    std::vector<DataFile> files;
    for (int i = 0; i < count; ++i) files.push_back(RandomFile(next_file_++));
    for (const char* name : {"a", "b", "plain"}) {
      DatasetCommit part;
      part.dataset = std::string("w.c.") + name;
      part.operation = CommitOperation::kAddFiles;
      part.meta = Meta();
      for (DataFile f : files) {
        f.path = std::string("ext/") + name + "/" + f.path;
        part.added.push_back(std::move(f));
      }
      ASSERT_OK(cat_->CommitWritten({std::move(part)}).status());
    }
  }

  void RemoveFromAll(const std::vector<int>& ks) {
    for (const char* name : {"a", "b", "plain"}) {
      DatasetCommit part;
      part.dataset = std::string("w.c.") + name;
      part.operation = CommitOperation::kDeleteFiles;
      part.meta = Meta();
      for (int k : ks) {
        part.removed_paths.push_back(std::string("ext/") + name + "/f" + std::to_string(k) +
                                     ".parquet");
      }
      ASSERT_OK(cat_->CommitWritten({std::move(part)}).status());
    }
  }

  // The planned files' names (without the dataset's folder), sorted.
  std::vector<std::string> Plan(const std::string& name, const std::string& where,
                                std::optional<int64_t> at = std::nullopt,
                                std::optional<int64_t> page = std::nullopt) {
    SnapshotSelector sel;
    sel.snapshot_id = at;
    std::vector<std::string> out;
    FileQuery q;
    q.limit = page;
    while (true) {
      size_t got = 0;
      Status st = cat_->PlanFiles("w.c." + name, sel, where, q, [&](const PlannedFile& f) {
        out.push_back(f.file.path.substr(f.file.path.rfind('/') + 1));
        q.after = f.file.path;
        ++got;
        return Status::OK();
      });
      EXPECT_OK(st) << where;
      if (!page || got < static_cast<size_t>(*page) || !st.ok()) break;
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Every predicate planned the same on each dataset; returns how many files it kept on
  // `plain` summed over them (so a caller sees the predicates select something).
  int64_t ExpectSamePlans(const std::vector<std::string>& wheres,
                          std::optional<int64_t> at = std::nullopt) {
    int64_t kept = 0;
    for (const std::string& w : wheres) {
      const std::vector<std::string> want = Plan("plain", w, at);
      kept += static_cast<int64_t>(want.size());
      EXPECT_EQ(Plan("a", w, at), want) << w;
      EXPECT_EQ(Plan("b", w, at), want) << w;
    }
    return kept;
  }

  int64_t Count(const std::string& sql) {
    int64_t n = -1;
    EXPECT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(sql));
      TARN_ASSIGN_OR_RETURN(n, row->Int64(0));
      return Status::OK();
    }));
    return n;
  }

  // The bounds index's candidates for `where` on dataset `name`'s field `field`.
  std::optional<size_t> Candidates(const std::string& name, const std::string& where,
                                   const std::string& column) {
    auto ds = cat_->LoadDataset("w.c." + name);
    EXPECT_TRUE(ds.ok());
    auto pred = ParseAndBindPredicate(where, ds->schema);
    EXPECT_TRUE(pred.ok());
    const Field* field = &ds->schema.fields[ds->schema.FieldIndex(column)];
    auto confined = bounds_index::Confine(*pred, field->field_id);
    if (!confined) return std::nullopt;
    std::optional<size_t> out;
    EXPECT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(auto ids, catalog_store::BoundsCandidates(tx, ds->id, field->field_id,
                                                                      *confined, 1'000'000));
      if (ids) out = ids->size();
      return Status::OK();
    }));
    return out;
  }

  std::mt19937_64 rng_{42};
  int next_file_ = 0;
};

const std::vector<std::string> kWheres = {
    "id = 500",
    "id >= 1000 AND id < 1100",
    "id > 9800",
    "id < -50",
    "id IN (5, 3000, 7777)",
    "id < 100 OR id > 9900",
    "NOT (id >= 40)",
    "id = 5 OR id IS NULL",
    "id >= 200 AND id <= 260 AND n > 5000",
    "id = 4000 OR name = 'x'",
    "name = 'order-00500'",
    "name >= 'order-01000' AND name < 'order-01100'",
    "name >= '500' AND name < '6'",
    "score >= 100.5 AND score < 110",
    "score > 1200",
    "n >= 7000 AND n <= 7040",
    "n IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 4000)",
    "score <> 3",
};

TEST_P(BoundsIndexSuite, PlansEqualThoseWithoutTheIndexAndPrune) {
  for (int i = 0; i < 4; ++i) AddToAll(60);
  RemoveFromAll({1, 2, 3, 50, 61, 62, 200});
  // b joins now: its index is built over the files it holds (live and removed).
  ASSERT_OK(cat_->SetDatasetProperties("w.c.b", {{kBoundsIndexColumnsProperty, kIndexed}}));
  AddToAll(60);
  EXPECT_GT(ExpectSamePlans(kWheres), 0);
  // Time travel: before the removals and before b's index existed.
  EXPECT_GT(ExpectSamePlans(kWheres, 3), 0);
  // What no row can satisfy plans nothing (the statistics alone keep files whose bounds hold
  // either value).
  EXPECT_FALSE(Plan("plain", "id = 5 AND id = 6").empty());
  EXPECT_TRUE(Plan("a", "id = 5 AND id = 6").empty());
  // Pages of a plan are the plan.
  for (const std::string w : {"id >= 1000 AND id < 3000", "name >= 'order-0'"}) {
    EXPECT_EQ(Plan("a", w, std::nullopt, 3), Plan("plain", w)) << w;
  }
  // It prunes: a narrow range of id leaves a few candidates of 300 file rows.
  const std::optional<size_t> few = Candidates("a", "id >= 1000 AND id < 1010", "id");
  ASSERT_TRUE(few);
  EXPECT_LT(*few, 60u);
  EXPECT_GT(*few, 0u);
  EXPECT_EQ(Candidates("b", "id >= 1000 AND id < 1010", "id"), few);
  EXPECT_FALSE(Candidates("a", "id >= 1000 OR id IS NULL", "id"));
  EXPECT_EQ(Count("SELECT COUNT(*) FROM file_bounds b JOIN datasets d ON d.id = b.dataset_id "
                  "WHERE d.name = 'plain'"),
            0);

  // Rollback restores file rows as new rows: they carry their entries.
  ASSERT_OK(cat_->Rollback("w.c.a", 2, Meta()).status());
  ASSERT_OK(cat_->Rollback("w.c.b", 2, Meta()).status());
  ASSERT_OK(cat_->Rollback("w.c.plain", 2, Meta()).status());
  EXPECT_GT(ExpectSamePlans(kWheres), 0);

  // Expiry takes the entries of the file rows it deletes with them.
  ExpiryOptions expire;
  expire.older_than_us = INT64_MAX;
  for (const char* name : {"a", "b", "plain"}) {
    ASSERT_OK(cat_->ExpireSnapshots(std::string("w.c.") + name, expire).status());
  }
  EXPECT_GT(ExpectSamePlans(kWheres), 0);
  EXPECT_EQ(Count("SELECT COUNT(*) FROM file_bounds b WHERE NOT EXISTS (SELECT 1 FROM "
                  "data_files f WHERE f.id = b.data_file_id)"),
            0);
  EXPECT_GT(Count("SELECT COUNT(*) FROM file_bounds"), 0);
}

TEST_P(BoundsIndexSuite, FollowsRenamesPromotionsAndDrops) {
  for (int i = 0; i < 3; ++i) AddToAll(50);
  ASSERT_OK(cat_->SetDatasetProperties("w.c.b", {{kBoundsIndexColumnsProperty, kIndexed}}));
  for (const char* name : {"a", "b", "plain"}) {
    auto ds =
        cat_->AlterSchema(std::string("w.c.") + name, {*ParseSchemaChange("rename id TO ident"),
                                                       *ParseSchemaChange("promote n INT64"),
                                                       *ParseSchemaChange("drop score")});
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    if (std::string(name) != "plain") {
      EXPECT_EQ(ds->properties.at(kBoundsIndexColumnsProperty), "ident,name,n");
    }
  }
  AddToAll(20);  // files of the old shape, committed under the new schema
  const std::vector<std::string> wheres = {
      "ident >= 1000 AND ident < 1200", "ident = 77",  "n > 9000", "n < 3000000000",
      "n >= 500 AND n <= 520",          "name = '700'"};
  EXPECT_GT(ExpectSamePlans(wheres), 0);
  const std::optional<size_t> few = Candidates("a", "n >= 500 AND n <= 520", "n");
  ASSERT_TRUE(few);
  EXPECT_LT(*few, 60u);

  // Taken off: its rows go, and plans stay the same.
  ASSERT_OK(cat_->SetDatasetProperties("w.c.a", {}, {kBoundsIndexColumnsProperty}));
  EXPECT_EQ(Count("SELECT COUNT(*) FROM file_bounds b JOIN datasets d ON d.id = b.dataset_id "
                  "WHERE d.name = 'a'"),
            0);
  EXPECT_GT(ExpectSamePlans(wheres), 0);
}

TEST_P(BoundsIndexSuite, TheSettingIsChecked) {
  for (const std::string bad : {"nope", "id,nope", "score.x"}) {
    Status st = cat_->SetDatasetProperties("w.c.plain", {{kBoundsIndexColumnsProperty, bad}});
    EXPECT_EQ(FieldOf(st, "code"), "invalid_property") << bad;
    EXPECT_EQ(FieldOf(st, "property"), kBoundsIndexColumnsProperty) << bad;
  }
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64, tags ARRAY<INT64>, v VARIANT");
  for (const std::string bad : {"tags", "v"}) {
    def.properties[kBoundsIndexColumnsProperty] = bad;
    EXPECT_EQ(FieldOf(cat_->CreateDataset("w.c.n", def).status(), "code"), "invalid_property");
  }
  def.properties[kBoundsIndexColumnsProperty] = " id ";
  EXPECT_TRUE(cat_->CreateDataset("w.c.n", def).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, BoundsIndexSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn
