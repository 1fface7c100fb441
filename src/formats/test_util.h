// Helpers for the formats tests: read an input fully and render its rows as text.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/format.h"
#include "types/value_text.h"

namespace tarn::formats::testing {

inline Schema MustSchema(std::string_view text) {
  auto s = Schema::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : Schema{};
}

// Rows as "v1|v2|..." with NULL for nulls, over every batch.
inline std::vector<std::string> RenderRows(const std::vector<RecordBatch>& batches) {
  std::vector<std::string> rows;
  for (const RecordBatch& b : batches) {
    for (int64_t r = 0; r < b.num_rows; ++r) {
      std::string line;
      for (size_t c = 0; c < b.columns.size(); ++c) {
        if (c > 0) line.push_back('|');
        const Column& col = b.columns[c];
        EXPECT_EQ(col.length, b.num_rows);
        if (!col.IsValid(r)) {
          line += "NULL";
        } else {
          AppendValueText(col, r, &line);
        }
      }
      rows.push_back(std::move(line));
    }
  }
  return rows;
}

// Reads all batches of `bytes` (named `name`) as `schema`.
inline Result<std::vector<RecordBatch>> ReadBatches(std::string bytes, std::string name,
                                                    const Schema& schema,
                                                    const ReadOptions& options = {}) {
  TARN_ASSIGN_OR_RETURN(Format format, DetectFormat(name));
  TARN_ASSIGN_OR_RETURN(auto reader, OpenBatchReader(MemoryFile(std::move(bytes), name), name,
                                                     format, schema, options));
  std::vector<RecordBatch> out;
  while (true) {
    TARN_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) break;
    out.push_back(std::move(*batch));
  }
  return out;
}

inline Result<std::vector<std::string>> ReadRows(std::string bytes, std::string name,
                                                 std::string_view schema,
                                                 const ReadOptions& options = {}) {
  TARN_ASSIGN_OR_RETURN(
      auto batches, ReadBatches(std::move(bytes), std::move(name), MustSchema(schema), options));
  return RenderRows(batches);
}

inline std::string FieldOf(const Status& st, std::string_view key) {
  for (const auto& [k, v] : st.fields()) {
    if (k == key) return v;
  }
  return "<none>";
}

}  // namespace tarn::formats::testing
