#include "render/json_lines.h"

#include <gtest/gtest.h>

#include <string>

namespace tarn::render {
namespace {

RecordBatch Numbers(int64_t n) {
  RecordBatch b;
  b.schema = *Schema::Parse("i INT64, s VARCHAR");
  b.columns.emplace_back(DataType::Int64());
  b.columns.emplace_back(DataType::Varchar());
  for (int64_t i = 0; i < n; ++i) {
    b.columns[0].AppendFixed<int64_t>(i);
    if (i % 7 == 0) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendBytes("v" + std::to_string(i));
    }
  }
  b.num_rows = n;
  return b;
}

std::string Expected(int64_t from, int64_t to) {
  std::string out;
  for (int64_t i = from; i < to; ++i) {
    out += "{\"i\":" + std::to_string(i) + ",\"s\":" +
           (i % 7 == 0 ? std::string("null") : "\"v" + std::to_string(i) + "\"") + "}\n";
  }
  return out;
}

TEST(JsonLinesTest, RowsComeOutInOrderWhateverTheThreads) {
  const RecordBatch b = Numbers(70001);  // several slices and a short last one
  for (int threads : {1, 2, 3, 8}) {
    std::string out;
    JsonLines lines(
        [&](std::string_view s) {
          out.append(s);
          return Status::OK();
        },
        threads);
    ASSERT_TRUE(lines.Write(b, 70001).ok());
    ASSERT_TRUE(lines.Write(b, 5).ok());  // a second batch, only its first rows
    EXPECT_EQ(out, Expected(0, 70001) + Expected(0, 5)) << threads << " threads";
  }
}

TEST(JsonLinesTest, AWriteErrorStopsTheBatch) {
  const RecordBatch b = Numbers(100000);
  int calls = 0;
  JsonLines lines([&](std::string_view) {
    ++calls;
    return Status::IOError("writing to stdout failed");
  });
  Status st = lines.Write(b, b.num_rows);
  EXPECT_EQ(st.kind(), ErrorKind::kIOError);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace tarn::render
