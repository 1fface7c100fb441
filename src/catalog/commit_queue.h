// Group commit of appends within one process (internal to the catalog).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/dataset.h"
#include "common/status.h"

namespace tarn {

class Metastore;

// Appends to one dataset queue in a lane; whoever finds no leader commits everything queued
// (up to kMaxGroup parts) in one transaction, each part its own snapshot. A group that fails
// is retried part by part so that each caller gets its own answer. Thread-safe.
class CommitQueue {
 public:
  static constexpr size_t kMaxGroup = 256;

  explicit CommitQueue(Metastore* ms);
  ~CommitQueue();

  // Commits one append-only part (blocking until its group committed).
  Result<SnapshotInfo> Submit(DatasetCommit* part);

 private:
  struct Pending;
  struct Lane;
  Lane& LaneFor(const std::string& dataset);
  void RunGroup(std::vector<Pending*>& batch);

  Metastore* ms_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Lane>> lanes_;
};

}  // namespace tarn
