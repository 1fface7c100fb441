#include "formats/infer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "common/compression.h"
#include "formats/test_util.h"
#include "parquet/metadata.h"
#include "parquet/writer.h"

namespace tarn::formats {
namespace {

using testing::FieldOf;
using testing::RenderRows;

const std::filesystem::path kCorpus =
    std::filesystem::path(TARN_SOURCE_DIR) / "src/formats/testdata/inference";

std::string ReadCorpus(const std::string& name) {
  std::ifstream in(kCorpus / name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Compressed(CompressionCodec codec, const std::string& raw) {
  ByteBuffer out;
  EXPECT_TRUE(
      Compress(codec, reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), &out, 1).ok());
  return std::string(out.begin(), out.end());
}

InferredSchema MustInfer(const std::string& name, const std::string& bytes, bool whole = true,
                         const InferOptions& options = {}) {
  auto r = InferSample(name, bytes, whole, options);
  EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  return r.ok() ? *r : InferredSchema{};
}

// "name TYPE" for every column.
std::string Types(const InferredSchema& s) {
  std::string out;
  for (const InferredColumn& c : s.columns) {
    if (!out.empty()) out += ", ";
    out += c.name + " " + c.type.ToString();
  }
  return out;
}

const InferredColumn& Col(const InferredSchema& s, const std::string& name) {
  for (const InferredColumn& c : s.columns) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no column " << name;
  static InferredColumn none;
  return none;
}

ReadOptions ReadOptionsFor(const InferredSchema& s) {
  ReadOptions o;
  if (s.format == Format::kCsv) {
    o.delimiter = s.delimiter;
    o.header = s.header;
  }
  o.compression = s.compression;
  o.batch_rows = 2;  // several batches even for the small files
  return o;
}

// Reads `bytes` with the inferred schema (the round trip every inference must pass).
Result<std::vector<RecordBatch>> ReadInferred(const std::string& name, const std::string& bytes,
                                              const InferredSchema& s) {
  ReadOptions o = ReadOptionsFor(s);
  if (bytes.size() > 4096) o.batch_rows = 1000;
  return testing::ReadBatches(bytes, name, s.ToSchema(), o);
}

// A raw sequential stream over bytes in memory, like an HTTP request body.
class BodyStream final : public InputStream {
 public:
  explicit BodyStream(std::string bytes) : bytes_(std::move(bytes)) {}
  Result<size_t> Read(uint8_t* out, size_t n) override {
    const size_t take = std::min(n, bytes_.size() - pos_);
    std::memcpy(out, bytes_.data() + pos_, take);
    pos_ += take;
    return take;
  }

 private:
  std::string bytes_;
  size_t pos_ = 0;
};

Result<std::vector<std::string>> ReadStream(const std::string& name, const std::string& bytes,
                                            const InferredSchema& s) {
  TARN_ASSIGN_OR_RETURN(Format format, DetectFormat(name));
  ReadOptions o = ReadOptionsFor(s);
  if (bytes.size() > 4096) o.batch_rows = 1000;
  TARN_ASSIGN_OR_RETURN(auto reader,
                        OpenStreamBatchReader(std::make_unique<BodyStream>(bytes), name, format,
                                              s.compression, s.ToSchema(), o));
  std::vector<RecordBatch> batches;
  while (true) {
    TARN_ASSIGN_OR_RETURN(auto b, reader->Next());
    if (!b) break;
    batches.push_back(std::move(*b));
  }
  return RenderRows(batches);
}

// ---- single values ----

TEST(InferTextValue, Rules) {
  const std::map<std::string, std::string> cases = {
      {"true", "BOOLEAN"},
      {"FALSE", "BOOLEAN"},
      {"yes", "VARCHAR"},
      {"1", "INT64"},
      {"0", "INT64"},
      {"-42", "INT64"},
      {"+7", "INT64"},
      {"007", "VARCHAR"},
      {"9223372036854775807", "INT64"},
      {"9223372036854775808", "FLOAT64"},
      {"-9223372036854775808", "INT64"},
      {"12.50", "DECIMAL(18,2)"},
      {"0.5", "DECIMAL(18,1)"},
      {"-0.001", "DECIMAL(18,3)"},
      {"12345678901234567890.5", "DECIMAL(21,1)"},
      {"1e3", "FLOAT64"},
      {"2.5E-3", "FLOAT64"},
      {"nan", "VARCHAR"},
      {"inf", "VARCHAR"},
      {"Infinity", "VARCHAR"},
      {"1.", "VARCHAR"},
      {".5", "VARCHAR"},
      {"2024-02-29", "DATE"},
      {"2023-02-29", "VARCHAR"},
      {"2024-01-02T03:04:05", "TIMESTAMP[us]"},
      {"2024-01-02 03:04:05.123456", "TIMESTAMP[us]"},
      {"2024-01-02 03:04:05.1234567", "TIMESTAMP[ns]"},
      {"2024-01-02T03:04:05Z", "TIMESTAMPTZ[us]"},
      {"2024-01-02T03:04:05.5+02:00", "TIMESTAMPTZ[us]"},
      {"2024-01-02T03:04:05-0530", "TIMESTAMPTZ[us]"},
      {"2024-01-02T03:04:05.123456789Z", "TIMESTAMPTZ[ns]"},
      {"2024-01-02T25:04:05", "VARCHAR"},
      {"2024-01-02T03:04", "VARCHAR"},
      {"123e4567-e89b-12d3-a456-426614174000", "UUID"},
      {"123e4567e89b12d3a456426614174000", "VARCHAR"},
      {"10.0.0.1", "IPV4"},
      {"10.0.0.256", "VARCHAR"},
      {"10.0.0.01", "VARCHAR"},
      {"1.2.3", "VARCHAR"},
      {"hello", "VARCHAR"},
      {"", "VARCHAR"},
      {" 12 ", "INT64"},
  };
  for (const auto& [text, type] : cases) {
    EXPECT_EQ(InferTextValue(text).ToString(), type) << "'" << text << "'";
  }
}

// ---- the corpus ----

TEST(InferCsv, QuotedDelimitersAndEmbeddedNewlines) {
  auto s = MustInfer("quoted.csv", ReadCorpus("quoted.csv"));
  EXPECT_EQ(s.format, Format::kCsv);
  EXPECT_EQ(s.delimiter, ',');
  EXPECT_TRUE(s.header);
  EXPECT_EQ(Types(s), "id INT64, name VARCHAR, note VARCHAR");
  EXPECT_EQ(s.rows, 3);
  EXPECT_FALSE(s.truncated);
  EXPECT_EQ(Col(s, "name").sample, "Smith, John");
  EXPECT_EQ(Col(s, "name").nulls, 0);  // a quoted "" is an empty string
  EXPECT_EQ(Col(s, "note").sample, "said \"hi\"\non two lines");
  EXPECT_EQ(Col(s, "note").nulls, 1);
  EXPECT_EQ(Col(s, "note").values, 2);
}

TEST(InferCsv, MixedNulls) {
  auto s = MustInfer("mixed_nulls.csv", ReadCorpus("mixed_nulls.csv"));
  EXPECT_EQ(Types(s), "a INT64, b DECIMAL(18,2), c VARCHAR, d VARCHAR");
  EXPECT_EQ(Col(s, "a").nulls, 1);
  EXPECT_EQ(Col(s, "a").sample, "1");
  EXPECT_EQ(Col(s, "b").sample, "2.50");
  EXPECT_EQ(Col(s, "b").nulls, 1);
  EXPECT_EQ(Col(s, "c").values, 1);
  EXPECT_EQ(Col(s, "c").nulls, 2);
  EXPECT_TRUE(Col(s, "d").all_null);
  EXPECT_EQ(Col(s, "d").sample, "");
  EXPECT_FALSE(Col(s, "c").all_null);
}

TEST(InferCsv, BomAndCrlf) {
  auto s = MustInfer("bom_crlf.csv", ReadCorpus("bom_crlf.csv"));
  EXPECT_EQ(Types(s), "code VARCHAR, active BOOLEAN");
  EXPECT_EQ(Col(s, "active").sample, "true");
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.sample_bytes, static_cast<int64_t>(ReadCorpus("bom_crlf.csv").size()));
}

TEST(InferCsv, CarriageReturnLinesAndSemicolons) {
  auto s = MustInfer("cr_only.csv", ReadCorpus("cr_only.csv"));
  EXPECT_EQ(s.delimiter, ';');
  EXPECT_EQ(Types(s), "x INT64, y INT64");
  EXPECT_EQ(s.rows, 2);
}

TEST(InferCsv, Timestamps) {
  auto s = MustInfer("timestamps.csv", ReadCorpus("timestamps.csv"));
  EXPECT_EQ(Types(s),
            "ts_plain TIMESTAMP[us], ts_zoned TIMESTAMPTZ[us], ts_frac TIMESTAMP[us], ts_nanos "
            "TIMESTAMP[ns], ts_offset TIMESTAMPTZ[us], mixed VARCHAR, day DATE");
  EXPECT_EQ(Col(s, "ts_offset").sample, "2024-01-02T03:04:05+02:00");
}

TEST(InferCsv, TypedColumns) {
  auto s = MustInfer("typed.csv", ReadCorpus("typed.csv"));
  EXPECT_EQ(Types(s),
            "ip IPV4, id UUID, price DECIMAL(18,2), ratio FLOAT64, flag BOOLEAN, sci FLOAT64, zip "
            "VARCHAR, big FLOAT64, signed INT64, bad_ip VARCHAR, word_num VARCHAR");
  EXPECT_EQ(Col(s, "zip").sample, "00501");
  EXPECT_EQ(Col(s, "id").sample, "123e4567-e89b-12d3-a456-426614174000");
}

TEST(InferCsv, HeaderlessFile) {
  auto s = MustInfer("headerless.csv", ReadCorpus("headerless.csv"));
  EXPECT_FALSE(s.header);
  EXPECT_EQ(Types(s), "column_1 INT64, column_2 VARCHAR, column_3 DATE");
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(Col(s, "column_2").sample, "alice");
}

TEST(InferCsv, DelimiterDetection) {
  auto semi = MustInfer("semicolon.csv", ReadCorpus("semicolon.csv"));
  EXPECT_EQ(semi.delimiter, ';');
  EXPECT_TRUE(semi.header);  // every first-row field is an identifier
  EXPECT_EQ(Types(semi), "a VARCHAR, b VARCHAR");
  EXPECT_EQ(Col(semi, "a").sample, "1,5");
  auto tab = MustInfer("tab_delimited.csv", ReadCorpus("tab_delimited.csv"));
  EXPECT_EQ(tab.delimiter, '\t');
  EXPECT_EQ(Types(tab), "k VARCHAR, v INT64");
  auto pipe = MustInfer("pipe.csv", ReadCorpus("pipe.csv"));
  EXPECT_EQ(pipe.delimiter, '|');
  EXPECT_EQ(Types(pipe), "a INT64, b INT64, c INT64");
  // .tsv names are tab-delimited whatever the content says.
  auto tsv = MustInfer("x.tsv", "a,b\tc\n1,2\t3\n");
  EXPECT_EQ(tsv.delimiter, '\t');
  EXPECT_EQ(Types(tsv), "a,b VARCHAR, c INT64");
  // Consistency beats count: the comma count varies per line, the semicolon's does not.
  auto consistent = MustInfer("x.csv", "a;b\nx,y,z;1\np;2\n");
  EXPECT_EQ(consistent.delimiter, ';');
}

TEST(InferCsv, HeaderDecisions) {
  // A header of names over all-text columns.
  EXPECT_TRUE(MustInfer("a.csv", "name,city\nalice,paris\nbob,rome\n").header);
  // A single row of names is a header with no data.
  auto only = MustInfer("a.csv", "id,name\n");
  EXPECT_TRUE(only.header);
  EXPECT_EQ(only.rows, 0);
  EXPECT_EQ(Types(only), "id VARCHAR, name VARCHAR");
  EXPECT_TRUE(Col(only, "id").all_null);
  // A first row of values is data.
  auto data = MustInfer("a.csv", "1,2.5\n2,3.5\n");
  EXPECT_FALSE(data.header);
  EXPECT_EQ(Types(data), "column_1 INT64, column_2 DECIMAL(18,1)");
  // A numeric column name over numbers is still a header when another field gives it away.
  auto year = MustInfer("a.csv", "id,2023\n1,5\n2,6\n");
  EXPECT_TRUE(year.header);
  EXPECT_EQ(Types(year), "id INT64, 2023 INT64");
  // Overrides.
  InferOptions no_header;
  no_header.header = false;
  auto forced = MustInfer("a.csv", "id,name\n1,x\n", true, no_header);
  EXPECT_FALSE(forced.header);
  EXPECT_EQ(Types(forced), "column_1 VARCHAR, column_2 VARCHAR");
  EXPECT_EQ(forced.rows, 2);
  InferOptions semi;
  semi.delimiter = ';';
  auto d = MustInfer("a.csv", "a,b;c\n1;2\n", true, semi);
  EXPECT_EQ(Types(d), "a,b INT64, c INT64");
  // Header names are trimmed like the reader trims them; duplicates are refused.
  EXPECT_EQ(Types(MustInfer("a.csv", " id , name\n1,x\n")), "id INT64, name VARCHAR");
  auto dup = InferSample("a.csv", "id,id\n1,2\n", true);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(FieldOf(dup.status(), "code"), "format_unreadable");
}

TEST(InferCsv, DecimalScalesAndPrecision) {
  EXPECT_EQ(Types(MustInfer("a.csv", "p\n1.50\n-22.25\n")), "p DECIMAL(18,2)");
  EXPECT_EQ(Types(MustInfer("a.csv", "p\n1.5\n22.25\n")), "p FLOAT64");
  EXPECT_EQ(Types(MustInfer("a.csv", "p\n1\n22.25\n")), "p FLOAT64");
  EXPECT_EQ(Types(MustInfer("a.csv", "p\n1\n1e5\n")), "p FLOAT64");
  EXPECT_EQ(Types(MustInfer("a.csv", "p\n12345678901234567890123.25\n")), "p DECIMAL(25,2)");
  // Beyond 38 digits: a float.
  EXPECT_EQ(Types(MustInfer("a.csv", "p\n1234567890123456789012345678901234567.25\n")),
            "p FLOAT64");
  // Mixed zoned and unzoned timestamps; dates with timestamps.
  EXPECT_EQ(Types(MustInfer("a.csv", "t\n2024-01-01T00:00:00Z\n2024-01-01T00:00:00\n")),
            "t VARCHAR");
  EXPECT_EQ(Types(MustInfer("a.csv", "t\n2024-01-01\n2024-01-01T00:00:00\n")), "t VARCHAR");
  // A nanosecond fraction anywhere makes the column nanoseconds.
  EXPECT_EQ(Types(MustInfer("a.csv", "t\n2024-01-01T00:00:00\n2024-01-01T00:00:00.000000001\n")),
            "t TIMESTAMP[ns]");
  // ...unless a value is outside the nanosecond range: then nothing fits but text.
  EXPECT_EQ(Types(MustInfer("a.csv", "t\n1000-01-01T00:00:00\n2024-01-01T00:00:00.000000001\n")),
            "t VARCHAR");
  // Quoted values are typed like unquoted ones; quoted null is a string.
  auto q = MustInfer("a.csv", "n,s\n\"1\",\"null\"\n2,x\n");
  EXPECT_EQ(Types(q), "n INT64, s VARCHAR");
  EXPECT_EQ(Col(q, "s").nulls, 0);
  // A quoted empty string in a numeric column is not a number (the reader would refuse it).
  EXPECT_EQ(Types(MustInfer("a.csv", "n,m\n1,2\n\"\",3\n")), "n VARCHAR, m INT64");
  // A column of nothing but quoted empty strings is text, and reads back.
  auto empties = MustInfer("a.csv", "a,b\n\"\",1\n\"\",2\n");
  EXPECT_EQ(Types(empties), "a VARCHAR, b INT64");
  auto rows = ReadInferred("a.csv", "a,b\n\"\",1\n\"\",2\n", empties);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(RenderRows(*rows), (std::vector<std::string>{"|1", "|2"}));
  // Whitespace-only is not null either.
  EXPECT_EQ(Types(MustInfer("a.csv", "n,m\n1,2\n ,3\n")), "n VARCHAR, m INT64");
}

TEST(InferCsv, MaxRowsLimitsValuesNotRows) {
  std::string csv = "n\n";
  for (int i = 0; i < 100; ++i) csv += std::to_string(i) + "\n";
  csv += "x\n";  // past max_rows: not looked at
  InferOptions o;
  o.max_rows = 100;
  auto s = MustInfer("a.csv", csv, true, o);
  EXPECT_EQ(s.rows, 101);
  EXPECT_EQ(Types(s), "n INT64");
  EXPECT_EQ(Col(s, "n").values, 100);
  // Without a header the first max_rows records are looked at.
  auto headerless = MustInfer("a.csv", csv.substr(2), true, o);
  EXPECT_FALSE(headerless.header);
  EXPECT_EQ(headerless.rows, 101);
  EXPECT_EQ(Col(headerless, "column_1").values, 100);
  EXPECT_EQ(Types(headerless), "column_1 INT64");
  // NDJSON likewise.
  std::string nd;
  for (int i = 0; i < 5; ++i) nd += "{\"a\":" + std::to_string(i) + "}\n";
  nd += "{\"a\":\"x\",\"b\":1}\n";
  o.max_rows = 5;
  auto j = MustInfer("a.ndjson", nd, true, o);
  EXPECT_EQ(j.rows, 6);
  EXPECT_EQ(Types(j), "a INT64");
}

TEST(InferNdjson, NestedAndMixedKinds) {
  auto s = MustInfer("nested.ndjson", ReadCorpus("nested.ndjson"));
  EXPECT_EQ(s.format, Format::kNdjson);
  EXPECT_EQ(Types(s),
            "id INT64, user STRUCT<name: VARCHAR, tags: ARRAY<VARCHAR>>, vals ARRAY<INT64>, "
            "mixed VARCHAR, when TIMESTAMPTZ[us], amount DECIMAL(18,2), opt VARCHAR, n FLOAT64, "
            "flag BOOLEAN, ip IPV4");
  EXPECT_EQ(Col(s, "user").note,
            "objects of one shape: STRUCT of 2 members (not in every object, so null there: "
            "tags)");
  EXPECT_EQ(Col(s, "vals").note, "");  // arrays of scalars need no word
  EXPECT_EQ(Col(s, "id").note, "");
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(Col(s, "user").sample, R"({"name":"a","tags":["x"]})");
  EXPECT_EQ(Col(s, "user").nulls, 1);
  EXPECT_EQ(Col(s, "vals").sample, "[1,2]");
  EXPECT_EQ(Col(s, "mixed").sample, "1");
  EXPECT_EQ(Col(s, "amount").sample, "1.50");
  EXPECT_TRUE(Col(s, "opt").all_null);
  EXPECT_EQ(Col(s, "opt").nulls, 3);
  EXPECT_EQ(Col(s, "flag").nulls, 1);  // absent in the first line
  EXPECT_EQ(Col(s, "flag").values, 2);
  EXPECT_EQ(Col(s, "ip").nulls, 2);
}

TEST(InferNdjson, BomCrlfEscapesAndNoFinalNewline) {
  const std::string bytes = ReadCorpus("events.jsonl");
  auto s = MustInfer("events.jsonl", bytes);
  EXPECT_EQ(Types(s), "k VARCHAR, v INT64");
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(Col(s, "v").nulls, 1);
  EXPECT_EQ(Col(s, "k").sample, "a");
  // As a prefix the last line has no newline, so it is cut.
  auto prefix = MustInfer("events.jsonl", bytes, false);
  EXPECT_EQ(prefix.rows, 2);
  EXPECT_TRUE(prefix.truncated);
  EXPECT_EQ(prefix.sample_bytes, static_cast<int64_t>(bytes.rfind('\n') + 1));
}

TEST(InferNdjson, NumbersAndStrings) {
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":1,\"b\":\"1\"}\n{\"a\":2.5,\"b\":\"2\"}\n")),
            "a FLOAT64, b INT64");
  // Number and string mixed: text.
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":1}\n{\"a\":\"x\"}\n")), "a VARCHAR");
  // Objects in some rows and arrays in others: JSON.
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":{}}\n{\"a\":[1]}\n")), "a JSON");
  // Integers beyond int64 are floats.
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":18446744073709551616}\n")), "a FLOAT64");
  // Strings that look like numbers are typed by the text rules.
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":\"1.25\"}\n{\"a\":\"7.50\"}\n")),
            "a DECIMAL(18,2)");
}

TEST(InferNdjson, ObjectsOfOneShapeAreStructsToAnyDepth) {
  auto s =
      MustInfer("a.ndjson", R"({"p":{"u":{"n":"a","age":1},"items":[{"sku":"x","q":1}],"t":1}})"
                            "\n"
                            R"({"p":{"items":[{"sku":"y","q":2.5,"tags":["a"]},{"q":3}],"t":"2"}})"
                            "\n"
                            R"({"p":null})"
                            "\n");
  // Members in first-seen order; a member missing from some objects is nullable like any
  // other; numbers widen as for a column (INT64 + FLOAT64), numbers and strings are VARCHAR.
  EXPECT_EQ(Types(s),
            "p STRUCT<u: STRUCT<n: VARCHAR, age: INT64>, items: ARRAY<STRUCT<sku: VARCHAR, q: "
            "FLOAT64, tags: ARRAY<VARCHAR>>>, t: VARCHAR>");
  EXPECT_EQ(Col(s, "p").note,
            "objects of one shape: STRUCT of 3 members (not in every object, so null there: u); "
            "u: objects of one shape: STRUCT of 2 members; items[]: objects of one shape: STRUCT "
            "of 3 members (not in every object, so null there: sku, tags)");
  EXPECT_EQ(Col(s, "p").nulls, 1);
  EXPECT_EQ(Col(s, "p").sample, R"({"items":[{"q":1,"sku":"x"}],"t":1,"u":{"age":1,"n":"a"}})");
  // The reader takes the rows as inferred.
  auto rows = testing::ReadRows(
      "{\"p\":{\"u\":{\"n\":\"a\",\"age\":1},\"items\":[{\"sku\":\"x\",\"q\":1}],\"t\":1}}\n",
      "a.ndjson", s.ToSchema().ToString());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)[0],
            R"({"u":{"n":"a","age":1},"items":[{"sku":"x","q":1,"tags":null}],"t":"1"})");
  // Arrays of objects at the top are ARRAY<STRUCT>; arrays of arrays nest.
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":[{\"x\":1}],\"m\":[[1],[2,3]]}\n{\"a\":[]}\n")),
            "a ARRAY<STRUCT<x: INT64>>, m ARRAY<ARRAY<INT64>>");
}

TEST(InferNdjson, NestedEventsCorpus) {
  auto s = MustInfer("events_nested.ndjson", ReadCorpus("events_nested.ndjson"));
  EXPECT_EQ(Types(s),
            "id INT64, payload STRUCT<user: STRUCT<email: VARCHAR, age: INT64>, items: "
            "ARRAY<STRUCT<sku: VARCHAR, qty: INT64, price: DECIMAL(18,2)>>, total: FLOAT64, note: "
            "VARCHAR>, shape JSON, extra STRUCT<x: INT64>");
  EXPECT_EQ(Col(s, "shape").note, "JSON: objects and arrays in different rows");
}

TEST(InferNdjson, ShapesThatDisagreeAreJsonWhereTheyDisagree) {
  auto note = [](const std::string& bytes, const std::string& column) {
    return Col(MustInfer("a.ndjson", bytes), column).note;
  };
  // At the top: objects in some rows, strings in others.
  auto s = MustInfer("a.ndjson", "{\"a\":{\"x\":1}}\n{\"a\":\"no\"}\n{\"a\":[1]}\n");
  EXPECT_EQ(Types(s), "a JSON");
  EXPECT_EQ(Col(s, "a").note, "JSON: objects, arrays and strings in different rows");
  // In a member: that member only.
  s = MustInfer("a.ndjson", "{\"a\":{\"x\":{\"y\":1},\"z\":1}}\n{\"a\":{\"x\":5,\"z\":2}}\n");
  EXPECT_EQ(Types(s), "a STRUCT<x: JSON, z: INT64>");
  EXPECT_EQ(Col(s, "a").note,
            "objects of one shape: STRUCT of 2 members; x: JSON: objects and numbers in "
            "different rows");
  // Elements of one array mixing objects and numbers.
  EXPECT_EQ(Types(MustInfer("a.ndjson", "{\"a\":[{\"x\":1},2]}\n")), "a ARRAY<JSON>");
  EXPECT_EQ(note("{\"a\":{}}\n{\"a\":null}\n", "a"), "JSON: only empty objects");
  EXPECT_EQ(note("{\"a\":[]}\n", "a"), "JSON: only empty arrays");
  EXPECT_EQ(note("{\"a\":{\"x\":1,\"y\":2,\"x\":3}}\n", "a"),
            "JSON: an object holds the key 'x' twice");
  EXPECT_EQ(note("{\"a\":{\"x\":1,\"X\":2}}\n", "a"),
            "JSON: two keys differ only in case ('X'), as STRUCT members may not");
  EXPECT_EQ(note("{\"a\":{\"\":1}}\n", "a"), "JSON: a key is empty, which no STRUCT member can be");
  EXPECT_EQ(note("{\"a\":{\"x\":null}}\n", "a"),
            "objects of one shape: STRUCT of 1 member; x: only nulls: VARCHAR");
  // Deeper than 10 levels: the 11th level is kept as JSON.
  std::string deep = "{\"a\":";
  for (int i = 0; i < 12; ++i) deep += "{\"b\":";
  deep += "1" + std::string(13, '}') + "\n";
  s = MustInfer("a.ndjson", deep);
  EXPECT_EQ(Types(s),
            "a STRUCT<b: STRUCT<b: STRUCT<b: STRUCT<b: STRUCT<b: STRUCT<b: STRUCT<b: STRUCT<b: "
            "STRUCT<b: STRUCT<b: JSON>>>>>>>>>>");
  EXPECT_NE(Col(s, "a").note.find("b.b.b.b.b.b.b.b.b.b: JSON: nested more than 10 levels deep"),
            std::string::npos)
      << Col(s, "a").note;
}

TEST(InferNdjson, KeysThatLookLikeDataAreMapsOrJson) {
  // More than 64 distinct keys whose values are all numbers: MAP<VARCHAR, INT64>.
  std::string many;
  for (int r = 0; r < 3; ++r) {
    many += "{\"counts\":{";
    for (int k = 0; k < 30; ++k) {
      many += (k ? "," : "") + std::string("\"user") + std::to_string(r * 30 + k) +
              "\":" + std::to_string(k);
    }
    many += "}}\n";
  }
  auto s = MustInfer("a.ndjson", many);
  EXPECT_EQ(Types(s), "counts MAP<VARCHAR, INT64>");
  EXPECT_EQ(Col(s, "counts").note,
            "MAP<VARCHAR, INT64>: more than 64 distinct keys: the keys look like data");
  ASSERT_TRUE(testing::ReadRows(many, "a.ndjson", s.ToSchema().ToString()).ok());
  // A few keys each, different in most rows (under 10% of the objects per key on average),
  // their values one shape of object: MAP of STRUCT.
  std::string sparse;
  for (int r = 0; r < 40; ++r) {
    sparse += "{\"by_day\":{\"2024-01-" + std::to_string(10 + r % 20) +
              "\":{\"n\":" + std::to_string(r) + "}}}\n";
  }
  s = MustInfer("a.ndjson", sparse);
  EXPECT_EQ(Types(s), "by_day MAP<VARCHAR, STRUCT<n: INT64>>");
  EXPECT_EQ(Col(s, "by_day").note,
            "MAP<VARCHAR, STRUCT<n: INT64>>: 40 keys over 40 objects, each in 5.0% of the "
            "objects on average (under 10.0%): the keys look like data; [*]: objects of one "
            "shape: STRUCT of 1 member");
  ASSERT_TRUE(testing::ReadRows(sparse, "a.ndjson", s.ToSchema().ToString()).ok());
  // Values of different shapes: JSON.
  std::string mixed = many + "{\"counts\":{\"x\":{\"y\":1}}}\n";
  s = MustInfer("a.ndjson", mixed);
  EXPECT_EQ(Types(s), "counts JSON");
  EXPECT_EQ(Col(s, "counts").note,
            "JSON: more than 64 distinct keys: the keys look like data, but their values are "
            "objects and numbers, not one type");
  // A key given twice in one object of a MAP's keys: JSON (a MAP holds a key once).
  s = MustInfer("a.ndjson", many + "{\"counts\":{\"q\":1,\"q\":2}}\n");
  EXPECT_EQ(Types(s), "counts JSON");
}

TEST(InferNdjson, MemberNamesTheTargetRefusesKeepTheColumnJson) {
  const std::string bytes = "{\"a\":{\"first name\":\"x\",\"ok\":1},\"b\":{\"ok\":2}}\n";
  // Without a rule, any non-empty name is a member (quoted in the type's text).
  auto s = MustInfer("a.ndjson", bytes);
  EXPECT_EQ(Types(s), "a STRUCT<\"first name\": VARCHAR, ok: INT64>, b STRUCT<ok: INT64>");
  InferOptions o;
  o.member_name = [](std::string_view name) {
    return name.find(' ') == std::string_view::npos ? Status::OK()
                                                    : Status::InvalidArgument("no spaces");
  };
  s = MustInfer("a.ndjson", bytes, true, o);
  EXPECT_EQ(Types(s), "a JSON, b STRUCT<ok: INT64>");
  EXPECT_EQ(Col(s, "a").note, "JSON: the key 'first name' is not a valid column name (no spaces)");
}

TEST(InferNdjson, TextThatIsNotUtf8InsideObjectsIsRefused) {
  for (const char* bad : {"{\"a\":{\"x\":\"\xFF\"}}\n", "{\"a\":[{\"\xFF\":1}]}\n"}) {
    auto r = InferSample("a.ndjson", bad, true);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable");
    EXPECT_EQ(FieldOf(r.status(), "column"), "a");
    EXPECT_EQ(FieldOf(r.status(), "row"), "1");
  }
}

// Random nested NDJSON (a few keys so shapes recur, conflicts, sparse and many keys, deep
// values) always reads back with what inference made of it.
TEST(InferRoundTrip, RandomNestedNdjson) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&](uint64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % n;
  };
  const char* const kScalars[] = {"1",
                                  "-2",
                                  "2.50",
                                  "1e3",
                                  "\"x\"",
                                  "\"2024-01-02\"",
                                  "true",
                                  "null",
                                  "\"a\\u00e9\"",
                                  "12345678901234567890"};
  // The kind of a value follows its place (key and depth) in a file, with the odd conflict.
  uint64_t salt = 0;
  std::function<std::string(int, uint64_t)> value = [&](int depth, uint64_t place) {
    uint64_t kind = (place * 0x2545f4914f6cdd1dull + salt) % 10;
    if (place == 1) kind = 6 + salt % 4;  // p: objects
    if (next(80) == 0) kind = next(10);
    if (depth > 12) kind = 0;
    if (kind < 4) return std::string(kScalars[(kind * 3 + next(2)) % 10]);
    if (kind < 6) {
      std::string out = "[";
      for (uint64_t i = 0, n = next(4); i < n; ++i) {
        out += (i ? "," : "") + value(depth + 1, place * 31 + 7);
      }
      return out + "]";
    }
    std::string out = "{";
    const uint64_t n = next(5);
    const bool wide = kind == 9;  // keys that look like data
    std::vector<std::string> used;
    for (uint64_t i = 0; i < n; ++i) {
      std::string key = wide ? "k" + std::to_string(next(1000)) : std::string(1, "abcdE"[next(5)]);
      if (std::find(used.begin(), used.end(), key) != used.end()) continue;
      used.push_back(key);
      const uint64_t sub = wide ? place * 31 + 3 : place * 31 + static_cast<uint64_t>(key[0]);
      out += (used.size() > 1 ? "," : "") + ("\"" + key + "\":") + value(depth + 1, sub);
    }
    return out + "}";
  };
  std::map<std::string, int> kinds;  // first letters of the column types
  for (int file = 0; file < 300; ++file) {
    std::string bytes;
    salt = next(1000);
    for (uint64_t r = 0, rows = 1 + next(40); r < rows; ++r) {
      bytes += "{\"p\":" + value(1, 1) + ",\"q\":" + value(1, 2) + "}\n";
    }
    auto s = InferSample("r.ndjson", bytes, true);
    ASSERT_TRUE(s.ok()) << s.status().ToString() << "\n" << bytes;
    for (const InferredColumn& c : s->columns) ++kinds[c.type.ToString().substr(0, 3)];
    auto batches = ReadInferred("r.ndjson", bytes, *s);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString() << "\n" << Types(*s) << "\n" << bytes;
    // The inferred types print as text the stored contracts parse back.
    for (const InferredColumn& c : s->columns) {
      auto again = DataType::Parse(c.type.ToString());
      ASSERT_TRUE(again.ok()) << c.type.ToString();
      EXPECT_EQ(*again, c.type);
    }
  }
  // Every outcome was met, more than once.
  for (const char* k : {"STR", "MAP", "ARR", "JSO"}) EXPECT_GT(kinds[k], 10) << k;
}

TEST(InferNdjson, Malformed) {
  for (const char* bad : {"[1,2]\n", "{\"a\":1\n", "{\"a\":1,\"a\":2}\n", "{\"a\":tru}\n",
                          "{\"a\":{\"b\":}}\n", "{\"a\":1} x\n"}) {
    auto r = InferSample("a.ndjson", bad, true);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable") << bad;
    EXPECT_EQ(FieldOf(r.status(), "row"), "1") << bad;
  }
  auto empty = InferSample("a.ndjson", "\n\n", true);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(FieldOf(empty.status(), "code"), "format_unreadable");
  // A prefix with no complete line.
  EXPECT_FALSE(InferSample("a.ndjson", "{\"a\":1}", false).ok());
}

TEST(InferCsv, MalformedAndEmpty) {
  auto ragged = InferSample("a.csv", "a,b\n1,2\n3\n", true);
  ASSERT_FALSE(ragged.ok());
  EXPECT_EQ(FieldOf(ragged.status(), "code"), "format_unreadable");
  EXPECT_EQ(FieldOf(ragged.status(), "row"), "3");
  auto quote = InferSample("a.csv", "a,b\n\"x\"y,2\n", true);
  ASSERT_FALSE(quote.ok());
  EXPECT_EQ(FieldOf(quote.status(), "code"), "format_unreadable");
  auto unclosed = InferSample("a.csv", "a,b\n\"x,2\n", true);
  ASSERT_FALSE(unclosed.ok());
  for (const char* nothing : {"", "\n\r\n", "\xEF\xBB\xBF"}) {
    auto r = InferSample("a.csv", nothing, true);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable");
  }
  // A prefix whose only record is unfinished.
  EXPECT_FALSE(InferSample("a.csv", "a,b", false).ok());
  auto unknown = InferSample("a.txt", "a\n1\n", true);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(FieldOf(unknown.status(), "code"), "format_unreadable");
}

TEST(InferText, NotUtf8IsRefusedAtInference) {
  auto csv = InferSample("a.csv", "id,name\n1,ok\n2,caf\xE9\n", true);
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(FieldOf(csv.status(), "code"), "format_unreadable");
  EXPECT_EQ(FieldOf(csv.status(), "column"), "name");
  EXPECT_EQ(FieldOf(csv.status(), "row"), "2");
  auto nd = InferSample("a.ndjson", "{\"a\":\"x\"}\n{\"a\":\"\xFF\"}\n", true);
  ASSERT_FALSE(nd.ok());
  EXPECT_EQ(FieldOf(nd.status(), "row"), "2");
  // Valid multi-byte text is fine, escaped or not.
  auto ok = MustInfer("a.ndjson", "{\"a\":\"caf\u00e9\",\"b\":\"\xC3\xA9\"}\n");
  EXPECT_EQ(Col(ok, "a").sample, "caf\xC3\xA9");
  EXPECT_EQ(Types(MustInfer("a.csv", "n\xC3\xA4me\n\xC3\xA9t\xC3\xA9\n")), "n\xC3\xA4me VARCHAR");
}

// ---- truncation ----

TEST(InferCsv, CutAtTheLastCompleteRecord) {
  const std::string head = "id,note\n1,\"a\nb\"\n2,plain\n";
  const std::string full = head + "3,\"x\ny\nz\"\n";
  // Cut inside the quoted field with embedded newlines of record 3.
  const std::string prefix = full.substr(0, head.size() + 5);
  auto s = MustInfer("a.csv", prefix, false);
  EXPECT_EQ(s.rows, 2);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(s.sample_bytes, static_cast<int64_t>(head.size()));
  EXPECT_EQ(Types(s), "id INT64, note VARCHAR");
  EXPECT_EQ(Col(s, "note").sample, "a\nb");
  // Cut right after the closing quote, before the line break: still incomplete.
  auto s2 = MustInfer("a.csv", full.substr(0, full.size() - 1), false);
  EXPECT_EQ(s2.rows, 2);
  // The whole file: the last record counts, with or without its final newline.
  EXPECT_EQ(MustInfer("a.csv", full, true).rows, 3);
  EXPECT_EQ(MustInfer("a.csv", full.substr(0, full.size() - 1), true).rows, 3);
  EXPECT_FALSE(MustInfer("a.csv", full, true).truncated);
  // A prefix ending exactly at a record boundary keeps every record but is still a prefix.
  auto s3 = MustInfer("a.csv", full, false);
  EXPECT_EQ(s3.rows, 3);
  EXPECT_TRUE(s3.truncated);
}

std::string BigCsv(int n) {
  std::string csv = "id,price,when,note\n";
  for (int i = 0; i < n; ++i) {
    csv += std::to_string(i) + "," + std::to_string(i % 100) + "." + std::to_string(10 + i % 90) +
           ",2024-01-" + std::to_string(10 + i % 19) + "T10:00:00Z,\"line " + std::to_string(i) +
           "\nsecond, line\"\n";
  }
  return csv;
}

TEST(InferCompressed, TruncatedPrefixes) {
  const std::string csv = BigCsv(8000);
  for (auto codec : {CompressionCodec::kGzip, CompressionCodec::kZstd, CompressionCodec::kBrotli}) {
    const std::string z = Compressed(codec, csv);
    const std::string name = codec == CompressionCodec::kGzip   ? "big.csv.gz"
                             : codec == CompressionCodec::kZstd ? "big.csv.zst"
                                                                : "big.csv.br";
    SCOPED_TRACE(name);
    auto whole = MustInfer(name, z, true);
    EXPECT_EQ(whole.rows, 8000);
    EXPECT_FALSE(whole.truncated);
    EXPECT_EQ(Types(whole), "id INT64, price DECIMAL(18,2), when TIMESTAMPTZ[us], note VARCHAR");
    EXPECT_EQ(whole.sample_bytes, static_cast<int64_t>(csv.size()));
    // Half of the compressed bytes: decoded as far as they go, cut at a record.
    const std::string half = z.substr(0, z.size() / 2);
    auto s = MustInfer(name, half, false);
    EXPECT_TRUE(s.truncated);
    EXPECT_GT(s.rows, 100);
    EXPECT_LT(s.rows, 8000);
    EXPECT_EQ(Types(s), Types(whole));
    // The bytes used end exactly after a record of the original.
    ASSERT_LT(s.sample_bytes, static_cast<int64_t>(csv.size()));
    EXPECT_EQ(csv.substr(0, s.sample_bytes),
              csv.substr(0, csv.find("\n" + std::to_string(s.rows) + ",") + 1));
    // The same bytes claimed to be the whole file are a broken file.
    auto broken = InferSample(name, half, true);
    ASSERT_FALSE(broken.ok());
    EXPECT_EQ(FieldOf(broken.status(), "code"), "format_unreadable");
  }
  // Explicit compression (Content-Encoding) for a name without the suffix.
  InferOptions o;
  o.compression = InputCompression::kGzip;
  auto s = MustInfer("big.csv", Compressed(CompressionCodec::kGzip, csv), true, o);
  EXPECT_EQ(s.compression, InputCompression::kGzip);
  EXPECT_EQ(s.rows, 8000);
  // Garbage is not a truncation.
  auto garbage = InferSample("x.csv.gz", std::string(100, 'x'), false);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(FieldOf(garbage.status(), "code"), "format_unreadable");
}

// ---- Parquet ----

std::string ParquetFile() {
  Schema schema = testing::MustSchema(
      "id INT64 NOT NULL, name VARCHAR, price DECIMAL(10,2), ts TIMESTAMPTZ[us], tags "
      "ARRAY<VARCHAR>, ip IPV4, nothing INT32");
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* mem = sink.get();
  auto writer = parquet::FileWriter::Open(std::move(sink), schema);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  std::string csv = "id,name,price,ts,tags,ip,nothing\n";
  csv += "3,carol,1.50,2024-01-01T00:00:00Z,\"[\"\"a\"\"]\",10.0.0.9,\n";
  csv += "1,,0.25,2023-06-01T12:00:00Z,[],10.0.0.1,\n";
  csv += "2,bob,,,,,\n";
  auto batches = testing::ReadBatches(csv, "p.csv", schema);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  for (const RecordBatch& b : *batches) EXPECT_TRUE((*writer)->Write(b).ok());
  EXPECT_TRUE((*writer)->Close().ok());
  return mem->bytes();
}

TEST(InferParquet, FooterTail) {
  const std::string file = ParquetFile();
  // The tail from just after the leading magic: it holds the footer, not the whole file.
  auto s = MustInfer("p.parquet", file.substr(4), false);
  EXPECT_EQ(s.format, Format::kParquet);
  EXPECT_EQ(Types(s),
            "id INT64, name VARCHAR, price DECIMAL(10,2), ts TIMESTAMPTZ[us], tags "
            "ARRAY<VARCHAR>, ip IPV4, nothing INT32");
  EXPECT_EQ(s.rows, 3);
  EXPECT_EQ(Col(s, "id").sample, "1");
  EXPECT_EQ(Col(s, "name").sample, "bob");
  EXPECT_EQ(Col(s, "name").nulls, 1);
  EXPECT_EQ(Col(s, "price").sample, "0.25");
  EXPECT_EQ(Col(s, "ts").sample, "2023-06-01T12:00:00Z");
  EXPECT_EQ(Col(s, "ip").sample, "10.0.0.1");
  EXPECT_TRUE(Col(s, "nothing").all_null);
  EXPECT_EQ(Col(s, "nothing").nulls, 3);
  EXPECT_FALSE(Col(s, "id").all_null);
  // The inferred schema reads the file.
  auto rows = testing::ReadBatches(file, "p.parquet", s.ToSchema());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(RenderRows(*rows).size(), 3u);
}

TEST(InferParquet, NestedColumnsAreNotCountedByTheirFirstLeaf) {
  // A struct whose member is null in a present row: the member's null count is not the
  // struct's.
  Schema schema = testing::MustSchema("s STRUCT<a: INT64>, n INT64");
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* mem = sink.get();
  auto writer = parquet::FileWriter::Open(std::move(sink), schema);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  RecordBatch b;
  b.schema = schema;
  for (const Field& f : schema.fields) b.columns.emplace_back(f.type);
  b.columns[0].members[0].AppendNull();
  b.columns[0].AppendStructRow();
  b.columns[1].AppendNull();
  b.num_rows = 1;
  ASSERT_TRUE((*writer)->Write(b).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  auto inferred = MustInfer("s.parquet", mem->bytes(), false);
  EXPECT_EQ(Types(inferred), "s STRUCT<a: INT64>, n INT64");
  EXPECT_EQ(Col(inferred, "s").nulls, 0);
  EXPECT_FALSE(Col(inferred, "s").all_null);
  EXPECT_EQ(Col(inferred, "n").nulls, 1);
}

TEST(InferParquet, BrokenTails) {
  const std::string file = ParquetFile();
  for (const std::string& tail : {file.substr(file.size() - 20), std::string("PAR1"), std::string(),
                                  std::string("xxxxPAR1"), file.substr(0, file.size() - 1)}) {
    auto r = InferSample("p.parquet", tail, false);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(FieldOf(r.status(), "code"), "format_unreadable");
  }
  // A footer of garbage with a plausible length.
  std::string junk(64, '\x07');
  junk += std::string("\x20\x00\x00\x00PAR1", 8);
  EXPECT_FALSE(InferSample("p.parquet", junk, false).ok());
  EXPECT_FALSE(InferSample("p.parquet.gz", file, true).ok());
}

// A footer's null counts are the writer's word: a negative one is not counted, a huge one
// stops at the rows (found by infer_fuzz).
TEST(InferParquet, FooterCountsThatLie) {
  const std::string file = ParquetFile();
  uint32_t len = 0;
  std::memcpy(&len, file.data() + file.size() - 8, 4);
  const size_t start = file.size() - 8 - len;
  auto md = parquet::DecodeFileMetaData(reinterpret_cast<const uint8_t*>(file.data()) + start, len);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  auto with = [&](int64_t null_count) {
    parquet::FileMetaData m = *md;
    for (auto& rg : m.row_groups) {
      for (auto& c : rg.columns) {
        if (c.meta_data && c.meta_data->statistics)
          c.meta_data->statistics->null_count = null_count;
      }
    }
    ByteBuffer footer;
    parquet::EncodeFileMetaData(m, &footer);
    std::string out = file.substr(0, start);
    out.append(reinterpret_cast<const char*>(footer.data()), footer.size());
    const uint32_t n = static_cast<uint32_t>(footer.size());
    out.append(reinterpret_cast<const char*>(&n), 4);
    return out + "PAR1";
  };
  for (int64_t lie : {int64_t{-5}, std::numeric_limits<int64_t>::max()}) {
    auto s = MustInfer("p.parquet", with(lie), true);
    for (const auto& c : s.columns) {
      EXPECT_GE(c.nulls, 0) << lie << " " << c.name;
      EXPECT_GE(c.values, 0) << lie << " " << c.name;
      EXPECT_LE(c.nulls, s.rows) << lie << " " << c.name;
    }
  }
}

// ---- the round trip over the whole corpus ----

std::vector<std::pair<std::string, std::string>> Corpus() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& e : std::filesystem::directory_iterator(kCorpus)) {
    const std::string name = e.path().filename().string();
    files.emplace_back(name, ReadCorpus(name));
  }
  std::sort(files.begin(), files.end());
  EXPECT_GE(files.size(), 12u);
  // Compressed copies of the text files, and generated awkward ones.
  const size_t n = files.size();
  for (size_t i = 0; i < n; ++i) {
    files.emplace_back(files[i].first + ".gz",
                       Compressed(CompressionCodec::kGzip, files[i].second));
    files.emplace_back(files[i].first + ".zst",
                       Compressed(CompressionCodec::kZstd, files[i].second));
  }
  files.emplace_back("big.csv", BigCsv(3000));
  files.emplace_back("p.parquet", ParquetFile());
  return files;
}

TEST(InferRoundTrip, EveryCorpusFileReadsWithItsInferredSchema) {
  for (const auto& [name, bytes] : Corpus()) {
    SCOPED_TRACE(name);
    auto s = MustInfer(name, bytes, true);
    auto batches = ReadInferred(name, bytes, s);
    ASSERT_TRUE(batches.ok()) << batches.status().ToString() << "\n" << Types(s);
    int64_t rows = 0;
    for (const RecordBatch& b : *batches) rows += b.num_rows;
    EXPECT_EQ(rows, s.rows);
    // The sample values are the first non-null values the reader sees, typed.
    if (s.format == Format::kParquet) continue;
    std::vector<std::string> rendered = RenderRows(*batches);
    ASSERT_FALSE(rendered.empty());
    // A 1 KiB prefix infers a schema the whole file also reads with (or too little to say).
    if (bytes.size() > 1024) {
      auto p = InferSample(name, std::string_view(bytes).substr(0, 1024), false);
      if (p.ok()) {
        auto again = ReadInferred(name, bytes, *p);
        EXPECT_TRUE(again.ok() || p->columns.size() != s.columns.size())
            << again.status().ToString();
      }
    }
  }
}

TEST(StreamReader, EqualsTheFileReader) {
  for (const auto& [name, bytes] : Corpus()) {
    if (name.find(".parquet") != std::string::npos) continue;
    SCOPED_TRACE(name);
    auto s = MustInfer(name, bytes, true);
    auto file_batches = ReadInferred(name, bytes, s);
    ASSERT_TRUE(file_batches.ok()) << file_batches.status().ToString();
    auto stream_rows = ReadStream(name, bytes, s);
    ASSERT_TRUE(stream_rows.ok()) << stream_rows.status().ToString();
    EXPECT_EQ(*stream_rows, RenderRows(*file_batches));
  }
}

TEST(StreamReader, ErrorsAndParquet) {
  auto schema = testing::MustSchema("id INT64");
  auto pq = OpenStreamBatchReader(std::make_unique<BodyStream>("x"), "a.parquet", Format::kParquet,
                                  InputCompression::kNone, schema);
  ASSERT_FALSE(pq.ok());
  EXPECT_EQ(FieldOf(pq.status(), "code"), "format_unreadable");
  EXPECT_FALSE(
      OpenStreamBatchReader(nullptr, "a.csv", Format::kCsv, InputCompression::kNone, schema).ok());
  // A bad value through a compressed stream is value_not_castable with its row.
  auto r = OpenStreamBatchReader(
      std::make_unique<BodyStream>(Compressed(CompressionCodec::kGzip, "id\n1\nx\n")), "body",
      Format::kCsv, InputCompression::kGzip, schema);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto b = (*r)->Next();
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(FieldOf(b.status(), "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(b.status(), "row"), "2");
  // Raw stream decompression on its own.
  auto in =
      OpenInputStream(std::make_unique<BodyStream>(Compressed(CompressionCodec::kZstd, "hello")),
                      InputCompression::kZstd);
  ASSERT_TRUE(in.ok());
  uint8_t buf[16];
  auto n = (*in)->Read(buf, sizeof buf);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), *n), "hello");
}

}  // namespace
}  // namespace tarn::formats
