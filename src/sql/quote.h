// Quoting for the SQL tarn writes for DuckDB (views, settings, read_parquet calls): one rule
// for every statement the engine builds. Internal to src/sql.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tarn::sql {

// `s` between `quote`s, each `quote` inside doubled: an identifier ("), a literal (').
inline std::string Quoted(std::string_view s, char quote) {
  std::string out(1, quote);
  for (char c : s) {
    if (c == quote) out += quote;
    out += c;
  }
  return out + quote;
}
inline std::string QuoteIdentifier(std::string_view s) { return Quoted(s, '"'); }
inline std::string QuoteLiteral(std::string_view s) { return Quoted(s, '\''); }

// [ 'a', 'b' ]: a DuckDB list literal of strings.
inline std::string QuoteList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& s : items) out += (out.size() > 1 ? ", " : "") + QuoteLiteral(s);
  return out + "]";
}

}  // namespace tarn::sql
