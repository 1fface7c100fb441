// The 8-column benchmark table (bench/README.md, "The table"), shared by parquet_bench.cc and
// compaction_bench.cc. Every formula here has its twin in bench/duckdb_bench.mjs; keep both in
// step so that both engines write and read the same values.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "tarn/column.h"

namespace tarn_bench {

template <typename T, typename Fn>
tarn::Column FixedColumn(tarn::DataType type, int64_t rows, Fn value) {
  tarn::Column col(std::move(type));
  col.data.resize(static_cast<size_t>(rows) * sizeof(T));
  T* out = col.mutable_values<T>();
  for (int64_t i = 0; i < rows; ++i) out[i] = value(i);
  col.length = rows;
  return col;
}

// Rows first .. first + rows - 1 of the table (row i holds the values of i whatever the slice),
// field ids 1..8.
inline tarn::RecordBatch MakeTable(int64_t rows, int64_t first = 0) {
  using tarn::DataType;
  tarn::RecordBatch b;
  b.num_rows = rows;
  auto add = [&](const char* name, DataType type) {
    tarn::Field f;
    f.name = name;
    f.type = std::move(type);
    f.field_id = static_cast<int32_t>(b.schema.fields.size()) + 1;
    b.schema.fields.push_back(std::move(f));
  };
  add("c_int64", DataType::Int64());
  add("c_double", DataType::Float64());
  add("c_varchar", DataType::Varchar());
  add("c_timestamp", DataType::Timestamp(tarn::TimeUnit::kMicro));
  add("c_date", DataType::Date());
  add("c_decimal", DataType::Decimal(10, 2));
  add("c_bool", DataType::Boolean());
  add("c_uuid", DataType::Uuid());

  b.columns.push_back(FixedColumn<int64_t>(DataType::Int64(), rows, [first](int64_t r) {
    const int64_t i = first + r;
    return (i * 2654435761LL) % 1000000007LL;
  }));
  b.columns.push_back(FixedColumn<double>(DataType::Float64(), rows, [first](int64_t r) {
    return std::sqrt(static_cast<double>(first + r)) * 1.5;
  }));
  {
    tarn::Column col(DataType::Varchar());
    col.data.reserve(static_cast<size_t>(rows) * 18);
    col.offsets.reserve(static_cast<size_t>(rows) + 1);
    char buf[32];
    for (int64_t i = first; i < first + rows; ++i) {
      int n = std::snprintf(buf, sizeof(buf), "customer_%lld", (long long)((i * 7) % 1000003));
      for (int64_t x = 0; x < i % 5; ++x) buf[n++] = 'x';
      col.data.insert(col.data.end(), buf, buf + n);
      col.offsets.push_back(static_cast<int64_t>(col.data.size()));
    }
    col.length = rows;
    b.columns.push_back(std::move(col));
  }
  b.columns.push_back(FixedColumn<int64_t>(
      DataType::Timestamp(tarn::TimeUnit::kMicro), rows,
      [first](int64_t r) { return 1704067200000000LL + (first + r) * 1000003LL; }));
  b.columns.push_back(FixedColumn<int32_t>(DataType::Date(), rows, [first](int64_t r) {
    return static_cast<int32_t>(10957 + (first + r) % 10000);  // 2000-01-01 + i % 10000 days
  }));
  b.columns.push_back(FixedColumn<tarn::int128>(DataType::Decimal(10, 2), rows, [first](int64_t r) {
    const int64_t i = first + r;
    return static_cast<tarn::int128>((i * 982451653LL) % 10000000000LL - 5000000000LL);
  }));
  b.columns.push_back(FixedColumn<uint8_t>(DataType::Boolean(), rows, [first](int64_t r) {
    return static_cast<uint8_t>((first + r) % 3 == 0);
  }));
  {
    tarn::Column col(DataType::Uuid());
    col.data.resize(static_cast<size_t>(rows) * 16);
    static constexpr int64_t kMul[4] = {2654435761LL, 2246822519LL, 3266489917LL, 668265263LL};
    static constexpr int64_t kAdd[4] = {12345, 67890, 13579, 24680};
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = first + r;
      uint8_t* out = col.data.data() + r * 16;
      for (int w = 0; w < 4; ++w) {
        uint32_t v = static_cast<uint32_t>((i * kMul[w] + kAdd[w]) % 4294967296LL);
        out[w * 4 + 0] = static_cast<uint8_t>(v >> 24);
        out[w * 4 + 1] = static_cast<uint8_t>(v >> 16);
        out[w * 4 + 2] = static_cast<uint8_t>(v >> 8);
        out[w * 4 + 3] = static_cast<uint8_t>(v);
      }
    }
    col.length = rows;
    b.columns.push_back(std::move(col));
  }
  return b;
}

// The table's columns as a `tarn dataset create --schema` / Schema::Parse text.
inline constexpr char kTableSchema[] =
    "c_int64 INT64, c_double FLOAT64, c_varchar VARCHAR, c_timestamp TIMESTAMP[us], c_date DATE, "
    "c_decimal DECIMAL(10,2), c_bool BOOLEAN, c_uuid UUID";

}  // namespace tarn_bench
