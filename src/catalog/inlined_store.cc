// The statements on inlined files (store.h; the table is migration 20 in store.cc): the bytes of
// small appends' data files, kept in the metastore by path (docs/design/catalog-core.md
// "Inlined appends").
#include "catalog/store.h"

namespace tarn::catalog_store {

namespace {
constexpr size_t kChunk = 400;  // rows a statement
}  // namespace

Status InsertInlinedFiles(Transaction& tx, int64_t dataset_id,
                          const std::vector<std::pair<std::string_view, std::string_view>>& files,
                          int64_t now_us) {
  constexpr size_t kCols = 4;
  for (size_t start = 0; start < files.size(); start += kChunk) {
    const size_t n = std::min(kChunk, files.size() - start);
    SqlParams params;
    params.reserve(n * kCols);
    for (size_t i = start; i < start + n; ++i) {
      params.insert(params.end(),
                    {files[i].first, dataset_id, SqlValue::Blob(files[i].second), now_us});
    }
    TARN_RETURN_NOT_OK(tx.ExecuteDeferred(
        "INSERT INTO inlined_files (path, dataset_id, bytes, created_at) VALUES " +
            Placeholders(n, kCols),
        params));
  }
  return Status::OK();
}

Result<std::optional<std::string>> InlinedFileBytes(Transaction& tx, std::string_view path) {
  TARN_ASSIGN_OR_RETURN(auto row,
                        tx.QueryOne("SELECT bytes FROM inlined_files WHERE path = ?", {path}));
  if (!row) return std::optional<std::string>();
  TARN_ASSIGN_OR_RETURN(std::string_view bytes, row->Blob(0));
  return std::optional<std::string>(std::string(bytes));
}

Result<std::vector<std::string>> DeleteInlinedFiles(Transaction& tx,
                                                    const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (size_t start = 0; start < paths.size(); start += kChunk) {
    const size_t n = std::min(kChunk, paths.size() - start);
    SqlParams params(paths.begin() + static_cast<std::ptrdiff_t>(start),
                     paths.begin() + static_cast<std::ptrdiff_t>(start + n));
    TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("DELETE FROM inlined_files WHERE path IN " +
                                                  Placeholders(1, n) + " RETURNING path",
                                              params));
    for (const Row& r : rows) {
      TARN_ASSIGN_OR_RETURN(std::string_view path, r.Text(0));
      out.emplace_back(path);
    }
  }
  return out;
}

Result<std::vector<InlinedFile>> InlinedFilesPage(Transaction& tx, int64_t dataset_id,
                                                  std::string_view after_path, int64_t limit) {
  TARN_ASSIGN_OR_RETURN(auto rows, tx.Query("SELECT path, bytes FROM inlined_files "
                                            "WHERE dataset_id = ? AND path > ? "
                                            "ORDER BY path LIMIT ?",
                                            {dataset_id, after_path, limit}));
  std::vector<InlinedFile> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    InlinedFile f;
    TARN_ASSIGN_OR_RETURN(f.path, r.Text(0));
    TARN_ASSIGN_OR_RETURN(std::string_view bytes, r.Blob(1));
    f.bytes = std::string(bytes);
    out.push_back(std::move(f));
  }
  return out;
}

Result<InlinedTotals> InlinedFileTotals(Transaction& tx, int64_t dataset_id) {
  TARN_ASSIGN_OR_RETURN(auto row, tx.QueryOne("SELECT COUNT(*), COALESCE(SUM(LENGTH(bytes)), 0) "
                                              "FROM inlined_files WHERE dataset_id = ?",
                                              {dataset_id}));
  InlinedTotals out;
  if (!row) return out;
  TARN_ASSIGN_OR_RETURN(out.files, row->Int64(0));
  TARN_ASSIGN_OR_RETURN(out.bytes, row->Int64(1));
  return out;
}

Result<std::vector<int64_t>> DatasetsWithInlinedFiles(Transaction& tx) {
  TARN_ASSIGN_OR_RETURN(
      auto rows, tx.Query("SELECT DISTINCT dataset_id FROM inlined_files ORDER BY dataset_id"));
  std::vector<int64_t> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    TARN_ASSIGN_OR_RETURN(int64_t id, r.Int64(0));
    out.push_back(id);
  }
  return out;
}

}  // namespace tarn::catalog_store
