#include "python/catalog.h"

#include <atomic>
#include <utility>

#include "python/columns.h"
#include "tarn/provenance.h"
#include "tarn/query.h"

namespace tarn::python {
namespace {

template <typename T>
std::string JsonList(const std::vector<T>& items) {
  api::Json out = api::Json::array();
  for (const T& v : items) out.push_back(api::ToJson(v));
  return Text(out);
}

// Reads the datasets a query read as the receipts' read_sources list.
api::Json ReadsJson(const std::vector<ReadReference>& reads) {
  Receipt r;
  r.read_sources = reads;
  return api::ToJson(r)["read_sources"];
}

}  // namespace

void DropWorkspace(Client& c, const std::string& name) {
  Check(Unlocked([&] { return c.DropWorkspace(name); }));
}

std::string ListCollections(Client& c, const std::string& workspace) {
  return JsonList(Take(Unlocked([&] { return c.ListCollections(workspace); })));
}

void DropCollection(Client& c, const std::string& name) {
  Check(Unlocked([&] { return c.DropCollection(name); }));
}

std::string ListDatasets(Client& c, const std::string& collection) {
  return JsonList(Take(Unlocked([&] { return c.ListDatasets(collection); })));
}

void DropDataset(Client& c, const std::string& name, bool purge,
                 const std::optional<std::string>& expected_uuid) {
  Check(Unlocked([&] { return c.DropDataset(name, purge, expected_uuid); }));
}

void RenameDataset(Client& c, const std::string& name, const std::string& new_name) {
  Check(Unlocked([&] { return c.RenameDataset(name, new_name); }));
}

void SetProperties(Client& c, const std::string& level, const std::string& name,
                   const std::map<std::string, std::string>& set,
                   const std::vector<std::string>& unset) {
  const PropertyMap props(set.begin(), set.end());
  Check(Unlocked([&]() -> Status {
    if (level == "dataset") return c.SetDatasetProperties(name, props, unset);
    if (level == "collection") {
      if (!props.empty()) TARN_RETURN_NOT_OK(c.SetCollectionProperties(name, props));
      return unset.empty() ? Status::OK() : c.UnsetCollectionProperties(name, unset);
    }
    if (level == "workspace") {
      if (!props.empty()) TARN_RETURN_NOT_OK(c.SetWorkspaceProperties(name, props));
      return unset.empty() ? Status::OK() : c.UnsetWorkspaceProperties(name, unset);
    }
    return Status::InvalidArgument("properties belong to a workspace, collection or dataset");
  }));
}

std::string AlterSchema(Client& c, const std::string& name, const std::vector<std::string>& changes,
                        std::optional<int64_t> read_snapshot_id) {
  std::vector<SchemaChange> parsed;
  for (const std::string& text : changes) parsed.push_back(Take(ParseSchemaChange(text)));
  return Text(
      api::ToJson(Take(Unlocked([&] { return c.AlterSchema(name, parsed, read_snapshot_id); }))));
}

std::string SetPartitionSpec(Client& c, const std::string& name, const std::string& spec) {
  return Text(api::ToJson(Take(Unlocked([&] { return c.SetPartitionSpec(name, spec); }))));
}

std::string SetSortOrder(Client& c, const std::string& name, const std::string& order) {
  return Text(api::ToJson(Take(Unlocked([&] { return c.SetSortOrder(name, order); }))));
}

void CreateTag(Client& c, const std::string& name, const std::string& tag,
               const SnapshotSelector& at, bool replace) {
  Check(Unlocked([&] { return c.CreateTag(name, tag, at, replace); }));
}

void DropTag(Client& c, const std::string& name, const std::string& tag) {
  Check(Unlocked([&] { return c.DropTag(name, tag); }));
}

std::string ListTags(Client& c, const std::string& name) {
  return JsonList(Take(Unlocked([&] { return c.ListTags(name); })));
}

std::string GetSnapshot(Client& c, const std::string& name, const SnapshotSelector& at) {
  return Text(api::ToJson(Take(Unlocked([&] { return c.GetSnapshot(name, at); }))));
}

std::string SnapshotsPage(Client& c, const std::string& name, std::optional<int64_t> after,
                          std::optional<int64_t> before, int64_t limit) {
  SnapshotQuery q;
  q.after = after;
  q.before = before;
  q.limit = limit;
  return JsonList(Take(Unlocked([&] { return c.ListSnapshots(name, q); })));
}

std::string FilesPage(Client& c, const std::string& name, const SnapshotSelector& at,
                      const std::string& where, std::optional<std::string> after, int64_t limit) {
  FileQuery q;
  q.after = std::move(after);
  q.limit = limit;
  api::Json out = api::Json::array();
  Check(Unlocked([&] {
    return c.PlanFiles(name, at, where, q, [&](const PlannedFile& f) {
      out.push_back(api::ToJson(f));
      return Status::OK();
    });
  }));
  return Text(out);
}

std::string Rollback(Client& c, const std::string& name, int64_t to, const CommitMeta& meta) {
  return Text(api::ToJson(Take(Unlocked([&] { return c.Rollback(name, to, meta); }))));
}

std::string AddFiles(Client& c, const std::string& name, const std::vector<std::string>& paths,
                     const CommitMeta& meta, bool truncate_first) {
  return Text(
      api::ToJson(Take(Unlocked([&] { return c.AddFiles(name, paths, meta, truncate_first); }))));
}

std::string Changes(Client& c, const std::string& name, int64_t from, std::optional<int64_t> to,
                    std::optional<int64_t> limit) {
  ChangeQuery q;
  q.from = from;
  q.to = to;
  q.limit = limit;
  return Text(api::ToJson(Take(Unlocked([&] { return c.Changes(name, q); }))));
}

void CommitOffset(Client& c, const std::string& name, const std::string& consumer,
                  int64_t snapshot_id) {
  Check(Unlocked([&] { return c.CommitOffset(name, consumer, snapshot_id); }));
}

std::optional<int64_t> GetOffset(Client& c, const std::string& name, const std::string& consumer) {
  return Take(Unlocked([&] { return c.GetOffset(name, consumer); }));
}

std::string Expire(Client& c, const std::string& name, int64_t older_than_us,
                   bool respect_consumer_offsets, bool dry_run) {
  ExpiryOptions o;
  o.older_than_us = older_than_us;
  o.respect_consumer_offsets = respect_consumer_offsets;
  o.dry_run = dry_run;
  return Text(api::ToJson(Take(Unlocked([&] { return c.ExpireSnapshots(name, o); }))));
}

std::string FlushInlined(Client& c, const std::string& name) {
  return Text(api::ToJson(Take(Unlocked([&] { return c.FlushInlined(name); }))));
}

py::tuple Sql(Client& c, const std::string& query, double timeout_s, int threads) {
  std::vector<Column> batches;  // every column of every batch, in order
  size_t width = 0;
  Result<QueryResult> r = Interruptible([&](const std::atomic<bool>& cancelled) {
    QueryOptions o;
    o.timeout_s = timeout_s;
    o.threads = threads;
    o.cancel = &cancelled;
    o.on_start = [&](const Schema& schema, const std::vector<ReadReference>&) {
      width = schema.fields.size();
      return Status::OK();
    };
    return c.Query(query, o, [&](const RecordBatch& b) {
      for (const Column& col : b.columns) batches.push_back(col.Clone());
      return Status::OK();
    });
  });
  QueryResult result = Take(std::move(r));
  py::list columns;
  for (size_t k = 0; k < result.schema.fields.size(); ++k) {
    const Field& f = result.schema.fields[k];
    std::vector<const Column*> parts;
    for (size_t i = k; width > 0 && i < batches.size(); i += width) parts.push_back(&batches[i]);
    py::tuple col = ColumnToPython(f, parts);
    columns.append(py::make_tuple(f.name, f.type.ToString(), col[0], col[1], col[2]));
  }
  return py::make_tuple(columns, Text(ReadsJson(result.reads)));
}

std::string SqlInto(Client& c, const std::string& query, const std::string& target,
                    const std::string& mode, const CommitMeta& meta, double timeout_s,
                    int threads) {
  QueryIntoOptions into;
  into.target = target;
  if (mode == "create") {
    into.mode = QueryIntoMode::kCreate;
  } else if (mode == "append") {
    into.mode = QueryIntoMode::kAppend;
  } else if (mode == "overwrite") {
    into.mode = QueryIntoMode::kOverwrite;
  } else {
    Raise(
        Status::InvalidArgument("mode is one of create, append and overwrite, not '" + mode + "'"));
  }
  into.meta = meta;
  Result<QueryIntoResult> r = Interruptible([&](const std::atomic<bool>& cancelled) {
    QueryOptions o;
    o.timeout_s = timeout_s;
    o.threads = threads;
    o.cancel = &cancelled;
    return c.QueryInto(query, o, into);
  });
  QueryIntoResult done = Take(std::move(r));
  api::Json out = {{"dataset", target},
                   {"created", done.created},
                   {"rows", done.query.rows},
                   {"snapshot", done.snapshot ? api::ToJson(*done.snapshot) : api::Json()},
                   {"reads", ReadsJson(done.query.reads)}};
  return Text(out);
}

}  // namespace tarn::python
