// The integrity sweep (`tarn fsck`; tarn/integrity.h, docs/design/provenance.md "The integrity
// sweep"): what should be impossible, found by reading the catalog in read-only transactions
// (the trigger graph in one, then a dataset at a time) and listing the warehouse, and one alert
// per platform finding once the sweep is done. It writes nothing else. Every statement it runs
// is a store's (store.h, views_store.h, provenance.h): this file holds none.
//
// What it cannot check yet: tasks (issue 19) do not exist, so receipts produced by `task:`
// are not compared with any declaration, and runs over a window of a source (a task's, a
// windowed refresh's) have nothing to be checked against either.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "alerts/alerts.h"
#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/provenance.h"
#include "catalog/store.h"
#include "catalog/views_store.h"
#include "metastore/metastore.h"
#include "objectstore/object_store.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

constexpr int64_t kRowsPerPage = 500;  // datasets and triggers read per statement
// A windowed run's commit older than this whose window did not move is read_past_window.
constexpr int64_t kWindowGraceUs = int64_t{10} * 60 * 1'000'000;
constexpr size_t kKeysPerListing = 1000;  // keys asked of one listing request
constexpr size_t kStrayBatch = 1000;      // stray objects looked up together
// The search for cycles stops after this many steps (the graph should hold none; a
// pathological one must not stall the sweep).
constexpr int64_t kMaxCycleSteps = 1'000'000;

// What a trigger may target: a materialized view (its refresh) or a task (its run).
bool TriggerTargetKind(std::string_view kind) {
  return kind == views_store::kKindMaterialized || kind == views_store::kKindTask;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string WorkspaceOf(std::string_view qualified) {
  return std::string(qualified.substr(0, qualified.find('.')));
}

// ---- findings ----

// One finding as the sweep collects it: the public part, what makes it the same failure for
// the alert's cool-off, its severity, and where it sorts.
struct Found {
  FsckFinding finding;
  std::string identity;
  alerts::Severity severity = alerts::Severity::kError;
  int section = 0;  // 0 triggers, 1 cycles, 2 datasets, 3 stray objects
};

class Findings {
 public:
  // Lists a finding unless kFsckMaxFindingsPerCode of its code were listed for its dataset
  // already; those are counted and summed up by Close().
  void Add(int section, const std::string& code, std::string object, std::string dataset,
           std::string detail, const std::string& key) {
    int64_t& n = counts_[{code, dataset}];
    if (++n > kFsckMaxFindingsPerCode) return;
    Found f;
    f.finding.code = code;
    f.finding.object = std::move(object);
    f.finding.dataset = std::move(dataset);
    f.finding.detail = std::move(detail);
    f.finding.platform = code != kFsckOrphanObject;
    f.identity = f.finding.object + "\n" + key;
    if (code == kFsckMissingObject) f.severity = alerts::Severity::kCritical;  // data lost
    f.section = section;
    found_.push_back(std::move(f));
  }

  // Counts `n` findings of `code` for `dataset` that a check found but did not keep (it kept
  // only the first kFsckMaxFindingsPerCode), for Close() to sum up with the rest.
  void CountUnlisted(const std::string& code, const std::string& dataset, int64_t n) {
    if (n > 0) counts_[{code, dataset}] += n;
  }

  // The findings, with one more per (code, dataset) that passed the cap; in report order.
  std::vector<Found> Close() {
    for (const auto& [key, n] : counts_) {
      if (n <= kFsckMaxFindingsPerCode) continue;
      const auto& [code, dataset] = key;
      const int64_t more = n - kFsckMaxFindingsPerCode;
      int section = 2;
      if (code == kFsckTriggerCycle) section = 1;
      if (code == kFsckDanglingTrigger) section = 0;
      if (dataset.empty() && code == kFsckOrphanObject) section = 3;
      Found f;
      f.finding.code = code;
      f.finding.object = !dataset.empty() ? dataset
                         : section <= 1   ? std::string("triggers")
                                          : std::string("datasets/");
      f.finding.dataset = dataset;
      f.finding.detail = std::to_string(more) + " more " + code + " findings" +
                         (dataset.empty() ? std::string() : " of " + dataset) +
                         " not listed (at most " + std::to_string(kFsckMaxFindingsPerCode) +
                         " are)";
      f.finding.platform = code != kFsckOrphanObject;
      f.identity = f.finding.object + "\nmore";
      f.section = section;
      found_.push_back(std::move(f));
    }
    counts_.clear();
    std::stable_sort(found_.begin(), found_.end(), [](const Found& a, const Found& b) {
      if (a.section != b.section) return a.section < b.section;
      return a.section == 2 && a.finding.dataset < b.finding.dataset;
    });
    return std::move(found_);
  }

 private:
  std::map<std::pair<std::string, std::string>, int64_t> counts_;  // (code, dataset) -> found
  std::vector<Found> found_;
};

// ---- 1, 2: the trigger graph ----

// The simple cycles of the graph `adj` over the nodes of `rank`, each once: started at its
// least member by rank, members in edge order. Stops after kMaxCycleSteps steps (and sets
// *stopped).
std::vector<std::vector<int64_t>> SimpleCycles(const std::map<int64_t, std::vector<int64_t>>& adj,
                                               const std::map<int64_t, size_t>& rank,
                                               bool* stopped) {
  static const std::vector<int64_t> kNone;
  auto out_of = [&](int64_t v) -> const std::vector<int64_t>& {
    auto it = adj.find(v);
    return it == adj.end() ? kNone : it->second;
  };
  // Strongly connected components (Tarjan's, iterative): a cycle lies inside one.
  std::map<int64_t, int64_t> index, low;
  std::map<int64_t, int64_t> component;
  std::set<int64_t> on_stack;
  std::vector<int64_t> stack;
  int64_t next_index = 0, next_component = 0;
  for (const auto& entry : rank) {
    const int64_t root = entry.first;
    if (index.count(root)) continue;
    std::vector<std::pair<int64_t, size_t>> work = {{root, 0}};
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack.insert(root);
    while (!work.empty()) {
      auto& [v, i] = work.back();
      const auto& out = out_of(v);
      if (i < out.size()) {
        int64_t w = out[i++];
        if (!index.count(w)) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack.insert(w);
          work.emplace_back(w, 0);
        } else if (on_stack.count(w)) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const int64_t done = v;
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[done]);
      if (low[done] == index[done]) {
        int64_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack.erase(w);
          component[w] = next_component;
        } while (w != done);
        ++next_component;
      }
    }
  }
  // Each cycle from its least member s, through members of s's component ranked above s.
  std::vector<std::vector<int64_t>> cycles;
  int64_t steps = 0;
  for (const auto& [s, s_rank] : rank) {
    std::vector<int64_t> path = {s};
    std::set<int64_t> on_path = {s};
    std::vector<size_t> next = {0};
    while (!path.empty()) {
      if (++steps > kMaxCycleSteps) {
        *stopped = true;
        return cycles;
      }
      const int64_t v = path.back();
      const auto& out = out_of(v);
      if (next.back() >= out.size()) {
        on_path.erase(v);
        path.pop_back();
        next.pop_back();
        continue;
      }
      const int64_t w = out[next.back()++];
      if (w == s) {
        cycles.push_back(path);
        continue;
      }
      auto r = rank.find(w);
      if (r == rank.end() || r->second <= s_rank || component[w] != component[s] ||
          on_path.count(w)) {
        continue;
      }
      path.push_back(w);
      on_path.insert(w);
      next.push_back(0);
    }
  }
  return cycles;
}

Status SweepTriggers(Metastore& ms, const std::string& workspace, Findings* found) {
  std::vector<views_store::TriggerEnds> dangling;
  std::map<int64_t, std::string> names;  // live dataset id -> w.c.d
  std::map<int64_t, std::vector<int64_t>> adj;
  // One transaction for the whole graph: edges read from two moments could close a circle
  // that never existed (a replace removes one edge and adds another).
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        dangling.clear();
        names.clear();
        adj.clear();
        int64_t after = 0;
        while (true) {
          TARN_ASSIGN_OR_RETURN(auto page, views_store::TriggerEndsPage(tx, after, kRowsPerPage));
          for (auto& t : page) {
            after = t.id;
            if (!t.source_live || !t.view_exists || !t.view_dataset_live ||
                !TriggerTargetKind(t.view_kind) || !t.view_dataset_id) {
              dangling.push_back(std::move(t));
              continue;
            }
            names[t.source_id] = t.source;
            names[*t.view_dataset_id] = t.target_dataset;
            adj[t.source_id].push_back(*t.view_dataset_id);
          }
          if (static_cast<int64_t>(page.size()) < kRowsPerPage) break;
        }
        return Status::OK();
      },
      TxMode::kReadOnly));

  for (const auto& t : dangling) {
    if (!workspace.empty() && WorkspaceOf(t.source) != workspace &&
        WorkspaceOf(t.target) != workspace) {
      continue;
    }
    const std::string source =
        t.source.empty() ? "dataset row " + std::to_string(t.source_id) : t.source;
    const std::string target =
        t.target.empty() ? "view row " + std::to_string(t.view_id) : t.target;
    std::string why;
    if (!t.source_exists) {
      why = "its source dataset row " + std::to_string(t.source_id) + " is gone";
    } else if (!t.source_live) {
      why = "its source " + t.source + " was dropped";
    } else if (!t.view_exists) {
      why = "its target view row " + std::to_string(t.view_id) + " is gone";
    } else if (!TriggerTargetKind(t.view_kind) || !t.view_dataset_id) {
      why = "its target " + t.target + " is neither a materialized view nor a task";
    } else {
      why = "the dataset of its target " + t.target + " was dropped";
    }
    found->Add(0, kFsckDanglingTrigger, t.source.empty() ? target : t.source,
               t.source_live ? t.source : std::string(),
               "trigger '" + t.name + "' on " + source + " refreshing " + target + ": " + why,
               t.name + "\n" + std::to_string(t.id));
  }

  for (auto& [v, out] : adj) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  // Ranks by name (then id), so each cycle starts at its least-named member.
  std::vector<std::pair<std::string, int64_t>> by_name;
  for (const auto& [id, name] : names) by_name.emplace_back(name, id);
  std::sort(by_name.begin(), by_name.end());
  std::map<int64_t, size_t> rank;
  for (size_t i = 0; i < by_name.size(); ++i) rank[by_name[i].second] = i;
  bool stopped = false;
  auto cycles = SimpleCycles(adj, rank, &stopped);
  std::sort(cycles.begin(), cycles.end(), [&](const auto& a, const auto& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [&](int64_t x, int64_t y) { return rank[x] < rank[y]; });
  });
  for (const auto& cycle : cycles) {
    bool ours = workspace.empty();
    std::string members;
    for (int64_t id : cycle) {
      ours = ours || WorkspaceOf(names[id]) == workspace;
      members += names[id] + " -> ";
    }
    members += names[cycle.front()];
    if (!ours) continue;
    const std::string& first = names[cycle.front()];
    found->Add(1, kFsckTriggerCycle, first, std::string(),
               "refresh triggers run in a circle: " + members +
                   " (a commit on any of them refreshes the next, round and round, held back "
                   "only by each trigger's floor)",
               members);
  }
  if (stopped) {
    found->Add(1, kFsckTriggerCycle, "triggers", std::string(),
               "the search for cycles stopped after " + std::to_string(kMaxCycleSteps) +
                   " steps: the trigger graph may hold more cycles than are listed",
               "stopped");
  }
  return Status::OK();
}

// ---- 5, 6: the warehouse, a dataset prefix at a time ----

using StrayFn = std::function<Status(std::vector<ObjectInfo>)>;

// The objects under each dataset's prefix. A filtered sweep lists each prefix; a full sweep
// walks "datasets/" once in key order, handing out each dataset's objects as the walk passes
// its prefix (asked in increasing order), and everything under no asked prefix (a dropped or
// purged dataset's, anything else) to the stray handler in batches.
class PrefixWalk {
 public:
  PrefixWalk(ObjectStore& store, bool whole, StrayFn stray)
      : store_(store), whole_(whole), stray_(std::move(stray)) {}

  Result<std::vector<ObjectInfo>> Under(const std::string& prefix) {
    std::vector<ObjectInfo> out;
    if (!whole_) {
      std::string token;
      do {
        TARN_ASSIGN_OR_RETURN(auto page, store_.List(prefix, token, kKeysPerListing));
        listed_ += static_cast<int64_t>(page.objects.size());
        for (auto& o : page.objects) out.push_back(std::move(o));
        token = std::move(page.next_token);
      } while (!token.empty());
      return out;
    }
    while (true) {
      TARN_ASSIGN_OR_RETURN(const ObjectInfo* o, Peek());
      if (o == nullptr) break;
      if (StartsWith(o->key, prefix)) {
        out.push_back(*o);
      } else if (o->key < prefix) {
        TARN_RETURN_NOT_OK(Stray(*o));
      } else {
        break;
      }
      ++pos_;
    }
    return out;
  }

  // The rest of a full walk, to the stray handler.
  Status Finish() {
    if (!whole_) return Status::OK();
    while (true) {
      TARN_ASSIGN_OR_RETURN(const ObjectInfo* o, Peek());
      if (o == nullptr) break;
      TARN_RETURN_NOT_OK(Stray(*o));
      ++pos_;
    }
    if (strays_.empty()) return Status::OK();
    return stray_(std::move(strays_));
  }

  int64_t listed() const { return listed_; }

 private:
  Result<const ObjectInfo*> Peek() {
    while (pos_ >= page_.size()) {
      if (started_ && token_.empty()) return nullptr;
      TARN_ASSIGN_OR_RETURN(auto page, store_.List("datasets/", token_, kKeysPerListing));
      started_ = true;
      listed_ += static_cast<int64_t>(page.objects.size());
      page_ = std::move(page.objects);
      pos_ = 0;
      token_ = std::move(page.next_token);
    }
    return &page_[pos_];
  }
  Status Stray(const ObjectInfo& o) {
    strays_.push_back(o);
    if (strays_.size() < kStrayBatch) return Status::OK();
    std::vector<ObjectInfo> batch;
    batch.swap(strays_);
    return stray_(std::move(batch));
  }

  ObjectStore& store_;
  const bool whole_;
  StrayFn stray_;
  std::vector<ObjectInfo> page_;
  size_t pos_ = 0;
  std::string token_;
  bool started_ = false;
  std::vector<ObjectInfo> strays_;
  int64_t listed_ = 0;
};

std::string Age(int64_t now_us, int64_t mtime_ms) {
  const int64_t s = std::max<int64_t>(0, now_us / 1000000 - mtime_ms / 1000);
  if (s >= 2 * 86400) return std::to_string(s / 86400) + " days";
  if (s >= 2 * 3600) return std::to_string(s / 3600) + " hours";
  return std::to_string(s / 60) + " minutes";
}

// ---- 3, 4, 7, 8 and the objects of one dataset ----

struct Sweeper {
  Metastore& ms;
  ObjectStore& warehouse;
  const Clock& clock;
  const FsckOptions& options;
  Findings* found;
  FsckReport* report;

  // Sweeps the dataset `listed` (as the listing of datasets saw it: it is read again).
  Status Dataset(const catalog_store::SweepDataset& listed, PrefixWalk* walk);
  Status Strays(std::vector<ObjectInfo> objects);
};

Status Sweeper::Dataset(const catalog_store::SweepDataset& listed, PrefixWalk* walk) {
  struct Overlap {
    std::string a, b;
    int64_t a_from, a_to, b_from, b_to;
  };
  std::optional<catalog_store::SweepDataset> now;  // the dataset row, read with the rest
  std::optional<catalog_store::SweepSnapshot> snap;
  bool sources_recorded = false;       // the snapshot row carries a source list (migration 10)
  std::string receipt_error;           // the stored receipt does not parse
  std::optional<std::string> outside;  // receipt_outside_declaration's detail
  std::optional<std::string> past;     // read_past_window's detail
  int64_t files = 0, records = 0, bytes = 0;  // the live files' sums
  std::vector<Overlap> overlaps;
  std::vector<catalog_store::BoundsMismatch> bounds;  // the first kFsckMaxFindingsPerCode
  int64_t bounds_mismatches = 0;
  std::unordered_map<std::string, std::string> referenced;  // key -> what names it

  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        now.reset();
        snap.reset();
        sources_recorded = false;
        receipt_error.clear();
        outside.reset();
        past.reset();
        files = records = bytes = 0;
        overlaps.clear();
        bounds.clear();
        bounds_mismatches = 0;
        referenced.clear();
        // The row as of this transaction, so its current snapshot and totals agree with the
        // files read below.
        TARN_ASSIGN_OR_RETURN(now, catalog_store::LiveDatasetById(tx, listed.id));
        if (!now) return Status::OK();  // dropped since
        const catalog_store::SweepDataset& d = *now;
        if (d.current_snapshot_id) {
          TARN_ASSIGN_OR_RETURN(snap,
                                catalog_store::SnapshotForSweep(tx, d.id, *d.current_snapshot_id));
        }
        std::optional<Receipt> receipt;
        if (snap) {
          TARN_ASSIGN_OR_RETURN(auto list,
                                catalog_store::SnapshotSourceList(tx, d.id, snap->snapshot_id));
          sources_recorded = list.has_value();
          if (snap->receipt != "{}") {
            auto parsed = Receipt::FromJson(snap->receipt);
            if (parsed.ok()) {
              receipt = std::move(parsed).value();
            } else {
              receipt_error = parsed.status().message();
            }
          }
        }
        // 4: a materialized view's refresh, or a task's run, reads only what the view or
        // the task declares.
        std::optional<views_store::ViewRow> mv;  // the producer's views row
        std::string producer = "materialized view " + d.name;
        if (receipt && receipt->produced_by && *receipt->produced_by == "view:" + d.name) {
          TARN_ASSIGN_OR_RETURN(mv, views_store::FindViewOfDataset(tx, d.id));
        } else if (receipt && receipt->produced_by && StartsWith(*receipt->produced_by, "task:")) {
          auto task = ParseDatasetName(receipt->produced_by->substr(5));
          if (task.ok()) {
            auto coll = CollectionId(tx, CollectionName{task->workspace, task->collection});
            if (coll.ok()) {
              TARN_ASSIGN_OR_RETURN(auto row, views_store::FindView(tx, *coll, task->dataset));
              if (row && row->kind == views_store::kKindTask && row->dataset_id == d.id) {
                mv = std::move(row);
                producer = d.name;
              }
            }
          }
        }
        if (mv) {
          // Data written under an earlier SQL version is checked against that version's
          // sources, which are not kept: only snapshots committed under the current version
          // (version 1: every snapshot, its first data is written before it is registered).
          bool current_sql = mv->info.current.version <= 1;
          if (!current_sql) {
            TARN_ASSIGN_OR_RETURN(auto v,
                                  views_store::LoadVersion(tx, mv->id, mv->info.current.version));
            current_sql = v && snap->committed_at_us >= v->created_at_us;
          }
          if (current_sql) {
            TARN_ASSIGN_OR_RETURN(auto declared, views_store::DeclaredSources(tx, mv->id));
            std::set<std::string> uuids;
            std::string declared_names;
            for (const auto& [uuid, name] : declared) {
              uuids.insert(uuid);
              declared_names += (declared_names.empty() ? "" : ", ") + name;
            }
            std::string undeclared;
            std::set<std::string> seen;
            for (const auto& r : receipt->read_sources) {
              if (r.dataset_uuid == d.uuid || uuids.count(r.dataset_uuid)) continue;
              if (!seen.insert(r.dataset_uuid).second) continue;
              // A source dropped since left the declaration with it: not a finding.
              TARN_ASSIGN_OR_RETURN(auto live, catalog_store::LiveDatasetName(tx, r.dataset_uuid));
              if (!live) continue;
              undeclared +=
                  (undeclared.empty() ? "" : ", ") + *live + "@" + std::to_string(r.snapshot_id);
            }
            if (!undeclared.empty()) {
              outside = "snapshot " + std::to_string(snap->snapshot_id) + " of " + producer +
                        " (produced_by " + *receipt->produced_by + ") read " + undeclared +
                        ", which its declared sources (" +
                        (declared_names.empty() ? std::string("none") : declared_names) +
                        ") do not name";
            }
          }
          // 9: a windowed task's run reads its window source no further than the window it
          // recorded (a run that committed but whose window did not move would have its rows
          // read again). A run between its commit and its record is given kWindowGraceUs.
          if (mv->kind == views_store::kKindTask &&
              snap->committed_at_us < clock.NowMicros() - kWindowGraceUs) {
            TaskInfo task;
            TARN_ASSIGN_OR_RETURN(bool found, views_store::LoadTask(tx, mv->id, &task));
            const std::string& source = task.definition.window_source;
            for (const auto& r : receipt->read_sources) {
              if (!found || source.empty() || r.dataset != source) continue;
              if (r.snapshot_id <= task.window_end) continue;
              past = "snapshot " + std::to_string(snap->snapshot_id) + " of " + d.name +
                     " (produced_by " + *receipt->produced_by + ") read " + source + "@" +
                     std::to_string(r.snapshot_id) + ", past the task's window, which ends at " +
                     "snapshot " + std::to_string(task.window_end) +
                     " (its next run would read those rows again)";
              break;
            }
          }
        }
        // 7, 8: the live files' sums and row-id ranges.
        int64_t max_end = -1;
        std::string max_path;
        int64_t max_from = 0;
        TARN_RETURN_NOT_OK(
            catalog_store::ForEachLiveFile(tx, d.id, [&](const catalog_store::SweepFile& f) {
              files += 1;
              records += f.record_count - f.deleted;
              bytes += f.file_size_bytes;
              // A compacted file's ids are its inputs' (disjoint from every other file's by
              // construction) but not a contiguous range: only ranges are compared.
              if (f.record_count <= 0 || f.stores_row_ids) return Status::OK();
              const int64_t end = f.first_row_id + f.record_count;
              if (f.first_row_id < max_end) {
                overlaps.push_back({max_path, f.path, max_from, max_end, f.first_row_id, end});
              }
              if (end > max_end) {
                max_end = end;
                max_path = f.path;
                max_from = f.first_row_id;
              }
              return Status::OK();
            }));
        // 10: the bounds index says what the files' statistics say.
        TARN_RETURN_NOT_OK(
            catalog_store::CheckFileBounds(tx, d.id, [&](const catalog_store::BoundsMismatch& m) {
              if (++bounds_mismatches <= kFsckMaxFindingsPerCode) bounds.push_back(m);
              return Status::OK();
            }));
        if (!options.check_objects) return Status::OK();
        return catalog_store::ForEachReferencedKey(
            tx, d.id, [&](std::string_view key, std::string_view kind) {
              referenced.emplace(std::string(key), std::string(kind));
              return Status::OK();
            });
      },
      TxMode::kReadOnly));
  if (!now) return Status::OK();
  const catalog_store::SweepDataset& d = *now;
  ++report->datasets_checked;
  report->files_checked += files;

  // 3: the current snapshot says what it was built from.
  if (snap && snap->user_created) {
    const std::string what = "snapshot " + std::to_string(snap->snapshot_id) + " of " + d.name +
                             " (" + snap->operation + ")";
    if (!receipt_error.empty()) {
      found->Add(2, kFsckMissingReceipt, d.name, d.name,
                 what + " has a receipt that cannot be read: " + receipt_error,
                 std::to_string(snap->snapshot_id));
    } else if (snap->receipt == "{}" && sources_recorded) {
      // A snapshot row without a source list predates provenance (migration 10): its "not
      // recorded" is history, not a finding.
      found->Add(2, kFsckMissingReceipt, d.name, d.name,
                 what +
                     " is the current snapshot and was committed without a receipt: what the "
                     "dataset was built from is not recorded",
                 std::to_string(snap->snapshot_id));
    }
  }
  if (outside) {
    found->Add(2, kFsckReceiptOutsideDeclaration, d.name, d.name, *outside,
               std::to_string(snap->snapshot_id));
  }
  if (past) {
    found->Add(2, kFsckReadPastWindow, d.name, d.name, *past, std::to_string(snap->snapshot_id));
  }

  // 7: totals against the live files (live rows: rows of live files minus deleted positions).
  auto compare = [&](const std::string& whose, int64_t tf, int64_t tr, int64_t tb,
                     const std::string& key) {
    std::string diff;
    auto one = [&](const char* field, int64_t stated, int64_t actual) {
      if (stated == actual) return;
      diff += std::string(diff.empty() ? "" : ", ") + field + " " + std::to_string(stated) +
              " (live files: " + std::to_string(actual) + ")";
    };
    one("total_files", tf, files);
    one("total_records", tr, records);
    one("total_bytes", tb, bytes);
    if (diff.empty()) return;
    found->Add(2, kFsckSnapshotTotalMismatch, d.name, d.name,
               whose + " of " + d.name + " states " + diff, key);
  };
  if (d.current_snapshot_id && !snap) {
    found->Add(2, kFsckSnapshotTotalMismatch, d.name, d.name,
               "the current snapshot " + std::to_string(*d.current_snapshot_id) + " of " + d.name +
                   " has no row",
               "snapshot " + std::to_string(*d.current_snapshot_id));
  }
  if (snap) {
    const std::string which = "snapshot " + std::to_string(snap->snapshot_id);
    compare(which, snap->total_files, snap->total_records, snap->total_bytes, which);
  }
  compare("the dataset row", d.total_files, d.total_records, d.total_bytes, "dataset row");

  // 8: row ids are never handed out twice.
  for (const auto& o : overlaps) {
    found->Add(2, kFsckRowIdOverlap, d.name, d.name,
               "live files " + o.a + " (row ids " + std::to_string(o.a_from) + " to " +
                   std::to_string(o.a_to - 1) + ") and " + o.b + " (" + std::to_string(o.b_from) +
                   " to " + std::to_string(o.b_to - 1) + ") of " + d.name + " share row ids " +
                   std::to_string(std::max(o.a_from, o.b_from)) + " to " +
                   std::to_string(std::min(o.a_to, o.b_to) - 1),
               o.a + "\n" + o.b);
  }

  // 10: planning trusts the index to name every file row a predicate on an indexed field may
  // match; a missing or stale row drops files from a plan silently.
  for (const auto& m : bounds) {
    found->Add(2, kFsckBoundsIndexMismatch, d.name, d.name,
               "the bounds index of " + d.name + " has " + m.have + " for field " + m.field +
                   " (id " + std::to_string(m.field_id) + ") of file " + m.path + " (row " +
                   std::to_string(m.file_id) + "), whose statistics give " + m.want,
               m.path + "\n" + std::to_string(m.field_id));
  }
  found->CountUnlisted(kFsckBoundsIndexMismatch, d.name,
                       bounds_mismatches - static_cast<int64_t>(bounds.size()));

  if (!options.check_objects) return Status::OK();
  // 5, 6: the dataset's prefix listed once; files elsewhere (granted locations, upload
  // staging) one Head each.
  const std::string prefix = DatasetPrefix(d.uuid);
  TARN_ASSIGN_OR_RETURN(auto objects, walk->Under(prefix));
  std::unordered_set<std::string> present;
  present.reserve(objects.size());
  std::vector<ObjectInfo> unnamed;
  for (const auto& o : objects) {
    present.insert(o.key);
    if (!referenced.count(o.key)) unnamed.push_back(o);
  }
  std::vector<std::string> missing;
  for (const auto& [key, kind] : referenced) {
    if (StartsWith(key, prefix) && present.count(key)) continue;
    // Absent from the listing (or outside the prefix): asked once more, which also covers a
    // file committed after its part of a full walk was listed.
    auto head = warehouse.Head(key);
    if (head.ok()) continue;
    if (head.status().kind() != ErrorKind::kNotFound) {
      return head.status().WithContext("checking " + key + " of " + d.name);
    }
    missing.push_back(key);
  }
  std::sort(missing.begin(), missing.end());
  if (missing.empty() && unnamed.empty()) return Status::OK();
  std::vector<std::string> still;
  std::vector<ObjectInfo> orphans;
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        // A file whose rows expired and whose object cleanup deleted meanwhile is not missing.
        TARN_ASSIGN_OR_RETURN(still, catalog_store::StillReferenced(tx, d.id, missing));
        TARN_ASSIGN_OR_RETURN(orphans, catalog_store::Orphans(tx, unnamed, clock.NowMicros(),
                                                              options.orphan_grace_us));
        return Status::OK();
      },
      TxMode::kReadOnly));
  std::unordered_set<std::string> still_set(still.begin(), still.end());
  for (const auto& key : missing) {
    if (!still_set.count(key)) continue;
    found->Add(2, kFsckMissingObject, key, d.name,
               "the " + referenced[key] + " " + key + " of " + d.name +
                   " is not in the warehouse: its rows cannot be read",
               "");
  }
  const int64_t now_us = clock.NowMicros();
  for (const auto& o : orphans) {
    found->Add(2, kFsckOrphanObject, o.key, d.name,
               o.key + " (" + std::to_string(o.size) + " bytes, last modified " +
                   Age(now_us, o.mtime_ms) + " ago) is under the prefix of " + d.name +
                   " and no catalog row names it",
               "");
  }
  return Status::OK();
}

Status Sweeper::Strays(std::vector<ObjectInfo> objects) {
  std::vector<ObjectInfo> orphans;
  TARN_RETURN_NOT_OK(ms.RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(orphans, catalog_store::Orphans(tx, objects, clock.NowMicros(),
                                                              options.orphan_grace_us));
        return Status::OK();
      },
      TxMode::kReadOnly));
  const int64_t now = clock.NowMicros();
  for (const auto& o : orphans) {
    found->Add(3, kFsckOrphanObject, o.key, std::string(),
               o.key + " (" + std::to_string(o.size) + " bytes, last modified " +
                   Age(now, o.mtime_ms) +
                   " ago) is under no live dataset's prefix and no catalog row names it",
               "");
  }
  return Status::OK();
}

}  // namespace

Result<FsckReport> Catalog::Fsck(const FsckOptions& options) {
  if (options.orphan_grace_us < 0) {
    return Status::InvalidArgument("the orphan grace must not be negative")
        .WithField("field", "orphan_grace_us");
  }
  const std::string& workspace = options.workspace;
  if (!workspace.empty()) {
    TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
        [&](Transaction& tx) -> Status { return WorkspaceId(tx, workspace).status(); },
        TxMode::kReadOnly));
  }
  FsckReport report;
  Findings found;
  // 1, 2.
  TARN_RETURN_NOT_OK(SweepTriggers(*metastore_, workspace, &found));

  // The live datasets, a page at a time; only their ids, names and totals stay in memory.
  std::vector<catalog_store::SweepDataset> datasets;
  TARN_RETURN_NOT_OK(metastore_->RunInTransaction(
      [&](Transaction& tx) -> Status {
        datasets.clear();
        int64_t after = 0;
        while (true) {
          TARN_ASSIGN_OR_RETURN(
              auto page, catalog_store::LiveDatasetsPage(tx, workspace, after, kRowsPerPage));
          for (auto& d : page) {
            after = d.id;
            datasets.push_back(std::move(d));
          }
          if (static_cast<int64_t>(page.size()) < kRowsPerPage) break;
        }
        return Status::OK();
      },
      TxMode::kReadOnly));
  // In key order of their prefixes, for the full sweep's one walk of the warehouse.
  std::sort(datasets.begin(), datasets.end(),
            [](const auto& a, const auto& b) { return a.uuid < b.uuid; });

  Sweeper sweeper{*metastore_, *warehouse_, *clock_, options, &found, &report};
  PrefixWalk walk(*warehouse_, workspace.empty(), [&](std::vector<ObjectInfo> objects) {
    return sweeper.Strays(std::move(objects));
  });
  for (const auto& d : datasets) {
    if (options.cancelled && options.cancelled()) {
      return Status::Cancelled("the integrity sweep was stopped before it finished");
    }
    TARN_RETURN_NOT_OK(sweeper.Dataset(d, &walk));
  }
  if (options.check_objects) TARN_RETURN_NOT_OK(walk.Finish());
  report.objects_listed = walk.listed();

  std::vector<Found> all = found.Close();
  report.findings.reserve(all.size());
  for (const auto& f : all) report.findings.push_back(f.finding);

  // The sweep is done and no transaction is open: one alert per platform finding, its
  // identity the finding's object and key, so a finding seen again stays quiet in its
  // cool-off.
  if (alerter_) {
    for (const auto& f : all) {
      if (!f.finding.platform) continue;
      alerts::Alert alert;
      alert.code = f.finding.code;
      alert.severity = f.severity;
      alert.object = f.finding.object;
      alert.summary = f.finding.detail;
      alert.detail = {{"found_by", "fsck"}};
      if (!f.finding.dataset.empty()) alert.detail["dataset"] = f.finding.dataset;
      alert.identity = "fsck\n" + f.identity;
      alerter_->Raise(alert);
    }
  }
  return report;
}

}  // namespace tarn
