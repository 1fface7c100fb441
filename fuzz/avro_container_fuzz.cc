// Fuzzes the Avro container reader (header, metadata, blocks, deflate, the binary decoder) over
// arbitrary bytes. Whatever reads must write back: the objects re-encode under the file's
// schema, and a file written from them reads back to the same objects.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "avro/container.h"

namespace {

void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "avro_container_fuzz: invariant violated: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace avro = tarn::avro;
  if (size > (1 << 20)) return -1;
  avro::ReaderOptions options;
  options.max_block_bytes = 4 << 20;
  auto r =
      avro::ContainerReader::Open(std::string(reinterpret_cast<const char*>(data), size), options);
  if (!r.ok()) return 0;
  std::vector<avro::Value> values;
  size_t kept_bytes = 0;
  while (true) {
    avro::Value v;
    auto more = (*r)->Next(&v);
    if (!more.ok() || !*more) break;
    tarn::ByteBuffer one;
    Require(avro::Encode(v, (*r)->schema().root(), &one).ok(), "a read object does not encode");
    kept_bytes += one.size();
    if (kept_bytes < (1 << 20)) values.push_back(std::move(v));
  }
  // Round trip of what was kept (bounded, so memory stays bounded).
  auto sink = std::make_unique<tarn::MemoryOutputStream>();
  tarn::MemoryOutputStream* mem = sink.get();
  avro::WriterOptions wo;
  wo.codec = (*r)->codec();
  wo.block_bytes = 1000;
  for (const auto& [k, v] : (*r)->metadata()) {
    if (k.rfind("avro.", 0) != 0) wo.metadata.emplace_back(k, v);
  }
  auto w = avro::ContainerWriter::Open(std::move(sink), (*r)->schema(), wo);
  if (!w.ok()) return 0;  // a repeated metadata key: the writer refuses what a reader keeps
  for (const avro::Value& v : values) Require((*w)->Append(v).ok(), "an object does not append");
  Require((*w)->Close().ok(), "the writer does not close");
  auto again = avro::ContainerReader::Open(mem->bytes(), options);
  Require(again.ok(), "a written file does not open");
  auto back = (*again)->ReadAll();
  Require(back.ok(), "a written file does not read");
  Require(*back == values, "a written file reads back different objects");
  return 0;
}
