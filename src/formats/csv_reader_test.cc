#include "formats/csv_reader.h"

#include <gtest/gtest.h>

#include "formats/test_util.h"

namespace tarn::formats {
namespace {

using testing::FieldOf;
using testing::ReadRows;
using V = std::vector<std::string>;

TEST(CsvReader, ReadsTypedColumns) {
  auto rows =
      ReadRows("id,name,score,day,ok\n1,alice,1.5,2024-01-31,true\n-7,bob,2,1999-12-31,f\n",
               "t.csv", "id INT32 NOT NULL, name VARCHAR, score FLOAT64, day DATE, ok BOOLEAN");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|alice|1.5|2024-01-31|true", "-7|bob|2|1999-12-31|false"}));
}

TEST(CsvReader, QuotingEscapesEmbeddedNewlinesCrlfBom) {
  std::string csv =
      "\xEF\xBB\xBFid,text\r\n"
      "1,\"a,b\"\r\n"
      "2,\"say \"\"hi\"\"\"\r\n"
      "3,\"line1\r\nline2\nline3\"\r\n"
      "4,\"\"\r\n"
      "5,\"NULL\"\r\n"
      "6,NULL\r\n"
      "7,null\r\n"
      "8,\r\n";
  auto rows = ReadRows(csv, "t.csv", "id INT64, text VARCHAR");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|a,b", "2|say \"hi\"", "3|line1\r\nline2\nline3", "4|", "5|NULL", "6|NULL",
                      "7|NULL", "8|NULL"}));
  // The quoted "NULL" is a string, the unquoted ones are nulls.
  auto batches = testing::ReadBatches(csv, "t.csv", testing::MustSchema("id INT64, text VARCHAR"));
  ASSERT_TRUE(batches.ok());
  const Column& text = (*batches)[0].columns[1];
  EXPECT_TRUE(text.IsValid(3));
  EXPECT_TRUE(text.IsValid(4));
  EXPECT_FALSE(text.IsValid(5));
  EXPECT_FALSE(text.IsValid(6));
  EXPECT_FALSE(text.IsValid(7));
}

TEST(CsvReader, LineEndingsAndBlankLines) {
  const std::string schema = "a INT32, b VARCHAR";
  for (const std::string& csv :
       {std::string("a,b\n1,x\n2,y"), std::string("a,b\n1,x\n2,y\n"),
        std::string("a,b\n1,x\n2,y\n\n"), std::string("a,b\r\n1,x\r\n\r\n2,y\r\n\r\n"),
        std::string("a,b\r1,x\r2,y\r"), std::string("a,b\n\n1,x\n2,\"y\"")}) {
    auto rows = ReadRows(csv, "t.csv", schema);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, (V{"1|x", "2|y"})) << csv;
  }
  auto empty = ReadRows("", "t.csv", schema);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  auto header_only = ReadRows("a,b\n", "t.csv", schema);
  ASSERT_TRUE(header_only.ok());
  EXPECT_TRUE(header_only->empty());
  // A trailing delimiter at the very end is an empty last field.
  auto trailing = ReadRows("a,b\n1,", "t.csv", schema);
  ASSERT_TRUE(trailing.ok()) << trailing.status().ToString();
  EXPECT_EQ(*trailing, (V{"1|NULL"}));
}

TEST(CsvReader, ValueOutOfRangeNamesColumnRowAndValue) {
  auto rows = ReadRows("id,n\n1,5\n2,2147483647\n3,2147483648\n", "t.csv", "id INT32, n INT32");
  ASSERT_FALSE(rows.ok());
  const Status& st = rows.status();
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldOf(st, "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(st, "column"), "n");
  EXPECT_EQ(FieldOf(st, "row"), "3");
  EXPECT_EQ(FieldOf(st, "value"), "2147483648");
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.message();
}

TEST(CsvReader, ReportsEarliestBadRowAcrossColumns) {
  // Column a fails at row 3, column b at row 2: row 2 is reported.
  auto rows = ReadRows("a,b\n1,1\n2,x\nzz,3\n", "t.csv", "a INT32, b INT32");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(FieldOf(rows.status(), "column"), "b");
  EXPECT_EQ(FieldOf(rows.status(), "row"), "2");
  EXPECT_EQ(FieldOf(rows.status(), "value"), "x");
}

TEST(CsvReader, NullInNotNullColumn) {
  auto rows = ReadRows("id,v\n1,a\n,b\n", "t.csv", "id INT64 NOT NULL, v VARCHAR");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(FieldOf(rows.status(), "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(rows.status(), "column"), "id");
  EXPECT_EQ(FieldOf(rows.status(), "row"), "2");
  auto s = ReadRows("id,v\n1,a\n2,NULL\n", "t.csv", "id INT64 NOT NULL, v VARCHAR NOT NULL");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(FieldOf(s.status(), "column"), "v");
  EXPECT_EQ(FieldOf(s.status(), "value"), "NULL");
}

TEST(CsvReader, WrongFieldCountNamesRow) {
  auto rows = ReadRows("a,b\n1,2\n3,4\n5\n", "t.csv", "a INT32, b INT32");
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldOf(rows.status(), "row"), "3");
  EXPECT_NE(rows.status().message().find("expected 2 fields, found 1"), std::string::npos)
      << rows.status().message();
  auto more = ReadRows("a,b\n1,2,3\n", "t.csv", "a INT32, b INT32");
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(FieldOf(more.status(), "row"), "1");
}

TEST(CsvReader, MalformedQuotes) {
  auto unclosed = ReadRows("a,b\n1,\"abc\n2,x\n", "t.csv", "a INT32, b VARCHAR");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(FieldOf(unclosed.status(), "code"), "format_unreadable");
  EXPECT_EQ(FieldOf(unclosed.status(), "row"), "1");
  auto after = ReadRows("a,b\n1,x\n2,\"ab\"c\n", "t.csv", "a INT32, b VARCHAR");
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(FieldOf(after.status(), "row"), "2");
}

TEST(CsvReader, HeaderMatching) {
  // Case-insensitive when unique; columns in any order; missing nullable columns are null.
  auto rows = ReadRows("NAME,ID\nx,1\n", "t.csv", "id INT32 NOT NULL, name VARCHAR, extra DATE");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|x|NULL"}));
  // Exact match wins over a case-insensitive one (schemas built by hand: Schema::Parse refuses
  // names that differ only in case).
  Schema two;
  two.fields.push_back(Field{"id", DataType::Int32()});
  two.fields.push_back(Field{"Id", DataType::Int64()});
  auto exact = testing::ReadBatches("Id\n5\n", "t.csv", two);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  EXPECT_EQ(testing::RenderRows(*exact), (V{"NULL|5"}));
  // Ambiguous case-insensitive match: undeclared.
  auto ambiguous = testing::ReadBatches("ID\n5\n", "t.csv", two);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(FieldOf(ambiguous.status(), "code"), "column_undeclared");

  auto undeclared = ReadRows("id,bogus\n1,2\n", "t.csv", "id INT32");
  ASSERT_FALSE(undeclared.ok());
  EXPECT_EQ(FieldOf(undeclared.status(), "code"), "column_undeclared");
  EXPECT_EQ(FieldOf(undeclared.status(), "column"), "bogus");

  auto missing = ReadRows("id\n1\n", "t.csv", "id INT32, must VARCHAR NOT NULL");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(FieldOf(missing.status(), "code"), "column_missing");
  EXPECT_EQ(FieldOf(missing.status(), "column"), "must");

  auto twice = ReadRows("id,ID\n1,2\n", "t.csv", "id INT32");
  ASSERT_FALSE(twice.ok());
}

TEST(CsvReader, DelimiterDetectionAndOptions) {
  const std::string schema = "a INT32, b VARCHAR";
  for (char d : {';', '\t', '|', ','}) {
    std::string csv = std::string("a") + d + "b\n1" + d + "\"x,y\"\n2" + d + "z\n";
    auto rows = ReadRows(csv, "t.csv", schema);
    ASSERT_TRUE(rows.ok()) << d << rows.status().ToString();
    EXPECT_EQ(*rows, (V{"1|x,y", "2|z"})) << d;
  }
  // .tsv means tab even when commas dominate the first line.
  auto tsv = ReadRows("a\tb\n1\tx,y,z\n", "t.tsv", schema);
  ASSERT_TRUE(tsv.ok()) << tsv.status().ToString();
  EXPECT_EQ(*tsv, (V{"1|x,y,z"}));
  // An explicit delimiter wins over detection.
  ReadOptions opt;
  opt.delimiter = ';';
  auto explicit_delim = ReadRows("a;b\n1;x|y\n", "t.csv", schema, opt);
  ASSERT_TRUE(explicit_delim.ok());
  EXPECT_EQ(*explicit_delim, (V{"1|x|y"}));
  // Without a header the columns are the target's in order.
  ReadOptions noheader;
  noheader.header = false;
  auto rows = ReadRows("1,x\n2,y\n", "t.csv", schema, noheader);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|x", "2|y"}));
}

TEST(CsvReader, ScalarTypes) {
  auto rows = ReadRows(
      "d,ts,tz,u,ip,j,bl,t,u8,f32\n"
      "12.50,2024-01-02 03:04:05.25,2024-01-02T03:04:05+01:00,"
      "123E4567-E89B-12D3-A456-426614174000,10.0.0.1,\"{\"\"k\"\": [1, 2]}\",aGk=,12:30:00,255,"
      "0.5\n",
      "t.csv",
      "d DECIMAL(10,2), ts TIMESTAMP[ms], tz TIMESTAMPTZ, u UUID, ip IPV4, j JSON, bl BLOB, "
      "t TIME, u8 UINT8, f32 FLOAT32");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"12.50|2024-01-02T03:04:05.25|2024-01-02T02:04:05Z|"
                      "123e4567-e89b-12d3-a456-426614174000|10.0.0.1|{\"k\": [1, 2]}|aGk=|"
                      "12:30:00|255|0.5"}));
  auto bad_decimal = ReadRows("d\n1.234\n", "t.csv", "d DECIMAL(10,2)");
  ASSERT_FALSE(bad_decimal.ok());
  EXPECT_EQ(FieldOf(bad_decimal.status(), "value"), "1.234");
  auto bad_json = ReadRows("j\n{nope\n", "t.csv", "j JSON");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(FieldOf(bad_json.status(), "code"), "value_not_castable");
  auto bad_utf8 = ReadRows("s\nok\n\xC3(\n", "t.csv", "s VARCHAR");
  ASSERT_FALSE(bad_utf8.ok());
  EXPECT_EQ(FieldOf(bad_utf8.status(), "row"), "2");
}

TEST(CsvReader, ArrayColumnsFromJsonText) {
  auto rows = ReadRows("id,tags\n1,\"[\"\"a\"\",\"\"b\"\"]\"\n2,[]\n3,\n", "t.csv",
                       "id INT32, tags ARRAY<VARCHAR>");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|[\"a\",\"b\"]", "2|[]", "3|NULL"}));
  auto bad = ReadRows("id,n\n1,\"[1,\"\"x\"\"]\"\n", "t.csv", "id INT32, n ARRAY<INT32>");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(FieldOf(bad.status(), "column"), "n");
}

TEST(CsvReader, StructAndMapColumnsFromJsonText) {
  auto rows = ReadRows(
      "id,p,m\n1,\"{\"\"a\"\": 1, \"\"b\"\": [\"\"x\"\"]}\",\"{\"\"k\"\": 2}\"\n"
      "2,,\"[{\"\"key\"\": \"\"j\"\", \"\"value\"\": 3}]\"\n",
      "t.csv", "id INT32, p STRUCT<a: INT64, b: ARRAY<VARCHAR>>, m MAP<VARCHAR, INT64>");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (V{"1|{\"a\":1,\"b\":[\"x\"]}|[{\"key\":\"k\",\"value\":2}]",
                      "2|NULL|[{\"key\":\"j\",\"value\":3}]"}));
  auto bad = ReadRows("id,p\n1,\"{\"\"zz\"\": 1}\"\n", "t.csv", "id INT32, p STRUCT<a: INT64>");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(FieldOf(bad.status(), "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(bad.status(), "column"), "p");
  EXPECT_EQ(FieldOf(bad.status(), "row"), "1");
}

TEST(CsvReader, BatchesAndRowNumbersAcrossBatches) {
  std::string csv = "a,b\n";
  for (int i = 1; i <= 10; ++i) csv += std::to_string(i) + ",\"v" + std::to_string(i) + "\"\n";
  ReadOptions opt;
  opt.batch_rows = 3;
  auto batches = testing::ReadBatches(csv, "t.csv", testing::MustSchema("a INT32, b VARCHAR"), opt);
  ASSERT_TRUE(batches.ok()) << batches.status().ToString();
  ASSERT_EQ(batches->size(), 4u);
  EXPECT_EQ((*batches)[3].num_rows, 1);
  auto rows = testing::RenderRows(*batches);
  ASSERT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows[9], "10|v10");

  csv += "x,y\n";
  auto err = ReadRows(csv, "t.csv", "a INT32, b VARCHAR", opt);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(FieldOf(err.status(), "row"), "11");
}

// A file larger than the read block, with quoted fields (delimiters, quotes, newlines) that
// straddle block boundaries, read with small batches.
TEST(CsvReader, LargeInputAcrossBlockBoundaries) {
  std::string csv = "id,text,x\n";
  const int n = 60000;
  for (int i = 0; i < n; ++i) {
    std::string text = "row " + std::to_string(i);
    if (i % 3 == 0) text += ", with comma";
    if (i % 5 == 0) text += "\nand \"quotes\"\r\n";
    std::string quoted = "\"";
    for (char c : text) {
      quoted.push_back(c);
      if (c == '"') quoted.push_back('"');
    }
    quoted += "\"";
    const bool needs_quotes = text.find_first_of(",\"\r\n") != std::string::npos;
    csv += std::to_string(i) + "," + (needs_quotes || i % 2 ? quoted : text) + "," +
           std::to_string(i * 0.25) + (i % 7 ? "\n" : "\r\n");
  }
  ASSERT_GT(csv.size(), 2u << 20);
  for (int64_t batch_rows : {65536, 1000}) {
    ReadOptions opt;
    opt.batch_rows = batch_rows;
    auto batches = testing::ReadBatches(
        csv, "t.csv", testing::MustSchema("id INT64, text VARCHAR, x FLOAT64"), opt);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString();
    int64_t row = 0;
    for (const RecordBatch& b : *batches) {
      for (int64_t r = 0; r < b.num_rows; ++r, ++row) {
        ASSERT_EQ(b.columns[0].Value<int64_t>(r), row);
        std::string text = "row " + std::to_string(row);
        if (row % 3 == 0) text += ", with comma";
        if (row % 5 == 0) text += "\nand \"quotes\"\r\n";
        ASSERT_EQ(b.columns[1].StringAt(r), text) << row;
        ASSERT_EQ(b.columns[2].Value<double>(r), row * 0.25);
      }
    }
    EXPECT_EQ(row, n);
  }
}

TEST(CsvReader, RejectsBadDelimiterOption) {
  ReadOptions opt;
  opt.delimiter = '"';
  auto rows = ReadRows("a\n1\n", "t.csv", "a INT32", opt);
  EXPECT_FALSE(rows.ok());
}

}  // namespace
}  // namespace tarn::formats
