// `tarn serve`: the HTTP service (src/server) over an embedded catalog directory, or over a
// metastore and a warehouse given as URIs. SIGINT/SIGTERM shut it down gracefully (exit 0); a
// second signal exits at once.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "alerts/alerts.h"
#include "catalog/catalog.h"
#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "common/units.h"
#include "server/server.h"

namespace tarn::cli {

namespace {

struct ServeOptions {
  std::string listen = "127.0.0.1:8181";
  std::string metrics_listen;  // empty: /metrics only on the API, for any token
  std::string metastore;
  std::string warehouse;
  std::string max_body = "1GiB";
  std::string max_json_body = "16MiB";
  std::string max_header_bytes = "8KiB";
  int read_timeout = 30;
  int write_timeout = 30;
  int idle_timeout = 5;
  int header_timeout = 10;
  std::string body_min_rate = "4KiB";
  int body_grace = 10;
  int max_connections = 4096;
  int workers = 64;
  int64_t token_ttl = 900;
  double shutdown_grace = 30;
  std::string oidc_audience;
  std::string worker_url;
  std::string public_url;  // empty: http://<--listen>
  int64_t job_lease = 900;
  std::string fsck_every;  // empty: no scheduled integrity sweep
  // Housekeeping (docs/design/maintenance.md "Housekeeping"): each step's interval.
  std::string expire_every = "1h", cleanup_every = "1h", compact_every = "15m",
              hydrate_every = "5m", manifest_every = "15m", flush_every = "10m";
  bool no_housekeeping = false;
  double schedule_tick = 60;
};

Result<int64_t> ParseSize(const std::string& flag, const std::string& text) {
  auto n = ParseByteSize(text);
  if (!n.ok()) return n.status().WithContext(flag);
  return n;
}

// "host:port", "[v6]:port" or ":port" (every interface), of the option `flag`.
Status ParseListen(const std::string& flag, const std::string& text, std::string* host_out,
                   int* port_out) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument(flag + ": '" + text + "' is not HOST:PORT");
  }
  std::string host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "0.0.0.0";
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return Status::InvalidArgument(flag + ": '" + port + "' is not a port (0 to 65535)");
  }
  *host_out = host;
  *port_out = std::stoi(port);
  return Status::OK();
}

// The catalog to serve: --metastore/--warehouse, else the directory of --catalog, else
// $TARN_CATALOG when it names a directory, else ~/.tarn.
Result<std::shared_ptr<Catalog>> OpenServedCatalog(const ServeOptions& s) {
  const std::string& dir_flag = SharedCatalogOptions()->dir;
  if (!s.metastore.empty() || !s.warehouse.empty()) {
    if (s.metastore.empty() || s.warehouse.empty()) {
      return Status::InvalidArgument("--metastore and --warehouse go together");
    }
    if (!dir_flag.empty()) {
      return Status::InvalidArgument("give --catalog DIR or --metastore and --warehouse, not both");
    }
    TARN_ASSIGN_OR_RETURN(auto cat, Catalog::Open(s.metastore, s.warehouse));
    return std::shared_ptr<Catalog>(std::move(cat));
  }
  auto is_url = [](const std::string& t) {
    return t.rfind("http://", 0) == 0 || t.rfind("https://", 0) == 0;
  };
  std::string dir = dir_flag;
  if (!dir.empty() && is_url(dir)) {
    return Status::InvalidArgument("tarn serve needs a catalog directory, not a URL: " + dir);
  }
  if (dir.empty()) {
    const char* env = std::getenv("TARN_CATALOG");
    if (env && *env && !is_url(env)) dir = env;
  }
  if (dir.empty()) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
      return Status::InvalidArgument("no catalog: pass --catalog DIR or set HOME");
    }
    dir = std::string(home) + "/.tarn";
  }
  TARN_ASSIGN_OR_RETURN(auto cat, Catalog::OpenEmbedded(dir));
  return std::shared_ptr<Catalog>(std::move(cat));
}

Status Serve(const ServeOptions& s) {
  server::ServerOptions o;
  TARN_RETURN_NOT_OK(ParseListen("--listen", s.listen, &o.host, &o.port));
  if (!s.metrics_listen.empty()) {
    TARN_RETURN_NOT_OK(
        ParseListen("--metrics-listen", s.metrics_listen, &o.metrics_host, &o.metrics_port));
  }
  TARN_ASSIGN_OR_RETURN(o.max_append_body_bytes, ParseSize("--max-body", s.max_body));
  TARN_ASSIGN_OR_RETURN(o.max_json_body_bytes, ParseSize("--max-json-body", s.max_json_body));
  TARN_ASSIGN_OR_RETURN(o.max_header_bytes, ParseSize("--max-header-bytes", s.max_header_bytes));
  o.read_timeout_s = s.read_timeout;
  o.write_timeout_s = s.write_timeout;
  o.idle_timeout_s = s.idle_timeout;
  o.header_timeout_s = s.header_timeout;
  TARN_ASSIGN_OR_RETURN(o.body_min_bytes_per_s, ParseSize("--body-min-rate", s.body_min_rate));
  o.body_grace_s = s.body_grace;
  o.max_connections = s.max_connections;
  o.workers = s.workers;
  o.token_ttl_s = s.token_ttl;
  o.shutdown_grace_s = s.shutdown_grace;
  o.oidc_audience = s.oidc_audience;
  o.worker_url = s.worker_url;
  o.public_url = s.public_url;
  o.job_lease_s = s.job_lease;
  if (o.worker_url.empty()) {
    if (const char* env = std::getenv("TARN_WORKER_URL")) o.worker_url = env;
  }
  o.schedule_tick_interval_s = s.schedule_tick;
  if (!s.fsck_every.empty()) {
    auto every = ParseDuration(s.fsck_every);
    if (!every.ok()) return Status::InvalidArgument("--fsck-every: " + every.status().message());
    if (*every < 1'000'000) {
      return Status::InvalidArgument("--fsck-every: at least 1s (a whole-catalog sweep)");
    }
    o.fsck_interval_s = static_cast<double>(*every) / 1e6;
  }
  for (auto [flag, text, out] :
       {std::tuple{"--expire-every", &s.expire_every, &o.expire_interval_s},
        std::tuple{"--cleanup-every", &s.cleanup_every, &o.cleanup_interval_s},
        std::tuple{"--compact-every", &s.compact_every, &o.compact_interval_s},
        std::tuple{"--hydrate-every", &s.hydrate_every, &o.hydrate_interval_s},
        std::tuple{"--manifest-every", &s.manifest_every, &o.manifest_interval_s},
        std::tuple{"--flush-every", &s.flush_every, &o.flush_interval_s}}) {
    auto every = ParseDuration(*text);
    if (!every.ok())
      return Status::InvalidArgument(std::string(flag) + ": " + every.status().message());
    if (*every != 0 && *every < 1'000'000) {
      return Status::InvalidArgument(std::string(flag) + ": 0s (never) or at least 1s");
    }
    *out = s.no_housekeeping ? 0 : static_cast<double>(*every) / 1e6;
  }

  // Signals are taken by one watcher thread: blocked here, before any thread exists, so every
  // thread inherits the mask. An inherited SIG_IGN (a background job of a script) would discard
  // them before sigtimedwait sees them, so the disposition is reset first.
  sigset_t signals = BlockStopSignals();

  // Alerts (src/alerts): a service writes them to stdout, its log stream, and refuses to start
  // with a malformed TARN_ALERTS_* rather than run with alerts it was not asked for.
  alerts::SetDefaultStream(stdout);
  TARN_RETURN_NOT_OK(alerts::AlertsConfig::FromEnvironment().status());
  TARN_ASSIGN_OR_RETURN(auto catalog, OpenServedCatalog(s));
  TARN_ASSIGN_OR_RETURN(auto srv, server::Server::Make(catalog, o));
  TARN_ASSIGN_OR_RETURN(auto bootstrap, srv->authority().EnsureBootstrapOwner());
  if (bootstrap) {
    const char* from_env = std::getenv("TARN_BOOTSTRAP_CLIENT_ID");
    if (from_env && *from_env) {
      std::fprintf(stderr,
                   "tarn serve: created the first access token, an owner of every workspace, "
                   "from TARN_BOOTSTRAP_CLIENT_ID (%s)\n",
                   bootstrap->info.client_id.c_str());
    } else {
      std::fprintf(stderr,
                   "tarn serve: created the first access token, an owner of every workspace "
                   "('*').\n"
                   "tarn serve: its secret is shown only now; keep it safe:\n"
                   "  client id:     %s\n"
                   "  client secret: %s\n",
                   bootstrap->info.client_id.c_str(), bootstrap->client_secret.c_str());
    }
  }
  TARN_RETURN_NOT_OK(srv->Start());
  std::string host = o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host;
  std::fprintf(stderr, "tarn serve: listening on http://%s:%d\n", host.c_str(), srv->port());
  if (srv->metrics_port() > 0) {
    std::string mhost =
        o.metrics_host.find(':') != std::string::npos ? "[" + o.metrics_host + "]" : o.metrics_host;
    std::fprintf(stderr, "tarn serve: metrics for scrapers on http://%s:%d/metrics (no token)\n",
                 mhost.c_str(), srv->metrics_port());
  }
  std::fflush(stderr);

  std::atomic<bool> stopped{false};
  server::Server* raw = srv.get();
  std::thread watcher([&] {
    int count = 0;
    timespec tick{0, 200 * 1000 * 1000};
    while (!stopped.load()) {
      int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig < 0) continue;
      if (++count == 1) {
        std::fprintf(stderr, "tarn serve: %s, finishing in-flight requests (up to %.0f s)\n",
                     sig == SIGINT ? "interrupted" : "terminated", o.shutdown_grace_s);
        raw->Shutdown();
      } else {
        std::fprintf(stderr, "tarn serve: second signal, exiting now\n");
        std::_Exit(1);
      }
    }
  });
  srv->Wait();
  stopped = true;
  watcher.join();
  std::fprintf(stderr, "tarn serve: stopped\n");
  return Status::OK();
}

}  // namespace

void RegisterServeCommand(CLI::App* app, GlobalOptions* /*global*/) {
  auto s = std::make_shared<ServeOptions>();
  CLI::App* cmd = app->add_subcommand(
      "serve",
      "Serve the catalog over HTTP (--catalog DIR, or --metastore URI --warehouse URI; default "
      "the embedded catalog of $TARN_CATALOG or ~/.tarn)");
  cmd->add_option("--listen", s->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  cmd->add_option("--metrics-listen", s->metrics_listen,
                  "HOST:PORT of a second listener serving GET /metrics without a token, for a "
                  "Prometheus scraper (bind it where only the scraper reaches)");
  cmd->add_option("--metastore", s->metastore, "Metastore: a SQLite path or postgresql:// URI");
  cmd->add_option("--warehouse", s->warehouse, "Warehouse: a directory or s3:// / gs:// URI");
  cmd->add_option("--max-body", s->max_body, "Largest append body (frames)")->capture_default_str();
  cmd->add_option("--max-json-body", s->max_json_body, "Largest JSON or form body")
      ->capture_default_str();
  cmd->add_option("--max-header-bytes", s->max_header_bytes,
                  "Largest request line and headers together")
      ->capture_default_str();
  cmd->add_option("--read-timeout", s->read_timeout, "Seconds a socket read may wait")
      ->capture_default_str();
  cmd->add_option("--write-timeout", s->write_timeout, "Seconds a socket write may wait")
      ->capture_default_str();
  cmd->add_option("--idle-timeout", s->idle_timeout,
                  "Seconds a keep-alive connection may wait for its next request")
      ->capture_default_str();
  cmd->add_option("--header-timeout", s->header_timeout,
                  "Seconds the whole request line and headers may take to arrive (408 past it)")
      ->capture_default_str();
  cmd->add_option("--body-min-rate", s->body_min_rate,
                  "Slowest average rate a request body may arrive at, per second, after the "
                  "grace (408 below it)")
      ->capture_default_str();
  cmd->add_option("--body-grace", s->body_grace,
                  "Seconds a request body may take before --body-min-rate applies")
      ->capture_default_str();
  cmd->add_option("--max-connections", s->max_connections,
                  "Open connections (no thread each); past it 503 at once")
      ->capture_default_str();
  cmd->add_option("--workers", s->workers, "Threads serving requests whose head has arrived")
      ->capture_default_str();
  cmd->add_option("--token-ttl", s->token_ttl, "Lifetime of issued bearer tokens, in seconds")
      ->capture_default_str();
  cmd->add_option("--oidc-audience", s->oidc_audience,
                  "Accept OpenID Connect ID tokens for this audience at POST /v1/token "
                  "(federated sign-in; off without it)");
  cmd->add_option("--worker-url", s->worker_url,
                  "Deliver refresh jobs to this tarn worker URL (default $TARN_WORKER_URL; "
                  "without it jobs stay queued for tarn jobs run)");
  cmd->add_option("--public-url", s->public_url,
                  "Base URL clients reach this server by; the Iceberg REST facade names a local "
                  "warehouse's files under it (default http://<--listen>)");
  cmd->add_option("--job-lease", s->job_lease,
                  "Seconds a delivered job may run before another server delivers it again")
      ->capture_default_str();
  cmd->add_option("--schedule-tick", s->schedule_tick,
                  "Seconds between looks for due task schedules (0: this server fires none)")
      ->capture_default_str();
  cmd->add_option("--fsck-every", s->fsck_every,
                  "Run the integrity sweep (tarn fsck) over the whole catalog this often, e.g. "
                  "6h: one server of those on the metastore runs each slot, findings alerted");
  cmd->add_option("--expire-every", s->expire_every,
                  "Housekeeping: apply every retention policy this often (0s: never)")
      ->capture_default_str();
  cmd->add_option("--cleanup-every", s->cleanup_every,
                  "Housekeeping: delete released files and orphans past their grace this often "
                  "(0s: never)")
      ->capture_default_str();
  cmd->add_option("--compact-every", s->compact_every,
                  "Housekeeping: compact the datasets with compaction.auto=true this often (0s: "
                  "never)")
      ->capture_default_str();
  cmd->add_option("--hydrate-every", s->hydrate_every,
                  "Housekeeping: fill in deferred statistics from the files' footers this often "
                  "(0s: never)")
      ->capture_default_str();
  cmd->add_option("--manifest-every", s->manifest_every,
                  "Housekeeping: write the missing manifests of datasets with "
                  "manifest.on_commit=true this often (0s: never)")
      ->capture_default_str();
  cmd->add_option("--flush-every", s->flush_every,
                  "Housekeeping: write the inlined files (inline.max_bytes) of datasets without "
                  "compaction.auto=true out to the warehouse this often (0s: never)")
      ->capture_default_str();
  cmd->add_flag("--no-housekeeping", s->no_housekeeping,
                "Run no housekeeping step on this server (another server, or a person, does)");
  cmd->add_option("--shutdown-grace", s->shutdown_grace,
                  "Seconds in-flight requests may take to finish after SIGTERM/SIGINT")
      ->capture_default_str();
  SetCommand(cmd, [s]() { return Serve(*s); });
}

}  // namespace tarn::cli
