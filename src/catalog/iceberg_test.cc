// Iceberg metadata of snapshots (iceberg.cc): what a snapshot's manifests name against PlanFiles
// at that snapshot (every live file once, its status and sequence numbers, the position delete
// file of each deletion vector holding the vector's positions), the metadata JSON (snapshots,
// refs, schemas), production once and the cache, time travel, the errors, and the cleanup
// rule's view of the objects. SQLite and PostgreSQL (test_fixture.h).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "avro/container.h"
#include "catalog/catalog.h"
#include "catalog/store.h"
#include "catalog/test_fixture.h"
#include "common/io.h"
#include "objectstore/object_store.h"
#include "parquet/reader.h"
#include "table/deletion_vector.h"

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
  m.receipt = Receipt{};
  return m;
}

SnapshotSelector At(int64_t id) {
  SnapshotSelector s;
  s.snapshot_id = id;
  return s;
}

// Avro's JSON encoding with the union wrappers ({"long": 3}) taken off.
json Unwrap(const json& j) {
  if (j.is_object()) {
    if (j.size() == 1) {
      const std::string& k = j.begin().key();
      static const std::set<std::string> kBranches = {"int",   "long",    "string", "bytes",
                                                      "array", "boolean", "double", "float"};
      static const std::regex kRecord("r[0-9]+|k[0-9]+_v[0-9]+|.*\\..*");  // Iceberg's names
      if (kBranches.count(k) || std::regex_match(k, kRecord)) {
        return Unwrap(j.begin().value());
      }
    }
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = Unwrap(it.value());
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const json& e : j) out.push_back(Unwrap(e));
    return out;
  }
  return j;
}

class IcebergSuite : public CatalogBackendTest {
 protected:
  void SetUp() override {
    CatalogBackendTest::SetUp();
    if (!cat_) return;
    ASSERT_OK(cat_->CreateWorkspace("w"));
    ASSERT_OK(cat_->CreateCollection("w.c"));
    DatasetDefinition def;
    def.schema = *Schema::Parse("id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)");
    def.partition_spec = "region";
    auto d = cat_->CreateDataset("w.c.t", def);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ds_ = *d;
  }

  void Append(const std::vector<std::vector<std::string>>& rows) {
    auto ds = cat_->LoadDataset("w.c.t");
    ASSERT_TRUE(ds.ok()) << ds.status().ToString();
    auto s = cat_->Append("w.c.t", One(MakeBatch(ds->schema, rows)), Meta());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
  }

  // The key of a URI the metadata names (the warehouse's own URIs).
  std::string KeyOf(const std::string& uri) {
    const std::string root = cat_->warehouse().UriOf("");
    EXPECT_EQ(uri.rfind(root, 0), 0u) << uri;
    return uri.substr(root.size());
  }

  // The objects of an Avro file the metadata names, as JSON.
  std::vector<json> ReadAvro(const std::string& uri,
                             std::map<std::string, std::string>* meta = nullptr) {
    auto bytes = cat_->warehouse().Get(KeyOf(uri));
    EXPECT_TRUE(bytes.ok()) << uri;
    if (!bytes.ok()) return {};
    auto reader = avro::ContainerReader::Open(*bytes);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    if (meta) {
      for (const auto& [k, v] : (*reader)->metadata()) (*meta)[k] = v;
    }
    auto values = (*reader)->ReadAll();
    EXPECT_TRUE(values.ok());
    std::vector<json> out;
    for (const avro::Value& v : *values) {
      auto text = avro::ToJson(v, (*reader)->schema().root());
      EXPECT_TRUE(text.ok());
      out.push_back(Unwrap(json::parse(*text)));
    }
    return out;
  }

  // Every manifest entry of a snapshot of the metadata, data and deletes.
  std::vector<json> Entries(const json& metadata, int64_t snapshot_id) {
    std::vector<json> out;
    for (const json& s : metadata["snapshots"]) {
      if (s["snapshot-id"] != snapshot_id) continue;
      for (const json& m : ReadAvro(s["manifest-list"].get<std::string>())) {
        std::map<std::string, std::string> meta;
        for (json e : ReadAvro(m["manifest_path"].get<std::string>(), &meta)) {
          e["manifest_content"] = meta["content"];
          EXPECT_EQ(meta["format-version"], "2");
          EXPECT_EQ(m["content"], meta["content"] == "deletes" ? 1 : 0);
          EXPECT_EQ(m["sequence_number"], snapshot_id);
          EXPECT_EQ(m["added_snapshot_id"], snapshot_id);
          out.push_back(std::move(e));
        }
      }
    }
    return out;
  }

  IcebergTableInfo Produce(const SnapshotSelector& at = {}) {
    IcebergRequest req;
    req.at = at;
    auto info = cat_->IcebergTable("w.c.t", req);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? *info : IcebergTableInfo();
  }

  DatasetInfo ds_;
};

TEST_P(IcebergSuite, ManifestsNameEveryLiveFileAndDeletesBecomePositionDeleteFiles) {
  Append({{"1", "eu", "10.50"}, {"2", "us", "20.00"}, {"3", "eu", ""}});
  Append({{"4", "eu", "7.77"}, {"5", "us", "1.00"}});
  auto del = cat_->DeleteRows("w.c.t", "id = 1 OR id = 5", Meta());
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  ASSERT_EQ(del->snapshot_id, 3);

  IcebergTableInfo info = Produce();
  EXPECT_TRUE(info.produced);
  EXPECT_EQ(info.snapshot_id, 3);
  EXPECT_EQ(info.dataset_uuid, ds_.uuid);
  EXPECT_EQ(info.snapshots, std::vector<int64_t>{3});
  EXPECT_NE(info.metadata_location.find(".metadata.json"), std::string::npos);
  json m = json::parse(info.metadata);
  EXPECT_EQ(m["format-version"], 2);
  EXPECT_EQ(m["table-uuid"], ds_.uuid);
  EXPECT_EQ(m["current-snapshot-id"], 3);
  EXPECT_EQ(m["refs"]["main"]["snapshot-id"], 3);
  EXPECT_EQ(m["partition-specs"][0]["fields"][0]["name"], "region");
  // What the location names is what was returned.
  auto stored = cat_->warehouse().Get(KeyOf(info.metadata_location));
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(*stored, info.metadata);

  std::vector<PlannedFile> files;
  ASSERT_OK(cat_->PlanFiles("w.c.t", At(3), "", [&](const PlannedFile& f) {
    files.push_back(f);
    return Status::OK();
  }));
  std::map<std::string, const PlannedFile*> by_uri;
  for (const PlannedFile& f : files) by_uri[cat_->warehouse().UriOf(f.file.path)] = &f;

  std::map<std::string, json> data, deletes;
  for (const json& e : Entries(m, 3)) {
    const std::string path = e["data_file"]["file_path"];
    (e["data_file"]["content"] == 0 ? data : deletes)[path] = e;
  }
  ASSERT_EQ(data.size(), files.size());
  for (const auto& [uri, e] : data) {
    ASSERT_TRUE(by_uri.count(uri)) << uri;
    const DataFile& f = by_uri[uri]->file;
    EXPECT_EQ(e["status"], f.added_snapshot_id == 3 ? 1 : 0) << uri;
    EXPECT_EQ(e["snapshot_id"], f.added_snapshot_id);
    EXPECT_EQ(e["sequence_number"], f.added_snapshot_id);
    EXPECT_EQ(e["file_sequence_number"], f.added_snapshot_id);
    EXPECT_EQ(e["data_file"]["record_count"], f.record_count);
    EXPECT_EQ(e["data_file"]["file_size_in_bytes"], f.file_size_bytes);
    EXPECT_EQ(e["data_file"]["file_format"], "PARQUET");
    EXPECT_EQ(e["data_file"]["partition"]["region"], *f.partition[0]) << e.dump();
  }

  // One position delete file per deletion vector, holding its positions, applying to its file.
  int with_vectors = 0;
  for (const PlannedFile& f : files) {
    if (!f.deletion_vector) continue;
    ++with_vectors;
    const std::string data_uri = cat_->warehouse().UriOf(f.file.path);
    const json* entry = nullptr;
    for (const auto& [uri, e] : deletes) {
      auto bytes = cat_->warehouse().Get(KeyOf(uri));
      ASSERT_TRUE(bytes.ok());
      auto reader = parquet::FileReader::Open(MemoryFile(*bytes));
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      auto batch = (*reader)->ReadAll();
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (batch->columns[0].StringAt(0) != data_uri) continue;
      entry = &e;
      auto want = DecodeDeletionVector(*f.deletion_vector);
      ASSERT_TRUE(want.ok());
      ASSERT_EQ(batch->num_rows, static_cast<int64_t>(want->size()));
      for (int64_t r = 0; r < batch->num_rows; ++r) {
        EXPECT_EQ(batch->columns[0].StringAt(r), data_uri);
        EXPECT_EQ(batch->columns[1].Value<int64_t>(r), static_cast<int64_t>((*want)[r]));
      }
    }
    ASSERT_NE(entry, nullptr) << "no position delete file for " << data_uri;
    EXPECT_EQ((*entry)["data_file"]["content"], 1);
    EXPECT_EQ((*entry)["manifest_content"], "deletes");
    EXPECT_EQ((*entry)["sequence_number"], 3);  // the delete's snapshot: after its data file's
    EXPECT_EQ((*entry)["data_file"]["partition"]["region"], *f.file.partition[0]);
  }
  // id 1 leaves a vector on the eu file of snapshot 1; id 5 was the only row of its file, which
  // went whole.
  EXPECT_EQ(with_vectors, 1);
  EXPECT_EQ(deletes.size(), 1u);
}

TEST_P(IcebergSuite, ProducedOnceThenFoundAndTagsAndTimeTravelAreListed) {
  Append({{"1", "eu", "1.00"}});
  Append({{"2", "us", "2.00"}});
  IcebergTableInfo first = Produce();
  ASSERT_TRUE(first.produced);
  IcebergTableInfo again = Produce();
  EXPECT_FALSE(again.produced);
  EXPECT_EQ(again.metadata_location, first.metadata_location);
  EXPECT_EQ(again.metadata, first.metadata);

  // A tag on snapshot 1: its manifests are produced, and the current metadata lists it.
  ASSERT_OK(cat_->CreateTag("w.c.t", "v1", At(1)));
  IcebergTableInfo tagged = Produce();
  EXPECT_FALSE(tagged.produced);  // snapshot 2 was there; snapshot 1 is the tag's
  EXPECT_NE(tagged.metadata_location, first.metadata_location);
  EXPECT_EQ(tagged.snapshots, (std::vector<int64_t>{1, 2}));
  json m = json::parse(tagged.metadata);
  EXPECT_EQ(m["refs"]["v1"], (json{{"snapshot-id", 1}, {"type", "tag"}}));
  ASSERT_EQ(m["snapshots"].size(), 2u);
  EXPECT_EQ(m["snapshots"][1]["parent-snapshot-id"], 1);
  EXPECT_EQ(Entries(m, 1).size(), 1u);
  EXPECT_EQ(Entries(m, 2).size(), 2u);

  // Time travel: the metadata at snapshot 1 is current at 1 and lists nothing later.
  IcebergTableInfo old = Produce(At(1));
  json o = json::parse(old.metadata);
  EXPECT_EQ(o["current-snapshot-id"], 1);
  EXPECT_EQ(old.snapshots, std::vector<int64_t>{1});

  // Schema evolution: the schema history is listed, the current schema is the snapshot's.
  SchemaChange add;
  add.kind = SchemaChange::Kind::kAddColumn;
  add.column = "note";
  add.type = DataType::Varchar();
  ASSERT_TRUE(cat_->AlterSchema("w.c.t", {add}).ok());
  Append({{"3", "eu", "3.00", "x"}});
  json now = json::parse(Produce().metadata);
  EXPECT_EQ(now["schemas"].size(), 2u);
  EXPECT_EQ(now["current-schema-id"], 1);
  EXPECT_EQ(now["schemas"][1]["fields"][3]["name"], "note");
  EXPECT_EQ(now["snapshots"].back()["schema-id"], 1);
}

TEST_P(IcebergSuite, ErrorsAndColumnsLeftOut) {
  IcebergRequest v3;
  v3.format_version = 3;
  auto st = cat_->IcebergTable("w.c.t", v3);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(FieldOf(st.status(), "code"), "iceberg_unsupported");
  auto missing = cat_->IcebergTable("w.c.nope", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  auto no_snapshot = cat_->IcebergTable("w.c.t", IcebergRequest{At(9), 2, ""});
  ASSERT_FALSE(no_snapshot.ok());
  EXPECT_EQ(FieldOf(no_snapshot.status(), "code"), "snapshot_not_found");

  // A dataset without snapshots: metadata without a current snapshot.
  IcebergTableInfo empty = Produce();
  EXPECT_FALSE(empty.snapshot_id);
  EXPECT_FALSE(json::parse(empty.metadata).contains("current-snapshot-id"));

  // An unsigned 32-bit column is left out (and named); partitioning by it cannot be shown.
  DatasetDefinition def;
  def.schema = *Schema::Parse("id INT64 NOT NULL, n UINT32");
  ASSERT_TRUE(cat_->CreateDataset("w.c.u", def).ok());
  auto u = cat_->Append("w.c.u", One(MakeBatch(def.schema, {{"1", "4000000000"}})), Meta());
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  auto shown = cat_->IcebergTable("w.c.u", {});
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  ASSERT_EQ(shown->omitted.size(), 1u);
  EXPECT_EQ(shown->omitted[0].path, "n");
  json m = json::parse(shown->metadata);
  EXPECT_EQ(m["schemas"][0]["fields"].size(), 1u);
  EXPECT_EQ(m["properties"]["tarn.iceberg.omitted-columns"], "n");
  def.partition_spec = "n";
  ASSERT_TRUE(cat_->CreateDataset("w.c.p", def).ok());
  ASSERT_TRUE(cat_->Append("w.c.p", One(MakeBatch(def.schema, {{"1", "7"}})), Meta()).ok());
  auto refused = cat_->IcebergTable("w.c.p", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(FieldOf(refused.status(), "code"), "iceberg_unsupported")
      << refused.status().ToString();
}

TEST_P(IcebergSuite, ObjectsAreNeverOrphansAndGoWithTheirSnapshot) {
  Append({{"1", "eu", "1.00"}});
  IcebergTableInfo info = Produce();
  std::vector<ObjectInfo> objects;
  auto listed = cat_->warehouse().ListAll("datasets/" + ds_.uuid + "/iceberg/");
  ASSERT_TRUE(listed.ok());
  EXPECT_GE(listed->size(), 3u);  // manifest, list, metadata
  for (const ObjectInfo& o : *listed) {
    auto ref = catalog_store::ParseManifestKey(o.key);
    ASSERT_TRUE(ref) << o.key;
    EXPECT_EQ(ref->dataset_uuid, ds_.uuid);
    EXPECT_EQ(ref->snapshot_id, 1);
  }
  EXPECT_FALSE(catalog_store::ParseManifestKey("datasets/u/iceberg/v2/metadata/x-list.avro"));
  EXPECT_FALSE(catalog_store::ParseManifestKey("datasets/u/iceberg/v2/metadata/1-a/b"));
  EXPECT_FALSE(catalog_store::ParseManifestKey("datasets/u/iceberg/v2/other/1-list.avro"));
  EXPECT_FALSE(catalog_store::ParseManifestKey("datasets/u/manifests/0.parquet"));
  // A cleanup keeps them (their snapshot exists).
  auto cleaned = cat_->Cleanup(/*delete_orphans=*/true);
  ASSERT_TRUE(cleaned.ok());
  for (const std::string& o : cleaned->orphans) EXPECT_EQ(o.find("/iceberg/"), std::string::npos);
  EXPECT_TRUE(cat_->warehouse().Head(KeyOf(info.metadata_location)).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, IcebergSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn
