// The catalog schema as ordered migrations. Never edit a released migration: add a new one.
//
// Portable rules: integers are BIGINT, timestamps BIGINT microseconds since the Unix epoch,
// booleans BIGINT 0/1, JSON documents TEXT, bytes ${BLOB}; surrogate keys are ${ID}.
#include "metastore/metastore.h"

namespace tarn {

namespace {

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

// Access control and audit (PRODUCT.md V5). Tokens name their workspace (or '*') by name so a
// bootstrap owner can exist before any workspace; secrets are Argon2id hashes (PHC strings).
// Signing keys sign the short-lived bearer tokens every server of one metastore issues and
// accepts. Audit rows of commits are written in the commit's own transaction.
constexpr char kAccessControl[] = R"sql(
CREATE TABLE access_tokens (
  client_id TEXT PRIMARY KEY,
  workspace TEXT NOT NULL,
  role TEXT NOT NULL,
  pattern TEXT NOT NULL DEFAULT '*',
  secret_hash TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT,
  revoked_at BIGINT
);
CREATE INDEX access_tokens_workspace ON access_tokens (workspace);

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  secret ${BLOB} NOT NULL,
  created_at BIGINT NOT NULL,
  retired_at BIGINT
);

CREATE TABLE audit_log (
  id ${ID},
  at BIGINT NOT NULL,
  request_id TEXT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  workspace TEXT NOT NULL DEFAULT '',
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_at ON audit_log (at);
)sql";

// Upload contracts (PRODUCT.md U1-U5, docs/design/upload.md): one row per contract, its request,
// plan, issues and write schema in `body` (JSON); one row per staged part with the DataFiles it
// wrote (`files`, a JSON array). Every state change is an UPDATE guarded by the previous state.
constexpr char kUploads[] = R"sql(
CREATE TABLE upload_contracts (
  id TEXT PRIMARY KEY,
  target TEXT NOT NULL,
  state TEXT NOT NULL,
  created_by TEXT NOT NULL,
  body TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  idempotency_key TEXT,
  commit_result TEXT
);
CREATE INDEX upload_contracts_expiry ON upload_contracts (state, expires_at);

CREATE TABLE upload_parts (
  contract_id TEXT NOT NULL REFERENCES upload_contracts (id),
  seq BIGINT NOT NULL,
  name TEXT NOT NULL,
  row_count BIGINT NOT NULL,
  bytes_read BIGINT NOT NULL,
  bytes_written BIGINT NOT NULL,
  file_count BIGINT NOT NULL,
  written_at BIGINT NOT NULL,
  files TEXT NOT NULL,
  PRIMARY KEY (contract_id, seq)
);
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

// Federated sign-in (docs/design/federation.md): an owner's rule maps the ID tokens of one
// issuer with one exact subject to one access token's client. The issuers named here are the
// only ones the server ever contacts.
constexpr char kFederation[] = R"sql(
CREATE TABLE federation_rules (
  id TEXT PRIMARY KEY,
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  client_id TEXT NOT NULL REFERENCES access_tokens (client_id),
  description TEXT NOT NULL DEFAULT '',
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  UNIQUE (issuer, subject)
);
CREATE INDEX federation_rules_client ON federation_rules (client_id);
)sql";

}  // namespace

const std::vector<Migration>& CatalogMigrations() {
  static const std::vector<Migration>* migrations =
      new std::vector<Migration>{{1, "catalog core", kCatalogCore},
                                 {2, "datasets at work", kDatasetsAtWork},
                                 {3, "access control", kAccessControl},
                                 {4, "uploads", kUploads},
                                 {5, "file isolation", kFileIsolation},
                                 {6, "federation", kFederation}};
  return *migrations;
}

}  // namespace tarn
