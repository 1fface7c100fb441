// Schemas as JSON (stored in the metastore) and the rules for column names and field ids.
//
// JSON form: {"fields":[{"id":1,"name":"id","type":"INT64","nullable":false},
//   {"id":3,"name":"tags","type":"ARRAY<VARCHAR>","nullable":true,"element_id":4,
//    "element_nullable":true,"children":[{"id":4,"name":"element"}]},
//   {"id":5,"name":"p","type":"STRUCT<a: INT64, m: MAP<VARCHAR, INT64>>","nullable":true,
//    "children":[{"id":6,"name":"a"},{"id":7,"name":"m","children":[{"id":8,"name":"key"},
//    {"id":9,"name":"value"}]}]}]}
// Type strings are DataType::ToString() / DataType::Parse (nested nullability included);
// "children" holds the nested field ids in the type's order (STRUCT members, ARRAY element, MAP
// key and value). ARRAY fields also carry "element_id" and "element_nullable", the form before
// nested ids, which is still read when "children" is absent. Field ids are preserved exactly.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "tarn/data_type.h"
#include "tarn/status.h"

namespace tarn {

std::string SchemaToJson(const Schema& schema);
// The top-level field with this id, or nullptr.
const Field* FindFieldById(const Schema& schema, int32_t field_id);
// A column name as the text syntaxes (partition specs, sort orders, predicates) read it back:
// bare when it is an identifier and not one of `keywords` (compared case-insensitively), else
// "double-quoted" with "" escapes.
std::string QuoteColumnName(std::string_view name,
                            std::initializer_list<std::string_view> keywords = {});
// Errors: kInvalidArgument (malformed JSON, missing/ill-typed keys, bad type names, duplicate
// names or field ids), naming what is wrong.
Result<Schema> SchemaFromJson(std::string_view json);

// Identifier rule ^[A-Za-z_][A-Za-z0-9_-]{0,127}$; names starting with "_tarn" (any case) are
// reserved. Errors: kInvalidArgument with field code=invalid_name.
Status ValidateColumnName(std::string_view name);

// The largest field id in `schema`, nested ids included; 0 when there is none.
int32_t MaxFieldId(const Schema& schema);

// Gives fields and nested fields with id -1 fresh ids above *last_field_id, in field order (a
// field's nested ids right after the field's, AssignNestedIds' order), and updates
// *last_field_id.
// Errors: kInvalidArgument on a duplicate of an existing id; *last_field_id is then unchanged.
Status AssignFieldIds(Schema* schema, int32_t* last_field_id);

}  // namespace tarn
