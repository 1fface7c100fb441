// `tarn parquet schema|meta|cat|probe|write-sample`: inspect and produce Parquet files.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/cli.h"
#include "cli/sample_data.h"
#include "common/hex.h"
#include "common/io.h"
#include "datafile/reader.h"
#include "objectstore/object_store.h"
#include "parquet/bloom_filter.h"
#include "parquet/reader.h"
#include "parquet/stat_value.h"
#include "parquet/writer.h"
#include "render/cell_text.h"
#include "render/json_lines.h"
#include "table/field_path.h"
#include "table/predicate.h"
#include "table/schema_json.h"
#include "tarn/sort_order.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::cli {

namespace {

using nlohmann::json;
namespace pq = tarn::parquet;

Result<std::unique_ptr<pq::FileReader>> OpenParquet(const std::string& path) {
  TARN_ASSIGN_OR_RETURN(auto file, OpenInputFile(path));
  return pq::FileReader::Open(std::move(file));  // errors name the file already
}

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string PathString(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

// The element of the schema that carries a leaf's annotations.
const pq::SchemaElement& Element(const pq::FileMetaData& md, const pq::LeafColumn& leaf) {
  return md.schema[leaf.schema_index];
}

std::string LogicalString(const pq::SchemaElement& e) {
  if (e.logical_type && e.logical_type->kind != pq::LogicalType::NONE) {
    return pq::LogicalTypeName(*e.logical_type);
  }
  if (e.converted_type) return pq::ConvertedTypeName(*e.converted_type);
  return "";
}

Status SchemaCommand(const std::string& path, const GlobalOptions& g) {
  TARN_ASSIGN_OR_RETURN(auto reader, OpenParquet(path));
  const auto& md = reader->metadata();
  const auto& ps = reader->schema();
  json cols = json::array();
  std::vector<std::vector<std::string>> rows;
  for (size_t f = 0; f < ps.schema.fields.size(); ++f) {
    const Field& field = ps.schema.fields[f];
    const std::string& why = ps.unsupported[f];
    for (int li : ps.field_leaves[f]) {
      const pq::LeafColumn& leaf = ps.leaves[li];
      const pq::SchemaElement& e = Element(md, leaf);
      std::string type = why.empty() ? field.type.ToString() : "UNSUPPORTED";
      std::string physical = pq::TypeName(leaf.physical);
      if (leaf.physical == pq::Type::FIXED_LEN_BYTE_ARRAY) {
        physical += "(" + std::to_string(leaf.type_length) + ")";
      }
      json c = {{"name", field.name},
                {"path", PathString(leaf.path)},
                {"type", type},
                {"physical", physical},
                {"logical", LogicalString(e)},
                {"field_id", field.field_id >= 0 ? json(field.field_id) : json(nullptr)},
                {"nullable", field.nullable},
                {"max_definition_level", leaf.max_def_level},
                {"max_repetition_level", leaf.max_rep_level}};
      if (!why.empty()) c["unsupported"] = why;
      if (field.type.id() == TypeId::kArray && field.type.element_field().field_id >= 0) {
        c["element_field_id"] = field.type.element_field().field_id;
      }
      // Below a STRUCT or MAP, the id of the leaf's own field (a member, key or value).
      if (field.type.is_nested() && e.field_id) c["leaf_field_id"] = *e.field_id;
      cols.push_back(c);
      rows.push_back({field.name, type, physical, LogicalString(e),
                      field.field_id >= 0 ? std::to_string(field.field_id) : "",
                      field.nullable ? "yes" : "no", PathString(leaf.path)});
    }
  }
  if (g.json) {
    std::cout << Dump(json{{"file", path}, {"num_rows", md.num_rows}, {"columns", cols}}) << "\n";
  } else {
    PrintTable({"name", "type", "physical", "logical", "field_id", "nullable", "path"}, rows);
  }
  return Status::OK();
}

// Statistics bytes rendered as tarn values; undecodable bytes are shown as hex.
std::string StatValueText(const pq::FileMetaData& md, const pq::LeafColumn& leaf,
                          const DataType& type, const std::string& bytes) {
  auto col = pq::DecodeStatValue(md, leaf, type, bytes);
  if (col.ok()) return ValueText(*col, 0);
  return "0x" + HexEncode(bytes);
}

json StatsJson(const pq::FileMetaData& md, const pq::Statistics& st, const pq::LeafColumn& leaf,
               const DataType& type) {
  json j = json::object();
  if (st.null_count) j["null_count"] = *st.null_count;
  if (st.distinct_count) j["distinct_count"] = *st.distinct_count;
  const std::optional<std::string>& min = st.min_value ? st.min_value : st.min;
  const std::optional<std::string>& max = st.max_value ? st.max_value : st.max;
  if (min) j["min"] = StatValueText(md, leaf, type, *min);
  if (max) j["max"] = StatValueText(md, leaf, type, *max);
  if (st.is_min_value_exact) j["min_exact"] = *st.is_min_value_exact;
  if (st.is_max_value_exact) j["max_exact"] = *st.is_max_value_exact;
  return j;
}

// The chunk's page index as the footer locates it: "column_index"/"offset_index" objects
// ({"offset", "length"}) added to *cj when present; returns the table cell ("column 57 B,
// offset 24 B", "-" when there is none).
std::string PageIndexJson(const pq::ColumnChunk& chunk, json* cj) {
  std::string cell;
  auto add = [&](const char* key, const char* label, const std::optional<int64_t>& offset,
                 const std::optional<int32_t>& length) {
    if (!offset || !length) return;
    (*cj)[key] = {{"offset", *offset}, {"length", *length}};
    cell += (cell.empty() ? "" : ", ") + std::string(label) + " " + std::to_string(*length) + " B";
  };
  add("column_index", "column", chunk.column_index_offset, chunk.column_index_length);
  add("offset_index", "offset", chunk.offset_index_offset, chunk.offset_index_length);
  return cell.empty() ? "-" : cell;
}

// A chunk's bloom filter as `meta` shows it: where it is, its length (header and bitset, when
// the footer says) and its bitset's size (read from its header), or why it cannot be read.
json BloomFilterJson(const RandomAccessFile& file, const pq::ColumnMetaData& cm) {
  json j = {{"offset", *cm.bloom_filter_offset}};
  if (cm.bloom_filter_length) j["length"] = *cm.bloom_filter_length;
  auto filter = pq::ReadBloomFilter(file, cm);
  if (!filter.ok()) {
    j["error"] = filter.status().message();
  } else if (filter->has_value()) {
    j["bitset_bytes"] = (*filter)->num_bytes();
  }
  return j;
}

Status MetaCommand(const std::string& path, const GlobalOptions& g) {
  TARN_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> file, OpenInputFile(path));
  uint64_t size = file->Size();
  auto opened = pq::FileReader::Open(file);
  TARN_RETURN_NOT_OK(opened.status());
  auto reader = std::move(opened).value();
  const auto& md = reader->metadata();
  const auto& ps = reader->schema();
  json out = {{"file", path},
              {"size_bytes", size},
              {"version", md.version},
              {"created_by", md.created_by.value_or("")},
              {"num_rows", md.num_rows},
              {"num_row_groups", md.row_groups.size()},
              {"num_columns", ps.leaves.size()}};
  json kv = json::object();
  for (const auto& k : md.key_value_metadata) kv[k.key] = k.value.value_or("");
  out["key_value_metadata"] = kv;
  json rgs = json::array();
  std::vector<std::vector<std::string>> rows;
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    const auto& rg = md.row_groups[r];
    json cols = json::array();
    for (size_t c = 0; c < rg.columns.size() && c < ps.leaves.size(); ++c) {
      const auto& chunk = rg.columns[c];
      if (!chunk.meta_data) continue;
      const auto& cm = *chunk.meta_data;
      const pq::LeafColumn& leaf = ps.leaves[c];
      DataType type = leaf.field >= 0 && !leaf.nodes.empty()
                          ? pq::LeafTypeOf(ps.schema.fields[leaf.field].type, leaf)
                          : DataType::Blob();
      std::string encodings;
      json enc = json::array();
      for (auto e : cm.encodings) {
        enc.push_back(pq::EncodingName(e));
        encodings += (encodings.empty() ? "" : ",") + std::string(pq::EncodingName(e));
      }
      json cj = {{"path", PathString(cm.path_in_schema)},
                 {"physical", pq::TypeName(cm.type)},
                 {"codec", pq::CodecName(cm.codec)},
                 {"encodings", enc},
                 {"num_values", cm.num_values},
                 {"compressed_bytes", cm.total_compressed_size},
                 {"uncompressed_bytes", cm.total_uncompressed_size},
                 {"data_page_offset", cm.data_page_offset}};
      if (cm.dictionary_page_offset) cj["dictionary_page_offset"] = *cm.dictionary_page_offset;
      std::string min, max, nulls;
      if (cm.statistics) {
        json sj = StatsJson(md, *cm.statistics, leaf, type);
        cj["statistics"] = sj;
        if (sj.contains("min")) min = sj["min"].get<std::string>();
        if (sj.contains("max")) max = sj["max"].get<std::string>();
        if (sj.contains("null_count")) nulls = std::to_string(sj["null_count"].get<int64_t>());
      }
      std::string page_index = PageIndexJson(chunk, &cj);
      std::string bloom;
      if (cm.bloom_filter_offset) {
        json bj = BloomFilterJson(*file, cm);
        bloom = bj.contains("bitset_bytes") ? std::to_string(bj["bitset_bytes"].get<int64_t>())
                                            : "unreadable";
        cj["bloom_filter"] = std::move(bj);
      }
      cols.push_back(cj);
      rows.push_back({std::to_string(r), PathString(cm.path_in_schema), pq::TypeName(cm.type),
                      pq::CodecName(cm.codec), encodings, std::to_string(cm.num_values),
                      std::to_string(cm.total_compressed_size),
                      std::to_string(cm.total_uncompressed_size), nulls, min, max, page_index,
                      bloom});
    }
    rgs.push_back({{"index", r},
                   {"num_rows", rg.num_rows},
                   {"total_byte_size", rg.total_byte_size},
                   {"columns", cols}});
  }
  out["row_groups"] = rgs;
  if (g.json) {
    std::cout << Dump(out) << "\n";
    return Status::OK();
  }
  std::printf(
      "file           %s\nsize           %llu bytes\ncreated by     %s\nrows           %lld\n"
      "row groups     %zu\ncolumns        %zu\n\n",
      path.c_str(), static_cast<unsigned long long>(size), md.created_by.value_or("").c_str(),
      static_cast<long long>(md.num_rows), md.row_groups.size(), ps.leaves.size());
  PrintTable({"rg", "column", "physical", "codec", "encodings", "values", "compressed",
              "uncompressed", "nulls", "min", "max", "page index", "bloom"},
             rows);
  return Status::OK();
}

Result<std::vector<int>> ResolveColumns(const pq::ParquetSchema& ps, const std::string& spec) {
  std::vector<int> fields;
  if (spec.empty()) {
    for (size_t f = 0; f < ps.schema.fields.size(); ++f) {
      if (ps.unsupported[f].empty()) fields.push_back(static_cast<int>(f));
    }
    return fields;
  }
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    std::string name = spec.substr(start, comma - start);
    int idx = ps.schema.FieldIndex(name);
    if (idx < 0) {
      return Status::InvalidArgument("no column '" + name + "' in the file")
          .WithField("column", name);
    }
    if (!ps.unsupported[idx].empty()) {
      return Status::InvalidArgument("column '" + name + "': " + ps.unsupported[idx]);
    }
    fields.push_back(idx);
    start = comma + 1;
  }
  return fields;
}

struct CatOptions {
  std::string file, columns, where;
  int64_t limit = 0;
  bool stats = false;
};

// The file's fields as a schema predicates bind to: its field ids, or 1..N when it has none.
Schema BindableSchema(const pq::ParquetSchema& ps) {
  Schema s = ps.schema;
  bool ids = false;
  for (const Field& f : s.fields) ids = ids || f.field_id >= 0;
  if (!ids) {
    for (size_t i = 0; i < s.fields.size(); ++i) s.fields[i].field_id = static_cast<int32_t>(i + 1);
  }
  // STRUCT members without ids get some too, so `--where p.a = 1` binds (a file with duplicate
  // ids keeps them as they are).
  int32_t last = MaxFieldId(s);
  Schema with_nested = s;
  if (AssignFieldIds(&with_nested, &last).ok()) s = std::move(with_nested);
  return s;
}

// Reads row group `rg`: every row, or with a filter only the rows of `selection` that satisfy
// it (columns `fields`, then the filter's own columns `extra`, which are dropped).
Result<RecordBatch> ReadCatGroup(const pq::FileReader& reader, int rg,
                                 const std::vector<int>& fields, const std::vector<int>& extra,
                                 const BoundPredicate* filter, const pq::RowSelection& selection,
                                 const Schema& bindable) {
  if (filter == nullptr) return reader.ReadRowGroup(rg, fields);
  pq::RowSelection one(selection.size());
  one[rg] = selection[rg];
  std::vector<int> all = fields;
  all.insert(all.end(), extra.begin(), extra.end());
  TARN_ASSIGN_OR_RETURN(RecordBatch batch, reader.ReadRows(one, all));
  for (size_t k = 0; k < all.size(); ++k) batch.schema.fields[k] = bindable.fields[all[k]];
  TARN_ASSIGN_OR_RETURN(std::vector<uint8_t> mask, EvaluatePredicate(*filter, batch));
  batch.schema.fields.resize(fields.size());
  batch.columns.resize(fields.size());
  return FilterRows(batch, mask);
}

// What each row group's bloom filter of a flat column or STRUCT member says of each value: "absent" (certain),
// "maybe", or "none" (the chunk has no filter, or one tarn cannot ask about this type).
Status ProbeCommand(const std::string& file_path, const GlobalOptions& g,
                    const std::string& column, const std::vector<std::string>& values) {
  TARN_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> file, OpenInputFile(file_path));
  TARN_ASSIGN_OR_RETURN(auto reader, pq::FileReader::Open(file));
  const pq::ParquetSchema& ps = reader->schema();
  // A flat column, or a STRUCT member by dotted path: the leaf whose path_in_schema it is.
  Result<FieldPath> path = ResolveColumnOrMember(ps.schema, column);
  if (!path.ok()) {
    return Status::InvalidArgument("no column '" + column + "' in the file: " +
                                   path.status().message())
        .WithField("column", column);
  }
  const std::string& unsupported = ps.unsupported[static_cast<size_t>(path->indices[0])];
  if (!unsupported.empty()) return Status::InvalidArgument("column '" + column + "': " + unsupported);
  const Field& field = *path->field;
  int leaf = -1;
  for (size_t i = 0; i < ps.leaves.size(); ++i) {
    if (ps.leaves[i].path == path->names && ps.leaves[i].max_rep_level == 0) {
      leaf = static_cast<int>(i);
    }
  }
  if (leaf < 0 || field.type.is_nested()) {
    return Status::InvalidArgument("column '" + column + "' is not a flat column or member");
  }
  Column parsed(field.type);
  for (const std::string& v : values) {
    Status st = AppendParsedValue(v, &parsed);
    if (!st.ok()) return st.WithContext("value '" + v + "' of " + field.type.ToString());
  }
  const bool applies = pq::BloomFilterApplies(field.type, ps.leaves[leaf]);
  json results = json::array();
  std::vector<std::vector<std::string>> rows;
  const auto& md = reader->metadata();
  for (size_t r = 0; r < md.row_groups.size(); ++r) {
    const auto& chunk = md.row_groups[r].columns[leaf];
    std::optional<pq::BloomFilter> filter;
    if (chunk.meta_data && applies) {
      TARN_ASSIGN_OR_RETURN(filter, pq::ReadBloomFilter(*file, *chunk.meta_data));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      std::string answer = "none";
      if (filter) {
        answer = pq::BloomFilterMightContain(*filter, parsed, static_cast<int64_t>(i)) ? "maybe"
                                                                                       : "absent";
      }
      results.push_back({{"row_group", r}, {"value", values[i]}, {"result", answer}});
      rows.push_back({std::to_string(r), values[i], answer});
    }
  }
  if (g.json) {
    std::cout << Dump(json{{"file", file_path}, {"column", path->Text()}, {"results", results}})
              << "\n";
  } else {
    PrintTable({"rg", "value", "bloom filter"}, rows);
  }
  return Status::OK();
}

Status CatCommand(const CatOptions& o, const GlobalOptions& g) {
  const int64_t limit = o.limit;
  if (limit < 0) return Status::InvalidArgument("--limit must be >= 0");
  TARN_ASSIGN_OR_RETURN(auto reader, OpenParquet(o.file));
  TARN_ASSIGN_OR_RETURN(std::vector<int> fields, ResolveColumns(reader->schema(), o.columns));
  // --where: rows whose page (or row group) statistics rule the predicate out are not read.
  std::optional<BoundPredicate> filter;
  pq::RowSelection selection;
  std::vector<int> extra;
  const Schema bindable = BindableSchema(reader->schema());
  if (!o.where.empty()) {
    TARN_ASSIGN_OR_RETURN(filter, ParseAndBindPredicate(o.where, bindable));
    TARN_ASSIGN_OR_RETURN(selection, SelectRowsByStatistics(*reader, *filter, bindable));
    for (int32_t id : ReferencedColumnIds(*filter)) {
      for (size_t f = 0; f < bindable.fields.size(); ++f) {
        const int fi = static_cast<int>(f);
        if (bindable.fields[f].field_id == id &&
            std::find(fields.begin(), fields.end(), fi) == fields.end() &&
            std::find(extra.begin(), extra.end(), fi) == extra.end()) {
          extra.push_back(fi);
        }
      }
    }
  }
  int64_t remaining = limit > 0 ? limit : INT64_MAX;
  std::vector<std::string> header;
  for (int f : fields) header.push_back(reader->schema().schema.fields[f].name);
  std::vector<std::vector<std::string>> rows;
  render::JsonLines json_lines(WriteStdout);
  int64_t groups_skipped = 0;
  for (int rg = 0; rg < reader->num_row_groups() && remaining > 0; ++rg) {
    if (filter && selection[rg].empty()) {
      ++groups_skipped;
      continue;
    }
    auto batch =
        ReadCatGroup(*reader, rg, fields, extra, filter ? &*filter : nullptr, selection, bindable);
    if (!batch.ok()) return batch.status();
    int64_t n = std::min<int64_t>(batch->num_rows, remaining);
    if (g.json) {
      TARN_RETURN_NOT_OK(json_lines.Write(*batch, n));
    } else {
      for (int64_t r = 0; r < n; ++r) {
        std::vector<std::string> cells;
        for (const Column& c : batch->columns) {
          cells.push_back(render::CellText(c, r));
        }
        rows.push_back(std::move(cells));
      }
    }
    remaining -= n;
  }
  if (!g.json) PrintTable(header, rows);
  if (o.stats) {
    const pq::ReadStats st = reader->stats();
    std::fprintf(stderr, "data pages read %lld, skipped %lld; row groups skipped %lld\n",
                 static_cast<long long>(st.data_pages_read),
                 static_cast<long long>(st.data_pages_skipped),
                 static_cast<long long>(groups_skipped));
  }
  return Status::OK();
}

struct SampleOptions {
  std::string file;
  std::string codec = "zstd";
  int64_t rows = 1000;
  int64_t row_group_rows = 1 << 20;
  int64_t page_bytes = 1 << 20;
  int64_t page_rows = 20000;
  bool no_dictionary = false;
  bool no_page_index = false;
  std::vector<std::string> bloom_filter;  // columns with bloom filters
};

Status WriteSampleCommand(const SampleOptions& o, const GlobalOptions& g) {
  if (o.rows < 0) return Status::InvalidArgument("--rows must be >= 0");
  if (o.row_group_rows < 1) return Status::InvalidArgument("--row-group-rows must be >= 1");
  if (o.page_bytes < 1) return Status::InvalidArgument("--page-bytes must be >= 1");
  if (o.page_rows < 1) return Status::InvalidArgument("--page-rows must be >= 1");
  const std::string& path = o.file;
  const std::string& codec = o.codec;
  int64_t rows = o.rows;
  pq::WriterOptions opts;
  TARN_ASSIGN_OR_RETURN(opts.codec, ParseCompressionCodec(codec));
  opts.row_group_rows = o.row_group_rows;
  opts.data_page_bytes = o.page_bytes;
  opts.data_page_rows = o.page_rows;
  opts.enable_dictionary = !o.no_dictionary;
  opts.page_index = !o.no_page_index;
  opts.bloom_filter_columns = o.bloom_filter;
  RecordBatch batch = MakeSampleBatch(rows);
  TARN_ASSIGN_OR_RETURN(auto sink, CreateOutputFile(path));
  TARN_ASSIGN_OR_RETURN(auto writer, pq::FileWriter::Open(std::move(sink), batch.schema, opts));
  TARN_RETURN_NOT_OK(writer->Write(batch));
  TARN_RETURN_NOT_OK(writer->Close());
  if (g.json) {
    std::cout << Dump(json{{"file", path}, {"rows", rows}, {"codec", codec}}) << "\n";
  } else {
    std::printf("wrote %lld rows to %s (%s)\n", static_cast<long long>(rows), path.c_str(),
                codec.c_str());
  }
  return Status::OK();
}

}  // namespace

void RegisterParquetCommands(CLI::App* app, GlobalOptions* g) {
  CLI::App* pq = app->add_subcommand("parquet", "Inspect and produce Parquet files");
  pq->require_subcommand(1);

  auto* schema = pq->add_subcommand("schema",
                                    "Columns: name, tarn type, physical and logical "
                                    "type, field id, nullability");
  static std::string schema_file;
  schema->add_option("FILE", schema_file, "Parquet file")->required();
  schema->add_flag("--json", g->json, "JSON output");
  SetCommand(schema, [g] { return SchemaCommand(schema_file, *g); });

  auto* meta = pq->add_subcommand("meta",
                                  "Row groups, column chunks, encodings, codecs, sizes, "
                                  "statistics");
  static std::string meta_file;
  meta->add_option("FILE", meta_file, "Parquet file")->required();
  meta->add_flag("--json", g->json, "JSON output");
  SetCommand(meta, [g] { return MetaCommand(meta_file, *g); });

  auto* cat = pq->add_subcommand("cat", "Rows (with --json one object per line)");
  static CatOptions co;
  cat->add_option("FILE", co.file, "Parquet file")->required();
  cat->add_flag("--json", g->json, "One JSON object per row");
  cat->add_option("--limit", co.limit, "At most N rows (0: all)");
  cat->add_option("--columns", co.columns, "Comma-separated column names");
  cat->add_option("--where", co.where,
                  "Only rows satisfying this predicate (pages and row groups whose statistics "
                  "rule it out are not read)");
  cat->add_flag("--stats", co.stats, "Print the data pages read and skipped to stderr");
  SetCommand(cat, [g] { return CatCommand(co, *g); });

  auto* probe = pq->add_subcommand(
      "probe", "Ask each row group's bloom filter of a column about values (absent or maybe)");
  static std::string probe_file, probe_column;
  static std::vector<std::string> probe_values;
  probe->add_option("FILE", probe_file, "Parquet file")->required();
  probe->add_option("COLUMN", probe_column, "A flat column, or a STRUCT member by dotted path")
      ->required();
  probe->add_option("VALUES", probe_values, "Values, as text of the column's type")->required();
  probe->add_flag("--json", g->json, "JSON output");
  SetCommand(probe, [g] { return ProbeCommand(probe_file, *g, probe_column, probe_values); });

  auto* sample = pq->add_subcommand("write-sample", "Write a sample file with every tarn type");
  static SampleOptions so;
  sample->add_option("FILE", so.file, "Output path")->required();
  sample->add_option("--rows", so.rows, "Number of rows")->capture_default_str();
  sample->add_option("--compression", so.codec, "zstd, snappy, gzip, lz4_raw, brotli or none")
      ->capture_default_str();
  sample->add_option("--row-group-rows", so.row_group_rows, "Rows per row group")
      ->capture_default_str();
  sample->add_option("--page-bytes", so.page_bytes, "Target data page size")->capture_default_str();
  sample->add_option("--page-rows", so.page_rows, "At most this many rows in a data page")
      ->capture_default_str();
  sample->add_flag("--no-dictionary", so.no_dictionary, "Plain encoding only");
  sample->add_flag("--no-page-index", so.no_page_index, "Write no column or offset index");
  sample->add_option("--bloom-filter", so.bloom_filter,
                     "A column to write bloom filters for (repeatable)");
  sample->add_flag("--json", g->json, "JSON output");
  SetCommand(sample, [g] { return WriteSampleCommand(so, *g); });
}

}  // namespace tarn::cli
