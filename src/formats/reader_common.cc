#include "formats/reader_common.h"

#include <cstring>

#include "common/utf8.h"
#include "formats/error_codes.h"

namespace tarn::formats::internal {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// At most 256 bytes of a value for error fields, cut on a UTF-8 boundary.
std::string Shortened(std::string_view value) {
  constexpr size_t kMax = 256;
  if (value.size() <= kMax) return std::string(value);
  return std::string(value.substr(0, Utf8Cut(value, kMax))) + "...";
}

}  // namespace

int MatchField(const Schema& target, std::string_view name) {
  return MatchName(target.fields, name);
}

int MatchName(const std::vector<Field>& fields, std::string_view name, size_t hint) {
  if (hint < fields.size() && fields[hint].name == name) return static_cast<int>(hint);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (EqualsIgnoreCase(fields[i].name, name)) {
      if (found >= 0) return -1;
      found = static_cast<int>(i);
    }
  }
  return found;
}

Result<ColumnMapping> MapColumns(const std::vector<std::string>& names, const Schema& target) {
  ColumnMapping m;
  m.input_to_target.assign(names.size(), -1);
  m.target_to_input.assign(target.fields.size(), -1);
  for (size_t i = 0; i < names.size(); ++i) {
    int t = MatchField(target, names[i]);
    if (t < 0) {
      return Status::Of(codes::kColumnUndeclared,
                        "column '" + Shortened(names[i]) + "' is not declared by the target schema")
          .WithField("column", Shortened(names[i]));
    }
    if (m.target_to_input[t] >= 0) {
      return Status::Of(codes::kFormatUnreadable, "columns '" + names[m.target_to_input[t]] +
                                                      "' and '" + Shortened(names[i]) +
                                                      "' both map to column '" +
                                                      target.fields[t].name + "'")
          .WithField("column", target.fields[t].name);
    }
    m.input_to_target[i] = t;
    m.target_to_input[t] = static_cast<int>(i);
  }
  for (size_t t = 0; t < target.fields.size(); ++t) {
    if (m.target_to_input[t] < 0 && !target.fields[t].nullable) {
      return Status::Of(codes::kColumnMissing, "column '" + target.fields[t].name +
                                                   "' is NOT NULL but missing from the input")
          .WithField("column", target.fields[t].name);
    }
  }
  return m;
}

Status ValueNotCastable(std::string_view column, int64_t row, std::string_view value,
                        std::string_view why) {
  return Status::Of(codes::kValueNotCastable, "column '" + std::string(column) + "', row " +
                                                  std::to_string(row) + ": " + std::string(why))
      .WithField("column", std::string(column))
      .WithField("row", std::to_string(row))
      .WithField("value", Shortened(value));
}

Status NullNotAllowed(std::string_view column, int64_t row, std::string_view value) {
  return ValueNotCastable(column, row, value, "null in a NOT NULL column");
}

Status MalformedRow(std::string_view what, int64_t row, std::string_view why) {
  return Status::Of(codes::kFormatUnreadable,
                    std::string(what) + ": row " + std::to_string(row) + ": " + std::string(why))
      .WithField("row", std::to_string(row));
}

bool EndsWithIgnoreCase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  std::string_view tail = s.substr(s.size() - suffix.size());
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = tail[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

}  // namespace tarn::formats::internal
