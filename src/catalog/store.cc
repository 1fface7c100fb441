// The catalog's tables (workspaces, collections, datasets, their schemas, specs, snapshots,
// files, deletion vectors, tags, offsets, the removal ledger, location grants): their migrations
// and the typed statements on them. Every other catalog file reaches these tables through here
// or through catalog_internal.h; see src/catalog/README.md "Tables".
#include "catalog/store.h"

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

}  // namespace

const std::vector<Migration>& CatalogTables() {
  static const std::vector<Migration>* steps =
      new std::vector<Migration>{{1, "catalog core", kCatalogCore},
                                 {2, "datasets at work", kDatasetsAtWork},
                                 {5, "file isolation", kFileIsolation}};
  return *steps;
}

namespace {
[[maybe_unused]] const bool kContributed = ContributeMigrations(CatalogTables());
}  // namespace

Result<std::optional<LockedDataset>> LockDataset(Transaction& tx, const DatasetName& n,
                                                 const LockDelta& d, int64_t now) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne(
          "UPDATE datasets SET last_snapshot_id = last_snapshot_id + ?, current_snapshot_id = "
          "last_snapshot_id + ?, next_row_id = next_row_id + ?, total_files = total_files + ?, "
          "total_records = total_records + ?, total_bytes = total_bytes + ?, last_commit_at = "
          "CASE WHEN last_commit_at > ? THEN last_commit_at ELSE ? END, updated_at = ? WHERE "
          "dropped_at IS NULL AND name = ? AND collection_id = (SELECT c.id FROM collections c "
          "JOIN workspaces w ON w.id = c.workspace_id WHERE w.name = ? AND c.name = ?) "
          "RETURNING id, uuid, last_snapshot_id, next_row_id, last_commit_at, schema_id, "
          "spec_id, total_files, total_records, total_bytes, expired_through, trigger_count, "
          "trigger_due_at, sources",
          {d.snapshots, d.snapshots, d.row_ids, d.files, d.records, d.bytes, now, now, now,
           n.dataset, n.workspace, n.collection}));
  if (!row) return std::optional<LockedDataset>();
  LockedDataset lk;
  TARN_ASSIGN_OR_RETURN(lk.id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto uuid, row->Text(1));
  lk.uuid = std::string(uuid);
  TARN_ASSIGN_OR_RETURN(lk.last_snapshot_id, row->Int64(2));
  TARN_ASSIGN_OR_RETURN(lk.next_row_id, row->Int64(3));
  TARN_ASSIGN_OR_RETURN(lk.commit_at, row->Int64(4));
  TARN_ASSIGN_OR_RETURN(lk.schema_id, row->Int64(5));
  TARN_ASSIGN_OR_RETURN(lk.spec_id, row->Int64(6));
  TARN_ASSIGN_OR_RETURN(lk.total_files, row->Int64(7));
  TARN_ASSIGN_OR_RETURN(lk.total_records, row->Int64(8));
  TARN_ASSIGN_OR_RETURN(lk.total_bytes, row->Int64(9));
  TARN_ASSIGN_OR_RETURN(lk.expired_through, row->Int64(10));
  TARN_ASSIGN_OR_RETURN(lk.trigger_count, row->Int64(11));
  TARN_ASSIGN_OR_RETURN(lk.trigger_due_at, row->Int64(12));
  TARN_ASSIGN_OR_RETURN(auto sources, row->Text(13));
  lk.sources = std::string(sources);
  return std::optional<LockedDataset>(std::move(lk));
}

Result<bool> PathRegistered(Transaction& tx, std::string_view path) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT 1 FROM data_files WHERE path = ? LIMIT 1", {path}));
  return row.has_value();
}

Status InsertSnapshots(Transaction& tx, int64_t dataset_id,
                       const std::vector<const SnapshotInfo*>& snaps,
                       const std::vector<std::string>& sources) {
  constexpr size_t kCols = 23;
  if (snaps.empty()) return Status::OK();
  SqlParams params;
  params.reserve(snaps.size() * kCols);
  for (size_t i = 0; i < snaps.size(); ++i) {
    const SnapshotInfo& s = *snaps[i];
    params.insert(params.end(),
                  {dataset_id,
                   s.snapshot_id,
                   SqlValue::OptionalInt64(s.parent_snapshot_id),
                   s.committed_at_us,
                   s.author,
                   s.message,
                   s.operation,
                   s.user_created,
                   int64_t{s.schema_id},
                   int64_t{s.spec_id},
                   s.added_files,
                   s.deleted_files,
                   s.total_files,
                   s.added_records,
                   s.deleted_records,
                   s.total_records,
                   s.added_bytes,
                   s.deleted_bytes,
                   s.total_bytes,
                   s.receipt ? s.receipt->ToJson() : std::string("{}"),
                   s.idempotency_key ? SqlValue(*s.idempotency_key) : SqlValue::Null(),
                   s.commit_id,
                   sources[i]});
  }
  return tx.ExecuteDeferred(
      "INSERT INTO snapshots (dataset_id, snapshot_id, parent_snapshot_id, committed_at, author, "
      "message, operation, user_created, schema_id, spec_id, added_files, deleted_files, "
      "total_files, added_records, deleted_records, total_records, added_bytes, deleted_bytes, "
      "total_bytes, receipt, idempotency_key, commit_id, sources) VALUES " +
          Placeholders(snaps.size(), kCols),
      params);
}

}  // namespace tarn::catalog_store
