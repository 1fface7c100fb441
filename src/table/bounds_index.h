// The arithmetic of the bounds index (docs/design/catalog-core.md "The bounds index"): an
// interval index over files' column bounds kept in ordinary B-tree indexes, the Relational
// Interval Tree of Kriegel, Pötke and Seidl (VLDB 2000), so that the same SQL prunes on SQLite
// and PostgreSQL.
//
// Values become points of [1, 2^62], monotone (a <= b gives Point(a) <= Point(b); equal points
// may hold different values, so the index is a filter and the statistics decide). A file's
// bounds [lo, hi] are stored at their fork node: the node of a virtual binary tree over the
// points (node v sits at the level of its lowest set bit) that is the highest one inside
// [lo, hi]. An interval meets a query [a, b] exactly when its node lies in [a, b], or its node is
// an ancestor of a left of a and its hi >= a, or an ancestor of b right of b and its lo <= b:
// one range scan and at most 2 x 63 index seeks, whatever the number of files.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "table/predicate.h"
#include "tarn/data_file.h"
#include "tarn/data_type.h"

namespace tarn::bounds_index {

// The root of the virtual tree and the largest point.
inline constexpr int64_t kRoot = int64_t{1} << 62;

// An inclusive range of points.
struct Interval {
  int64_t lo = 1, hi = kRoot;
  bool operator==(const Interval&) const = default;
};

// The point of a value given as its OrderedKey (table/ordered_key.h) in `type`. Integers of any
// width (signed, unsigned saturating at 2^63 - 1), DATE, TIME, TIMESTAMP and DECIMAL (unscaled,
// saturating to 64 bits) share one scale, so a type promotion keeps every point; floats use the
// bit order of their double; other types (VARCHAR, BLOB, JSON, UUID) their first 8 bytes. The
// two lowest bits of the 64-bit scale are dropped.
int64_t Point(const DataType& type, std::string_view ordered_key);

// The fork node of `iv` (lo <= hi, both in [1, kRoot]).
int64_t Fork(Interval iv);

// What an index query on [a, b] asks (see the file comment): nodes in [span.lo, span.hi]; nodes
// in `left` with hi >= span.lo; nodes in `right` with lo <= span.hi.
struct Probe {
  Interval span;
  std::vector<int64_t> left, right;
};
Probe ProbeOf(Interval query);

// A file's entry for one field: its interval, or unknown (no usable bounds: statistics pending
// or missing, bounds that do not decode); such a file is a candidate for every query.
struct Entry {
  std::optional<Interval> interval;  // nullopt: unknown
  bool operator==(const Entry&) const = default;
};
// The entry of `file` for `field_id` of `type`; nullopt when no row of the file can satisfy a
// predicate the index answers for that field (the file is empty, or the field is null in every
// row): such a file needs no entry.
std::optional<Entry> FileEntry(const DataFile& file, int32_t field_id, const DataType& type);

// The intervals that hold the `field_id` value of every row satisfying `predicate`, merged and
// sorted; an empty vector when no row can satisfy it. nullopt when the predicate does not confine
// the field, or could be satisfied by a row where it is null (an IS [NOT] NULL test of it).
std::optional<std::vector<Interval>> Confine(const BoundPredicate& predicate, int32_t field_id);

}  // namespace tarn::bounds_index
