// Internals of src/server shared by server.cc (HTTP plumbing over cpp-httplib) and routes.cc
// (the routes, which see a request only through Call and never include httplib.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/wire.h"
#include "auth/auth.h"
#include "server/metrics.h"
#include "server/server.h"
#include "tarn/access.h"
#include "tarn/status.h"

namespace tarn {
class Catalog;
class ObjectStore;
namespace upload {
class ContractService;
}
}  // namespace tarn

namespace tarn::server::internal {

// kBytes: raw bytes streamed to the route (the parts of an upload).
enum class BodyKind : uint8_t { kNone, kJson, kForm, kFrames, kBytes };

// Who may call a route: nobody checked (kOpen), any valid bearer token (kToken), or a role.
enum class Need : uint8_t { kOpen, kToken, kReader, kWriter, kOwner };

// Where the role of a route is checked: on the workspace and target named by the path (ws,
// coll, ds), on every workspace ("*"), or by the route itself once it has read the body.
enum class Scope : uint8_t { kNone, kPath, kGlobal, kBody };

class Call;
using RouteFn = Status (*)(Call&);

// One row of the route table: the single list that registers handlers, feeds Server::Routes()
// and that the OpenAPI test compares with docs/openapi.json.
struct RouteDef {
  const char* method;
  const char* path;  // OpenAPI form; {name} segments are identifiers
  Need need;
  Scope scope;
  BodyKind body;
  const char* action;  // audit action of a mutation, "" for reads
  RouteFn fn;
  // The query parameters the route reads, space-separated: the one list of them. Any other is
  // refused before authentication (422 unknown_parameter naming it), and Call::Query of a name
  // not listed is a programmer error (the request fails 500). openapi_test.cc compares it with
  // the route's query parameters in docs/openapi.json.
  const char* query = "";
  // Whether the path's last {param} takes the rest of the path, '/' included (a warehouse key:
  // the Iceberg facade's file route). It is decoded whole and checked as an object key.
  bool tail = false;
};
const std::vector<RouteDef>& RouteTable();

// The names of `def.query`, in order.
std::vector<std::string_view> QueryNames(const RouteDef& def);

// One audited target of a mutation.
struct AuditEntry {
  std::string action;
  std::string target;
  std::string workspace;
};

// Writes the bytes of a streamed response; kCancelled when the client went away.
using StreamWrite = std::function<Status(std::string_view bytes)>;
// Produces a streamed response. OK ends the response normally; an error aborts it (the client
// sees a truncated stream), so a producer writes its own error trailer (X frame, error line)
// and returns OK when the connection is still good.
using StreamFn = std::function<Status(const StreamWrite& write)>;

// What a route sees of its request and how it answers. One per request; not thread-safe.
class Call {
 public:
  virtual ~Call() = default;

  virtual Catalog& catalog() = 0;
  // The upload service over the catalog, acting as the verified caller (created_by, default
  // commit author); only for routes that are not kOpen.
  virtual upload::ContractService& uploads() = 0;
  virtual auth::TokenAuthority& authority() = 0;
  virtual Metrics& metrics() = 0;
  virtual const ServerOptions& options() const = 0;
  virtual const RouteDef& route() const = 0;
  virtual const std::string& request_id() const = 0;
  // The verified caller; only for routes that are not kOpen.
  virtual const auth::Principal& principal() const = 0;
  // Names the actor in the request log of an open route (the client id of a token exchange).
  virtual void set_log_actor(const std::string& actor) = 0;

  // A path parameter ("ws", "coll", "ds", "tag", "consumer", "client_id"), already validated
  // as an identifier; "" when the route has none of that name.
  virtual const std::string& Param(std::string_view name) const = 0;
  // A query parameter (URL-decoded), nullopt when absent. Only names of route().query.
  virtual std::optional<std::string> Query(std::string_view name) const = 0;
  virtual std::optional<int64_t> content_length() const = 0;
  // A request header ("" when absent).
  virtual std::string Header(std::string_view name) const = 0;

  // The body as one JSON object (at most options().max_json_body_bytes): 413 too_large,
  // 400 malformed_json (including nesting deeper than 64).
  virtual Result<api::Json> JsonBody() = 0;
  // The same with another limit (the samples of POST /v1/contracts).
  virtual Result<api::Json> JsonBodyUpTo(int64_t limit) = 0;
  // The body as application/x-www-form-urlencoded fields (same limit).
  virtual Result<std::map<std::string, std::string>> FormBody() = 0;
  // Streams the body to `sink` chunk by chunk; past `limit` bytes kTooLarge. An error from
  // `sink` stops the stream and is returned. Call at most once.
  virtual Status ReadBody(int64_t limit, const std::function<Status(std::string_view)>& sink) = 0;

  virtual void ReplyJson(const api::Json& body, int http_status = 200) = 0;
  virtual void ReplyText(std::string content_type, std::string body) = 0;
  // 204 No Content.
  virtual void ReplyNoContent() = 0;
  // 304 Not Modified (a conditional GET whose validator still matches).
  virtual void ReplyNotModified() = 0;
  // A chunked response produced by `fn` after the route returns (memory stays bounded).
  virtual void ReplyStream(std::string content_type, StreamFn fn) = 0;
  // A response of exactly `length` bytes, sent with Content-Length (not chunked) and written by
  // `fn` after the route returns; a HEAD request gets the head alone and `fn` is not called. A
  // producer that fails, or writes more or fewer bytes, ends the connection: the client sees a
  // short body.
  virtual void ReplySized(int http_status, std::string content_type, int64_t length,
                          StreamFn fn) = 0;
  // A header of the response, whatever its outcome (ETag, Content-Range, Allow); the transport
  // owns the framing headers (Content-Length, Transfer-Encoding, Connection).
  virtual void SetHeader(std::string_view name, std::string value) = 0;

  // What an error may say to the client (PublicError over the server's redaction context,
  // src/server/errors.h); when it says less than `st`, the original goes to the server log
  // with the request id. The function stays usable after the route returned (in a stream
  // producer writing its error trailer).
  virtual std::function<Status(const Status&)> ClientError() const = 0;

  // The targets the mutation is audited under (defaults from the route's action and path).
  virtual std::vector<AuditEntry>& audit_entries() = 0;
  // Set by commit routes: the commit transaction wrote the "ok" audit rows (CommitMeta::audit),
  // so only a failure is audited by the server.
  virtual void set_audited_by_commit() = 0;
  // The detail (a JSON object) of the audit rows the server writes for a successful call.
  virtual void set_audit_detail(std::string json) = 0;
  // An audit record of this request for CommitMeta::audit.
  virtual AuditRecord CommitAudit(const std::string& action) const = 0;
};

// The routes of /v1/contracts (contract_routes.cc), listed in the route table of routes.cc.
Status NegotiateContractRoute(Call& c);
Status GetContractRoute(Call& c);
Status RetypeContractRoute(Call& c);
Status IgnoreContractRoute(Call& c);
Status AcceptContractRoute(Call& c);
Status WritePartRoute(Call& c);
Status CommitContractRoute(Call& c);
Status AbandonContractRoute(Call& c);

// The Iceberg REST facade (iceberg_routes.cc; docs/design/iceberg.md "The REST facade"), listed
// in the route table of routes.cc under /iceberg/v1. A namespace is a workspace or
// workspace<0x1F>collection; the transport maps {namespace} and {table} onto the ws, coll and
// ds parameters (SplitNamespace), so the path-scoped role check applies to them unchanged.
Status IcebergConfigRoute(Call& c);
Status IcebergTokenRoute(Call& c);
Status IcebergListNamespacesRoute(Call& c);
Status IcebergLoadNamespaceRoute(Call& c);
Status IcebergNamespaceExistsRoute(Call& c);
Status IcebergListTablesRoute(Call& c);
Status IcebergLoadTableRoute(Call& c);
Status IcebergTableExistsRoute(Call& c);
Status IcebergFileRoute(Call& c);
// Every write of the Iceberg REST spec: 405, the facade is read-only.
Status IcebergReadOnlyRoute(Call& c);

// The token a form of POST /v1/token asks for (routes.cc): grant_type client_credentials
// (client_id, client_secret) or the RFC 8693 exchange of an OpenID Connect ID token
// (docs/design/federation.md). Also the Iceberg facade's POST /iceberg/v1/oauth/tokens.
Result<auth::IssuedToken> ExchangeTokenForm(Call& c,
                                            const std::map<std::string, std::string>& form);

// The levels of an Iceberg namespace ("ws" or "ws<0x1F>coll"), each an identifier (kInvalidArgument
// code=invalid_identifier otherwise); more than two levels name no tarn namespace (kNotFound
// code=collection_not_found).
Result<std::vector<std::string>> SplitNamespace(std::string_view ns);

// The table config loadTable gives for `warehouse`: for S3 what Iceberg's clients need to reach
// the store (s3.endpoint when not AWS's, s3.path-style-access, client.region and s3.region);
// empty otherwise (a local warehouse is read through the file route; gs:// is left to the client).
api::Json IcebergStorageConfig(ObjectStore& warehouse);

// The error body of a request: tarn's (api::ErrorBody), the Iceberg REST spec's
// ({"error":{"message","type","code"}}, every path under /iceberg/ but the token route), or
// OAuth2's ({"error","error_description"}, /iceberg/v1/oauth/tokens).
enum class ErrorShape : uint8_t { kTarn, kIceberg, kOAuth };
ErrorShape ErrorShapeOf(std::string_view raw_path);
// The HTTP status and body of the error `shown` (already PublicError'd) whose own status is
// `http`, in `shape`. The Iceberg shape answers 400 for tarn's 422 (the spec has no 422 on the
// routes the facade serves; its clients read 400 as a bad request).
std::pair<int, api::Json> ErrorResponse(ErrorShape shape, const Status& shown, int http);

// Checks a part name of PUT /v1/contracts/{id}/parts/{name}: 1 to 255 bytes, printable, no '/'
// or '\\', not "." or ".."; kInvalidArgument otherwise.
Status ValidatePartName(std::string_view name);

// The "code" field of an error, else its kind's name.
std::string ErrorCodeOf(const Status& st);

// Whether `s` is a sane X-Request-Id to echo: 1 to 128 characters of [A-Za-z0-9._:-].
bool SaneRequestId(std::string_view s);
// The largest nesting depth of JSON text (brackets outside strings); stops counting past
// `cap`.
int JsonDepth(std::string_view text, int cap);
// Decodes application/x-www-form-urlencoded text ('+' is a space, %XX escapes); kInvalidArgument
// (code=malformed_request) for a bad escape.
Result<std::map<std::string, std::string>> ParseForm(std::string_view text);

}  // namespace tarn::server::internal
