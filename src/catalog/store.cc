// The catalog's tables (workspaces, collections, datasets, their schemas, specs, snapshots,
// files, deletion vectors, tags, offsets, the removal ledger, location grants): their migrations,
// and the statements of the orphan rule, stale manifests, the integrity sweep and periodic runs.
// The other statements on these tables are in the *_store.cc files store.h lists; no other
// catalog file holds SQL (src/catalog/README.md "Tables").
#include "catalog/store.h"

#include <algorithm>
#include <unordered_set>

namespace tarn::catalog_store {

std::string Placeholders(size_t rows, size_t cols) {
  std::string one = "(";
  for (size_t c = 0; c < cols; ++c) one += c ? ", ?" : "?";
  one += ")";
  std::string out;
  out.reserve(rows * (one.size() + 2));
  for (size_t r = 0; r < rows; ++r) {
    if (r) out += ", ";
    out += one;
  }
  return out;
}

Result<std::string> QualifiedNameAt(const Row& r, int first) {
  TARN_ASSIGN_OR_RETURN(auto w, r.Text(first));
  TARN_ASSIGN_OR_RETURN(auto c, r.Text(first + 1));
  TARN_ASSIGN_OR_RETURN(auto d, r.Text(first + 2));
  return std::string(w) + "." + std::string(c) + "." + std::string(d);
}

namespace {

// Portable rules: integers are BIGINT, timestamps BIGINT microseconds since the Unix epoch,
// booleans BIGINT 0/1, JSON documents TEXT, bytes ${BLOB}; surrogate keys are ${ID}.
// Never edit a released migration: add a new one (with the next global version).
constexpr char kCatalogCore[] = R"sql(
CREATE TABLE catalog_properties (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE workspaces (
  id ${ID},
  name TEXT NOT NULL UNIQUE,
  properties TEXT NOT NULL DEFAULT '{}',
  deletion_protection TEXT,
  egress_protection TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE collections (
  id ${ID},
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  properties TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (workspace_id, name)
);

CREATE TABLE datasets (
  id ${ID},
  uuid TEXT NOT NULL UNIQUE,
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  name TEXT NOT NULL,
  description TEXT,
  properties TEXT NOT NULL DEFAULT '{}',
  schema_id BIGINT NOT NULL DEFAULT 0,
  last_field_id BIGINT NOT NULL DEFAULT 0,
  spec_id BIGINT NOT NULL DEFAULT 0,
  sort_order TEXT NOT NULL DEFAULT '[]',
  current_snapshot_id BIGINT,
  last_snapshot_id BIGINT NOT NULL DEFAULT 0,
  next_row_id BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  dropped_at BIGINT,
  CHECK (next_row_id >= 0),
  CHECK (last_snapshot_id >= 0)
);
CREATE UNIQUE INDEX datasets_live_name ON datasets (collection_id, name) WHERE dropped_at IS NULL;

CREATE TABLE dataset_schemas (
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  schema_id BIGINT NOT NULL,
  schema_json TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (dataset_id, schema_id)
);

CREATE TABLE dataset_partition_specs (
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  spec_id BIGINT NOT NULL,
  spec_json TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (dataset_id, spec_id)
);

CREATE TABLE snapshots (
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  snapshot_id BIGINT NOT NULL,
  parent_snapshot_id BIGINT,
  committed_at BIGINT NOT NULL,
  author TEXT NOT NULL,
  message TEXT,
  operation TEXT NOT NULL,
  user_created BIGINT NOT NULL DEFAULT 1,
  schema_id BIGINT NOT NULL,
  spec_id BIGINT NOT NULL DEFAULT 0,
  added_files BIGINT NOT NULL DEFAULT 0,
  deleted_files BIGINT NOT NULL DEFAULT 0,
  total_files BIGINT NOT NULL DEFAULT 0,
  added_records BIGINT NOT NULL DEFAULT 0,
  deleted_records BIGINT NOT NULL DEFAULT 0,
  total_records BIGINT NOT NULL DEFAULT 0,
  added_bytes BIGINT NOT NULL DEFAULT 0,
  deleted_bytes BIGINT NOT NULL DEFAULT 0,
  total_bytes BIGINT NOT NULL DEFAULT 0,
  receipt TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT,
  commit_id TEXT,
  PRIMARY KEY (dataset_id, snapshot_id),
  UNIQUE (dataset_id, idempotency_key),
  CHECK (snapshot_id > 0),
  CHECK (parent_snapshot_id IS NULL OR parent_snapshot_id < snapshot_id)
);
CREATE INDEX snapshots_time ON snapshots (dataset_id, committed_at);
CREATE INDEX snapshots_commit ON snapshots (commit_id);

CREATE TABLE data_files (
  id ${ID},
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  path TEXT NOT NULL,
  file_format TEXT NOT NULL DEFAULT 'parquet',
  added_snapshot_id BIGINT NOT NULL,
  removed_snapshot_id BIGINT,
  record_count BIGINT NOT NULL,
  file_size_bytes BIGINT NOT NULL,
  spec_id BIGINT NOT NULL DEFAULT 0,
  partition_values TEXT NOT NULL DEFAULT '[]',
  stats TEXT NOT NULL DEFAULT '{}',
  first_row_id BIGINT NOT NULL,
  CHECK (record_count >= 0),
  CHECK (file_size_bytes >= 0),
  CHECK (first_row_id >= 0),
  CHECK (removed_snapshot_id IS NULL OR removed_snapshot_id > added_snapshot_id)
);
CREATE UNIQUE INDEX data_files_live_path ON data_files (dataset_id, path)
  WHERE removed_snapshot_id IS NULL;
CREATE INDEX data_files_added ON data_files (dataset_id, added_snapshot_id);
CREATE INDEX data_files_removed ON data_files (dataset_id, removed_snapshot_id);

CREATE TABLE deletion_vectors (
  id ${ID},
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  data_file_id BIGINT NOT NULL REFERENCES data_files (id),
  added_snapshot_id BIGINT NOT NULL,
  removed_snapshot_id BIGINT,
  cardinality BIGINT NOT NULL,
  positions ${BLOB},
  path TEXT,
  CHECK (cardinality >= 0),
  CHECK (positions IS NOT NULL OR path IS NOT NULL),
  CHECK (removed_snapshot_id IS NULL OR removed_snapshot_id > added_snapshot_id)
);
CREATE UNIQUE INDEX deletion_vectors_live ON deletion_vectors (data_file_id)
  WHERE removed_snapshot_id IS NULL;
CREATE INDEX deletion_vectors_added ON deletion_vectors (dataset_id, added_snapshot_id);
CREATE INDEX deletion_vectors_removed ON deletion_vectors (dataset_id, removed_snapshot_id);

CREATE TABLE tags (
  dataset_id BIGINT NOT NULL,
  name TEXT NOT NULL,
  snapshot_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (dataset_id, name),
  FOREIGN KEY (dataset_id, snapshot_id) REFERENCES snapshots (dataset_id, snapshot_id)
);

CREATE TABLE consumer_offsets (
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  consumer TEXT NOT NULL,
  snapshot_id BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (dataset_id, consumer),
  CHECK (snapshot_id >= 0)
);

CREATE TABLE removal_ledger (
  id ${ID},
  dataset_id BIGINT REFERENCES datasets (id),
  path TEXT NOT NULL UNIQUE,
  reason TEXT NOT NULL,
  removed_snapshot_id BIGINT,
  recorded_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX removal_ledger_pending ON removal_ledger (deleted_at, recorded_at);
)sql";

// Datasets at work: running totals and commit time on the dataset row (the per-dataset
// serialization point of commits), the expiry frontier, and an order-preserving key of each
// file's first partition value so planning can prune partitions in SQL. Indexes a commit pays
// for without using them go: the "removed" indexes only hold removed rows, and commit ids are
// not looked up.
constexpr char kDatasetsAtWork[] = R"sql(
ALTER TABLE datasets ADD COLUMN total_files BIGINT NOT NULL DEFAULT 0;
ALTER TABLE datasets ADD COLUMN total_records BIGINT NOT NULL DEFAULT 0;
ALTER TABLE datasets ADD COLUMN total_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE datasets ADD COLUMN last_commit_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE datasets ADD COLUMN expired_through BIGINT NOT NULL DEFAULT 0;
ALTER TABLE data_files ADD COLUMN partition_key ${BLOB};
CREATE INDEX data_files_live_partition ON data_files (dataset_id, spec_id, partition_key)
  WHERE removed_snapshot_id IS NULL;
CREATE INDEX removal_ledger_dataset ON removal_ledger (dataset_id);
DROP INDEX data_files_removed;
CREATE INDEX data_files_removed ON data_files (dataset_id, removed_snapshot_id)
  WHERE removed_snapshot_id IS NOT NULL;
DROP INDEX deletion_vectors_removed;
CREATE INDEX deletion_vectors_removed ON deletion_vectors (dataset_id, removed_snapshot_id)
  WHERE removed_snapshot_id IS NOT NULL;
DROP INDEX snapshots_commit;
CREATE INDEX data_files_path ON data_files (dataset_id, path);
)sql";

// Workspace isolation of files (issue 14): which dataset references a path is looked up by
// path alone when a file is registered, and the external locations an owner granted to a
// dataset (warehouse key prefixes ending in '/'; one live dataset's each).
constexpr char kFileIsolation[] = R"sql(
CREATE INDEX data_files_by_path ON data_files (path);
CREATE TABLE dataset_locations (
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  prefix TEXT NOT NULL,
  granted_by TEXT NOT NULL,
  granted_at BIGINT NOT NULL,
  PRIMARY KEY (dataset_id, prefix)
);
)sql";

// Periodic work of `tarn serve` (the integrity sweep today, housekeeping next): one row per
// step, the time it is next due. A server runs a step only when it moved due_at forward
// itself, so of several servers polling the same metastore one runs each due slot, and a
// step missed while every server was down runs once, not once per missed interval.
constexpr char kPeriodicRuns[] = R"sql(
CREATE TABLE periodic_runs (
  step TEXT PRIMARY KEY,
  due_at BIGINT NOT NULL,
  last_started_at BIGINT,
  last_runner TEXT
);
)sql";

// The row-id watermark of each snapshot (issue 20): datasets.next_row_id as the snapshot left
// it. A read of "what was added after snapshot a" keeps the rows whose ids are at or above a's
// watermark, so rows a compaction rewrote (they keep their ids) are not read as new.
constexpr char kRowIdWatermark[] = R"sql(
ALTER TABLE snapshots ADD COLUMN next_row_id BIGINT;
)sql";

// Every deletion vector of a data file, found by the file (issue 20): the only index on
// data_file_id was partial (live vectors), so the foreign key's check when expiry deletes file
// rows scanned the whole table per row (68 s for 100,000 files beside 10,000 vectors).
constexpr char kVectorsByFile[] = R"sql(
CREATE INDEX deletion_vectors_file ON deletion_vectors (data_file_id);
)sql";

// Deferred statistics (issue 20): a file may be registered before its column statistics are
// known; hydration finds the dataset's pending files through the partial index and fills them.
constexpr char kDeferredStats[] = R"sql(
ALTER TABLE data_files ADD COLUMN stats_pending BIGINT NOT NULL DEFAULT 0;
CREATE INDEX data_files_stats_pending ON data_files (dataset_id) WHERE stats_pending = 1;
)sql";

// Expiry without per-row foreign-key checks (issue 20): `removal_ledger (dataset_id)` to
// `datasets`, `deletion_vectors (data_file_id)` to `data_files` and `tags (dataset_id,
// snapshot_id)` to `snapshots` cost PostgreSQL a check per ledger row expiry inserts, per file
// row and per snapshot row it deletes (3.3 s of 7.2 s for 100,000 snapshots), although expiry
// deletes a file's vectors before the file, never deletes a tagged snapshot and writes ledger
// rows for the dataset it has locked. The catalog keeps those rules itself, each in one place
// (src/catalog/README.md "Maintenance"); tags keep a foreign key to their dataset, checked only
// when a tag is written or a dataset purged.
constexpr char kExpiryWithoutChecks[] = R"sql(
ALTER TABLE removal_ledger DROP CONSTRAINT removal_ledger_dataset_id_fkey;
ALTER TABLE deletion_vectors DROP CONSTRAINT deletion_vectors_data_file_id_fkey;
ALTER TABLE tags DROP CONSTRAINT tags_dataset_id_snapshot_id_fkey;
ALTER TABLE tags ADD FOREIGN KEY (dataset_id) REFERENCES datasets (id);
)sql";

// The same on SQLite, which cannot drop a constraint: each table is rebuilt as SQLite documents
// (lang_altertable.html, "other kinds of table schema changes": create the new table, copy,
// drop the old one, rename, create the indexes again), with its columns, ids and indexes as
// migrations 1, 2 and 16 left them. No table references these three, so foreign_keys=ON
// (which cannot change inside the migration's transaction) checks nothing on the way.
constexpr char kExpiryWithoutChecksSqlite[] = R"sql(
CREATE TABLE removal_ledger_new (
  id ${ID},
  dataset_id BIGINT,
  path TEXT NOT NULL UNIQUE,
  reason TEXT NOT NULL,
  removed_snapshot_id BIGINT,
  recorded_at BIGINT NOT NULL,
  deleted_at BIGINT
);
INSERT INTO removal_ledger_new (id, dataset_id, path, reason, removed_snapshot_id, recorded_at,
  deleted_at)
  SELECT id, dataset_id, path, reason, removed_snapshot_id, recorded_at, deleted_at
  FROM removal_ledger;
DROP TABLE removal_ledger;
ALTER TABLE removal_ledger_new RENAME TO removal_ledger;
CREATE INDEX removal_ledger_pending ON removal_ledger (deleted_at, recorded_at);
CREATE INDEX removal_ledger_dataset ON removal_ledger (dataset_id);

CREATE TABLE deletion_vectors_new (
  id ${ID},
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  data_file_id BIGINT NOT NULL,
  added_snapshot_id BIGINT NOT NULL,
  removed_snapshot_id BIGINT,
  cardinality BIGINT NOT NULL,
  positions ${BLOB},
  path TEXT,
  CHECK (cardinality >= 0),
  CHECK (positions IS NOT NULL OR path IS NOT NULL),
  CHECK (removed_snapshot_id IS NULL OR removed_snapshot_id > added_snapshot_id)
);
INSERT INTO deletion_vectors_new (id, dataset_id, data_file_id, added_snapshot_id,
  removed_snapshot_id, cardinality, positions, path)
  SELECT id, dataset_id, data_file_id, added_snapshot_id, removed_snapshot_id, cardinality,
  positions, path FROM deletion_vectors;
DROP TABLE deletion_vectors;
ALTER TABLE deletion_vectors_new RENAME TO deletion_vectors;
CREATE UNIQUE INDEX deletion_vectors_live ON deletion_vectors (data_file_id)
  WHERE removed_snapshot_id IS NULL;
CREATE INDEX deletion_vectors_added ON deletion_vectors (dataset_id, added_snapshot_id);
CREATE INDEX deletion_vectors_removed ON deletion_vectors (dataset_id, removed_snapshot_id)
  WHERE removed_snapshot_id IS NOT NULL;
CREATE INDEX deletion_vectors_file ON deletion_vectors (data_file_id);

CREATE TABLE tags_new (
  dataset_id BIGINT NOT NULL REFERENCES datasets (id),
  name TEXT NOT NULL,
  snapshot_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (dataset_id, name)
);
INSERT INTO tags_new (dataset_id, name, snapshot_id, created_at)
  SELECT dataset_id, name, snapshot_id, created_at FROM tags;
DROP TABLE tags;
ALTER TABLE tags_new RENAME TO tags;
)sql";

// The bounds index (docs/design/catalog-core.md "The bounds index"): for each file and each field
// the dataset indexes (datasets.bounds_fields, comma-separated ids, read by the commit's lock),
// the fork node and the points of the file's bounds (table/bounds_index.h); node NULL when the
// bounds are unknown. A file whose field is null in every row has no row. The rows go with
// their file row (expiry, purge) and are copied with it (rollback).
constexpr char kBoundsIndex[] = R"sql(
ALTER TABLE datasets ADD COLUMN bounds_fields TEXT NOT NULL DEFAULT '';
CREATE TABLE file_bounds (
  data_file_id BIGINT NOT NULL,
  dataset_id BIGINT NOT NULL,
  field_id BIGINT NOT NULL,
  node BIGINT,
  lo BIGINT,
  hi BIGINT,
  PRIMARY KEY (data_file_id, field_id)
);
CREATE INDEX file_bounds_lo ON file_bounds (dataset_id, field_id, node, lo);
CREATE INDEX file_bounds_hi ON file_bounds (dataset_id, field_id, node, hi);
)sql";

// Inlined files (docs/design/catalog-core.md "Inlined appends"): the bytes of a small append's
// data file, kept here in the commit's own transaction instead of being written to the
// warehouse, by the file's path (a key under "<dataset prefix>inline/"). A row goes when its
// file is deleted through the warehouse (Cleanup, after expiry) or written out there
// (FlushInlined), and with its dataset (purge).
constexpr char kInlinedFiles[] = R"sql(
CREATE TABLE inlined_files (
  path TEXT PRIMARY KEY,
  dataset_id BIGINT NOT NULL,
  bytes ${BLOB} NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX inlined_files_dataset ON inlined_files (dataset_id, path);
)sql";

}  // namespace

const std::vector<Migration>& CatalogTables() {
  static const std::vector<Migration>* steps = new std::vector<Migration>{
      {1, "catalog core", kCatalogCore},
      {2, "datasets at work", kDatasetsAtWork},
      {5, "file isolation", kFileIsolation},
      {12, "periodic runs", kPeriodicRuns},
      {15, "row id watermark", kRowIdWatermark},
      {16, "deletion vectors by file", kVectorsByFile},
      {17, "deferred statistics", kDeferredStats},
      {18, "expiry without foreign-key checks", kExpiryWithoutChecks, kExpiryWithoutChecksSqlite},
      {19, "bounds index", kBoundsIndex},
      {20, "inlined files", kInlinedFiles}};
  return *steps;
}

namespace {
[[maybe_unused]] const bool kContributed = ContributeMigrations(CatalogTables());
}  // namespace

Result<bool> PathRegistered(Transaction& tx, std::string_view path) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT 1 FROM data_files WHERE path = ? LIMIT 1", {path}));
  return row.has_value();
}

// ---- orphans ----

namespace {

// Two lists of keys a statement: SQLite's default limit is 999 parameters.
constexpr size_t kKeyChunk = 400;

// Of keys[start, start + n), those a data_files row or a pending removal names.
Result<std::unordered_set<std::string>> NamedPaths(Transaction& tx,
                                                   const std::vector<const ObjectInfo*>& keys,
                                                   size_t start, size_t n) {
  SqlParams params;
  params.reserve(2 * n);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = start; i < start + n; ++i) params.push_back(keys[i]->key);
  }
  const std::string in = Placeholders(1, n);  // (?, ?, ...)
  std::unordered_set<std::string> named;
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query("SELECT path FROM data_files WHERE path IN " + in +
                              " UNION SELECT path FROM removal_ledger WHERE deleted_at IS NULL "
                              "AND path IN " +
                              in,
                          params));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto path, r.Text(0));
    named.emplace(path);
  }
  return named;
}

}  // namespace

Result<std::vector<ObjectInfo>> Orphans(Transaction& tx, const std::vector<ObjectInfo>& objects,
                                        int64_t now_us, int64_t grace_us) {
  std::vector<const ObjectInfo*> old;
  for (const ObjectInfo& o : objects) {
    if (now_us - o.mtime_ms * 1000 >= grace_us && !ParseManifestKey(o.key)) old.push_back(&o);
  }
  std::vector<ObjectInfo> out;
  for (size_t start = 0; start < old.size(); start += kKeyChunk) {
    const size_t n = std::min(kKeyChunk, old.size() - start);
    TARN_ASSIGN_OR_RETURN(auto named, NamedPaths(tx, old, start, n));
    for (size_t i = start; i < start + n; ++i) {
      if (!named.count(old[i]->key)) out.push_back(*old[i]);
    }
  }
  return out;
}

// ---- manifests ----

namespace {

// The snapshot id `digits` prints (no leading zero but for 0 itself, at most 18 digits: no
// overflow), nullopt for anything else.
std::optional<int64_t> ParseSnapshotDigits(std::string_view digits) {
  if (digits.empty() || digits.size() > 18 || (digits[0] == '0' && digits.size() > 1)) {
    return std::nullopt;
  }
  int64_t id = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    id = id * 10 + (c - '0');
  }
  return id;
}

// "<flavour>/metadata/<id>-<name>" (what follows "datasets/<uuid>/iceberg/"): the snapshot id.
std::optional<int64_t> ParseIcebergTail(std::string_view rest) {
  const size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos) return std::nullopt;
  rest.remove_prefix(slash);
  constexpr std::string_view kMetadata = "/metadata/";
  if (rest.substr(0, kMetadata.size()) != kMetadata) return std::nullopt;
  rest.remove_prefix(kMetadata.size());
  const size_t dash = rest.find('-');
  if (dash == std::string_view::npos || rest.find('/') != std::string_view::npos) {
    return std::nullopt;
  }
  return ParseSnapshotDigits(rest.substr(0, dash));
}

}  // namespace

std::string IcebergMetadataDir(std::string_view dataset_uuid, std::string_view flavour) {
  return "datasets/" + std::string(dataset_uuid) + "/iceberg/" + std::string(flavour) +
         "/metadata/";
}

std::optional<ManifestRef> ParseManifestKey(std::string_view key) {
  constexpr std::string_view kHead = "datasets/", kDir = "/manifests/", kTail = ".parquet";
  constexpr std::string_view kIceberg = "/iceberg/";
  if (key.substr(0, kHead.size()) != kHead) return std::nullopt;
  key.remove_prefix(kHead.size());
  const size_t slash = key.find('/');
  if (slash == 0 || slash == std::string_view::npos) return std::nullopt;
  ManifestRef ref;
  ref.dataset_uuid = std::string(key.substr(0, slash));
  key.remove_prefix(slash);
  if (key.substr(0, kIceberg.size()) == kIceberg) {
    auto id = ParseIcebergTail(key.substr(kIceberg.size()));
    if (!id) return std::nullopt;
    ref.snapshot_id = *id;
    return ref;
  }
  if (key.substr(0, kDir.size()) != kDir) return std::nullopt;
  key.remove_prefix(kDir.size());
  if (key.size() <= kTail.size() || key.substr(key.size() - kTail.size()) != kTail) {
    return std::nullopt;
  }
  key.remove_suffix(kTail.size());
  auto id = ParseSnapshotDigits(key);
  if (!id || *id == 0) return std::nullopt;  // snapshot ids start at 1
  ref.snapshot_id = *id;
  return ref;
}

Result<std::vector<ObjectInfo>> StaleManifests(Transaction& tx,
                                               const std::vector<ObjectInfo>& objects,
                                               int64_t now_us, int64_t grace_us) {
  std::vector<const ObjectInfo*> old;
  std::vector<ManifestRef> refs;
  for (const ObjectInfo& o : objects) {
    if (now_us - o.mtime_ms * 1000 < grace_us) continue;
    auto ref = ParseManifestKey(o.key);
    if (!ref) continue;
    old.push_back(&o);
    refs.push_back(std::move(*ref));
  }
  std::vector<ObjectInfo> out;
  for (size_t start = 0; start < old.size(); start += kKeyChunk) {
    const size_t n = std::min(kKeyChunk, old.size() - start);
    TARN_ASSIGN_OR_RETURN(auto named, NamedPaths(tx, old, start, n));
    // The snapshots that exist among the pairs' uuids and ids (a superset of the pairs' own).
    SqlParams params;
    for (size_t i = start; i < start + n; ++i) params.push_back(refs[i].dataset_uuid);
    for (size_t i = start; i < start + n; ++i) params.push_back(refs[i].snapshot_id);
    const std::string in = Placeholders(1, n);
    TARN_ASSIGN_OR_RETURN(
        auto rows, tx.Query("SELECT d.uuid, sn.snapshot_id FROM snapshots sn JOIN datasets d ON "
                            "d.id = sn.dataset_id WHERE d.uuid IN " +
                                in + " AND sn.snapshot_id IN " + in,
                            params));
    std::unordered_set<std::string> live;
    for (const Row& r : rows) {
      TARN_ASSIGN_OR_RETURN(auto uuid, r.Text(0));
      TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(1));
      live.insert(std::string(uuid) + "/" + std::to_string(id));
    }
    for (size_t i = start; i < start + n; ++i) {
      const std::string pair = refs[i].dataset_uuid + "/" + std::to_string(refs[i].snapshot_id);
      if (!live.count(pair) && !named.count(old[i]->key)) out.push_back(*old[i]);
    }
  }
  return out;
}

// ---- the integrity sweep ----

namespace {

constexpr char kSweepDatasetSelect[] =
    "SELECT d.id, d.uuid, w.name, c.name, d.name, d.current_snapshot_id, d.total_files, "
    "d.total_records, d.total_bytes FROM datasets d JOIN collections c ON c.id = "
    "d.collection_id JOIN workspaces w ON w.id = c.workspace_id WHERE d.dropped_at IS NULL";

Result<SweepDataset> SweepDatasetFromRow(const Row& r) {
  SweepDataset d;
  TARN_ASSIGN_OR_RETURN(d.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(auto uuid, r.Text(1));
  d.uuid = std::string(uuid);
  TARN_ASSIGN_OR_RETURN(d.name, QualifiedNameAt(r, 2));
  TARN_ASSIGN_OR_RETURN(d.current_snapshot_id, r.OptionalInt64(5));
  TARN_ASSIGN_OR_RETURN(d.total_files, r.Int64(6));
  TARN_ASSIGN_OR_RETURN(d.total_records, r.Int64(7));
  TARN_ASSIGN_OR_RETURN(d.total_bytes, r.Int64(8));
  return d;
}

}  // namespace

Result<std::vector<SweepDataset>> LiveDatasetsPage(Transaction& tx, std::string_view workspace,
                                                   int64_t after_id, int64_t limit) {
  std::string sql = std::string(kSweepDatasetSelect) + " AND d.id > ?";
  SqlParams params = {after_id};
  if (!workspace.empty()) {
    sql += " AND w.name = ?";
    params.push_back(workspace);
  }
  sql += " ORDER BY d.id LIMIT ?";
  params.push_back(limit);
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(sql, params));
  std::vector<SweepDataset> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto d, SweepDatasetFromRow(r));
    out.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<int64_t>> DatasetsWithPendingStats(Transaction& tx, int64_t after_id,
                                                      int64_t limit) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT DISTINCT dataset_id FROM data_files WHERE "
                                            "stats_pending = 1 AND removed_snapshot_id IS NULL "
                                            "AND dataset_id > ? ORDER BY dataset_id LIMIT ?",
                                            {after_id, limit}));
  std::vector<int64_t> out;
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
    out.push_back(id);
  }
  return out;
}

Result<std::optional<SweepDataset>> LiveDatasetById(Transaction& tx, int64_t id) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne(std::string(kSweepDatasetSelect) + " AND d.id = ?", {id}));
  if (!row) return std::optional<SweepDataset>();
  TARN_ASSIGN_OR_RETURN(auto d, SweepDatasetFromRow(*row));
  return std::optional<SweepDataset>(std::move(d));
}

Result<std::optional<std::string>> LiveDatasetName(Transaction& tx, std::string_view uuid) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT w.name, c.name, d.name FROM datasets d JOIN collections c ON "
                            "c.id = d.collection_id JOIN workspaces w ON w.id = c.workspace_id "
                            "WHERE d.uuid = ? AND d.dropped_at IS NULL",
                            {uuid}));
  if (!row) return std::optional<std::string>();
  std::string out;
  for (size_t i = 0; i < 3; ++i) {
    TARN_ASSIGN_OR_RETURN(auto part, row->Text(i));
    if (i) out += ".";
    out += std::string(part);
  }
  return std::optional<std::string>(std::move(out));
}

Result<std::optional<SweepSnapshot>> SnapshotForSweep(Transaction& tx, int64_t dataset_id,
                                                      int64_t snapshot_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT committed_at, user_created, operation, receipt, total_files, "
                            "total_records, total_bytes FROM snapshots WHERE dataset_id = ? AND "
                            "snapshot_id = ?",
                            {dataset_id, snapshot_id}));
  if (!row) return std::optional<SweepSnapshot>();
  SweepSnapshot s;
  s.snapshot_id = snapshot_id;
  TARN_ASSIGN_OR_RETURN(s.committed_at_us, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(int64_t user_created, row->Int64(1));
  s.user_created = user_created != 0;
  TARN_ASSIGN_OR_RETURN(auto op, row->Text(2));
  s.operation = std::string(op);
  TARN_ASSIGN_OR_RETURN(auto receipt, row->Text(3));
  s.receipt = std::string(receipt);
  TARN_ASSIGN_OR_RETURN(s.total_files, row->Int64(4));
  TARN_ASSIGN_OR_RETURN(s.total_records, row->Int64(5));
  TARN_ASSIGN_OR_RETURN(s.total_bytes, row->Int64(6));
  return std::optional<SweepSnapshot>(std::move(s));
}

Status ForEachLiveFile(Transaction& tx, int64_t dataset_id,
                       const std::function<Status(const SweepFile&)>& fn) {
  return tx.QueryEach(
      "SELECT f.path, f.record_count, f.file_size_bytes, f.first_row_id, dv.cardinality, CASE "
      "WHEN f.stats LIKE '%\"2147483540\"%' THEN 1 ELSE 0 END FROM "
      "data_files f LEFT JOIN deletion_vectors dv ON dv.data_file_id = f.id AND "
      "dv.removed_snapshot_id IS NULL WHERE f.dataset_id = ? AND f.removed_snapshot_id IS NULL "
      "ORDER BY f.first_row_id, f.id",
      {dataset_id}, [&](const Row& r) -> Status {
        SweepFile f;
        TARN_ASSIGN_OR_RETURN(auto path, r.Text(0));
        f.path = std::string(path);
        TARN_ASSIGN_OR_RETURN(f.record_count, r.Int64(1));
        TARN_ASSIGN_OR_RETURN(f.file_size_bytes, r.Int64(2));
        TARN_ASSIGN_OR_RETURN(f.first_row_id, r.Int64(3));
        TARN_ASSIGN_OR_RETURN(auto deleted, r.OptionalInt64(4));
        f.deleted = deleted.value_or(0);
        TARN_ASSIGN_OR_RETURN(int64_t stored, r.Int64(5));
        f.stores_row_ids = stored != 0;
        return fn(f);
      });
}

Status ForEachReferencedKey(
    Transaction& tx, int64_t dataset_id,
    const std::function<Status(std::string_view key, std::string_view kind)>& fn) {
  return tx.QueryEach(
      "SELECT path, 'data file' FROM data_files WHERE dataset_id = ? UNION SELECT path, "
      "'deletion vector' FROM deletion_vectors WHERE dataset_id = ? AND path IS NOT NULL",
      {dataset_id, dataset_id}, [&](const Row& r) -> Status {
        TARN_ASSIGN_OR_RETURN(auto key, r.Text(0));
        TARN_ASSIGN_OR_RETURN(auto kind, r.Text(1));
        return fn(key, kind);
      });
}

Result<std::vector<std::string>> StillReferenced(Transaction& tx, int64_t dataset_id,
                                                 const std::vector<std::string>& keys) {
  std::vector<std::string> out;
  constexpr size_t kChunk = 400;
  for (size_t start = 0; start < keys.size(); start += kChunk) {
    const size_t n = std::min(kChunk, keys.size() - start);
    SqlParams params = {dataset_id};
    for (size_t i = start; i < start + n; ++i) params.push_back(keys[i]);
    params.push_back(dataset_id);
    for (size_t i = start; i < start + n; ++i) params.push_back(keys[i]);
    const std::string in = Placeholders(1, n);  // (?, ?, ...)
    TARN_ASSIGN_OR_RETURN(
        auto rows,
        tx.Query("SELECT path FROM data_files WHERE dataset_id = ? AND path IN " + in +
                     " UNION SELECT path FROM deletion_vectors WHERE dataset_id = ? AND path IN " +
                     in,
                 params));
    for (const Row& r : rows) {
      TARN_ASSIGN_OR_RETURN(auto path, r.Text(0));
      out.emplace_back(path);
    }
  }
  return out;
}

Result<bool> ClaimPeriodicRun(Transaction& tx, std::string_view step, int64_t now, int64_t next_due,
                              std::string_view runner) {
  TARN_RETURN_NOT_OK(
      tx.Execute(
            "INSERT INTO periodic_runs (step, due_at) VALUES (?, 0) ON CONFLICT (step) DO NOTHING",
            {std::string(step)})
          .status());
  TARN_ASSIGN_OR_RETURN(
      int64_t moved,
      tx.Execute("UPDATE periodic_runs SET due_at = ?, last_started_at = ?, last_runner = ? "
                 "WHERE step = ? AND due_at <= ?",
                 {next_due, now, std::string(runner), std::string(step), now}));
  return moved == 1;
}

}  // namespace tarn::catalog_store
