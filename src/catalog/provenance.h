// Provenance inside the catalog (docs/design/provenance.md): the standing source list of a
// dataset and the rules by which the commit path maintains it, and the tables behind "who read
// X" and "who consumes X" (migration 10). Every statement on those tables is behind store.h
// (provenance_store.cc, which also holds the migration). Internal to the catalog module.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "metastore/metastore.h"
#include "tarn/provenance.h"

namespace tarn::provenance {

// Migration 10 (provenance), contributed to SchemaMigrations() (provenance_store.cc).
const std::vector<Migration>& ProvenanceTables();

// ---- the standing source list (the seed's "sources", on the dataset row) ----

inline constexpr size_t kMaxSources = 64;

struct SourceList {
  std::vector<SourceRef> sources;  // most recent first, at most kMaxSources, never the dataset
  bool complete = true;            // false when a name may be missing

  // {"sources": [{"dataset", "uuid"}...], "complete": bool}: the datasets.sources and
  // snapshots.sources columns.
  std::string ToJson() const;
  bool operator==(const SourceList& o) const;
  bool operator!=(const SourceList& o) const { return !(*this == o); }
};
// The stored form; NULL (a snapshot from before migration 10) and anything unreadable are an
// empty, incomplete list.
SourceList ParseSourceList(const std::optional<std::string>& stored);

// One commit's effect on the list of the dataset `own_uuid` (every operation but rollback,
// whose list is the target snapshot's): an append (append, add_files, merge) adds its reads in
// front, a rewrite (overwrite, truncate_and_add_files) replaces the list, a commit that leaves
// the dataset empty clears it, maintenance (compact) leaves it alone; a commit without a receipt
// leaves the list incomplete, as does a truncated receipt or a name the cap dropped.
void ApplyCommit(SourceList* list, CommitOperation op, const std::optional<Receipt>& receipt,
                 std::string_view own_uuid, bool emptied);

// The "how" of a lineage row: the operation as a past participle and who produced it
// ("appended, uploaded via web", "overwritten, by view w.c.v", "merged, by task w.c.t",
// "appended"; "not recorded" appended when there is no receipt).
std::string How(std::string_view operation, const std::optional<Receipt>& receipt);

// A commit's reads for the readers index (catalog_store::InsertSnapshotReads): (source uuid,
// source snapshot, reading snapshot).
using ReadRow = std::tuple<std::string, int64_t, int64_t>;

}  // namespace tarn::provenance
