// `tarn push`, `tarn plan`, `tarn show` and `tarn abandon`: the upload contract flow of
// docs/design/upload.md on tarn::Uploads, so each works embedded and with --catalog http://...
//
// push: sample every file, negotiate, show the plan, get it accepted (a person at a terminal for
// inferred types, else --yes or --declare), write each file (a progress line at a terminal),
// commit. Any failure after negotiation abandons the contract, and so does SIGINT (exit 130).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/error_codes.h"
#include "common/discard.h"
#include "common/utf8.h"
#include "render/progress.h"
#include "render/style.h"
#include "render/upload_render.h"
#include "sdk/upload_error_codes.h"
#include "tarn/client.h"
#include "tarn/dataset.h"
#include "tarn/upload.h"

namespace tarn::cli {

namespace {

using nlohmann::json;

// ---- interruption ----

// Waits for SIGINT/SIGTERM on a thread of its own (the signals are blocked everywhere else) so
// that an interrupted push can abandon its open contract with ordinary calls before exiting 130.
// A write in progress is first stopped through its progress callback (Stopped() turns true, the
// write ends kCancelled having deleted what it staged) and waited for; while the contract is
// abandoned, any thread reaching Checkpoint(), EndWrite() or Close() is parked, so nothing
// stages more files or tears down the client under it.
class InterruptWatch {
 public:
  // Blocks the signals in the calling thread (and so in every thread started after) and starts
  // the waiting thread, once per process.
  static InterruptWatch& Start(bool json) {
    static InterruptWatch* watch = [] {
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, SIGINT);
      sigaddset(&set, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &set, nullptr);
      auto* w = new InterruptWatch();
      std::thread([w] { w->Run(); }).detach();
      return w;
    }();
    watch->json_ = json;
    return *watch;
  }

  void Open(Uploads* uploads, const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    uploads_ = uploads;
    id_ = id;
  }

  // Nothing is left to abandon (committed or abandoned already).
  void Close() {
    std::unique_lock<std::mutex> lock(mu_);
    uploads_ = nullptr;
    id_.clear();
    ParkIfInterrupted(lock);
  }

  void Checkpoint() {
    std::unique_lock<std::mutex> lock(mu_);
    ParkIfInterrupted(lock);
  }

  // Around a Write: an interruption stops the write (its progress callback returns !Stopped())
  // and waits for it to return before abandoning, so no half-written staged file remains.
  void BeginWrite() {
    std::lock_guard<std::mutex> lock(mu_);
    writing_ = true;
  }
  void EndWrite() {
    std::unique_lock<std::mutex> lock(mu_);
    writing_ = false;
    write_ended_.notify_all();
    ParkIfInterrupted(lock);
  }
  bool Stopped() {
    std::lock_guard<std::mutex> lock(mu_);
    return interrupted_;
  }

 private:
  // Once interrupted, the calling thread waits here for the process to end (`lock` holds mu_).
  void ParkIfInterrupted(std::unique_lock<std::mutex>& lock) {
    if (!interrupted_) return;
    lock.unlock();
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }

  void Run() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    Uploads* uploads = nullptr;
    std::string id;
    {
      std::unique_lock<std::mutex> lock(mu_);
      interrupted_ = true;
      // A write stops at its next progress report; give it a moment to clean up after itself.
      write_ended_.wait_for(lock, std::chrono::seconds(30), [this] { return !writing_; });
      uploads = uploads_;
      id = id_;
    }
    if (::isatty(2)) {
      ssize_t n = ::write(2, "\r\033[K", 4);
      (void)n;
    }
    Status result = Status::Cancelled("interrupted; nothing was written");
    if (uploads != nullptr) {
      // Abandon on a helper thread: a wedged service must not keep the process alive.
      struct Outcome {
        std::mutex mu;
        std::condition_variable cv;
        bool done = false;
        Status status;
      };
      auto outcome = std::make_shared<Outcome>();
      std::thread([uploads, id, outcome] {
        Status s = uploads->Abandon(id);
        std::lock_guard<std::mutex> lock(outcome->mu);
        outcome->status = std::move(s);
        outcome->done = true;
        outcome->cv.notify_all();
      }).detach();
      std::unique_lock<std::mutex> lock(outcome->mu);
      bool done =
          outcome->cv.wait_for(lock, std::chrono::seconds(20), [&] { return outcome->done; });
      if (!done) {
        result = Status::Cancelled("interrupted; abandoning contract " + id +
                                   " timed out (it expires on its own); nothing was committed");
      } else if (outcome->status.ok()) {
        result =
            Status::Cancelled("interrupted; contract " + id + " abandoned, nothing was written");
      } else if (UploadErrorOf(outcome->status) == UploadErrorCode::kAlreadyCommitted) {
        result = Status::Cancelled("interrupted after contract " + id + " was committed");
      } else {
        result = Status::Cancelled("interrupted; abandoning contract " + id +
                                   " failed (it expires on its own): " + outcome->status.message());
      }
      result = std::move(result).WithField("contract_id", id);
    }
    // Only the output streams: the main thread may hold stdin's lock in a read at the prompt.
    std::cout.flush();
    std::fflush(stdout);
    PrintError(std::move(result).WithCode(codes::kInterrupted), json_);
    std::fflush(stderr);
    ::_exit(sig == SIGINT ? 130 : 143);
  }

  std::mutex mu_;
  std::condition_variable write_ended_;
  Uploads* uploads_ = nullptr;
  std::string id_;
  bool interrupted_ = false;
  bool writing_ = false;
  bool json_ = false;
};

// Registers the open contract with the watch for its lifetime.
class OpenContract {
 public:
  OpenContract(InterruptWatch* watch, Uploads* uploads, const std::string& id) : watch_(watch) {
    watch_->Open(uploads, id);
  }
  ~OpenContract() { watch_->Close(); }
  OpenContract(const OpenContract&) = delete;
  OpenContract& operator=(const OpenContract&) = delete;

 private:
  InterruptWatch* watch_;
};

// ---- printing ----

// Widths count code points. Cuts text to at most `max` of them, marking the cut.
std::string Cut(const std::string& s, size_t max) {
  if (Utf8CodePointCount(s) <= max) return s;
  return s.substr(0, Utf8PrefixBytes(s, max > 0 ? max - 1 : 0, /*first_byte_starts=*/true)) + "…";
}

// An indented table whose cells may be painted: `paint(row, col, text)` returns the text to print
// (widths are measured before painting). Row -1 is the header.
void PrintIndentedTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows, const render::Style& st,
                        const std::function<std::string(int, size_t, const std::string&)>& paint,
                        std::string* out) {
  std::vector<size_t> widths(header.size());
  auto cell = [](const std::vector<std::string>& r, size_t i) {
    return i < r.size() ? Cut(r[i], 40) : std::string();
  };
  for (size_t i = 0; i < header.size(); ++i) widths[i] = Utf8CodePointCount(header[i]);
  for (const auto& r : rows) {
    for (size_t i = 0; i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], Utf8CodePointCount(cell(r, i)));
    }
  }
  // A column empty in every row (e.g. notes) is left out.
  std::vector<bool> shown(header.size(), true);
  for (size_t i = 0; i < header.size(); ++i) {
    bool any = false;
    for (const auto& r : rows) any = any || !cell(r, i).empty();
    shown[i] = any || i + 1 < header.size();
  }
  auto emit = [&](int row, const std::vector<std::string>& cells) {
    std::string line = "  ";
    for (size_t i = 0; i < widths.size(); ++i) {
      if (!shown[i]) continue;
      std::string text = cell(cells, i);
      bool last = true;
      for (size_t k = i + 1; k < widths.size(); ++k) last = last && !shown[k];
      line += row < 0 ? st.header(text) : paint(row, i, text);
      if (!last) line.append(widths[i] - Utf8CodePointCount(text) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    *out += line + "\n";
  };
  emit(-1, header);
  for (size_t r = 0; r < rows.size(); ++r) emit(static_cast<int>(r), rows[r]);
}

void PrintOut(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

std::string FilesBlock(const std::vector<std::string>& files, const std::vector<int64_t>& sizes,
                       const render::Style& st) {
  size_t w = 0;
  std::vector<std::string> names;
  for (const auto& f : files) {
    names.push_back(std::filesystem::path(f).filename().string());
    w = std::max(w, Utf8CodePointCount(names.back()));
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += "  " + names[i];
    out.append(w - Utf8CodePointCount(names[i]) + 2, ' ');
    out += st.dim(render::FormatBytes(sizes[i])) + "\n";
  }
  return out;
}

std::string IssuesBlock(const Contract& c, const render::Style& st) {
  std::string out;
  for (const auto& i : c.issues) {
    std::string head = i.blocking() ? st.error("blocking") : st.warn("warning ");
    out += "  " + head + "  " + i.code;
    if (!i.column.empty()) out += "  " + i.column;
    if (!i.detail.empty()) out += ": " + i.detail;
    out += "\n";
  }
  return out;
}

// The types a table cut (nested types run long), each in full on its own line.
std::string FullTypesBlock(const Contract& c, const render::Style& st) {
  std::string out;
  for (const PlanEntry& e : c.plan) {
    const std::string& type = e.to.empty() ? e.from : e.to;
    const bool from_cut = !e.to.empty() && e.from != e.to && Utf8CodePointCount(e.from) > 40;
    if (Utf8CodePointCount(type) <= 40 && !from_cut) continue;
    out += "    " + e.column + "  " + type;
    if (from_cut) out += st.dim("  (from " + e.from + ")");
    out += "\n";
  }
  return out.empty() ? out : "  " + st.dim("in full:") + "\n" + out;
}

// The plan as the table of a new dataset: column, sample, type, note.
std::string PlanTable(const Contract& c, const render::Style& st) {
  std::vector<std::vector<std::string>> rows = render::PlanRows(c);
  std::string out;
  PrintIndentedTable(
      {"column", "sample", "type", ""}, rows, st,
      [&](int row, size_t col, const std::string& text) -> std::string {
        const PlanEntry& e = c.plan[row];
        if (col == 1) return st.dim(text);
        if (col == 2) {
          if (e.action == PlanAction::kIgnored) return st.dim(text);
          if (e.action == PlanAction::kUnsupported || e.action == PlanAction::kUndeclared)
            return st.error(text);
          return e.retyped ? st.accent(text) : text;
        }
        if (col == 3) {
          if (e.action == PlanAction::kUnsupported || e.action == PlanAction::kUndeclared)
            return st.error(text);
          if (e.action == PlanAction::kMissing) return st.warn(text);
          return st.dim(text);
        }
        return text;
      },
      &out);
  return out + FullTypesBlock(c, st);
}

std::string TargetLine(const Contract& c, const render::Style& st) {
  return "  " + st.accent(c.target) + "  " + render::TargetSummary(c) + "\n";
}

std::string ConversionsBlock(const Contract& c, const render::Style& st) {
  std::vector<std::string> lines = render::ConversionLines(c);
  if (lines.empty())
    return "  " + st.dim("no conversions: the columns already have its types") + "\n";
  std::string out = "  conversions:\n";
  for (const auto& l : lines) out += "    " + l + "\n";
  return out;
}

// ---- the upload options ----

struct UploadArgs {
  std::vector<std::string> files;
  std::string to;
  bool infer = false;
  bool use_dataset = false;
  std::vector<std::string> declare;
  bool append = false;
  bool overwrite = false;
  std::vector<std::string> types;
  std::vector<std::string> ignore;
  std::string message;
  std::string author;
  std::string idempotency_key;
  bool yes = false;
  bool no_color = false;
};

void AddNegotiateOptions(CLI::App* cmd, UploadArgs* a) {
  cmd->add_option("FILES", a->files, "CSV, TSV, NDJSON or Parquet files (optionally .gz/.zst/.br)")
      ->required();
  cmd->add_option("--to", a->to, "The dataset: workspace.collection.dataset")->required();
  cmd->add_flag("--infer", a->infer, "Types read from the data (a new dataset; shown first)");
  cmd->add_flag("--use-dataset", a->use_dataset, "The types the existing dataset declares");
  cmd->add_option("--declare", a->declare, "COLUMN:TYPE of a new dataset (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--append", a->append, "Add the rows to the existing dataset (the default)");
  cmd->add_flag("--overwrite", a->overwrite, "Replace every row of the existing dataset");
  cmd->add_option("--type", a->types, "COLUMN=TYPE: write this column as TYPE (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--ignore", a->ignore, "Read COLUMN and do not write it (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--no-color", a->no_color, "No colour (as NO_COLOR)");
}

Result<NegotiateRequest> BuildRequest(const UploadArgs& a) {
  int sources = a.infer + a.use_dataset + !a.declare.empty();
  if (sources > 1) {
    return Status::Of(codes::kUsage, "give at most one of --infer, --use-dataset and --declare");
  }
  if (a.append && a.overwrite) {
    return Status::Of(codes::kUsage, "give --append or --overwrite, not both");
  }
  if ((a.append || a.overwrite) && (a.infer || !a.declare.empty())) {
    return Status::Of(
        codes::kUsage,
        "--append and --overwrite write to an existing dataset; --infer and --declare "
        "create a new one");
  }
  TARN_RETURN_NOT_OK(ParseDatasetName(a.to).status().WithContext("--to"));
  NegotiateRequest req;
  req.target = a.to;
  req.channel = "cli";
  WriteMode mode = a.overwrite ? WriteMode::kOverwrite : WriteMode::kAppend;
  if (!a.declare.empty()) {
    TARN_ASSIGN_OR_RETURN(auto cols, render::ParseDeclarations(a.declare));
    req.schema = SchemaSource::Declared(std::move(cols));
  } else if (a.infer) {
    req.schema = SchemaSource::Inferred();
  } else if (a.use_dataset) {
    req.schema = SchemaSource::OfDataset(mode);
  } else {
    req.schema = SchemaSource::Auto(mode);
  }
  TARN_ASSIGN_OR_RETURN(req.retype, render::ParseTypeAssignments(a.types));
  req.ignore = a.ignore;
  TARN_ASSIGN_OR_RETURN(req.samples, SampleFiles(a.files));
  return req;
}

std::vector<int64_t> FileSizes(const std::vector<std::string>& files) {
  std::vector<int64_t> sizes;
  for (const auto& f : files) {
    std::error_code ec;
    auto n = std::filesystem::file_size(f, ec);
    sizes.push_back(ec ? -1 : static_cast<int64_t>(n));
  }
  return sizes;
}

// The errors a person can correct at the prompt (a bad type text, an unknown column).
bool Correctable(const Status& s) {
  return s.kind() == ErrorKind::kInvalidArgument || s.kind() == ErrorKind::kNotFound;
}

Status Stopped(const Contract& c) {
  return Status::Of(codes::kContractNotAccepted, "stopped; nothing was written")
      .WithField("state", std::string(ContractStateName(ContractState::kAbandoned)))
      .WithField("contract_id", c.id);
}

// The conversation at a terminal over an inferred plan: accept, retype, drop or stop.
Result<Contract> Converse(Uploads& uploads, Contract c, const render::Style& st) {
  for (;;) {
    std::string out = "\n  " + st.dim("these types were read from your data") + "\n  " +
                      st.accent("accept") + " [enter]   " + st.accent("change") +
                      " column=TYPE   " + st.accent("drop") + " -column   " + st.accent("stop") +
                      " q\n> ";
    PrintOut(out);
    std::string line;
    if (!std::getline(std::cin, line)) {
      PrintOut("\n");
      return Stopped(c);
    }
    auto answer = render::ParsePromptLine(line);
    if (!answer.ok()) {
      PrintOut("  " + st.error(answer.status().message()) + "\n");
      continue;
    }
    if (answer->kind == render::PromptAnswer::Kind::kStop) return Stopped(c);
    if (answer->kind == render::PromptAnswer::Kind::kAccept) {
      if (c.blocking()) {
        PrintOut("  " + st.error("the plan has blocking issues; change or drop those columns") +
                 "\n" + IssuesBlock(c, st));
        continue;
      }
      return uploads.Accept(c.id, c.fingerprint);
    }
    bool changed = false;
    // The contract after a retype or ignore; a mistake the person can correct is shown and the
    // question asked again.
    auto apply = [&](Result<Contract> r) -> Status {
      if (!r.ok()) {
        if (!Correctable(r.status())) return r.status();
        PrintOut("  " + st.error(r.status().message()) + "\n");
        return Status::OK();
      }
      c = std::move(*r);
      changed = true;
      return Status::OK();
    };
    if (!answer->retype.empty()) TARN_RETURN_NOT_OK(apply(uploads.Retype(c.id, answer->retype)));
    if (!answer->ignore.empty()) TARN_RETURN_NOT_OK(apply(uploads.Ignore(c.id, answer->ignore)));
    if (changed) PrintOut("\n" + PlanTable(c, st) + IssuesBlock(c, st));
  }
}

std::string DefaultAuthor(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* v = std::getenv("TARN_AUTHOR");
  return v && *v ? v : "";
}

// push (plan_only false) and plan (true).
Status RunUpload(const UploadArgs& a, const GlobalOptions& g, CatalogOptions* co, bool plan_only) {
  if (a.no_color) render::DisableColor();
  InterruptWatch& watch = InterruptWatch::Start(g.json);
  TARN_ASSIGN_OR_RETURN(NegotiateRequest req, BuildRequest(a));
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<Client> opened, OpenClient(*co));
  std::shared_ptr<Client> client = std::move(opened);
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<Uploads> uploads, Uploads::For(client));
  TARN_ASSIGN_OR_RETURN(Contract c, uploads->Negotiate(req));
  OpenContract open(&watch, uploads.get(), c.id);
  // Every way out before the commit leaves nothing behind.
  auto fail = [&](Status s) {
    // The error being returned says more.
    DiscardError(uploads->Abandon(c.id), "abandoning contract " + c.id);
    for (const auto& [k, v] : s.fields()) {
      if (k == "contract_id") return s;
    }
    return std::move(s).WithField("contract_id", c.id);
  };

  render::Style st = render::Style::ForFd(1);
  std::vector<int64_t> sizes = FileSizes(a.files);

  if (plan_only) {
    Status abandoned = uploads->Abandon(c.id);
    if (g.json) {
      std::cout << Dump(render::ContractJson(c)) << "\n";
    } else {
      PrintOut("\n" + FilesBlock(a.files, sizes, st) + "\n" + TargetLine(c, st) + "\n" +
               PlanTable(c, st) + IssuesBlock(c, st) + "\n  " +
               st.dim("plan only: contract " + c.id + " abandoned, nothing was written") + "\n");
    }
    TARN_RETURN_NOT_OK(abandoned);
    return render::BlockingIssueError(c);
  }

  bool interactive = !g.json && ::isatty(0) && ::isatty(1);
  if (!g.json) {
    std::string out = "\n" + FilesBlock(a.files, sizes, st) + "\n" + TargetLine(c, st) + "\n";
    if (c.mode == SchemaMode::kCreate) {
      out += PlanTable(c, st);
    } else {
      out += ConversionsBlock(c, st);
    }
    out += IssuesBlock(c, st);
    PrintOut(out);
  }

  if (c.state == ContractState::kProposed) {
    if (c.schema_source == "inferred" && !a.yes) {
      if (!interactive) {
        return fail(
            Status::Of(codes::kContractNotAccepted,
                       "the types of " + c.target +
                           " were read from the data and nobody accepted them: pass --yes to "
                           "accept them, or --declare COLUMN:TYPE to say them; nothing was written")
                .WithField("state", std::string(ContractStateName(c.state)))
                .WithField("contract_id", c.id));
      }
      auto accepted = Converse(*uploads, c, st);
      if (!accepted.ok()) return fail(accepted.status());
      c = std::move(*accepted);
    } else {
      if (c.blocking()) return fail(render::BlockingIssueError(c));
      auto accepted = uploads->Accept(c.id, c.fingerprint);
      if (!accepted.ok()) return fail(accepted.status());
      c = std::move(*accepted);
    }
  }
  if (c.blocking()) return fail(render::BlockingIssueError(c));

  int64_t total = 0;
  for (int64_t s : sizes) total += s > 0 ? s : 0;
  render::ProgressLine progress;
  int64_t before = 0;
  for (size_t i = 0; i < a.files.size(); ++i) {
    const std::string& f = a.files[i];
    std::string name = std::filesystem::path(f).filename().string();
    if (!progress.enabled() && !g.json) {
      std::fprintf(stderr, "writing %s (%s)\n", name.c_str(),
                   render::FormatBytes(sizes[i]).c_str());
      std::fflush(stderr);
    }
    watch.Checkpoint();
    watch.BeginWrite();
    auto written = uploads->Write(c.id, f, [&](int64_t done, int64_t) {
      if (watch.Stopped()) return false;  // interrupted: the write ends and cleans up
      progress.Update(name, before + done, total);
      return true;
    });
    watch.EndWrite();
    progress.Clear();
    if (!written.ok()) return fail(written.status());
    before += sizes[i] > 0 ? sizes[i] : 0;
  }
  watch.Checkpoint();

  CommitRequest commit;
  commit.message = a.message;
  commit.author = DefaultAuthor(a.author);
  if (!a.idempotency_key.empty()) commit.idempotency_key = a.idempotency_key;
  auto done = uploads->CommitContract(c.id, commit);
  if (!done.ok()) return fail(done.status().WithContext("committing " + c.target));

  if (g.json) {
    std::cout << Dump(render::CommitJson(*done, c.id)) << "\n";
  } else {
    std::string out = "\n  " + st.ok("committed") + " " + done->target + ": snapshot " +
                      std::to_string(done->snapshot_id) + ", " +
                      std::to_string(done->rows_written) + " rows in " +
                      std::to_string(done->files) + (done->files == 1 ? " file" : " files") + " (" +
                      render::FormatBytes(done->bytes) + ")";
    if (done->created_dataset) out += ", dataset created";
    if (done->idempotent_replay) out += " " + st.dim("(an earlier commit with this key)");
    PrintOut(out + "\n");
  }
  return Status::OK();
}

// ---- show ----

std::string FormatMicros(int64_t us) { return us > 0 ? FormatTime(us) : ""; }

Status ShowContract(const Contract& c, bool as_json) {
  if (as_json) {
    std::cout << Dump(render::ContractJson(c)) << "\n";
    return Status::OK();
  }
  render::Style st = render::Style::ForFd(1);
  std::vector<std::pair<std::string, std::string>> kv = {
      {"id", c.id},
      {"state", std::string(ContractStateName(c.state))},
      {"target", c.target},
      {"schema_source", c.requested_source == c.schema_source || c.requested_source.empty()
                            ? c.schema_source
                            : c.requested_source + " -> " + c.schema_source},
      {"mode", std::string(SchemaModeName(c.mode))},
      {"channel", c.channel},
      {"created_by", c.created_by},
      {"created_at", FormatMicros(c.created_at_us)},
      {"updated_at", FormatMicros(c.updated_at_us)},
      {"expires_at", FormatMicros(c.expires_at_us)},
      {"fingerprint", c.fingerprint},
      {"rows_written", std::to_string(c.rows_written)},
      {"bytes_written", std::to_string(c.bytes_written)}};
  if (c.committed) kv.emplace_back("snapshot", std::to_string(c.committed->snapshot_id));
  PrintKeyValues(kv);
  std::string out = "\n";
  std::vector<std::vector<std::string>> files;
  for (const auto& f : c.files) {
    files.push_back({f.name, f.format, f.compression, render::FormatBytes(f.file_size),
                     std::to_string(f.sampled_rows)});
  }
  PrintIndentedTable(
      {"file", "format", "compression", "size", "sampled rows"}, files, st,
      [](int, size_t, const std::string& t) { return t; }, &out);
  out += "\n";
  std::vector<std::vector<std::string>> plan;
  for (const auto& e : c.plan)
    plan.push_back({e.column, e.sample, e.from, e.to, std::string(PlanActionName(e.action))});
  PrintIndentedTable(
      {"column", "sample", "from", "to", "action"}, plan, st,
      [&](int row, size_t col, const std::string& t) {
        if (col == 1) return st.dim(t);
        if (col == 4 && c.plan[row].action != PlanAction::kKeep) return st.accent(t);
        return t;
      },
      &out);
  out += FullTypesBlock(c, st);
  out += IssuesBlock(c, st);
  if (!c.parts.empty()) {
    out += "\n";
    std::vector<std::vector<std::string>> parts;
    for (const auto& p : c.parts) {
      parts.push_back({std::to_string(p.seq), p.name, std::to_string(p.rows),
                       render::FormatBytes(p.bytes_read), render::FormatBytes(p.bytes_written),
                       std::to_string(p.files)});
    }
    PrintIndentedTable(
        {"part", "name", "rows", "read", "written", "files"}, parts, st,
        [](int, size_t, const std::string& t) { return t; }, &out);
  }
  PrintOut(out);
  return Status::OK();
}

}  // namespace

void RegisterUploadCommands(CLI::App* app, GlobalOptions* global) {
  CatalogOptions* co = SharedCatalogOptions();
  {
    auto a = std::make_shared<UploadArgs>();
    auto* cmd = app->add_subcommand(
        "push",
        "Upload files to a dataset: agree the types first (a new dataset's inferred types are "
        "shown to you), then write and commit one snapshot");
    AddNegotiateOptions(cmd, a.get());
    cmd->add_option("-m,--message", a->message, "Commit message");
    cmd->add_option("--author", a->author,
                    "Author (default $TARN_AUTHOR, else the client id or local:$USER)");
    cmd->add_option("--idempotency-key", a->idempotency_key,
                    "A retry with the same key returns the original snapshot");
    cmd->add_flag("-y,--yes", a->yes, "Accept types read from the data without asking");
    SetCommand(cmd, [=]() { return RunUpload(*a, *global, co, /*plan_only=*/false); });
  }
  {
    auto a = std::make_shared<UploadArgs>();
    auto* cmd = app->add_subcommand(
        "plan", "Negotiate as push does, print the plan and abandon it: nothing is written");
    AddNegotiateOptions(cmd, a.get());
    SetCommand(cmd, [=]() { return RunUpload(*a, *global, co, /*plan_only=*/true); });
  }
  {
    auto id = std::make_shared<std::string>();
    auto no_color = std::make_shared<bool>(false);
    auto* cmd = app->add_subcommand("show", "Show an upload contract: plan, issues, parts, state");
    cmd->add_option("ID", *id, "Contract id (ct_...)")->required();
    cmd->add_flag("--no-color", *no_color, "No colour (as NO_COLOR)");
    SetCommand(cmd, [=]() -> Status {
      if (*no_color) render::DisableColor();
      TARN_ASSIGN_OR_RETURN(std::unique_ptr<Client> opened, OpenClient(*co));
      std::shared_ptr<Client> client = std::move(opened);
      TARN_ASSIGN_OR_RETURN(auto uploads, Uploads::For(client));
      TARN_ASSIGN_OR_RETURN(Contract c, uploads->GetContract(*id));
      return ShowContract(c, global->json);
    });
  }
  {
    auto id = std::make_shared<std::string>();
    auto no_color = std::make_shared<bool>(false);
    auto* cmd = app->add_subcommand(
        "abandon", "Abandon an upload contract: its staged files are deleted, nothing commits");
    cmd->add_option("ID", *id, "Contract id (ct_...)")->required();
    cmd->add_flag("--no-color", *no_color, "No colour (as NO_COLOR)");
    SetCommand(cmd, [=]() -> Status {
      if (*no_color) render::DisableColor();
      TARN_ASSIGN_OR_RETURN(std::unique_ptr<Client> opened, OpenClient(*co));
      std::shared_ptr<Client> client = std::move(opened);
      TARN_ASSIGN_OR_RETURN(auto uploads, Uploads::For(client));
      TARN_RETURN_NOT_OK(uploads->Abandon(*id));
      // Abandoning an expired contract is OK and leaves it expired: say which.
      auto now = uploads->GetContract(*id);
      const std::string state(ContractStateName(now.ok() ? now->state : ContractState::kAbandoned));
      if (global->json) {
        std::cout << Dump(json{{"id", *id}, {"state", state}}) << "\n";
      } else {
        PrintOut(id->c_str() + std::string(": ") + state + "\n");
      }
      return Status::OK();
    });
  }
}

}  // namespace tarn::cli
