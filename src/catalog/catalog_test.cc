// The catalog suite, run on SQLite (files on tmpfs when there is one) and on PostgreSQL (each
// test in its own schema of the database at $TARN_TEST_PG_URI; skipped when unset).
#include "catalog/catalog.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "catalog/test_fixture.h"
#include "metastore/metastore.h"
#include "metastore/test_util.h"

namespace tarn {
namespace {

using testing_util::PgExec;
using testing_util::ScratchDir;
using testing_util::TestName;

class CatalogSuite : public CatalogBackendTest {
 protected:
  // Adds a dataset row directly (datasets are not in the Catalog API yet).
  void AddDataset(const std::string& qualified, const std::string& name, bool dropped = false) {
    auto c = cat_->GetCollection(qualified);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ASSERT_OK(cat_->metastore().RunInTransaction([&](Transaction& tx) {
      return tx
          .Execute(
              "INSERT INTO datasets (uuid, collection_id, name, created_at, updated_at, "
              "dropped_at) VALUES (?, ?, ?, 1, 1, ?)",
              {qualified + "/" + name, c->id, name,
               SqlValue::OptionalInt64(dropped ? std::optional<int64_t>(2) : std::nullopt)})
          .status();
    }));
  }
};

TEST(CatalogNames, Identifiers) {
  for (const char* ok : {"a", "_", "A_b-9", "x-", "_0", "abc_DEF"}) {
    EXPECT_TRUE(ValidateIdentifier("workspace name", ok).ok()) << ok;
  }
  EXPECT_TRUE(ValidateIdentifier("n", std::string(128, 'a')).ok());
  for (std::string bad :
       {std::string(), std::string("9a"), std::string("-a"), std::string("a.b"), std::string("a b"),
        std::string("é"), std::string(129, 'a'), std::string("a\0b", 3), std::string("a/b")}) {
    Status st = ValidateIdentifier("workspace name", bad);
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("workspace name"), std::string::npos);
  }
}

TEST(CatalogNames, Qualified) {
  auto n = ParseCollectionName("ws.coll-1");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->workspace, "ws");
  EXPECT_EQ(n->collection, "coll-1");
  EXPECT_EQ(n->ToString(), "ws.coll-1");
  for (const char* bad : {"ws", "ws.", ".c", "a.b.c", ""}) {
    EXPECT_EQ(ParseCollectionName(bad).status().kind(), ErrorKind::kInvalidArgument) << bad;
  }
  Status st = ParseCollectionName("ws.9c").status();
  EXPECT_NE(st.message().find("collection name"), std::string::npos) << st.ToString();
  st = ParseCollectionName("w s.c").status();
  EXPECT_NE(st.message().find("workspace name"), std::string::npos) << st.ToString();
}

TEST(CatalogNames, ProtectionTriState) {
  EXPECT_TRUE(ProtectionOn(std::nullopt));
  EXPECT_FALSE(ProtectionOn(std::string("false")));
  EXPECT_FALSE(ProtectionOn(std::string("FALSE")));
  EXPECT_FALSE(ProtectionOn(std::string("False")));
  for (const char* on : {"true", "no", "off", "0", "garbage", "", " false", "false ", "falsey"}) {
    EXPECT_TRUE(ProtectionOn(std::string(on))) << on;
  }
}

// SECURE records: anything malformed reads as not sanctioned; object and destination must
// both match.
TEST(CatalogNames, SecureObjectsReadConservatively) {
  WorkspaceInfo w;
  w.name = "src";
  EXPECT_TRUE(SecureObjectsOf(w).empty());
  SecureObject s;
  s.object = "dst.ops.ingest";
  s.destinations = {"dst", "other"};
  s.author = "owner";
  s.marked_at_us = 7;
  w.properties[kSecureObjectsProperty] = SecureObjectsJson({s});
  ASSERT_EQ(SecureObjectsOf(w).size(), 1u);
  EXPECT_EQ(SecureObjectsOf(w)[0].destinations, (std::vector<std::string>{"dst", "other"}));
  EXPECT_EQ(SecureObjectsOf(w)[0].author, "owner");
  EXPECT_TRUE(EgressSanctioned(w, "dst.ops.ingest", "dst"));
  EXPECT_FALSE(EgressSanctioned(w, "dst.ops.ingest", "third"));  // destination must match
  EXPECT_FALSE(EgressSanctioned(w, "dst.ops.other", "dst"));     // object must match
  for (const char* bad :
       {"", "ON", "[]", "null", "{\"dst.ops.ingest\": true}",
        "{\"dst.ops.ingest\": {\"to\": \"dst\"}}", "{\"dst.ops.ingest\": {\"to\": []}}",
        "{\"dst.ops.ingest\": {\"to\": [\"dst\", 3]}}",
        "{\"dst.ops.ingest\": {\"to\": [\"d st\"]}}", "{\"not-a-name\": {\"to\": [\"dst\"]}}",
        "{\"dst.ops.ingest\""}) {
    w.properties[kSecureObjectsProperty] = bad;
    EXPECT_FALSE(EgressSanctioned(w, "dst.ops.ingest", "dst")) << bad;
  }
  // One malformed record leaves the well-formed ones standing.
  w.properties[kSecureObjectsProperty] =
      "{\"a.b.c\": {\"to\": 5}, \"dst.ops.ingest\": {\"to\": [\"dst\"]}}";
  EXPECT_TRUE(EgressSanctioned(w, "dst.ops.ingest", "dst"));
  EXPECT_FALSE(EgressSanctioned(w, "a.b.c", "dst"));
}

TEST_P(CatalogSuite, SecureMarksAreWrittenThroughTheirOwnCallsOnly) {
  ASSERT_OK(cat_->CreateWorkspace("src"));
  ASSERT_OK(cat_->MarkSecure("src", "dst.ops.ingest", {"dst", "dst", "more"}, "owner"));
  auto all = cat_->ListSecure("src");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].destinations, (std::vector<std::string>{"dst", "more"}));
  EXPECT_EQ((*all)[0].author, "owner");
  EXPECT_GT((*all)[0].marked_at_us, 0);
  // A second mark replaces the object's destinations; the author defaults to the actor.
  ASSERT_OK(cat_->MarkSecure("src", "dst.ops.ingest", {"dst"}, ""));
  ASSERT_OK(cat_->MarkSecure("src", "x.y.z", {"x"}, "owner"));
  all = cat_->ListSecure("src");
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].destinations, (std::vector<std::string>{"dst"}));
  EXPECT_EQ((*all)[0].author, cat_->actor());
  // The reserved property cannot be written or removed as a plain property.
  Status st = cat_->SetWorkspaceProperties("src", {{kSecureObjectsProperty, "{}"}});
  EXPECT_EQ(FieldOf(st, "code"), "property_reserved") << st.ToString();
  st = cat_->UnsetWorkspaceProperties("src", {kSecureObjectsProperty});
  EXPECT_EQ(FieldOf(st, "code"), "property_reserved") << st.ToString();
  // Bad marks write nothing.
  EXPECT_EQ(cat_->MarkSecure("src", "notqualified", {"dst"}, "o").kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->MarkSecure("src", "a.b.c", {}, "o").kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->MarkSecure("src", "a.b.c", {"bad name"}, "o").kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->MarkSecure("src", "a.b.c", {"src"}, "o").kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldOf(cat_->MarkSecure("nope", "a.b.c", {"x"}, "o"), "code"), "workspace_not_found");
  EXPECT_EQ(cat_->ListSecure("src")->size(), 2u);
  // Withdrawn one at a time; the last one removes the property.
  ASSERT_OK(cat_->ClearSecure("src", "x.y.z"));
  EXPECT_EQ(FieldOf(cat_->ClearSecure("src", "x.y.z"), "code"), "secure_object_not_found");
  ASSERT_OK(cat_->ClearSecure("src", "dst.ops.ingest"));
  auto w = cat_->GetWorkspace("src");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->properties.count(kSecureObjectsProperty), 0u);
}

TEST_P(CatalogSuite, CreateAndGetWorkspace) {
  ASSERT_OK(cat_->CreateWorkspace("ws", false, {{"owner", "me"}}));
  auto w = cat_->GetWorkspace("ws");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->name, "ws");
  EXPECT_EQ(w->properties, (PropertyMap{{"owner", "me"}}));
  EXPECT_TRUE(w->DeletionProtected());
  EXPECT_TRUE(w->EgressProtected());
  EXPECT_FALSE(w->deletion_protection.has_value());
  EXPECT_GT(w->created_at_us, 1'600'000'000'000'000);
  EXPECT_EQ(w->collection_count, 0);

  Status dup = cat_->CreateWorkspace("ws");
  EXPECT_EQ(dup.kind(), ErrorKind::kAlreadyExists) << dup.ToString();
  ASSERT_OK(cat_->CreateWorkspace("ws", /*exists_ok=*/true, {{"owner", "other"}}));
  EXPECT_EQ(cat_->GetWorkspace("ws")->properties.at("owner"), "me");  // exists_ok changes nothing

  EXPECT_EQ(cat_->CreateWorkspace("bad name").kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->GetWorkspace("1x").status().kind(), ErrorKind::kInvalidArgument);
}

TEST_P(CatalogSuite, WorkspaceNotFound) {
  Status st = cat_->GetWorkspace("nope").status();
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(st, "code"), "workspace_not_found");
  st = cat_->OpenWorkspace("nope").status();
  EXPECT_EQ(FieldOf(st, "code"), "workspace_not_found");
  EXPECT_EQ(FieldOf(cat_->SetWorkspaceProperties("nope", {{"a", "b"}}), "code"),
            "workspace_not_found");
  EXPECT_EQ(FieldOf(cat_->DropWorkspace("nope"), "code"), "workspace_not_found");
  EXPECT_EQ(FieldOf(cat_->ListCollections("nope").status(), "code"), "workspace_not_found");
  EXPECT_EQ(FieldOf(cat_->CreateCollection("nope.c"), "code"), "workspace_not_found");

  auto w = cat_->OpenWorkspace("made", /*create_if_missing=*/true);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->name, "made");
  EXPECT_TRUE(cat_->OpenWorkspace("made").ok());
}

TEST_P(CatalogSuite, ListWorkspaces) {
  ASSERT_OK(cat_->CreateWorkspace("b"));
  ASSERT_OK(cat_->CreateWorkspace("a"));
  ASSERT_OK(cat_->CreateCollection("b.c1"));
  auto ws = cat_->ListWorkspaces();
  ASSERT_TRUE(ws.ok()) << ws.status().ToString();
  ASSERT_EQ(ws->size(), 2u);
  EXPECT_EQ((*ws)[0].name, "a");
  EXPECT_EQ((*ws)[1].name, "b");
  EXPECT_EQ((*ws)[1].collection_count, 1);
}

TEST_P(CatalogSuite, WorkspaceProperties) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  ASSERT_OK(cat_->SetWorkspaceProperties("ws", {{"a", "1"}, {"b", "2"}}));
  ASSERT_OK(cat_->SetWorkspaceProperties("ws", {{"a", "3"}}));
  ASSERT_OK(cat_->UnsetWorkspaceProperties("ws", {"b", "missing"}));
  EXPECT_EQ(cat_->GetWorkspace("ws")->properties, (PropertyMap{{"a", "3"}}));
  EXPECT_EQ(cat_->SetWorkspaceProperties("ws", {{"", "x"}}).kind(), ErrorKind::kInvalidArgument);
}

TEST_P(CatalogSuite, ProtectionTriStateStored) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  struct Case {
    std::optional<std::string> value;
    bool on;
  };
  for (const Case& c : {Case{std::nullopt, true}, Case{"false", false}, Case{"FALSE", false},
                        Case{"no", true}, Case{"garbage", true}, Case{"true", true}}) {
    if (c.value) {
      ASSERT_OK(cat_->SetWorkspaceProperties(
          "ws", {{kDeletionProtection, *c.value}, {kEgressProtection, *c.value}}));
    } else {
      ASSERT_OK(cat_->UnsetWorkspaceProperties("ws", {kDeletionProtection, kEgressProtection}));
    }
    auto w = cat_->GetWorkspace("ws");
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w->deletion_protection, c.value);
    EXPECT_EQ(w->DeletionProtected(), c.on) << c.value.value_or("<unset>");
    EXPECT_EQ(w->EgressProtected(), c.on) << c.value.value_or("<unset>");
    EXPECT_TRUE(w->properties.empty());  // the flags live in their own columns
  }
  // Set at creation.
  ASSERT_OK(cat_->CreateWorkspace("open", false, {{kEgressProtection, "False"}}));
  auto w = cat_->GetWorkspace("open");
  EXPECT_FALSE(w->EgressProtected());
  EXPECT_TRUE(w->DeletionProtected());
}

TEST_P(CatalogSuite, DropWorkspaceRefusals) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  Status st = cat_->DropWorkspace("ws");
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition) << st.ToString();
  EXPECT_EQ(FieldOf(st, "code"), "deletion_protected");
  for (const char* v : {"no", "garbage", "0", "off"}) {
    ASSERT_OK(cat_->SetWorkspaceProperties("ws", {{kDeletionProtection, v}}));
    EXPECT_EQ(cat_->DropWorkspace("ws").kind(), ErrorKind::kFailedPrecondition) << v;
  }
  ASSERT_OK(cat_->SetWorkspaceProperties("ws", {{kDeletionProtection, "false"}}));
  ASSERT_OK(cat_->CreateCollection("ws.c"));
  st = cat_->DropWorkspace("ws");
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition);
  EXPECT_EQ(FieldOf(st, "code"), "workspace_not_empty");
  ASSERT_OK(cat_->DropCollection("ws.c"));
  ASSERT_OK(cat_->DropWorkspace("ws"));
  EXPECT_EQ(cat_->GetWorkspace("ws").status().kind(), ErrorKind::kNotFound);
  ASSERT_OK(cat_->CreateWorkspace("ws"));  // the name is free again, protected from birth
  EXPECT_TRUE(cat_->GetWorkspace("ws")->DeletionProtected());
}

TEST_P(CatalogSuite, Collections) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  ASSERT_OK(cat_->CreateWorkspace("other"));
  ASSERT_OK(cat_->CreateCollection("ws.sales", false, "the sales", {{"team", "fin"}}));
  ASSERT_OK(cat_->CreateCollection("ws.audit"));
  ASSERT_OK(cat_->CreateCollection("other.sales"));  // same name, other workspace
  Status dup = cat_->CreateCollection("ws.sales");
  EXPECT_EQ(dup.kind(), ErrorKind::kAlreadyExists) << dup.ToString();
  ASSERT_OK(cat_->CreateCollection("ws.sales", /*exists_ok=*/true, "changed?"));
  EXPECT_EQ(cat_->CreateCollection("ws.9").kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(cat_->CreateCollection("ws").kind(), ErrorKind::kInvalidArgument);

  auto c = cat_->GetCollection("ws.sales");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->workspace, "ws");
  EXPECT_EQ(c->name, "sales");
  EXPECT_EQ(c->description, "the sales");
  EXPECT_EQ(c->properties, (PropertyMap{{"team", "fin"}}));
  EXPECT_EQ(c->dataset_count, 0);
  EXPECT_GT(c->created_at_us, 0);

  auto list = cat_->ListCollections("ws");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "audit");
  EXPECT_EQ((*list)[1].name, "sales");
  EXPECT_EQ((*list)[1].description, "the sales");

  Status st = cat_->GetCollection("ws.nope").status();
  EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(FieldOf(st, "code"), "collection_not_found");
  EXPECT_EQ(FieldOf(cat_->DropCollection("ws.nope"), "code"), "collection_not_found");
  EXPECT_EQ(FieldOf(cat_->GetCollection("nope.c").status(), "code"), "workspace_not_found");

  ASSERT_OK(cat_->SetCollectionProperties("ws.sales", {{"tier", "gold"}, {"description", "d2"}}));
  ASSERT_OK(cat_->UnsetCollectionProperties("ws.sales", {"team"}));
  c = cat_->GetCollection("ws.sales");
  EXPECT_EQ(c->properties, (PropertyMap{{"tier", "gold"}}));
  EXPECT_EQ(c->description, "d2");
  EXPECT_GE(c->updated_at_us, c->created_at_us);
}

TEST_P(CatalogSuite, DropCollectionRefusedWhenNotEmpty) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  ASSERT_OK(cat_->CreateCollection("ws.c"));
  AddDataset("ws.c", "d1");
  AddDataset("ws.c", "old", /*dropped=*/true);
  auto c = cat_->GetCollection("ws.c");
  EXPECT_EQ(c->dataset_count, 1);
  EXPECT_EQ(c->dropped_dataset_count, 1);
  Status st = cat_->DropCollection("ws.c");
  EXPECT_EQ(st.kind(), ErrorKind::kFailedPrecondition) << st.ToString();
  EXPECT_EQ(FieldOf(st, "code"), "collection_not_empty");
  EXPECT_TRUE(cat_->GetCollection("ws.c").ok());

  ASSERT_OK(cat_->CreateCollection("ws.empty"));
  ASSERT_OK(cat_->DropCollection("ws.empty"));
  EXPECT_EQ(cat_->GetCollection("ws.empty").status().kind(), ErrorKind::kNotFound);
}

TEST_P(CatalogSuite, ConcurrentCreateCollection) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  for (bool exists_ok : {false, true}) {
    std::string name = exists_ok ? "ws.ok" : "ws.strict";
    std::atomic<int> won{0}, exists{0}, other{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back([&] {
        Status st = cat_->CreateCollection(name, exists_ok);
        if (st.ok()) {
          ++won;
        } else if (st.kind() == ErrorKind::kAlreadyExists) {
          ++exists;
        } else {
          ++other;
          ADD_FAILURE() << st.ToString();
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(other.load(), 0);
    if (exists_ok) {
      EXPECT_EQ(won.load(), 8);
    } else {
      EXPECT_EQ(won.load(), 1);
      EXPECT_EQ(exists.load(), 7);
    }
  }
  auto list = cat_->ListCollections("ws");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 2u);
}

TEST_P(CatalogSuite, ReopenKeepsState) {
  ASSERT_OK(cat_->CreateWorkspace("ws"));
  ASSERT_OK(cat_->CreateCollection("ws.c", false, "kept"));
  if (GetParam() != "sqlite") return;
  cat_.reset();
  auto c = Catalog::OpenEmbedded(dir_.string());
  ASSERT_TRUE(c.ok());
  cat_ = std::move(*c);
  EXPECT_EQ(cat_->GetCollection("ws.c")->description, "kept");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "warehouse"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "catalog.db"));
}

// Issue 14 defect 5: the embedded catalog's database (with the token signing keys), its WAL
// and the warehouse's files were created world-readable.
TEST(EmbeddedCatalogFiles, EveryFileIsOwnerOnlyWhateverTheUmask) {
  namespace fs = std::filesystem;
  auto mode = [](const fs::path& p) {
    struct stat st;
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 0777;
  };
  for (mode_t mask : {mode_t{000}, mode_t{022}}) {
    fs::path base =
        ScratchDir() / ("tarn-modes-" + std::to_string(::getpid()) + "-" + std::to_string(mask));
    fs::remove_all(base);
    fs::path dir = base / "cat";
    mode_t old = ::umask(mask);
    {
      auto c = Catalog::OpenEmbedded(dir.string());
      ASSERT_TRUE(c.ok()) << c.status().ToString();
      ASSERT_OK((*c)->CreateWorkspace("ws"));
      ASSERT_OK((*c)->CreateCollection("ws.c"));
      DatasetDefinition def;
      def.schema = *Schema::Parse("id INT64");
      ASSERT_TRUE((*c)->CreateDataset("ws.c.d", def).ok());
      CommitMeta meta;
      meta.author = "t";
      std::vector<RecordBatch> batches;
      batches.push_back(MakeBatch(def.schema, {{"1"}, {"2"}}));
      auto s = (*c)->Append("ws.c.d", batches, meta);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      // While the catalog is open, its -wal and -shm exist.
      for (const char* f : {"catalog.db", "catalog.db-wal", "catalog.db-shm"}) {
        EXPECT_EQ(mode(dir / f), 0600u) << f << " umask " << mask;
      }
    }
    ::umask(old);
    EXPECT_EQ(mode(base), 0700u);
    EXPECT_EQ(mode(dir), 0700u);
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.is_directory()) {
        EXPECT_EQ(mode(e.path()), 0700u) << e.path() << " umask " << mask;
      } else {
        ++files;
        EXPECT_EQ(mode(e.path()), 0600u) << e.path() << " umask " << mask;
      }
    }
    EXPECT_GE(files, 2);  // catalog.db and the appended Parquet file at least
    fs::remove_all(base);
  }
}

// A catalog made by an older tarn (or opened under a loose umask by hand): its database and
// side files are tightened to 0600 when it is opened; existing directories are left alone.
TEST(EmbeddedCatalogFiles, TooOpenDatabaseIsTightenedOnOpen) {
  namespace fs = std::filesystem;
  fs::path dir = ScratchDir() / ("tarn-loose-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    auto c = Catalog::OpenEmbedded(dir.string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ASSERT_OK((*c)->CreateWorkspace("ws"));
  }
  fs::permissions(dir / "catalog.db", fs::perms(0644));
  fs::permissions(dir, fs::perms(0755));
  {
    std::ofstream(dir / "catalog.db-shm");  // as a crashed older tarn may have left it
    fs::permissions(dir / "catalog.db-shm", fs::perms(0644));
    auto c = Catalog::OpenEmbedded(dir.string());
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_TRUE((*c)->GetWorkspace("ws").ok());
    struct stat st;
    ASSERT_EQ(::stat((dir / "catalog.db").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat((dir / "catalog.db-shm").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0755u);  // the user's directory keeps its mode
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Backends, CatalogSuite, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tarn
