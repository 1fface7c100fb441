// Helpers shared by the readers of this module: column matching, typed errors, null columns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/status.h"

namespace tarn::formats::internal {

// The target field for an input column name: exact match, else a case-insensitive match when
// exactly one field has it; -1 when none.
int MatchField(const Schema& target, std::string_view name);
// The same over any fields (a STRUCT's members); `hint` is tried first (an index that is often
// right, such as the one after the previous match).
int MatchName(const std::vector<Field>& fields, std::string_view name, size_t hint = 0);

// For input columns `names`: input_to_target[i] is the target field of names[i];
// target_to_input[t] is the input column of field t or -1. Unknown names are
// column_undeclared, two names for one field are format_unreadable, a NOT NULL field without
// a column is column_missing (all kInvalidArgument).
struct ColumnMapping {
  std::vector<int> input_to_target;
  std::vector<int> target_to_input;
};
Result<ColumnMapping> MapColumns(const std::vector<std::string>& names, const Schema& target);

// kInvalidArgument code=value_not_castable for `value` at 1-based `row` of `column`; `why` is
// the parser's message.
Status ValueNotCastable(std::string_view column, int64_t row, std::string_view value,
                        std::string_view why);
// The same for a null in a NOT NULL column.
Status NullNotAllowed(std::string_view column, int64_t row, std::string_view value);
// kInvalidArgument code=format_unreadable naming `what` (the file) and the 1-based row.
Status MalformedRow(std::string_view what, int64_t row, std::string_view why);

// Whether `s` ends with `suffix` (given in lower case), ignoring ASCII case.
bool EndsWithIgnoreCase(std::string_view s, std::string_view suffix);

}  // namespace tarn::formats::internal
