// The integrity sweep (`tarn fsck`; docs/design/provenance.md, "The integrity sweep"): a
// read-only pass over the catalog and the warehouse that reports what should be impossible.
// tarn::Client::Fsck runs it (embedded, or in the server with GET /v1/fsck).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tarn {

// The codes of the findings, stable. Every one but orphan_object is a platform inconsistency.
inline constexpr char kFsckDanglingTrigger[] = "dangling_trigger";
inline constexpr char kFsckTriggerCycle[] = "trigger_cycle";
inline constexpr char kFsckMissingReceipt[] = "missing_receipt";
inline constexpr char kFsckReceiptOutsideDeclaration[] = "receipt_outside_declaration";
inline constexpr char kFsckMissingObject[] = "missing_object";
inline constexpr char kFsckOrphanObject[] = "orphan_object";
inline constexpr char kFsckSnapshotTotalMismatch[] = "snapshot_total_mismatch";
inline constexpr char kFsckRowIdOverlap[] = "row_id_overlap";
inline constexpr char kFsckReadPastWindow[] = "read_past_window";
inline constexpr char kFsckBoundsIndexMismatch[] = "bounds_index_mismatch";

// At most this many findings of one code are listed per dataset (per trigger graph for
// cycles); the rest are counted in one more finding of that code whose detail says how many.
inline constexpr int64_t kFsckMaxFindingsPerCode = 100;

struct FsckOptions {
  // Only this workspace's datasets, triggers (by the workspace of their source or target) and
  // cycles (through any of its datasets); empty: every workspace. A workspace that does not
  // exist is kNotFound, code=workspace_not_found.
  std::string workspace;
  // orphan_object only for objects last modified at least this long ago (microseconds, >= 0):
  // an append writes its files before it commits them.
  int64_t orphan_grace_us = int64_t{24} * 3600 * 1000 * 1000;
  // List the warehouse: missing_object and orphan_object. Off, the sweep reads only the
  // metastore.
  bool check_objects = true;
  // Asked before each dataset: true stops the sweep with kCancelled (a server shutting down).
  std::function<bool()> cancelled;
};

struct FsckFinding {
  std::string code;     // one of the kFsck* codes
  std::string object;   // the object concerned: a qualified name (w.c.d) or a warehouse key
  std::string dataset;  // the dataset concerned (w.c.d); empty when none is (a stray object)
  std::string detail;   // one line for a person: what is wrong and where
  // A platform inconsistency (every code but orphan_object): the sweep also raised an alert.
  bool platform = true;
};

struct FsckReport {
  std::vector<FsckFinding> findings;  // in the order found: triggers, cycles, then by dataset
  int64_t datasets_checked = 0;       // live datasets swept
  int64_t files_checked = 0;          // their live data files (counts and row ids checked)
  int64_t objects_listed = 0;         // objects the warehouse listings returned

  // No finding at all.
  bool clean() const { return findings.empty(); }
  // No platform inconsistency (orphans allowed: a crash between writing and committing leaves
  // them, and cleanup removes them).
  bool consistent() const {
    for (const auto& f : findings) {
      if (f.platform) return false;
    }
    return true;
  }
};

}  // namespace tarn
