#include "datafile/page_pruning.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "datafile/columns_internal.h"
#include "table/field_path.h"
#include "parquet/stat_value.h"
#include "tarn/data_file.h"
#include "types/cast.h"

namespace tarn::datafile_internal {
namespace {

// What is known of a column over rows [begin, next segment's begin) of a row group.
struct Segment {
  int64_t begin = 0;
  std::optional<ColumnStats> stats;  // nullopt: nothing
};

// A column's segments in one row group, and the one covering the current row.
struct ColumnSegments {
  std::vector<Segment> segments;
  size_t at = 0;
};

// Iceberg-encoded [lower, upper] of statistics bytes min/max of a file column, in the type of
// `field`; nullopt when they do not serve as bounds (undecodable, NaN, a failed cast).
std::optional<std::pair<std::string, std::string>> Bounds(const parquet::FileMetaData& md,
                                                          const parquet::LeafColumn& leaf,
                                                          const DataType& file_type,
                                                          const Field& field, std::string_view min,
                                                          std::string_view max) {
  Result<Column> lo = parquet::DecodeStatValue(md, leaf, file_type, min);
  Result<Column> hi = parquet::DecodeStatValue(md, leaf, file_type, max);
  if (!lo.ok() || !hi.ok() || lo->length != 1 || hi->length != 1 || !lo->IsValid(0) ||
      !hi->IsValid(0)) {
    return std::nullopt;
  }
  Column mins = std::move(lo).value(), maxes = std::move(hi).value();
  if (file_type != field.type) {
    Result<Column> cmin = CastColumn(mins, field.type);
    Result<Column> cmax = CastColumn(maxes, field.type);
    if (!cmin.ok() || !cmax.ok()) return std::nullopt;
    mins = std::move(cmin).value();
    maxes = std::move(cmax).value();
  }
  if (field.type.is_floating() && !WidenFloatBounds(&mins, &maxes)) return std::nullopt;
  Column both(field.type);
  AppendScalarRow(mins, 0, &both);
  AppendScalarRow(maxes, 0, &both);
  ColumnStats st = ComputeColumnStats(field.field_id, both);
  if (!st.lower || !st.upper) return std::nullopt;
  return std::make_pair(std::move(*st.lower), std::move(*st.upper));
}

// Stats of `rows` rows: null count (unknown: nullopt) and bounds (none: nullopt). NaN counts
// are never known (bounds leave NaN out).
ColumnStats MakeStats(int32_t field_id, int64_t rows, std::optional<int64_t> nulls,
                      std::optional<std::pair<std::string, std::string>> bounds) {
  ColumnStats st;
  st.field_id = field_id;
  if (nulls && *nulls >= 0 && *nulls <= rows) {
    st.value_count = rows;
    st.null_count = *nulls;
  }  // else value_count 0 of a non-empty range: MightMatch takes the counts as unknown
  if (bounds) {
    st.lower = std::move(bounds->first);
    st.upper = std::move(bounds->second);
  }
  return st;
}

// The column chunk's own statistics as one segment (row group pruning).
std::optional<ColumnStats> ChunkStats(const parquet::FileMetaData& md,
                                      const parquet::LeafColumn& leaf, const DataType& file_type,
                                      const Field& field, const parquet::RowGroup& rg,
                                      const parquet::ColumnChunk& cc) {
  const parquet::Statistics* st =
      cc.meta_data && cc.meta_data->statistics ? &*cc.meta_data->statistics : nullptr;
  if (st == nullptr) return std::nullopt;
  const std::optional<std::string>* lo = &st->min_value;
  const std::optional<std::string>* hi = &st->max_value;
  if (!lo->has_value() && !hi->has_value() && LegacyStatsUsable(leaf, file_type)) {
    lo = &st->min;
    hi = &st->max;
  }
  std::optional<std::pair<std::string, std::string>> bounds;
  if (lo->has_value() && hi->has_value()) {
    bounds = Bounds(md, leaf, file_type, field, **lo, **hi);
  }
  return MakeStats(field.field_id, rg.num_rows, st->null_count, std::move(bounds));
}

}  // namespace

std::vector<FilterColumn> FilterColumnsOf(const BoundPredicate& filter, const Schema& schema,
                                          const parquet::ParquetSchema& file,
                                          const std::vector<int>& file_match) {
  std::vector<FilterColumn> out;
  for (int32_t id : ReferencedFieldIds(filter)) {
    const std::optional<FieldPath> path = FindFieldPath(schema, id);
    if (!path) continue;
    FilterColumn c;
    c.field = *path->field;
    const int top = path->indices[0];
    const int file_field = file_match[static_cast<size_t>(top)];
    if (file_field >= 0 && CheckFileColumn(file, file_field, schema.fields[top]).ok()) {
      if (!path->nested()) {
        c.file_field = file_field;
      } else if (auto leaf = FindFileStructLeaf(file, file_field, schema, *path)) {
        c.file_field = file_field;
        c.member = std::move(leaf);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<parquet::RowSelection> SelectRows(const parquet::FileReader& reader,
                                         const BoundPredicate& filter,
                                         const std::vector<FilterColumn>& columns,
                                         const std::vector<int>* row_groups) {
  const parquet::FileMetaData& md = reader.metadata();
  const parquet::ParquetSchema& ps = reader.schema();
  const int groups = reader.num_row_groups();
  parquet::RowSelection out(static_cast<size_t>(groups));

  // The columns whose statistics can speak for rows: one value per row (a flat column or a
  // STRUCT member: no repetition), with an order (not INT96), read as values (not logical type
  // UNKNOWN, which reads as nulls).
  struct Usable {
    const FilterColumn* column;
    int leaf;
    const DataType* file_type;
  };
  std::vector<Usable> usable;
  for (const FilterColumn& c : columns) {
    if (c.file_field < 0 || c.field.type.is_nested()) continue;
    int leaf = c.member ? c.member->leaf : ps.field_leaves[c.file_field][0];
    const DataType* file_type = c.member ? &c.member->type : &ps.schema.fields[c.file_field].type;
    if (!c.member && ps.field_leaves[c.file_field].size() != 1) continue;
    const parquet::LeafColumn& lc = ps.leaves[leaf];
    if (lc.max_rep_level > 0 || lc.physical == parquet::Type::INT96) continue;
    const parquet::SchemaElement& element = md.schema[lc.schema_index];
    if (element.logical_type && element.logical_type->kind == parquet::LogicalType::UNKNOWN) {
      continue;
    }
    usable.push_back({&c, leaf, file_type});
  }
  // The row groups looked at, ascending.
  std::vector<int> looked;
  if (row_groups != nullptr) {
    for (int g : *row_groups) {
      if (g >= 0 && g < groups && (looked.empty() || g > looked.back())) looked.push_back(g);
    }
  } else {
    for (int g = 0; g < groups; ++g) looked.push_back(g);
  }
  std::vector<std::pair<int, int>> chunks;
  for (int g : looked) {
    for (const Usable& u : usable) chunks.emplace_back(g, u.leaf);
  }
  std::vector<parquet::ChunkPageIndex> indexes;
  // A column index says nothing without a defined column order (parquet.thrift).
  if (!chunks.empty() && md.column_orders_type_defined) {
    TARN_ASSIGN_OR_RETURN(indexes, reader.ReadPageIndex(chunks, true));
  }

  const PartitionSpec no_partitions;
  for (size_t gi = 0; gi < looked.size(); ++gi) {
    const int g = looked[gi];
    const parquet::RowGroup& rg = md.row_groups[g];
    const int64_t rows = rg.num_rows;
    if (rows == 0) continue;
    std::vector<ColumnSegments> cols;
    std::vector<int64_t> starts = {0};
    for (size_t u = 0; u < usable.size(); ++u) {
      const FilterColumn& c = *usable[u].column;
      const int leaf = usable[u].leaf;
      const parquet::LeafColumn& lc = ps.leaves[leaf];
      const DataType& file_type = *usable[u].file_type;
      const parquet::ChunkPageIndex* pi =
          indexes.empty() ? nullptr : &indexes[gi * usable.size() + u];
      ColumnSegments cs;
      if (pi != nullptr && pi->column_index) {
        const parquet::OffsetIndex& oi = *pi->offset_index;
        const parquet::ColumnIndex& ci = *pi->column_index;
        for (size_t p = 0; p < oi.page_locations.size(); ++p) {
          const parquet::RowRange pr = parquet::PageRows(oi, p, rows);
          std::optional<int64_t> nulls;
          if (ci.null_counts) nulls = (*ci.null_counts)[p];
          std::optional<std::pair<std::string, std::string>> bounds;
          if (ci.null_pages[p]) {
            nulls = pr.end - pr.begin;  // only nulls, whatever null_counts says
          } else {
            bounds = Bounds(md, lc, file_type, c.field, ci.min_values[p], ci.max_values[p]);
          }
          cs.segments.push_back(
              {pr.begin, MakeStats(c.field.field_id, pr.end - pr.begin, nulls, std::move(bounds))});
          starts.push_back(pr.begin);
        }
      } else {
        cs.segments.push_back({0, ChunkStats(md, lc, file_type, c.field, rg, rg.columns[leaf])});
      }
      cols.push_back(std::move(cs));
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    // Every stretch between two page starts of any column: kept when MightMatch allows it.
    std::vector<parquet::RowRange>& keep = out[g];
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t begin = starts[i];
      const int64_t end = i + 1 < starts.size() ? starts[i + 1] : rows;
      DataFile stretch;
      stretch.record_count = end - begin;
      for (ColumnSegments& cs : cols) {
        while (cs.at + 1 < cs.segments.size() && cs.segments[cs.at + 1].begin <= begin) ++cs.at;
        const std::optional<ColumnStats>& st = cs.segments[cs.at].stats;
        if (!st) continue;
        ColumnStats s = *st;
        // Counts of a page describe the page, not the stretch: keep them only as "all null"
        // or "no null" facts, which hold for every part of it.
        if (s.value_count > 0) {
          const bool all_null = s.null_count >= s.value_count;
          s.value_count = stretch.record_count;
          s.null_count = all_null ? stretch.record_count : (s.null_count == 0 ? 0 : 1);
          if (!all_null && s.null_count == 1 && stretch.record_count == 1) {
            s.value_count = 0;  // one row that may or may not be null: unknown
            s.null_count = 0;
          }
        }
        stretch.columns.push_back(std::move(s));
      }
      std::sort(stretch.columns.begin(), stretch.columns.end(),
                [](const ColumnStats& a, const ColumnStats& b) { return a.field_id < b.field_id; });
      if (!MightMatch(filter, stretch, no_partitions, Schema())) continue;
      if (!keep.empty() && keep.back().end == begin) {
        keep.back().end = end;
      } else {
        keep.push_back({begin, end});
      }
    }
  }
  return out;
}

}  // namespace tarn::datafile_internal
