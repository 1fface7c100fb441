// The tables of views and the statements on them (views_store.h).
#include "catalog/views_store.h"

#include "table/schema_json.h"

namespace tarn::views_store {

namespace {

// Portable rules as in catalog/store.cc. A view's name is unique in its collection among
// views of every kind; views.cc keeps it apart from the live datasets' names too (a
// serializable transaction reads both). A materialized view's row names its dataset.
constexpr char kViews[] = R"sql(
CREATE TABLE views (
  id ${ID},
  collection_id BIGINT NOT NULL REFERENCES collections (id),
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  dataset_id BIGINT REFERENCES datasets (id),
  version BIGINT NOT NULL,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  last_run_at BIGINT,
  last_row_count BIGINT,
  last_run_us BIGINT,
  UNIQUE (collection_id, name)
);
CREATE INDEX views_dataset ON views (dataset_id);

CREATE TABLE view_versions (
  view_id BIGINT NOT NULL REFERENCES views (id),
  version BIGINT NOT NULL,
  sql_text TEXT NOT NULL,
  dialect TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  schema_json TEXT,
  author TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (view_id, version)
);
)sql";

[[maybe_unused]] const bool kContributed = ContributeMigrations(ViewTables());

constexpr char kViewColumns[] =
    "v.id, v.kind, v.dataset_id, v.version, v.created_by, v.created_at, v.updated_at, "
    "v.last_run_at, v.last_row_count, v.last_run_us";

Result<ViewRow> ViewFromRow(const Row& r) {
  ViewRow v;
  TARN_ASSIGN_OR_RETURN(v.id, r.Int64(0));
  TARN_ASSIGN_OR_RETURN(auto kind, r.Text(1));
  v.kind = std::string(kind);
  TARN_ASSIGN_OR_RETURN(v.dataset_id, r.OptionalInt64(2));
  TARN_ASSIGN_OR_RETURN(v.info.current.version, r.Int64(3));
  TARN_ASSIGN_OR_RETURN(auto by, r.Text(4));
  v.info.created_by = std::string(by);
  TARN_ASSIGN_OR_RETURN(v.info.created_at_us, r.Int64(5));
  TARN_ASSIGN_OR_RETURN(v.info.updated_at_us, r.Int64(6));
  TARN_ASSIGN_OR_RETURN(v.info.last_run_at_us, r.OptionalInt64(7));
  TARN_ASSIGN_OR_RETURN(v.info.last_row_count, r.OptionalInt64(8));
  TARN_ASSIGN_OR_RETURN(v.info.last_run_us, r.OptionalInt64(9));
  return v;
}

constexpr char kVersionColumns[] =
    "version, sql_text, dialect, description, schema_json, author, created_at";

constexpr char kVersionColumnsX[] =
    "x.version, x.sql_text, x.dialect, x.description, x.schema_json, x.author, x.created_at";

Result<ViewVersion> VersionFromRow(const Row& r, size_t at = 0) {
  ViewVersion v;
  TARN_ASSIGN_OR_RETURN(v.version, r.Int64(at));
  TARN_ASSIGN_OR_RETURN(auto sql, r.Text(at + 1));
  v.sql = std::string(sql);
  TARN_ASSIGN_OR_RETURN(auto dialect, r.Text(at + 2));
  v.dialect = std::string(dialect);
  TARN_ASSIGN_OR_RETURN(auto description, r.Text(at + 3));
  v.description = std::string(description);
  TARN_ASSIGN_OR_RETURN(auto schema, r.OptionalText(at + 4));
  if (schema) {
    TARN_ASSIGN_OR_RETURN(auto parsed, SchemaFromJson(*schema));
    v.schema = std::move(parsed);
  }
  TARN_ASSIGN_OR_RETURN(auto author, r.Text(at + 5));
  v.author = std::string(author);
  TARN_ASSIGN_OR_RETURN(v.created_at_us, r.Int64(at + 6));
  return v;
}

}  // namespace

const std::vector<Migration>& ViewTables() {
  static const std::vector<Migration>* steps = new std::vector<Migration>{{7, "views", kViews}};
  return *steps;
}

Result<std::optional<ViewRow>> FindView(Transaction& tx, int64_t collection_id,
                                        std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kViewColumns +
                                                  " FROM views v WHERE v.collection_id = ? AND "
                                                  "v.name = ?",
                                              {collection_id, name}));
  if (!row) return std::optional<ViewRow>();
  TARN_ASSIGN_OR_RETURN(auto v, ViewFromRow(*row));
  return std::optional<ViewRow>(std::move(v));
}

Result<bool> LiveDatasetNamed(Transaction& tx, int64_t collection_id, std::string_view name) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT 1 FROM datasets WHERE collection_id = ? "
                                              "AND name = ? AND dropped_at IS NULL",
                                              {collection_id, name}));
  return row.has_value();
}

Result<int64_t> CountViews(Transaction& tx, int64_t collection_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT COUNT(*) FROM views WHERE collection_id = ?", {collection_id}));
  return row ? row->Int64(0) : Result<int64_t>(int64_t{0});
}

Result<int64_t> InsertView(Transaction& tx, int64_t collection_id, std::string_view name,
                           std::string_view kind, std::optional<int64_t> dataset_id,
                           std::string_view author, int64_t now_us) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("INSERT INTO views (collection_id, name, kind, dataset_id, version, "
                            "created_by, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?) "
                            "RETURNING id",
                            {collection_id, name, kind, SqlValue::OptionalInt64(dataset_id), author,
                             now_us, now_us}));
  if (!row) return Status::Internal("inserting a view returned no id");
  return row->Int64(0);
}

Status InsertVersion(Transaction& tx, int64_t view_id, int64_t version, const ViewDefinition& def,
                     std::string_view author, int64_t now_us) {
  std::optional<std::string> schema;
  if (def.schema) schema = SchemaToJson(*def.schema);
  TARN_RETURN_NOT_OK(tx.Execute("INSERT INTO view_versions (view_id, version, sql_text, dialect, "
                                "description, schema_json, author, created_at) VALUES (?, ?, ?, "
                                "?, ?, ?, ?, ?)",
                                {view_id, version, def.sql, def.dialect, def.description,
                                 schema ? SqlValue(*schema) : SqlValue::Null(), author, now_us})
                         .status());
  return tx
      .Execute("UPDATE views SET version = ?, updated_at = ? WHERE id = ?",
               {version, now_us, view_id})
      .status();
}

Result<std::optional<ViewVersion>> LoadVersion(Transaction& tx, int64_t view_id, int64_t version) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne(std::string("SELECT ") + kVersionColumns +
                                                  " FROM view_versions WHERE view_id = ? AND "
                                                  "version = ?",
                                              {view_id, version}));
  if (!row) return std::optional<ViewVersion>();
  TARN_ASSIGN_OR_RETURN(auto v, VersionFromRow(*row));
  return std::optional<ViewVersion>(std::move(v));
}

Result<std::vector<ViewVersion>> ListVersions(Transaction& tx, int64_t view_id) {
  std::vector<ViewVersion> out;
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query(std::string("SELECT ") + kVersionColumns +
                                                " FROM view_versions WHERE view_id = ? ORDER "
                                                "BY version",
                                            {view_id}));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto v, VersionFromRow(r));
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<ViewInfo>> ListViews(Transaction& tx, int64_t collection_id,
                                        std::string_view kind) {
  std::vector<ViewInfo> out;
  TARN_ASSIGN_OR_RETURN(
      auto rows,
      tx.Query(std::string("SELECT ") + kViewColumns + ", v.name, w.name, c.name, " +
                   kVersionColumnsX +
                   " FROM views v JOIN collections c ON c.id = v.collection_id JOIN workspaces w "
                   "ON w.id = c.workspace_id JOIN view_versions x ON x.view_id = v.id AND "
                   "x.version = v.version WHERE v.collection_id = ? AND v.kind = ? ORDER BY "
                   "v.name",
               {collection_id, kind}));
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(auto v, ViewFromRow(r));
    TARN_ASSIGN_OR_RETURN(auto name, r.Text(10));
    TARN_ASSIGN_OR_RETURN(auto ws, r.Text(11));
    TARN_ASSIGN_OR_RETURN(auto coll, r.Text(12));
    v.info.name = DatasetName{std::string(ws), std::string(coll), std::string(name)};
    TARN_ASSIGN_OR_RETURN(v.info.current, VersionFromRow(r, 13));
    out.push_back(std::move(v.info));
  }
  return out;
}

Status DeleteView(Transaction& tx, int64_t view_id) {
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM view_versions WHERE view_id = ?", {view_id}).status());
  return tx.Execute("DELETE FROM views WHERE id = ?", {view_id}).status();
}

Status RecordRun(Transaction& tx, int64_t view_id, int64_t at_us, int64_t row_count,
                 int64_t micros) {
  return tx
      .Execute("UPDATE views SET last_run_at = ?, last_row_count = ?, last_run_us = ? WHERE id = ?",
               {at_us, row_count, micros, view_id})
      .status();
}

}  // namespace tarn::views_store
