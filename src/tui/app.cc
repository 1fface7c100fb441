// App: the keys of the full-screen app and the requests they start (app.h,
// docs/design/tui.md).
#include "tui/app.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "common/discard.h"
#include "common/utf8.h"
#include "render/upload_render.h"
#include "tarn/dataset.h"

namespace tarn::tui {

namespace {

int64_t SizeOf(const std::string& path) {
  std::error_code ec;
  auto n = std::filesystem::file_size(path, ec);
  return ec ? -1 : static_cast<int64_t>(n);
}

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// An error for the status line: the message, and the upload code when it adds something.
std::string Describe(const Status& s) {
  std::string code = ErrorField(s, "code");
  std::string out = s.message();
  if (!code.empty() && out.find(code) == std::string::npos) out = code + ": " + out;
  std::string column = ErrorField(s, "column");
  if (!column.empty() && out.find(column) == std::string::npos) out += " (column " + column + ")";
  return out;
}

std::string Plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// How far a movement key moves a cursor: ↑↓ j k one row, PgUp PgDn ten, Home End to the ends;
// 0 for any other key.
int MoveDelta(const Key& key) {
  switch (key.code) {
    case KeyCode::kUp:
      return -1;
    case KeyCode::kDown:
      return 1;
    case KeyCode::kPageUp:
      return -10;
    case KeyCode::kPageDown:
      return 10;
    case KeyCode::kHome:
      return -1000000;
    case KeyCode::kEnd:
      return 1000000;
    default:
      return key.Is('j') ? 1 : key.Is('k') ? -1 : 0;
  }
}

}  // namespace

bool ContractOpen(const Contract& c) {
  return c.state == ContractState::kProposed || c.state == ContractState::kAccepted ||
         c.state == ContractState::kWriting || c.state == ContractState::kStale;
}

App::App(AppOptions options, Worker* worker) : options_(std::move(options)), worker_(worker) {
  state_.catalog = options_.catalog;
  state_.remote =
      options_.catalog.rfind("http://", 0) == 0 || options_.catalog.rfind("https://", 0) == 0;
  state_.target = options_.target;
  std::vector<FileItem> files;
  for (const auto& f : options_.files) files.push_back({f, SizeOf(f)});
  state_.files = std::move(files);
  if (!state_.remote) {
    StartConnect({});
  } else if (!options_.credentials.client_id.empty() || !options_.credentials.token.empty()) {
    StartConnect(options_.credentials);
  } else {
    Say(Severity::kInfo, "not signed in: c signs in");
  }
}

void App::Say(Severity severity, std::string text) {
  state_.status = StatusLine{severity, std::move(text)};
}

bool App::RefuseWhileBusy() {
  if (!worker_->busy()) return false;
  Say(Severity::kWarn, "busy " + worker_->label() + "; wait for it or q to quit");
  return true;
}

void App::Sync() { state_.busy_label = worker_->label(); }

bool App::Pump() {
  bool any = false;
  // An effect may start the next request (a lookup after signing in); with an inline worker
  // that one has finished too, so apply until none are left.
  for (;;) {
    auto effects = worker_->TakeEffects();
    if (effects.empty()) break;
    any = true;
    for (auto& e : effects) e();
  }
  if (state_.quitting && !state_.finished && !must_exit_ && !worker_->busy()) {
    // A request that was running when q was pressed has ended: quit now.
    state_.quitting = false;
    Quit();
  }
  Sync();
  return any;
}

// ---- keys ----

void App::HandleKey(const Key& key) {
  if (key.code == KeyCode::kCtrl && key.text == "c") {
    Quit();
    return;
  }
  if (state_.prompt) {
    HandlePrompt(key);
    return;
  }
  switch (state_.screen) {
    case Screen::kMain:
      HandleMain(key);
      break;
    case Screen::kBrowser:
      HandleBrowser(key);
      break;
    case Screen::kHelp:
      HandleHelp(key);
      break;
  }
}

void App::HandleHelp(const Key& key) {
  // ↑↓ j k PgUp PgDn scroll the list (the view clamps); any other key goes back.
  const int delta = key.Is(' ') ? 10 : MoveDelta(key);
  if (delta != 0) {
    state_.help_scroll = std::clamp(state_.help_scroll + delta, 0, 1000);
    return;
  }
  state_.screen = state_.browser ? Screen::kBrowser : Screen::kMain;
}

void App::MoveCursor(int delta) {
  if (state_.focus == Focus::kPlan && state_.contract && !state_.contract->plan.empty()) {
    int n = static_cast<int>(state_.contract->plan.size());
    state_.plan_cursor = std::clamp(state_.plan_cursor + delta, 0, n - 1);
  } else if (!state_.files.empty()) {
    state_.focus = Focus::kFiles;
    int n = static_cast<int>(state_.files.size());
    state_.files_cursor = std::clamp(state_.files_cursor + delta, 0, n - 1);
  }
}

void App::HandleMain(const Key& key) {
  if (state_.quitting) {
    if (key.Is('q')) Quit();  // a second q: leave without waiting
    return;
  }
  if (int delta = MoveDelta(key); delta != 0) {
    MoveCursor(delta);
    return;
  }
  switch (key.code) {
    case KeyCode::kTab:
    case KeyCode::kBackTab:
      if (state_.focus == Focus::kFiles && state_.contract) {
        state_.focus = Focus::kPlan;
      } else if (!state_.files.empty()) {
        state_.focus = Focus::kFiles;
      }
      return;
    case KeyCode::kEnter:
      Accept();
      return;
    case KeyCode::kDelete:
      RemoveFile();
      return;
    case KeyCode::kEscape:
      return;
    default:
      break;
  }
  if (key.code != KeyCode::kChar || key.text.size() != 1) return;
  switch (key.text[0]) {
    case 'q':
      Quit();
      return;
    case 'h':
    case '?':
      state_.screen = Screen::kHelp;
      state_.help_scroll = 0;
      return;
    case 'c':
      StartSignIn();
      return;
    case 'a':
      OpenBrowser();
      return;
    case 'd':
      RemoveFile();
      return;
    case 't':
      if (RefuseWhileBusy()) return;
      state_.prompt = Prompt{
          PromptKind::kTarget, "to (workspace.collection.dataset)", state_.target, false, {}};
      return;
    case 'n':
      Negotiate();
      return;
    case 'e': {
      if (RefuseWhileBusy()) return;
      if (!state_.contract || state_.contract->plan.empty()) {
        Say(Severity::kWarn, "no plan yet: n negotiates");
        return;
      }
      const PlanEntry& e = state_.contract->plan[state_.plan_cursor];
      std::string current = e.to.empty() ? e.from : e.to;
      state_.focus = Focus::kPlan;
      state_.prompt = Prompt{PromptKind::kRetype, "type of " + e.column, current, false, e.column};
      return;
    }
    case 'x':
      Ignore();
      return;
    case 'u':
      Upload();
      return;
    default:
      return;
  }
}

void App::HandlePrompt(const Key& key) {
  Prompt& p = *state_.prompt;
  switch (key.code) {
    case KeyCode::kEscape:
      state_.prompt.reset();
      Say(Severity::kInfo, "cancelled");
      return;
    case KeyCode::kEnter: {
      Prompt done = std::move(p);
      state_.prompt.reset();
      SubmitPrompt(std::move(done));
      return;
    }
    case KeyCode::kBackspace: {
      // Drop the last code point.
      if (!p.text.empty()) p.text.resize(Utf8CodePointStart(p.text, p.text.size() - 1));
      return;
    }
    case KeyCode::kCtrl:
      if (key.text == "u") p.text.clear();
      return;
    case KeyCode::kChar:
      if (p.text.size() < 4096) p.text += key.text;
      return;
    default:
      return;
  }
}

void App::SubmitPrompt(Prompt p) {
  switch (p.kind) {
    case PromptKind::kClientId:
      if (p.text.empty()) {
        Say(Severity::kWarn, "no client id given; c to try again");
        return;
      }
      state_.prompt = Prompt{PromptKind::kSecret, "access token for " + p.text, "", true, p.text};
      return;
    case PromptKind::kSecret: {
      if (p.text.empty()) {
        Say(Severity::kWarn, "no access token given; c to try again");
        return;
      }
      ClientOptions creds;
      creds.client_id = p.column;
      creds.client_secret = std::move(p.text);
      StartConnect(std::move(creds));
      return;
    }
    case PromptKind::kTarget:
      SetTarget(p.text);
      return;
    case PromptKind::kRetype:
      Retype(p.column, p.text);
      return;
    case PromptKind::kPath: {
      if (!state_.browser || p.text.empty()) return;
      auto r = state_.browser->GoTo(p.text);
      if (r.ok()) {
        Say(Severity::kOk, *r);
      } else {
        Say(Severity::kError, r.status().message());
      }
      return;
    }
  }
}

void App::HandleBrowser(const Key& key) {
  FileBrowser& b = *state_.browser;
  auto report = [&](const Status& s) {
    if (!s.ok()) Say(Severity::kWarn, s.message());
  };
  if (int delta = MoveDelta(key); delta != 0) {
    b.Move(delta);
    return;
  }
  switch (key.code) {
    case KeyCode::kEnter:
    case KeyCode::kRight:
      report(b.Activate());
      return;
    case KeyCode::kLeft:
    case KeyCode::kBackspace:
      report(b.Up());
      return;
    case KeyCode::kEscape:
      CloseBrowser();
      return;
    default:
      break;
  }
  if (key.code != KeyCode::kChar || key.text.size() != 1) return;
  switch (key.text[0]) {
    case 'l':
      report(b.Activate());
      return;
    case ' ':
      report(b.ToggleTag());
      return;
    case 'a': {
      int n = b.TagAllHere();
      Say(Severity::kInfo, "tagged " + Plural(n, "file", "files") + " here");
      return;
    }
    case 'g':
      state_.prompt = Prompt{PromptKind::kPath, "path, folder or glob", "", false, {}};
      return;
    case '.':
      b.ToggleHidden();
      Say(Severity::kInfo, b.show_hidden() ? "showing hidden files" : "hiding hidden files");
      return;
    case 'h':
    case '?':
      state_.screen = Screen::kHelp;
      state_.help_scroll = 0;
      return;
    case 'q':
      CloseBrowser();
      return;
    default:
      return;
  }
}

// ---- requests ----

void App::StartConnect(ClientOptions credentials) {
  if (RefuseWhileBusy()) return;
  std::string catalog = state_.catalog;
  bool signing_in = !credentials.client_id.empty() || !credentials.token.empty();
  Say(Severity::kInfo, state_.remote ? (signing_in ? "signing in..." : "connecting...")
                                     : "opening " + catalog + "...");
  worker_->Post(signing_in ? "signing in" : "opening the catalog",
                [this, catalog, credentials = std::move(credentials)]() -> Worker::Effect {
                  auto client = Client::Connect(catalog, credentials);
                  if (!client.ok()) {
                    Status s = client.status();
                    return [this, s] {
                      if (s.kind() == ErrorKind::kUnauthenticated) {
                        Say(Severity::kError, "sign-in refused: " + s.message() + "; c to retry");
                      } else {
                        Say(Severity::kError, "cannot open " + state_.catalog + ": " + s.message());
                      }
                    };
                  }
                  std::shared_ptr<Client> shared(std::move(*client));
                  auto uploads = Uploads::For(shared);
                  if (!uploads.ok()) {
                    Status s = uploads.status();
                    return [this, s] { Say(Severity::kError, Describe(s)); };
                  }
                  std::shared_ptr<Uploads> up(std::move(*uploads));
                  return [this, shared, up] {
                    client_ = shared;
                    uploads_ = up;
                    state_.connected = true;
                    state_.account = shared->actor();
                    Say(Severity::kOk,
                        (state_.remote ? "signed in as " : "opened as ") + state_.account);
                    LookUpTarget();
                  };
                });
}

void App::StartSignIn() {
  if (!state_.remote) {
    Say(Severity::kInfo,
        "the embedded catalog needs no sign-in: you are " +
            (state_.account.empty() ? std::string("the local user") : state_.account));
    return;
  }
  if (RefuseWhileBusy()) return;
  if (state_.contract && ContractOpen(*state_.contract)) {
    Say(Severity::kWarn, "a contract is open; finish it (u) or quit before signing in again");
    return;
  }
  state_.prompt = Prompt{PromptKind::kClientId, "client id", "", false, {}};
}

void App::OpenBrowser() {
  if (state_.contract && state_.contract->state == ContractState::kWriting) {
    Say(Severity::kWarn, "writing; the files cannot change now");
    return;
  }
  std::vector<std::string> listed;
  for (const auto& f : state_.files) listed.push_back(f.path);
  std::string start = options_.start_dir;
  state_.browser = std::make_unique<FileBrowser>(start, std::move(listed));
  state_.screen = Screen::kBrowser;
}

void App::CloseBrowser() {
  if (!state_.browser) return;
  std::vector<FileItem> files;
  for (const auto& path : state_.browser->tagged()) {
    auto it = std::find_if(state_.files.begin(), state_.files.end(),
                           [&](const FileItem& f) { return f.path == path; });
    files.push_back(it != state_.files.end() ? *it : FileItem{path, SizeOf(path)});
  }
  // The browser's tags are absolute; keep a file given on the command line as it was given.
  for (const auto& f : state_.files) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(f.path, ec).lexically_normal().string();
    for (auto& g : files) {
      if (g.path == abs) g.path = f.path;
    }
  }
  int added = state_.browser->added();
  options_.start_dir = state_.browser->dir();  // the next `a` opens where this one ended
  state_.browser.reset();
  state_.screen = Screen::kMain;
  bool changed = files.size() != state_.files.size();
  for (size_t i = 0; !changed && i < files.size(); ++i)
    changed = files[i].path != state_.files[i].path;
  if (changed) {
    SetFiles(std::move(files));
    Say(Severity::kOk, "added " + Plural(added, "file", "files") + "; " +
                           Plural(static_cast<int64_t>(state_.files.size()), "file", "files") +
                           " to upload");
  } else {
    Say(Severity::kInfo, "no change to the files");
  }
}

void App::SetFiles(std::vector<FileItem> files) {
  state_.files = std::move(files);
  state_.files_cursor =
      std::clamp(state_.files_cursor, 0, std::max(0, static_cast<int>(state_.files.size()) - 1));
  if (state_.contract) DropContract("the files changed");
  state_.committed.reset();
}

void App::RemoveFile() {
  if (state_.files.empty()) {
    Say(Severity::kInfo, "no files to remove");
    return;
  }
  if (RefuseWhileBusy()) return;
  auto files = state_.files;
  std::string name = BaseName(files[state_.files_cursor].path);
  files.erase(files.begin() + state_.files_cursor);
  state_.focus = Focus::kFiles;
  SetFiles(std::move(files));
  Say(Severity::kInfo, "removed " + name);
}

void App::SetTarget(const std::string& target) {
  auto parsed = ParseDatasetName(target);
  if (!parsed.ok()) {
    Say(Severity::kError, "not a dataset name (workspace.collection.dataset): " + target);
    return;
  }
  if (target == state_.target) return;
  state_.target = target;
  state_.target_note.clear();
  if (state_.contract) DropContract("the destination changed");
  state_.committed.reset();
  Say(Severity::kInfo, "destination " + target);
  LookUpTarget();
}

void App::LookUpTarget() {
  if (!client_ || state_.target.empty() || worker_->busy()) return;
  auto client = client_;
  std::string target = state_.target;
  worker_->Post("looking up " + target, [this, client, target]() -> Worker::Effect {
    auto info = client->LoadDataset(target);
    std::string note;
    if (info.ok()) {
      note = "exists: " +
             Plural(static_cast<int64_t>(info->schema.fields.size()), "column", "columns") + ", " +
             Plural(info->total_records, "row", "rows") + "; the upload appends";
    } else if (info.status().kind() == ErrorKind::kNotFound) {
      note = "new dataset";
    } else {
      note = info.status().message();
    }
    return [this, target, note] {
      if (state_.target == target) state_.target_note = note;
    };
  });
}

void App::DropContract(const std::string& why) {
  Contract c = *state_.contract;
  state_.contract.reset();
  state_.plan_cursor = 0;
  state_.focus = Focus::kFiles;
  if (!ContractOpen(c) || !uploads_) return;
  auto uploads = uploads_;
  std::string id = c.id;
  worker_->Post("abandoning " + id, [this, uploads, id, why]() -> Worker::Effect {
    Status s = uploads->Abandon(id);
    return [this, s, id, why] {
      if (s.ok()) {
        Say(Severity::kInfo, why + ": the plan was abandoned; n negotiates again");
      } else {
        Say(Severity::kWarn,
            "abandoning " + id + " failed (it expires on its own): " + Describe(s));
      }
    };
  });
}

void App::Negotiate() {
  if (RefuseWhileBusy()) return;
  if (state_.files.empty()) {
    Say(Severity::kWarn, "no files: a adds some");
    return;
  }
  if (state_.target.empty()) {
    Say(Severity::kWarn, "no destination: t sets one");
    return;
  }
  if (!uploads_) {
    Say(Severity::kWarn, state_.remote ? "not signed in: c signs in" : "the catalog is not open");
    return;
  }
  std::optional<std::string> old;
  if (state_.contract && ContractOpen(*state_.contract)) old = state_.contract->id;
  std::vector<std::string> paths;
  for (const auto& f : state_.files) paths.push_back(f.path);
  auto uploads = uploads_;
  std::string target = state_.target;
  state_.committed.reset();
  Say(Severity::kInfo, "sampling " + Plural(static_cast<int64_t>(paths.size()), "file", "files") +
                           " and negotiating...");
  worker_->Post("negotiating", [this, uploads, paths, target, old]() -> Worker::Effect {
    // A new plan replaces it; expiry is the fallback.
    if (old) DiscardError(uploads->Abandon(*old), "abandoning contract " + *old);
    auto samples = SampleFiles(paths);
    if (!samples.ok()) {
      Status s = samples.status();
      return [this, s] { Say(Severity::kError, Describe(s)); };
    }
    NegotiateRequest req;
    req.target = target;
    req.schema = SchemaSource::Auto();
    req.samples = std::move(*samples);
    req.channel = "tui";
    auto contract = uploads->Negotiate(req);
    if (!contract.ok()) {
      Status s = contract.status();
      return [this, s] {
        state_.contract.reset();
        Say(Severity::kError, Describe(s));
      };
    }
    Contract c = std::move(*contract);
    return [this, c] {
      state_.plan_cursor = 0;
      state_.focus = Focus::kPlan;
      ApplyContract(c);
      state_.target_note = c.dataset_exists ? "exists; the upload appends" : "new dataset";
    };
  });
}

void App::ApplyContract(Contract c) {
  state_.contract = std::move(c);
  const Contract& k = *state_.contract;
  if (!k.plan.empty()) {
    state_.plan_cursor = std::clamp(state_.plan_cursor, 0, static_cast<int>(k.plan.size()) - 1);
  }
  for (const auto& i : k.issues) {
    if (i.blocking()) {
      Say(Severity::kError, i.code + (i.column.empty() ? "" : " " + i.column) +
                                (i.detail.empty() ? "" : ": " + i.detail));
      return;
    }
  }
  if (k.state == ContractState::kProposed) {
    Say(Severity::kWarn, k.schema_source == "inferred"
                             ? "these types were read from your data - nothing is written until "
                               "you accept"
                             : "the plan changed - nothing is written until you accept");
  } else if (k.state == ContractState::kAccepted) {
    Say(Severity::kOk, "agreed: u uploads " +
                           Plural(static_cast<int64_t>(state_.files.size()), "file", "files") +
                           " and commits");
  }
}

void App::PostContractCall(const std::string& label, std::function<Result<Contract>()> call,
                           const std::string& done) {
  worker_->Post(label, [this, call = std::move(call), done]() -> Worker::Effect {
    auto c = call();
    if (!c.ok()) {
      Status s = c.status();
      return [this, s] { Say(Severity::kError, Describe(s)); };
    }
    Contract k = std::move(*c);
    return [this, k, done] {
      ApplyContract(k);
      if (!done.empty() && !k.blocking()) Say(Severity::kWarn, done);
    };
  });
}

void App::Retype(const std::string& column, const std::string& type) {
  if (type.empty() || !state_.contract) return;
  if (RefuseWhileBusy()) return;
  auto uploads = uploads_;
  std::string id = state_.contract->id;
  PostContractCall(
      "retyping " + column,
      [uploads, id, column, type] {
        return uploads->Retype(id, {{column, type}});
      },
      column + " retyped - ⏎ accepts the plan");
}

void App::Ignore() {
  if (RefuseWhileBusy()) return;
  if (!state_.contract || state_.contract->plan.empty()) {
    Say(Severity::kWarn, "no plan yet: n negotiates");
    return;
  }
  const PlanEntry& e = state_.contract->plan[state_.plan_cursor];
  if (e.action == PlanAction::kIgnored) {
    Say(Severity::kInfo, e.column + " is already left out; n negotiates again to restore it");
    return;
  }
  if (e.action == PlanAction::kMissing) {
    Say(Severity::kWarn, e.column + " is not in your data; it is written as nulls");
    return;
  }
  auto uploads = uploads_;
  std::string id = state_.contract->id;
  std::string column = e.column;
  state_.focus = Focus::kPlan;
  PostContractCall(
      "ignoring " + column, [uploads, id, column] { return uploads->Ignore(id, {column}); },
      column + " is read and not written - ⏎ accepts");
}

void App::Accept() {
  if (RefuseWhileBusy()) return;
  if (!state_.contract) {
    Say(Severity::kWarn, "no plan yet: n negotiates");
    return;
  }
  const Contract& c = *state_.contract;
  if (c.state != ContractState::kProposed) {
    Say(Severity::kInfo, "the plan is " + std::string(ContractStateName(c.state)) +
                             (c.state == ContractState::kAccepted ? ": u uploads" : ""));
    return;
  }
  if (c.blocking()) {
    Say(Severity::kError, "a blocking issue remains: e retypes or x ignores the column");
    return;
  }
  auto uploads = uploads_;
  std::string id = c.id;
  std::string fingerprint = c.fingerprint;
  PostContractCall("accepting",
                   [uploads, id, fingerprint] { return uploads->Accept(id, fingerprint); });
}

void App::Upload() {
  if (RefuseWhileBusy()) return;
  if (!state_.contract) {
    Say(Severity::kWarn, "no plan yet: n negotiates");
    return;
  }
  const Contract& c = *state_.contract;
  if (c.state == ContractState::kProposed) {
    Say(Severity::kWarn, "accept the plan first (⏎): nothing is written until you do");
    return;
  }
  if (c.state != ContractState::kAccepted) {
    Say(Severity::kWarn,
        "the contract is " + std::string(ContractStateName(c.state)) + "; n negotiates a new one");
    return;
  }
  auto uploads = uploads_;
  std::string id = c.id;
  std::vector<FileItem> files = state_.files;
  auto progress = state_.progress;
  int64_t all_total = 0;
  for (const auto& f : files) all_total += std::max<int64_t>(f.size, 0);
  progress->done = 0;
  progress->total = -1;
  progress->all_done = 0;
  progress->all_total = all_total;
  progress->file_index = 0;
  progress->file_count = static_cast<int32_t>(files.size());
  progress->cancel = false;
  progress->committing = false;
  {
    std::lock_guard<std::mutex> lock(progress->name_mu);
    progress->name = files.empty() ? std::string() : BaseName(files[0].path);
  }
  progress->start = Clock::Real()->SteadyNow();
  progress->active = true;
  state_.contract->state = ContractState::kWriting;
  std::string message = options_.message.empty()
                            ? "uploaded with tarn tui (" +
                                  Plural(static_cast<int64_t>(files.size()), "file", "files") + ")"
                            : options_.message;
  Say(Severity::kInfo, "writing...");
  worker_->Post("writing", [this, uploads, id, files, progress, message]() -> Worker::Effect {
    for (size_t i = 0; i < files.size(); ++i) {
      {
        std::lock_guard<std::mutex> lock(progress->name_mu);
        progress->name = BaseName(files[i].path);
      }
      progress->file_index = static_cast<int32_t>(i);
      progress->done = 0;
      progress->total = files[i].size;
      auto w = uploads->Write(id, files[i].path, [progress](int64_t done, int64_t total) {
        progress->done = done;
        if (total >= 0) progress->total = total;
        return !progress->cancel.load();  // a quit stops the write here
      });
      if (!w.ok()) {
        Status s = w.status();
        Status abandoned = uploads->Abandon(id);
        std::string name = BaseName(files[i].path);
        const bool stopped = s.kind() == ErrorKind::kCancelled && progress->cancel.load();
        return [this, s, abandoned, name, stopped, id] {
          state_.progress->active = false;
          if (state_.contract)
            state_.contract->state =
                abandoned.ok() ? ContractState::kAbandoned : ContractState::kWriting;
          if (stopped) {
            state_.farewell = abandoned.ok()
                                  ? "contract " + id + " abandoned; nothing was written"
                                  : "abandoning contract " + id +
                                        " failed (it expires on its own): " + Describe(abandoned);
            Say(Severity::kWarn, "write stopped; the contract was abandoned");
            return;
          }
          Say(Severity::kError, name + ": " + Describe(s) +
                                    (abandoned.ok() ? "; the contract was abandoned, nothing was "
                                                      "written"
                                                    : ""));
        };
      }
      progress->all_done += std::max<int64_t>(files[i].size, 0);
    }
    progress->committing = true;
    CommitRequest req;
    req.message = message;
    auto done = uploads->CommitContract(id, req);
    if (!done.ok()) {
      Status s = done.status();
      Status abandoned = uploads->Abandon(id);
      return [this, s, abandoned] {
        state_.progress->active = false;
        if (state_.contract)
          state_.contract->state =
              abandoned.ok() ? ContractState::kAbandoned : ContractState::kWriting;
        Say(Severity::kError,
            "commit failed: " + Describe(s) + (abandoned.ok() ? "; nothing was written" : ""));
      };
    }
    UploadCommitResult r = *done;
    return [this, r] {
      state_.progress->active = false;
      state_.committed = r;
      if (state_.contract) state_.contract->state = ContractState::kCommitted;
      std::string what =
          r.idempotent_replay ? "already committed as snapshot " : "committed snapshot ";
      Say(Severity::kOk, what + std::to_string(r.snapshot_id) + " to " + r.target + ": " +
                             Plural(r.rows_written, "row", "rows") + " in " +
                             Plural(r.files, "file", "files") + " (" +
                             render::FormatBytes(r.bytes) + ")");
    };
  });
}

// ---- quitting ----

void App::Quit() {
  if (state_.finished) return;
  if (state_.quitting) {
    // Asked twice: leave now; an open contract expires on its own.
    if (state_.contract && ContractOpen(*state_.contract)) {
      state_.farewell = "contract " + state_.contract->id +
                        " left open; it expires on its own and nothing of it is readable";
    }
    must_exit_ = must_exit_ || worker_->busy();
    state_.finished = true;
    return;
  }
  state_.quitting = true;
  state_.prompt.reset();
  const bool open = state_.contract && ContractOpen(*state_.contract);
  if (worker_->busy()) {
    if (state_.progress->active && open) {
      // A write is running: it stops at its next progress report, then abandons the contract
      // (Upload's failure path), and Pump() quits once that is done.
      state_.progress->cancel = true;
      Say(Severity::kWarn,
          "stopping the write and abandoning " + state_.contract->id + "... (q again leaves now)");
      return;
    }
    Say(Severity::kWarn, "quitting after " + worker_->label() + "... (q again leaves now)");
    return;  // Pump() quits once the request is done
  }
  if (!open || !uploads_) {
    state_.finished = true;
    return;
  }
  auto uploads = uploads_;
  std::string id = state_.contract->id;
  Say(Severity::kWarn, "abandoning " + id + "...");
  worker_->Post("abandoning " + id, [this, uploads, id]() -> Worker::Effect {
    Status s = uploads->Abandon(id);
    return [this, s, id] {
      state_.farewell =
          s.ok() ? "contract " + id + " abandoned; nothing was written"
                 : "abandoning contract " + id + " failed (it expires on its own): " + Describe(s);
      if (state_.contract) state_.contract->state = ContractState::kAbandoned;
      state_.finished = true;
    };
  });
}

}  // namespace tarn::tui
