// Group commit of appends within one process (internal to the catalog).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "tarn/dataset.h"
#include "tarn/status.h"

namespace tarn::alerts {
class Alerter;
}  // namespace tarn::alerts

namespace tarn {

class Metastore;
class Transaction;

// Schemas and partition specs by (dataset uuid, schema id, spec id). Versions are immutable, so
// entries never go stale; the uuid keeps a recreated dataset (whose row id SQLite may reuse)
// apart. Thread-safe.
class DefinitionCache {
 public:
  struct Entry {
    Schema schema;
    PartitionSpec spec;
  };
  static constexpr size_t kMaxEntries = 4096;
  Result<std::shared_ptr<const Entry>> Get(Transaction& tx, int64_t dataset_id,
                                           const std::string& uuid, int64_t schema_id,
                                           int64_t spec_id);

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

// Appends to one dataset queue in a lane; whoever finds no leader commits everything queued
// (up to kMaxGroup parts) in one transaction, each part its own snapshot. A group that fails
// is retried part by part so that each caller gets its own answer. Thread-safe.
class CommitQueue {
 public:
  static constexpr size_t kMaxGroup = 256;
  // How long a new leader waits for recently seen writers to queue (a commit takes longer).
  static constexpr std::chrono::microseconds kGatherWait{300};

  CommitQueue(Metastore* ms, const Clock* clock, alerts::Alerter* alerter);
  ~CommitQueue();

  // Commits one append-only part (blocking until its group committed).
  Result<SnapshotInfo> Submit(DatasetCommit* part);
  DefinitionCache& cache() { return cache_; }
  void set_alerter(alerts::Alerter* alerter) { alerter_ = alerter; }

 private:
  struct Pending;
  struct Lane;
  Lane& LaneFor(const std::string& dataset);
  void RunGroup(std::vector<Pending*>& batch);

  Metastore* ms_;
  const Clock* clock_;
  alerts::Alerter* alerter_;  // alerts after a commit (missing receipts, failed fires)
  DefinitionCache cache_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Lane>> lanes_;
};

}  // namespace tarn
