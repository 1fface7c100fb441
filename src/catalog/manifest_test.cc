// Manifest export (C12): the manifest of a snapshot against PlanFiles at that snapshot, field by
// field (read back with tarn's Parquet reader); selectors and errors; manifest.on_commit (a
// manifest per new snapshot, a failed write alerted and counted while the commit stands); the
// orphan rule and Cleanup for manifests. SQLite and PostgreSQL (test_fixture.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "catalog/catalog.h"
#include "catalog/test_fixture.h"
#include "datafile/reader.h"
#include "objectstore/fault/fault_store.h"
#include "objectstore/object_store.h"
#include "parquet/reader.h"
#include "table/deletion_vector.h"
#include "table/schema_json.h"
#include "types/iceberg.h"
#include "types/value_text.h"

namespace tarn {
namespace {

using nlohmann::json;

std::vector<RecordBatch> One(RecordBatch b) {
  std::vector<RecordBatch> v;
  v.push_back(std::move(b));
  return v;
}

CommitMeta Meta() {
  CommitMeta m;
  m.author = "tester";
  m.receipt = Receipt{};  // a hand-run commit that read nothing
  return m;
}

SnapshotSelector At(int64_t id) {
  SnapshotSelector s;
  s.snapshot_id = id;
  return s;
}

// A manifest read back: its rows by path, and its footer's key-value metadata.
struct Manifest {
  std::vector<std::string> columns;  // names, in order
  std::vector<std::string> types;
  std::map<std::string, json> rows;  // path -> {column: value}
  std::map<std::string, std::string> meta;
  int64_t num_rows = 0;
};

json CellJson(const Column& col, int64_t row) {
  if (!col.IsValid(row)) return nullptr;
  switch (col.type.id()) {
    case TypeId::kJson: {
      json j = json::parse(col.StringAt(row), nullptr, false);
      EXPECT_FALSE(j.is_discarded()) << col.StringAt(row);
      return j;
    }
    case TypeId::kVarchar:
      return std::string(col.StringAt(row));
    case TypeId::kInt32:
      return col.Value<int32_t>(row);
    case TypeId::kInt64:
      return col.Value<int64_t>(row);
    case TypeId::kBoolean:
      return col.Value<uint8_t>(row) != 0;
    case TypeId::kArray: {
      json out = json::array();
      for (int64_t i = col.offsets[row]; i < col.offsets[row + 1]; ++i) {
        out.push_back(col.child->Value<int64_t>(i));
      }
      return out;
    }
    default:
      ADD_FAILURE() << "unexpected manifest column type " << col.type.ToString();
      return nullptr;
  }
}

Manifest ReadManifest(const std::string& bytes) {
  Manifest m;
  auto reader = parquet::FileReader::Open(MemoryFile(bytes));
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return m;
  for (const auto& kv : (*reader)->metadata().key_value_metadata) {
    m.meta[kv.key] = kv.value.value_or("");
  }
  auto batch = (*reader)->ReadAll();
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  if (!batch.ok()) return m;
  m.num_rows = batch->num_rows;
  for (const Field& f : batch->schema.fields) {
    m.columns.push_back(f.name);
    m.types.push_back(f.type.ToString() + (f.nullable ? "" : " NOT NULL"));
  }
  for (int64_t r = 0; r < batch->num_rows; ++r) {
    json row = json::object();
    for (size_t c = 0; c < batch->columns.size(); ++c) {
      row[m.columns[c]] = CellJson(batch->columns[c], r);
    }
    m.rows[row["path"].get<std::string>()] = row;
  }
  return m;
}

// What the manifest row of `f` must say (docs/design/maintenance.md "Manifest export").
json ExpectedRow(const PlannedFile& pf, const Schema& schema, const PartitionSpec& spec) {
  const DataFile& f = pf.file;
  json partition = nullptr;
  if (!f.partition.empty()) {
    partition = json::object();
    for (size_t i = 0; i < f.partition.size(); ++i) {
      partition[spec.fields[i].name] = f.partition[i] ? json(*f.partition[i]) : json(nullptr);
    }
  }
  json stats = json::object();
  Field row_id;  // the stored row id column of a file compaction wrote
  row_id.name = "_tarn_row_id";
  row_id.type = DataType::Int64();
  for (const ColumnStats& st : f.columns) {
    const Field* field = FindFieldById(schema, st.field_id);
    if (field == nullptr && st.field_id == kRowIdFieldId) field = &row_id;
    if (field == nullptr) continue;
    auto text = [&](const std::optional<std::string>& b) -> json {
      if (!b) return nullptr;
      auto col = DecodeBound(field->type, *b);
      EXPECT_TRUE(col.ok()) << col.status().ToString();
      return col.ok() ? json(ValueText(*col, 0)) : json(nullptr);
    };
    stats[field->name] = {{"field_id", st.field_id},
                          {"type", field->type.ToString()},
                          {"value_count", st.value_count},
                          {"null_count", st.null_count},
                          {"nan_count", st.nan_count ? json(*st.nan_count) : json(nullptr)},
                          {"lower", text(st.lower)},
                          {"upper", text(st.upper)}};
  }
  json positions = nullptr;
  if (pf.deletion_vector) {
    positions = json::array();
    auto decoded = DecodeDeletionVector(*pf.deletion_vector);
    EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
    for (uint64_t p : decoded.ValueOr({})) positions.push_back(static_cast<int64_t>(p));
  }
  auto range = f.RowIdRange();
  return {{"path", f.path},
          {"file_format", f.format},
          {"record_count", f.record_count},
          {"file_size_bytes", f.file_size_bytes},
          {"spec_id", f.spec_id},
          {"partition", partition},
          {"added_snapshot_id", f.added_snapshot_id},
          {"first_row_id", range ? json(range->first) : json(nullptr)},
          {"last_row_id", range ? json(range->second) : json(nullptr)},
          {"row_ids_stored", f.StoresRowIds()},
          {"deleted_rows", pf.deleted_rows},
          {"deleted_positions", positions},
          {"column_stats", stats},
          {"stats_state", f.stats_pending ? "pending" : "complete"}};
}

class ManifestSuite : public AlertCapturingTest {
 protected:
  void SetUp() override {
    AlertCapturingTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    DatasetDefinition def;
    def.schema = *Schema::Parse(
        "id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2), score FLOAT64, ts "
        "TIMESTAMP[us]");
    def.partition_spec = "region";
    auto d = cat_->CreateDataset("w.c.t", def);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ds_ = *d;
  }

  SnapshotInfo Append(const std::vector<std::vector<std::string>>& rows, Catalog* cat = nullptr) {
    auto ds = cat_->LoadDataset("w.c.t");
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    auto s = (cat ? cat : cat_.get())->Append("w.c.t", One(MakeBatch(ds->schema, rows)), Meta());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? *s : SnapshotInfo();
  }

  // The manifest's bytes and what the export said of them.
  Result<std::pair<std::string, ManifestInfo>> Export(const SnapshotSelector& at,
                                                      const std::string& name = "w.c.t") {
    std::string bytes;
    TARN_ASSIGN_OR_RETURN(auto info, cat_->ExportManifest(name, at, [&](std::string_view b) {
      bytes.append(b);
      return Status::OK();
    }));
    return std::make_pair(std::move(bytes), std::move(info));
  }

  std::vector<PlannedFile> Files(const SnapshotSelector& at) {
    std::vector<PlannedFile> out;
    Status st = cat_->PlanFiles("w.c.t", at, "", [&](const PlannedFile& f) {
      out.push_back(f);
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }

  // Checks the manifest at `at` row by row against PlanFiles at `at`; returns it.
  Manifest CheckAgainstPlan(const SnapshotSelector& at, int64_t snapshot_id) {
    auto exported = Export(at);
    EXPECT_TRUE(exported.ok()) << exported.status().ToString();
    if (!exported.ok()) return {};
    const auto& [bytes, info] = *exported;
    Manifest m = ReadManifest(bytes);
    auto ds = cat_->LoadDataset("w.c.t", At(snapshot_id));
    EXPECT_TRUE(ds.ok());
    auto files = Files(At(snapshot_id));
    EXPECT_EQ(info.dataset, "w.c.t");
    EXPECT_EQ(info.dataset_uuid, ds_.uuid);
    EXPECT_EQ(info.snapshot_id, snapshot_id);
    EXPECT_EQ(info.files, static_cast<int64_t>(files.size()));
    EXPECT_EQ(info.bytes, static_cast<int64_t>(bytes.size()));
    EXPECT_EQ(m.num_rows, static_cast<int64_t>(files.size()));
    EXPECT_EQ(m.meta["tarn.manifest.version"], "2");
    EXPECT_EQ(m.meta["tarn.dataset"], "w.c.t");
    EXPECT_EQ(m.meta["tarn.dataset_uuid"], ds_.uuid);
    EXPECT_EQ(m.meta["tarn.snapshot_id"], std::to_string(snapshot_id));
    EXPECT_EQ(m.meta["tarn.dataset_schema"], SchemaToJson(ds->schema));
    for (const PlannedFile& pf : files) {
      auto it = m.rows.find(pf.file.path);
      if (it == m.rows.end()) {
        ADD_FAILURE() << pf.file.path << " is not in the manifest of " << snapshot_id;
        continue;
      }
      json got = it->second;
      // The id of a deletion vector is the catalog's: present exactly when there is one.
      EXPECT_EQ(got["deletion_vector_id"].is_null(), !pf.deletion_vector) << pf.file.path;
      got.erase("deletion_vector_id");
      EXPECT_EQ(got, ExpectedRow(pf, ds->schema, ds->spec)) << "snapshot " << snapshot_id;
    }
    return m;
  }

  bool Exists(const std::string& key) { return cat_->warehouse().Head(key).ok(); }

  DatasetInfo ds_;
};

TEST_P(ManifestSuite, EverySnapshotsManifestIsItsPlan) {
  Append({{"1", "eu", "10.50", "1.5", "2026-01-05 10:00:00"},
          {"2", "us", "20.00", "NaN", "2026-01-20 11:30:00"},
          {"3", "eu", "", "-1", ""}});
  Append({{"4", "", "7.77", "0.5", "2026-02-14 09:15:00.123456"}, {"5", "us", "1.00", "", ""}});
  auto del = cat_->DeleteRows("w.c.t", "id = 1 OR id = 5", Meta());
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  ASSERT_EQ(del->snapshot_id, 3);

  Manifest m1 = CheckAgainstPlan(At(1), 1);
  EXPECT_EQ(m1.num_rows, 2);  // eu, us
  EXPECT_EQ(m1.columns, (std::vector<std::string>{
                            "path", "file_format", "record_count", "file_size_bytes", "spec_id",
                            "partition", "added_snapshot_id", "first_row_id", "last_row_id",
                            "row_ids_stored", "deletion_vector_id", "deleted_rows",
                            "deleted_positions", "column_stats", "stats_state"}));
  EXPECT_EQ(m1.types, (std::vector<std::string>{
                          "VARCHAR NOT NULL", "VARCHAR NOT NULL", "INT64 NOT NULL",
                          "INT64 NOT NULL", "INT32 NOT NULL", "JSON", "INT64 NOT NULL", "INT64",
                          "INT64", "BOOLEAN NOT NULL", "INT64", "INT64 NOT NULL",
                          "ARRAY<INT64 NOT NULL>", "JSON NOT NULL", "VARCHAR NOT NULL"}));
  CheckAgainstPlan(At(2), 2);
  Manifest m3 = CheckAgainstPlan({}, 3);
  // eu, us (snapshot 1), null region; the us file of snapshot 2 went with its only row.
  EXPECT_EQ(m3.num_rows, 3);

  // Spelled out for one file, so the comparison above cannot agree with itself by accident:
  // the eu file of snapshot 1 holds ids 1 and 3 (two consecutive row ids), and id 1 (position
  // 0) is deleted.
  const json* eu = nullptr;
  for (const auto& [path, row] : m3.rows) {
    if (row["partition"] == json{{"region", "eu"}}) eu = &row;
  }
  ASSERT_NE(eu, nullptr);
  EXPECT_EQ((*eu)["record_count"], 2);
  EXPECT_EQ((*eu)["added_snapshot_id"], 1);
  EXPECT_EQ((*eu)["deleted_rows"], 1);
  EXPECT_EQ((*eu)["deleted_positions"], json::array({0}));
  EXPECT_FALSE((*eu)["deletion_vector_id"].is_null());
  EXPECT_EQ((*eu)["row_ids_stored"], false);
  EXPECT_EQ((*eu)["last_row_id"].get<int64_t>() - (*eu)["first_row_id"].get<int64_t>(), 1);
  const json& stats = (*eu)["column_stats"];
  EXPECT_EQ(stats["id"]["lower"], "1");
  EXPECT_EQ(stats["id"]["upper"], "3");
  EXPECT_EQ(stats["amount"]["null_count"], 1);
  EXPECT_EQ(stats["amount"]["lower"], "10.50");
  EXPECT_EQ(stats["ts"]["lower"], "2026-01-05T10:00:00");
  EXPECT_EQ(stats["score"]["nan_count"], 0);
  EXPECT_EQ(stats["region"]["type"], "VARCHAR");
  // The us file of snapshot 1 counts its NaN; a null partition value is a JSON null.
  int us1 = 0, null_region = 0;
  for (const auto& [path, row] : m3.rows) {
    if (row["partition"] == json{{"region", "us"}} && row["added_snapshot_id"] == 1) {
      ++us1;
      EXPECT_EQ(row["column_stats"]["score"]["nan_count"], 1);
      EXPECT_TRUE(row["column_stats"]["score"]["lower"].is_null());  // NaN is never a bound
      EXPECT_TRUE(row["deleted_positions"].is_null());
      EXPECT_TRUE(row["deletion_vector_id"].is_null());
      EXPECT_EQ(row["deleted_rows"], 0);
    }
    if (row["partition"] == json{{"region", nullptr}}) ++null_region;
  }
  EXPECT_EQ(us1, 1);
  EXPECT_EQ(null_region, 1);

  // Schema changes: a snapshot's manifest names columns as that snapshot did.
  SchemaChange rename;
  rename.kind = SchemaChange::Kind::kRenameColumn;
  rename.column = "score";
  rename.new_name = "rating";
  ASSERT_TRUE(cat_->AlterSchema("w.c.t", {rename}).ok());
  Append({{"6", "eu", "2.00", "4", ""}});
  Manifest m4 = CheckAgainstPlan({}, 4);
  for (const auto& [path, row] : m4.rows) {
    EXPECT_TRUE(row["column_stats"].contains("rating")) << path;
    EXPECT_FALSE(row["column_stats"].contains("score")) << path;
  }
  EXPECT_TRUE(CheckAgainstPlan(At(3), 3).rows.begin()->second["column_stats"].contains("score"));
}

TEST_P(ManifestSuite, SelectorsAndErrors) {
  Append({{"1", "eu", "1.00", "1", ""}});
  Append({{"2", "us", "2.00", "2", ""}});
  ASSERT_OK(cat_->CreateTag("w.c.t", "first", At(1)));
  SnapshotSelector tag;
  tag.tag = "first";
  auto t = Export(tag);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->second.snapshot_id, 1);
  EXPECT_EQ(ReadManifest(t->first).num_rows, 1);
  SnapshotSelector previous;
  previous.tag = "previous";
  EXPECT_EQ(Export(previous)->second.snapshot_id, 1);
  SnapshotSelector time;
  time.at_time_us = cat_->clock().NowMicros();
  EXPECT_EQ(Export(time)->second.snapshot_id, 2);

  EXPECT_EQ(FieldOf(Export(At(99)).status(), "code"), "snapshot_not_found");
  SnapshotSelector missing_tag;
  missing_tag.tag = "nope";
  EXPECT_EQ(FieldOf(Export(missing_tag).status(), "code"), "tag_not_found");
  EXPECT_EQ(FieldOf(Export({}, "w.c.none").status(), "code"), "dataset_not_found");
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat_->CreateDataset("w.c.empty", def).ok());
  auto empty = Export({}, "w.c.empty");
  EXPECT_EQ(empty.status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(empty.status(), "code"), "snapshot_not_found");

  // The writer's error stops the export and is what it returns.
  auto st = cat_->ExportManifest("w.c.t", {},
                                 [](std::string_view) { return Status::IOError("disk full"); });
  EXPECT_EQ(st.status().kind(), ErrorKind::kIOError);
  EXPECT_NE(st.status().message().find("disk full"), std::string::npos);
}

TEST_P(ManifestSuite, OnCommitWritesTheManifestOfEveryNewSnapshot) {
  const auto s1 = Append({{"1", "eu", "1.00", "1", ""}, {"2", "us", "2.00", "2", ""}});
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, s1.snapshot_id)));  // off by default
  auto listed = cat_->warehouse().List("datasets/" + ds_.uuid + "/manifests/", "", 100);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->objects.empty());

  // Only true and false are values.
  for (const char* bad : {"yes", "1", "on", ""}) {
    Status st = cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, bad}});
    EXPECT_EQ(FieldOf(st, "code"), "invalid_property") << bad;
    EXPECT_EQ(FieldOf(st, "property"), kManifestOnCommitProperty) << bad;
  }
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  def.properties = {{kManifestOnCommitProperty, "maybe"}};
  EXPECT_EQ(FieldOf(cat_->CreateDataset("w.c.bad", def).status(), "code"), "invalid_property");

  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "TRUE"}}));
  const auto s2 = Append({{"3", "eu", "3.00", "3", ""}});
  auto s3 = cat_->DeleteRows("w.c.t", "id = 1", Meta());
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();
  // A rename since does not change where the manifests go: the dataset's uuid names them.
  ASSERT_OK(cat_->RenameDataset("w.c.t", "t2"));
  auto s4 = cat_->Rollback("w.c.t2", s2.snapshot_id, Meta());
  ASSERT_TRUE(s4.ok()) << s4.status().ToString();
  ASSERT_OK(cat_->RenameDataset("w.c.t2", "t"));
  for (int64_t id : {s2.snapshot_id, s3->snapshot_id, s4->snapshot_id}) {
    const std::string key = ManifestKey(ds_.uuid, id);
    auto stored = cat_->warehouse().Get(key);
    ASSERT_TRUE(stored.ok()) << key << ": " << stored.status().ToString();
    auto exported = Export(At(id));
    ASSERT_TRUE(exported.ok()) << exported.status().ToString();
    Manifest a = ReadManifest(*stored), b = ReadManifest(exported->first);
    EXPECT_EQ(a.rows, b.rows) << key;
    EXPECT_EQ(a.meta["tarn.snapshot_id"], std::to_string(id));
    EXPECT_EQ(a.num_rows, static_cast<int64_t>(Files(At(id)).size()));
  }
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, s1.snapshot_id)));  // committed before it was on
  EXPECT_EQ(cat_->manifest_write_failures(), 0);

  // A keyed retry is answered with the first commit's snapshot and writes nothing new.
  CommitMeta keyed = Meta();
  keyed.idempotency_key = "k1";
  auto ds = cat_->LoadDataset("w.c.t");
  auto k1 = cat_->Append("w.c.t", One(MakeBatch(ds->schema, {{"9", "eu", "", "", ""}})), keyed);
  ASSERT_TRUE(k1.ok());
  ASSERT_TRUE(cat_->warehouse().Delete(ManifestKey(ds_.uuid, k1->snapshot_id)).ok());
  auto k2 = cat_->Append("w.c.t", One(MakeBatch(ds->schema, {{"9", "eu", "", "", ""}})), keyed);
  ASSERT_TRUE(k2.ok());
  EXPECT_TRUE(k2->idempotent_replay);
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, k1->snapshot_id)));

  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "false"}}));
  const auto s6 = Append({{"4", "us", "", "", ""}});
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, s6.snapshot_id)));
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {}, {kManifestOnCommitProperty}));
  const auto s7 = Append({{"5", "us", "", "", ""}});
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, s7.snapshot_id)));
}

// Files compaction wrote store their rows' ids: their range comes from the stored column's
// bounds, which the statistics show as _tarn_row_id.
TEST_P(ManifestSuite, FilesCompactionWroteCarryTheirStoredRowIds) {
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "true"}}));
  for (int i = 0; i < 3; ++i) {
    const std::string a = std::to_string(2 * i + 1), b = std::to_string(2 * i + 2);
    Append({{a, "eu", "1.00", "1", ""}, {b, "us", "2.00", "2", ""}});
  }
  ASSERT_TRUE(cat_->DeleteRows("w.c.t", "id = 3", Meta()).ok());
  auto compacted = cat_->Compact("w.c.t", {}, Meta());
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ASSERT_TRUE(compacted->snapshot_id);
  const int64_t snap = *compacted->snapshot_id;
  Manifest m = CheckAgainstPlan({}, snap);
  ASSERT_EQ(m.num_rows, 2);  // one file per partition
  std::set<int64_t> ids;
  for (const auto& [path, row] : m.rows) {
    EXPECT_EQ(row["row_ids_stored"], true) << path;
    const json& stored = row["column_stats"]["_tarn_row_id"];
    EXPECT_EQ(stored["field_id"], kRowIdFieldId);
    EXPECT_EQ(stored["lower"], std::to_string(row["first_row_id"].get<int64_t>()));
    EXPECT_EQ(stored["upper"], std::to_string(row["last_row_id"].get<int64_t>()));
    EXPECT_TRUE(row["deleted_positions"].is_null()) << "compaction applied the delete";
    for (int64_t id = row["first_row_id"]; id <= row["last_row_id"]; ++id) ids.insert(id);
  }
  // The two ranges span the six row ids the appends handed out (the eu file's with a gap where
  // the deleted row's was).
  EXPECT_EQ(ids, (std::set<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(Exists(ManifestKey(ds_.uuid, snap)));  // compaction commits get manifests too
}

// Thousands of files: the rows go to the writer in batches and leave it a row group at a time
// (8,192 files), which bounds the export's memory.
TEST_P(ManifestSuite, ManyFilesAreWrittenARowGroupAtATime) {
  DatasetCommit part;
  part.dataset = "w.c.t";
  part.operation = CommitOperation::kAppend;
  part.meta = Meta();
  for (int i = 0; i < 10000; ++i) {
    DataFile f;
    f.path = "datasets/" + ds_.uuid + "/data/region=eu/f" + std::to_string(i) + ".parquet";
    f.record_count = 1 + i % 7;
    f.file_size_bytes = 1000 + i;
    f.partition = {std::string("eu")};
    ColumnStats id;
    id.field_id = 1;
    id.value_count = f.record_count;
    std::string lo(8, '\0'), hi(8, '\0');
    int64_t v = i, w = i + 6;
    std::memcpy(lo.data(), &v, 8);
    std::memcpy(hi.data(), &w, 8);
    id.lower = lo;
    id.upper = hi;
    f.columns.push_back(id);
    part.added.push_back(std::move(f));
  }
  auto committed = cat_->CommitWritten({std::move(part)});
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  std::string bytes;
  auto info = cat_->ExportManifest("w.c.t", {}, [&](std::string_view b) {
    bytes.append(b);
    return Status::OK();
  });
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->files, 10000);
  EXPECT_EQ(info->bytes, static_cast<int64_t>(bytes.size()));
  auto reader = parquet::FileReader::Open(MemoryFile(bytes));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->num_row_groups(), 2);
  Manifest m = ReadManifest(bytes);
  ASSERT_EQ(m.num_rows, 10000);
  const json& row = m.rows.at("datasets/" + ds_.uuid + "/data/region=eu/f1234.parquet");
  EXPECT_EQ(row["record_count"], 1 + 1234 % 7);
  EXPECT_EQ(row["column_stats"]["id"]["lower"], "1234");
  EXPECT_EQ(row["column_stats"]["id"]["upper"], "1240");
  EXPECT_EQ(row["last_row_id"].get<int64_t>() - row["first_row_id"].get<int64_t>(), 1234 % 7);
}

TEST_P(ManifestSuite, AFailedManifestWriteIsAlertedAndCountedWhileTheCommitStands) {
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "true"}}));
  Append({{"1", "eu", "1.00", "1", ""}, {"2", "us", "2.00", "2", ""}});
  ASSERT_TRUE(Exists(ManifestKey(ds_.uuid, 1)));
  // A second catalog on the same metastore whose warehouse refuses to open writers.
  auto base = OpenObjectStore((dir_ / "warehouse").string());
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  auto faulty = std::make_shared<FaultInjectingObjectStore>(*base);
  auto other = Catalog::Open(cat_->metastore().uri(), faulty, clock_);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  alerts::AlertsConfig config;
  config.stream = alert_file_;
  (*other)->SetAlerter(std::make_shared<alerts::Alerter>(&(*other)->metastore(), nullptr, config));

  faulty->FailAll(ObjectOp::kOpenWrite, Status::Unavailable("the store is down"));
  auto del = (*other)->DeleteRows("w.c.t", "id = 1", Meta());
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->snapshot_id, 2);
  EXPECT_EQ(cat_->LoadDataset("w.c.t")->current_snapshot_id.value_or(0), 2);
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, 2)));
  EXPECT_EQ((*other)->manifest_write_failures(), 1);
  EXPECT_GT(faulty->faults_injected(), 0u);
  std::string alerts = Alerts();
  EXPECT_NE(alerts.find("\"manifest_write_failed\""), std::string::npos) << alerts;
  EXPECT_NE(alerts.find("the store is down"), std::string::npos) << alerts;
  auto raised = (*other)->ListAlerts(AlertQuery{});
  ASSERT_TRUE(raised.ok());
  ASSERT_FALSE(raised->empty());
  EXPECT_EQ(raised->front().code, "manifest_write_failed");
  EXPECT_EQ(raised->front().object, "w.c.t");

  faulty->Reset();
  auto again = (*other)->DeleteRows("w.c.t", "id = 2", Meta());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(Exists(ManifestKey(ds_.uuid, again->snapshot_id)));
  EXPECT_EQ((*other)->manifest_write_failures(), 1);
}

TEST_P(ManifestSuite, HousekeepingWritesTheManifestsThatFailedAtCommit) {
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "true"}}));
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64");
  ASSERT_TRUE(cat_->CreateDataset("w.c.off", def).ok());
  ASSERT_TRUE(
      cat_->Append("w.c.off", One(MakeBatch(def.schema, {{"1"}})), Meta()).ok());  // no manifest
  auto base = OpenObjectStore((dir_ / "warehouse").string());
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  auto faulty = std::make_shared<FaultInjectingObjectStore>(*base);
  auto other = Catalog::Open(cat_->metastore().uri(), faulty, clock_);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Append({{"1", "eu", "1.00", "1", ""}, {"2", "us", "2.00", "2", ""}});
  ASSERT_TRUE(Exists(ManifestKey(ds_.uuid, 1)));
  faulty->FailAll(ObjectOp::kOpenWrite, Status::Unavailable("the store is down"));
  ASSERT_TRUE((*other)->DeleteRows("w.c.t", "id = 1", Meta()).ok());  // writes no data file
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, 2)));
  EXPECT_EQ((*other)->manifest_write_failures(), 1);

  // While the store still fails, the step fails for that dataset (counted, audited) and goes on.
  auto failing = (*other)->RunHousekeeping(Catalog::HousekeepingStep::kManifest);
  ASSERT_TRUE(failing.ok()) << failing.status().ToString();
  EXPECT_EQ(failing->failures, 1);
  EXPECT_EQ(failing->manifests_written, 0);

  auto r = cat_->RunHousekeeping(Catalog::HousekeepingStep::kManifest);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->manifests_written, 1);
  EXPECT_EQ(r->failures, 0);
  EXPECT_TRUE(Exists(ManifestKey(ds_.uuid, 2)));
  auto off = cat_->LoadDataset("w.c.off");
  EXPECT_FALSE(Exists(ManifestKey(off->uuid, 1)));
  CheckAgainstPlan({}, 2);
  auto again = cat_->RunHousekeeping(Catalog::HousekeepingStep::kManifest);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->manifests_written, 0);
}

TEST_P(ManifestSuite, HydrationWritesTheCurrentManifestAgain) {
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "true"}}));
  CommitMeta meta = Meta();
  meta.defer_stats = true;
  auto s = cat_->Append("w.c.t", One(MakeBatch(ds_.schema, {{"1", "eu", "1.00", "1", ""}})), meta);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto read = [&] {
    auto bytes = cat_->warehouse().Get(ManifestKey(ds_.uuid, 1));
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return ReadManifest(bytes.ok() ? *bytes : std::string());
  };
  Manifest before = read();
  ASSERT_EQ(before.rows.size(), 1u);
  EXPECT_EQ(before.rows.begin()->second["stats_state"], "pending");
  EXPECT_EQ(before.rows.begin()->second["column_stats"], json::object());
  auto h = cat_->HydrateStats("w.c.t", {});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->files_hydrated, 1);
  Manifest after = read();
  ASSERT_EQ(after.rows.size(), 1u);
  EXPECT_EQ(after.rows.begin()->second["stats_state"], "complete");
  EXPECT_EQ(after.rows.begin()->second["column_stats"]["id"]["lower"], "1");
  CheckAgainstPlan({}, 1);
}

// Cleanup and the sweep compare object times with the catalog's clock: it runs from now and is
// moved past the orphan grace.
class ManifestMaintenanceSuite : public ManifestSuite {
 protected:
  ManifestMaintenanceSuite() {
    clock_ = manual_ =
        std::make_shared<ManualClock>(ManualClock::Flow::kRunning, Clock::Real()->NowMicros());
  }
  std::shared_ptr<ManualClock> manual_;
};

TEST_P(ManifestMaintenanceSuite, ManifestsOfLiveSnapshotsAreNoOrphansAndExpiredOnesAreCleanedUp) {
  ASSERT_OK(cat_->SetDatasetProperties("w.c.t", {{kManifestOnCommitProperty, "true"}}));
  for (int i = 1; i <= 3; ++i) Append({{std::to_string(i), "eu", "", "", ""}});
  for (int64_t id = 1; id <= 3; ++id) ASSERT_TRUE(Exists(ManifestKey(ds_.uuid, id)));
  // A real orphan beside them, and a manifest-looking key that is not one (no such dataset).
  const std::string stray = "datasets/" + ds_.uuid + "/data/stray.parquet";
  const std::string foreign = ManifestKey("00000000-0000-4000-8000-000000000000", 1);
  ASSERT_OK(cat_->warehouse().Put(stray, "x"));
  ASSERT_OK(cat_->warehouse().Put(foreign, "y"));
  manual_->Advance(std::chrono::hours(2));

  FsckOptions fsck;
  fsck.orphan_grace_us = 0;
  auto report = cat_->Fsck(fsck);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::vector<std::string> orphan_objects;
  for (const auto& f : report->findings) {
    if (f.code == "orphan_object") orphan_objects.push_back(f.object);
  }
  EXPECT_EQ(orphan_objects, std::vector<std::string>{stray});

  auto clean = cat_->Cleanup();
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  EXPECT_EQ(clean->orphans, std::vector<std::string>{stray});
  EXPECT_EQ(clean->objects_deleted, 1);  // the manifest of a snapshot that never existed
  EXPECT_FALSE(Exists(foreign));
  for (int64_t id = 1; id <= 3; ++id) EXPECT_TRUE(Exists(ManifestKey(ds_.uuid, id)));

  ExpiryOptions expiry;
  expiry.older_than_us = manual_->NowMicros();
  auto expired = cat_->ExpireSnapshots("w.c.t", expiry);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  ASSERT_EQ(expired->expired_through, 2);
  // Expired but not yet cleaned up: still no orphans.
  report = cat_->Fsck(fsck);
  ASSERT_TRUE(report.ok());
  for (const auto& f : report->findings) {
    EXPECT_TRUE(f.code != "orphan_object" || f.object == stray) << f.code << " " << f.object;
  }
  clean = cat_->Cleanup();
  ASSERT_TRUE(clean.ok()) << clean.status().ToString();
  EXPECT_EQ(clean->objects_deleted, 2);
  EXPECT_EQ(clean->orphans, std::vector<std::string>{stray});
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, 1)));
  EXPECT_FALSE(Exists(ManifestKey(ds_.uuid, 2)));
  EXPECT_TRUE(Exists(ManifestKey(ds_.uuid, 3)));
  EXPECT_TRUE(Exists(stray));  // orphans go only when asked
  EXPECT_EQ(cat_->Cleanup()->objects_deleted, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ManifestSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Backends, ManifestMaintenanceSuite,
                         ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn
