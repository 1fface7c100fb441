// Avro schemas (https://avro.apache.org/docs/1.11.1/specification/): parsed from their JSON into
// a tree of nodes, printed back with every attribute a writer put on them (Iceberg's
// "field-id", "element-id", "key-id", "value-id", logical types), since Iceberg readers need them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn::avro {

enum class Type : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};
// The spec's name of a type: "null", ..., "record", "enum", "array", "map", "union", "fixed".
std::string_view TypeName(Type type);

// A property the spec does not define, kept as written: its name and its value as JSON text.
struct Attribute {
  std::string name;
  std::string json;
};
using Attributes = std::vector<Attribute>;

// The JSON text of attribute `name`, or nullopt.
std::optional<std::string_view> FindAttribute(const Attributes& attributes, std::string_view name);
// Attribute `name` when it is a JSON integer (Iceberg's ids), else nullopt.
std::optional<int64_t> IntAttribute(const Attributes& attributes, std::string_view name);

struct Node;

struct Field {
  std::string name;
  const Node* type = nullptr;
  std::optional<std::string> default_json;  // the default value as JSON text; not checked
  std::string doc;
  std::vector<std::string> aliases;
  Attributes attributes;  // "field-id", "order", ...
};

// One type of a schema. Named types (record, enum, fixed) appear once; references to them by
// name point at that node (so a recursive record is a cycle). Nodes belong to their Schema.
struct Node {
  Type type = Type::kNull;
  std::string name;  // record, enum, fixed: the full name ("a.b.Name")
  std::string doc;
  std::vector<std::string> aliases;
  std::string logical_type;          // "logicalType", e.g. "date", "decimal", "uuid"; empty if none
  std::vector<Field> fields;         // record
  std::vector<std::string> symbols;  // enum
  std::optional<std::string> enum_default;  // enum
  const Node* items = nullptr;              // array
  const Node* values = nullptr;             // map
  std::vector<const Node*> branches;        // union
  int64_t size = 0;                         // fixed
  Attributes attributes;  // "element-id" of arrays, "precision"/"scale" of decimals, ...
  // The binary encoding of some value of this type is zero bytes long (null, a fixed of size 0,
  // a record of such fields): what bounds the item count of an array block on read.
  bool may_encode_empty = false;

  // The name a union branch of this type goes by: the full name of a named type, else TypeName.
  std::string_view BranchName() const;
  // The index of field `name` of a record, or -1.
  int FieldIndex(std::string_view name) const;
};

// A parsed schema: its nodes and the root. Copies share the (immutable) nodes.
class Schema {
 public:
  // Parses the schema's JSON text. A schema that breaks the spec's rules (unknown type name,
  // bad or repeated names, a union inside a union or with two branches of one type, a negative
  // fixed size, a reference to an undefined name) is kInvalidArgument naming what is wrong.
  static Result<Schema> Parse(std::string_view json);

  const Node& root() const { return *root_; }
  // The node of named type `full_name`, or nullptr.
  const Node* FindNamed(std::string_view full_name) const;

  // The schema as JSON: every named type defined at its first use (with its full name) and
  // referenced by full name after, doc, aliases, defaults and attributes kept, primitives
  // without attributes as bare strings. Parse(ToJson()) gives the same schema.
  std::string ToJson() const;

  struct Nodes;  // the nodes a schema owns (schema.cc)

 private:
  Schema(std::shared_ptr<const Nodes> nodes, const Node* root)
      : nodes_(std::move(nodes)), root_(root) {}
  std::shared_ptr<const Nodes> nodes_;
  const Node* root_ = nullptr;
};

}  // namespace tarn::avro
