// `tarn convert INPUT... OUTPUT`: CSV, NDJSON or Parquet files (compressed or not) to one Parquet
// file through the upload path's readers and writer (upload/convert.h). OUTPUT is a local path
// or a warehouse URI (s3://, file://); it appears only when the whole conversion succeeded.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/error_codes.h"
#include "common/compression.h"
#include "objectstore/object_store.h"
#include "render/progress.h"
#include "render/style.h"
#include "render/upload_render.h"
#include "table/schema_json.h"
#include "upload/convert.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

struct ConvertArgs {
  std::vector<std::string> paths;  // inputs then the output
  std::vector<std::string> types;
  bool infer = false;
  std::string schema;       // --schema 'id INT64 NOT NULL, ...'
  std::string schema_file;  // --schema-file FILE.json
  std::string compression = "zstd";
  bool no_color = false;
};

int64_t SizeOf(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? -1 : static_cast<int64_t>(n);
}

// The schema of --schema-file: schema JSON ({"fields":[{"id":1,"name":...}]}, as the metastore
// keeps it) or what `tarn dataset show --json` prints (its "schema" array), so a file converted
// with a dataset's schema carries that dataset's field ids.
Result<Schema> ReadSchemaFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Of(codes::kUsage, "--schema-file: cannot read '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && !j.contains("fields") && j.contains("schema") && j["schema"].is_array()) {
    body = json{{"fields", j["schema"]}}.dump();
  }
  auto schema = tarn::SchemaFromJson(body);
  if (!schema.ok()) {
    return Status::Of(codes::kUsage, "--schema-file " + path + ": " + schema.status().message());
  }
  return schema;
}

Status RunConvert(const ConvertArgs& a, const GlobalOptions& g) {
  if (a.no_color) render::DisableColor();
  if (a.paths.size() < 2) {
    return Status::Of(codes::kUsage, "convert needs at least one INPUT and the OUTPUT");
  }
  std::vector<std::string> inputs(a.paths.begin(), a.paths.end() - 1);
  const std::string& output = a.paths.back();
  for (const auto& in : inputs) {
    if (in == output) {
      return Status::Of(codes::kUsage, "the output '" + output + "' is also an input");
    }
  }
  upload::ConvertOptions options;
  if (!a.schema.empty() || !a.schema_file.empty()) {
    if (!a.schema.empty() && !a.schema_file.empty()) {
      return Status::Of(codes::kUsage, "give --schema or --schema-file, not both");
    }
    if (!a.types.empty() || a.infer) {
      return Status::Of(codes::kUsage,
                        "a declared schema (--schema, --schema-file) takes neither --type nor "
                        "--infer");
    }
    if (!a.schema.empty()) {
      auto schema = Schema::Parse(a.schema);
      if (!schema.ok()) {
        return Status::Of(codes::kUsage, "--schema: " + schema.status().message());
      }
      options.schema = std::move(*schema);
    } else {
      TARN_ASSIGN_OR_RETURN(options.schema, ReadSchemaFile(a.schema_file));
    }
  }
  TARN_ASSIGN_OR_RETURN(options.types, render::ParseTypeAssignments(a.types));
  options.infer = a.infer;
  auto codec = ParseCompressionCodec(a.compression);
  if (!codec.ok()) return codec.status().WithContext("--compression");
  options.codec = *codec;

  int64_t total = 0;
  for (const auto& in : inputs) total += std::max<int64_t>(SizeOf(in), 0);
  render::ProgressLine progress;
  std::string label = std::filesystem::path(inputs.front()).filename().string();
  if (inputs.size() > 1) label += " +" + std::to_string(inputs.size() - 1);
  options.progress = [&](int64_t done, int64_t t) {
    progress.Update(label, done, t > 0 ? t : total);
  };

  TARN_ASSIGN_OR_RETURN(auto sink, CreateOutputFile(output));
  auto result = upload::ConvertFiles(inputs, std::move(sink), options);
  progress.Clear();
  if (!result.ok()) return result.status();

  if (g.json) {
    json columns = json::array();
    for (const Field& f : result->schema.fields) {
      json c = {{"name", f.name},
                {"type", f.type.ToString()},
                {"nullable", f.nullable},
                {"field_id", f.field_id}};
      if (f.type.id() == TypeId::kArray) {
        c["element_field_id"] = f.type.element_field().field_id;
      }
      columns.push_back(std::move(c));
    }
    std::cout << Dump(json{{"output", output},
                           {"rows", result->rows},
                           {"input_bytes", result->input_bytes},
                           {"output_bytes", result->output_bytes},
                           {"compression", std::string(CompressionCodecName(options.codec))},
                           {"columns", columns}})
              << "\n";
    return Status::OK();
  }
  render::Style st = render::Style::ForFd(1);
  std::cout << st.ok("wrote") << " " << output << ": " << result->rows << " rows, "
            << result->schema.fields.size() << " columns, "
            << render::FormatBytes(result->output_bytes) << " ("
            << CompressionCodecName(options.codec) << ") from "
            << render::FormatBytes(result->input_bytes) << "\n";
  std::vector<std::vector<std::string>> rows;
  for (const Field& f : result->schema.fields) {
    rows.push_back(
        {f.name, f.type.ToString(), f.nullable ? "yes" : "no", std::to_string(f.field_id)});
  }
  PrintTable({"column", "type", "nullable", "field_id"}, rows);
  return Status::OK();
}

}  // namespace

void RegisterConvertCommand(CLI::App* app, GlobalOptions* global) {
  auto a = std::make_shared<ConvertArgs>();
  auto* cmd = app->add_subcommand(
      "convert",
      "Convert CSV, NDJSON or Parquet files (optionally .gz/.zst/.br) into one Parquet file");
  cmd->add_option("PATHS", a->paths, "INPUT... OUTPUT (a local path or a warehouse URI)")
      ->required()
      ->expected(2, -1);
  cmd->add_option("--type", a->types, "COLUMN=TYPE (repeatable)")->allow_extra_args(false);
  cmd->add_flag("--infer", a->infer,
                "Infer the types of columns not given with --type (else text stays VARCHAR)");
  cmd->add_option("--schema", a->schema,
                  "Declared columns, ids 1..N: 'id INT64 NOT NULL, ts TIMESTAMP[us], ...'");
  cmd->add_option("--schema-file", a->schema_file,
                  "Declared columns with their field ids: schema JSON or `tarn dataset show "
                  "--json` output");
  cmd->add_option("--compression", a->compression,
                  "zstd (default), snappy, gzip, lz4_raw, brotli or none");
  cmd->add_flag("--no-color", a->no_color, "No colour (as NO_COLOR)");
  SetCommand(cmd, [=]() { return RunConvert(*a, *global); });
}

}  // namespace tarn::cli
