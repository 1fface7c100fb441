// tarn_avro_tool: the Avro module's helper for tests/interop/avro.test.mjs (built with the tests,
// not installed).
//   tarn_avro_tool write-sample FILE [--rows N] [--codec null|deflate] [--block-bytes N]
//       writes N rows (default 1000) of a sample schema with every Avro type and Iceberg's
//       attributes, and the metadata pairs format-version=2 and tarn-sample=yes
//   tarn_avro_tool cat FILE     one line per object: its Avro JSON encoding
//   tarn_avro_tool meta FILE    the metadata pairs as one JSON object of strings
// Exit status 0, or 1 with the error on stderr.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "avro/container.h"

namespace avro = tarn::avro;

namespace {

constexpr std::string_view kSampleSchema = R"({
  "type": "record", "name": "sample", "namespace": "tarn.avro", "fields": [
    {"name": "id", "type": "long", "field-id": 1},
    {"name": "status", "type": "int", "field-id": 2},
    {"name": "path", "type": "string", "field-id": 3},
    {"name": "active", "type": "boolean", "field-id": 4},
    {"name": "ratio", "type": "float", "field-id": 5},
    {"name": "score", "type": "double", "field-id": 6},
    {"name": "raw", "type": "bytes", "field-id": 7},
    {"name": "uuid", "type": {"type": "fixed", "name": "uuid_fixed", "size": 16,
                              "logicalType": "uuid"}, "field-id": 8},
    {"name": "kind", "type": {"type": "enum", "name": "kind",
      "symbols": ["DATA", "POSITION_DELETES", "EQUALITY_DELETES"]}, "field-id": 9},
    {"name": "offsets", "type": ["null", {"type": "array", "items": "long", "element-id": 11}],
     "default": null, "field-id": 10},
    {"name": "props", "type": {"type": "map", "values": "string", "key-id": 13,
                               "value-id": 14}, "field-id": 12},
    {"name": "lower", "type": ["null", "long", "string", {"type": "record", "name": "r15",
      "fields": [{"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}],
                  "default": null, "field-id": 16}]}], "default": null, "field-id": 15},
    {"name": "nothing", "type": "null", "field-id": 17}
  ]})";

avro::Value SampleRow(int64_t i) {
  using avro::Value;
  std::string raw;
  for (int64_t k = 0; k < i % 9; ++k) raw.push_back(static_cast<char>((i * 37 + k * 101) & 0xFF));
  std::string uuid(16, '\0');
  for (int k = 0; k < 16; ++k) uuid[k] = static_cast<char>((i * 13 + k * 17) & 0xFF);
  avro::Map props;
  for (int64_t k = 0; k < i % 3; ++k) {
    props.entries.emplace_back("key-" + std::to_string(k), Value("v\xc3\xa9" + std::to_string(i)));
  }
  Value offsets = Value();
  if (i % 4 != 0) {
    avro::Array a;
    for (int64_t k = 0; k < i % 5; ++k) a.items.emplace_back(int64_t{4} + k * 1000000 + i);
    offsets = avro::MakeUnion(1, Value(std::move(a)));
  } else {
    offsets = avro::MakeUnion(0, Value());
  }
  Value lower;
  switch (i % 4) {
    case 0:
      lower = avro::MakeUnion(0, Value());
      break;
    case 1:
      lower = avro::MakeUnion(1, Value(-i * 1000003));
      break;
    case 2:
      lower = avro::MakeUnion(2, Value("lower \xe2\x82\xac " + std::to_string(i)));
      break;
    default:
      lower = avro::MakeUnion(
          3,
          Value(avro::Record{
              {i % 8 == 3 ? avro::MakeUnion(0, Value())
                          : avro::MakeUnion(1, Value(static_cast<int32_t>(19000 + i % 1000)))}}));
  }
  return Value(avro::Record{{
      Value(i * 1000000007 % (int64_t{1} << 52) - (int64_t{1} << 51)),
      Value(static_cast<int32_t>(i % 3)),
      Value("s3://warehouse/db/t/data/part-" + std::to_string(i) + ".parquet"),
      Value(i % 2 == 0),
      Value(static_cast<float>(i % 1000) + 0.5f),
      Value(static_cast<double>(i) * 0.125 - 3),
      Value(avro::Bytes{raw}),
      Value(avro::Fixed{uuid}),
      Value(avro::Enum{static_cast<int32_t>(i % 3)}),
      std::move(offsets),
      Value(std::move(props)),
      std::move(lower),
      Value(),
  }});
}

int Fail(const tarn::Status& st) {
  std::cerr << "tarn_avro_tool: " << st.ToString() << "\n";
  return 1;
}

int Usage() {
  std::cerr << "usage: tarn_avro_tool write-sample FILE [--rows N] [--codec null|deflate] "
               "[--block-bytes N] | cat FILE | meta FILE\n";
  return 2;
}

int WriteSample(const std::string& path, const std::vector<std::string>& args) {
  int64_t rows = 1000;
  avro::WriterOptions options;
  options.metadata = {{"format-version", "2"}, {"tarn-sample", "yes"}};
  for (size_t k = 0; k + 1 < args.size(); k += 2) {
    if (args[k] == "--rows") {
      rows = std::atoll(args[k + 1].c_str());
    } else if (args[k] == "--codec") {
      auto codec = avro::ParseCodec(args[k + 1]);
      if (!codec.ok()) return Fail(codec.status());
      options.codec = *codec;
    } else if (args[k] == "--block-bytes") {
      options.block_bytes = static_cast<size_t>(std::atoll(args[k + 1].c_str()));
    } else {
      return Usage();
    }
  }
  if (args.size() % 2 != 0) return Usage();
  auto schema = avro::Schema::Parse(kSampleSchema);
  if (!schema.ok()) return Fail(schema.status());
  auto sink = tarn::CreateLocalFile(path);
  if (!sink.ok()) return Fail(sink.status());
  auto start = std::chrono::steady_clock::now();
  auto w = avro::ContainerWriter::Open(std::move(*sink), *schema, options);
  if (!w.ok()) return Fail(w.status());
  for (int64_t i = 0; i < rows; ++i) {
    if (auto st = (*w)->Append(SampleRow(i)); !st.ok()) return Fail(st);
  }
  if (auto st = (*w)->Close(); !st.ok()) return Fail(st);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cerr << "wrote " << rows << " rows, " << (*w)->bytes_written() << " bytes in " << ms
            << " ms\n";
  return 0;
}

int Read(const std::string& path, bool meta) {
  auto file = tarn::OpenLocalFile(path);
  if (!file.ok()) return Fail(file.status());
  auto r = avro::ContainerReader::Open(**file);
  if (!r.ok()) return Fail(r.status());
  if (meta) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : (*r)->metadata()) out[k] = v;
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::string lines;
  avro::Value v;
  while (true) {
    auto more = (*r)->Next(&v);
    if (!more.ok()) return Fail(more.status());
    if (!*more) break;
    auto json = avro::ToJson(v, (*r)->schema().root());
    if (!json.ok()) return Fail(json.status());
    lines += *json;
    lines += '\n';
  }
  std::cout << lines;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) return Usage();
  std::vector<std::string> rest(args.begin() + 2, args.end());
  if (args[0] == "write-sample") return WriteSample(args[1], rest);
  if (args[0] == "cat" && rest.empty()) return Read(args[1], false);
  if (args[0] == "meta" && rest.empty()) return Read(args[1], true);
  return Usage();
}
