// Row predicates: text syntax, binding to a schema, row evaluation and file pruning.
//
// Text syntax: comparisons `col = lit`, `<>`/`!=`, `<`, `<=`, `>`, `>=`, `col IN (lit, ...)`,
// `col NOT IN (...)`, `col IS NULL`, `col IS NOT NULL`, AND, OR, NOT, parentheses, TRUE/FALSE.
// Literals: numbers, 'strings' (SQL quoting, '' escapes), TRUE/FALSE; column names may be
// "double-quoted" ("" escapes); a STRUCT member is named by a dotted path (`payload.status`,
// `"p"."user".id`), at any depth of STRUCTs. Keywords are case-insensitive. A literal may also stand on the
// left (`5 < id` is read as `id > 5`).
//
// Binding first checks that each literal is of the column's type family: numbers for integer,
// float and DECIMAL columns; TRUE/FALSE for BOOLEAN; 'strings' for VARCHAR, BLOB, JSON, UUID,
// IPV4, DATE, TIME and TIMESTAMP[TZ] (plus 'NaN'/'Infinity'/'-Infinity' for floats). Anything
// else (`name > 5`, `id = '5'`, `ok = 1`, `ts > 1700000000`) is kInvalidArgument with
// code=predicate_type_mismatch and fields column, column_type, literal_type, value.
// It then parses each literal as a value of the column's type with types/value_text.h. For
// TIMESTAMP/TIMESTAMPTZ columns a date-only literal ('2024-01-01') means midnight (value_text
// already accepts it); for DATE columns a literal with a time of day is refused. Numeric
// literals against DECIMAL columns with more fraction digits than the scale are refused, as
// are literals out of the column type's range and text that is no value of the type
// ('yesterday' for a TIMESTAMP): kInvalidArgument code=predicate_invalid_literal naming
// column, column_type and value.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/data_file.h"
#include "tarn/data_type.h"
#include "tarn/partition.h"
#include "tarn/status.h"

namespace tarn {

enum class PredicateOp : uint8_t {
  kTrue,
  kFalse,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kNotIn,
  kIsNull,
  kIsNotNull,
  kAnd,
  kOr,
  kNot,
};

struct PredicateLiteral {
  enum class Kind : uint8_t { kNumber, kString, kBoolean };
  Kind kind = Kind::kNumber;
  std::string text;  // number as written, string unquoted, "true"/"false"
  bool operator==(const PredicateLiteral&) const = default;
};

// A parsed, untyped predicate tree.
struct Predicate {
  PredicateOp op = PredicateOp::kTrue;
  std::string column;                      // comparisons, IN, IS [NOT] NULL
  std::vector<std::string> members;        // a STRUCT member's path below `column`
  std::vector<PredicateLiteral> literals;  // 1 for comparisons, n for IN
  std::vector<Predicate> children;         // AND/OR: 2 or more; NOT: 1
  std::string ToString() const;            // parseable text, fully parenthesised
};

// Errors: kInvalidArgument "... at position N" (0-based byte offset) for syntax errors.
Result<Predicate> ParsePredicate(std::string_view text);

// A predicate with columns resolved to field ids and literals typed. Cheap to copy.
class BoundPredicate {
 public:
  PredicateOp op = PredicateOp::kTrue;
  int32_t field_id = 0;      // leaves: the column's, or the STRUCT member's, field id
  int32_t top_field_id = 0;  // leaves: the top-level column holding it (field_id for columns)
  std::string column;        // leaves: the column name at bind time (for messages)
  std::vector<std::string> members;  // leaves: the STRUCT member's path below `column`
  DataType type;             // leaves: the column's (member's) type
  // Leaves with literals: the literal values as a column of `type` (1 row for comparisons;
  // for IN/NOT IN the distinct values, sorted ascending). Never null rows.
  std::shared_ptr<const Column> literals;
  std::vector<BoundPredicate> children;  // AND/OR/NOT

  static BoundPredicate True() { return BoundPredicate(); }
  std::string ToString() const;  // parseable text with the canonical literal forms
};

// Errors: kInvalidArgument naming the unknown column or member, or the literal that does not
// parse in the column's type (fields column=..., value=...); comparisons on ARRAY, STRUCT and MAP
// columns are refused (IS [NOT] NULL applies).
Result<BoundPredicate> BindPredicate(const Predicate& predicate, const Schema& schema);
// ParsePredicate then BindPredicate.
Result<BoundPredicate> ParseAndBindPredicate(std::string_view text, const Schema& schema);

// Row filter: mask[i] = 1 when row i satisfies the predicate (SQL three-valued logic; unknown
// = 0). Columns of `batch` are found by field id (batch.schema.fields[i].field_id, STRUCT
// members by their nested ids: a member is null where a struct around it is) and must have the
// bound type. NaN compares like IEEE (NaN = x and NaN < x are false, NaN <> x true).
// Errors: kInvalidArgument when a referenced column is missing or has another type.
Result<std::vector<uint8_t>> EvaluatePredicate(const BoundPredicate& predicate,
                                               const RecordBatch& batch);

// File pruning: false only when no row of the file can match, using column bounds/null counts
// and, for each partition field whose source column is referenced, the partition value.
// Missing or undecodable stats never prune.
bool MightMatch(const BoundPredicate& predicate, const DataFile& file, const PartitionSpec& spec,
                const Schema& schema);

// Membership pruning (bloom filters): false only when the predicate needs a row to equal one
// of some literals (`col = lit`, `col IN (...)`, also under AND/OR and negations that come to
// that) and `might_contain(field_id, literals, i)` is false for every one of them.
// `might_contain` gets the leaf's literal column (of the bound type) and a row of it; it says
// true when it cannot tell. Calls it only for such leaves.
bool MightMatchMembership(
    const BoundPredicate& predicate,
    const std::function<bool(int32_t field_id, const Column& literals, int64_t i)>& might_contain);
// The field ids MightMatchMembership may ask `might_contain` about (sorted, distinct; empty when
// membership cannot rule anything out).
std::vector<int32_t> MembershipFieldIds(const BoundPredicate& predicate);

// SQL pushdown on the first partition field of `spec` (identity/truncate/year/month/day/hour
// are monotone -> a range; bucket -> equality / IN only): an inclusive range (or set) of
// OrderedKey values of that field's partition value that every matching file lies in.
// Files whose first partition value is null are never excluded by a range: callers must keep
// rows with a NULL partition_key. nullopt when the predicate does not constrain that field.
struct KeyRange {
  std::optional<std::string> lo, hi;  // inclusive bounds (absent = unbounded)
  std::vector<std::string> in;        // when not empty: the key is one of these (sorted)
  bool empty = false;                 // nothing can match (except null partition values)
};
std::optional<KeyRange> PartitionKeyRange(const BoundPredicate& predicate,
                                          const PartitionSpec& spec, const Schema& schema);

// Field ids the predicate reads (columns' and STRUCT members'), sorted and unique.
std::vector<int32_t> ReferencedFieldIds(const BoundPredicate& predicate);
// The top-level columns holding them: what a reader reads to evaluate the predicate.
std::vector<int32_t> ReferencedColumnIds(const BoundPredicate& predicate);

}  // namespace tarn
