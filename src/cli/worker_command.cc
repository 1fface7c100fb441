// `tarn worker --listen HOST:PORT --catalog http://...`: runs the refresh jobs tarn serve's
// dispatcher delivers (src/worker, docs/design/views.md "Delivery"). SIGINT/SIGTERM stop it
// after the running jobs end.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "worker/worker.h"

namespace tarn::cli {

namespace {

struct WorkerArgs {
  std::string listen = "127.0.0.1:8282";
  std::string url;
  int max_jobs = 4;
};

Status RunWorker(const WorkerArgs& a) {
  worker::WorkerOptions o;
  size_t colon = a.listen.rfind(':');
  if (colon == std::string::npos) return Status::InvalidArgument("--listen must be HOST:PORT");
  o.host = a.listen.substr(0, colon);
  try {
    o.port = std::stoi(a.listen.substr(colon + 1));
  } catch (...) {
    return Status::InvalidArgument("--listen must be HOST:PORT");
  }
  TARN_ASSIGN_OR_RETURN(o.catalog_url, CatalogTarget(*SharedCatalogOptions()));
  o.url = a.url;
  o.max_concurrent_jobs = a.max_jobs;
  sigset_t signals = BlockStopSignals();
  TARN_ASSIGN_OR_RETURN(auto w, worker::Worker::Make(o));
  TARN_RETURN_NOT_OK(w->Start());
  std::fprintf(stderr, "tarn worker: listening on %s (catalog %s)\n", w->url().c_str(),
               o.catalog_url.c_str());
  std::fflush(stderr);
  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "tarn worker: %s, finishing the running jobs\n",
               sig == SIGINT ? "interrupted" : "terminated");
  w->Stop();
  std::fprintf(stderr, "tarn worker: stopped\n");
  return Status::OK();
}

}  // namespace

void RegisterWorkerCommand(CLI::App* app, GlobalOptions* /*global*/) {
  auto a = std::make_shared<WorkerArgs>();
  CLI::App* cmd = app->add_subcommand(
      "worker",
      "Run the refresh jobs a tarn serve delivers (--catalog http://... of tarn serve; its "
      "--worker-url is this worker's URL)");
  cmd->add_option("--listen", a->listen, "HOST:PORT to listen on")->capture_default_str();
  cmd->add_option("--url", a->url,
                  "This worker's URL as tarn serve calls it (default http://HOST:PORT/run)");
  cmd->add_option("--max-jobs", a->max_jobs, "Jobs run at once")->capture_default_str();
  SetCommand(cmd, [a]() { return RunWorker(*a); });
}

}  // namespace tarn::cli
