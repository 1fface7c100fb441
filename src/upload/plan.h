// The plan of a contract (docs/design/upload.md, U4): from the inferred samples, the schema
// source and the existing dataset, what each column is read as, written as, and what stops the
// write. A pure function: no I/O, no clock.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/infer.h"
#include "tarn/data_type.h"
#include "tarn/dataset.h"
#include "tarn/status.h"
#include "tarn/upload.h"

namespace tarn::upload {

// One sampled file as negotiation inferred it.
struct SampledFile {
  std::string name;
  formats::InferredSchema schema;
};

struct PlanInput {
  std::string target;
  // Resolved: kDeclared, kInferred or kDataset (kAuto and kNone are refused).
  SchemaSourceKind source = SchemaSourceKind::kInferred;
  SchemaMode mode = SchemaMode::kCreate;
  // kDeclared: name and type text ("INT64", "DECIMAL(10,2) NOT NULL"), in table order.
  std::vector<std::pair<std::string, std::string>> declared;
  // kDataset: the dataset as agreed (its schema is the target).
  const DatasetInfo* dataset = nullptr;
  std::vector<SampledFile> files;
  std::map<std::string, std::string> retype;  // column -> type text
  std::vector<std::string> ignore;
};

struct Plan {
  std::vector<PlanEntry> entries;
  std::vector<ContractIssue> issues;
  // The columns written, in table order: the dataset's schema, or for mode create the target
  // columns with field ids 1..n.
  Schema write_schema;
  // Data columns read and dropped (matched by name like the readers do).
  std::vector<std::string> ignored;
  std::string fingerprint;
  bool blocking() const;
  bool retyped() const;
};

// Computes the plan. Errors (kInvalidArgument): a malformed type in `declared` or `retype`
// (code=invalid_type, column), duplicate declared columns, a retype in dataset mode
// (code=retype_not_allowed), a retype or ignore naming no column (code=unknown_column, column),
// no files.
Result<Plan> ComputePlan(const PlanInput& input);

// The action of writing values read as `from` into `to` (kKeep, kRetag, kWiden, kCast,
// kUnsupported); `sample` is a value of the column as text (for VARCHAR over UUID/IPv4 text).
PlanAction ClassifyConversion(const DataType& from, const DataType& to, std::string_view sample);

// The type two files' inferred types of one column unify to (INT64+FLOAT64 -> FLOAT64,
// INT64+DECIMAL -> DECIMAL, decimals -> the wider, timestamp units -> the finer), or nullopt.
std::optional<DataType> UnifyTypes(const DataType& a, const DataType& b);

// SHA-256 (first 16 bytes, lower-case hex) of the canonical JSON of the proposal.
std::string PlanFingerprint(std::string_view target, std::string_view mode,
                            std::string_view schema_source, std::string_view dataset_uuid,
                            int32_t schema_id, const std::vector<PlanEntry>& entries,
                            const std::vector<ContractIssue>& issues);

// The target field `name` names, as the readers match it: exact, else the one field equal
// ignoring ASCII case; -1 when none (or ambiguous).
int MatchColumn(const std::vector<std::string>& names, std::string_view name);

}  // namespace tarn::upload
