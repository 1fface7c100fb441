// Internals of src/server shared by server.cc (HTTP plumbing over cpp-httplib) and routes.cc
// (the routes, which see a request only through Call and never include httplib.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/wire.h"
#include "auth/auth.h"
#include "server/metrics.h"
#include "server/server.h"
#include "tarn/access.h"
#include "tarn/status.h"

namespace tarn {
class Catalog;
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
  // A chunked response produced by `fn` after the route returns (memory stays bounded).
  virtual void ReplyStream(std::string content_type, StreamFn fn) = 0;

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
