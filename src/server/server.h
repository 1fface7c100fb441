// The HTTP service of `tarn serve` (docs/design/serve.md, docs/openapi.json): the routes of the
// API over one Catalog, bearer-token access control, limits, metrics, JSON request logs and a
// graceful shutdown. Thin: each route parses a request, checks the caller, calls the Catalog and
// renders the result with the wire codec of src/api.
//
//   auto server = Server::Make(catalog, options);   // nothing listens yet
//   TARN_RETURN_NOT_OK((*server)->Start());          // binds; port() tells the port
//   ...                                              // (SIGTERM) -> (*server)->Shutdown()
//   (*server)->Wait();
//
// Thread-safety: Start, Shutdown and Wait may be called from any thread; Shutdown from a signal
// watcher while another thread Waits is the intended use.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/auth.h"
#include "tarn/status.h"

namespace tarn {

class Catalog;

namespace server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8181;  // 0 = an ephemeral port (see Server::port())
  // A second listener that serves GET /metrics only, without a token, for a Prometheus scraper
  // (`tarn serve --metrics-listen`); -1: none (then /metrics is on the API, for any token).
  // 0 = an ephemeral port (Server::metrics_port()). Bind it where only the scraper reaches.
  std::string metrics_host = "127.0.0.1";
  int metrics_port = -1;

  int64_t max_json_body_bytes = 16ll << 20;  // JSON and form bodies (413 too_large)
  // Streamed bodies: frames of POST .../append, parts of PUT /v1/contracts/{id}/parts/{name}.
  int64_t max_append_body_bytes = 1ll << 30;
  // POST /v1/contracts: up to 48 MiB of samples, base64 in JSON.
  int64_t max_negotiate_body_bytes = 80ll << 20;
  int64_t max_header_bytes = 8 << 10;  // request line and headers together (431)
  int read_timeout_s = 30;             // per read of the socket
  int write_timeout_s = 30;            // per write of the socket
  int idle_timeout_s = 5;              // keep-alive connections without a request
  // The whole request line and headers must arrive within this many seconds of their first
  // byte (408 and close otherwise), however they trickle in.
  int header_timeout_s = 10;
  // A body must arrive at this average rate at least, after a grace: by `body_grace_s +
  // received / body_min_bytes_per_s` seconds from its start (408 and close otherwise).
  int64_t body_min_bytes_per_s = 4096;
  int body_grace_s = 10;
  // Open connections. A connection costs a socket and a few KiB, no thread: a slow client holds
  // no worker until its request head is complete. Past it: 503 + Retry-After at once, without
  // reading a request, and close.
  int max_connections = 4096;
  // Threads that serve requests whose head has arrived (routes block on the catalog). Requests
  // past them wait in a queue of 16 per worker; past that 503 overloaded.
  int workers = 64;
  int64_t token_ttl_s = 900;
  // Federated sign-in (docs/design/federation.md): the audience ID tokens must name, exactly.
  // Empty: the token-exchange grant of POST /v1/token is refused (unsupported_grant_type).
  std::string oidc_audience;
  double shutdown_grace_s = 30;  // how long Shutdown lets in-flight requests finish
  // Requests one keep-alive connection may carry before the server closes it.
  int max_requests_per_connection = 100000;
  // How often the server expires upload contracts past their lifetime (0: never).
  double contract_sweep_interval_s = 60;
  // How often the server fires the task schedules that are due (Catalog::FireDueSchedules;
  // every server of a metastore ticks, each slot fires once); 0: never.
  double schedule_tick_interval_s = 60;
  // The integrity sweep on a schedule (`tarn serve --fsck-every`; 0: never, else at least 1 s):
  // a whole-catalog Catalog::Fsck once per interval across every server on the metastore (the
  // slot is claimed in table periodic_runs), its findings alerted, logged and in /metrics.
  double fsck_interval_s = 0;
  // How often a server with fsck_interval_s asks whether the sweep is due (at most the interval).
  double fsck_poll_interval_s = 60;
  // Server-run housekeeping (docs/design/maintenance.md "Housekeeping"; `tarn serve
  // --no-housekeeping` sets all six to 0): how often each step runs over the whole catalog
  // (0: never, else at least 1 s): retention policies, cleanup (released files, orphans past
  // their grace), compaction of the datasets with compaction.auto=true, hydration of deferred
  // statistics, the missing manifests of datasets with manifest.on_commit, the flush of inlined
  // files (inline.max_bytes) to the warehouse. Every server polls; one runs each slot of a step
  // (table periodic_runs). Audited, logged and in /metrics.
  double expire_interval_s = 3600;
  double cleanup_interval_s = 3600;
  double compact_interval_s = 900;
  double hydrate_interval_s = 300;
  double manifest_interval_s = 900;
  double flush_interval_s = 600;
  // How often a server asks whether a housekeeping step is due (at most the shortest interval).
  double housekeeping_poll_interval_s = 60;

  // The base URL clients reach this server by ("https://tarn.example.com", `tarn serve
  // --public-url`): the Iceberg facade names a local warehouse's files by URLs of its file route
  // under it. Empty: "http://<host>:<bound port>" (a wildcard host as the loopback address). It
  // is never taken from a request's Host header, which a client chooses.
  std::string public_url;

  // Refresh jobs (docs/design/views.md, "Delivery"): when set, the server's dispatcher POSTs
  // each queued job to this URL (`tarn worker`'s) with a job token whose audience is exactly
  // it. Empty: jobs stay queued (`tarn jobs run` over the same metastore runs them).
  std::string worker_url;
  double dispatch_poll_interval_s = 1;
  int64_t job_lease_s = 900;

  // Where the JSON log lines go (one per request, one per audited mutation), each without a
  // trailing newline; called from many threads at once. Empty = stderr, one write(2) per line.
  std::function<void(std::string_view line)> log_sink;
};

// One route of the API, as registered and as docs/openapi.json lists it.
struct RouteInfo {
  std::string method;  // "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"
  std::string path;    // OpenAPI form: "/v1/workspaces/{ws}"
  // The role the route needs ("open", "token" for any valid token, "reader", "writer",
  // "owner"), and "global" when it must be held on every workspace ("*").
  std::string role;
  bool global = false;
  // Whether the route takes a body: "none", "json", "form" or "frames".
  std::string body;
  // The audit action of a mutation ("" for reads).
  std::string action;
  // The query parameters it reads; any other is 422 unknown_parameter.
  std::vector<std::string> query;
};

class Server {
 public:
  // Opens the token authority of the catalog's metastore (creating the first signing key when
  // there is none). Nothing listens until Start.
  static Result<std::unique_ptr<Server>> Make(std::shared_ptr<Catalog> catalog,
                                              ServerOptions options = {});
  ~Server();  // Shutdown() and Wait() when still running

  // Binds host:port (and the metrics listener's) and starts accepting in a background thread.
  // kUnavailable (code=bind_failed) when an address cannot be bound; kFailedPrecondition when
  // started twice.
  Status Start();
  // The bound port (the chosen one when options.port was 0); 0 before Start.
  int port() const;
  // The metrics listener's bound port; 0 before Start or without one.
  int metrics_port() const;
  // Stops accepting, lets in-flight requests finish for up to options.shutdown_grace_s, and
  // returns without waiting for them. Idle keep-alive connections close within the idle
  // timeout. Idempotent.
  void Shutdown();
  // Blocks until the server has stopped (after Shutdown) and in-flight requests finished or the
  // grace ran out.
  void Wait();

  // The token authority the server verifies bearer tokens with (for the bootstrap owner).
  auth::TokenAuthority& authority();

  // Every route the server registers, in registration order.
  static std::vector<RouteInfo> Routes();

  class Impl;

 private:
  explicit Server(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace server
}  // namespace tarn
