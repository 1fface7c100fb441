// Shared plumbing of the `tarn` executable: how commands report errors, print JSON and tables,
// and honour NO_COLOR. Command groups register themselves with a CLI11 app.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <functional>
#include <string>
#include <vector>

#include "tarn/status.h"

namespace tarn::cli {

// Options every command shares.
struct GlobalOptions {
  bool json = false;
};

// A command body returns a Status; main() maps it to the exit code of ErrorKind (U5) and
// prints the error to stderr (as a JSON error object with --json).
using CommandFn = std::function<Status()>;

// Registers a command's callback so that its Status becomes the process exit code.
void SetCommand(CLI::App* cmd, CommandFn fn);

// Prints an error the way every command does: "tarn: error[code]: message" on stderr, or with
// json a {"error":{"code","message",...fields}} line on stderr.
void PrintError(const Status& status, bool json);

// Whether stdout should carry ANSI colour (a terminal and NO_COLOR unset).
bool UseColor();

// While one is alive, Ctrl-C (SIGINT) sets Flag() instead of killing the process, so a long
// command stops cleanly (exit 130).
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static const std::atomic<bool>& Flag();
  static void Reset();

 private:
  void (*previous_)(int);
};

// For a long-running service (tarn serve, tarn worker): resets SIGINT and SIGTERM to their
// defaults (an inherited SIG_IGN would discard them) and blocks them in this thread, before
// any other thread exists, so every thread inherits the mask; a watcher takes them with
// sigwait/sigtimedwait on the returned set.
sigset_t BlockStopSignals();

// Writes `s` to stdout; kIOError when it cannot (a closed pipe, a full disk).
Status WriteStdout(std::string_view s);

// Column-aligned plain-text table printed to stdout.
void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows);

void RegisterParquetCommands(CLI::App* app, GlobalOptions* global);
// `tarn workspace ...` and `tarn collection ...` (catalog_commands.cc).
void RegisterCatalogCommands(CLI::App* app, GlobalOptions* global);
// `tarn dataset ...`, `tarn append`, `scan`, `files`, `snapshots` and the other dataset
// commands (dataset_commands.cc). Call after RegisterCatalogCommands (it shares --catalog).
void RegisterDatasetCommands(CLI::App* app, GlobalOptions* global);
void RegisterServeCommand(CLI::App* app, GlobalOptions* global);  // serve_command.cc
// `tarn token create|list|revoke` and `tarn audit` (access_commands.cc).
void RegisterAccessCommands(CLI::App* app, GlobalOptions* global);
// `tarn push`, `plan`, `show`, `abandon`: upload contracts (upload_commands.cc).
void RegisterUploadCommands(CLI::App* app, GlobalOptions* global);
// `tarn convert` (convert_command.cc).
void RegisterConvertCommand(CLI::App* app, GlobalOptions* global);
// `tarn lineage`, `impact`, `readers` (provenance_commands.cc). Call after
// RegisterCatalogCommands.
void RegisterProvenanceCommands(CLI::App* app, GlobalOptions* global);
void RegisterIntegrityCommands(CLI::App* app, GlobalOptions* global);
// `tarn sql` (sql_command.cc).
void RegisterSqlCommand(CLI::App* app, GlobalOptions* global);
// `tarn view ...` (view_commands.cc). Call after RegisterCatalogCommands.
void RegisterViewCommands(CLI::App* app, GlobalOptions* global);
// `tarn task ...` (task_commands.cc). Call after RegisterCatalogCommands.
void RegisterTaskCommands(CLI::App* app, GlobalOptions* global);
// `tarn manifest export` (manifest_commands.cc). Call after RegisterCatalogCommands.
void RegisterManifestCommands(CLI::App* app, GlobalOptions* global);
// `tarn worker` (worker_command.cc).
void RegisterWorkerCommand(CLI::App* app, GlobalOptions* global);
// `tarn tui` (tui_command.cc).
void RegisterTuiCommand(CLI::App* app, GlobalOptions* global);
// The full-screen app on the catalog of the global options; also what `tarn` alone opens at a
// terminal. kInvalidArgument (usage) off a terminal.
Status RunFullScreen(const std::vector<std::string>& files, const std::string& to,
                     const std::string& message = {});

}  // namespace tarn::cli
