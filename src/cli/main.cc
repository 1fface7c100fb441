// The `tarn` executable: parses the command line and dispatches to command groups. Each
// command returns a Status whose ErrorKind decides the exit code (common/status.cc).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "alerts/alerts.h"
#include "cli/cli.h"

namespace {
std::optional<tarn::Status> g_result;
}  // namespace

namespace tarn::cli {

void SetCommand(CLI::App* cmd, CommandFn fn) {
  cmd->callback([fn = std::move(fn)] { g_result = fn(); });
}

}  // namespace tarn::cli

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  // A command's stdout is its answer (--json is parsed by scripts): alerts go to stderr.
  // `tarn serve` points them back at stdout, its log stream.
  tarn::alerts::SetDefaultStream(stderr);
  CLI::App app{"tarn: a lakehouse catalog and ingestion service", "tarn"};
  app.set_version_flag("--version", "tarn 0.1.0");
  app.require_subcommand(0, 1);
  app.fallthrough();
  tarn::cli::GlobalOptions global;
  app.add_flag("--json", global.json, "Machine-readable JSON output");
  tarn::cli::RegisterParquetCommands(&app, &global);
  tarn::cli::RegisterCatalogCommands(&app, &global);
  tarn::cli::RegisterDatasetCommands(&app, &global);
  tarn::cli::RegisterProvenanceCommands(&app, &global);
  tarn::cli::RegisterIntegrityCommands(&app, &global);
  tarn::cli::RegisterManifestCommands(&app, &global);
  tarn::cli::RegisterServeCommand(&app, &global);
  tarn::cli::RegisterAccessCommands(&app, &global);
  tarn::cli::RegisterUploadCommands(&app, &global);
  tarn::cli::RegisterConvertCommand(&app, &global);
  tarn::cli::RegisterSqlCommand(&app, &global);
  tarn::cli::RegisterViewCommands(&app, &global);
  tarn::cli::RegisterTaskCommands(&app, &global);
  tarn::cli::RegisterWorkerCommand(&app, &global);
  tarn::cli::RegisterTuiCommand(&app, &global);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and usage hint
    return 2;
  }
  if (!g_result.has_value()) {
    // No command: at a terminal `tarn` means "upload something", so the full-screen app
    // opens; off a terminal the usage is printed.
    if (::isatty(0) == 0 || ::isatty(1) == 0 || global.json) {
      std::cerr << app.help();
      return 2;
    }
    g_result = tarn::cli::RunFullScreen({}, {});
  }
  if (!g_result->ok()) {
    tarn::cli::PrintError(*g_result, global.json);
    return tarn::ExitCodeFor(*g_result);
  }
  std::fflush(stdout);
  if (std::ferror(stdout)) return 6;
  return 0;
}
