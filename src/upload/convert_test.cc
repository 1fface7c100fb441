#include "upload/convert.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/compression.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "table/schema_json.h"
#include "types/value_text.h"

namespace tarn::upload {
namespace {

namespace fs = std::filesystem;

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tarn-convert-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, std::string_view bytes) {
    std::string path = (fs::path(dir_) / name).string();
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  std::string Out() const { return (fs::path(dir_) / "out.parquet").string(); }

  Result<ConvertResult> Convert(const std::vector<std::string>& inputs,
                                const ConvertOptions& options) {
    TARN_ASSIGN_OR_RETURN(auto sink, CreateLocalFile(Out()));
    return ConvertFiles(inputs, std::move(sink), options);
  }

  // The output file's schema and rows ("v1|v2|...", NULL for nulls).
  std::vector<std::string> ReadBack(Schema* schema = nullptr) {
    auto file = OpenLocalFile(Out());
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    if (!file.ok()) return {};
    auto reader = parquet::FileReader::Open(*file);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return {};
    auto batch = (*reader)->ReadAll();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) return {};
    if (schema != nullptr) *schema = batch->schema;
    std::vector<std::string> rows;
    for (int64_t r = 0; r < batch->num_rows; ++r) {
      std::string line;
      for (size_t c = 0; c < batch->columns.size(); ++c) {
        if (c > 0) line.push_back('|');
        const Column& col = batch->columns[c];
        if (!col.IsValid(r)) {
          line += "NULL";
        } else {
          AppendValueText(col, r, &line);
        }
      }
      rows.push_back(std::move(line));
    }
    return rows;
  }

  static std::string FieldOf(const Status& st, std::string_view name) {
    for (const auto& [k, v] : st.fields()) {
      if (k == name) return v;
    }
    return "<absent>";
  }

  // "name:id" per field, "name:id/element_id" for arrays.
  static std::string Ids(const Schema& s) {
    std::string out;
    for (const Field& f : s.fields) {
      if (!out.empty()) out += ", ";
      out += f.name + ":" + std::to_string(f.field_id);
      if (f.type.id() == TypeId::kArray)
        out += "/" + std::to_string(f.type.element_field().field_id);
    }
    return out;
  }

  static std::string Types(const Schema& s) {
    std::string out;
    for (const Field& f : s.fields) {
      if (!out.empty()) out += ", ";
      out += f.name + " " + f.type.ToString();
    }
    return out;
  }

  std::string dir_;
};

constexpr char kOrders[] =
    "id,amount,price,ts,day,name,ok\n"
    "1,10.50,1.5,2024-01-02 03:04:05,2024-01-02,alice,true\n"
    "2,-3.25,2.25e3,2024-01-02T03:04:06,2024-01-03,\"b, quoted\",false\n"
    "3,,0.125,2024-01-02 03:04:07.5,,,TRUE\n";

TEST_F(ConvertTest, CsvWithInferenceGetsTypesAndValues) {
  ConvertOptions o;
  o.infer = true;
  auto res = Convert({Write("orders.csv", kOrders)}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 3);
  EXPECT_EQ(res->input_bytes, static_cast<int64_t>(sizeof(kOrders) - 1));
  EXPECT_EQ(res->output_bytes, static_cast<int64_t>(fs::file_size(Out())));
  ASSERT_EQ(res->schema.fields.size(), 7u);
  EXPECT_EQ(res->schema.fields[0].type, DataType::Int64());
  EXPECT_EQ(res->schema.fields[1].type.id(), TypeId::kDecimal);
  EXPECT_EQ(res->schema.fields[1].type.scale(), 2);
  EXPECT_EQ(res->schema.fields[2].type, DataType::Float64());
  EXPECT_EQ(res->schema.fields[3].type.id(), TypeId::kTimestamp);
  EXPECT_EQ(res->schema.fields[4].type, DataType::Date());
  EXPECT_EQ(res->schema.fields[5].type, DataType::Varchar());
  EXPECT_EQ(res->schema.fields[6].type, DataType::Boolean());

  Schema written;
  std::vector<std::string> rows = ReadBack(&written);
  EXPECT_EQ(Types(written), Types(res->schema));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "1|10.50|1.5|2024-01-02T03:04:05|2024-01-02|alice|true");
  EXPECT_EQ(rows[1], "2|-3.25|2250|2024-01-02T03:04:06|2024-01-03|b, quoted|false");
  EXPECT_EQ(rows[2], "3|NULL|0.125|2024-01-02T03:04:07.5|NULL|NULL|true");
}

TEST_F(ConvertTest, CsvWithoutInferenceIsText) {
  auto res = Convert({Write("orders.csv", kOrders)}, {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  for (const Field& f : res->schema.fields) EXPECT_EQ(f.type, DataType::Varchar()) << f.name;
  std::vector<std::string> rows = ReadBack();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1], "2|-3.25|2.25e3|2024-01-02T03:04:06|2024-01-03|b, quoted|false");
  EXPECT_EQ(rows[2], "3|NULL|0.125|2024-01-02 03:04:07.5|NULL|NULL|TRUE");
}

TEST_F(ConvertTest, TypeOverridesWinOverInferenceAndText) {
  ConvertOptions o;
  o.types = {{"id", "INT32"}, {"AMOUNT", "DECIMAL(12,3)"}, {"ts", "TIMESTAMPTZ"}};
  auto res = Convert({Write("orders.csv", kOrders)}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Types(res->schema),
            "id INT32, amount DECIMAL(12,3), price VARCHAR, ts TIMESTAMPTZ[us], day VARCHAR, "
            "name VARCHAR, ok VARCHAR");
  std::vector<std::string> rows = ReadBack();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "1|10.500|1.5|2024-01-02T03:04:05Z|2024-01-02|alice|true");

  o.infer = true;
  o.types = {{"price", "DOUBLE"}, {"ok", "VARCHAR"}};
  res = Convert({Write("orders.csv", kOrders)}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->schema.fields[0].type, DataType::Int64());
  EXPECT_EQ(res->schema.fields[6].type, DataType::Varchar());
  rows = ReadBack();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2], "3|NULL|0.125|2024-01-02T03:04:07.5|NULL|NULL|TRUE");
}

TEST_F(ConvertTest, OverrideOfAnUnknownColumnOrTypeIsRefused) {
  std::string in = Write("orders.csv", kOrders);
  ConvertOptions o;
  o.types = {{"nope", "INT64"}};
  auto res = Convert({in}, o);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldOf(res.status(), "code"), "column_missing");
  EXPECT_EQ(FieldOf(res.status(), "column"), "nope");

  o.types = {{"id", "INTEGRAL"}};
  res = Convert({in}, o);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_FALSE(fs::exists(Out()));
}

TEST_F(ConvertTest, ValueNotCastableNamesColumnRowValueAndWritesNothing) {
  std::string in = Write("bad.csv", "id,v\n1,a\n2,b\nx3,c\n4,d\n");
  ConvertOptions o;
  o.types = {{"id", "INT64"}};
  auto res = Convert({in}, o);
  ASSERT_FALSE(res.ok());
  const Status& st = res.status();
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(FieldOf(st, "code"), "value_not_castable");
  EXPECT_EQ(FieldOf(st, "column"), "id");
  EXPECT_EQ(FieldOf(st, "row"), "3");
  EXPECT_EQ(FieldOf(st, "value"), "x3");
  EXPECT_EQ(FieldOf(st, "declared"), "INT64");
  EXPECT_EQ(FieldOf(st, "file"), in);
  EXPECT_FALSE(fs::exists(Out()));  // the sink was never closed
}

// Batches of many rows: the error comes from the reader thread after the writer has written
// earlier batches; the row number counts from the start of the file.
TEST_F(ConvertTest, LateBadValueStopsThePipeline) {
  std::string csv = "id,name\n";
  for (int i = 1; i <= 80000; ++i) {
    csv += (i == 70001 ? std::string("oops") : std::to_string(i)) + ",n" + std::to_string(i) + "\n";
  }
  std::string in = Write("big.csv", csv);
  for (int threads : {1, 2}) {
    ConvertOptions o;
    o.types = {{"id", "INT64"}};
    o.threads = threads;
    auto res = Convert({in}, o);
    ASSERT_FALSE(res.ok()) << threads;
    EXPECT_EQ(FieldOf(res.status(), "code"), "value_not_castable");
    EXPECT_EQ(FieldOf(res.status(), "row"), "70001");
    EXPECT_EQ(FieldOf(res.status(), "value"), "oops");
    EXPECT_FALSE(fs::exists(Out()));
  }
}

TEST_F(ConvertTest, ManyBatchesKeepOrderAndReportProgress) {
  std::string csv = "id,x\n";
  for (int i = 0; i < 140000; ++i) {
    csv += std::to_string(i) + "," + std::to_string(i % 7 == 0 ? -i : i * 3) + ".5\n";
  }
  std::string in = Write("many.csv", csv);
  std::vector<std::pair<int64_t, int64_t>> calls;
  ConvertOptions o;
  o.infer = true;
  o.progress = [&](int64_t done, int64_t total) { calls.emplace_back(done, total); };
  auto res = Convert({in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 140000);
  std::vector<std::string> rows = ReadBack();
  ASSERT_EQ(rows.size(), 140000u);
  for (int i : {0, 1, 7, 65535, 65536, 131073, 139999}) {
    EXPECT_EQ(rows[i], std::to_string(i) + "|" + std::to_string(i % 7 == 0 ? -i : i * 3) + ".5");
  }
  ASSERT_GE(calls.size(), 2u);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i].first, calls[i - 1].first);
  EXPECT_EQ(calls.back().first, static_cast<int64_t>(csv.size()));
  EXPECT_EQ(calls.back().second, static_cast<int64_t>(csv.size()));

  // One thread (no pipeline) writes the same rows.
  o.threads = 1;
  o.progress = nullptr;
  res = Convert({in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(ReadBack(), rows);
}

TEST_F(ConvertTest, NdjsonInput) {
  std::string in = Write("events.ndjson",
                         "{\"id\": 1, \"score\": 1.25, \"tag\": \"a\", \"at\": \"2024-05-01\", "
                         "\"meta\": {\"k\": [1, 2]}}\n"
                         "{\"id\": 2, \"score\": 2.50, \"tag\": null, \"at\": \"2024-05-02\", "
                         "\"meta\": {\"k\": []}}\n"
                         "{\"id\": 3, \"score\": -0.75, \"at\": \"2024-05-03\", \"meta\": null}\n");
  ConvertOptions o;
  o.infer = true;
  auto res = Convert({in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Types(res->schema),
            "id INT64, score DECIMAL(18,2), tag VARCHAR, at DATE, meta STRUCT<k: ARRAY<INT64>>");
  std::vector<std::string> rows = ReadBack();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "1|1.25|a|2024-05-01|{\"k\":[1,2]}");
  EXPECT_EQ(rows[1], "2|2.50|NULL|2024-05-02|{\"k\":[]}");
  EXPECT_EQ(rows[2], "3|-0.75|NULL|2024-05-03|NULL");

  res = Convert({in}, {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  rows = ReadBack();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "1|1.25|a|2024-05-01|{\"k\":[1,2]}");
}

TEST_F(ConvertTest, ParquetInputKeepsItsTypesAndCastsOverrides) {
  auto schema = Schema::Parse("id INT64 NOT NULL, v DECIMAL(9,3), s VARCHAR, d DATE");
  ASSERT_TRUE(schema.ok());
  RecordBatch b;
  b.schema = *schema;
  b.num_rows = 3;
  Column id(DataType::Int64()), v(DataType::Decimal(9, 3)), s(DataType::Varchar()),
      d(DataType::Date());
  for (int i = 0; i < 3; ++i) {
    id.AppendFixed<int64_t>(100 + i);
    if (i == 1) {
      v.AppendNull();
    } else {
      v.AppendFixed<int128>(i * 1234 - 5);
    }
    s.AppendBytes("s" + std::to_string(i));
    d.AppendFixed<int32_t>(19000 + i);
  }
  b.columns.push_back(std::move(id));
  b.columns.push_back(std::move(v));
  b.columns.push_back(std::move(s));
  b.columns.push_back(std::move(d));
  std::string in = (fs::path(dir_) / "in.parquet").string();
  {
    auto sink = CreateLocalFile(in);
    ASSERT_TRUE(sink.ok());
    auto w = parquet::FileWriter::Open(std::move(*sink), *schema);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    Status st = (*w)->Write(b);
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto res = Convert({in}, {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Types(res->schema), "id INT64, v DECIMAL(9,3), s VARCHAR, d DATE");
  std::vector<std::string> rows = ReadBack();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], "100|-0.005|s0|2022-01-08");
  EXPECT_EQ(rows[1], "101|NULL|s1|2022-01-09");
  EXPECT_EQ(rows[2], "102|2.463|s2|2022-01-10");

  ConvertOptions o;
  o.types = {{"id", "VARCHAR"}, {"v", "DOUBLE"}};
  res = Convert({in, in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 6);
  Schema written;
  rows = ReadBack(&written);
  EXPECT_EQ(Types(written), "id VARCHAR, v FLOAT64, s VARCHAR, d DATE");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[5], "102|2.463|s2|2022-01-10");
}

TEST_F(ConvertTest, SeveralInputsOfMixedFormatsAndCompression) {
  std::string a = Write("a.csv", "id,name\n1,one\n2,two\n");
  std::string b =
      Write("b.ndjson", "{\"id\":3,\"name\":\"three\"}\n{\"name\":\"four\",\"id\":4}\n");
  std::string plain = "name;id\nfive;5\n";
  ByteBuffer z;
  ASSERT_TRUE(Compress(CompressionCodec::kZstd, reinterpret_cast<const uint8_t*>(plain.data()),
                       plain.size(), &z)
                  .ok());
  std::string c =
      Write("c.csv.zst", std::string_view(reinterpret_cast<const char*>(z.data()), z.size()));
  ConvertOptions o;
  o.infer = true;
  std::vector<int64_t> done;
  o.progress = [&](int64_t d, int64_t total) {
    done.push_back(d);
    EXPECT_LE(d, total);
  };
  auto res = Convert({a, b, c}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(res->rows, 5);
  ASSERT_FALSE(done.empty());
  for (size_t i = 1; i < done.size(); ++i) EXPECT_GE(done[i], done[i - 1]);
  EXPECT_EQ(done.back(), res->input_bytes);
  EXPECT_EQ(res->input_bytes,
            static_cast<int64_t>(fs::file_size(a) + fs::file_size(b) + fs::file_size(c)));
  EXPECT_EQ(Types(res->schema), "id INT64, name VARCHAR");
  EXPECT_EQ(ReadBack(),
            (std::vector<std::string>{"1|one", "2|two", "3|three", "4|four", "5|five"}));
}

TEST_F(ConvertTest, LaterInputWithAnotherColumnIsRefused) {
  std::string a = Write("a.csv", "id,name\n1,one\n");
  std::string b = Write("b.csv", "id,name,extra\n2,two,x\n");
  auto res = Convert({a, b}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(FieldOf(res.status(), "code"), "column_undeclared");
  EXPECT_EQ(FieldOf(res.status(), "column"), "extra");
  EXPECT_EQ(FieldOf(res.status(), "file"), b);
  EXPECT_FALSE(fs::exists(Out()));
}

TEST_F(ConvertTest, MalformedAndMissingInputs) {
  auto res = Convert({(fs::path(dir_) / "absent.csv").string()}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().kind(), ErrorKind::kNotFound);

  res = Convert({Write("notes.txt", "a,b\n1,2\n")}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(FieldOf(res.status(), "code"), "format_unreadable");

  // The second row has too many fields.
  res = Convert({Write("ragged.csv", "a,b\n1,2\n3,4,5\n")}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(FieldOf(res.status(), "code"), "format_unreadable");

  res = Convert({Write("fake.parquet", "PAR1 this is not parquet PAR1")}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(FieldOf(res.status(), "code"), "format_unreadable");

  res = Convert({}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_FALSE(fs::exists(Out()));
}

TEST_F(ConvertTest, CodecIsTheOneAsked) {
  std::string in = Write("orders.csv", kOrders);
  const std::pair<CompressionCodec, parquet::Codec> codecs[] = {
      {CompressionCodec::kNone, parquet::Codec::UNCOMPRESSED},
      {CompressionCodec::kSnappy, parquet::Codec::SNAPPY},
      {CompressionCodec::kGzip, parquet::Codec::GZIP},
      {CompressionCodec::kZstd, parquet::Codec::ZSTD},
      {CompressionCodec::kLz4Raw, parquet::Codec::LZ4_RAW},
      {CompressionCodec::kBrotli, parquet::Codec::BROTLI}};
  for (auto [codec, expected] : codecs) {
    ConvertOptions o;
    o.infer = true;
    o.codec = codec;
    auto res = Convert({in}, o);
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    auto file = OpenLocalFile(Out());
    ASSERT_TRUE(file.ok());
    auto md = parquet::FileReader::ReadFooter(**file);
    ASSERT_TRUE(md.ok());
    ASSERT_FALSE(md->row_groups.empty());
    ASSERT_TRUE(md->row_groups[0].columns[0].meta_data.has_value());
    EXPECT_EQ(md->row_groups[0].columns[0].meta_data->codec, expected)
        << CompressionCodecName(codec);
    EXPECT_EQ(ReadBack().size(), 3u);
  }
}

TEST_F(ConvertTest, FieldIdsAreOneToNByPositionThenArrayElements) {
  // As `tarn dataset create --schema` numbers the same columns (Schema::Parse).
  std::string in = Write("e.ndjson",
                         "{\"id\":1,\"tags\":[\"a\"],\"n\":2,\"more\":[1,2]}\n"
                         "{\"id\":2,\"tags\":[],\"n\":3,\"more\":null}\n");
  ConvertOptions o;
  o.infer = true;
  o.types = {{"tags", "ARRAY<VARCHAR>"}, {"more", "ARRAY<INT64>"}};
  auto res = Convert({in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Ids(res->schema), "id:1, tags:2/5, n:3, more:4/6");
  auto parsed = Schema::Parse("id INT64, tags ARRAY<VARCHAR>, n INT64, more ARRAY<INT64>");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(Ids(res->schema), Ids(*parsed));
  Schema written;
  ReadBack(&written);
  EXPECT_EQ(Ids(written), Ids(res->schema));

  // Without inference too (text columns).
  res = Convert({Write("c.csv", "b,a\n1,2\n")}, {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Ids(res->schema), "b:1, a:2");
  ReadBack(&written);
  EXPECT_EQ(Ids(written), "b:1, a:2");
}

TEST_F(ConvertTest, DeclaredSchemaGivesTypesAndFieldIds) {
  // A dataset's schema (ids as evolution left them) applied to a CSV whose columns come in
  // another order and lack one nullable column.
  auto declared = SchemaFromJson(
      R"j({"fields":[{"id":7,"name":"id","type":"INT64","nullable":false},)j"
      R"j({"id":3,"name":"amount","type":"DECIMAL(10,2)","nullable":true},)j"
      R"j({"id":12,"name":"tags","type":"ARRAY<VARCHAR>","nullable":true,"element_id":13,)j"
      R"j("element_nullable":true},)j"
      R"j({"id":9,"name":"note","type":"VARCHAR","nullable":true}]})j");
  ASSERT_TRUE(declared.ok()) << declared.status().ToString();
  std::string in = Write("d.csv", "AMOUNT;id;note\n1.5;1;x\n;2;\n");
  ConvertOptions o;
  o.schema = *declared;
  auto res = Convert({in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Types(res->schema),
            "id INT64, amount DECIMAL(10,2), tags ARRAY<VARCHAR>, note VARCHAR");
  EXPECT_EQ(Ids(res->schema), "id:7, amount:3, tags:12/13, note:9");
  Schema written;
  std::vector<std::string> rows = ReadBack(&written);
  EXPECT_EQ(Ids(written), "id:7, amount:3, tags:12/13, note:9");
  EXPECT_FALSE(written.fields[0].nullable);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "1|1.50|NULL|x");
  EXPECT_EQ(rows[1], "2|NULL|NULL|NULL");

  // Converted again without a schema, that file's ids are not kept: 1..N by position.
  std::string pq = (fs::path(dir_) / "declared.parquet").string();
  ASSERT_TRUE(fs::copy_file(Out(), pq));
  res = Convert({pq}, {});
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Ids(res->schema), "id:1, amount:2, tags:3/5, note:4");

  // Fields without ids get fresh ones above the largest given (Schema::Parse text: 1..N).
  Schema partly = *declared;
  partly.fields[1].field_id = -1;
  {
    std::vector<Field> element = partly.fields[2].type.children();
    element[0].field_id = -1;
    partly.fields[2].type = partly.fields[2].type.WithChildren(std::move(element));
  }
  o.schema = partly;
  res = Convert({in}, o);
  ASSERT_TRUE(res.ok()) << res.status().ToString();
  EXPECT_EQ(Ids(res->schema), "id:7, amount:13, tags:12/14, note:9");

  // An input column the schema does not declare is refused, as uploads refuse it.
  auto narrow = Schema::Parse("id INT64, note VARCHAR");
  ASSERT_TRUE(narrow.ok());
  o.schema = *narrow;
  res = Convert({in}, o);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(FieldOf(res.status(), "code"), "column_undeclared");

  // A declared schema says every type: --type and --infer are refused with it, as are
  // duplicate and non-positive ids.
  o.schema = *declared;
  o.infer = true;
  EXPECT_EQ(Convert({in}, o).status().kind(), ErrorKind::kInvalidArgument);
  o.infer = false;
  o.types = {{"id", "INT32"}};
  EXPECT_EQ(Convert({in}, o).status().kind(), ErrorKind::kInvalidArgument);
  o.types.clear();
  Schema dup = *declared;
  dup.fields[1].field_id = 7;
  o.schema = dup;
  res = Convert({in}, o);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.status().message().find("duplicate field id 7"), std::string::npos)
      << res.status().ToString();
  dup.fields[1].field_id = 0;
  o.schema = dup;
  EXPECT_FALSE(Convert({in}, o).ok());
}

}  // namespace
}  // namespace tarn::upload
