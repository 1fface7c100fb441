// docs/openapi.json describes exactly the routes the server registers (Server::Routes(), the
// route table), each with its parameters, body, responses and security.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "api/error_codes.h"
#include "api/wire.h"
#include "auth/error_codes.h"
#include "catalog/error_codes.h"
#include "datafile/error_codes.h"
#include "formats/error_codes.h"
#include "metastore/error_codes.h"
#include "sdk/upload_error_codes.h"
#include "server/error_codes.h"
#include "server/server.h"
#include "table/error_codes.h"

namespace tarn::server {
namespace {

using api::Json;

Json LoadSpec() {
  std::ifstream in(std::string(TARN_SOURCE_DIR) + "/docs/openapi.json", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Json j = Json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "docs/openapi.json is not JSON";
  return j;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Follows a local "$ref" ("#/components/...").
const Json& Deref(const Json& spec, const Json& j) {
  if (!j.is_object() || !j.contains("$ref")) return j;
  std::string ref = j["$ref"].get<std::string>();
  EXPECT_EQ(ref.rfind("#/", 0), 0u) << ref;
  const Json* at = &spec;
  size_t pos = 2;
  while (pos <= ref.size()) {
    size_t slash = ref.find('/', pos);
    if (slash == std::string::npos) slash = ref.size();
    std::string key = ref.substr(pos, slash - pos);
    if (!at->contains(key)) {
      ADD_FAILURE() << "dangling $ref " << ref;
      static const Json kNull;
      return kNull;
    }
    at = &(*at)[key];
    pos = slash + 1;
  }
  return *at;
}

TEST(OpenApi, IsOpenApi31WithBearerSecurity) {
  Json spec = LoadSpec();
  EXPECT_EQ(spec["openapi"], "3.1.0");
  EXPECT_TRUE(spec["info"].contains("title"));
  EXPECT_TRUE(spec["info"].contains("version"));
  const Json& scheme = spec["components"]["securitySchemes"]["bearer"];
  EXPECT_EQ(scheme["type"], "http");
  EXPECT_EQ(scheme["scheme"], "bearer");
  EXPECT_EQ(spec["security"], Json::parse(R"([{"bearer": []}])"));
  EXPECT_TRUE(spec["components"]["schemas"].contains("Error"));
}

TEST(OpenApi, ListsExactlyTheRegisteredRoutes) {
  Json spec = LoadSpec();
  std::set<std::string> registered;
  for (const auto& r : Server::Routes()) {
    registered.insert(r.method + " " + r.path);
    ASSERT_TRUE(spec["paths"].contains(r.path)) << "docs/openapi.json lacks path " << r.path;
    EXPECT_TRUE(spec["paths"][r.path].contains(Lower(r.method)))
        << "docs/openapi.json lacks " << r.method << " " << r.path;
  }
  static const std::set<std::string> kMethods = {"get", "head", "post", "put", "patch", "delete"};
  for (const auto& [path, item] : spec["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      if (!kMethods.count(method)) continue;
      std::string m = method;
      for (char& c : m) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      EXPECT_TRUE(registered.count(m + " " + path))
          << "docs/openapi.json lists " << m << " " << path << " but the server has no such route";
    }
  }
}

TEST(OpenApi, EveryOperationDescribesItsParametersBodyResponsesAndSecurity) {
  Json spec = LoadSpec();
  std::set<std::string> operation_ids;
  for (const auto& r : Server::Routes()) {
    const Json& op = spec["paths"][r.path][Lower(r.method)];
    std::string where = r.method + " " + r.path;
    ASSERT_TRUE(op.is_object()) << where;
    ASSERT_TRUE(op.contains("operationId")) << where;
    EXPECT_TRUE(operation_ids.insert(op["operationId"].get<std::string>()).second)
        << "duplicate operationId at " << where;
    EXPECT_TRUE(op.contains("summary")) << where;

    // Path parameters: every {name} is declared, required, and an identifier.
    std::set<std::string> declared;
    Json params = Json::array();
    for (const Json* list : std::vector<const Json*>{&spec["paths"][r.path], &op}) {
      if (list->contains("parameters")) {
        for (const auto& p : (*list)["parameters"]) params.push_back(Deref(spec, p));
      }
    }
    for (const auto& p : params) {
      if (p["in"] == "path") {
        declared.insert(p["name"].get<std::string>());
        EXPECT_EQ(p["required"], true) << where;
      }
    }
    for (size_t i = r.path.find('{'); i != std::string::npos; i = r.path.find('{', i + 1)) {
      std::string name = r.path.substr(i + 1, r.path.find('}', i) - i - 1);
      EXPECT_TRUE(declared.count(name)) << where << " does not declare path parameter " << name;
    }

    // Query parameters: exactly those the route table lists (RouteDef::query), since any
    // other is 422 unknown_parameter.
    std::set<std::string> query;
    for (const auto& p : params) {
      if (p["in"] == "query") query.insert(p["name"].get<std::string>());
    }
    EXPECT_EQ(query, std::set<std::string>(r.query.begin(), r.query.end()))
        << where << ": docs/openapi.json's query parameters differ from the route table's";

    // A body exactly where the route takes one, of the right media type.
    static const std::map<std::string, std::string> kMedia = {
        {"json", "application/json"},
        {"form", "application/x-www-form-urlencoded"},
        {"frames", "application/vnd.tarn.frames"},
        {"bytes", "application/octet-stream"}};
    if (r.body == "none") {
      EXPECT_FALSE(op.contains("requestBody")) << where;
    } else {
      ASSERT_TRUE(op.contains("requestBody")) << where;
      EXPECT_TRUE(Deref(spec, op["requestBody"])["content"].contains(kMedia.at(r.body))) << where;
    }

    // Responses: a success, and the error body for the failures the route can give.
    const Json& responses = op["responses"];
    bool success = false;
    for (const auto& [code, resp] : responses.items()) success = success || code[0] == '2';
    ASSERT_TRUE(success) << where << " has no 2xx response";
    std::vector<std::string> errors = {"default"};
    if (r.role != "open") errors.push_back("401");
    if (r.role != "open" && r.role != "token") errors.push_back("403");
    if (r.body != "none") errors.push_back("413");
    for (const auto& code : errors) {
      ASSERT_TRUE(responses.contains(code)) << where << " lacks response " << code;
      const Json& resp = Deref(spec, responses[code]);
      EXPECT_TRUE(resp["content"]["application/json"]["schema"].is_object())
          << where << " " << code;
    }

    // Open routes say so; the rest take the global bearer requirement.
    if (r.role == "open") {
      EXPECT_EQ(op["security"], Json::array()) << where;
    } else {
      EXPECT_FALSE(op.contains("security")) << where;
    }
    EXPECT_EQ(op["x-tarn-role"], r.role) << where;
    if (!r.action.empty()) {
      EXPECT_EQ(op["x-tarn-audit-action"], r.action) << where;
    }
  }
}

// The error codes docs/openapi.json lists (the enum of Error.error.code) are the registry's: each
// listed code is registered, and every registered code a response can carry (of the modules
// `tarn serve` links, whose error_codes.h this test includes) is listed, as is every kind's name.
TEST(OpenApi, ListsExactlyTheRegisteredErrorCodes) {
  Json spec = LoadSpec();
  const Json& code =
      spec["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"];
  ASSERT_TRUE(code.contains("enum")) << "docs/openapi.json's Error code lists no codes";
  std::set<std::string> documented;
  for (const auto& c : code["enum"]) {
    ASSERT_TRUE(c.is_string());
    EXPECT_TRUE(documented.insert(c.get<std::string>()).second) << "listed twice: " << c;
  }
  for (const std::string& name : documented) {
    const ErrorCode* c = ErrorRegistry::Find(name);
    ASSERT_NE(c, nullptr) << "docs/openapi.json lists " << name << ", which no module declares";
    EXPECT_TRUE(c->served) << name << " is never in a response, yet docs/openapi.json lists it";
  }
  size_t served = 0;
  for (const ErrorCode* c : ErrorRegistry::All()) {
    if (!c->served) continue;
    ++served;
    EXPECT_TRUE(documented.count(std::string(c->name)))
        << "docs/openapi.json does not list error code " << c->name;
    EXPECT_EQ(c->http >= 400 && c->http < 600, true) << c->name;
  }
  for (ErrorKind k = ErrorKind::kInvalidArgument; k <= ErrorKind::kInternal;
       k = static_cast<ErrorKind>(static_cast<int>(k) + 1)) {
    EXPECT_TRUE(documented.count(std::string(ErrorKindName(k)))) << ErrorKindName(k);
  }
  // A few of each module, so a header this test no longer includes is noticed.
  for (const ErrorCode* c : {&codes::kPathNotOwned, &codes::kContractStale, &codes::kMalformedJson,
                             &codes::kValueNotCastable, &codes::kTokenRevoked,
                             &codes::kMethodNotAllowed, &codes::kMetastorePoolExhausted,
                             &codes::kPredicateTypeMismatch, &codes::kFileMetadataMismatch}) {
    EXPECT_EQ(ErrorRegistry::Find(c->name), c) << c->name;
  }
  EXPECT_GE(served, 90u);
}

TEST(OpenApi, EveryReferenceResolves) {
  Json spec = LoadSpec();
  std::function<void(const Json&)> walk = [&](const Json& j) {
    if (j.is_object()) {
      if (j.contains("$ref")) Deref(spec, j);
      for (const auto& [k, v] : j.items()) walk(v);
    } else if (j.is_array()) {
      for (const auto& v : j) walk(v);
    }
  };
  walk(spec);
}

}  // namespace
}  // namespace tarn::server
