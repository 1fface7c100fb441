#include "tui/terminal.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/test_util.h"

namespace tarn::tui {
namespace {

// ---- KeyDecoder ----

// The names of the keys `bytes` decode to: fed whole or byte by byte (asking for keys after each
// byte), then given as idle.
std::vector<std::string> Decode(std::string_view bytes, bool byte_by_byte = false) {
  KeyDecoder d;
  std::vector<std::string> names;
  auto drain = [&](bool idle) {
    while (auto k = d.Next(idle)) names.push_back(KeyName(*k));
  };
  if (byte_by_byte) {
    for (char c : bytes) {
      d.Feed(std::string_view(&c, 1));
      drain(false);
    }
  } else {
    d.Feed(bytes);
    drain(false);
  }
  drain(true);
  EXPECT_FALSE(d.pending());
  return names;
}

using Names = std::vector<std::string>;

struct Case {
  const char* bytes;
  Names keys;
};

const Case kCases[] = {
    {"a", {"a"}},
    {"Zz9~", {"Z", "z", "9", "~"}},
    {" ", {"Space"}},
    {"é", {"é"}},
    {"字", {"字"}},
    {"😀", {"😀"}},
    {"\r", {"Enter"}},
    {"\n", {"Enter"}},
    {"\r\n", {"Enter", "Enter"}},
    {"\t", {"Tab"}},
    {"\x7f", {"Backspace"}},
    {"\x08", {"Backspace"}},
    // CSI and SS3 arrows, with modifiers.
    {"\x1b[A", {"Up"}},
    {"\x1b[B", {"Down"}},
    {"\x1b[C", {"Right"}},
    {"\x1b[D", {"Left"}},
    {"\x1bOA", {"Up"}},
    {"\x1bOB", {"Down"}},
    {"\x1bOC", {"Right"}},
    {"\x1bOD", {"Left"}},
    {"\x1b[1;5A", {"Up"}},
    {"\x1b[1;2D", {"Left"}},
    // Home and End.
    {"\x1b[H", {"Home"}},
    {"\x1b[F", {"End"}},
    {"\x1bOH", {"Home"}},
    {"\x1bOF", {"End"}},
    {"\x1b[1~", {"Home"}},
    {"\x1b[7~", {"Home"}},
    {"\x1b[4~", {"End"}},
    {"\x1b[8~", {"End"}},
    {"\x1b[1;5H", {"Home"}},
    // Paging, delete, shift-tab.
    {"\x1b[5~", {"PageUp"}},
    {"\x1b[6~", {"PageDown"}},
    {"\x1b[5;3~", {"PageUp"}},
    {"\x1b[3~", {"Delete"}},
    {"\x1b[Z", {"Shift-Tab"}},
    // Alt: ESC and a key is that key.
    {"\x1bx", {"x"}},
    {"\x1b\r", {"Enter"}},
    {"\x1b\x7f", {"Backspace"}},
    {"\x1b字", {"字"}},
    {"\x1b\x1b[A", {"Up"}},
    {"\x1b\x1bx", {"Esc", "x"}},
    // Unknown sequences are dropped whole.
    {"\x1b[2~z", {"z"}},                    // insert
    {"\x1b[15~z", {"z"}},                   // F5
    {"\x1b[<0;12;5Mz", {"z"}},              // SGR mouse report
    {"\x1b[?1;2cz", {"z"}},                 // device attributes reply
    {"\x1b[1 qz", {"z"}},                   // an intermediate byte
    {"\x1b[ Az", {"z"}},                    // an intermediate byte before a final that names a key
    {"\x1bOPz", {"z"}},                     // F1
    {"\x1b[200~z", {"z"}},                  // bracketed paste start
    {"\x1b[8000000000000000000~z", {"z"}},  // a number past int (found by tui_input_fuzz)
    {"\x1b[0000000000000000005~z", {"PageUp", "z"}},
    // Malformed: a control byte inside a sequence ends it; the byte is read as itself.
    {"\x1b[1\rz", {"Enter", "z"}},
    // Controls without a key of their own, C1 controls and invalid UTF-8 are dropped.
    {"\x1c\x1d\x1e\x1fz", {"z"}},
    {"\xc2\x9bz", {"z"}},
    {"\xffz", {"z"}},
    {"\x80z", {"z"}},
    {"\xe5\xadz", {"z"}},
    {"\xc0\xafz", {"z"}},
    // Several keys in one read.
    {"ab\x1b[Ac\x1b[6~\r", {"a", "b", "Up", "c", "PageDown", "Enter"}},
    // Incomplete at the end: a lone ESC or an unfinished sequence is Esc once idle.
    {"\x1b", {"Esc"}},
    {"a\x1b", {"a", "Esc"}},
    {"\x1b[", {"Esc"}},
    {"\x1b[1;5", {"Esc"}},
    {"\x1bO", {"Esc"}},
    {"\x1b\x1b", {"Esc"}},
    // An unfinished code point is dropped once idle.
    {"a\xe5\xad", {"a"}},
};

TEST(KeyDecoder, EverySequenceWhole) {
  for (const Case& c : kCases) {
    std::string_view bytes(c.bytes);
    EXPECT_EQ(Decode(bytes), c.keys) << testing::PrintToString(std::string(bytes));
  }
}

TEST(KeyDecoder, EverySequenceByteByByte) {
  for (const Case& c : kCases) {
    std::string_view bytes(c.bytes);
    EXPECT_EQ(Decode(bytes, true), c.keys) << testing::PrintToString(std::string(bytes));
  }
}

TEST(KeyDecoder, NulIsDropped) {
  EXPECT_EQ(Decode(std::string_view("\0\x1c\x1d\x1e\x1fz", 6)), Names{"z"});
}

TEST(KeyDecoder, ControlLetters) {
  for (char c = 1; c <= 26; ++c) {
    std::string name = Decode(std::string(1, c)).at(0);
    switch (c) {
      case 8:
        EXPECT_EQ(name, "Backspace");
        break;
      case 9:
        EXPECT_EQ(name, "Tab");
        break;
      case 10:
      case 13:
        EXPECT_EQ(name, "Enter");
        break;
      default: {
        KeyDecoder d;
        d.Feed(std::string(1, c));
        std::optional<Key> k = d.Next();
        ASSERT_TRUE(k.has_value());
        EXPECT_EQ(*k, (Key{KeyCode::kCtrl, std::string(1, static_cast<char>('a' + c - 1))}));
        EXPECT_EQ(name, std::string("Ctrl-") + static_cast<char>('A' + c - 1));
      }
    }
  }
}

TEST(KeyDecoder, LoneEscapeIsHeldUntilIdle) {
  KeyDecoder d;
  d.Feed("\x1b");
  EXPECT_FALSE(d.Next().has_value());
  EXPECT_TRUE(d.pending());
  EXPECT_FALSE(d.Next().has_value());  // still held
  std::optional<Key> k = d.Next(/*idle=*/true);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(*k, Key::Of(KeyCode::kEscape));
  EXPECT_FALSE(d.pending());
  EXPECT_FALSE(d.Next(true).has_value());
}

TEST(KeyDecoder, SequenceCompletedByALaterFeed) {
  KeyDecoder d;
  d.Feed("x\x1b[");
  std::optional<Key> k = d.Next();
  ASSERT_TRUE(k.has_value());
  EXPECT_TRUE(k->Is('x'));
  EXPECT_FALSE(d.Next().has_value());
  EXPECT_TRUE(d.pending());
  d.Feed("5");
  EXPECT_FALSE(d.Next().has_value());
  d.Feed("~");
  k = d.Next();
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(*k, Key::Of(KeyCode::kPageUp));
  EXPECT_FALSE(d.pending());
}

TEST(KeyDecoder, Utf8SplitAcrossFeeds) {
  KeyDecoder d;
  d.Feed("\xf0\x9f");
  EXPECT_FALSE(d.Next().has_value());
  EXPECT_TRUE(d.pending());
  d.Feed("\x98");
  EXPECT_FALSE(d.Next().has_value());
  d.Feed("\x80");
  std::optional<Key> k = d.Next();
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(*k, Key::Char("😀"));
  EXPECT_FALSE(d.pending());
}

TEST(KeyDecoder, KeyHelpers) {
  EXPECT_TRUE(Key::Char("q").Is('q'));
  EXPECT_FALSE(Key::Char("q").Is('Q'));
  EXPECT_FALSE((Key{KeyCode::kCtrl, "q"}).Is('q'));
  EXPECT_FALSE(Key::Char("字").Is('x'));
}

TEST(KeyName, EveryKey) {
  EXPECT_EQ(KeyName(Key::Char("a")), "a");
  EXPECT_EQ(KeyName(Key::Char("字")), "字");
  EXPECT_EQ(KeyName(Key::Char(" ")), "Space");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kEnter)), "Enter");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kEscape)), "Esc");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kBackspace)), "Backspace");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kTab)), "Tab");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kBackTab)), "Shift-Tab");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kUp)), "Up");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kDown)), "Down");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kLeft)), "Left");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kRight)), "Right");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kHome)), "Home");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kEnd)), "End");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kPageUp)), "PageUp");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kPageDown)), "PageDown");
  EXPECT_EQ(KeyName(Key::Of(KeyCode::kDelete)), "Delete");
  EXPECT_EQ(KeyName(Key{KeyCode::kCtrl, "c"}), "Ctrl-C");
  EXPECT_EQ(KeyName(Key{KeyCode::kCtrl, "u"}), "Ctrl-U");
}

// ---- Terminal, on a pseudo-terminal ----

// Lines a child process reports through a pipe, each waited for with a timeout.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // The next line, or "<timeout>" / "<eof>". After one timeout the child is out of step: every
  // later call fails at once rather than waiting again.
  std::string Next(int timeout_ms = 2000) {
    if (timed_out_) return "<timeout>";
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out_ = true;
        return "<timeout>";
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char tmp[256];
      ssize_t n = ::read(fd_, tmp, sizeof(tmp));
      if (n <= 0) return "<eof>";
      buf_.append(tmp, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buf_;
  bool timed_out_ = false;
};

// Kills and reaps the child unless it was reaped already.
struct ChildGuard {
  pid_t pid = -1;
  ~ChildGuard() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  // The exit status, waiting up to timeout_ms; -1 when the child did not exit in time.
  int Reap(int timeout_ms = 2000) {
    int status = 0;
    if (!testing_util::Eventually([&] { return ::waitpid(pid, &status, WNOHANG) == pid; },
                                  std::chrono::milliseconds(timeout_ms))) {
      return -1;
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

void Say(int fd, std::string line) {
  line += '\n';
  ssize_t ignored = ::write(fd, line.data(), line.size());
  (void)ignored;
}

std::string Describe(const Terminal& t, const TermEvent& e) {
  switch (e.kind) {
    case TermEvent::kKey:
      return "key " + KeyName(e.key);
    case TermEvent::kResize:
      return "resize " + std::to_string(t.size().cols) + "x" + std::to_string(t.size().rows);
    case TermEvent::kWake:
      return "wake";
    case TermEvent::kTerminate:
      return "terminate";
    case TermEvent::kTimeout:
      return "timeout";
  }
  return "?";
}

std::string DescribeAll(const Terminal& t, const std::vector<TermEvent>& events) {
  std::string out;
  for (const TermEvent& e : events) out += (out.empty() ? "" : ",") + Describe(t, e);
  return out;
}

// The child: stdin and stdout on the pty's slave; opens the Terminal and reports every event
// on `out` until it reads 'q'.
[[noreturn]] void RunChild(const std::string& slave, int out) {
  int fd = ::open(slave.c_str(), O_RDWR | O_NOCTTY);
  if (fd < 0) {
    Say(out, "cannot open the slave");
    ::_exit(1);
  }
  ::dup2(fd, 0);
  ::dup2(fd, 1);
  ::close(fd);
  termios before{};
  ::tcgetattr(0, &before);
  constexpr int kSignals[] = {SIGWINCH, SIGTERM, SIGHUP, SIGINT};
  void (*handlers_before[4])(int);
  for (int i = 0; i < 4; ++i) {
    struct sigaction sa;
    ::sigaction(kSignals[i], nullptr, &sa);
    handlers_before[i] = sa.sa_handler;
  }
  {
    Result<std::unique_ptr<Terminal>> opened = Terminal::Open();
    if (!opened.ok()) {
      Say(out, "open failed: " + opened.status().ToString());
      ::_exit(1);
    }
    Terminal& t = **opened;
    Result<std::unique_ptr<Terminal>> second = Terminal::Open();
    Say(out, second.ok() ? "second open ok"
                         : "second open: " + std::string(ErrorKindName(second.status().kind())));
    termios raw{};
    ::tcgetattr(0, &raw);
    bool is_raw = (raw.c_lflag & (ECHO | ICANON | ISIG | IEXTEN)) == 0 &&
                  (raw.c_iflag & (ICRNL | IXON)) == 0 && (raw.c_oflag & OPOST) == 0;
    Say(out, is_raw ? "raw" : "not raw");
    Say(out, "size " + std::to_string(t.size().cols) + "x" + std::to_string(t.size().rows));
    Say(out, "idle " + DescribeAll(t, t.Wait(0)));
    t.Wake();
    Say(out, "woken " + DescribeAll(t, t.Wait(1000)));
    std::thread waker([&t] {
      // Real time on purpose: the wake must reach a Wait that already blocks (nothing tells
      // when it does); a wake before it is the case above.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      t.Wake();
    });
    std::vector<TermEvent> woken = t.Wait(2000);
    waker.join();
    Say(out, "woken by a thread " + DescribeAll(t, woken));
    Say(out, "ready");
    bool quit = false;
    for (int round = 0; round < 100 && !quit; ++round) {
      for (const TermEvent& e : t.Wait(3000)) {
        Say(out, Describe(t, e));
        if (e.kind == TermEvent::kKey && e.key.Is('q')) quit = true;
      }
    }
  }
  termios after{};
  ::tcgetattr(0, &after);
  bool same = after.c_iflag == before.c_iflag && after.c_oflag == before.c_oflag &&
              after.c_lflag == before.c_lflag && after.c_cflag == before.c_cflag &&
              std::memcmp(after.c_cc, before.c_cc, sizeof(before.c_cc)) == 0;
  Say(out, same ? "modes restored" : "modes not restored");
  bool handlers = true;
  for (int i = 0; i < 4; ++i) {
    struct sigaction sa;
    ::sigaction(kSignals[i], nullptr, &sa);
    if (sa.sa_handler != handlers_before[i]) handlers = false;
  }
  Say(out, handlers ? "handlers restored" : "handlers left");
  // A new Terminal can be opened once the first is gone.
  Say(out, Terminal::Open().ok() ? "reopened" : "cannot reopen");
  ::_exit(0);
}

void SetSize(int fd, int cols, int rows) {
  winsize ws{};
  ws.ws_col = static_cast<unsigned short>(cols);
  ws.ws_row = static_cast<unsigned short>(rows);
  ASSERT_EQ(::ioctl(fd, TIOCSWINSZ, &ws), 0);
}

void WriteAll(int fd, std::string_view bytes) {
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

// What the pty's master has received, read until `want` is in it or the time is up.
std::string ReadMasterUntil(int master, std::string_view want, int timeout_ms = 2000) {
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (got.find(want) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[256];
    ssize_t n = ::read(master, buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

TEST(Terminal, OnAPseudoTerminal) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0) << std::strerror(errno);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const char* name = ::ptsname(master);
  ASSERT_NE(name, nullptr);
  std::string slave = name;
  SetSize(master, 80, 24);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);

  ChildGuard child;
  std::fflush(nullptr);  // a child must not write this process's buffered output to the pty
  child.pid = ::fork();
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    ::close(master);
    ::close(report[0]);
    RunChild(slave, report[1]);
  }
  ::close(report[1]);
  LineReader lines(report[0]);

  EXPECT_EQ(lines.Next(), "second open: failed_precondition");
  EXPECT_EQ(lines.Next(), "raw");
  EXPECT_EQ(lines.Next(), "size 80x24");
  EXPECT_EQ(lines.Next(), "idle timeout");
  EXPECT_EQ(lines.Next(), "woken wake");
  EXPECT_EQ(lines.Next(), "woken by a thread wake");
  ASSERT_EQ(lines.Next(), "ready");
  EXPECT_EQ(ReadMasterUntil(master, "\033[?25l"), "\033[?1049h\033[?25l");

  struct Step {
    const char* bytes;
    const char* want;
  };
  for (const Step& s : {Step{"a", "key a"}, Step{"\x1b[A", "key Up"},
                        Step{"\x03", "key Ctrl-C"},  // not SIGINT: ISIG is off
                        Step{"\x13", "key Ctrl-S"},  // not flow control: IXON is off
                        Step{"\x1a", "key Ctrl-Z"},  // not suspend
                        Step{"\r", "key Enter"}, Step{"\x1b", "key Esc"},  // after 30 ms
                        Step{"字", "key 字"}, Step{"\x1b[6~", "key PageDown"}}) {
    WriteAll(master, s.bytes);
    ASSERT_EQ(lines.Next(), s.want) << testing::PrintToString(std::string(s.bytes));
  }
  // Several keys in one write arrive in order.
  WriteAll(master, "xy\x1b[B");
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) got.push_back(lines.Next());
  EXPECT_EQ(got, (std::vector<std::string>{"key x", "key y", "key Down"}));

  SetSize(master, 100, 30);
  ASSERT_EQ(::kill(child.pid, SIGWINCH), 0);
  EXPECT_EQ(lines.Next(), "resize 100x30");
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    ASSERT_EQ(::kill(child.pid, sig), 0);
    EXPECT_EQ(lines.Next(), "terminate") << "signal " << sig;
  }

  WriteAll(master, "q");
  EXPECT_EQ(lines.Next(), "key q");
  EXPECT_EQ(lines.Next(), "modes restored");
  EXPECT_EQ(lines.Next(), "handlers restored");
  EXPECT_EQ(lines.Next(), "reopened");
  // Nothing was echoed; the screen was restored (and again by the reopened Terminal).
  std::string restore = "\033[0m\033[?25h\033[?1049l";
  EXPECT_EQ(ReadMasterUntil(master, restore + "\033[?1049h\033[?25l" + restore),
            restore + "\033[?1049h\033[?25l" + restore);
  EXPECT_EQ(child.Reap(), 0);
  ::close(report[0]);
  ::close(master);
}

TEST(Terminal, OpenNeedsATerminal) {
  ChildGuard child;
  std::fflush(nullptr);  // a child must not write this process's buffered output to the pty
  child.pid = ::fork();
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    Result<std::unique_ptr<Terminal>> t = Terminal::Open();
    ::_exit(t.ok() ? 1 : t.status().kind() == ErrorKind::kFailedPrecondition ? 0 : 2);
  }
  EXPECT_EQ(child.Reap(), 0);
}

}  // namespace
}  // namespace tarn::tui
