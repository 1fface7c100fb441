// Fuzzes the bounded XML parser that reads S3 responses (ListObjectsV2, errors, multipart and
// batch-delete results): any bytes a server sends must give a tree or kCorruption, never a
// crash, and the limits on depth and node count must hold.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "objectstore/s3/xml.h"

namespace {

size_t CheckTree(const tarn::s3::XmlNode& node, size_t depth, size_t max_depth) {
  if (depth > max_depth) {
    std::fprintf(stderr, "s3_xml_fuzz: tree deeper than the limit\n");
    std::abort();
  }
  size_t nodes = 1;
  for (const auto& c : node.children) nodes += CheckTree(c, depth + 1, max_depth);
  return nodes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  tarn::s3::XmlLimits limits;
  limits.max_depth = 16;
  limits.max_nodes = 4096;
  auto tree = tarn::s3::ParseXml(input, limits);
  if (tree.ok()) {
    if (CheckTree(*tree, 1, limits.max_depth + 1) > limits.max_nodes + 1) {
      std::fprintf(stderr, "s3_xml_fuzz: more nodes than the limit\n");
      std::abort();
    }
    (void)tree->ChildText("Key");
  } else if (tree.status().kind() != tarn::ErrorKind::kCorruption) {
    std::fprintf(stderr, "s3_xml_fuzz: unexpected error kind: %s\n",
                 tree.status().ToString().c_str());
    std::abort();
  }
  return 0;
}
