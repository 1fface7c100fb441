#include "sql/into.h"

#include <cstring>
#include <future>
#include <set>
#include <thread>

#include "catalog/error_codes.h"
#include "common/bounded_queue.h"
#include "common/discard.h"
#include "sql/error_codes.h"
#include "table/error_codes.h"
#include "types/batch.h"
#include "types/cast.h"

namespace tarn::sql {

namespace {

// The egress lock (docs/design/egress.md): a copy out of a workspace whose egress_protection is
// on (absent, null or anything but an explicit false) is refused unless that workspace marked
// `object` SECURE into `destination`; copies within one workspace never are. The source's flag
// and marks decide, never the destination's.
Status CheckEgress(Client& client, const std::vector<ReadReference>& reads,
                   const std::string& destination, const std::string& target,
                   const std::string& object) {
  std::set<std::string> checked;
  for (const ReadReference& r : reads) {
    TARN_ASSIGN_OR_RETURN(auto name, ParseDatasetName(r.dataset));
    if (name.workspace == destination || !checked.insert(name.workspace).second) continue;
    TARN_ASSIGN_OR_RETURN(auto ws, client.GetWorkspace(name.workspace));
    if (ws.EgressProtected() && !EgressSanctioned(ws, object, destination)) {
      return Status::Of(codes::kEgressBlocked,
                        "writing into " + target + " reads " + r.dataset + ", and workspace '" +
                            name.workspace +
                            "' does not let its data be copied into another workspace "
                            "(egress_protection is on; its owner may mark " +
                            object + " SECURE into '" + destination +
                            "', or set egress_protection=false)")
          .WithField("workspace", name.workspace)
          .WithField("destination", destination)
          .WithField("object", object);
    }
  }
  return Status::OK();
}

// How a result batch becomes a batch of the target's schema: per target field, the result
// column it takes (by name) and whether it needs a cast; -1 for a column of NULLs.
struct Mapping {
  Schema target;
  std::vector<int> source;
};

Result<Mapping> MapToTarget(const Schema& result, const Schema& target, const std::string& name) {
  Mapping m;
  m.target = target;
  for (const Field& f : result.fields) {
    if (target.FieldIndex(f.name) < 0) {
      return Status::Of(codes::kColumnNotFound, name + " has no column '" + f.name +
                                                    "' for the query's column of that name")
          .WithField("column", f.name);
    }
  }
  for (const Field& f : target.fields) {
    int i = result.FieldIndex(f.name);
    if (i < 0 && !f.nullable) {
      return Status::InvalidArgument("the query has no column '" + f.name + "', which " + name +
                                     " requires (NOT NULL)");
    }
    if (i >= 0 && !CanCast(result.fields[i].type, f.type)) {
      return Status::InvalidArgument(
          "the query's column '" + f.name + "' is " + result.fields[i].type.ToString() +
          ", which does not cast to " + name + "'s " + f.type.ToString());
    }
    m.source.push_back(i);
  }
  return m;
}

Result<RecordBatch> Convert(const Mapping& m, RecordBatch in) {
  RecordBatch out;
  out.schema = m.target;
  out.num_rows = in.num_rows;
  for (size_t c = 0; c < m.target.fields.size(); ++c) {
    const Field& f = m.target.fields[c];
    if (m.source[c] < 0) {
      out.columns.push_back(Column::Nulls(f.type, in.num_rows));
      continue;
    }
    Column& col = in.columns[m.source[c]];
    if (col.type == f.type) {
      out.columns.push_back(std::move(col));
    } else {
      TARN_ASSIGN_OR_RETURN(auto cast, CastColumn(col, f.type));
      out.columns.push_back(std::move(cast));
    }
  }
  return out;
}

}  // namespace

Result<IntoResult> QueryInto(Client& client, std::string_view sql, const QueryOptions& options,
                             const IntoOptions& into) {
  TARN_ASSIGN_OR_RETURN(auto target, ParseDatasetName(into.target));
  const std::string target_name = target.ToString();
  std::optional<DatasetInfo> existing;
  {
    auto loaded = client.LoadDataset(target_name);
    if (loaded.ok()) {
      existing = std::move(*loaded);
    } else if (!loaded.status().Is(codes::kDatasetNotFound) || into.mode != IntoMode::kCreate) {
      return loaded.status();
    }
  }
  if (into.replace_where && into.mode != IntoMode::kAppend) {
    return Status::InvalidArgument("replace_where goes with an append");
  }
  if (into.mode == IntoMode::kCreate && existing) {
    return Status::Of(codes::kDatasetExists,
                      target_name + " exists: --append or --overwrite write into it")
        .WithField("dataset", target_name);
  }

  // The query runs on a thread of its own and hands its batches over a bounded queue to the
  // append below, which pulls them; it starts once the query is bound (schema and reads known).
  BoundedQueue<RecordBatch> queue(64 << 20);
  std::promise<Result<std::pair<Schema, std::vector<ReadReference>>>> started;
  auto started_future = started.get_future();
  bool announced = false;
  QueryOptions run = options;
  run.on_start = [&](const Schema& schema, const std::vector<ReadReference>& reads) -> Status {
    if (options.on_start) TARN_RETURN_NOT_OK(options.on_start(schema, reads));
    announced = true;
    started.set_value(std::make_pair(schema, reads));
    return Status::OK();
  };
  Result<QueryResult> query_result = Status::Internal("the query did not run");
  std::thread runner([&] {
    query_result = RunQueryOwned(client, sql, run, [&](RecordBatch&& batch) -> Status {
      const int64_t bytes = BatchBytes(batch);
      if (!queue.Push(std::move(batch), bytes)) {
        return Status::Cancelled("the write stopped");
      }
      return Status::OK();
    });
    if (!announced) started.set_value(query_result.status());
    queue.Finish(query_result.status());
  });
  auto stop = [&](Status st) -> Status {
    queue.Cancel();
    runner.join();
    return st;
  };

  auto start = started_future.get();
  if (!start.ok()) return stop(start.status());
  const Schema& schema = start->first;
  const std::vector<ReadReference>& reads = start->second;
  // The object that writes the copy: the view or task a producer names, else the target.
  std::string object = target_name;
  for (const char* kind : {"view:", "task:"}) {
    if (into.produced_by && into.produced_by->rfind(kind, 0) == 0) {
      object = into.produced_by->substr(std::strlen(kind));
    }
  }
  Status egress = CheckEgress(client, reads, target.workspace, target_name, object);
  if (!egress.ok()) return stop(egress);

  IntoResult out;
  DatasetInfo ds;
  if (into.mode == IntoMode::kCreate) {
    DatasetDefinition def;
    def.schema = schema;
    for (Field& f : def.schema.fields) f.field_id = -1;
    def.partition_spec = into.partition_spec;
    def.sort_order = into.sort_order;
    auto created = client.CreateDataset(target_name, def);
    if (!created.ok()) {
      Status st = created.status();
      if (st.Is(codes::kInvalidName)) {
        st = st.WithContext("the query's column names become " + target_name +
                            "'s: alias them (SELECT count(*) AS n ...)");
      }
      return stop(st);
    }
    ds = std::move(*created);
    out.created = true;
  } else {
    ds = std::move(*existing);
  }
  auto mapping = MapToTarget(schema, ds.schema, target_name);
  auto undo = [&](Status st) -> Status {
    st = stop(st);
    if (out.created) {
      // Nothing was committed into it: the dataset goes again, as if never made.
      Status dropped = client.DropDataset(target_name, true, ds.uuid);
      if (!dropped.ok())
        st = st.WithContext("(dropping " + target_name + " again failed: " + dropped.message() +
                            ")");
    }
    return st;
  };
  if (!mapping.ok()) return undo(mapping.status());

  CommitMeta meta = into.meta;
  meta.receipt = Receipt::Of(reads, into.produced_by);
  const CommitOperation op =
      into.mode == IntoMode::kOverwrite ? CommitOperation::kOverwrite : CommitOperation::kAppend;
  const Client::BatchSource next = [&]() -> Result<std::optional<RecordBatch>> {
    TARN_ASSIGN_OR_RETURN(auto batch, queue.Pop());
    if (!batch) return std::optional<RecordBatch>();
    TARN_ASSIGN_OR_RETURN(auto converted, Convert(*mapping, std::move(*batch)));
    return std::optional<RecordBatch>(std::move(converted));
  };
  auto committed = into.replace_where ? client.ReplaceWhere(target_name, *into.replace_where, next,
                                                            meta, ds.uuid, into.read_snapshot_id)
                                      : client.AppendStream(target_name, next, meta, op, ds.uuid);
  // ReplaceWhere with nothing to delete or add commits nothing, like an append of no rows.
  if (committed.ok() && committed->snapshot_id == 0) {
    committed = Status::Of(codes::kNoRows, "nothing to commit");
  }
  if (!committed.ok()) {
    if (committed.status().Is(codes::kNoRows)) {
      // An append (or create) of no rows commits nothing; it is not an error.
      DiscardError(stop(Status::OK()), "stopping the query");
      if (!query_result.ok()) return query_result.status();
      out.query = std::move(*query_result);
      return out;
    }
    // The query's own error explains a failed pull best.
    Status st = committed.status();
    st = undo(st);
    if (!query_result.ok() && !query_result.status().Is(codes::kCancelled)) {
      return query_result.status();
    }
    return st;
  }
  DiscardError(stop(Status::OK()), "stopping the query after its commit");
  if (query_result.ok()) {
    out.query = std::move(*query_result);
  } else if (committed->idempotent_replay) {
    // The key's first commit answered before any row was pulled: the query was stopped.
    out.query.schema = schema;
    out.query.reads = reads;
    out.query.rows = committed->added_records;
  } else {
    return query_result.status();  // the stream ended OK, so this cannot happen
  }
  out.snapshot = std::move(*committed);
  return out;
}

}  // namespace tarn::sql
