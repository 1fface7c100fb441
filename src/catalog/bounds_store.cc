// The bounds index's statements (store.h; the table is migration 19 in store.cc): its rows for
// new files, their rebuild for a field, their copy on rollback, and the interval query the
// planner asks (table/bounds_index.h has the arithmetic).
#include <algorithm>
#include <charconv>

#include "catalog/catalog_internal.h"
#include "catalog/store.h"
#include "common/text.h"
#include "table/field_path.h"

namespace tarn::catalog_store {

using catalog_internal::DataFileFromRow;
using catalog_internal::kDataFileColumns;

namespace {

constexpr size_t kChunk = 400;  // rows a statement

// The entries of `file` for `fields` (those that need a row), each with its field id.
std::vector<std::pair<int32_t, bounds_index::Entry>> Entries(
    const DataFile& file, const std::vector<BoundsField>& fields) {
  std::vector<std::pair<int32_t, bounds_index::Entry>> out;
  for (const BoundsField& f : fields) {
    if (auto e = bounds_index::FileEntry(file, f.field_id, f.type))
      out.emplace_back(f.field_id, *e);
  }
  return out;
}

// node, lo, hi of an entry (NULLs when unknown).
void AppendEntry(const bounds_index::Entry& e, SqlParams* params) {
  if (e.interval) {
    params->insert(params->end(),
                   {bounds_index::Fork(*e.interval), e.interval->lo, e.interval->hi});
  } else {
    params->insert(params->end(), {SqlValue::Null(), SqlValue::Null(), SqlValue::Null()});
  }
}

}  // namespace

std::vector<int32_t> ParseBoundsFields(std::string_view text) {
  std::vector<int32_t> out;
  for (const std::string& part : SplitOn(text, ',')) {
    const std::string_view t = TrimSpace(part);
    int32_t id = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), id);
    if (ec == std::errc() && end == t.data() + t.size() && id > 0) out.push_back(id);
  }
  return out;
}

Result<std::vector<int32_t>> BoundsFields(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(
      auto row, tx.QueryOne("SELECT bounds_fields FROM datasets WHERE id = ?", {dataset_id}));
  if (!row) return std::vector<int32_t>{};
  TARN_ASSIGN_OR_RETURN(auto text, row->Text(0));
  return ParseBoundsFields(text);
}

std::vector<BoundsField> BoundsFieldsIn(const std::vector<int32_t>& ids, const Schema& schema) {
  std::vector<BoundsField> out;
  for (int32_t id : ids) {
    const std::optional<FieldPath> path = FindFieldPath(schema, id);
    if (!path || path->field->type.is_nested()) continue;
    out.push_back(BoundsField{id, path->field->type});
  }
  return out;
}

Status SetBoundsFields(Transaction& tx, int64_t dataset_id, const std::vector<int32_t>& ids) {
  std::string text;
  for (int32_t id : ids) text += (text.empty() ? "" : ",") + std::to_string(id);
  return tx.Execute("UPDATE datasets SET bounds_fields = ? WHERE id = ?", {text, dataset_id})
      .status();
}

Status InsertFileBounds(Transaction& tx, int64_t dataset_id, const std::vector<DataFile*>& files,
                        const std::vector<BoundsField>& fields) {
  if (fields.empty()) return Status::OK();
  // Each row finds its file row by live path in the statement itself (a lookup in the unique
  // index of live paths), so it is queued with the files' insert: no round trip for their ids.
  constexpr char kRow[] =
      "((SELECT f.id FROM data_files f WHERE f.dataset_id = ? AND f.path = ? AND "
      "f.removed_snapshot_id IS NULL), ?, ?, ?, ?, ?)";
  SqlParams params;
  std::string values;
  size_t rows = 0;
  auto flush = [&]() -> Status {
    if (rows == 0) return Status::OK();
    TARN_RETURN_NOT_OK(tx.ExecuteDeferred(
        "INSERT INTO file_bounds (data_file_id, dataset_id, field_id, node, lo, hi) VALUES " +
            values,
        params));
    params.clear();
    values.clear();
    rows = 0;
    return Status::OK();
  };
  for (const DataFile* file : files) {
    for (const auto& [field_id, e] : Entries(*file, fields)) {
      values += rows ? ", " : "";
      values += kRow;
      params.insert(params.end(), {dataset_id, file->path, dataset_id, int64_t{field_id}});
      AppendEntry(e, &params);
      if (++rows >= kChunk) TARN_RETURN_NOT_OK(flush());
    }
  }
  return flush();
}

namespace {

// The rows of the dataset's file rows `where` selects (over data_files f, after the dataset
// id's parameter) for `fields`, inserted by id. The file rows stream and only their entries
// are held (tens of bytes each, not the statistics: a million files' build holds tens of MB);
// each statement of kChunk rows is sent at once, not queued to the commit.
Status InsertRowsOf(Transaction& tx, int64_t dataset_id, const std::string& where,
                    const SqlParams& where_params, const std::vector<BoundsField>& fields) {
  struct Pending {
    int64_t file_id;
    int32_t field_id;
    bounds_index::Entry entry;
  };
  std::vector<Pending> rows;
  SqlParams params = {dataset_id};
  params.insert(params.end(), where_params.begin(), where_params.end());
  TARN_RETURN_NOT_OK(tx.QueryEach(std::string("SELECT ") + kDataFileColumns +
                                      " FROM data_files f WHERE f.dataset_id = ?" + where,
                                  params, [&](const Row& r) -> Status {
                                    TARN_ASSIGN_OR_RETURN(DataFile f, DataFileFromRow(r));
                                    for (auto& [field_id, e] : Entries(f, fields)) {
                                      rows.push_back(Pending{f.file_id, field_id, e});
                                    }
                                    return Status::OK();
                                  }));
  for (size_t start = 0; start < rows.size(); start += kChunk) {
    const size_t n = std::min(kChunk, rows.size() - start);
    SqlParams insert;
    insert.reserve(n * 6);
    for (size_t i = start; i < start + n; ++i) {
      insert.insert(insert.end(), {rows[i].file_id, dataset_id, int64_t{rows[i].field_id}});
      AppendEntry(rows[i].entry, &insert);
    }
    TARN_RETURN_NOT_OK(
        tx.Execute("INSERT INTO file_bounds (data_file_id, dataset_id, field_id, node, lo, hi) "
                   "VALUES " +
                       Placeholders(n, 6),
                   insert)
            .status());
  }
  return Status::OK();
}

}  // namespace

Status BuildFieldBounds(Transaction& tx, int64_t dataset_id,
                        const std::vector<BoundsField>& fields) {
  if (fields.empty()) return Status::OK();
  for (const BoundsField& f : fields) {
    TARN_RETURN_NOT_OK(DeleteFieldBounds(tx, dataset_id, f.field_id));
  }
  return InsertRowsOf(tx, dataset_id, "", {}, fields);
}

Status RebuildFileBounds(Transaction& tx, int64_t dataset_id, std::string_view path,
                         const std::vector<BoundsField>& fields) {
  if (fields.empty()) return Status::OK();
  TARN_RETURN_NOT_OK(tx.Execute("DELETE FROM file_bounds WHERE data_file_id IN (SELECT f.id FROM "
                                "data_files f WHERE f.dataset_id = ? AND f.path = ?)",
                                {dataset_id, path})
                         .status());
  return InsertRowsOf(tx, dataset_id, " AND f.path = ?", {std::string(path)}, fields);
}

Status DeleteFieldBounds(Transaction& tx, int64_t dataset_id, int32_t field_id) {
  return tx
      .Execute("DELETE FROM file_bounds WHERE dataset_id = ? AND field_id = ?",
               {dataset_id, int64_t{field_id}})
      .status();
}

Status CopyFileBounds(Transaction& tx, int64_t from, int64_t to) {
  return tx
      .Execute(
          "INSERT INTO file_bounds (data_file_id, dataset_id, field_id, node, lo, hi) SELECT ?, "
          "dataset_id, field_id, node, lo, hi FROM file_bounds WHERE data_file_id = ?",
          {to, from})
      .status();
}

namespace {

std::string Describe(const std::optional<bounds_index::Entry>& e) {
  if (!e) return "no row";
  if (!e->interval) return "unknown bounds";
  return "points [" + std::to_string(e->interval->lo) + ", " + std::to_string(e->interval->hi) +
         "]";
}

}  // namespace

Status CheckFileBounds(Transaction& tx, int64_t dataset_id,
                       const std::function<Status(const BoundsMismatch&)>& fn) {
  TARN_ASSIGN_OR_RETURN(
      auto row,
      tx.QueryOne("SELECT schema_id, bounds_fields FROM datasets WHERE id = ?", {dataset_id}));
  if (!row) return Status::OK();
  TARN_ASSIGN_OR_RETURN(int64_t schema_id, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(auto ids_text, row->Text(1));
  const std::vector<int32_t> ids = ParseBoundsFields(ids_text);
  if (ids.empty()) return Status::OK();
  TARN_ASSIGN_OR_RETURN(Schema schema, catalog_internal::LoadSchema(tx, dataset_id, schema_id));
  for (const BoundsField& field : BoundsFieldsIn(ids, schema)) {
    const std::optional<FieldPath> path = FindFieldPath(schema, field.field_id);
    const std::string name = path ? path->Text() : std::to_string(field.field_id);
    constexpr size_t c = catalog_internal::kDataFileColumnCount;
    TARN_RETURN_NOT_OK(tx.QueryEach(
        std::string("SELECT ") + kDataFileColumns +
            ", b.data_file_id, b.node, b.lo, b.hi FROM data_files f LEFT JOIN file_bounds b ON "
            "b.data_file_id = f.id AND b.field_id = ? WHERE f.dataset_id = ?",
        {int64_t{field.field_id}, dataset_id}, [&](const Row& r) -> Status {
          TARN_ASSIGN_OR_RETURN(DataFile f, DataFileFromRow(r));
          const std::optional<bounds_index::Entry> want =
              bounds_index::FileEntry(f, field.field_id, field.type);
          std::optional<bounds_index::Entry> have;
          bool node_ok = true;
          if (!r.IsNull(c)) {
            have.emplace();
            if (!r.IsNull(c + 1) && !r.IsNull(c + 2) && !r.IsNull(c + 3)) {
              TARN_ASSIGN_OR_RETURN(int64_t node, r.Int64(c + 1));
              TARN_ASSIGN_OR_RETURN(int64_t lo, r.Int64(c + 2));
              TARN_ASSIGN_OR_RETURN(int64_t hi, r.Int64(c + 3));
              have->interval = bounds_index::Interval{lo, hi};
              node_ok = lo >= 1 && lo <= hi && hi <= bounds_index::kRoot &&
                        node == bounds_index::Fork(*have->interval);
            } else if (!r.IsNull(c + 1) || !r.IsNull(c + 2) || !r.IsNull(c + 3)) {
              node_ok = false;  // a partly unknown row: neither an interval nor unknown
            }
          }
          if (want == have && node_ok) return Status::OK();
          BoundsMismatch m;
          m.path = f.path;
          m.file_id = f.file_id;
          m.field_id = field.field_id;
          m.field = name;
          m.want = Describe(want);
          m.have = node_ok ? Describe(have) : Describe(have) + " at the wrong node";
          return fn(m);
        }));
  }
  return Status::OK();
}

Result<std::optional<std::vector<int64_t>>> BoundsCandidates(
    Transaction& tx, int64_t dataset_id, int32_t field_id,
    const std::vector<bounds_index::Interval>& intervals, int64_t limit) {
  // Each branch is an index range on (dataset_id, field_id, node, lo|hi) with equalities on its
  // first three columns: no IN list, whose use of the index PostgreSQL decides from statistics
  // that a freshly built index does not have yet (a scan of the whole field, measured). One
  // statement per interval keeps under SQLite's 500 compound SELECTs.
  const std::string head =
      "SELECT data_file_id FROM file_bounds WHERE dataset_id = ? AND field_id = ?";
  const SqlParams head_params = {dataset_id, int64_t{field_id}};
  std::vector<int64_t> ids;
  auto run = [&](const std::string& sql, SqlParams params) -> Result<bool> {
    params.emplace_back(limit + 1 - static_cast<int64_t>(ids.size()));
    TARN_RETURN_NOT_OK(tx.QueryEach(sql + " LIMIT ?", params, [&](const Row& r) -> Status {
      TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
      ids.push_back(id);
      return Status::OK();
    }));
    return static_cast<int64_t>(ids.size()) <= limit;
  };
  TARN_ASSIGN_OR_RETURN(bool within, run(head + " AND node IS NULL", head_params));
  for (size_t i = 0; within && i < intervals.size(); ++i) {
    const bounds_index::Probe probe = bounds_index::ProbeOf(intervals[i]);
    std::string sql = head + " AND node >= ? AND node <= ?";
    SqlParams params = head_params;
    params.insert(params.end(), {probe.span.lo, probe.span.hi});
    auto branch = [&](int64_t node, const char* bound, int64_t value) {
      sql += " UNION ALL " + head + " AND node = ? AND " + bound + " ?";
      params.insert(params.end(), head_params.begin(), head_params.end());
      params.insert(params.end(), {node, value});
    };
    for (int64_t node : probe.left) branch(node, "hi >=", probe.span.lo);
    for (int64_t node : probe.right) branch(node, "lo <=", probe.span.hi);
    TARN_ASSIGN_OR_RETURN(within, run(sql, std::move(params)));
  }
  if (!within) return std::optional<std::vector<int64_t>>();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return std::optional<std::vector<int64_t>>(std::move(ids));
}

}  // namespace tarn::catalog_store
