// App over a real embedded catalog with an inline worker: the keys of the upload flow, what
// each leaves in the catalog, and quitting with a contract open.
#include "tui/app.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "common/test_util.h"

namespace tarn::tui {
namespace {

namespace fs = std::filesystem;

Key K(char c) { return Key::Char(std::string(1, c)); }
Key Code(KeyCode c) { return Key::Of(c); }
Key Ctrl(char c) { return Key{KeyCode::kCtrl, std::string(1, c)}; }

class AppTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(testing::TempDir()) /
            ("tarn_tui_app_" + std::to_string(::getpid()) + "_" +
             testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "data" / "more");
    catalog_ = (root_ / "catalog").string();
    auto c = Client::Connect(catalog_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    client_ = std::move(*c);
    ASSERT_TRUE(client_->CreateWorkspace("acme").ok());
    ASSERT_TRUE(client_->CreateCollection("acme.sec").ok());
    csv_ = (root_ / "data" / "findings.csv").string();
    std::ofstream(csv_) << "cve_id,hosts,score,seen\n"
                           "CVE-1,1,0.5,2026-08-02T04:22:07Z\n"
                           "CVE-2,7,1.25,2026-08-03T05:00:00Z\n"
                           "CVE-3,3,2.75,2026-08-04T06:30:00Z\n";
    worker_ = Worker::Inline();
  }
  void TearDown() override {
    app_.reset();
    worker_.reset();
    client_.reset();
    fs::remove_all(root_);
  }

  App& Open(std::vector<std::string> files, std::string target) {
    AppOptions o;
    o.catalog = catalog_;
    o.files = std::move(files);
    o.target = std::move(target);
    o.start_dir = (root_ / "data").string();
    app_ = std::make_unique<App>(std::move(o), worker_.get());
    app_->Pump();
    return *app_;
  }

  void Press(const Key& k) {
    app_->HandleKey(k);
    app_->Pump();
  }
  void Type(const std::string& text) {
    for (char c : text) Press(K(c));
  }
  const AppState& S() { return app_->state(); }
  int PlanIndex(const std::string& column) {
    const auto& plan = S().contract->plan;
    for (size_t i = 0; i < plan.size(); ++i) {
      if (plan[i].column == column) return static_cast<int>(i);
    }
    return -1;
  }
  void MoveTo(const std::string& column) {
    int want = PlanIndex(column);
    ASSERT_GE(want, 0) << column;
    while (S().plan_cursor < want) Press(K('j'));
    while (S().plan_cursor > want) Press(K('k'));
  }

  fs::path root_;
  std::string catalog_;
  std::string csv_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<App> app_;
};

TEST_F(AppTest, NegotiateRetypeIgnoreAcceptUploadCommits) {
  Open({csv_}, "acme.sec.findings");
  EXPECT_TRUE(S().connected);
  EXPECT_EQ(S().account.rfind("local:", 0), 0u) << S().account;
  EXPECT_EQ(S().target_note, "new dataset");

  Press(K('u'));  // nothing to upload yet
  EXPECT_EQ(S().status.severity, Severity::kWarn);
  Press(K('n'));
  ASSERT_TRUE(S().contract.has_value()) << S().status.text;
  EXPECT_EQ(S().contract->state, ContractState::kProposed);
  EXPECT_EQ(S().contract->plan.size(), 4u);
  EXPECT_EQ(S().focus, Focus::kPlan);
  EXPECT_NE(S().status.text.find("nothing is written until you accept"), std::string::npos);

  Press(K('u'));  // proposed: refused, nothing written
  EXPECT_NE(S().status.text.find("accept the plan first"), std::string::npos);

  // A type the values do not convert to is a blocking issue, shown and refused at accept.
  MoveTo("cve_id");
  Press(K('e'));
  ASSERT_TRUE(S().prompt.has_value());
  EXPECT_EQ(S().prompt->kind, PromptKind::kRetype);
  EXPECT_EQ(S().prompt->text, "VARCHAR");
  Press(Ctrl('u'));
  Type("INT64");
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().status.severity, Severity::kError) << S().status.text;
  EXPECT_TRUE(S().contract->blocking());
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().contract->state, ContractState::kProposed);
  EXPECT_NE(S().status.text.find("blocking"), std::string::npos) << S().status.text;
  Press(K('e'));
  Press(Ctrl('u'));
  Type("VARCHAR");
  Press(Code(KeyCode::kEnter));
  EXPECT_FALSE(S().contract->blocking());

  MoveTo("score");
  Press(K('e'));
  Press(Ctrl('u'));
  Type("DECIMAL(10,2)");
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().contract->plan[PlanIndex("score")].to, "DECIMAL(10,2)") << S().status.text;

  MoveTo("seen");
  Press(K('x'));
  EXPECT_EQ(S().contract->plan[PlanIndex("seen")].action, PlanAction::kIgnored) << S().status.text;

  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().contract->state, ContractState::kAccepted) << S().status.text;
  Press(K('u'));
  ASSERT_TRUE(S().committed.has_value()) << S().status.text;
  EXPECT_EQ(S().committed->rows_written, 3);
  EXPECT_TRUE(S().committed->created_dataset);
  EXPECT_EQ(S().contract->state, ContractState::kCommitted);
  EXPECT_FALSE(S().progress->active.load());
  EXPECT_NE(S().status.text.find("committed snapshot"), std::string::npos);

  auto info = client_->LoadDataset("acme.sec.findings");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->total_records, 3);
  ASSERT_EQ(info->schema.fields.size(), 3u);
  EXPECT_EQ(info->schema.fields[0].name, "cve_id");
  EXPECT_EQ(info->schema.fields[2].name, "score");
  EXPECT_NE(info->schema.ToString().find("DECIMAL(10,2)"), std::string::npos)
      << info->schema.ToString();

  // Quitting after a commit has nothing to abandon.
  Press(K('q'));
  EXPECT_TRUE(S().finished);
  EXPECT_EQ(S().farewell, "");
}

TEST_F(AppTest, QuitWithAnOpenContractAbandonsIt) {
  Open({csv_}, "acme.sec.findings");
  Press(K('n'));
  ASSERT_TRUE(S().contract.has_value());
  std::string id = S().contract->id;
  Press(Code(KeyCode::kEnter));
  ASSERT_EQ(S().contract->state, ContractState::kAccepted);
  Press(K('q'));
  EXPECT_TRUE(S().finished);
  EXPECT_NE(S().farewell.find("abandoned"), std::string::npos) << S().farewell;
  auto uploads = Uploads::For(std::shared_ptr<Client>(std::move(client_)));
  ASSERT_TRUE(uploads.ok());
  auto c = (*uploads)->GetContract(id);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kAbandoned);
  std::error_code ec;
  EXPECT_FALSE(fs::exists(root_ / "catalog" / "warehouse" / "uploads" / id / "samples", ec));
}

TEST_F(AppTest, QuitDuringAWriteStopsItAndAbandons) {
  std::string big = (root_ / "data" / "big.csv").string();
  {
    std::ofstream out(big);
    out << "cve_id,hosts,score,seen\n";
    for (int i = 0; i < 400000; ++i) {
      out << "CVE-" << i << "," << i % 97 << "," << i % 13 << ".25,2026-08-02T04:22:07Z\n";
    }
  }
  // A real worker thread: the write runs while this thread quits.
  auto threaded = std::make_unique<Worker>(nullptr);
  AppOptions o;
  o.catalog = catalog_;
  o.files = {big};
  o.target = "acme.sec.big";
  app_ = std::make_unique<App>(std::move(o), threaded.get());
  auto settle = [&] {
    ASSERT_TRUE(testing_util::Eventually(
        [&] {
          app_->Pump();
          return !threaded->busy();
        },
        std::chrono::seconds(30)))
        << "a request did not end";
    app_->Pump();  // the effects of the request that just ended
  };
  settle();
  app_->HandleKey(K('n'));
  settle();
  ASSERT_TRUE(S().contract.has_value()) << S().status.text;
  std::string id = S().contract->id;
  app_->HandleKey(Code(KeyCode::kEnter));
  settle();
  ASSERT_EQ(S().contract->state, ContractState::kAccepted) << S().status.text;
  app_->HandleKey(K('u'));
  testing_util::Eventually([&] { return S().progress->done.load() > 0; });
  ASSERT_GT(S().progress->done.load(), 0);
  ASSERT_TRUE(S().progress->active.load()) << "the write ended before the quit";
  app_->Quit();
  testing_util::Eventually(
      [&] {
        app_->Pump();
        return S().finished;
      },
      std::chrono::seconds(30));
  ASSERT_TRUE(S().finished) << S().status.text;
  EXPECT_FALSE(app_->must_exit());
  EXPECT_NE(S().farewell.find("abandoned"), std::string::npos) << S().farewell;
  app_.reset();
  threaded.reset();
  auto uploads = Uploads::For(std::shared_ptr<Client>(std::move(client_)));
  ASSERT_TRUE(uploads.ok());
  EXPECT_EQ((*uploads)->GetContract(id)->state, ContractState::kAbandoned);
  std::error_code ec;
  size_t left = 0;
  for (const auto& e :
       fs::recursive_directory_iterator(root_ / "catalog" / "warehouse" / "uploads" / id, ec)) {
    left += e.is_regular_file();
  }
  EXPECT_EQ(left, 0u);
}

TEST_F(AppTest, ChangingFilesOrDestinationDropsThePlan) {
  std::string more = (root_ / "data" / "more" / "b.csv").string();
  std::ofstream(more) << "cve_id,hosts,score,seen\nCVE-9,2,0.1,2026-08-09T00:00:00Z\n";
  Open({csv_, more}, "acme.sec.findings");
  Press(K('n'));
  ASSERT_TRUE(S().contract.has_value());
  std::string id = S().contract->id;
  Press(Code(KeyCode::kTab));  // to the files
  EXPECT_EQ(S().focus, Focus::kFiles);
  Press(K('j'));
  EXPECT_EQ(S().files_cursor, 1);
  Press(K('d'));
  ASSERT_EQ(S().files.size(), 1u);
  EXPECT_EQ(S().files[0].path, csv_);
  EXPECT_FALSE(S().contract.has_value());
  auto uploads = Uploads::For(std::shared_ptr<Client>(std::move(client_)));
  ASSERT_TRUE(uploads.ok());
  EXPECT_EQ((*uploads)->GetContract(id)->state, ContractState::kAbandoned);

  Press(K('n'));
  ASSERT_TRUE(S().contract.has_value());
  id = S().contract->id;
  Press(K('t'));
  ASSERT_TRUE(S().prompt.has_value());
  EXPECT_EQ(S().prompt->text, "acme.sec.findings");
  Press(Ctrl('u'));
  Type("not a name");
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().status.severity, Severity::kError);
  EXPECT_EQ(S().target, "acme.sec.findings");
  EXPECT_TRUE(S().contract.has_value());
  Press(K('t'));
  Press(Ctrl('u'));
  Type("acme.sec.other");
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().target, "acme.sec.other");
  EXPECT_FALSE(S().contract.has_value());
  EXPECT_EQ((*uploads)->GetContract(id)->state, ContractState::kAbandoned);
}

TEST_F(AppTest, BrowserTagsFilesInTwoDirectories) {
  std::string more = (root_ / "data" / "more" / "b.csv").string();
  std::ofstream(more) << "cve_id,hosts,score,seen\nCVE-9,2,0.1,2026-08-09T00:00:00Z\n";
  std::ofstream(root_ / "data" / "SHA256SUMS") << "x\n";
  Open({}, "");
  Press(K('a'));
  ASSERT_EQ(S().screen, Screen::kBrowser);
  ASSERT_TRUE(S().browser);
  EXPECT_EQ(S().browser->cursor(), 0);
  // data/: .., more/, SHA256SUMS, findings.csv -> tag every readable file here.
  Press(K('a'));
  EXPECT_EQ(S().browser->added(), 1);
  // Into more/ (the row after ..), tag b.csv, back up, and out.
  Press(K('j'));
  ASSERT_TRUE(S().browser->current()->is_dir);
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().browser->cursor(), 0);
  Press(K('j'));
  Press(K(' '));
  EXPECT_EQ(S().browser->added(), 2);
  Press(Code(KeyCode::kLeft));
  Press(Code(KeyCode::kEscape));
  EXPECT_EQ(S().screen, Screen::kMain);
  ASSERT_EQ(S().files.size(), 2u);
  EXPECT_EQ(S().files[0].path, fs::path(csv_).lexically_normal().string());
  EXPECT_EQ(S().files[1].path, fs::path(more).lexically_normal().string());
  EXPECT_GT(S().files[0].size, 0);

  // Files already listed show tagged in the browser and are not added twice.
  Press(K('a'));
  EXPECT_EQ(S().browser->added(), 0);
  EXPECT_TRUE(S().browser->IsTagged(S().files[0].path));
  Press(K('a'));
  Press(Code(KeyCode::kEscape));
  EXPECT_EQ(S().files.size(), 2u);

  // The browser opens again where it was left.
  Press(K('a'));
  Press(K('j'));
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().browser->dir(), (root_ / "data" / "more").lexically_normal().string());
  Press(Code(KeyCode::kEscape));
  Press(K('a'));
  EXPECT_EQ(S().browser->dir(), (root_ / "data" / "more").lexically_normal().string());
  EXPECT_EQ(S().browser->cursor(), 0);
  Press(Code(KeyCode::kLeft));
  Press(Code(KeyCode::kEscape));

  // g with a glob from the browser.
  Press(K('a'));
  Press(K('g'));
  ASSERT_TRUE(S().prompt.has_value());
  Type("**/*.csv");
  Press(Code(KeyCode::kEnter));
  EXPECT_EQ(S().status.severity, Severity::kOk) << S().status.text;
  Press(Code(KeyCode::kEscape));
  EXPECT_EQ(S().files.size(), 2u);
}

TEST_F(AppTest, EmbeddedSignInNeedsNothing) {
  Open({}, "");
  Press(K('c'));
  EXPECT_FALSE(S().prompt.has_value());
  EXPECT_NE(S().status.text.find("no sign-in"), std::string::npos) << S().status.text;
  Press(K('n'));
  EXPECT_NE(S().status.text.find("no files"), std::string::npos);
  Press(K('h'));
  EXPECT_EQ(S().screen, Screen::kHelp);
  Press(K('x'));
  EXPECT_EQ(S().screen, Screen::kMain);
}

TEST_F(AppTest, RemoteSignInPromptsForIdThenMaskedSecret) {
  AppOptions o;
  o.catalog = "http://127.0.0.1:9";  // discard port: nothing listens
  o.credentials.connect_timeout_s = 1;
  app_ = std::make_unique<App>(std::move(o), worker_.get());
  app_->Pump();
  EXPECT_TRUE(S().remote);
  EXPECT_FALSE(S().connected);
  EXPECT_NE(S().status.text.find("not signed in"), std::string::npos);
  Press(K('c'));
  ASSERT_TRUE(S().prompt.has_value());
  EXPECT_EQ(S().prompt->kind, PromptKind::kClientId);
  Type("etl");
  Press(Code(KeyCode::kEnter));
  ASSERT_TRUE(S().prompt.has_value());
  EXPECT_EQ(S().prompt->kind, PromptKind::kSecret);
  EXPECT_TRUE(S().prompt->masked);
  Type("s3cret");
  Press(Code(KeyCode::kBackspace));
  EXPECT_EQ(S().prompt->text, "s3cre");
  Press(Code(KeyCode::kEnter));
  EXPECT_FALSE(S().prompt.has_value());
  EXPECT_FALSE(S().connected);
  EXPECT_EQ(S().status.severity, Severity::kError) << S().status.text;
  // Esc cancels a prompt.
  Press(K('c'));
  Press(Code(KeyCode::kEscape));
  EXPECT_FALSE(S().prompt.has_value());
}

TEST_F(AppTest, AppendToAnExistingDatasetIsAcceptedAtOnce) {
  Open({csv_}, "acme.sec.findings");
  Press(K('n'));
  Press(Code(KeyCode::kEnter));
  Press(K('u'));
  ASSERT_TRUE(S().committed.has_value()) << S().status.text;
  // A second round appends with the dataset's types: accepted without a question.
  Press(K('n'));
  ASSERT_TRUE(S().contract.has_value()) << S().status.text;
  EXPECT_EQ(S().contract->state, ContractState::kAccepted);
  EXPECT_EQ(S().contract->mode, SchemaMode::kAppend);
  Press(K('u'));
  ASSERT_TRUE(S().committed.has_value()) << S().status.text;
  EXPECT_EQ(client_->LoadDataset("acme.sec.findings")->total_records, 6);
}

}  // namespace
}  // namespace tarn::tui
