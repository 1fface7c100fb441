// VARIANT columns through tarn's Parquet writer and reader: the unshredded group and its
// annotation, the exact bytes of every value, and the files tarn refuses or finds corrupt.
#include "types/variant.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/hex.h"
#include "common/io.h"
#include "parquet/reader.h"
#include "parquet/schema.h"
#include "parquet/writer.h"
#include "types/value_text.h"

namespace tarn::parquet {
namespace {

// Values in the spec's encoding (parquet-testing's variant/ vectors among them): a primitive of
// each width, a long string, an object and a nested array.
const std::vector<std::pair<std::string, std::string>>& SampleValues() {
  static const auto* v = new std::vector<std::pair<std::string, std::string>>{
      {"010000", "00"},
      {"010000", "0c2a"},
      {"010000", "2402d202964900000000"},
      {"010000", "4815413a6cb7af0518"},
      {"010000", "50f24f9b6481fa49d1b74e8c09a6e31c56"},
      {"010000", "3c09000000031337deadbeefcafe"},
      {"01040002070c1069647468696e676e616d657374797065",
       "0303002526450202000100021e0c0102010200170302000b1229436f6e7472617269616e195370696465"
       "72000203000203000502160c02096966030300060a0b154170706c650d52617900"},
  };
  return *v;
}

struct File {
  std::string bytes;
  FileMetaData md;
};

Result<File> Write(const RecordBatch& batch, WriterOptions options = {}) {
  auto mem = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* raw = mem.get();
  TARN_ASSIGN_OR_RETURN(auto w, FileWriter::Open(std::move(mem), batch.schema, options));
  TARN_RETURN_NOT_OK(w->Write(batch));
  TARN_RETURN_NOT_OK(w->Close());
  File f;
  f.bytes = raw->bytes();
  TARN_ASSIGN_OR_RETURN(f.md, FileReader::ReadFooter(*MemoryFile(f.bytes)));
  return f;
}

Result<RecordBatch> ReadBack(const std::string& bytes) {
  TARN_ASSIGN_OR_RETURN(auto r, FileReader::Open(MemoryFile(bytes, "v.parquet")));
  return r->ReadAll();
}

// The file with its footer replaced by `md` (the pages stay where they are).
std::string WithFooter(const std::string& bytes, const FileMetaData& md) {
  uint32_t len;
  std::memcpy(&len, bytes.data() + bytes.size() - 8, 4);
  std::string out = bytes.substr(0, bytes.size() - 8 - len);
  ByteBuffer footer;
  EncodeFileMetaData(md, &footer);
  out.append(reinterpret_cast<const char*>(footer.data()), footer.size());
  const uint32_t n = static_cast<uint32_t>(footer.size());
  out.append(reinterpret_cast<const char*>(&n), 4);
  out.append("PAR1");
  return out;
}

// One row per sample value, every third row null; `v` nullable, `w` NOT NULL.
RecordBatch VariantBatch(int rows) {
  RecordBatch b;
  b.schema = *Schema::Parse("id INT64, v VARIANT, w VARIANT NOT NULL");
  b.columns.emplace_back(DataType::Int64());
  b.columns.emplace_back(DataType::Variant());
  b.columns.emplace_back(DataType::Variant());
  const auto& values = SampleValues();
  for (int i = 0; i < rows; ++i) {
    const auto& [m, v] = values[static_cast<size_t>(i) % values.size()];
    b.columns[0].AppendFixed<int64_t>(i);
    if (i % 3 == 2) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendVariant(*HexDecode(m), *HexDecode(v));
    }
    const auto& [m2, v2] = values[static_cast<size_t>(i + 3) % values.size()];
    b.columns[2].AppendVariant(*HexDecode(m2), *HexDecode(v2));
  }
  b.num_rows = rows;
  return b;
}

void ExpectSameVariants(const Column& want, const Column& got) {
  ASSERT_EQ(got.type.id(), TypeId::kVariant);
  ASSERT_EQ(got.length, want.length);
  ASSERT_EQ(got.members.size(), 2u);
  for (int64_t i = 0; i < want.length; ++i) {
    ASSERT_EQ(got.IsValid(i), want.IsValid(i)) << i;
    if (!want.IsValid(i)) continue;
    EXPECT_EQ(got.members[0].StringAt(i), want.members[0].StringAt(i)) << i;
    EXPECT_EQ(got.members[1].StringAt(i), want.members[1].StringAt(i)) << i;
  }
}

TEST(ParquetVariant, RoundTripsEveryByteInPagesAndRowGroups) {
  RecordBatch b = VariantBatch(50);
  for (int version : {1, 2}) {
    WriterOptions o;
    o.data_page_rows = 4;
    o.row_group_rows = 17;
    o.data_page_version = version;
    Result<File> f = Write(b, o);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    Result<RecordBatch> back = ReadBack(f->bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->schema.ToString(), "id INT64, v VARIANT, w VARIANT NOT NULL");
    ExpectSameVariants(b.columns[1], back->columns[1]);
    ExpectSameVariants(b.columns[2], back->columns[2]);
    // A row selection reads the same rows.
    auto r = FileReader::Open(MemoryFile(f->bytes));
    ASSERT_TRUE(r.ok());
    RowSelection sel((*r)->num_row_groups());
    sel[1] = {{2, 9}};
    Result<RecordBatch> some = (*r)->ReadRows(sel);
    ASSERT_TRUE(some.ok()) << some.status().ToString();
    Column want(DataType::Variant());
    want.AppendRows(b.columns[1], 17 + 2, 17 + 9);
    ExpectSameVariants(want, some->columns[1]);
  }
}

TEST(ParquetVariant, WritesTheUnshreddedGroupWithoutStatistics) {
  Result<File> f = Write(VariantBatch(5));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::vector<SchemaElement>& s = f->md.schema;
  ASSERT_EQ(s.size(), 8u);  // root, id, v {metadata, value}, w {metadata, value}
  const SchemaElement& v = s[2];
  EXPECT_EQ(v.name, "v");
  EXPECT_FALSE(v.type.has_value());
  EXPECT_EQ(v.num_children, 2);
  EXPECT_EQ(v.repetition_type, Repetition::OPTIONAL);
  EXPECT_EQ(v.field_id, 2);
  ASSERT_TRUE(v.logical_type.has_value());
  EXPECT_EQ(v.logical_type->kind, LogicalType::VARIANT);
  EXPECT_EQ(v.logical_type->variant_version, 1);
  EXPECT_FALSE(v.converted_type.has_value());
  EXPECT_EQ(s[5].repetition_type, Repetition::REQUIRED);  // w
  for (size_t i : {3u, 4u, 6u, 7u}) {
    EXPECT_EQ(s[i].name, i % 3 == 0 ? "metadata" : "value");
    EXPECT_EQ(s[i].type, Type::BYTE_ARRAY);
    EXPECT_EQ(s[i].repetition_type, Repetition::REQUIRED);
    EXPECT_FALSE(s[i].field_id.has_value());
    EXPECT_FALSE(s[i].logical_type.has_value());
  }
  const RowGroup& rg = f->md.row_groups[0];
  ASSERT_EQ(rg.columns.size(), 5u);
  EXPECT_TRUE(rg.columns[0].meta_data->statistics.has_value());
  for (size_t c = 1; c < 5; ++c) {
    EXPECT_FALSE(rg.columns[c].meta_data->statistics.has_value()) << c;
    EXPECT_FALSE(rg.columns[c].column_index_offset.has_value()) << c;
  }
  // The decoded annotation survives a footer round trip (VariantType.specification_version).
  Result<ParquetSchema> ps = SchemaFromParquet(f->md);
  ASSERT_TRUE(ps.ok());
  EXPECT_EQ(ps->schema.fields[1].type, DataType::Variant());
  EXPECT_EQ(ps->field_leaves[1].size(), 2u);
  EXPECT_TRUE(ps->unsupported[1].empty());
}

// A file whose group `v` is STRUCT<...> written by tarn, then annotated VARIANT in the footer.
File Annotated(const char* schema, const std::vector<std::vector<std::string>>& rows) {
  RecordBatch b;
  b.schema = *Schema::Parse(schema);
  b.columns.emplace_back(b.schema.fields[0].type);
  for (const auto& row : rows) {
    Column& s = b.columns[0];
    for (size_t k = 0; k < row.size(); ++k) s.members[k].AppendBytes(*HexDecode(row[k]));
    s.AppendStructRow();
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  Result<File> f = Write(b);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  LogicalType lt;
  lt.kind = LogicalType::VARIANT;
  lt.variant_version = 1;
  f->md.schema[1].logical_type = lt;
  f->bytes = WithFooter(f->bytes, f->md);
  return *f;
}

TEST(ParquetVariant, ReadsLeavesInEitherOrder) {
  File f = Annotated("v STRUCT<value: BLOB NOT NULL, metadata: BLOB NOT NULL>",
                     {{"0c2a", "010000"}, {"020100000104", "0101000161"}});
  Result<RecordBatch> back = ReadBack(f.bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->columns[0].type, DataType::Variant());
  EXPECT_EQ(ValueText(back->columns[0], 0), "42");
  EXPECT_EQ(ValueText(back->columns[0], 1), R"({"a":true})");
}

TEST(ParquetVariant, MalformedBytesAreCorruptionNamingTheField) {
  File f = Annotated("v STRUCT<metadata: BLOB NOT NULL, value: BLOB NOT NULL>",
                     {{"010000", "0c2a"}, {"010000", "0c"}});
  Result<RecordBatch> back = ReadBack(f.bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(back.status().message().find("field 'v'"), std::string::npos)
      << back.status().message();
  EXPECT_NE(back.status().message().find("row 1"), std::string::npos) << back.status().message();
  EXPECT_NE(back.status().message().find("malformed VARIANT"), std::string::npos);
}

TEST(ParquetVariant, ShreddedAndOddGroupsAreUnsupportedByName) {
  struct Case {
    const char* schema;
    std::vector<std::string> row;
    const char* why;
  } cases[] = {
      {"v STRUCT<metadata: BLOB NOT NULL, value: BLOB, typed_value: INT64>",
       {"010000", "0c2a"},
       "shredded"},
      {"v STRUCT<metadata: BLOB NOT NULL, value: BLOB>", {"010000", "0c2a"}, "required binary"},
      {"v STRUCT<metadata: BLOB NOT NULL, other: BLOB NOT NULL>",
       {"010000", "0c2a"},
       "required binary"},
      {"v STRUCT<metadata: BLOB NOT NULL>", {"010000"}, "required binary"},
      {"v STRUCT<metadata: BLOB NOT NULL, value: INT64 NOT NULL>", {"010000"}, "required binary"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema);
    RecordBatch b;
    b.schema = *Schema::Parse(c.schema);
    b.columns.emplace_back(b.schema.fields[0].type);
    Column& s = b.columns[0];
    for (size_t k = 0; k < s.members.size(); ++k) {
      if (k < c.row.size()) {
        s.members[k].AppendBytes(*HexDecode(c.row[k]));
      } else if (b.schema.fields[0].type.children()[k].nullable) {
        s.members[k].AppendNull();
      } else {
        s.members[k].AppendFixed<int64_t>(1);
      }
    }
    s.AppendStructRow();
    b.num_rows = 1;
    Result<File> f = Write(b);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    LogicalType lt;
    lt.kind = LogicalType::VARIANT;
    f->md.schema[1].logical_type = lt;
    Result<ParquetSchema> ps = SchemaFromParquet(f->md);
    ASSERT_TRUE(ps.ok());
    EXPECT_NE(ps->unsupported[0].find(c.why), std::string::npos) << ps->unsupported[0];
    EXPECT_NE(ps->unsupported[0].find("'v'"), std::string::npos) << ps->unsupported[0];
  }
  // Another specification version, and a VARIANT below a struct.
  File f =
      Annotated("v STRUCT<metadata: BLOB NOT NULL, value: BLOB NOT NULL>", {{"010000", "0c2a"}});
  f.md.schema[1].logical_type->variant_version = 2;
  EXPECT_NE(SchemaFromParquet(f.md)->unsupported[0].find("version 2"), std::string::npos);
  RecordBatch nested;
  nested.schema =
      *Schema::Parse("s STRUCT<v: STRUCT<metadata: BLOB NOT NULL, value: BLOB NOT NULL>>");
  nested.columns.emplace_back(nested.schema.fields[0].type);
  Column& inner = nested.columns[0].members[0];
  inner.members[0].AppendBytes(*HexDecode("010000"));
  inner.members[1].AppendBytes(*HexDecode("00"));
  inner.AppendStructRow();
  nested.columns[0].AppendStructRow();
  nested.num_rows = 1;
  Result<File> nf = Write(nested);
  ASSERT_TRUE(nf.ok());
  LogicalType lt;
  lt.kind = LogicalType::VARIANT;
  nf->md.schema[2].logical_type = lt;
  EXPECT_NE(SchemaFromParquet(nf->md)->unsupported[0].find("below another column"),
            std::string::npos);
}

TEST(ParquetVariant, RefusesVariantBelowAnotherColumnWhenWriting) {
  Schema schema;
  Field v;
  v.name = "s";
  Field m;
  m.name = "v";
  m.type = DataType::Variant();
  v.type = DataType::Struct({m});
  schema.fields.push_back(v);
  EXPECT_FALSE(SchemaToParquet(schema).ok());
}

}  // namespace
}  // namespace tarn::parquet
