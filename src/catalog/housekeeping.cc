// Server-run housekeeping (C11; docs/design/maintenance.md "Housekeeping"): what one pass of a
// step does over the whole catalog. `tarn serve` decides when (a slot per step claimed in
// periodic_runs, so one server runs each slot); this file decides what, and audits it.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/store.h"
#include "metastore/metastore.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

constexpr char kActor[] = "tarn:housekeeping";

// Calls `fn` for every live dataset with an id up to `last_id`, in id order, a page of 500 at a
// time; stops when `cancelled` says so (asked before each dataset).
Status EachLiveDataset(Metastore& ms, const std::function<bool()>& cancelled, int64_t last_id,
                       const std::function<void(const catalog_store::SweepDataset&)>& fn) {
  int64_t after_id = 0;
  while (after_id < last_id) {
    std::vector<catalog_store::SweepDataset> page;
    TARN_RETURN_NOT_OK(ms.RunInTransaction(
        [&](Transaction& tx) -> Status {
          TARN_ASSIGN_OR_RETURN(page, catalog_store::LiveDatasetsPage(tx, "", after_id, 500));
          return Status::OK();
        },
        TxMode::kReadOnly));
    if (page.empty()) break;
    after_id = page.back().id;
    for (const auto& d : page) {
      if (cancelled && cancelled()) return Status::OK();
      if (d.id > last_id) return Status::OK();
      fn(d);
    }
  }
  return Status::OK();
}

AuditRecord AuditRow(std::string action, const std::string& dataset, const std::string& outcome,
                     nlohmann::json detail) {
  AuditRecord r;
  r.actor = kActor;
  r.action = std::move(action);
  r.target = dataset;
  r.workspace = dataset.substr(0, dataset.find('.'));
  r.outcome = outcome;
  r.detail_json = detail.dump();
  return r;
}

}  // namespace

std::string_view Catalog::HousekeepingStepName(HousekeepingStep step) {
  switch (step) {
    case HousekeepingStep::kExpire:
      return "expire";
    case HousekeepingStep::kCleanup:
      return "cleanup";
    case HousekeepingStep::kCompact:
      return "compact";
    case HousekeepingStep::kHydrate:
      return "hydrate";
    case HousekeepingStep::kManifest:
      return "manifest";
    case HousekeepingStep::kFlush:
      return "flush";
  }
  return "expire";
}

Result<Catalog::HousekeepingReport> Catalog::RunHousekeeping(
    HousekeepingStep step, const std::function<bool()>& cancelled) {
  HousekeepingReport out;
  std::vector<AuditRecord> audit;
  const std::string action = "housekeeping." + std::string(HousekeepingStepName(step));
  // A dataset the step failed on: counted, and an audit row with the error.
  auto failed = [&](const std::string& dataset, const std::string& code,
                    const std::string& message) {
    ++out.failures;
    audit.push_back(AuditRow(action, dataset, "error", {{"code", code}, {"message", message}}));
  };
  auto failed_with = [&](const std::string& dataset, const Status& st) {
    failed(dataset, st.code(), st.message());
  };
  switch (step) {
    case HousekeepingStep::kExpire: {
      TARN_ASSIGN_OR_RETURN(auto r, ApplyRetention({}));
      for (const auto& d : r.datasets) {
        ++out.datasets;
        if (!d.error_code.empty()) {
          failed(d.dataset, d.error_code, d.error);
          continue;
        }
        out.snapshots_expired += d.expiry.expired_snapshots;
        out.files_released += d.expiry.files_released;
        if (d.expiry.expired_snapshots == 0) continue;  // nothing happened: nothing to audit
        audit.push_back(AuditRow(action, d.dataset, "ok",
                                 {{"retention", d.retention},
                                  {"source", d.source},
                                  {"expired_snapshots", d.expiry.expired_snapshots},
                                  {"expired_through", d.expiry.expired_through},
                                  {"files_released", d.expiry.files_released}}));
      }
      break;
    }
    case HousekeepingStep::kCleanup: {
      TARN_ASSIGN_OR_RETURN(auto r, Cleanup(/*delete_orphans=*/true));
      out.objects_deleted = r.objects_deleted;
      out.bytes_deleted = r.bytes_deleted;
      if (r.objects_deleted > 0 || !r.orphans.empty() || r.pending > 0) {
        audit.push_back(AuditRow(action, "", r.pending > 0 ? "partial" : "ok",
                                 {{"objects_deleted", r.objects_deleted},
                                  {"bytes_deleted", r.bytes_deleted},
                                  {"orphans_deleted", static_cast<int64_t>(r.orphans.size())},
                                  {"pending", r.pending}}));
      }
      break;
    }
    case HousekeepingStep::kCompact: {
      TARN_RETURN_NOT_OK(EachLiveDataset(*metastore_, cancelled, INT64_MAX, [&](const auto& d) {
        auto ds = LoadDataset(d.name);
        if (!ds.ok()) return;  // dropped meanwhile
        auto opt = ds->properties.find(kCompactionAutoProperty);
        if (opt == ds->properties.end() || opt->second != "true") return;
        ++out.datasets;
        CommitMeta meta;
        meta.author = kActor;
        AuditRecord commit_audit;
        commit_audit.actor = kActor;
        commit_audit.action = action;
        meta.audit = commit_audit;  // written in the compaction's commit
        auto r = Compact(d.name, {}, std::move(meta));
        if (!r.ok()) {
          failed_with(d.name, r.status());
          return;
        }
        if (!r->snapshot_id) return;
        out.files_rewritten += r->files_in();
        out.bytes_rewritten += r->bytes_in();
      }));
      break;
    }
    case HousekeepingStep::kHydrate: {
      int64_t after_id = 0;
      for (;;) {
        std::vector<int64_t> ids;
        TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
            [&](Transaction& tx) -> Status {
              TARN_ASSIGN_OR_RETURN(ids,
                                    catalog_store::DatasetsWithPendingStats(tx, after_id, 500));
              return Status::OK();
            },
            TxMode::kReadOnly));
        if (ids.empty()) break;
        after_id = ids.back();
        for (int64_t id : ids) {
          if (cancelled && cancelled()) break;
          std::optional<catalog_store::SweepDataset> d;
          TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
              [&](Transaction& tx) -> Status {
                TARN_ASSIGN_OR_RETURN(d, catalog_store::LiveDatasetById(tx, id));
                return Status::OK();
              },
              TxMode::kReadOnly));
          if (!d) continue;  // dropped: its files are history
          ++out.datasets;
          auto r = HydrateStats(d->name, {});
          if (!r.ok()) {
            failed_with(d->name, r.status());
            continue;
          }
          out.files_hydrated += r->files_hydrated;
          if (!r->failures.empty()) ++out.failures;
          if (r->files_hydrated == 0 && r->failures.empty()) continue;
          nlohmann::json failed = nlohmann::json::array();  // the first few: a row stays small
          for (size_t i = 0; i < r->failures.size() && i < 20; ++i) {
            const auto& f = r->failures[i];
            failed.push_back({{"path", f.path}, {"code", f.code}, {"message", f.message}});
          }
          audit.push_back(AuditRow(action, d->name, r->failures.empty() ? "ok" : "partial",
                                   {{"files_hydrated", r->files_hydrated},
                                    {"files_pending", r->files_pending},
                                    {"files_failed", static_cast<int64_t>(r->failures.size())},
                                    {"failures", std::move(failed)}}));
        }
        if (cancelled && cancelled()) break;
      }
      break;
    }
    case HousekeepingStep::kManifest: {
      TARN_RETURN_NOT_OK(EachLiveDataset(*metastore_, cancelled, INT64_MAX, [&](const auto& d) {
        if (!d.current_snapshot_id) return;
        auto r = RefreshManifest(d.name, /*rewrite=*/false);
        if (!r.ok()) {
          if (r.status().kind() == ErrorKind::kNotFound) return;  // dropped meanwhile
          ++out.datasets;
          failed_with(d.name, r.status());
          return;
        }
        if (!*r) return;
        ++out.datasets;
        ++out.manifests_written;
        audit.push_back(AuditRow(action, d.name, "ok", {{"snapshot_id", *d.current_snapshot_id}}));
      }));
      break;
    }
    case HousekeepingStep::kFlush: {
      // The datasets that keep inlined files, read once: a catalog where nothing is inlined
      // costs this one statement, and a dataset whose first inlined append lands during the
      // pass waits for the next one.
      std::vector<int64_t> keeping;
      TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
          [&](Transaction& tx) -> Status {
            TARN_ASSIGN_OR_RETURN(keeping, catalog_store::DatasetsWithInlinedFiles(tx));
            return Status::OK();
          },
          TxMode::kReadOnly));
      // A dataset's flush; nullopt for one with compaction.auto=true: the compact step rewrites
      // its inlined files into warehouse files itself, and writing them out first would only
      // add objects that compaction replaces.
      auto flush = [&](const std::string& name) -> Result<std::optional<InlineFlushResult>> {
        TARN_ASSIGN_OR_RETURN(auto ds, LoadDataset(name));
        auto opt = ds.properties.find(kCompactionAutoProperty);
        if (opt != ds.properties.end() && opt->second == "true") {
          return std::optional<InlineFlushResult>();
        }
        TARN_ASSIGN_OR_RETURN(auto r, FlushInlined(name));
        return std::optional<InlineFlushResult>(std::move(r));
      };
      if (keeping.empty()) break;
      // None past the highest dataset that keeps any needs reading.
      TARN_RETURN_NOT_OK(
          EachLiveDataset(*metastore_, cancelled, keeping.back(), [&](const auto& d) {
            if (!std::binary_search(keeping.begin(), keeping.end(), d.id)) return;
            auto r = flush(d.name);
            if (!r.ok()) {
              if (r.status().kind() == ErrorKind::kNotFound) return;  // dropped meanwhile
              ++out.datasets;
              failed_with(d.name, r.status());
              return;
            }
            // Nothing written: compaction.auto, or another flush (by hand) took them meanwhile.
            if (!*r || (*r)->files_written == 0) return;
            const InlineFlushResult& f = **r;
            ++out.datasets;
            out.files_flushed += f.files_written;
            out.bytes_flushed += f.bytes_written;
            audit.push_back(
                AuditRow(action, d.name, "ok",
                         {{"files_written", f.files_written}, {"bytes_written", f.bytes_written}}));
          }));
      break;
    }
  }
  if (!audit.empty()) TARN_RETURN_NOT_OK(WriteAudit(audit));
  return out;
}

}  // namespace tarn
