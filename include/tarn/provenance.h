// Lineage, impact and readers: the answers provenance gives (docs/design/provenance.md). The
// operations are members of tarn::Client (tarn/client.h); receipts and standing source lists
// are in tarn/dataset.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tarn/dataset.h"

namespace tarn {

// What one snapshot was built from (`tarn lineage`).
struct LineageEntry {
  int64_t snapshot_id = 0;
  int64_t committed_at_us = 0;
  std::string operation;
  std::string author;
  std::optional<Receipt> receipt;  // nullopt: not recorded
  // "merged, by task ops.c.ingest", "appended, uploaded via web", "appended" (hand-run),
  // "appended, not recorded".
  std::string how;
};
struct LineageResult {
  std::string dataset;
  std::vector<LineageEntry> snapshots;  // newest first
  std::vector<SourceRef> sources;       // the standing list now
  bool sources_complete = true;
};

// A dataset whose current content was built from the asked one (`tarn impact`). Named in full
// even where the caller may not read it: knowing a consumer exists is not reading it.
struct Consumer {
  std::string dataset;
  std::string dataset_uuid;
};
inline constexpr size_t kMaxConsumers = 64;
struct ImpactResult {
  std::string dataset;
  std::vector<Consumer> consumers;  // by name, at most kMaxConsumers
  bool truncated = false;           // more consumers exist
};

// A commit that read the asked dataset (`tarn readers`), from the receipts.
struct ReaderEntry {
  std::string dataset;  // the dataset the commit wrote
  int64_t snapshot_id = 0;
  int64_t committed_at_us = 0;
  int64_t read_snapshot_id = 0;  // the version of the asked dataset it read
  std::optional<std::string> produced_by;
};
struct ReadersResult {
  std::string dataset;
  std::optional<int64_t> version;
  std::vector<ReaderEntry> readers;  // newest first, at most kMaxConsumers
  bool truncated = false;
};

}  // namespace tarn
