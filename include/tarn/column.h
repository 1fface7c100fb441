// In-memory columnar batches: what the Parquet reader produces and the writer consumes.
//
// A Column holds `length` values of one DataType in the physical form documented in
// data_type.h. Not thread-safe for mutation; safe to read from several threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "tarn/buffer.h"
#include "tarn/data_type.h"

namespace tarn {

struct Column {
  DataType type;
  int64_t length = 0;
  // One byte per row, 1 = valid, 0 = null. Empty means every row is valid.
  ByteBuffer validity;
  // Fixed-width types: length * PhysicalWidth() bytes. VARCHAR/BLOB/JSON: the concatenated
  // bytes of all values. Nested types: unused.
  ByteBuffer data;
  // VARCHAR/BLOB/JSON: length + 1 offsets into data. ARRAY: length + 1 offsets into child; MAP
  // into members. A null row has an empty range.
  std::vector<int64_t> offsets;
  // ARRAY only: the element values.
  std::unique_ptr<Column> child;
  // STRUCT: one column per member, each `length` long (a null struct row holds a value, usually
  // null, in every member). MAP: {keys, values}, indexed by offsets like ARRAY's child.
  // VARIANT: {metadata, value}, two BLOB columns `length` long (data_type.h).
  std::vector<Column> members;

  Column() = default;
  explicit Column(DataType t);
  Column(Column&&) noexcept = default;
  Column& operator=(Column&&) noexcept = default;
  Column Clone() const;
  // A column of `n` nulls of `type` (zeroed values, empty ranges).
  static Column Nulls(const DataType& type, int64_t n);

  bool IsValid(int64_t i) const { return validity.empty() || validity[i] != 0; }
  int64_t null_count() const;

  template <typename T>
  const T* values() const {
    return reinterpret_cast<const T*>(data.data());
  }
  template <typename T>
  T* mutable_values() {
    return reinterpret_cast<T*>(data.data());
  }
  template <typename T>
  T Value(int64_t i) const {
    T v;
    std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  std::string_view StringAt(int64_t i) const {
    return {reinterpret_cast<const char*>(data.data()) + offsets[i],
            static_cast<size_t>(offsets[i + 1] - offsets[i])};
  }

  // Builders (append one row). Each keeps validity consistent: validity stays empty until the
  // first null, then is materialised for all rows.
  void AppendNull();
  template <typename T>
  void AppendFixed(T v) {
    MarkValid();
    size_t at = data.size();
    data.resize(at + sizeof(T));
    std::memcpy(data.data() + at, &v, sizeof(T));
    ++length;
  }
  // Appends one fixed-width value given as its raw in-memory bytes (e.g. a UUID's 16 bytes).
  void AppendFixedBytes(const void* v, size_t width) {
    MarkValid();
    const auto* p = static_cast<const uint8_t*>(v);
    data.insert(data.end(), p, p + width);
    ++length;
  }
  void AppendBytes(std::string_view v);  // VARCHAR/BLOB/JSON
  // ARRAY: closes a row holding the child values appended since the previous row. MAP: the same
  // for the entries appended to members[0] and members[1].
  void AppendArrayRow();
  // STRUCT: closes a valid row whose member values the caller appended. (AppendNull appends a
  // null to every member.)
  void AppendStructRow();
  // VARIANT: appends a valid row of the spec's two byte strings (not checked here).
  void AppendVariant(std::string_view metadata, std::string_view value);
  // Appends every row of `src`, a column of the same type (whose ARRAY/MAP offsets start at 0,
  // as every column built by appending does).
  void AppendColumn(const Column& src);
  // Appends rows [begin, end) of `src`, a column of the same type (nested values with them).
  void AppendRows(const Column& src, int64_t begin, int64_t end);

 private:
  void MarkValid();
};

// A set of equal-length columns with their schema.
struct RecordBatch {
  Schema schema;
  std::vector<Column> columns;
  int64_t num_rows = 0;
};

}  // namespace tarn
