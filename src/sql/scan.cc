// tarn_scan: a tarn dataset as a DuckDB table function.
//
//   tarn_scan('w.c.d' [, snapshot := 3 | tag := 'v1' | at := TIMESTAMP '...']
//             [, filter := 'ts >= ''2026-01-01'''] [, row_ids := true]
//             [, added_after := 7])
//
// added_after := reads only the rows added after that snapshot (an incremental refresh's
// new rows, a task's window): the rows of files added since; of a file a compaction wrote
// (it stores its rows' ids) only the rows whose ids are at or above that snapshot's watermark
// (Client::AddedAfterWatermark), so rows a compaction rewrote are not new. The lineage column of an
// incremental materialized view (kSourceRowIdColumn) is never shown: `SELECT *` over such a view
// gives the columns of its SQL.
//
// filter := is a tarn predicate (the --where syntax), also accepted as "where" := (quoted:
// WHERE is a reserved word).
//
// Bind loads the dataset once per query (QuerySession::Resolve) and declares its columns (the
// types of vectors.h). Init plans the live files at the pinned snapshot, pruned by `where`.
// Embedded, each DuckDB thread takes the next file and reads it a batch at a time
// (DataFileBatches), only the projected columns by field id, deletion vector and `where`
// applied (datafile/reader.h); when DuckDB asks for no
// column of the dataset (it asks for one even for count(*)), rows are counted from the catalog
// without reading data. Remote, one thread pulls the batches the server streams for the same
// snapshot and predicate.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <thread>

#include "common/bounded_queue.h"
#include "datafile/reader.h"
#include "sql/session.h"
#include "sql/vectors.h"
#include "table/deletion_vector.h"
#include "table/predicate.h"
#include "tarn/view.h"
#include "types/batch.h"

namespace tarn::sql {

namespace {

const DuckDbApi& Api() { return **LoadDuckDb(); }

struct ScanBind {
  QuerySession* session = nullptr;
  std::shared_ptr<ResolvedDataset> dataset;
  std::string where;
  std::optional<BoundPredicate> predicate;
  bool row_ids = false;
  std::optional<int64_t> added_after;
  std::vector<size_t> visible;  // per declared column (before the row id): its schema index
};

// Remote: the server's stream for one scan, pulled on a thread of its own.
struct RemoteStream {
  BoundedQueue<RecordBatch> queue{64 << 20};
  std::thread producer;
  ~RemoteStream() {
    queue.Cancel();
    if (producer.joinable()) producer.join();
  }
};

struct ScanGlobal {
  // Per output column: the field id it shows, or kRowIdFieldId; nullopt for a column DuckDB
  // asks for that is none of the dataset's (its row-id placeholder when no column is needed).
  std::vector<std::optional<int32_t>> outputs;
  std::vector<int32_t> field_ids;     // what the embedded reader reads, in order
  bool count_only = false;            // no column of the dataset is wanted
  std::vector<PlannedFile> files;     // embedded
  std::optional<int64_t> min_row_id;  // embedded added_after: the watermark (reader.h)
  std::atomic<size_t> next{0};
  std::unique_ptr<RemoteStream> remote;
};

struct ScanLocal {
  std::unique_ptr<DataFileBatches> file;  // embedded: the file being read, a batch at a time
  RecordBatch batch;                      // the current batch of the file, or of the stream
  std::vector<int> columns;  // per output column: its index in `batch`, -1 for none
  int64_t offset = 0;
  int64_t pending_count = 0;  // count_only without `where`: rows still to emit
};

template <typename T>
void DeleteAs(void* p) {
  delete static_cast<T*>(p);
}

// Reads a named parameter: nullopt when absent or NULL.
template <typename Fn>
auto Named(duckdb_bind_info info, const char* name, Fn&& get)
    -> std::optional<decltype(get(duckdb_value{}))> {
  const DuckDbApi& api = Api();
  duckdb_value v = api.duckdb_bind_get_named_parameter(info, name);
  if (!v) return std::nullopt;
  std::optional<decltype(get(v))> out;
  if (!api.duckdb_is_null_value(v)) out = get(v);
  api.duckdb_destroy_value(&v);
  return out;
}

std::string VarcharOf(duckdb_value v) {
  char* s = Api().duckdb_get_varchar(v);
  std::string out = s ? s : "";
  if (s) Api().duckdb_free(s);
  return out;
}

void Bind(duckdb_bind_info info) {
  const DuckDbApi& api = Api();
  auto* session = static_cast<QuerySession*>(api.duckdb_bind_get_extra_info(info));
  duckdb_value first = api.duckdb_bind_get_parameter(info, 0);
  std::string name = first && !api.duckdb_is_null_value(first) ? VarcharOf(first) : "";
  if (first) api.duckdb_destroy_value(&first);
  auto fail = [&](const Status& st) { api.duckdb_bind_set_error(info, session->Fail(st).c_str()); };
  if (name.empty()) {
    return fail(Status::InvalidArgument("tarn_scan needs a dataset name: tarn_scan('w.c.d')"));
  }
  SnapshotSelector at;
  at.snapshot_id = Named(info, "snapshot", [&](duckdb_value v) { return api.duckdb_get_int64(v); });
  at.tag = Named(info, "tag", VarcharOf);
  at.at_time_us =
      Named(info, "at", [&](duckdb_value v) { return api.duckdb_get_timestamp(v).micros; });
  if ((at.snapshot_id ? 1 : 0) + (at.tag ? 1 : 0) + (at.at_time_us ? 1 : 0) > 1) {
    return fail(Status::InvalidArgument("tarn_scan('" + name +
                                        "'): give at most one of snapshot :=, tag := and at :="));
  }
  auto bind = std::make_unique<ScanBind>();
  bind->session = session;
  auto filter = Named(info, "filter", VarcharOf);
  auto where = Named(info, "where", VarcharOf);
  if (filter && where) {
    return fail(Status::InvalidArgument("tarn_scan('" + name +
                                        "'): give filter := or \"where\" :=, not both"));
  }
  bind->where = filter ? *filter : where.value_or("");
  bind->row_ids = Named(info, "row_ids", [&](duckdb_value v) {
                    return api.duckdb_get_bool(v);
                  }).value_or(false);
  bind->added_after =
      Named(info, "added_after", [&](duckdb_value v) { return api.duckdb_get_int64(v); });
  auto resolved = session->Resolve(name, at);
  if (!resolved.ok()) return fail(resolved.status());
  bind->dataset = *resolved;
  const Schema& schema = bind->dataset->info.schema;
  if (!bind->where.empty()) {
    auto pred = ParseAndBindPredicate(bind->where, schema);
    if (!pred.ok()) {
      return fail(pred.status().WithContext("tarn_scan('" + name + "', filter := ...)"));
    }
    bind->predicate = std::move(*pred);
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const Field& f = schema.fields[i];
    if (f.name == kSourceRowIdColumn) continue;
    bind->visible.push_back(i);
    duckdb_logical_type t = DuckTypeOf(api, f.type);
    api.duckdb_bind_add_result_column(info, f.name.c_str(), t);
    api.duckdb_destroy_logical_type(&t);
  }
  if (bind->row_ids) {
    duckdb_logical_type t = api.duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
    api.duckdb_bind_add_result_column(info, kRowIdColumnName, t);
    api.duckdb_destroy_logical_type(&t);
  }
  api.duckdb_bind_set_cardinality(info, static_cast<idx_t>(bind->dataset->info.total_records),
                                  false);
  api.duckdb_bind_set_bind_data(info, bind.release(), DeleteAs<ScanBind>);
}

void Init(duckdb_init_info info) {
  const DuckDbApi& api = Api();
  auto* bind = static_cast<ScanBind*>(api.duckdb_init_get_bind_data(info));
  QuerySession* session = bind->session;
  const ResolvedDataset& ds = *bind->dataset;
  const Schema& schema = ds.info.schema;
  auto global = std::make_unique<ScanGlobal>();
  const idx_t count = api.duckdb_init_get_column_count(info);
  for (idx_t c = 0; c < count; ++c) {
    idx_t index = api.duckdb_init_get_column_index(info, c);
    if (index < bind->visible.size()) {
      int32_t id = schema.fields[bind->visible[index]].field_id;
      global->outputs.push_back(id);
      if (std::find(global->field_ids.begin(), global->field_ids.end(), id) ==
          global->field_ids.end()) {
        global->field_ids.push_back(id);
      }
    } else if (index == bind->visible.size() && bind->row_ids) {
      global->outputs.push_back(kRowIdFieldId);
    } else {
      global->outputs.push_back(std::nullopt);
    }
  }
  global->count_only = global->field_ids.empty();
  if (global->count_only && bind->predicate && !schema.fields.empty()) {
    global->field_ids.push_back(schema.fields.front().field_id);  // rows to filter
  }
  if (ds.snapshot_id) {
    SnapshotSelector pinned;
    pinned.snapshot_id = ds.snapshot_id;
    if (session->warehouse) {
      Status st =
          session->client->PlanFiles(ds.name, pinned, bind->where, [&](const PlannedFile& f) {
            if (!bind->added_after || f.file.added_snapshot_id > *bind->added_after) {
              global->files.push_back(f);
            }
            return Status::OK();
          });
      if (!st.ok()) return api.duckdb_init_set_error(info, session->Fail(st).c_str());
      if (bind->added_after) {
        auto mark = session->client->AddedAfterWatermark(ds.name, *bind->added_after);
        if (!mark.ok())
          return api.duckdb_init_set_error(info, session->Fail(mark.status()).c_str());
        global->min_row_id = *mark;
      }
      api.duckdb_init_set_max_threads(
          info, std::max<size_t>(1, std::min<size_t>(global->files.size(), session->threads)));
    } else {
      global->remote = std::make_unique<RemoteStream>();
      RemoteStream* stream = global->remote.get();
      // Read at the pinned snapshot, whose schema may lack columns added since (they read
      // as NULL): columns are matched by field id.
      ScanOptions scan;
      scan.at = pinned;
      scan.where = bind->where;
      scan.with_row_ids = bind->row_ids;
      scan.added_after = bind->added_after;
      // Only the projected columns cross the network, named as the pinned snapshot's schema
      // names them (a column renamed since keeps its field id; one added since is not there).
      auto at_snapshot = session->client->LoadDataset(ds.name, pinned);
      if (!at_snapshot.ok()) {
        return api.duckdb_init_set_error(info, session->Fail(at_snapshot.status()).c_str());
      }
      for (const Field& f : at_snapshot->schema.fields) {
        if (std::find(global->field_ids.begin(), global->field_ids.end(), f.field_id) !=
            global->field_ids.end()) {
          scan.columns.push_back(f.name);
        }
      }
      if (scan.columns.empty() && !at_snapshot->schema.fields.empty()) {
        scan.columns.push_back(at_snapshot->schema.fields.front().name);  // rows to count
      }
      // The thread owns copies of what it reads: it ends (the stream's destructor cancels and
      // joins) with the global state, whose lifetime DuckDB does not tie to the bind data's.
      stream->producer = std::thread([client = session->client, name = ds.name, scan, stream] {
        Status st = client->Scan(name, scan, [&](const RecordBatch& b) -> Status {
          if (!stream->queue.Push(CloneBatch(b), BatchBytes(b))) {
            return Status::Cancelled("the query stopped reading");
          }
          return Status::OK();
        });
        stream->queue.Finish(st);
      });
      api.duckdb_init_set_max_threads(info, 1);
    }
  }
  api.duckdb_init_set_init_data(info, global.release(), DeleteAs<ScanGlobal>);
}

void LocalInit(duckdb_init_info info) {
  Api().duckdb_init_set_init_data(info, new ScanLocal(), DeleteAs<ScanLocal>);
}

constexpr int kNullColumn = -2;

// Points each output column at its column of `local->batch` (by field id).
Status MapColumns(const ScanGlobal& global, ScanLocal* local) {
  local->columns.clear();
  for (const auto& want : global.outputs) {
    int found = -1;
    if (want) {
      for (size_t i = 0; i < local->batch.schema.fields.size(); ++i) {
        if (local->batch.schema.fields[i].field_id == *want) found = static_cast<int>(i);
      }
      if (found < 0) found = kNullColumn;  // added after the snapshot the server read
    }
    local->columns.push_back(found);
  }
  return Status::OK();
}

// Loads the next batch into `local`; false at the end.
Result<bool> NextBatch(const ScanBind& bind, ScanGlobal& global, ScanLocal* local) {
  QuerySession& session = *bind.session;
  if (global.remote) {
    TARN_ASSIGN_OR_RETURN(auto batch, global.remote->queue.Pop());
    if (!batch) return false;
    local->batch = std::move(*batch);
    local->offset = 0;
    TARN_RETURN_NOT_OK(MapColumns(global, local));
    return true;
  }
  for (;;) {
    if (local->file) {
      TARN_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, local->file->Next());
      if (b) {
        local->offset = 0;
        if (global.count_only) {
          local->pending_count = b->num_rows;
          local->batch = RecordBatch();
          return true;
        }
        local->batch = std::move(*b);
        TARN_RETURN_NOT_OK(MapColumns(global, local));
        return true;
      }
      local->file.reset();
    }
    const size_t i = global.next.fetch_add(1);
    if (i >= global.files.size()) return false;
    const PlannedFile& f = global.files[i];
    // Of a compacted file added in the window only the rows new since its start count.
    const std::optional<int64_t> min_row_id =
        f.file.StoresRowIds() ? global.min_row_id : std::optional<int64_t>();
    if (global.count_only && !bind.predicate && !min_row_id) {
      local->pending_count = f.file.record_count - f.deleted_rows;
      local->batch = RecordBatch();
      local->offset = 0;
      return true;
    }
    std::vector<uint64_t> deleted;
    if (f.deletion_vector) {
      TARN_ASSIGN_OR_RETURN(deleted, DecodeDeletionVector(*f.deletion_vector));
    }
    ReadOptions options;
    options.field_ids = global.field_ids;
    options.with_row_ids = bind.row_ids;
    options.min_row_id = min_row_id;
    // A batch at a time, as Client::Scan reads: memory holds a batch of the file, not the
    // file, and DuckDB copies each out of the cache it was decoded into.
    TARN_ASSIGN_OR_RETURN(
        local->file,
        DataFileBatches::Open(*session.warehouse, f.file, bind.dataset->info.schema,
                              std::move(deleted), bind.predicate ? &*bind.predicate : nullptr,
                              options, kDefaultScanBatchRows));
  }
}

void Function(duckdb_function_info info, duckdb_data_chunk output) {
  const DuckDbApi& api = Api();
  auto* bind = static_cast<ScanBind*>(api.duckdb_function_get_bind_data(info));
  auto* global = static_cast<ScanGlobal*>(api.duckdb_function_get_init_data(info));
  auto* local = static_cast<ScanLocal*>(api.duckdb_function_get_local_init_data(info));
  const int64_t capacity = static_cast<int64_t>(api.duckdb_vector_size());
  for (;;) {
    if (local->pending_count > 0) {
      int64_t n = std::min(capacity, local->pending_count);
      local->pending_count -= n;
      for (size_t c = 0; c < global->outputs.size(); ++c) {
        // Placeholder columns of a count: zeros, never read.
        void* data = api.duckdb_vector_get_data(api.duckdb_data_chunk_get_vector(output, c));
        if (data) std::memset(data, 0, static_cast<size_t>(n) * sizeof(int64_t));
      }
      api.duckdb_data_chunk_set_size(output, static_cast<idx_t>(n));
      return;
    }
    if (local->offset < local->batch.num_rows) {
      int64_t n = std::min(capacity, local->batch.num_rows - local->offset);
      for (size_t c = 0; c < local->columns.size(); ++c) {
        duckdb_vector vec = api.duckdb_data_chunk_get_vector(output, c);
        if (local->columns[c] == kNullColumn) {
          // Nulls at every nested level: DuckDB reads a null struct's members too.
          const std::vector<Field>& fields = bind->dataset->info.schema.fields;
          auto f = std::find_if(fields.begin(), fields.end(),
                                [&](const Field& x) { return x.field_id == *global->outputs[c]; });
          WriteVector(api, vec, Column::Nulls(f->type, n), 0, n);
          continue;
        }
        if (local->columns[c] < 0) {
          void* data = api.duckdb_vector_get_data(vec);
          if (data) std::memset(data, 0, static_cast<size_t>(n) * sizeof(int64_t));
          continue;
        }
        WriteVector(api, vec, local->batch.columns[local->columns[c]], local->offset, n);
      }
      local->offset += n;
      api.duckdb_data_chunk_set_size(output, static_cast<idx_t>(n));
      return;
    }
    auto more = NextBatch(*bind, *global, local);
    if (!more.ok()) {
      api.duckdb_function_set_error(info, bind->session->Fail(more.status()).c_str());
      return;
    }
    if (!*more) {
      api.duckdb_data_chunk_set_size(output, 0);
      return;
    }
  }
}

}  // namespace

Status RegisterTarnScan(QuerySession* session, duckdb_connection con) {
  const DuckDbApi& api = *session->api;
  duckdb_table_function fn = api.duckdb_create_table_function();
  api.duckdb_table_function_set_name(fn, "tarn_scan");
  auto add = [&](const char* name, duckdb_type type) {
    duckdb_logical_type t = api.duckdb_create_logical_type(type);
    if (name) {
      api.duckdb_table_function_add_named_parameter(fn, name, t);
    } else {
      api.duckdb_table_function_add_parameter(fn, t);
    }
    api.duckdb_destroy_logical_type(&t);
  };
  add(nullptr, DUCKDB_TYPE_VARCHAR);
  add("snapshot", DUCKDB_TYPE_BIGINT);
  add("tag", DUCKDB_TYPE_VARCHAR);
  add("at", DUCKDB_TYPE_TIMESTAMP);
  add("filter", DUCKDB_TYPE_VARCHAR);
  add("where", DUCKDB_TYPE_VARCHAR);  // the same; WHERE is reserved, so written "where" :=
  add("row_ids", DUCKDB_TYPE_BOOLEAN);
  add("added_after", DUCKDB_TYPE_BIGINT);
  api.duckdb_table_function_set_extra_info(fn, session, nullptr);
  api.duckdb_table_function_set_bind(fn, Bind);
  api.duckdb_table_function_set_init(fn, Init);
  api.duckdb_table_function_set_local_init(fn, LocalInit);
  api.duckdb_table_function_set_function(fn, Function);
  api.duckdb_table_function_supports_projection_pushdown(fn, true);
  duckdb_state state = api.duckdb_register_table_function(con, fn);
  api.duckdb_destroy_table_function(&fn);
  if (state != DuckDBSuccess) return Status::Internal("registering tarn_scan with DuckDB failed");
  return Status::OK();
}

}  // namespace tarn::sql
