// Compaction (C11; docs/design/maintenance.md "Compaction"): one pass reads the live files of
// a snapshot, selects per (partition spec, partition value) the files under the minimum size
// or carrying deleted rows, rewrites them into files of about the target size and commits one
// snapshot of operation compact (user_created false).
//
// Rows keep their ids: the output files store them in the reserved row id column (field
// kRowIdFieldId, Iceberg's _row_id), and the commit allocates none. The commit holds while
// the files it rewrote are as they were read (commit.cc CheckCompactInputs): a delete of rows
// in them conflicts, an append does not.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "catalog/catalog.h"
#include "catalog/catalog_internal.h"
#include "catalog/error_codes.h"
#include "common/units.h"
#include "datafile/reader.h"
#include "datafile/writer.h"
#include "objectstore/object_store.h"
#include "table/deletion_vector.h"
#include "table/field_path.h"
#include "table/ordered_key.h"
#include "table/predicate.h"
#include "types/batch.h"
#include "types/iceberg.h"

namespace tarn {

using namespace catalog_internal;  // NOLINT: this file is part of the catalog

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kDefaultTarget = 128 * kMiB;
constexpr int64_t kDefaultMin = 96 * kMiB;
constexpr int64_t kDefaultMax = 192 * kMiB;
constexpr int64_t kDefaultMemoryMb = 1024;

Result<int64_t> SizeProperty(const DatasetInfo& ds, const char* key, int64_t fallback) {
  auto it = ds.properties.find(key);
  if (it == ds.properties.end()) return fallback;
  auto v = ParseByteSize(it->second);
  if (!v.ok()) {
    return Status::Of(codes::kInvalidProperty, std::string("dataset property ") + key + " of '" +
                                                   ds.name.ToString() + "' is '" + it->second +
                                                   "': expected a size such as 128MiB")
        .WithField("property", key);
  }
  return *v;
}

struct Thresholds {
  int64_t target = kDefaultTarget, min = kDefaultMin, max = kDefaultMax;
};

Result<Thresholds> ThresholdsOf(const DatasetInfo& ds) {
  Thresholds t;
  TARN_ASSIGN_OR_RETURN(t.target, SizeProperty(ds, "compaction.target_file_size", kDefaultTarget));
  // Unset bounds follow the target (75% and 150% of it) when only the target is set.
  TARN_ASSIGN_OR_RETURN(t.min, SizeProperty(ds, "compaction.min_file_size", t.target / 4 * 3));
  TARN_ASSIGN_OR_RETURN(t.max, SizeProperty(ds, "compaction.max_file_size", t.target / 2 * 3));
  if (!(t.min <= t.target && t.target <= t.max)) {
    return Status::Of(codes::kInvalidProperty,
                      "the compaction sizes of '" + ds.name.ToString() +
                          "' must keep compaction.min_file_size <= compaction.target_file_size "
                          "<= compaction.max_file_size (" +
                          std::to_string(t.min) + ", " + std::to_string(t.target) + ", " +
                          std::to_string(t.max) + " bytes)")
        .WithField("property", "compaction.target_file_size");
  }
  return t;
}

// TARN_COMPACTION_MEMORY_MB: decoded rows held at once (default 1024).
int64_t MemoryBudgetBytes() {
  const char* v = std::getenv("TARN_COMPACTION_MEMORY_MB");
  int64_t mb = kDefaultMemoryMb;
  if (v != nullptr && *v != '\0') {
    char* end = nullptr;
    long long parsed = std::strtoll(v, &end, 10);
    if (end != v && *end == '\0' && parsed > 0) mb = parsed;
  }
  return mb * kMiB;
}

std::string HumanBytes(int64_t n) {
  if (n >= kMiB && n % kMiB == 0) return std::to_string(n / kMiB) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n / 1024) + " KiB";
  return std::to_string(n) + " bytes";
}

// The memcmp-ordered key of a file's lower bound of `field` (empty when unknown: sorts last).
std::string LowerKey(const DataFile& f, const Field* field) {
  if (field == nullptr) return std::string();
  const ColumnStats* s = f.FindStats(field->field_id);
  if (s == nullptr || !s->lower) return std::string();
  auto col = DecodeBound(field->type, *s->lower);
  if (!col.ok() || col->length != 1) return std::string();
  return OrderedKey(*col, 0);
}

const Field* FieldById(const Schema& schema, int32_t id) {
  for (const Field& f : schema.fields) {
    if (f.field_id == id) return &f;
  }
  return nullptr;
}

// Whether every source column of `spec` is still in `schema` (its files can be written again).
bool Writable(const PartitionSpec& spec, const Schema& schema) {
  for (const PartitionField& pf : spec.fields) {
    if (!FindFieldPath(schema, pf.source_id)) return false;
  }
  return true;
}

std::string Reason(size_t files, size_t small, size_t with_deletes, int64_t min) {
  std::string out;
  if (small > 0) {
    out = std::to_string(small) + (small == 1 ? " file" : " files") + " under " + HumanBytes(min);
  }
  if (with_deletes > 0) {
    if (!out.empty()) out += ", ";
    out += std::to_string(with_deletes) + (with_deletes == 1 ? " file" : " files") +
           " with deleted rows";
  }
  if (files > small + with_deletes) out += " (" + std::to_string(files) + " files)";
  return out;
}

}  // namespace

Result<Catalog::CompactionPlan> Catalog::PlanCompaction(std::string_view qualified,
                                                        const CompactionOptions& options) {
  CompactionPlan plan;
  TARN_ASSIGN_OR_RETURN(plan.dataset, LoadDataset(qualified));
  const DatasetInfo& ds = plan.dataset;
  CompactionResult& out = plan.result;
  out.dataset = ds.name.ToString();
  out.dry_run = options.dry_run;
  out.rule = options.rule;
  if (out.rule == CompactionRule::kAuto) {
    out.rule = ds.sort_order.fields.empty() ? CompactionRule::kBrute : CompactionRule::kSortAware;
  }
  if (out.rule == CompactionRule::kSortAware && ds.sort_order.fields.empty()) {
    return Status::InvalidArgument("'" + out.dataset +
                                   "' has no sort order: sort_aware compaction needs one (set it "
                                   "with `tarn dataset alter --sort-by`, or use brute)");
  }
  TARN_ASSIGN_OR_RETURN(Thresholds t, ThresholdsOf(ds));
  out.target_file_size = t.target;
  out.min_file_size = t.min;
  out.max_file_size = t.max;
  if (!options.where.empty()) {
    TARN_ASSIGN_OR_RETURN(auto pred, ParseAndBindPredicate(options.where, ds.schema));
    for (int32_t id : ReferencedFieldIds(pred)) {
      bool partition_source = false;
      for (const PartitionField& pf : ds.spec.fields) partition_source |= pf.source_id == id;
      if (!partition_source) {
        const std::optional<FieldPath> path = FindFieldPath(ds.schema, id);
        const std::string name = path ? path->Text() : std::to_string(id);
        return Status::Of(codes::kCompactionFilterNotPartition,
                          "--where of a compaction chooses partitions: '" + name +
                              "' is not a partition source column of '" + out.dataset + "'")
            .WithField("column", name);
      }
    }
  }
  if (!ds.current_snapshot_id) {
    out.nothing_to_do = "'" + out.dataset + "' has no snapshot yet";
    return plan;
  }
  out.read_snapshot_id = *ds.current_snapshot_id;

  // The live files at the snapshot read, by (spec, partition value).
  std::map<std::pair<int32_t, std::string>, std::vector<PlannedFile>> groups;
  SnapshotSelector at;
  at.snapshot_id = out.read_snapshot_id;
  TARN_RETURN_NOT_OK(PlanFiles(qualified, at, options.where, [&](const PlannedFile& f) {
    groups[{f.file.spec_id, PartitionValuesToJson(f.file.partition)}].push_back(f);
    return Status::OK();
  }));

  const Field* first_sort = nullptr;
  bool descending = false;
  if (out.rule == CompactionRule::kSortAware) {
    first_sort = FieldById(ds.schema, ds.sort_order.fields.front().field_id);
    descending = ds.sort_order.fields.front().descending;
  }
  size_t skipped_specs = 0;
  for (auto& [key, files] : groups) {
    std::vector<PlannedFile> candidates;
    for (auto& f : files) {
      if (f.file.file_size_bytes < t.min || f.deleted_rows > 0) candidates.push_back(f);
    }
    if (candidates.empty()) continue;
    const PartitionSpec* spec = nullptr;
    for (const PartitionSpec& s : ds.specs) {
      if (s.spec_id == key.first) spec = &s;
    }
    if (key.first == ds.spec.spec_id) spec = &ds.spec;
    if (spec == nullptr || !Writable(*spec, ds.schema)) {
      ++skipped_specs;  // a spec whose source column was dropped: its files stay as they are
      continue;
    }
    if (out.rule == CompactionRule::kSortAware) {
      // Files next to each other in the order share an output, so outputs overlap little.
      std::vector<std::pair<std::string, size_t>> keys;
      for (size_t i = 0; i < candidates.size(); ++i) {
        keys.emplace_back(LowerKey(candidates[i].file, first_sort), i);
      }
      std::stable_sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
        if (a.first.empty() != b.first.empty()) return b.first.empty();
        return descending ? a.first > b.first : a.first < b.first;
      });
      std::vector<PlannedFile> ordered;
      for (const auto& k : keys) ordered.push_back(std::move(candidates[k.second]));
      candidates = std::move(ordered);
    } else {
      // Arrival order: row ids ascending.
      std::stable_sort(
          candidates.begin(), candidates.end(), [](const PlannedFile& a, const PlannedFile& b) {
            return a.file.RowIdRange().value_or(std::make_pair(int64_t{0}, int64_t{0})).first <
                   b.file.RowIdRange().value_or(std::make_pair(int64_t{0}, int64_t{0})).first;
          });
    }
    // Bins of about the target size, never over the maximum.
    std::vector<std::vector<PlannedFile>> bins(1);
    int64_t bin_bytes = 0;
    for (auto& f : candidates) {
      if (!bins.back().empty() &&
          (bin_bytes >= t.target || bin_bytes + f.file.file_size_bytes > t.max)) {
        bins.emplace_back();
        bin_bytes = 0;
      }
      bin_bytes += f.file.file_size_bytes;
      bins.back().push_back(std::move(f));
    }
    const std::string partition = PartitionPath(*spec, ds.schema, files.front().file.partition);
    for (auto& bin : bins) {
      size_t small = 0, with_deletes = 0;
      for (const auto& f : bin) {
        if (f.deleted_rows > 0) {
          ++with_deletes;
        } else {
          ++small;
        }
      }
      // One small file alone gains nothing.
      if (bin.size() < 2 && with_deletes == 0) continue;
      CompactionOutput o;
      o.spec_id = key.first;
      o.partition = partition;
      for (const auto& f : bin) {
        o.inputs.push_back(f.file.path);
        o.input_bytes += f.file.file_size_bytes;
        o.input_rows += f.file.record_count;
        o.deleted_rows += f.deleted_rows;
      }
      o.reason = Reason(bin.size(), small, with_deletes, t.min);
      out.outputs.push_back(std::move(o));
      plan.inputs.push_back(std::move(bin));
    }
  }
  if (out.outputs.empty()) {
    out.nothing_to_do = "no partition of '" + out.dataset + "' has two files under " +
                        HumanBytes(t.min) + " or a file with deleted rows";
    if (skipped_specs > 0) {
      out.nothing_to_do += " (" + std::to_string(skipped_specs) +
                           " partitions of a spec whose source column was dropped are left alone)";
    }
  }
  return plan;
}

Result<CompactionResult> Catalog::RunCompaction(CompactionPlan plan, CommitMeta meta) {
  CompactionResult& out = plan.result;
  if (out.dry_run || out.outputs.empty()) return std::move(out);
  const DatasetInfo& ds = plan.dataset;
  Schema schema = ds.schema;  // the current schema, with the stored row ids
  schema.fields.push_back(RowIdField());
  static const SortOrder kUnsorted;
  const SortOrder& sort = out.rule == CompactionRule::kSortAware ? ds.sort_order : kUnsorted;
  const int64_t budget = MemoryBudgetBytes();
  ReadOptions read;
  read.with_row_ids = true;

  std::vector<DataFile> written;  // every output, for the commit (or for deletion)
  std::vector<CompactionOutput> outputs;
  auto fail = [&](Status st) -> Status {
    DeleteQuietly(*warehouse_, written);
    return st;
  };
  for (size_t k = 0; k < out.outputs.size(); ++k) {
    const CompactionOutput& planned = out.outputs[k];
    const PartitionSpec* spec = &ds.spec;
    for (const PartitionSpec& s : ds.specs) {
      if (s.spec_id == planned.spec_id) spec = &s;
    }
    const std::vector<PlannedFile>& inputs = plan.inputs[k];
    std::vector<RecordBatch> held;  // the rows of inputs[begin, end)
    int64_t held_bytes = 0;
    size_t begin = 0, end = 0;
    // Writes what is held as one file. A bin larger than the memory budget becomes several.
    auto flush = [&]() -> Status {
      if (held.empty()) return Status::OK();
      const DataWriteOptions options = DataWriteOptionsFor(ds, schema);
      TARN_ASSIGN_OR_RETURN(auto files,
                            WriteDataFiles(*warehouse_, schema, *spec, sort, held, options));
      for (auto& f : files) {
        if (auto range = f.RowIdRange()) f.first_row_id = range->first;
        written.push_back(f);
      }
      if (files.size() != 1 || PartitionValuesToJson(files[0].partition) !=
                                   PartitionValuesToJson(inputs.front().file.partition)) {
        return Status::Internal("compaction of '" + out.dataset +
                                "' would move rows across partitions");
      }
      CompactionOutput o = planned;
      o.path = files[0].path;
      o.bytes = files[0].file_size_bytes;
      o.rows = files[0].record_count;
      if (end - begin != inputs.size()) {
        // Part of a bin: say which inputs this file holds.
        o.inputs.clear();
        o.input_bytes = o.input_rows = o.deleted_rows = 0;
        for (size_t i = begin; i < end; ++i) {
          o.inputs.push_back(inputs[i].file.path);
          o.input_bytes += inputs[i].file.file_size_bytes;
          o.input_rows += inputs[i].file.record_count;
          o.deleted_rows += inputs[i].deleted_rows;
        }
      }
      outputs.push_back(std::move(o));
      held.clear();
      held_bytes = 0;
      begin = end;
      return Status::OK();
    };
    for (const PlannedFile& f : inputs) {
      std::vector<uint64_t> deleted;
      if (f.deletion_vector) {
        auto decoded = DecodeDeletionVector(*f.deletion_vector);
        if (!decoded.ok()) return fail(decoded.status());
        deleted = std::move(*decoded);
      }
      auto batch = ReadDataFile(*warehouse_, f.file, ds.schema, deleted, nullptr, read);
      if (!batch.ok()) return fail(batch.status());
      const int64_t bytes = BatchBytes(*batch);
      if (!held.empty() && held_bytes + bytes > budget) {
        if (Status st = flush(); !st.ok()) return fail(st);
      }
      held_bytes += bytes;
      ++end;
      if (batch->num_rows > 0) held.push_back(std::move(*batch));
    }
    if (Status st = flush(); !st.ok()) return fail(st);
  }

  DatasetCommit part;
  part.dataset = out.dataset;
  part.expected_uuid = ds.uuid;
  part.read_snapshot_id = out.read_snapshot_id;
  part.operation = CommitOperation::kCompact;
  for (const auto& o : out.outputs) {
    for (const auto& p : o.inputs) part.removed_paths.push_back(p);
  }
  part.added = written;
  meta.user_created = false;
  meta.idempotency_key.reset();
  if (!meta.receipt) meta.receipt = Receipt();  // reads nothing beyond its own rows
  if (meta.message.empty()) {
    meta.message = "compact (" + std::string(CompactionRuleName(out.rule)) +
                   "): " + std::to_string(part.removed_paths.size()) + " files into " +
                   std::to_string(written.size());
  }
  part.meta = std::move(meta);
  std::vector<DatasetCommit> parts;
  parts.push_back(std::move(part));
  auto committed = CommitWritten(std::move(parts));
  if (!committed.ok()) {
    // A commit whose reply was lost may have landed: then its files stay.
    if (!MayBeRegistered(*metastore_, written)) DeleteQuietly(*warehouse_, written);
    return committed.status();
  }
  out.snapshot_id = (*committed)[0].snapshot_id;
  out.outputs = std::move(outputs);
  return std::move(out);
}

Result<CompactionResult> Catalog::Compact(std::string_view qualified,
                                          const CompactionOptions& options, CommitMeta meta) {
  if (meta.author.empty()) meta.author = actor();
  TARN_ASSIGN_OR_RETURN(auto plan, PlanCompaction(qualified, options));
  return RunCompaction(std::move(plan), std::move(meta));
}

}  // namespace tarn
