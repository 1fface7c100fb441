// `tarn tui [FILE...] [--to W.C.D]`, and `tarn` alone at a terminal: the full-screen upload app
// (src/tui) on the catalog of the global options.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/error_codes.h"
#include "tarn/dataset.h"
#include "tui/run.h"

namespace tarn::cli {

Status RunFullScreen(const std::vector<std::string>& files, const std::string& to,
                     const std::string& message) {
  if (::isatty(0) == 0 || ::isatty(1) == 0) {
    return Status::Of(
        codes::kUsage,
        "tarn tui needs a terminal on stdin and stdout; off a terminal use tarn push");
  }
  if (!to.empty()) TARN_RETURN_NOT_OK(ParseDatasetName(to).status().WithContext("--to"));
  const CatalogOptions& o = *SharedCatalogOptions();
  TARN_ASSIGN_OR_RETURN(std::string catalog, CatalogTarget(o));
  tui::AppOptions options;
  options.catalog = catalog;
  options.credentials = RemoteOptions(o);
  options.files = files;
  options.target = to;
  options.message = message;
  std::error_code ec;
  options.start_dir = std::filesystem::current_path(ec).string();
  TARN_ASSIGN_OR_RETURN(tui::RunResult result, tui::Run(std::move(options)));
  if (!result.farewell.empty()) std::printf("tarn: %s\n", result.farewell.c_str());
  if (result.must_exit) {
    // Left with a request still running: do not wait for it.
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(0);
  }
  return Status::OK();
}

void RegisterTuiCommand(CLI::App* app, GlobalOptions* global) {
  (void)global;
  struct Args {
    std::vector<std::string> files;
    std::string to;
    std::string message;
  };
  auto args = std::make_shared<Args>();
  auto* cmd =
      app->add_subcommand("tui", "The full-screen upload app (also `tarn` alone at a terminal)");
  cmd->add_option("FILES", args->files, "Files to start with (more can be added with a)");
  cmd->add_option("--to", args->to, "The destination: workspace.collection.dataset");
  cmd->add_option("-m,--message", args->message, "The commit message");
  SetCommand(cmd, [args] { return RunFullScreen(args->files, args->to, args->message); });
}

}  // namespace tarn::cli
