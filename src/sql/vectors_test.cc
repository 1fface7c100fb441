// The copies between tarn columns and DuckDB vectors (vectors.h), through the real library: a
// tarn RecordBatch is handed to DuckDB by a table function that declares its columns with
// DuckTypeOf and fills them with WriteVector (what tarn_scan does), DuckDB's own functions read
// the values (so a wrong write shows in DuckDB's answer, not only after reading back), and
// results come back through TarnTypeOf and ReadVector (what the engine does).
#include "sql/vectors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catalog/test_fixture.h"
#include "types/value_text.h"

namespace tarn::sql {
namespace {

// A value to append to a column: null, an integer, text, a list (ARRAY elements, or MAP entries
// each a two-field {key, value}), or fields (STRUCT members in order).
struct V {
  enum class Kind { kNull, kInt, kText, kList, kFields } kind = Kind::kNull;
  int64_t i = 0;
  std::string text;
  std::vector<V> items;

  V() = default;
  V(int v) : kind(Kind::kInt), i(v) {}      // NOLINT: literals read best in the tables below
  V(int64_t v) : kind(Kind::kInt), i(v) {}  // NOLINT
  V(const char* v) : kind(Kind::kText), text(v) {}  // NOLINT
  static V List(std::vector<V> items) {
    V v;
    v.kind = Kind::kList;
    v.items = std::move(items);
    return v;
  }
  static V Fields(std::vector<V> items) {
    V v;
    v.kind = Kind::kFields;
    v.items = std::move(items);
    return v;
  }
};
const V kNull;

void Append(const V& v, Column* c) {
  if (v.kind == V::Kind::kNull) return c->AppendNull();
  switch (c->type.id()) {
    case TypeId::kInt32:
      return c->AppendFixed<int32_t>(static_cast<int32_t>(v.i));
    case TypeId::kInt64:
      return c->AppendFixed<int64_t>(v.i);
    case TypeId::kVarchar:
      return c->AppendBytes(v.text);
    case TypeId::kArray:
      for (const V& e : v.items) Append(e, c->child.get());
      return c->AppendArrayRow();
    case TypeId::kMap:
      for (const V& e : v.items) {
        Append(e.items.at(0), &c->members[0]);
        Append(e.items.at(1), &c->members[1]);
      }
      return c->AppendArrayRow();
    case TypeId::kStruct:
      for (size_t k = 0; k < c->members.size(); ++k) Append(v.items.at(k), &c->members[k]);
      return c->AppendStructRow();
    default:
      FAIL() << "the test builds no " << c->type.ToString();
  }
}

RecordBatch MakeBatch(const std::string& schema, const std::vector<std::vector<V>>& rows) {
  RecordBatch b;
  b.schema = *Schema::Parse(schema);
  for (const Field& f : b.schema.fields) b.columns.emplace_back(f.type);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) Append(row[c], &b.columns[c]);
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  return b;
}

// Marks row `row` of a STRUCT column null, keeping the values its members hold there (a STRUCT
// column may: column.h), which DuckDB must still see as null.
void NullStructRowKeepingMembers(Column* c, int64_t row) {
  if (c->validity.empty()) c->validity.assign(static_cast<size_t>(c->length), 1);
  c->validity[row] = 0;
}

std::string Text(const Column& c, int64_t row) {
  return c.IsValid(row) ? ValueText(c, row) : "NULL";
}

// The batch's rows as DuckDB's table function nested_batch().
struct BatchScan {
  const RecordBatch* batch = nullptr;
  int64_t offset = 0;
};

const DuckDbApi& Api() { return **LoadDuckDb(); }

void BatchBind(duckdb_bind_info info) {
  const DuckDbApi& api = Api();
  auto* batch = static_cast<const RecordBatch*>(api.duckdb_bind_get_extra_info(info));
  for (const Field& f : batch->schema.fields) {
    duckdb_logical_type t = DuckTypeOf(api, f.type);
    api.duckdb_bind_add_result_column(info, f.name.c_str(), t);
    api.duckdb_destroy_logical_type(&t);
  }
  api.duckdb_bind_set_bind_data(info, const_cast<RecordBatch*>(batch), nullptr);
}

void BatchInit(duckdb_init_info info) {
  const DuckDbApi& api = Api();
  auto* scan = new BatchScan;
  scan->batch = static_cast<const RecordBatch*>(api.duckdb_init_get_bind_data(info));
  api.duckdb_init_set_init_data(info, scan, [](void* p) { delete static_cast<BatchScan*>(p); });
}

void BatchFunction(duckdb_function_info info, duckdb_data_chunk output) {
  const DuckDbApi& api = Api();
  auto* scan = static_cast<BatchScan*>(api.duckdb_function_get_init_data(info));
  const RecordBatch& b = *scan->batch;
  const int64_t n =
      std::min(static_cast<int64_t>(api.duckdb_vector_size()), b.num_rows - scan->offset);
  for (size_t c = 0; c < b.columns.size() && n > 0; ++c) {
    WriteVector(api, api.duckdb_data_chunk_get_vector(output, c), b.columns[c], scan->offset, n);
  }
  scan->offset += n;
  api.duckdb_data_chunk_set_size(output, static_cast<idx_t>(n));
}

class VectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = LoadDuckDb();
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    api_ = *loaded;
    char* error = nullptr;
    duckdb_config config = nullptr;
    ASSERT_EQ(api_->duckdb_create_config(&config), DuckDBSuccess);
    ASSERT_EQ(api_->duckdb_open_ext(nullptr, &db_, config, &error), DuckDBSuccess)
        << (error ? error : "");
    api_->duckdb_destroy_config(&config);
    ASSERT_EQ(api_->duckdb_connect(db_, &con_), DuckDBSuccess);
  }
  void TearDown() override {
    if (con_) api_->duckdb_disconnect(&con_);
    if (db_) api_->duckdb_close(&db_);
  }

  // Registers `batch` (which must outlive the queries) as nested_batch().
  void Register(const RecordBatch* batch) {
    duckdb_table_function fn = api_->duckdb_create_table_function();
    api_->duckdb_table_function_set_name(fn, "nested_batch");
    api_->duckdb_table_function_set_extra_info(fn, const_cast<RecordBatch*>(batch), nullptr);
    api_->duckdb_table_function_set_bind(fn, BatchBind);
    api_->duckdb_table_function_set_init(fn, BatchInit);
    api_->duckdb_table_function_set_function(fn, BatchFunction);
    ASSERT_EQ(api_->duckdb_register_table_function(con_, fn), DuckDBSuccess);
    api_->duckdb_destroy_table_function(&fn);
  }

  // Runs `sql`: its result as one tarn batch (schema from TarnTypeOf, rows from ReadVector).
  Result<RecordBatch> Query(const std::string& sql) {
    duckdb_result result;
    if (api_->duckdb_query(con_, sql.c_str(), &result) != DuckDBSuccess) {
      std::string e = api_->duckdb_result_error(&result);
      api_->duckdb_destroy_result(&result);
      return Status::InvalidArgument(sql + ": " + e);
    }
    RecordBatch out;
    std::vector<duckdb_logical_type> logical;
    Status st;
    for (idx_t c = 0; c < api_->duckdb_column_count(&result); ++c) {
      logical.push_back(api_->duckdb_column_logical_type(&result, c));
      Field f;
      f.name = api_->duckdb_column_name(&result, c);
      auto type = TarnTypeOf(*api_, logical.back(), f.name);
      if (!type.ok()) {
        st = type.status();
        break;
      }
      f.type = *type;
      out.schema.fields.push_back(f);
      out.columns.emplace_back(f.type);
    }
    while (st.ok()) {
      duckdb_data_chunk chunk = api_->duckdb_fetch_chunk(result);
      if (!chunk) break;
      const int64_t n = static_cast<int64_t>(api_->duckdb_data_chunk_get_size(chunk));
      for (size_t c = 0; c < out.columns.size() && st.ok(); ++c) {
        st = ReadVector(*api_, api_->duckdb_data_chunk_get_vector(chunk, c), logical[c], n,
                        &out.columns[c]);
      }
      out.num_rows += n;
      api_->duckdb_destroy_data_chunk(&chunk);
    }
    for (auto& t : logical) api_->duckdb_destroy_logical_type(&t);
    api_->duckdb_destroy_result(&result);
    TARN_RETURN_NOT_OK(st);
    return out;
  }
  // The rows of `sql` as text (ValueText: nested values as JSON), "NULL" for null.
  std::vector<std::vector<std::string>> Rows(const std::string& sql) {
    auto r = Query(sql);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::vector<std::string>> rows;
    if (!r.ok()) return rows;
    for (int64_t i = 0; i < r->num_rows; ++i) {
      std::vector<std::string> row;
      for (const Column& c : r->columns) row.push_back(Text(c, i));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  const DuckDbApi* api_ = nullptr;
  duckdb_database db_ = nullptr;
  duckdb_connection con_ = nullptr;
};

using Table = std::vector<std::vector<std::string>>;

const char kSchema[] =
    "id INT32, s STRUCT<a: INT64, tags: ARRAY<VARCHAR>, inner: STRUCT<x: VARCHAR>>, "
    "m MAP<VARCHAR, INT64>, ll ARRAY<ARRAY<INT32>>, ls ARRAY<STRUCT<q: INT32, r: VARCHAR>>, "
    "mm MAP<INT32, STRUCT<p: ARRAY<INT64>>>";

std::vector<std::vector<V>> SampleRows() {
  using L = std::vector<V>;
  return {
      {0, V::Fields({1, V::List({"x", "y"}), V::Fields({"a string over twelve bytes"})}),
       V::List({V::Fields({"k", 1}), V::Fields({"j", 2})}),
       V::List({V::List({1, 2}), V::List({}), kNull, V::List({kNull, 3})}),
       V::List({V::Fields({1, "one"}), kNull, V::Fields({kNull, kNull})}),
       V::List({V::Fields({7, V::Fields({V::List({70, 71})})})})},
      {1, kNull, kNull, kNull, kNull, kNull},
      {2, V::Fields({kNull, kNull, kNull}), V::List(L{}), V::List(L{}), V::List(L{}),
       V::List({V::Fields({8, kNull}), V::Fields({9, V::Fields({kNull})})})},
      // Row 3's struct is made null below while its members keep these values.
      {3, V::Fields({5, V::List({"hidden"}), V::Fields({"hidden"})}),
       V::List({V::Fields({"k", kNull})}), V::List({V::List({4})}),
       V::List({V::Fields({4, "four"})}), V::List(L{})},
  };
}

TEST_F(VectorsTest, TypesMapBothWays) {
  auto batch = MakeBatch(kSchema, SampleRows());
  Register(&batch);
  EXPECT_EQ(Rows("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM nested_batch())"),
            (Table{{"id", "INTEGER"},
                   {"s", "STRUCT(a BIGINT, tags VARCHAR[], \"inner\" STRUCT(x VARCHAR))"},
                   {"m", "MAP(VARCHAR, BIGINT)"},
                   {"ll", "INTEGER[][]"},
                   {"ls", "STRUCT(q INTEGER, r VARCHAR)[]"},
                   {"mm", "MAP(INTEGER, STRUCT(p BIGINT[]))"}}));
  auto r = Query("SELECT * FROM nested_batch() LIMIT 0");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->schema.ToString(), Schema::Parse(kSchema)->ToString());
  // DuckDB's unnamed structs: members by position.
  r = Query("SELECT (1, 'a') AS t, row(2, [3]) AS u");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->schema.ToString(),
            "t STRUCT<v1: INT32, v2: VARCHAR>, u STRUCT<v1: INT32, v2: "
            "ARRAY<INT32>>");
  // A type tarn lacks, however deep, names the column and where in it.
  r = Query("SELECT {'a': [MAP {1: INTERVAL 1 DAY}]} AS s");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(FieldOf(r.status(), "code"), "sql_unsupported_type");
  EXPECT_NE(r.status().message().find("s.a[].value"), std::string::npos) << r.status().message();
}

TEST_F(VectorsTest, DuckDbReadsNestedColumnsAsTarnWroteThem) {
  auto batch = MakeBatch(kSchema, SampleRows());
  NullStructRowKeepingMembers(&batch.columns[1], 3);
  Register(&batch);
  EXPECT_EQ(Rows("SELECT id, s.a, s.tags[2], s.inner.x, s IS NULL, s.inner IS NULL, m['k'], "
                 "cardinality(m), len(ll), ll[1][2], ll[3] IS NULL, ll[4][1] IS NULL, ls[1].r, "
                 "ls[2] IS NULL, mm[7].p[2] FROM nested_batch() ORDER BY id"),
            (Table{{"0", "1", "y", "a string over twelve bytes", "false", "false", "1", "2", "4",
                    "2", "true", "true", "one", "true", "71"},
                   {"1", "NULL", "NULL", "NULL", "true", "true", "NULL", "NULL", "NULL", "NULL",
                    "true", "true", "NULL", "true", "NULL"},
                   {"2", "NULL", "NULL", "NULL", "false", "true", "NULL", "0", "0", "NULL", "true",
                    "true", "NULL", "true", "NULL"},
                   {"3", "NULL", "NULL", "NULL", "true", "true", "NULL", "1", "1", "NULL", "true",
                    "true", "four", "true", "NULL"}}));
  // DuckDB's own text of each value.
  EXPECT_EQ(Rows("SELECT s::VARCHAR, m::VARCHAR, mm::VARCHAR FROM nested_batch() WHERE id = 0"),
            (Table{{"{'a': 1, 'tags': [x, y], 'inner': {'x': a string over twelve bytes}}",
                    "{k=1, j=2}", "{7={'p': [70, 71]}}"}}));
  // The members of the null struct are null to DuckDB too.
  EXPECT_EQ(Rows("SELECT count(*) FROM nested_batch() WHERE struct_extract(s, 'a') = 5"),
            (Table{{"0"}}));
}

TEST_F(VectorsTest, NestedValuesRoundTrip) {
  auto batch = MakeBatch(kSchema, SampleRows());
  Register(&batch);
  auto r = Query("SELECT * FROM nested_batch() ORDER BY id");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->num_rows, batch.num_rows);
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      EXPECT_EQ(Text(r->columns[c], i), Text(batch.columns[c], i))
          << batch.schema.fields[c].name << " row " << i;
    }
  }
  EXPECT_EQ(Text(r->columns[1], 0),
            R"({"a":1,"tags":["x","y"],"inner":{"x":"a string over twelve bytes"}})");
  EXPECT_EQ(Text(r->columns[2], 0), R"([{"key":"k","value":1},{"key":"j","value":2}])");
  EXPECT_EQ(Text(r->columns[3], 0), "[[1,2],[],null,[null,3]]");
  // A null struct row reads back with a null in every member.
  const Column& s = r->columns[1];
  EXPECT_FALSE(s.members[0].IsValid(1));
  EXPECT_FALSE(s.members[2].IsValid(1));
  EXPECT_FALSE(s.members[2].members[0].IsValid(1));
  EXPECT_TRUE(s.IsValid(2));
  EXPECT_FALSE(s.members[0].IsValid(2));
  EXPECT_TRUE(s.members[1].IsValid(0));
}

TEST_F(VectorsTest, ResultsDuckDbBuilds) {
  // Constant and computed nested values, lists whose elements DuckDB shares between rows or
  // lays out of order, enums and huge integers inside them.
  EXPECT_EQ(Rows("SELECT {'a': i, 'b': [i, NULL]} AS s, MAP {'k': i} AS m, [[1, 2], [3]] AS ll, "
                 "CASE WHEN i = 1 THEN NULL ELSE {'z': [{'y': i}]} END AS n FROM range(3) t(i)"),
            (Table{{R"({"a":0,"b":[0,null]})", R"([{"key":"k","value":0}])", "[[1,2],[3]]",
                    R"({"z":[{"y":0}]})"},
                   {R"({"a":1,"b":[1,null]})", R"([{"key":"k","value":1}])", "[[1,2],[3]]", "NULL"},
                   {R"({"a":2,"b":[2,null]})", R"([{"key":"k","value":2}])", "[[1,2],[3]]",
                    R"({"z":[{"y":2}]})"}}));
  EXPECT_EQ(
      Rows("SELECT list_reverse([[i], [i + 1, i + 2]]) AS l, "
           "{'e': 'b'::ENUM('a', 'b'), 'h': [99999999999999999999999999999999999999::HUGEINT]} "
           "AS x FROM range(2) t(i)"),
      (Table{{"[[1,2],[0]]", R"({"e":"b","h":["99999999999999999999999999999999999999"]})"},
             {"[[2,3],[1]]", R"({"e":"b","h":["99999999999999999999999999999999999999"]})"}}));
  EXPECT_EQ(Rows("SELECT MAP {1: [{'a': 'x'}], 2: []} AS m, MAP {} :: MAP(INT, INT) AS e"),
            (Table{{R"([{"key":1,"value":[{"a":"x"}]},{"key":2,"value":[]}])", "[]"}}));
}

TEST_F(VectorsTest, ManyRowsCrossChunks) {
  // 5000 rows: chunks of 2048, list children longer than a chunk, nulls at every level.
  std::vector<std::vector<V>> rows;
  for (int i = 0; i < 5000; ++i) {
    V s = i % 7 == 0 ? kNull
                     : V::Fields({i, V::List({"t", i % 3 == 0 ? kNull : V("u")}),
                                  i % 5 == 0 ? kNull : V::Fields({"in"})});
    V m = i % 11 == 0 ? kNull : V::List({V::Fields({"k", i}), V::Fields({"j", kNull})});
    V ll = V::List({V::List({i, kNull, i}), i % 2 ? kNull : V::List({})});
    V ls = V::List({V::Fields({i, kNull})});
    V mm = V::List({V::Fields({i, V::Fields({V::List({int64_t{1}, int64_t{2}})})})});
    rows.push_back({i, s, m, ll, ls, mm});
  }
  auto batch = MakeBatch(kSchema, rows);
  Register(&batch);
  EXPECT_EQ(Rows("SELECT count(*), count(s), sum(s.a), count(s.inner), sum(m['k']), "
                 "count(m['j']), sum(list_sum(ll[1])), count(ll[2]), sum(ls[1].q), "
                 "sum(list_sum(mm[id].p)) FROM nested_batch()"),
            (Table{{"5000", "4285", "10710715", "3428", "11361365", "0", "24995000", "2500",
                    "12497500", "15000"}}));
  auto r = Query("SELECT * FROM nested_batch()");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->num_rows, 5000);
  for (size_t c = 0; c < batch.columns.size(); ++c) {
    for (int64_t i = 0; i < batch.num_rows; ++i) {
      ASSERT_EQ(Text(r->columns[c], i), Text(batch.columns[c], i))
          << batch.schema.fields[c].name << " row " << i;
    }
  }
}

}  // namespace
}  // namespace tarn::sql
