// VARIANT columns filled from NDJSON values and CSV fields of JSON text.
#include <gtest/gtest.h>

#include "formats/test_util.h"

namespace tarn::formats {
namespace {

using testing::FieldOf;
using testing::ReadRows;
using V = std::vector<std::string>;

TEST(VariantInput, NdjsonTakesAnyValueAsItIs) {
  auto rows = ReadRows(
      "{\"id\": 1, \"v\": {\"b\": 1, \"a\": [1.5, \"x\", {\"c\": null}]}}\n"
      "{\"id\": 2, \"v\": \"{\\\"not\\\": \\\"parsed\\\"}\"}\n"
      "{\"id\": 3, \"v\": null}\n"
      "{\"id\": 4, \"v\": true}\n"
      "{\"id\": 5, \"v\": -7}\n"
      "{\"id\": 6}\n",
      "t.ndjson", "id INT64, v VARIANT");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows,
            (V{"1|{\"a\":[1.5,\"x\",{\"c\":null}],\"b\":1}", "2|\"{\\\"not\\\": \\\"parsed\\\"}\"",
               "3|NULL", "4|true", "5|-7", "6|NULL"}));
  auto not_null = ReadRows("{\"v\": null}\n", "t.ndjson", "v VARIANT NOT NULL");
  ASSERT_FALSE(not_null.ok());
  auto malformed = ReadRows("{\"v\": [1, }\n", "t.ndjson", "v VARIANT");
  EXPECT_FALSE(malformed.ok());
}

TEST(VariantInput, CsvFieldsAreJsonText) {
  auto rows = ReadRows("id,v\n1,\"{\"\"a\"\": [1, 2]}\"\n2,42\n3,\n4,\"\"\"s\"\"\"\n", "t.csv",
                       "id INT64, v VARIANT");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|{\"a\":[1,2]}", "2|42", "3|NULL", "4|\"s\""}));
  auto bad = ReadRows("id,v\n1,hello\n", "t.csv", "id INT64, v VARIANT");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(FieldOf(bad.status(), "column"), "v");
  EXPECT_NE(bad.status().message().find("is not a VARIANT"), std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace tarn::formats
