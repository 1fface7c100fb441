// Helpers for the table module's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "types/value_text.h"

namespace tarn::table_test {

inline DataType T(std::string_view text) {
  Result<DataType> r = DataType::Parse(text);
  EXPECT_TRUE(r.ok()) << text;
  return r.ok() ? *r : DataType();
}

// A column of `type` from value texts; "NULL" is a null.
inline Column Col(std::string_view type, const std::vector<std::string>& values) {
  Column c(T(type));
  for (const std::string& v : values) {
    if (v == "NULL") {
      c.AppendNull();
    } else {
      Status st = AppendParsedValue(v, &c);
      EXPECT_TRUE(st.ok()) << type << " " << v << ": " << st.ToString();
    }
  }
  return c;
}

inline std::vector<std::string> Texts(const Column& c) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < c.length; ++i) out.push_back(c.IsValid(i) ? ValueText(c, i) : "NULL");
  return out;
}

inline Schema S(std::string_view text) {
  Result<Schema> r = Schema::Parse(text);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Schema();
}

}  // namespace tarn::table_test
