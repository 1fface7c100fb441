// The read-only Iceberg REST catalog facade of `tarn serve` (docs/design/iceberg.md "The REST
// facade"; the Iceberg REST spec, open-api/rest-catalog-open-api.yaml), prefix "tarn", listed in
// the route table of routes.cc under /iceberg/v1.
//
// Namespaces are a workspace ("ws") or a collection ("ws<0x1F>coll", `%1F` in paths); tables are
// the datasets of a collection. The transport maps {namespace} and {table} onto ws, coll and ds
// (SplitNamespace), so the role a row needs is checked on them exactly as on the /v1 routes; the
// file route finds its dataset by uuid and checks the role itself. loadTable answers
// Catalog::IcebergTable: over a local warehouse every object it names is a URL of the file route
// under ServerOptions::public_url (never the request's Host), over S3 the warehouse's s3:// URIs
// with what a client needs to reach the store in "config". Errors are in the spec's shape
// (ErrorResponse), the token route's in OAuth2's.
#include <algorithm>
#include <memory>

#include "catalog/catalog.h"
#include "catalog/error_codes.h"
#include "common/digest.h"
#include "common/hex.h"
#include "common/text.h"
#include "objectstore/object_store.h"
#include "objectstore/s3/s3_store.h"
#include "server/error_codes.h"
#include "server/http_request.h"
#include "server/server_internal.h"

namespace tarn::server::internal {

namespace {

using api::Json;

constexpr char kUnitSeparator = '\x1f';
constexpr std::string_view kFacadeRoot = "/iceberg/v1/tarn/";
constexpr std::string_view kFileRoute = "/iceberg/v1/tarn/files/";
// What a file route response reads of the object at once.
constexpr size_t kFileChunk = 1 << 20;

std::string CollQ(Call& c) { return c.Param("ws") + "." + c.Param("coll"); }
std::string DsQ(Call& c) { return CollQ(c) + "." + c.Param("ds"); }

Json Levels(std::initializer_list<std::string> levels) {
  Json a = Json::array();
  for (const auto& l : levels) a.push_back(l);
  return a;
}

// A table asked for in a one-level namespace: workspaces hold collections, not tables.
Status NoTableInWorkspace(Call& c) {
  return Status::Of(codes::kDatasetNotFound, "no table " + c.Param("table") + " in namespace " +
                                                 c.Param("ws") +
                                                 ": tables are in a workspace.collection namespace")
      .WithField("dataset", c.Param("ws") + "." + c.Param("table"));
}

// Whether the warehouse is an object store its readers reach themselves (s3://, gs://); a local
// (or in-memory) warehouse is read through the file route.
bool ReadersReachWarehouse(Call& c) {
  const std::string& uri = c.catalog().warehouse().uri();
  return uri.rfind("s3://", 0) == 0 || uri.rfind("gs://", 0) == 0;
}

// The ETag of a loadTable answer: the metadata file (named by its content's hash) and the
// snapshots mode, which together fix the body.
std::string TableETag(const std::string& metadata_location, const std::string& mode) {
  return "\"" + HexEncode(Sha256(metadata_location + "\n" + mode).substr(0, 16)) + "\"";
}

// Whether an If-None-Match value names `etag` (weak comparison, RFC 9110 13.1.2).
bool NoneMatchHits(std::string_view header, std::string_view etag) {
  for (const std::string& part : SplitOn(header, ',')) {
    std::string_view tag = TrimSpace(part);
    if (tag == "*") return true;
    if (tag.rfind("W/", 0) == 0) tag.remove_prefix(2);
    if (tag == etag) return true;
  }
  return false;
}

// snapshots=refs: only the snapshots a branch or tag names.
void KeepReferencedSnapshots(Json& metadata) {
  if (!metadata.contains("snapshots") || !metadata["snapshots"].is_array()) return;
  std::vector<int64_t> named;
  if (metadata.contains("refs") && metadata["refs"].is_object()) {
    for (const auto& [name, ref] : metadata["refs"].items()) {
      if (ref.is_object() && ref.contains("snapshot-id") && ref["snapshot-id"].is_number()) {
        named.push_back(ref["snapshot-id"].get<int64_t>());
      }
    }
  }
  Json kept = Json::array();
  for (const Json& s : metadata["snapshots"]) {
    if (s.contains("snapshot-id") && s["snapshot-id"].is_number() &&
        std::find(named.begin(), named.end(), s["snapshot-id"].get<int64_t>()) != named.end()) {
      kept.push_back(s);
    }
  }
  metadata["snapshots"] = std::move(kept);
}

std::string ContentTypeOf(std::string_view key) {
  auto ends = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.substr(key.size() - suffix.size()) == suffix;
  };
  if (ends(".json")) return "application/json";
  if (ends(".parquet")) return "application/vnd.apache.parquet";
  return "application/octet-stream";
}

Status NoSuchFile(std::string_view uuid, std::string_view key) {
  return Status::NotFound("no object " + std::string(key.substr(0, 300)) + " of dataset " +
                          std::string(uuid));
}

}  // namespace

Result<std::vector<std::string>> SplitNamespace(std::string_view ns) {
  std::vector<std::string> levels = SplitOn(ns, kUnitSeparator);
  for (const std::string& level : levels) {
    TARN_RETURN_NOT_OK(ValidateIdentifier("namespace level", level));
  }
  if (levels.size() > 2) {
    std::string dotted;
    for (const auto& l : levels) dotted += (dotted.empty() ? "" : ".") + l;
    return Status::Of(codes::kCollectionNotFound,
                      "no namespace " + dotted +
                          ": tarn's namespaces are a workspace or a workspace.collection")
        .WithField("collection", dotted);
  }
  return levels;
}

Json IcebergStorageConfig(ObjectStore& warehouse) {
  Json config = Json::object();
  auto* s3 = dynamic_cast<S3ObjectStore*>(&warehouse);
  if (s3 == nullptr || warehouse.uri().rfind("s3://", 0) != 0) return config;
  const S3Options& o = s3->options();
  if (!o.endpoint.empty()) config["s3.endpoint"] = o.endpoint;
  config["s3.path-style-access"] = s3->path_style() ? "true" : "false";
  config["client.region"] = o.region;
  config["s3.region"] = o.region;  // PyIceberg's name of it
  return config;
}

ErrorShape ErrorShapeOf(std::string_view raw_path) {
  if (raw_path == "/iceberg/v1/oauth/tokens") return ErrorShape::kOAuth;
  if (raw_path.rfind("/iceberg/", 0) == 0) return ErrorShape::kIceberg;
  return ErrorShape::kTarn;
}

std::pair<int, Json> ErrorResponse(ErrorShape shape, const Status& shown, int http) {
  if (shape == ErrorShape::kTarn) return {http, api::ErrorBody(shown)};
  if (http == 422) http = 400;
  const std::string code = ErrorCodeOf(shown);
  if (shape == ErrorShape::kOAuth) {
    // RFC 6749 5.2, as Iceberg's clients parse it (OAuthErrorResponse).
    std::string error = code == "unsupported_grant_type" ? "unsupported_grant_type"
                        : http == 401                    ? "invalid_client"
                                                         : "invalid_request";
    return {http, Json{{"error", error}, {"error_description", shown.message()}}};
  }
  std::string type;
  switch (http) {
    case 400:
      type = "BadRequestException";
      break;
    case 401:
      type = "NotAuthorizedException";
      break;
    case 403:
      type = "ForbiddenException";
      break;
    case 404:
      type = code == codes::kDatasetNotFound.name ? "NoSuchTableException"
             : code == codes::kWorkspaceNotFound.name || code == codes::kCollectionNotFound.name
                 ? "NoSuchNamespaceException"
                 : "NotFoundException";
      break;
    case 405:
      type = "UnsupportedOperationException";
      break;
    case 500:
      type = "ServiceFailureException";
      break;
    case 503:
      type = "ServiceUnavailableException";
      break;
    default:
      type = http < 500 ? "BadRequestException" : "InternalServerError";
  }
  return {http, Json{{"error", {{"message", shown.message()}, {"type", type}, {"code", http}}}}};
}

// ---- configuration and tokens ----

// The read endpoints, from the route table (the one list): its GET and HEAD rows under the
// namespaces, in the spec's "METHOD /v1/{prefix}/..." form.
Status IcebergConfigRoute(Call& c) {
  Json endpoints = Json::array();
  const std::string namespaces = std::string(kFacadeRoot) + "namespaces";
  for (const RouteDef& r : RouteTable()) {
    std::string_view path = r.path, method = r.method;
    if (path.rfind(namespaces, 0) != 0 || r.fn == IcebergReadOnlyRoute) continue;
    if (method != "GET" && method != "HEAD") continue;
    endpoints.push_back(std::string(method) + " /v1/{prefix}/" +
                        std::string(path.substr(kFacadeRoot.size())));
  }
  c.ReplyJson(Json{{"defaults", Json::object()},
                   {"overrides", {{"prefix", "tarn"}}},
                   {"endpoints", std::move(endpoints)}});
  return Status::OK();
}

// What Iceberg clients send to exchange client credentials (or an ID token) for the bearer token
// of the other requests: POST /v1/token's exchange, answered in OAuth2's form. A `scope` is
// accepted and ignored (the token carries its client's role, workspace and pattern).
Status IcebergTokenRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(auto form, c.FormBody());
  TARN_ASSIGN_OR_RETURN(auto issued, ExchangeTokenForm(c, form));
  c.ReplyJson(Json{{"access_token", issued.access_token},
                   {"token_type", "bearer"},
                   {"expires_in", issued.expires_in_s},
                   {"issued_token_type", "urn:ietf:params:oauth:token-type:access_token"}});
  return Status::OK();
}

Status IcebergReadOnlyRoute(Call& c) {
  std::string allow;
  for (const RouteDef& r : RouteTable()) {
    if (std::string_view(r.path) != c.route().path || r.fn == IcebergReadOnlyRoute) continue;
    allow += (allow.empty() ? "" : ", ") + std::string(r.method);
  }
  c.SetHeader("Allow", allow);
  return Status::Of(codes::kMethodNotAllowed,
                    std::string(c.route().method) +
                        " is not served: tarn's Iceberg REST catalog is read-only (write through "
                        "tarn's own API)")
      .WithField("allow", allow);
}

// ---- namespaces ----

// Top-level namespaces are the workspaces the caller may read; under one, its collections; a
// collection has none.
Status IcebergListNamespacesRoute(Call& c) {
  const auth::Principal& p = c.principal();
  const std::string parent = c.Query("parent").value_or("");
  Json namespaces = Json::array();
  if (parent.empty()) {
    TARN_ASSIGN_OR_RETURN(auto all, c.catalog().ListWorkspaces());
    for (const auto& w : all) {
      if (auth::MayAccess(p, Role::kReader, w.name, "")) namespaces.push_back(Levels({w.name}));
    }
  } else {
    auto levels = SplitNamespace(parent);
    if (!levels.ok()) return levels.status().WithField("field", "parent");
    const std::string& ws = (*levels)[0];
    if (levels->size() == 1) {
      TARN_RETURN_NOT_OK(auth::Authorize(p, Role::kReader, ws, ""));
      TARN_ASSIGN_OR_RETURN(auto colls, c.catalog().ListCollections(ws));
      for (const auto& coll : colls) {
        if (auth::MayAccess(p, Role::kReader, ws, coll.name)) {
          namespaces.push_back(Levels({ws, coll.name}));
        }
      }
    } else {
      TARN_RETURN_NOT_OK(auth::Authorize(p, Role::kReader, ws, (*levels)[1]));
      TARN_RETURN_NOT_OK(c.catalog().GetCollection(ws + "." + (*levels)[1]).status());
    }
  }
  c.ReplyJson(Json{{"namespaces", std::move(namespaces)}});
  return Status::OK();
}

Status IcebergLoadNamespaceRoute(Call& c) {
  Json properties = Json::object();
  Json levels;
  if (c.Param("coll").empty()) {
    TARN_ASSIGN_OR_RETURN(auto w, c.catalog().GetWorkspace(c.Param("ws")));
    for (const auto& [k, v] : w.properties) properties[k] = v;
    levels = Levels({w.name});
  } else {
    TARN_ASSIGN_OR_RETURN(auto coll, c.catalog().GetCollection(CollQ(c)));
    for (const auto& [k, v] : coll.properties) properties[k] = v;
    if (!coll.description.empty()) properties["comment"] = coll.description;
    levels = Levels({coll.workspace, coll.name});
  }
  c.ReplyJson(Json{{"namespace", std::move(levels)}, {"properties", std::move(properties)}});
  return Status::OK();
}

Status IcebergNamespaceExistsRoute(Call& c) {
  if (c.Param("coll").empty()) {
    TARN_RETURN_NOT_OK(c.catalog().GetWorkspace(c.Param("ws")).status());
  } else {
    TARN_RETURN_NOT_OK(c.catalog().GetCollection(CollQ(c)).status());
  }
  c.ReplyNoContent();
  return Status::OK();
}

// ---- tables ----

Status IcebergListTablesRoute(Call& c) {
  Json identifiers = Json::array();
  if (c.Param("coll").empty()) {
    TARN_RETURN_NOT_OK(c.catalog().GetWorkspace(c.Param("ws")).status());
  } else {
    TARN_ASSIGN_OR_RETURN(auto names, c.catalog().ListDatasetNames(CollQ(c)));
    for (const auto& d : names) {
      if (d.dropped || !auth::MayAccess(c.principal(), Role::kReader, c.Param("ws"),
                                        c.Param("coll") + "." + d.name)) {
        continue;
      }
      identifiers.push_back(
          Json{{"namespace", Levels({c.Param("ws"), c.Param("coll")})}, {"name", d.name}});
    }
  }
  c.ReplyJson(Json{{"identifiers", std::move(identifiers)}});
  return Status::OK();
}

// loadTable: the metadata of the current snapshot (produced on the first request), an ETag
// that If-None-Match turns into 304, and the storage config.
Status IcebergLoadTableRoute(Call& c) {
  if (c.Param("coll").empty()) return NoTableInWorkspace(c);
  const std::string mode = c.Query("snapshots").value_or("all");
  if (mode != "all" && mode != "refs") {
    return Status::Of(codes::kInvalidParameter, "query parameter snapshots: must be all or refs")
        .WithField("field", "snapshots");
  }
  IcebergRequest request;
  if (!ReadersReachWarehouse(c)) {
    request.file_base = c.options().public_url + std::string(kFileRoute);
  }
  TARN_ASSIGN_OR_RETURN(auto info, c.catalog().IcebergTable(DsQ(c), request));
  const std::string etag = TableETag(info.metadata_location, mode);
  c.SetHeader("ETag", etag);
  if (std::string match = c.Header("If-None-Match"); !match.empty() && NoneMatchHits(match, etag)) {
    c.ReplyNotModified();
    return Status::OK();
  }
  Json metadata = Json::parse(info.metadata, nullptr, false);
  if (!metadata.is_object()) {
    return Status::Internal("the Iceberg metadata of " + info.dataset + " is not a JSON object");
  }
  if (mode == "refs") KeepReferencedSnapshots(metadata);
  c.ReplyJson(Json{{"metadata-location", info.metadata_location},
                   {"metadata", std::move(metadata)},
                   {"config", IcebergStorageConfig(c.catalog().warehouse_files())}});
  return Status::OK();
}

// tableExists: the dataset, without producing its metadata.
Status IcebergTableExistsRoute(Call& c) {
  if (c.Param("coll").empty()) return NoTableInWorkspace(c);
  TARN_RETURN_NOT_OK(c.catalog().LoadDataset(DsQ(c)).status());
  c.ReplyNoContent();
  return Status::OK();
}

// ---- the file route of a local warehouse ----

// GET|HEAD files/{uuid}/{key}: the warehouse object `key` of the live dataset `uuid`, for a
// caller who may read that dataset, when the key is under the dataset's prefix or one of its
// granted locations (else 404, as for a missing object). One byte range when asked (206), the
// object streamed from the store a chunk at a time.
Status IcebergFileRoute(Call& c) {
  const std::string& uuid = c.Param("uuid");
  const std::string& key = c.Param("key");  // ValidateKey'd: no empty, "." or ".." segment
  TARN_ASSIGN_OR_RETURN(auto object, c.catalog().DatasetObjectOf(uuid, key));
  if (!object) return NoSuchFile(uuid, key);
  TARN_ASSIGN_OR_RETURN(DatasetName n, ParseDatasetName(object->dataset));
  TARN_RETURN_NOT_OK(
      auth::Authorize(c.principal(), Role::kReader, n.workspace, n.collection + "." + n.dataset));
  if (!object->owned) return NoSuchFile(uuid, key);
  auto opened = c.catalog().warehouse().OpenRead(key);
  if (!opened.ok()) {
    if (opened.status().kind() == ErrorKind::kNotFound) return NoSuchFile(uuid, key);
    return opened.status();
  }
  std::shared_ptr<RandomAccessFile> file = std::move(*opened);
  const uint64_t size = file->Size();
  c.SetHeader("Accept-Ranges", "bytes");
  auto range = ParseRange(c.Header("Range"), size);
  if (!range.ok()) {
    c.SetHeader("Content-Range", "bytes */" + std::to_string(size));
    return range.status();
  }
  ByteRange want{0, size};
  int status = 200;
  if (*range) {
    want = **range;
    status = 206;
    c.SetHeader("Content-Range", "bytes " + std::to_string(want.offset) + "-" +
                                     std::to_string(want.offset + want.length - 1) + "/" +
                                     std::to_string(size));
  }
  c.ReplySized(status, ContentTypeOf(key), static_cast<int64_t>(want.length),
               [file, want](const StreamWrite& write) -> Status {
                 std::string buf;
                 for (uint64_t done = 0; done < want.length;) {
                   const size_t n =
                       static_cast<size_t>(std::min<uint64_t>(kFileChunk, want.length - done));
                   buf.resize(n);
                   TARN_RETURN_NOT_OK(
                       file->ReadAt(want.offset + done, n, reinterpret_cast<uint8_t*>(buf.data())));
                   TARN_RETURN_NOT_OK(write(buf));
                   done += n;
                 }
                 return Status::OK();
               });
  return Status::OK();
}

}  // namespace tarn::server::internal
