// `tarn convert INPUT... OUTPUT`: CSV, NDJSON or Parquet files (compressed or not) to one Parquet
// file through the upload path's readers and writer (upload/convert.h). OUTPUT is a local path
// or a warehouse URI (s3://, file://); it appears only when the whole conversion succeeded.
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
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
#include "upload/convert.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

struct ConvertArgs {
  std::vector<std::string> paths;  // inputs then the output
  std::vector<std::string> types;
  bool infer = false;
  std::string compression = "zstd";
  bool no_color = false;
};

int64_t SizeOf(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? -1 : static_cast<int64_t>(n);
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
      columns.push_back({{"name", f.name}, {"type", f.type.ToString()}, {"nullable", f.nullable}});
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
    rows.push_back({f.name, f.type.ToString(), f.nullable ? "yes" : "no"});
  }
  PrintTable({"column", "type", "nullable"}, rows);
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
  cmd->add_option("--compression", a->compression,
                  "zstd (default), snappy, gzip, lz4_raw, brotli or none");
  cmd->add_flag("--no-color", a->no_color, "No colour (as NO_COLOR)");
  SetCommand(cmd, [=]() { return RunConvert(*a, *global); });
}

}  // namespace tarn::cli
