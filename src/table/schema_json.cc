#include "table/schema_json.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "table/error_codes.h"
#include "tarn/view.h"

namespace tarn {

using nlohmann::json;

namespace {

Status Bad(std::string_view what) {
  return Status::InvalidArgument("schema JSON: " + std::string(what));
}

// Reads an int32 member; absent -> `fallback` when given.
Status GetInt32(const json& obj, const char* key, bool required, int32_t fallback, int32_t* out) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return Bad(std::string("field without \"") + key + "\"");
    *out = fallback;
    return Status::OK();
  }
  if (!it->is_number_integer()) return Bad(std::string("\"") + key + "\" is not an integer");
  int64_t v = it->get<int64_t>();
  if (it->is_number_unsigned() && it->get<uint64_t>() > INT32_MAX) v = INT64_MAX;
  if (v < -1 || v > INT32_MAX) return Bad(std::string("\"") + key + "\" out of range");
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status GetBool(const json& obj, const char* key, bool fallback, bool* out) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    *out = fallback;
    return Status::OK();
  }
  if (!it->is_boolean()) return Bad(std::string("\"") + key + "\" is not a boolean");
  *out = it->get<bool>();
  return Status::OK();
}

// The ids of a nested type's fields: [{"id":4,"name":"element","children":[...]}, ...].
json NestedIdsJson(const DataType& type) {
  json out = json::array();
  for (const Field& f : type.children()) {
    json o = json::object();
    o["id"] = f.field_id;
    o["name"] = f.name;
    if (f.type.is_nested()) o["children"] = NestedIdsJson(f.type);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

std::string SchemaToJson(const Schema& schema) {
  json fields = json::array();
  for (const Field& f : schema.fields) {
    json o = json::object();
    o["id"] = f.field_id;
    o["name"] = f.name;
    o["type"] = f.type.ToString();
    o["nullable"] = f.nullable;
    if (f.type.id() == TypeId::kArray) {
      o["element_id"] = f.type.element_field().field_id;
      o["element_nullable"] = f.type.element_field().nullable;
    }
    if (f.type.is_nested()) o["children"] = NestedIdsJson(f.type);
    fields.push_back(std::move(o));
  }
  json root = json::object();
  root["fields"] = std::move(fields);
  return root.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

// Sets the ids of `type`'s nested fields from NestedIdsJson's form (names must match).
Status ApplyNestedIds(const json& arr, const std::string& where, DataType* type) {
  if (!arr.is_array() || arr.size() != type->children().size()) {
    return Bad("field " + where + ": \"children\" does not match its type");
  }
  std::vector<Field> children = type->children();
  for (size_t i = 0; i < children.size(); ++i) {
    const json& jc = arr[i];
    if (!jc.is_object()) return Bad("field " + where + ": a child is not an object");
    auto nit = jc.find("name");
    if (nit != jc.end() && (!nit->is_string() || nit->get<std::string>() != children[i].name)) {
      return Bad("field " + where + ": child " + std::to_string(i) + " is not named " +
                 children[i].name);
    }
    const std::string path = where + "." + children[i].name;
    TARN_RETURN_NOT_OK(GetInt32(jc, "id", false, -1, &children[i].field_id));
    auto cit = jc.find("children");
    if (cit != jc.end()) {
      if (!children[i].type.is_nested()) return Bad("field " + path + " has no children");
      TARN_RETURN_NOT_OK(ApplyNestedIds(*cit, path, &children[i].type));
    }
  }
  *type = type->WithChildren(std::move(children));
  return Status::OK();
}

// Every field id of `f`, nested ones included, in order.
std::vector<int32_t> AllIds(const Field& f) {
  std::vector<int32_t> ids{f.field_id};
  ForEachNestedField(f.type, [&](const Field& n) { ids.push_back(n.field_id); });
  return ids;
}

}  // namespace

Result<Schema> SchemaFromJson(std::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Bad("not valid JSON");
  if (!root.is_object()) return Bad("not a JSON object");
  auto fit = root.find("fields");
  if (fit == root.end() || !fit->is_array()) return Bad("no \"fields\" array");
  Schema schema;
  std::unordered_set<std::string> names;
  std::unordered_set<int32_t> ids;
  for (const json& jf : *fit) {
    if (!jf.is_object()) return Bad("a field is not an object");
    Field f;
    auto nit = jf.find("name");
    if (nit == jf.end() || !nit->is_string()) return Bad("field without a \"name\" string");
    f.name = nit->get<std::string>();
    auto tit = jf.find("type");
    if (tit == jf.end() || !tit->is_string()) {
      return Bad("field " + f.name + " without a \"type\" string");
    }
    Result<DataType> type = DataType::Parse(tit->get<std::string>());
    if (!type.ok()) return type.status().WithContext("schema JSON: field " + f.name);
    f.type = *type;
    TARN_RETURN_NOT_OK(GetInt32(jf, "id", true, -1, &f.field_id));
    TARN_RETURN_NOT_OK(GetBool(jf, "nullable", true, &f.nullable));
    auto cit = jf.find("children");
    if (cit != jf.end()) {
      if (!f.type.is_nested()) return Bad("field " + f.name + " has no children");
      TARN_RETURN_NOT_OK(ApplyNestedIds(*cit, f.name, &f.type));
    } else if (f.type.id() == TypeId::kArray) {
      // The form before nested ids: the element's id and nullability beside the field's.
      Field element = f.type.element_field();
      TARN_RETURN_NOT_OK(GetInt32(jf, "element_id", false, -1, &element.field_id));
      TARN_RETURN_NOT_OK(GetBool(jf, "element_nullable", element.nullable, &element.nullable));
      f.type = f.type.WithChildren({std::move(element)});
    }
    std::string lower = f.name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (!names.insert(lower).second) return Bad("duplicate field name " + f.name);
    for (int32_t id : AllIds(f)) {
      if (id == -1) continue;
      if (id <= 0) return Bad("field " + f.name + " has a non-positive id");
      if (!ids.insert(id).second) return Bad("duplicate field id " + std::to_string(id));
    }
    schema.fields.push_back(std::move(f));
  }
  return schema;
}

Status ValidateColumnName(std::string_view name) {
  auto fail = [&](std::string_view why) {
    std::string shown(name.substr(0, 140));
    return Status::Of(codes::kInvalidName,
                      "invalid column name \"" + shown + "\": " + std::string(why));
  };
  if (name.empty()) return fail("empty");
  if (name.size() > 128) return fail("longer than 128 characters");
  auto c0 = static_cast<unsigned char>(name[0]);
  if (!(std::isalpha(c0) || c0 == '_')) return fail("must start with a letter or '_'");
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || !(std::isalnum(c) || c == '_' || c == '-')) {
      return fail("only letters, digits, '_' and '-' are allowed");
    }
  }
  if (name.size() >= 5) {
    std::string prefix(name.substr(0, 5));
    std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    // The one tarn-made column a dataset may hold: an incremental materialized view's lineage.
    if (prefix == "_tarn" && name != kSourceRowIdColumn) {
      return fail("names starting with _tarn are reserved");
    }
  }
  return Status::OK();
}

int32_t MaxFieldId(const Schema& schema) {
  int32_t m = 0;
  for (const Field& f : schema.fields) {
    for (int32_t id : AllIds(f)) m = std::max(m, id);
  }
  return m;
}

Status AssignFieldIds(Schema* schema, int32_t* last_field_id) {
  std::unordered_set<int32_t> ids;
  for (const Field& f : schema->fields) {
    for (int32_t id : AllIds(f)) {
      if (id == -1) continue;
      if (!ids.insert(id).second) {
        return Status::InvalidArgument("duplicate field id " + std::to_string(id));
      }
    }
  }
  int32_t next = std::max(*last_field_id, MaxFieldId(*schema));
  Schema out = *schema;
  for (Field& f : out.fields) {
    if (f.field_id == -1) {
      if (next == INT32_MAX) return Status::InvalidArgument("field ids exhausted");
      f.field_id = ++next;
    }
    TARN_ASSIGN_OR_RETURN(f.type, AssignNestedIds(f.type, &next));
  }
  *schema = std::move(out);
  *last_field_id = next;
  return Status::OK();
}

const Field* FindFieldById(const Schema& schema, int32_t field_id) {
  for (const Field& f : schema.fields) {
    if (f.field_id == field_id) return &f;
  }
  return nullptr;
}

std::string QuoteColumnName(std::string_view name,
                            std::initializer_list<std::string_view> keywords) {
  bool plain =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) plain = false;
  }
  std::string up(name);
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view kw : keywords) {
    if (up == kw) plain = false;
  }
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

}  // namespace tarn
