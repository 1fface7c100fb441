#include "avro/schema.h"

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

namespace tarn::avro {

using Json = nlohmann::ordered_json;

struct Schema::Nodes {
  std::vector<std::unique_ptr<Node>> all;
  std::map<std::string, const Node*, std::less<>> named;
};

namespace {

constexpr int kMaxDepth = 200;  // nesting of schema JSON: far deeper than any real schema

constexpr std::string_view kTypeNames[] = {"null",   "boolean", "int",    "long",   "float",
                                           "double", "bytes",   "string", "record", "enum",
                                           "array",  "map",     "union",  "fixed"};

std::optional<Type> PrimitiveType(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Type::kString); ++i) {
    if (kTypeNames[i] == name) return static_cast<Type>(i);
  }
  return std::nullopt;
}

bool IsNamed(Type t) { return t == Type::kRecord || t == Type::kEnum || t == Type::kFixed; }

// [A-Za-z_][A-Za-z0-9_]*
bool ValidSimpleName(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool ValidDottedName(std::string_view s) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!ValidSimpleName(s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

class Parser {
 public:
  explicit Parser(Schema::Nodes* nodes) : nodes_(nodes) {}

  Result<const Node*> Parse(const Json& j, const std::string& ns, int depth) {
    if (depth > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth));
    if (j.is_string()) return Reference(j.get_ref<const std::string&>(), ns);
    if (j.is_array()) return ParseUnion(j, ns, depth);
    if (!j.is_object()) return Error("a type must be a string, an object or an array");
    auto t = j.find("type");
    if (t == j.end()) return Error("an object type has no \"type\"");
    if (!t->is_string()) return Error("\"type\" of an object type must be a string");
    const std::string& type = t->get_ref<const std::string&>();
    if (auto p = PrimitiveType(type)) {
      Node* n = Add(*p);
      TARN_RETURN_NOT_OK(TakeCommon(j, {"type"}, n));
      return n;
    }
    if (type == "record" || type == "error") return ParseRecord(j, ns, depth);
    if (type == "enum") return ParseEnum(j, ns);
    if (type == "fixed") return ParseFixed(j, ns);
    if (type == "array" || type == "map") {
      const char* key = type == "array" ? "items" : "values";
      auto c = j.find(key);
      if (c == j.end()) return Error(type + " has no \"" + key + "\"");
      TARN_ASSIGN_OR_RETURN(const Node* child, Parse(*c, ns, depth + 1));
      Node* n = Add(type == "array" ? Type::kArray : Type::kMap);
      (type == "array" ? n->items : n->values) = child;
      TARN_RETURN_NOT_OK(TakeCommon(j, {"type", key}, n));
      return n;
    }
    // {"type": "a.Name"}: a reference, as a bare string would be.
    return Reference(type, ns);
  }

 private:
  static Status Error(std::string msg) { return Status::InvalidArgument("avro schema: " + msg); }

  Node* Add(Type type) {
    nodes_->all.push_back(std::make_unique<Node>());
    nodes_->all.back()->type = type;
    return nodes_->all.back().get();
  }

  Result<const Node*> Reference(const std::string& name, const std::string& ns) {
    if (auto p = PrimitiveType(name)) return Add(*p);
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = nodes_->named.find(ns + "." + name);
      if (it != nodes_->named.end()) return it->second;
    }
    auto it = nodes_->named.find(name);
    if (it != nodes_->named.end()) return it->second;
    return Error("unknown type \"" + name + "\"");
  }

  Result<const Node*> ParseUnion(const Json& j, const std::string& ns, int depth) {
    Node* n = Add(Type::kUnion);
    std::set<std::string, std::less<>> seen;
    for (const Json& b : j) {
      TARN_ASSIGN_OR_RETURN(const Node* branch, Parse(b, ns, depth + 1));
      if (branch->type == Type::kUnion) return Error("a union directly inside a union");
      if (!seen.emplace(branch->BranchName()).second) {
        return Error("a union with two branches of type " + std::string(branch->BranchName()));
      }
      n->branches.push_back(branch);
    }
    return n;
  }

  // The full name and namespace of a named type defined by `j` inside namespace `ns`.
  Result<std::pair<std::string, std::string>> FullName(const Json& j, const std::string& ns) {
    auto name = j.find("name");
    if (name == j.end() || !name->is_string()) return Error("a named type has no \"name\"");
    const std::string& n = name->get_ref<const std::string&>();
    if (!ValidDottedName(n)) return Error("bad name \"" + n + "\"");
    std::string space = ns;
    if (size_t dot = n.rfind('.'); dot != std::string::npos) {
      space = n.substr(0, dot);
    } else if (auto s = j.find("namespace"); s != j.end() && !s->is_null()) {
      if (!s->is_string()) return Error("\"namespace\" of " + n + " is not a string");
      space = s->get<std::string>();
      if (!space.empty() && !ValidDottedName(space)) {
        return Error("bad namespace \"" + space + "\"");
      }
    }
    size_t dot = n.rfind('.');
    std::string simple = dot == std::string::npos ? n : n.substr(dot + 1);
    if (PrimitiveType(simple)) return Error("a named type may not be called " + simple);
    std::string full = space.empty() || dot != std::string::npos ? n : space + "." + n;
    if (nodes_->named.count(full)) return Error("\"" + full + "\" is defined twice");
    return std::make_pair(std::move(full), std::move(space));
  }

  Result<Node*> AddNamed(Type type, const Json& j, const std::string& ns, std::string* space) {
    TARN_ASSIGN_OR_RETURN(auto names, FullName(j, ns));
    Node* n = Add(type);
    n->name = std::move(names.first);
    *space = std::move(names.second);
    nodes_->named.emplace(n->name, n);
    return n;
  }

  Result<const Node*> ParseRecord(const Json& j, const std::string& ns, int depth) {
    std::string space;
    TARN_ASSIGN_OR_RETURN(Node * n, AddNamed(Type::kRecord, j, ns, &space));
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) return Error(n->name + " has no \"fields\"");
    std::set<std::string, std::less<>> names;
    for (const Json& f : *fields) {
      if (!f.is_object()) return Error("a field of " + n->name + " is not an object");
      Field field;
      auto name = f.find("name");
      if (name == f.end() || !name->is_string() || !ValidSimpleName(name->get<std::string>())) {
        return Error("a field of " + n->name + " has no valid \"name\"");
      }
      field.name = name->get<std::string>();
      if (!names.insert(field.name).second) {
        return Error(n->name + " has two fields called " + field.name);
      }
      auto type = f.find("type");
      if (type == f.end()) return Error("field " + field.name + " of " + n->name + " has no type");
      TARN_ASSIGN_OR_RETURN(field.type, Parse(*type, space, depth + 1));
      for (auto it = f.begin(); it != f.end(); ++it) {
        const std::string& key = it.key();
        if (key == "name" || key == "type") continue;
        if (key == "default") {
          field.default_json = it->dump();
        } else if (key == "doc" && it->is_string()) {
          field.doc = it->get<std::string>();
        } else if (key == "aliases") {
          TARN_RETURN_NOT_OK(Aliases(*it, &field.aliases));
        } else {
          field.attributes.push_back({key, it->dump()});
        }
      }
      n->fields.push_back(std::move(field));
    }
    TARN_RETURN_NOT_OK(TakeCommon(j, {"type", "name", "namespace", "fields"}, n));
    return n;
  }

  Result<const Node*> ParseEnum(const Json& j, const std::string& ns) {
    std::string space;
    TARN_ASSIGN_OR_RETURN(Node * n, AddNamed(Type::kEnum, j, ns, &space));
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) return Error(n->name + " has no \"symbols\"");
    std::set<std::string, std::less<>> seen;
    for (const Json& s : *symbols) {
      if (!s.is_string() || !ValidSimpleName(s.get<std::string>())) {
        return Error("a symbol of " + n->name + " is not a valid name");
      }
      if (!seen.insert(s.get<std::string>()).second) {
        return Error(n->name + " has the symbol " + s.get<std::string>() + " twice");
      }
      n->symbols.push_back(s.get<std::string>());
    }
    if (auto d = j.find("default"); d != j.end()) {
      if (!d->is_string() || !seen.count(d->get<std::string>())) {
        return Error("the default of " + n->name + " is not one of its symbols");
      }
      n->enum_default = d->get<std::string>();
    }
    TARN_RETURN_NOT_OK(TakeCommon(j, {"type", "name", "namespace", "symbols", "default"}, n));
    return n;
  }

  Result<const Node*> ParseFixed(const Json& j, const std::string& ns) {
    std::string space;
    TARN_ASSIGN_OR_RETURN(Node * n, AddNamed(Type::kFixed, j, ns, &space));
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_integer() ||
        (size->is_number_unsigned() ? size->get<uint64_t>() > (uint64_t{1} << 31)
                                    : size->get<int64_t>() < 0)) {
      return Error(n->name + " has no valid \"size\"");
    }
    n->size = size->get<int64_t>();
    TARN_RETURN_NOT_OK(TakeCommon(j, {"type", "name", "namespace", "size"}, n));
    return n;
  }

  static Status Aliases(const Json& j, std::vector<std::string>* out) {
    if (!j.is_array()) return Error("\"aliases\" is not an array");
    for (const Json& a : j) {
      if (!a.is_string()) return Error("an alias is not a string");
      out->push_back(a.get<std::string>());
    }
    return Status::OK();
  }

  // doc, aliases, logicalType and the attributes of `j`, every key but `taken`.
  static Status TakeCommon(const Json& j, std::initializer_list<std::string_view> taken, Node* n) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      bool skip = false;
      for (std::string_view t : taken) skip = skip || key == t;
      if (skip) continue;
      if (key == "doc" && it->is_string()) {
        n->doc = it->get<std::string>();
      } else if (key == "aliases" && IsNamed(n->type)) {
        TARN_RETURN_NOT_OK(Aliases(*it, &n->aliases));
      } else if (key == "logicalType" && it->is_string()) {
        n->logical_type = it->get<std::string>();
      } else {
        n->attributes.push_back({key, it->dump()});
      }
    }
    return Status::OK();
  }

  Schema::Nodes* nodes_;
};

// Least fixed point: starts false everywhere, so a record that contains itself stays false.
void MarkMayEncodeEmpty(const std::vector<std::unique_ptr<Node>>& all) {
  for (const auto& n : all) {
    n->may_encode_empty = n->type == Type::kNull || (n->type == Type::kFixed && n->size == 0);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& n : all) {
      if (n->type != Type::kRecord || n->may_encode_empty) continue;
      bool empty = true;
      for (const Field& f : n->fields) empty = empty && f.type->may_encode_empty;
      if (empty) n->may_encode_empty = changed = true;
    }
  }
}

std::string Namespace(std::string_view full) {
  size_t dot = full.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(full.substr(0, dot));
}

void PutAttributes(const Attributes& attributes, Json* out) {
  for (const Attribute& a : attributes) {
    Json v = Json::parse(a.json, nullptr, /*allow_exceptions=*/false);
    if (!v.is_discarded()) (*out)[a.name] = std::move(v);
  }
}

void PutAliases(const std::vector<std::string>& aliases, Json* out) {
  if (!aliases.empty()) (*out)["aliases"] = aliases;
}

Json ToJsonNode(const Node& n, const std::string& ns, std::set<const Node*>* defined) {
  if (IsNamed(n.type)) {
    if (!defined->insert(&n).second) return n.name;  // defined before: by full name
  }
  bool bare = !IsNamed(n.type) && n.type != Type::kArray && n.type != Type::kMap &&
              n.type != Type::kUnion && n.doc.empty() && n.logical_type.empty() &&
              n.attributes.empty();
  if (bare) return std::string(TypeName(n.type));
  if (n.type == Type::kUnion) {
    Json out = Json::array();
    for (const Node* b : n.branches) out.push_back(ToJsonNode(*b, ns, defined));
    return out;
  }
  Json out = Json::object();
  out["type"] = TypeName(n.type);
  std::string space = ns;
  if (IsNamed(n.type)) {
    out["name"] = n.name;
    space = Namespace(n.name);
    // A name without a dot would otherwise land in the enclosing namespace.
    if (space.empty() && !ns.empty()) out["namespace"] = "";
  }
  if (!n.doc.empty()) out["doc"] = n.doc;
  PutAliases(n.aliases, &out);
  switch (n.type) {
    case Type::kRecord: {
      Json fields = Json::array();
      for (const Field& f : n.fields) {
        Json field = Json::object();
        field["name"] = f.name;
        field["type"] = ToJsonNode(*f.type, space, defined);
        if (f.default_json) {
          Json d = Json::parse(*f.default_json, nullptr, /*allow_exceptions=*/false);
          if (!d.is_discarded()) field["default"] = std::move(d);
        }
        if (!f.doc.empty()) field["doc"] = f.doc;
        PutAliases(f.aliases, &field);
        PutAttributes(f.attributes, &field);
        fields.push_back(std::move(field));
      }
      out["fields"] = std::move(fields);
      break;
    }
    case Type::kEnum:
      out["symbols"] = n.symbols;
      if (n.enum_default) out["default"] = *n.enum_default;
      break;
    case Type::kFixed:
      out["size"] = n.size;
      break;
    case Type::kArray:
      out["items"] = ToJsonNode(*n.items, space, defined);
      break;
    case Type::kMap:
      out["values"] = ToJsonNode(*n.values, space, defined);
      break;
    default:
      break;
  }
  if (!n.logical_type.empty()) out["logicalType"] = n.logical_type;
  PutAttributes(n.attributes, &out);
  return out;
}

}  // namespace

std::string_view TypeName(Type type) { return kTypeNames[static_cast<size_t>(type)]; }

std::optional<std::string_view> FindAttribute(const Attributes& attributes, std::string_view name) {
  for (const Attribute& a : attributes) {
    if (a.name == name) return std::string_view(a.json);
  }
  return std::nullopt;
}

std::optional<int64_t> IntAttribute(const Attributes& attributes, std::string_view name) {
  auto text = FindAttribute(attributes, name);
  if (!text) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return v;
}

std::string_view Node::BranchName() const {
  return IsNamed(type) ? std::string_view(name) : TypeName(type);
}

int Node::FieldIndex(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field_name) return static_cast<int>(i);
  }
  return -1;
}

Result<Schema> Schema::Parse(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("avro schema: not valid JSON");
  auto nodes = std::make_shared<Nodes>();
  Parser parser(nodes.get());
  TARN_ASSIGN_OR_RETURN(const Node* root, parser.Parse(j, "", 0));
  MarkMayEncodeEmpty(nodes->all);
  return Schema(std::move(nodes), root);
}

const Node* Schema::FindNamed(std::string_view full_name) const {
  auto it = nodes_->named.find(full_name);
  return it == nodes_->named.end() ? nullptr : it->second;
}

std::string Schema::ToJson() const {
  std::set<const Node*> defined;
  return ToJsonNode(*root_, "", &defined).dump();
}

}  // namespace tarn::avro
