// The embedded catalog a person or program on this machine opens (Catalog::OpenLocal, used by
// Client::Connect and so by the CLI and the terminal app): every mutation writes an audit row,
// actor local:<user>, as `tarn serve` writes one per mutating request. docs/design/audit.md.
//
// Why a subclass and not a flag: the rule "which calls are mutations and what each is called"
// then lives in this one file, as the server's route table holds it for requests. The server
// opens a plain Catalog (Catalog::Open / OpenEmbedded) and audits its requests itself, so a
// mutation is never audited twice.
//
// Only the outermost mutation of a thread is audited: a Catalog method that calls another
// virtual one (an append committing, a materialized view registering its dataset) writes one
// row, as one request does. Commits carry their row in CommitMeta::audit and write it in the
// commit's own transaction (an acknowledged commit always has its row); other mutations write
// theirs after the call, ok or failed (outcome = the error's code). A failed audit write never
// fails the mutation: it goes to DiscardError.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "common/discard.h"
#include "objectstore/object_store.h"

namespace tarn {

namespace {

// Nesting of audited calls on this thread.
thread_local int audit_depth = 0;

class Depth {
 public:
  Depth() { ++audit_depth; }
  ~Depth() { --audit_depth; }
  Depth(const Depth&) = delete;
  Depth& operator=(const Depth&) = delete;
  bool outer() const { return audit_depth == 1; }
};

std::string WorkspaceOf(std::string_view target) {
  return std::string(target.substr(0, target.find('.')));
}

const Status& StatusOf(const Status& st) { return st; }
template <class T>
Status StatusOf(const Result<T>& r) {
  return r.ok() ? Status::OK() : r.status();
}

// The code an audit row records for a failure: the status's "code" field, else its kind.
class LocalCatalog final : public Catalog {
 public:
  LocalCatalog(std::unique_ptr<Metastore> metastore, std::shared_ptr<ObjectStore> warehouse,
               std::shared_ptr<Clock> clock)
      : Catalog(std::move(metastore), std::move(warehouse), std::move(clock)) {}

  std::optional<std::string> local_actor() const override { return actor(); }

  Status SetWorkspaceProperties(std::string_view name, const PropertyMap& set) override {
    return Audited("workspace.set_properties", name, name,
                   [&] { return Catalog::SetWorkspaceProperties(name, set); });
  }
  Status UnsetWorkspaceProperties(std::string_view name,
                                  const std::vector<std::string>& keys) override {
    return Audited("workspace.set_properties", name, name,
                   [&] { return Catalog::UnsetWorkspaceProperties(name, keys); });
  }
  Status DropWorkspace(std::string_view name) override {
    return Audited("workspace.drop", name, name, [&] { return Catalog::DropWorkspace(name); });
  }
  Status MarkSecure(std::string_view workspace, std::string_view object,
                    const std::vector<std::string>& destinations,
                    std::string_view author) override {
    return Audited("workspace.secure_mark", object, workspace,
                   [&] { return Catalog::MarkSecure(workspace, object, destinations, author); });
  }
  Status ClearSecure(std::string_view workspace, std::string_view object) override {
    return Audited("workspace.secure_clear", object, workspace,
                   [&] { return Catalog::ClearSecure(workspace, object); });
  }
  Status DropCollection(std::string_view qualified) override {
    return Audited("collection.drop", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DropCollection(qualified); });
  }
  Status SetCollectionProperties(std::string_view qualified, const PropertyMap& set) override {
    return Audited("collection.set_properties", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::SetCollectionProperties(qualified, set); });
  }
  Status UnsetCollectionProperties(std::string_view qualified,
                                   const std::vector<std::string>& keys) override {
    return Audited("collection.set_properties", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::UnsetCollectionProperties(qualified, keys); });
  }
  Status RenameDataset(std::string_view qualified, std::string_view new_name) override {
    return Audited("dataset.rename", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::RenameDataset(qualified, new_name); });
  }
  Result<DatasetInfo> SetPartitionSpec(std::string_view qualified, std::string_view spec) override {
    return Audited("dataset.set_partition", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::SetPartitionSpec(qualified, spec); });
  }
  Result<DatasetInfo> SetSortOrder(std::string_view qualified, std::string_view order) override {
    return Audited("dataset.set_sort", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::SetSortOrder(qualified, order); });
  }

  Result<std::vector<SnapshotInfo>> Commit(std::vector<DatasetCommit> parts) override {
    Depth depth;
    if (!depth.outer()) return Catalog::Commit(std::move(parts));
    std::vector<std::pair<std::string, std::string>> targets;  // (action, dataset) per part
    for (auto& p : parts) {
      Stamp(&p.meta);
      targets.emplace_back("dataset." + std::string(CommitOperationName(p.operation)), p.dataset);
    }
    auto r = Catalog::Commit(std::move(parts));
    if (!r.ok()) {
      for (const auto& [action, dataset] : targets) Failed(action, dataset, r.status());
    }
    return r;
  }
  Result<SnapshotInfo> DeleteRows(std::string_view qualified, std::string_view where,
                                  CommitMeta meta) override {
    return Committed("dataset.delete_rows", qualified, &meta,
                     [&] { return Catalog::DeleteRows(qualified, where, std::move(meta)); });
  }
  Result<SnapshotInfo> Rollback(std::string_view qualified, int64_t to_snapshot_id,
                                CommitMeta meta) override {
    return Committed("dataset.rollback", qualified, &meta,
                     [&] { return Catalog::Rollback(qualified, to_snapshot_id, std::move(meta)); });
  }

  Status GrantLocation(std::string_view qualified, std::string_view prefix) override {
    return Audited("dataset.location_grant", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::GrantLocation(qualified, prefix); });
  }
  Status RevokeLocation(std::string_view qualified, std::string_view prefix) override {
    return Audited("dataset.location_revoke", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::RevokeLocation(qualified, prefix); });
  }
  Status DropTag(std::string_view qualified, std::string_view tag) override {
    return Audited("tag.drop", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DropTag(qualified, tag); });
  }
  Status CommitOffset(std::string_view qualified, std::string_view consumer,
                      int64_t snapshot_id) override {
    return Audited("offset.commit", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::CommitOffset(qualified, consumer, snapshot_id); });
  }
  Result<ExpiryResult> ExpireSnapshots(std::string_view qualified,
                                       const ExpiryOptions& options) override {
    return Audited("dataset.expire", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::ExpireSnapshots(qualified, options); });
  }
  Result<CompactionResult> Compact(std::string_view qualified, const CompactionOptions& options,
                                   CommitMeta meta) override {
    if (options.dry_run) return Catalog::Compact(qualified, options, std::move(meta));
    return Audited("dataset.compact", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::Compact(qualified, options, std::move(meta)); });
  }
  Result<StatsHydrationResult> HydrateStats(std::string_view qualified,
                                            const StatsHydrationOptions& options) override {
    return Audited("dataset.stats_hydrate", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::HydrateStats(qualified, options); });
  }
  Result<InlineFlushResult> FlushInlined(std::string_view qualified) override {
    return Audited("dataset.inline_flush", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::FlushInlined(qualified); });
  }
  Status DropView(std::string_view qualified) override {
    return Audited("view.drop", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DropView(qualified); });
  }
  Result<MaterializedViewInfo> RegisterMaterializedView(std::string_view qualified,
                                                        const ViewDefinition& def,
                                                        const std::vector<std::string>& sources,
                                                        bool replace,
                                                        std::string_view refresh_kind) override {
    return Audited("materialized_view.create", qualified, WorkspaceOf(qualified), [&] {
      return Catalog::RegisterMaterializedView(qualified, def, sources, replace, refresh_kind);
    });
  }
  Status DropMaterializedView(std::string_view qualified, bool purge) override {
    return Audited("materialized_view.drop", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DropMaterializedView(qualified, purge); });
  }
  Status RecordRefresh(std::string_view qualified, const RefreshRecord& record) override {
    return Audited("materialized_view.refresh", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::RecordRefresh(qualified, record); });
  }
  Result<TaskInfo> RegisterTask(std::string_view qualified, const TaskDefinition& def,
                                const std::vector<std::string>& reads, bool replace) override {
    return Audited(replace ? "task.replace" : "task.create", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::RegisterTask(qualified, def, reads, replace); });
  }
  Status DropTask(std::string_view qualified) override {
    return Audited("task.drop", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DropTask(qualified); });
  }
  Result<JobInfo> SignalTask(std::string_view qualified) override {
    return Audited("task.signal", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::SignalTask(qualified); });
  }
  Status RecordTaskRun(std::string_view qualified, const RefreshRecord& record) override {
    return Audited("task.run", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::RecordTaskRun(qualified, record); });
  }
  Status SetTriggerInterval(std::string_view dataset, std::string_view trigger,
                            std::optional<int64_t> seconds) override {
    return Audited("trigger.set_interval", dataset, WorkspaceOf(dataset),
                   [&] { return Catalog::SetTriggerInterval(dataset, trigger, seconds); });
  }
  Result<JobInfo> RetryJob(std::string_view id) override {
    return Audited("job.retry", id, "", [&] { return Catalog::RetryJob(id); });
  }
  Result<JobInfo> ReportJobOutcome(std::string_view id, const JobOutcomeReport& report) override {
    return Audited("job.outcome", id, "", [&] { return Catalog::ReportJobOutcome(id, report); });
  }
  Result<NewAccessToken> CreateAccessToken(const AccessTokenSpec& spec) override {
    Depth depth;
    auto r = Catalog::CreateAccessToken(spec);
    if (depth.outer()) {
      std::string id = r.ok() ? r->info.client_id : spec.client_id.value_or("");
      Write("token.create", id, spec.workspace == "*" ? "" : spec.workspace, StatusOf(r));
    }
    return r;
  }
  Status RevokeAccessToken(std::string_view client_id) override {
    return Audited("token.revoke", client_id, "",
                   [&] { return Catalog::RevokeAccessToken(client_id); });
  }
  Result<FederationRule> CreateFederationRule(const FederationRuleSpec& spec) override {
    return Audited("federation.create", spec.client_id, "",
                   [&] { return Catalog::CreateFederationRule(spec); });
  }
  Status DeleteFederationRule(std::string_view id) override {
    return Audited("federation.delete", id, "", [&] { return Catalog::DeleteFederationRule(id); });
  }

 protected:
  Status DoCreateWorkspace(std::string_view name, bool exists_ok,
                           const PropertyMap& properties) override {
    return Audited("workspace.create", name, name,
                   [&] { return Catalog::DoCreateWorkspace(name, exists_ok, properties); });
  }
  Status DoCreateCollection(std::string_view qualified, bool exists_ok,
                            std::string_view description, const PropertyMap& properties) override {
    return Audited("collection.create", qualified, WorkspaceOf(qualified), [&] {
      return Catalog::DoCreateCollection(qualified, exists_ok, description, properties);
    });
  }
  Result<DatasetInfo> DoCreateDataset(std::string_view qualified, DatasetDefinition def,
                                      bool exists_ok) override {
    return Audited("dataset.create", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DoCreateDataset(qualified, std::move(def), exists_ok); });
  }
  Status DoDropDataset(std::string_view qualified, bool purge,
                       std::optional<std::string> expected_uuid) override {
    return Audited("dataset.drop", qualified, WorkspaceOf(qualified), [&] {
      return Catalog::DoDropDataset(qualified, purge, std::move(expected_uuid));
    });
  }
  Status DoSetDatasetProperties(std::string_view qualified, const PropertyMap& set,
                                const std::vector<std::string>& unset) override {
    return Audited("dataset.set_properties", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DoSetDatasetProperties(qualified, set, unset); });
  }
  Result<DatasetInfo> DoAlterSchema(std::string_view qualified,
                                    const std::vector<SchemaChange>& changes,
                                    std::optional<int64_t> read_snapshot_id) override {
    return Audited("dataset.alter_schema", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DoAlterSchema(qualified, changes, read_snapshot_id); });
  }
  Result<SnapshotInfo> DoAppend(std::string_view qualified, const std::vector<RecordBatch>& batches,
                                CommitMeta meta, CommitOperation op,
                                std::optional<std::string> expected_uuid) override {
    return Committed("dataset." + std::string(CommitOperationName(op)), qualified, &meta, [&] {
      return Catalog::DoAppend(qualified, batches, std::move(meta), op, std::move(expected_uuid));
    });
  }
  Result<SnapshotInfo> DoAppendStream(std::string_view qualified, const BatchSource& next,
                                      CommitMeta meta, CommitOperation op,
                                      std::optional<std::string> expected_uuid) override {
    return Committed("dataset." + std::string(CommitOperationName(op)), qualified, &meta, [&] {
      return Catalog::DoAppendStream(qualified, next, std::move(meta), op,
                                     std::move(expected_uuid));
    });
  }
  Result<SnapshotInfo> DoReplaceWhere(std::string_view qualified, std::string_view where,
                                      const BatchSource& next, CommitMeta meta,
                                      std::optional<std::string> expected_uuid,
                                      std::optional<int64_t> read_snapshot_id) override {
    return Committed("dataset.merge", qualified, &meta, [&] {
      return Catalog::DoReplaceWhere(qualified, where, next, std::move(meta),
                                     std::move(expected_uuid), read_snapshot_id);
    });
  }
  Result<SnapshotInfo> DoAddFiles(std::string_view qualified, const std::vector<std::string>& paths,
                                  CommitMeta meta, bool truncate_first) override {
    std::string action = truncate_first ? "dataset.truncate_and_add_files" : "dataset.add_files";
    return Committed(action, qualified, &meta, [&] {
      return Catalog::DoAddFiles(qualified, paths, std::move(meta), truncate_first);
    });
  }
  Status DoCreateTag(std::string_view qualified, std::string_view tag, const SnapshotSelector& at,
                     bool replace) override {
    return Audited("tag.create", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DoCreateTag(qualified, tag, at, replace); });
  }
  Result<CleanupResult> DoCleanup(bool delete_orphans) override {
    return Audited("catalog.cleanup", "", "", [&] { return Catalog::DoCleanup(delete_orphans); });
  }
  Result<ViewInfo> DoCreateView(std::string_view qualified, const ViewDefinition& def,
                                bool replace) override {
    return Audited("view.create", qualified, WorkspaceOf(qualified),
                   [&] { return Catalog::DoCreateView(qualified, def, replace); });
  }

 private:
  // Runs a mutation that is not a commit; the outermost one writes its row after it.
  template <class F>
  auto Audited(std::string_view action, std::string_view target, std::string_view workspace,
               F&& run) -> decltype(run()) {
    Depth depth;
    auto r = run();
    if (depth.outer()) Write(action, target, workspace, StatusOf(r));
    return r;
  }
  // Runs a commit: the outermost one stamps `meta` so the commit writes the row in its own
  // transaction; a failed one writes its row after.
  template <class F>
  auto Committed(const std::string& action, std::string_view target, CommitMeta* meta, F&& run)
      -> decltype(run()) {
    Depth depth;
    if (depth.outer()) {
      Stamp(meta);
      if (meta->audit->action.empty()) meta->audit->action = action;
    }
    auto r = run();
    if (depth.outer() && !r.ok()) Failed(action, target, r.status());
    return r;
  }
  void Stamp(CommitMeta* meta) const {
    if (meta->audit) return;  // the caller's own row (a server passing through)
    AuditRecord a;
    a.actor = actor();
    meta->audit = std::move(a);
  }
  void Failed(std::string_view action, std::string_view target, const Status& st) {
    Write(action, target, WorkspaceOf(target), st);
  }
  void Write(std::string_view action, std::string_view target, std::string_view workspace,
             const Status& st) {
    AuditRecord row;
    row.actor = actor();
    row.action = std::string(action);
    row.target = std::string(target.substr(0, 1024));
    row.workspace = std::string(workspace.substr(0, 1024));
    row.outcome = st.code();
    row.detail_json = "{}";
    if (!st.ok()) {
      std::string message = st.message().substr(0, 500);
      row.detail_json = nlohmann::json{{"message", message}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    Status w = WriteAudit({row});
    DiscardError(w, "writing the local audit row");
  }
};

}  // namespace

Result<std::unique_ptr<Catalog>> Catalog::OpenLocal(std::string_view dir,
                                                    std::shared_ptr<Clock> clock) {
  TARN_ASSIGN_OR_RETURN(auto layout, catalog_internal::EmbeddedLayout(dir));
  TARN_ASSIGN_OR_RETURN(auto ms, Metastore::Open(layout.metastore));
  TARN_ASSIGN_OR_RETURN(auto store, OpenObjectStore(layout.warehouse));
  return std::unique_ptr<Catalog>(
      new LocalCatalog(std::move(ms), std::move(store), std::move(clock)));
}

}  // namespace tarn
