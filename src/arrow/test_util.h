// Test helpers of src/arrow: batches from value texts, column comparison, and the reading a
// foreign consumer does of exported structures (its own metadata decoder and bit reader, so the
// tests check the spec's bytes rather than this module's code against itself).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrow/arrow_c.h"
#include "common/test_util.h"
#include "tarn/column.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::arrow::testing {

using Cell = std::optional<std::string>;  // a value's canonical text; nullopt: null

// A batch of `schema_text` (Schema::Parse: ids 1..N, then nested ids) from rows of value texts
// (value_text.h's AppendParsedValue: nested types as their JSON, VARIANT as JSON).
inline Result<RecordBatch> MakeBatch(std::string_view schema_text,
                                     const std::vector<std::vector<Cell>>& rows) {
  TARN_ASSIGN_OR_RETURN(Schema schema, Schema::Parse(schema_text));
  RecordBatch b;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  for (const std::vector<Cell>& row : rows) {
    if (row.size() != schema.fields.size()) return Status::InvalidArgument("row width");
    for (size_t i = 0; i < row.size(); ++i) {
      if (row[i]) {
        TARN_RETURN_NOT_OK(
            AppendParsedValue(*row[i], &b.columns[i]).WithContext(schema.fields[i].name));
      } else {
        b.columns[i].AppendNull();
      }
    }
  }
  b.schema = std::move(schema);
  b.num_rows = static_cast<int64_t>(rows.size());
  return b;
}

// Every row as JSON (json_render.h): values, nulls and nesting.
inline std::vector<std::string> Rows(const RecordBatch& b) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < b.num_rows; ++r) out.push_back(RenderRowJson(b, r));
  return out;
}

// Equal columns, buffer by buffer at every level (an empty validity equals an all-valid one).
inline void ExpectSameColumn(const Column& a, const Column& b, const std::string& path) {
  SCOPED_TRACE(path);
  ASSERT_EQ(a.type.ToString(), b.type.ToString());
  ASSERT_EQ(a.length, b.length);
  for (int64_t i = 0; i < a.length; ++i) EXPECT_EQ(a.IsValid(i), b.IsValid(i)) << "row " << i;
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_TRUE(a.data == b.data);
  ASSERT_EQ(a.child == nullptr, b.child == nullptr);
  if (a.child) ExpectSameColumn(*a.child, *b.child, path + ".element");
  ASSERT_EQ(a.members.size(), b.members.size());
  for (size_t i = 0; i < a.members.size(); ++i) {
    ExpectSameColumn(a.members[i], b.members[i], path + "." + std::to_string(i));
  }
}

// Same names, types, nullability and field ids at every level.
inline void ExpectSameSchema(const Schema& a, const Schema& b) {
  ASSERT_EQ(a.fields.size(), b.fields.size());
  for (size_t i = 0; i < a.fields.size(); ++i) {
    SCOPED_TRACE(a.fields[i].name);
    EXPECT_EQ(a.fields[i].name, b.fields[i].name);
    EXPECT_EQ(a.fields[i].type.ToString(), b.fields[i].type.ToString());
    EXPECT_EQ(a.fields[i].nullable, b.fields[i].nullable);
    EXPECT_EQ(a.fields[i].field_id, b.fields[i].field_id);
    EXPECT_TRUE(SameNestedFields(a.fields[i].type, b.fields[i].type));
  }
}

// ---- A foreign consumer's reading ----

inline std::vector<std::pair<std::string, std::string>> ReadMetadata(const char* md) {
  std::vector<std::pair<std::string, std::string>> out;
  if (md == nullptr) return out;
  int32_t n;
  std::memcpy(&n, md, 4);
  md += 4;
  for (int32_t i = 0; i < n; ++i) {
    std::string kv[2];
    for (std::string& s : kv) {
      int32_t len;
      std::memcpy(&len, md, 4);
      md += 4;
      s.assign(md, len);
      md += len;
    }
    out.emplace_back(kv[0], kv[1]);
  }
  return out;
}

inline bool BitAt(const void* bits, int64_t i) {
  return (static_cast<const uint8_t*>(bits)[i / 8] >> (i % 8)) & 1;
}

template <typename T>
T At(const ArrowArray* a, int buffer, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(a->buffers[buffer]) + i * sizeof(T), sizeof(T));
  return v;
}

// Owns an exported structure for a test: released at the end unless already released.
struct SchemaHolder {
  ArrowSchema s{};
  ~SchemaHolder() {
    if (s.release != nullptr) s.release(&s);
  }
};
struct ArrayHolder {
  ArrowArray a{};
  ~ArrayHolder() {
    if (a.release != nullptr) a.release(&a);
  }
};
struct StreamHolder {
  ArrowArrayStream s{};
  ~StreamHolder() {
    if (s.release != nullptr) s.release(&s);
  }
};

}  // namespace tarn::arrow::testing
