// Iceberg metadata of snapshots (iceberg.cc): what a snapshot's manifests name against PlanFiles
// at that snapshot (every live file once, its status and sequence numbers, the position delete
// file of each deletion vector holding the vector's positions), the metadata JSON (snapshots,
// refs, schemas), production once and the cache, time travel, the errors, and the cleanup
// rule's view of the objects. SQLite and PostgreSQL (test_fixture.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "avro/container.h"
#include "catalog/catalog.h"
#include "catalog/store.h"
#include "catalog/test_fixture.h"
#include "common/io.h"
#include "datafile/writer.h"
#include "objectstore/object_store.h"
#include "parquet/reader.h"
#include "table/deletion_vector.h"
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

class IcebergSuite : public CollectionTest {
 protected:
  void SetUp() override {
    CollectionTest::SetUp();
    if (!cat_) return;
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
  EXPECT_EQ(m["snapshots"][0]["summary"]["operation"], "delete");  // tarn's delete_rows
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

// Every row of a dataset as text, sorted.
std::vector<std::string> RowsOf(Catalog& cat, const std::string& name) {
  std::vector<std::string> rows;
  Status st = cat.Scan(name, {}, "", false, [&](const RecordBatch& b) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      std::string line;
      for (size_t c = 0; c < b.columns.size(); ++c) {
        line += b.schema.fields[c].name + "=" +
                (b.columns[c].IsValid(r) ? ValueText(b.columns[c], r) : "null") + ";";
      }
      rows.push_back(std::move(line));
    }
    return Status::OK();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Registering the Iceberg table tarn wrote for a dataset, from another catalog over the same
// warehouse (a deployment moving its tables): the same rows, schema and field ids, partition
// spec, files (no data copied) and deletes.
TEST_P(IcebergSuite, RegisterRoundTripFromAnotherCatalogOverTheSameWarehouse) {
  // The source's files live at a location granted to it (a table tarn does not own the prefix
  // of), with a partition, stats and a deletion vector.
  ASSERT_OK(cat_->GrantLocation("w.c.t", "external/t/"));
  DataWriteOptions wo;
  wo.prefix = "external/t/data/";
  auto written = WriteDataFiles(
      cat_->warehouse(), ds_.schema, ds_.spec, SortOrder{},
      One(MakeBatch(ds_.schema, {{"1", "eu", "1.50"}, {"2", "us", "2.25"}, {"3", "eu", ""}})), wo);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  DatasetCommit add;
  add.dataset = "w.c.t";
  add.operation = CommitOperation::kAddFiles;
  add.added = *written;
  add.meta = Meta();
  ASSERT_TRUE(cat_->Commit(std::move(add)).ok());
  ASSERT_TRUE(cat_->DeleteRows("w.c.t", "id = 3", Meta()).ok());
  IcebergTableInfo info = Produce();

  auto other = Catalog::Open((dir_ / "other.db").string(), (dir_ / "warehouse").string(), clock_);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Catalog& o = **other;
  ASSERT_OK(o.CreateWorkspace("w"));
  ASSERT_OK(o.CreateCollection("w.c"));
  IcebergRegisterRequest req;
  req.metadata = info.metadata_location;
  req.meta = Meta();
  auto reg = o.RegisterIcebergTable("w.c.copy", req);
  ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  EXPECT_EQ(reg->source_snapshot_id, 2);
  EXPECT_EQ(reg->files, 2);
  EXPECT_EQ(reg->records, 3);
  EXPECT_EQ(reg->deleted_rows, 1);
  ASSERT_EQ(reg->snapshots.size(), 2u);
  EXPECT_EQ(reg->snapshots[0].operation, "add_files");
  EXPECT_EQ(reg->snapshots[1].operation, "delete_rows");
  EXPECT_EQ(RowsOf(o, "w.c.copy"), RowsOf(*cat_, "w.c.t"));
  EXPECT_EQ(RowsOf(o, "w.c.copy").size(), 2u);
  EXPECT_EQ(reg->dataset.schema.ToString(), ds_.schema.ToString());
  for (size_t i = 0; i < ds_.schema.fields.size(); ++i) {
    EXPECT_EQ(reg->dataset.schema.fields[i].field_id, ds_.schema.fields[i].field_id);
  }
  EXPECT_EQ(reg->dataset.spec.ToString(reg->dataset.schema), "region");
  // The same files, not copies, with the source's statistics.
  std::map<std::string, DataFile> theirs, ours;
  ASSERT_OK(cat_->PlanFiles("w.c.t", {}, "", [&](const PlannedFile& f) {
    theirs[f.file.path] = f.file;
    return Status::OK();
  }));
  ASSERT_OK(o.PlanFiles("w.c.copy", {}, "", [&](const PlannedFile& f) {
    ours[f.file.path] = f.file;
    return Status::OK();
  }));
  ASSERT_EQ(ours.size(), theirs.size());
  for (const auto& [path, f] : theirs) {
    ASSERT_TRUE(ours.count(path)) << path;
    EXPECT_EQ(ours[path].columns, f.columns) << path;
    EXPECT_EQ(ours[path].partition, f.partition) << path;
    EXPECT_EQ(ours[path].record_count, f.record_count) << path;
  }
  // Pruning by the registered statistics works: one file holds region us.
  int us = 0;
  ASSERT_OK(o.PlanFiles("w.c.copy", {}, "region = 'us'", [&](const PlannedFile&) {
    ++us;
    return Status::OK();
  }));
  EXPECT_EQ(us, 1);

  // Registering again under the same name: dataset_exists, nothing changed.
  auto again = o.RegisterIcebergTable("w.c.copy", req);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(FieldOf(again.status(), "code"), "dataset_exists");
}

TEST_P(IcebergSuite, RegisterRefusalsLeaveNoDataset) {
  Append({{"1", "eu", "1.00"}});
  IcebergTableInfo info = Produce();
  IcebergRegisterRequest req;
  req.meta = Meta();
  // The table's files are another dataset's own (under datasets/): its location cannot be
  // granted, and the dataset the registration created is dropped again.
  req.metadata = info.metadata_location;
  auto own = cat_->RegisterIcebergTable("w.c.copy", req);
  ASSERT_FALSE(own.ok());
  EXPECT_EQ(FieldOf(own.status(), "code"), "invalid_location") << own.status().ToString();
  EXPECT_EQ(cat_->LoadDataset("w.c.copy").status().kind(), ErrorKind::kNotFound);
  // Missing metadata; metadata outside the warehouse; not Iceberg at all.
  req.metadata = "external/none.metadata.json";
  EXPECT_EQ(cat_->RegisterIcebergTable("w.c.copy", req).status().kind(), ErrorKind::kNotFound);
  req.metadata = "/etc/passwd";
  EXPECT_EQ(FieldOf(cat_->RegisterIcebergTable("w.c.copy", req).status(), "code"),
            "path_outside_warehouse");
  ASSERT_OK(cat_->warehouse().Put("external/bad.metadata.json", "{\"format-version\": 2}", {}));
  req.metadata = "external/bad.metadata.json";
  EXPECT_EQ(cat_->RegisterIcebergTable("w.c.copy", req).status().kind(), ErrorKind::kCorruption);
  // A type tarn cannot hold is named.
  ASSERT_OK(cat_->warehouse().Put(
      "external/fixed.metadata.json",
      R"({"format-version":2,"table-uuid":"0b1f6c3e-8a34-4d6e-9d2a-1c2b3a4d5e6f",
          "location":"external/fixed","last-sequence-number":0,"last-updated-ms":1,
          "last-column-id":1,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,
          "fields":[{"id":1,"name":"h","required":false,"type":"fixed[8]"}]}],
          "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],
          "last-partition-id":999,"default-sort-order-id":0,
          "sort-orders":[{"order-id":0,"fields":[]}]})",
      {}));
  req.metadata = "external/fixed.metadata.json";
  auto fixed = cat_->RegisterIcebergTable("w.c.copy", req);
  ASSERT_FALSE(fixed.ok());
  EXPECT_EQ(FieldOf(fixed.status(), "code"), "iceberg_unsupported") << fixed.status().ToString();
  EXPECT_NE(fixed.status().message().find("fixed"), std::string::npos);
  EXPECT_EQ(cat_->LoadDataset("w.c.copy").status().kind(), ErrorKind::kNotFound);
  // An object larger than the read limit is refused before it is read, naming it.
  cat_->set_register_read_limit(100);
  req.metadata = "external/fixed.metadata.json";
  auto huge = cat_->RegisterIcebergTable("w.c.copy", req);
  EXPECT_EQ(FieldOf(huge.status(), "code"), "iceberg_unsupported") << huge.status().ToString();
  EXPECT_EQ(FieldOf(huge.status(), "path"), "external/fixed.metadata.json");
  EXPECT_EQ(cat_->LoadDataset("w.c.copy").status().kind(), ErrorKind::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Backends, IcebergSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn
