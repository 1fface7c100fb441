// Draw: the screens of the full-screen app (view.h).
#include "tui/view.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "common/utf8.h"
#include "render/upload_render.h"
#include "tui/text.h"

namespace tarn::tui {

namespace {

using Clock = std::chrono::steady_clock;

// One piece of a line: text drawn in an attribute, padded or cut to `width` when >= 0.
struct Seg {
  std::string text;
  Attr attr;
  int width = -1;
};
using Line = std::vector<Seg>;

Attr A(ColorRole r) { return Attr::Role(r); }
const Attr kPlain{};

void PutLine(Canvas* c, int row, const Line& line) {
  int col = 0;
  for (const Seg& s : line) {
    if (col >= c->width()) break;
    if (s.width >= 0) {
      c->Put(row, col, PadText(s.text, s.width), s.attr, c->width() - col);
      col += s.width;
    } else {
      col += c->Put(row, col, s.text, s.attr, c->width() - col);
    }
  }
}

ColorRole SeverityRole(Severity s) {
  switch (s) {
    case Severity::kOk:
      return ColorRole::kOk;
    case Severity::kWarn:
      return ColorRole::kWarn;
    case Severity::kError:
      return ColorRole::kError;
    case Severity::kInfo:
      break;
  }
  return ColorRole::kDim;
}

std::string Spinner(Clock::time_point now) {
  static const char* kFrames[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return kFrames[(ms / 100) % 10];
}

// The first row of a window of `rows` rows over `count` items that shows `cursor`.
int WindowStart(int cursor, int count, int rows) {
  if (rows <= 0 || count <= rows) return 0;
  int first = std::max(0, cursor - rows + 1);
  return std::min(first, count - rows);
}

// A file's name on the list: its base name, or its path when two files share the name.
std::vector<std::string> FileLabels(const std::vector<FileItem>& files) {
  std::map<std::string, int> seen;
  for (const auto& f : files) ++seen[std::filesystem::path(f.path).filename().string()];
  std::vector<std::string> out;
  for (const auto& f : files) {
    std::string base = std::filesystem::path(f.path).filename().string();
    out.push_back(seen[base] > 1 ? DisplayPath(f.path) : base);
  }
  return out;
}

void DrawBottom(const AppState& s, Canvas* c, Clock::time_point now, int* bottom_top) {
  const int h = c->height();
  const int w = c->width();
  int row = h - 1;
  // Key line.
  Line keys{{" ", kPlain}};
  for (const auto& [k, what] : KeyHints(s)) {
    if (keys.size() > 1) keys.push_back({"  ", kPlain});
    keys.push_back({k, A(ColorRole::kAccent)});
    keys.push_back({" " + what, A(ColorRole::kDim)});
  }
  PutLine(c, row--, keys);
  // Status line: the request in progress, else the last message.
  Line status{{" ", kPlain}};
  const WriteProgress& p = *s.progress;
  if (p.active.load()) {
    std::string name;
    {
      std::lock_guard<std::mutex> lock(p.name_mu);
      name = p.name;
    }
    double elapsed = std::chrono::duration<double>(now - p.start).count();
    std::string label = "writing " + name;
    if (p.file_count.load() > 1) {
      label += " (" + std::to_string(p.file_index.load() + 1) + "/" +
               std::to_string(p.file_count.load()) + ")";
    }
    int64_t done = p.all_done.load() + std::max<int64_t>(p.done.load(), 0);
    int64_t total = p.all_total.load();
    status.push_back({Spinner(now) + " ", A(ColorRole::kAccent)});
    if (p.committing.load()) {
      status.push_back({"committing " + std::to_string(p.file_count.load()) +
                            (p.file_count.load() == 1 ? " file" : " files") + " (" +
                            render::FormatBytes(total) + " read)...",
                        kPlain});
    } else {
      std::string text = render::ProgressText(label, done, total > 0 ? total : -1, elapsed);
      status.push_back({text.substr(text.find_first_not_of(' ')), kPlain});
    }
    if (s.quitting) status.push_back({"  quitting...", A(ColorRole::kWarn)});
  } else if (!s.busy_label.empty()) {
    status.push_back({Spinner(now) + " " + s.busy_label + "...  ", A(ColorRole::kAccent)});
    status.push_back({s.status.text, A(SeverityRole(s.status.severity))});
  } else {
    status.push_back({s.status.text, A(SeverityRole(s.status.severity))});
  }
  PutLine(c, row--, status);
  // A prompt, else the progress bar of a write.
  if (s.prompt) {
    const Prompt& pr = *s.prompt;
    std::string shown = pr.masked ? std::string() : pr.text;
    if (pr.masked) {
      for (size_t i = Utf8CodePointCount(pr.text); i > 0; --i) shown += "•";
    }
    std::string head = " " + pr.label + ": ";
    // Keep the end of a long answer in view.
    int room = w - TextWidth(head) - 1;
    while (room > 0 && TextWidth(shown) > room) {
      char32_t cp;
      shown.erase(0, DecodeUtf8(shown, 0, &cp));
    }
    Attr cursor;
    cursor.reverse = true;
    PutLine(c, row--, {{head, A(ColorRole::kAccent)}, {shown, kPlain}, {" ", cursor}});
  } else if (p.active.load()) {
    int64_t done = p.all_done.load() + std::max<int64_t>(p.done.load(), 0);
    int64_t total = p.all_total.load();
    int bar = std::max(2, w - 10);
    std::string pct =
        total > 0 ? std::to_string(std::min<int64_t>(100, done * 100 / total)) + "%" : "";
    PutLine(c, row--,
            {{" " + ProgressBar(done, total, bar) + " ", A(ColorRole::kAccent)}, {pct, kPlain}});
  }
  *bottom_top = row + 1;
}

void DrawMain(const AppState& s, Canvas* c, Clock::time_point now) {
  const int w = c->width();
  int bottom = 0;
  DrawBottom(s, c, now, &bottom);

  // Title: " tarn upload" and the catalog at the right.
  std::string where = s.remote ? s.catalog : DisplayPath(s.catalog);
  PutLine(c, 0, {{" tarn upload", A(ColorRole::kHeader)}});
  int where_w = std::min(TextWidth(where), std::max(0, w - 16));
  if (where_w > 4) c->Put(0, w - where_w - 1, FitText(where, where_w), A(ColorRole::kDim));

  const bool have_plan = s.contract.has_value();
  const int issues = have_plan ? std::min<int>(3, static_cast<int>(s.contract->issues.size())) : 0;
  const int body = bottom - 1;  // rows 1 .. bottom-1
  const int fixed = 1 + 2 + 2 + 1 + (have_plan ? 1 : 0) + issues;
  int spacers = 4;
  int lists = body - fixed - spacers;
  if (lists < 2) {
    spacers = 0;
    lists = body - fixed;
  }
  const int nfiles = std::max<int>(1, static_cast<int>(s.files.size()));
  const int nplan = have_plan ? std::max<int>(1, static_cast<int>(s.contract->plan.size())) : 1;
  int files_rows = nfiles;
  int plan_rows = nplan;
  if (files_rows + plan_rows > lists) {
    files_rows = std::min(nfiles, std::max(1, lists / 3));
    plan_rows = std::max(1, lists - files_rows);
    if (files_rows + plan_rows > lists) files_rows = std::max(1, lists - plan_rows);
  }

  int row = 1;
  auto line = [&](const Line& l) {
    if (row < bottom) PutLine(c, row, l);
    ++row;
  };
  auto spacer = [&] {
    if (spacers > 0) ++row;
  };
  auto heading = [&](const std::string& name, bool focused, const std::string& extra) {
    Line l{{" " + name, A(ColorRole::kHeader)}};
    if (focused) l.push_back({" ◂", A(ColorRole::kAccent)});
    if (!extra.empty()) l.push_back({"   " + extra, A(ColorRole::kDim)});
    line(l);
  };

  // FILES
  spacer();
  {
    int64_t total = 0;
    for (const auto& f : s.files) total += std::max<int64_t>(f.size, 0);
    std::string extra;
    if (s.files.size() > 1) {
      extra = std::to_string(s.files.size()) + " files, " + render::FormatBytes(total);
    }
    const bool focused = s.focus == Focus::kFiles && !s.files.empty() && s.screen == Screen::kMain;
    heading("FILES", focused && have_plan, extra);
    if (s.files.empty()) {
      line({{"   none yet - a adds files", A(ColorRole::kDim)}});
    } else {
      auto labels = FileLabels(s.files);
      int name_w = 0;
      for (const auto& l : labels) name_w = std::max(name_w, TextWidth(l));
      name_w = std::min(name_w, std::max(8, w - 16));
      int first = WindowStart(s.files_cursor, static_cast<int>(s.files.size()), files_rows);
      for (int i = first; i < first + files_rows && i < static_cast<int>(s.files.size()); ++i) {
        bool cur = focused && i == s.files_cursor;
        line({{cur ? " › " : "   ", A(ColorRole::kAccent)},
              {labels[i], cur ? A(ColorRole::kAccent) : kPlain, name_w},
              {"  " + render::FormatBytes(s.files[i].size), A(ColorRole::kDim)}});
      }
    }
  }
  // ACCOUNT
  spacer();
  heading("ACCOUNT", false, "");
  if (!s.account.empty()) {
    Line l{{"   " + s.account, kPlain}};
    if (!s.remote) l.push_back({"  embedded catalog: no sign-in needed", A(ColorRole::kDim)});
    line(l);
  } else {
    line({{s.remote ? "   not signed in - c signs in" : "   opening the catalog...",
           A(ColorRole::kDim)}});
  }
  // TO
  spacer();
  heading("TO", false, "");
  if (s.target.empty()) {
    line({{"   not set - t sets it", A(ColorRole::kDim)}});
  } else {
    line({{"   " + s.target, A(ColorRole::kAccent)}, {"  " + s.target_note, A(ColorRole::kDim)}});
  }
  // PLAN
  spacer();
  if (!have_plan) {
    heading("PLAN", false, "");
    line(
        {{"   no plan yet - n negotiates (samples only: nothing is written)", A(ColorRole::kDim)}});
    return;
  }
  const Contract& k = *s.contract;
  auto rows = render::PlanRows(k);
  std::string position;
  if (static_cast<int>(rows.size()) > plan_rows) {
    position =
        " · column " + std::to_string(s.plan_cursor + 1) + " of " + std::to_string(rows.size());
  }
  heading("PLAN", false,
          render::TargetSummary(k) + " · " + std::string(ContractStateName(k.state)) + position);
  int cw = 6, sw = 6, tw = 4;
  for (const auto& r : rows) {
    cw = std::max(cw, TextWidth(r[0]));
    sw = std::max(sw, TextWidth(r[1]));
    tw = std::max(tw, TextWidth(r[2]));
  }
  cw = std::min(cw, 24);
  sw = std::min(sw, 24);
  tw = std::min(tw, 24);
  // Narrow screens give up the sample first, then the note.
  const bool show_sample = w >= 3 + cw + 2 + tw + 2 + 8;
  if (!show_sample) sw = 0;
  auto table_line = [&](const std::string& marker, Attr marker_attr, const std::string& col,
                        Attr col_attr, const std::string& sample, const std::string& type,
                        Attr type_attr, const std::string& note, Attr note_attr) {
    Line l{{marker, marker_attr}, {col, col_attr, cw + 2}};
    if (show_sample) l.push_back({sample, A(ColorRole::kDim), sw + 2});
    l.push_back({type, type_attr, tw + 2});
    l.push_back({note, note_attr});
    line(l);
  };
  Attr head = A(ColorRole::kDim);
  table_line("   ", kPlain, "column", head, "sample", "type", head, "", head);
  const bool focused = s.focus == Focus::kPlan && s.screen == Screen::kMain;
  int first = WindowStart(s.plan_cursor, static_cast<int>(rows.size()), plan_rows);
  for (int i = first; i < first + plan_rows && i < static_cast<int>(rows.size()); ++i) {
    const PlanEntry& e = k.plan[i];
    const bool cur = focused && i == s.plan_cursor;
    Attr col_attr = cur ? A(ColorRole::kAccent) : kPlain;
    Attr type_attr = kPlain;
    Attr note_attr = A(ColorRole::kDim);
    if (e.action == PlanAction::kIgnored) {
      col_attr = A(ColorRole::kDim);
      type_attr = A(ColorRole::kDim);
    } else if (e.action == PlanAction::kUnsupported || e.action == PlanAction::kUndeclared) {
      type_attr = A(ColorRole::kError);
      note_attr = A(ColorRole::kError);
    } else if (e.action == PlanAction::kMissing) {
      note_attr = A(ColorRole::kWarn);
    } else if (e.retyped) {
      type_attr = A(ColorRole::kAccent);
    }
    if (cur) col_attr.bold = true;
    table_line(cur ? " › " : "   ", A(ColorRole::kAccent), rows[i][0], col_attr, rows[i][1],
               rows[i][2], type_attr, rows[i][3], note_attr);
  }
  // Blocking issues first; when they do not all fit, the last line counts the rest.
  std::vector<const ContractIssue*> order;
  for (const auto& is : k.issues) {
    if (is.blocking()) order.push_back(&is);
  }
  for (const auto& is : k.issues) {
    if (!is.blocking()) order.push_back(&is);
  }
  const int all = static_cast<int>(order.size());
  for (int i = 0; i < issues; ++i) {
    if (i == issues - 1 && all > issues) {
      line({{"   and " + std::to_string(all - i) + " more issues (tarn show " + k.id +
                 " lists them)",
             A(ColorRole::kDim)}});
      break;
    }
    const ContractIssue& is = *order[i];
    std::string text = is.code + (is.column.empty() ? "" : "  " + is.column) +
                       (is.detail.empty() ? "" : ": " + is.detail);
    line({{is.blocking() ? "   blocking  " : "   warning   ",
           A(is.blocking() ? ColorRole::kError : ColorRole::kWarn)},
          {text, kPlain}});
  }
}

void DrawBrowser(const AppState& s, Canvas* c, Clock::time_point now) {
  const FileBrowser& b = *s.browser;
  const int w = c->width();
  int bottom = 0;
  DrawBottom(s, c, now, &bottom);
  PutLine(c, 0, {{" ADD FILES  ", A(ColorRole::kHeader)}, {DisplayPath(b.dir()), kPlain}});
  // The count line sits just above the bottom block.
  int count_row = bottom - 1;
  int added = b.added();
  const int listed = static_cast<int>(b.tagged().size()) - added;
  std::string count = std::to_string(added) + " to add";
  if (added == 0) {
    count = listed > 0 ? std::to_string(listed) + " on the list already - space tags more"
                       : "nothing tagged yet - space tags, a tags all here";
  }
  if (count_row > 1) {
    PutLine(c, count_row, {{" " + count, A(added ? ColorRole::kOk : ColorRole::kDim)}});
  }
  const int top = 2;
  const int rows = std::max(0, count_row - 1 - top);
  const auto& entries = b.entries();
  if (entries.empty() && rows > 0) {
    PutLine(c, top, {{"    (empty)", A(ColorRole::kDim)}});
    return;
  }
  int name_w = 4;
  for (const auto& e : entries) name_w = std::max(name_w, TextWidth(e.name) + (e.is_dir ? 1 : 0));
  name_w = std::min(name_w, std::max(8, w - 24));
  int first = WindowStart(b.cursor(), static_cast<int>(entries.size()), rows);
  for (int i = first, row = top; i < static_cast<int>(entries.size()) && row < top + rows;
       ++i, ++row) {
    const BrowserEntry& e = entries[i];
    const bool cur = i == b.cursor();
    const bool tagged = !e.is_dir && b.IsTagged(e.path);
    Attr name_attr = kPlain;
    if (!e.readable()) name_attr = A(ColorRole::kDim);
    if (e.is_dir) name_attr = A(ColorRole::kAccent);
    if (cur) name_attr.bold = true;
    Line l{{cur ? " › " : "   ", A(ColorRole::kAccent)},
           {tagged ? "✓ " : "  ", A(ColorRole::kOk)},
           {e.name + (e.is_dir && !e.parent ? "/" : ""), name_attr, name_w}};
    if (!e.is_dir) {
      l.push_back({"  " + PadText("", std::max(0, 9 - TextWidth(render::FormatBytes(e.size)))) +
                       render::FormatBytes(e.size),
                   A(ColorRole::kDim)});
    }
    if (!e.readable()) l.push_back({"  " + e.unreadable, A(ColorRole::kDim)});
    if (cur) {
      // The selection bar over the whole row.
      PutLine(c, row, l);
      c->SetAttr(row, 0, 3, A(ColorRole::kAccent));
    } else {
      PutLine(c, row, l);
    }
  }
}

// The key list as rows: a heading, its keys, a blank row between sections.
std::vector<Line> HelpRows() {
  std::vector<Line> rows;
  for (const auto& [k, what] : HelpLines()) {
    if (k.empty()) {
      if (!rows.empty()) rows.push_back({});
      rows.push_back({{" " + what, A(ColorRole::kHeader)}});
      continue;
    }
    rows.push_back({{"   ", kPlain}, {k, A(ColorRole::kAccent), 12}, {what, kPlain}});
  }
  return rows;
}

void DrawHelp(const AppState& s, Canvas* c, Clock::time_point now) {
  int bottom = 0;
  DrawBottom(s, c, now, &bottom);
  PutLine(c, 0, {{" KEYS", A(ColorRole::kHeader)}});
  const std::vector<Line> rows = HelpRows();
  const int room = std::max(0, bottom - 2);
  const int first = std::clamp(s.help_scroll, 0, std::max(0, static_cast<int>(rows.size()) - room));
  for (int i = 0; i < room && first + i < static_cast<int>(rows.size()); ++i) {
    PutLine(c, 2 + i, rows[first + i]);
  }
  if (first + room < static_cast<int>(rows.size())) {
    c->Put(0, std::max(6, c->width() - 14), "↓ more: j, ↓", A(ColorRole::kDim));
  }
}

}  // namespace

std::string ProgressBar(int64_t done, int64_t total, int width) {
  width = std::max(2, width);
  int inner = width - 2;
  int fill = 0;
  if (total > 0) {
    fill = static_cast<int>(std::min<int64_t>(inner, std::max<int64_t>(0, done) * inner / total));
  }
  std::string out = "[";
  for (int i = 0; i < inner; ++i) out += i < fill ? "█" : "░";
  out += "]";
  return out;
}

std::vector<std::pair<std::string, std::string>> KeyHints(const AppState& s) {
  if (s.prompt) return {{"⏎", "done"}, {"esc", "cancel"}, {"ctrl-u", "clear"}};
  if (s.screen == Screen::kHelp) return {{"↑↓", "scroll"}, {"any other key", "back"}};
  if (s.screen == Screen::kBrowser) {
    return {{"↑↓", "move"},    {"⏎", "open"},        {"←", "up"},     {"space", "tag"},
            {"a", "all here"}, {"g", "type a path"}, {".", "hidden"}, {"esc", "back"}};
  }
  if (s.quitting) return {{"q", "leave now"}};
  if (s.progress->active.load()) return {{"q", "quit (abandons)"}};
  const Contract* k = s.contract ? &*s.contract : nullptr;
  if (k != nullptr && s.focus == Focus::kPlan &&
      (k->state == ContractState::kProposed || k->state == ContractState::kAccepted)) {
    std::vector<std::pair<std::string, std::string>> out = {
        {"↑↓", "column"}, {"e", "retype"}, {"x", "ignore"}};
    if (k->state == ContractState::kProposed) out.push_back({"⏎", "accept"});
    out.push_back({"u", "upload"});
    out.push_back({"h", "keys"});
    out.push_back({"q", "quit"});
    return out;
  }
  std::vector<std::pair<std::string, std::string>> out;
  if (s.remote && s.account.empty()) out.push_back({"c", "sign in"});
  if (!s.files.empty()) {
    out.push_back({"↑↓", "file"});
    out.push_back({"d", "remove"});
  }
  out.push_back({"a", "add files"});
  out.push_back({"t", "destination"});
  if (!s.files.empty() && !s.target.empty()) out.push_back({"n", "negotiate"});
  if (k != nullptr) out.push_back({"tab", "plan"});
  out.push_back({"h", "keys"});
  out.push_back({"q", "quit"});
  return out;
}

std::vector<std::pair<std::string, std::string>> HelpLines() {
  return {
      {"", "UPLOAD"},
      {"c", "sign in: client id, then access token (masked), checked at once"},
      {"a", "add files: the file browser"},
      {"d  del", "remove the file under the cursor"},
      {"t", "set the destination: workspace.collection.dataset"},
      {"n", "negotiate: sample the files, propose a plan (nothing is written)"},
      {"↑↓  j k", "move through the files or the plan"},
      {"tab", "move between the files and the plan"},
      {"e", "retype the column under the cursor"},
      {"x", "ignore the column under the cursor: read, not written"},
      {"⏎", "accept the plan"},
      {"u", "upload every file and commit one snapshot"},
      {"h  ?", "this list"},
      {"q  ctrl-c", "quit; an open contract is abandoned, nothing of it kept"},
      {"", "FILE BROWSER"},
      {"↑↓  j k", "move (the cursor starts on the top row in every folder)"},
      {"⏎  →", "open the folder, or tag the file"},
      {"←  bksp", "up to the parent folder"},
      {"space", "tag or untag the file (tags survive changing folders)"},
      {"a", "tag every readable file here"},
      {"g", "type a path, a folder or a glob such as **/*.parquet"},
      {".", "show or hide hidden files"},
      {"esc  q", "back, with the tagged files on the list"},
      {"", "PROMPTS"},
      {"⏎", "done"},
      {"esc", "cancel"},
      {"ctrl-u", "clear the line"},
  };
}

void Draw(const AppState& s, Canvas* c, Clock::time_point now) {
  c->Clear();
  if (c->width() < kMinCols || c->height() < kMinRows) {
    // As much of the notice as fits: "too small" from 9 columns on.
    const std::string full =
        "too small: tarn needs " + std::to_string(kMinCols) + "x" + std::to_string(kMinRows);
    c->Put(0, 0, c->width() >= TextWidth(full) ? full : std::string("too small"),
           A(ColorRole::kWarn), -1, false);
    if (c->height() > 1) {
      std::string status = s.busy_label.empty() ? s.status.text : s.busy_label + "...";
      c->Put(c->height() - 1, 0, status, A(SeverityRole(s.status.severity)));
    }
    return;
  }
  switch (s.screen) {
    case Screen::kMain:
      DrawMain(s, c, now);
      return;
    case Screen::kBrowser:
      if (s.browser) {
        DrawBrowser(s, c, now);
        return;
      }
      DrawMain(s, c, now);
      return;
    case Screen::kHelp:
      DrawHelp(s, c, now);
      return;
  }
}

}  // namespace tarn::tui
