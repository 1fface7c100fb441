// The full-screen app's state and what each key does to it (docs/design/tui.md). Requests go to
// a Worker (worker.h) and come back as effects applied on the drawing thread, so App is
// single-threaded; the view (view.h) draws an AppState and the loop (run.h) feeds keys. With an
// inline worker the whole flow runs in a test without a terminal.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tarn/client.h"
#include "tarn/upload.h"
#include "tui/browser.h"
#include "tui/terminal.h"
#include "tui/worker.h"

namespace tarn::tui {

struct AppOptions {
  std::string catalog;        // a directory (embedded) or an http(s):// URL
  ClientOptions credentials;  // from the flags and the environment; may be empty
  std::vector<std::string> files;
  std::string target;     // workspace.collection.dataset, may be empty
  std::string start_dir;  // where the browser starts (the working directory when empty)
  std::string message;    // the commit message ("" = "uploaded with tarn tui")
};

enum class Screen : uint8_t { kMain, kBrowser, kHelp };
enum class Focus : uint8_t { kFiles, kPlan };
enum class PromptKind : uint8_t { kClientId, kSecret, kTarget, kRetype, kPath };
enum class Severity : uint8_t { kInfo, kOk, kWarn, kError };

struct Prompt {
  PromptKind kind = PromptKind::kTarget;
  std::string label;  // "client id", "access token", "to", "type of score", "path or glob"
  std::string text;   // typed so far
  bool masked = false;
  std::string column;  // kRetype
};

struct StatusLine {
  Severity severity = Severity::kInfo;
  std::string text;
};

struct FileItem {
  std::string path;  // as given or absolute from the browser
  int64_t size = -1;
};

// The byte counter of a write in progress, updated from the worker (and the reader thread of a
// write) and read by the drawing thread.
struct WriteProgress {
  std::atomic<int64_t> done{0};        // bytes of the current file
  std::atomic<int64_t> total{-1};      // size of the current file
  std::atomic<int64_t> all_done{0};    // bytes of the files before it
  std::atomic<int64_t> all_total{0};   // bytes of every file
  std::atomic<int32_t> file_index{0};  // 0-based
  std::atomic<int32_t> file_count{0};
  std::atomic<bool> active{false};
  std::atomic<bool> committing{false};          // every file is written; the commit runs
  std::atomic<bool> cancel{false};              // set by a quit: the write parks at its next report
  std::chrono::steady_clock::time_point start;  // set before active
  mutable std::mutex name_mu;
  std::string name;  // the current file's name
};

struct AppState {
  std::string catalog;
  bool remote = false;
  std::string account;  // who we are once connected ("" = not signed in)
  bool connected = false;

  std::vector<FileItem> files;
  int files_cursor = 0;

  std::string target;
  std::string target_note;  // "new dataset", "exists: 4 columns", ...

  std::optional<Contract> contract;
  int plan_cursor = 0;
  std::optional<UploadCommitResult> committed;

  Screen screen = Screen::kMain;
  int help_scroll = 0;  // the first line of the key list shown
  Focus focus = Focus::kFiles;
  std::optional<Prompt> prompt;
  std::unique_ptr<FileBrowser> browser;
  StatusLine status;

  std::string busy_label;  // what the worker is doing ("" when idle)
  std::shared_ptr<WriteProgress> progress = std::make_shared<WriteProgress>();
  bool quitting = false;
  bool finished = false;  // the loop ends
  std::string farewell;   // printed after the screen is restored
};

// Whether a contract in this state holds something to abandon.
bool ContractOpen(const Contract& c);

class App {
 public:
  // Starts connecting at once for an embedded catalog or a remote one with credentials.
  App(AppOptions options, Worker* worker);

  const AppState& state() const { return state_; }
  AppState& mutable_state() { return state_; }

  void HandleKey(const Key& key);
  // A signal to stop (SIGTERM, SIGHUP, SIGINT): as q.
  void Quit();
  // Applies the effects of finished requests; call after every wake-up. Returns whether any
  // were applied.
  bool Pump();
  // Keeps busy_label current (called before each draw).
  void Sync();

  // After a second q while a request was still running: the loop ends at once and the process
  // must end with _exit (the worker cannot be joined).
  bool must_exit() const { return must_exit_; }

 private:
  void HandleMain(const Key& key);
  void HandleBrowser(const Key& key);
  void HandleHelp(const Key& key);
  void HandlePrompt(const Key& key);
  void SubmitPrompt(Prompt prompt);

  void Say(Severity severity, std::string text);
  bool RefuseWhileBusy();
  void MoveCursor(int delta);

  void StartConnect(ClientOptions credentials);
  void StartSignIn();
  void OpenBrowser();
  void CloseBrowser();
  void RemoveFile();
  void SetFiles(std::vector<FileItem> files);
  void SetTarget(const std::string& target);
  void LookUpTarget();
  void Negotiate();
  void Retype(const std::string& column, const std::string& type);
  void Ignore();
  void Accept();
  // Runs a call that answers with the contract on the worker and shows the contract; `done`
  // is the status line after it when no blocking issue came with it ("" = ApplyContract's).
  void PostContractCall(const std::string& label, std::function<Result<Contract>()> call,
                        const std::string& done = {});
  void Upload();
  // The plan no longer fits the files or the destination: abandon the open contract.
  void DropContract(const std::string& why);
  void ApplyContract(Contract c);

  AppOptions options_;
  Worker* worker_;
  AppState state_;
  std::shared_ptr<Client> client_;
  std::shared_ptr<Uploads> uploads_;
  bool must_exit_ = false;
};

}  // namespace tarn::tui
