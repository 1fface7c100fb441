// A small, bounded XML parser for the few S3 response shapes tarn reads (ListBucketResult,
// Error, InitiateMultipartUploadResult, CompleteMultipartUploadResult, DeleteResult).
// Internal to the S3 client.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn::s3 {

// An element: its local name (namespace prefix dropped), its text (character data and CDATA
// of the element itself, entities decoded), and its child elements. Attributes are parsed and
// dropped.
struct XmlNode {
  std::string name;
  std::string text;
  std::vector<XmlNode> children;

  // First child with this name, or nullptr.
  const XmlNode* Child(std::string_view child_name) const;
  // Text of the first child with this name, or "" when absent.
  std::string_view ChildText(std::string_view child_name) const;
};

struct XmlLimits {
  size_t max_input_bytes = 64 << 20;
  size_t max_depth = 32;  // at most 256 whatever is asked (trees are freed recursively)
  size_t max_nodes = 1 << 20;
};

// Parses a document with one root element. DOCTYPE declarations are refused (no entity
// expansion of any kind beyond the five predefined entities and character references).
// Malformed or over-limit input is kCorruption.
Result<XmlNode> ParseXml(std::string_view input, const XmlLimits& limits = {});

// Escapes text for element content or attribute values (& < > " ').
std::string XmlEscape(std::string_view s);

}  // namespace tarn::s3
