// The screens as text: what the main screen, the browser, prompts, the help list and the write
// progress show, and that any terminal size draws without a crash.
#include "tui/view.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tui/text.h"

namespace tarn::tui {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string Screen(const AppState& s, int w = 80, int h = 24) {
  Canvas c(w, h);
  Draw(s, &c, Clock::now());
  std::string out;
  for (const auto& l : c.Lines()) out += l + "\n";
  return out;
}

// The row holding `needle`, or "".
std::string RowWith(const std::string& screen, const std::string& needle) {
  size_t at = screen.find(needle);
  if (at == std::string::npos) return "";
  size_t b = screen.rfind('\n', at);
  size_t e = screen.find('\n', at);
  return screen.substr(b == std::string::npos ? 0 : b + 1,
                       e - (b == std::string::npos ? 0 : b + 1));
}

PlanEntry Entry(std::string col, std::string from, std::string to, PlanAction action,
                std::string sample, bool changes = false, bool retyped = false) {
  PlanEntry e;
  e.column = std::move(col);
  e.from = std::move(from);
  e.to = std::move(to);
  e.action = action;
  e.sample = std::move(sample);
  e.changes_values = changes;
  e.retyped = retyped;
  return e;
}

AppState Sample() {
  AppState s;
  s.catalog = "http://127.0.0.1:8181";
  s.remote = true;
  s.connected = true;
  s.account = "acme-etl";
  s.files = {{"/data/part-0000.parquet", 412900000}, {"/data/part-0001.parquet", 398100000}};
  s.target = "acme.security.findings";
  s.target_note = "new dataset";
  Contract c;
  c.id = "ct_1";
  c.state = ContractState::kProposed;
  c.target = s.target;
  c.requested_source = "auto";
  c.schema_source = "inferred";
  c.mode = SchemaMode::kCreate;
  c.plan = {Entry("cve_id", "VARCHAR", "VARCHAR", PlanAction::kKeep, "CVE-2026-00001"),
            Entry("published", "VARCHAR", "TIMESTAMP[us]", PlanAction::kCast,
                  "2026-08-02T04:22:07Z", true, true),
            Entry("source_ip", "VARCHAR", "IPV4", PlanAction::kCast, "10.1.7.13", true, true),
            Entry("hosts", "INT64", "INT64", PlanAction::kKeep, "1"),
            Entry("score", "FLOAT64", "", PlanAction::kIgnored, "0.5")};
  s.contract = c;
  s.focus = Focus::kPlan;
  s.plan_cursor = 2;
  s.status = {Severity::kWarn,
              "these types were read from your data - nothing is written until you accept"};
  return s;
}

TEST(ViewTest, MainScreenShowsEverySection) {
  std::string screen = Screen(Sample());
  for (const char* want :
       {" tarn upload", "FILES", "part-0000.parquet", "412.9 MB", "ACCOUNT", "acme-etl", "TO",
        "acme.security.findings", "PLAN", "column", "sample", "type"}) {
    EXPECT_NE(screen.find(want), std::string::npos) << want << "\n" << screen;
  }
  EXPECT_NE(RowWith(screen, "published").find("was VARCHAR, converted"), std::string::npos)
      << screen;
  EXPECT_NE(RowWith(screen, "score").find("read and not written"), std::string::npos) << screen;
  // The cursor is on the third plan row.
  EXPECT_EQ(RowWith(screen, "source_ip").rfind(" › source_ip", 0), 0u) << screen;
  EXPECT_EQ(RowWith(screen, "hosts").rfind("   hosts", 0), 0u) << screen;
  // Status and key lines at the bottom.
  Canvas c(80, 24);
  Draw(Sample(), &c, Clock::now());
  EXPECT_NE(c.RowText(22).find("nothing is written until you accept"), std::string::npos);
  EXPECT_NE(c.RowText(23).find("e retype"), std::string::npos) << c.RowText(23);
  EXPECT_NE(c.RowText(23).find("⏎ accept"), std::string::npos);
  EXPECT_NE(c.RowText(23).find("q quit"), std::string::npos);
}

TEST(ViewTest, KeyLineFollowsTheContext) {
  AppState s;
  s.remote = true;
  auto has = [](const AppState& st, const std::string& key) {
    for (const auto& [k, what] : KeyHints(st)) {
      if (k == key) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(s, "c"));
  EXPECT_FALSE(has(s, "n"));  // nothing to negotiate yet
  s.files = {{"a.csv", 10}};
  s.target = "a.b.c";
  EXPECT_TRUE(has(s, "n"));
  EXPECT_TRUE(has(s, "d"));
  AppState p = Sample();
  EXPECT_TRUE(has(p, "⏎"));
  p.contract->state = ContractState::kAccepted;
  EXPECT_FALSE(has(p, "⏎"));
  EXPECT_TRUE(has(p, "u"));
  p.screen = Screen::kBrowser;
  EXPECT_TRUE(has(p, "space"));
  EXPECT_TRUE(has(p, "g"));
  p.prompt = Prompt{};
  EXPECT_TRUE(has(p, "esc"));
}

TEST(ViewTest, SecretIsMaskedAsTyped) {
  AppState s = Sample();
  s.prompt = Prompt{PromptKind::kSecret, "access token for etl", "hunter2", true, "etl"};
  std::string screen = Screen(s);
  EXPECT_EQ(screen.find("hunter2"), std::string::npos);
  EXPECT_NE(RowWith(screen, "access token for etl").find("•••••••"), std::string::npos) << screen;
  s.prompt->masked = false;
  s.prompt->kind = PromptKind::kRetype;
  s.prompt->label = "type of score";
  s.prompt->text = "DECIMAL(10,2)";
  EXPECT_NE(RowWith(Screen(s), "type of score").find("DECIMAL(10,2)"), std::string::npos);
}

TEST(ViewTest, WriteShowsByteCounterRateAndBar) {
  AppState s = Sample();
  s.contract->state = ContractState::kWriting;
  auto& p = *s.progress;
  p.start = Clock::now() - std::chrono::seconds(2);
  p.name = "part-0001.parquet";
  p.file_index = 1;
  p.file_count = 2;
  p.all_done = 412900000;
  p.done = 100000000;
  p.total = 398100000;
  p.all_total = 811000000;
  p.active = true;
  std::string screen = Screen(s);
  std::string status = RowWith(screen, "writing part-0001.parquet (2/2)");
  ASSERT_FALSE(status.empty()) << screen;
  EXPECT_NE(status.find("512.9 MB / 811.0 MB"), std::string::npos) << status;
  EXPECT_NE(status.find("MB/s"), std::string::npos) << status;
  EXPECT_NE(status.find("ETA"), std::string::npos) << status;
  std::string bar = RowWith(screen, "[█");
  EXPECT_NE(bar.find("63%"), std::string::npos) << screen;
  EXPECT_NE(RowWith(screen, "quit (abandons)"), "") << screen;
  // Every byte read: the commit runs.
  p.all_done = 811000000;
  p.done = 0;
  p.committing = true;
  screen = Screen(s);
  EXPECT_NE(screen.find("committing 2 files (811.0 MB read)"), std::string::npos) << screen;
  EXPECT_NE(RowWith(screen, "[█").find("100%"), std::string::npos) << screen;
}

TEST(ViewTest, ProgressBarFills) {
  EXPECT_EQ(ProgressBar(0, 100, 6), "[░░░░]");
  EXPECT_EQ(ProgressBar(50, 100, 6), "[██░░]");
  EXPECT_EQ(ProgressBar(100, 100, 6), "[████]");
  EXPECT_EQ(ProgressBar(500, 100, 6), "[████]");
  EXPECT_EQ(ProgressBar(5, -1, 4), "[░░]");
  EXPECT_EQ(ProgressBar(5, 10, 0), "[]");
}

TEST(ViewTest, LongPlansScrollToKeepTheCursorInView) {
  AppState s = Sample();
  s.contract->plan.clear();
  for (int i = 0; i < 60; ++i) {
    s.contract->plan.push_back(
        Entry("col" + std::to_string(i), "INT64", "INT64", PlanAction::kKeep, "1"));
  }
  s.plan_cursor = 45;
  for (int i = 0; i < 5; ++i) {
    ContractIssue is;
    is.code = i == 4 ? "value_not_castable" : "sources_disagree";
    is.column = "col" + std::to_string(i);
    is.severity = i == 4 ? IssueSeverity::kBlocking : IssueSeverity::kWarning;
    s.contract->issues.push_back(is);
  }
  std::string screen = Screen(s, 80, 24);
  EXPECT_NE(screen.find(" › col45"), std::string::npos) << screen;
  EXPECT_NE(screen.find("column 46 of 60"), std::string::npos) << screen;
  // The blocking issue comes first; the rest are counted.
  EXPECT_LT(screen.find("blocking  value_not_castable"), screen.find("warning   sources_disagree"))
      << screen;
  EXPECT_NE(screen.find("and 3 more issues (tarn show ct_1 lists them)"), std::string::npos)
      << screen;
  EXPECT_EQ(screen.find("col0 "), std::string::npos) << screen;
  // The status and key lines are still there.
  EXPECT_NE(screen.find("q quit"), std::string::npos);
  EXPECT_NE(screen.find("nothing is written"), std::string::npos);
}

TEST(ViewTest, EverySizeDrawsWithoutCrashing) {
  AppState s = Sample();
  s.prompt = Prompt{PromptKind::kTarget, "to", std::string(300, 'x'), false, {}};
  for (int w = 0; w <= 130; w += 3) {
    for (int h = 0; h <= 40; h += 2) {
      Canvas c(w, h);
      Draw(s, &c, Clock::now());
      if (w >= kMinCols && h >= kMinRows) {
        EXPECT_NE(c.RowText(h - 1).find("ctrl-u"), std::string::npos) << w << "x" << h;
      }
    }
  }
  Canvas tiny(10, 3);
  Draw(s, &tiny, Clock::now());
  EXPECT_EQ(tiny.RowText(0), "too small");
  Canvas narrow(29, 20);
  Draw(s, &narrow, Clock::now());
  EXPECT_EQ(narrow.RowText(0), "too small: tarn needs 30x8");
}

TEST(ViewTest, BrowserListsTagsAndDimsUnreadableFiles) {
  fs::path dir = fs::path(testing::TempDir()) / ("tarn_tui_view_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "part-0001.parquet") << "x";
  std::ofstream(dir / "a.csv") << "a\n1\n";
  std::ofstream(dir / "SHA256SUMS") << "0123456789";
  AppState s;
  s.screen = Screen::kBrowser;
  s.browser = std::make_unique<FileBrowser>(dir.string());
  EXPECT_FALSE(s.browser->ToggleTag().ok());  // the cursor starts on "..", the top row
  Canvas c(80, 20);
  Draw(s, &c, Clock::now());
  std::string screen;
  for (const auto& l : c.Lines()) screen += l + "\n";
  EXPECT_NE(screen.find("ADD FILES"), std::string::npos) << screen;
  EXPECT_NE(RowWith(screen, "..").find("›"), std::string::npos) << screen;
  (void)s.browser->TagAllHere();
  Draw(s, &c, Clock::now());
  screen.clear();
  for (const auto& l : c.Lines()) screen += l + "\n";
  EXPECT_NE(RowWith(screen, "a.csv").find("✓"), std::string::npos) << screen;
  EXPECT_EQ(RowWith(screen, "SHA256SUMS").find("✓"), std::string::npos) << screen;
  EXPECT_NE(RowWith(screen, "SHA256SUMS").find("not CSV"), std::string::npos) << screen;
  EXPECT_NE(screen.find("sub/"), std::string::npos);
  EXPECT_NE(screen.find("2 to add"), std::string::npos) << screen;  // by name: a.csv, .parquet
  // Unreadable names are dimmed.
  int row = 0;
  for (; row < c.height(); ++row) {
    if (c.RowText(row).find("SHA256SUMS") != std::string::npos) break;
  }
  ASSERT_LT(row, c.height());
  int col = static_cast<int>(c.RowText(row).find("SHA256SUMS"));
  // Columns count code points here only because the row before the name is ASCII.
  EXPECT_EQ(c.at(row, col).attr.role, ColorRole::kDim);
  fs::remove_all(dir);
}

TEST(ViewTest, HelpListsEveryKey) {
  AppState s;
  s.screen = Screen::kHelp;
  std::string screen = Screen(s, 100, 40);
  for (const char* k : {"sign in", "add files", "remove", "destination", "negotiate", "retype",
                        "ignore", "accept", "upload", "quit", "glob", "hidden"}) {
    EXPECT_NE(screen.find(k), std::string::npos) << k;
  }
}

TEST(ViewTest, HelpScrollsOnSmallScreensAndFitsEighty) {
  AppState s;
  s.screen = Screen::kHelp;
  for (const auto& [k, what] : HelpLines()) {
    EXPECT_LE(3 + 12 + TextWidth(what), 80) << what;  // no description is cut at 80 columns
  }
  std::string top = Screen(s, 80, 24);
  EXPECT_NE(top.find("↓ more"), std::string::npos) << top;
  EXPECT_EQ(top.find("ctrl-u"), top.rfind("ctrl-u"));  // only in the key line, not the list
  s.help_scroll = 1000;                                // clamped to the last page
  std::string end = Screen(s, 80, 24);
  EXPECT_NE(end.find("clear the line"), std::string::npos) << end;
  EXPECT_EQ(end.find("↓ more"), std::string::npos) << end;
}

TEST(ViewTest, DisplayPathUsesTilde) {
  const char* old = std::getenv("HOME");
  std::string saved = old ? old : "";
  ::setenv("HOME", "/home/ann", 1);
  EXPECT_EQ(DisplayPath("/home/ann/x.csv"), "~/x.csv");
  EXPECT_EQ(DisplayPath("/home/ann"), "~");
  EXPECT_EQ(DisplayPath("/home/anna/x"), "/home/anna/x");
  if (old) {
    ::setenv("HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("HOME");
  }
}

}  // namespace
}  // namespace tarn::tui
