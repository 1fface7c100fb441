#include "tui/terminal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/clock.h"
#include "common/discard.h"
#include "common/utf8.h"
#include "tui/text.h"

namespace tarn::tui {

namespace {

// ---- Key decoding ----

enum class Outcome { kKey, kDrop, kNeedMore };

struct Parsed {
  Outcome outcome = Outcome::kNeedMore;
  size_t used = 0;  // bytes consumed (kKey, kDrop)
  Key key;
};

Parsed KeyOf(KeyCode code, size_t used) { return {Outcome::kKey, used, Key::Of(code)}; }
Parsed Drop(size_t used) { return {Outcome::kDrop, used, {}}; }
Parsed NeedMore() { return {}; }

// The key of a complete CSI or SS3 sequence: `params` are its parameter bytes, `final` its last
// byte. Modifiers (";5" in "1;5A") are ignored: ctrl-up is up.
std::optional<KeyCode> SequenceKey(std::string_view params, char final) {
  for (char c : params) {
    if (!(c >= '0' && c <= '9') && c != ';') return std::nullopt;  // private: mouse, reports
  }
  switch (final) {
    case 'A':
      return KeyCode::kUp;
    case 'B':
      return KeyCode::kDown;
    case 'C':
      return KeyCode::kRight;
    case 'D':
      return KeyCode::kLeft;
    case 'H':
      return KeyCode::kHome;
    case 'F':
      return KeyCode::kEnd;
    case 'Z':
      return KeyCode::kBackTab;
    case '~': {
      int n = 0;
      for (char c : params.substr(0, params.find(';'))) {
        n = std::min(n * 10 + (c - '0'), 100000);  // no key has a longer number
      }
      switch (n) {
        case 1:
        case 7:
          return KeyCode::kHome;
        case 4:
        case 8:
          return KeyCode::kEnd;
        case 3:
          return KeyCode::kDelete;
        case 5:
          return KeyCode::kPageUp;
        case 6:
          return KeyCode::kPageDown;
        default:
          return std::nullopt;  // insert, function keys
      }
    }
    default:
      return std::nullopt;
  }
}

// "ESC [ ..." or "ESC O ..." at b[pos]: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, a
// final byte 0x40-0x7E (ECMA-48).
Parsed ParseSequence(std::string_view b, size_t pos, bool idle) {
  size_t i = pos + 2;
  while (i < b.size() && b[i] >= 0x30 && b[i] <= 0x3F) ++i;
  size_t params_end = i;
  while (i < b.size() && b[i] >= 0x20 && b[i] <= 0x2F) ++i;
  if (i == b.size()) {
    // Incomplete: wait for the rest, unless nothing more is coming.
    if (idle) return KeyOf(KeyCode::kEscape, b.size() - pos);
    return NeedMore();
  }
  char final = b[i];
  if (final < 0x40 || final > 0x7E) return Drop(i - pos);  // malformed: resume at that byte
  size_t used = i + 1 - pos;
  if (i != params_end) return Drop(used);  // intermediates: nothing we know
  std::string_view params = b.substr(pos + 2, params_end - pos - 2);
  std::optional<KeyCode> code;
  if (b[pos + 1] == 'O') {
    if (final == 'M') {
      code = KeyCode::kEnter;  // keypad enter in application mode
    } else if (std::strchr("ABCDHF", final) != nullptr) {
      code = SequenceKey(params, final);
    }
  } else {
    code = SequenceKey(params, final);
  }
  if (!code) return Drop(used);
  return KeyOf(*code, used);
}

// The UTF-8 code point at b[pos] (a byte >= 0x80).
Parsed ParseUtf8(std::string_view b, size_t pos, bool idle) {
  auto lead = static_cast<unsigned char>(b[pos]);
  size_t need = lead >= 0xC2 && lead <= 0xDF   ? 2
                : lead >= 0xE0 && lead <= 0xEF ? 3
                : lead >= 0xF0 && lead <= 0xF4 ? 4
                                               : 1;
  if (need == 1) return Drop(1);
  size_t have = b.size() - pos;
  if (have < need) {
    for (size_t k = 1; k < have; ++k) {
      if (!IsUtf8Continuation(b[pos + k])) return Drop(1);
    }
    if (idle) return Drop(have);  // the rest never came
    return NeedMore();
  }
  char32_t cp;
  size_t n = DecodeUtf8(b, pos, &cp);
  if (cp == 0xFFFD && n == 1) return Drop(1);
  if (cp < 0xA0) return Drop(n);  // C1 controls
  return {Outcome::kKey, n, Key::Char(b.substr(pos, n))};
}

// The key at b[pos]. `allow_alt`: an ESC may prefix another key (Alt); it may not twice.
Parsed ParseKey(std::string_view b, size_t pos, bool idle, bool allow_alt) {
  auto c = static_cast<unsigned char>(b[pos]);
  if (c == 0x1B) {
    if (pos + 1 == b.size()) return idle ? KeyOf(KeyCode::kEscape, 1) : NeedMore();
    char next = b[pos + 1];
    if (next == '[' || next == 'O') return ParseSequence(b, pos, idle);
    if (!allow_alt) return KeyOf(KeyCode::kEscape, 1);
    Parsed inner = ParseKey(b, pos + 1, idle, /*allow_alt=*/false);
    if (inner.outcome != Outcome::kNeedMore) inner.used += 1;
    return inner;
  }
  switch (c) {
    case '\r':
    case '\n':
      return KeyOf(KeyCode::kEnter, 1);
    case '\t':
      return KeyOf(KeyCode::kTab, 1);
    case 0x08:
    case 0x7F:
      return KeyOf(KeyCode::kBackspace, 1);
    default:
      break;
  }
  if (c >= 0x01 && c <= 0x1A) {
    return {Outcome::kKey, 1, Key{KeyCode::kCtrl, std::string(1, static_cast<char>('a' + c - 1))}};
  }
  if (c < 0x20) return Drop(1);  // NUL, Ctrl-\ ] ^ _
  if (c < 0x80) return {Outcome::kKey, 1, Key::Char(b.substr(pos, 1))};
  return ParseUtf8(b, pos, idle);
}

// ---- The terminal ----

constexpr int kSignals[] = {SIGWINCH, SIGTERM, SIGHUP, SIGINT};
constexpr int kNumSignals = sizeof(kSignals) / sizeof(kSignals[0]);
// Bytes read from stdin in one Wait before its keys are given (a huge paste comes over several).
constexpr size_t kMaxReadPerWait = 64 * 1024;
// How long a lone ESC waits for the rest of a sequence.
constexpr int kEscapeWaitMs = 30;

// Only one Terminal at a time: it owns the process's signal handlers and stdin.
std::atomic<bool> g_open{false};
// The self-pipe's write end for the signal handlers (-1: none).
std::atomic<int> g_signal_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free, "used from a signal handler");

extern "C" void OnTerminalSignal(int sig) {
  int saved_errno = errno;
  int fd = g_signal_fd.load(std::memory_order_relaxed);
  if (fd >= 0) {
    char c = sig == SIGWINCH ? 'w' : 't';
    ssize_t ignored = ::write(fd, &c, 1);  // a full pipe already holds a wake-up
    (void)ignored;
  }
  errno = saved_errno;
}

std::string Errno(std::string_view what) { return std::string(what) + ": " + std::strerror(errno); }

// Whether fd becomes readable within timeout_ms.
bool Readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  int n;
  do {
    n = ::poll(&p, 1, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

}  // namespace

// ---- KeyDecoder ----

void KeyDecoder::Feed(std::string_view bytes) { buf_.append(bytes); }

std::optional<Key> KeyDecoder::Next(bool idle) {
  while (!buf_.empty()) {
    Parsed p = ParseKey(buf_, 0, idle, /*allow_alt=*/true);
    if (p.outcome == Outcome::kNeedMore) return std::nullopt;
    buf_.erase(0, p.used);
    if (p.outcome == Outcome::kKey) return std::move(p.key);
  }
  return std::nullopt;
}

std::string KeyName(const Key& key) {
  switch (key.code) {
    case KeyCode::kChar:
      return key.text == " " ? "Space" : key.text;
    case KeyCode::kEnter:
      return "Enter";
    case KeyCode::kEscape:
      return "Esc";
    case KeyCode::kBackspace:
      return "Backspace";
    case KeyCode::kTab:
      return "Tab";
    case KeyCode::kBackTab:
      return "Shift-Tab";
    case KeyCode::kUp:
      return "Up";
    case KeyCode::kDown:
      return "Down";
    case KeyCode::kLeft:
      return "Left";
    case KeyCode::kRight:
      return "Right";
    case KeyCode::kHome:
      return "Home";
    case KeyCode::kEnd:
      return "End";
    case KeyCode::kPageUp:
      return "PageUp";
    case KeyCode::kPageDown:
      return "PageDown";
    case KeyCode::kDelete:
      return "Delete";
    case KeyCode::kCtrl: {
      std::string name = "Ctrl-" + key.text;
      for (size_t i = 5; i < name.size(); ++i) {
        if (name[i] >= 'a' && name[i] <= 'z') name[i] = static_cast<char>(name[i] - 'a' + 'A');
      }
      return name;
    }
  }
  return "?";
}

// ---- Terminal ----

struct Terminal::Impl {
  bool owns_slot = false;  // this Terminal set g_open
  int pipe_read = -1;
  int pipe_write = -1;
  bool raw = false;  // termios changed: `saved` to restore
  termios saved{};
  bool handlers = false;  // signal handlers installed: `old` to restore
  struct sigaction old[kNumSignals];
  bool screen = false;  // on the alternate screen
  KeyDecoder decoder;
};

Result<std::unique_ptr<Terminal>> Terminal::Open() {
  if (::isatty(0) != 1 || ::isatty(1) != 1) {
    return Status::FailedPrecondition("the full-screen app needs a terminal on stdin and stdout");
  }
  if (g_open.exchange(true)) return Status::FailedPrecondition("a terminal is already open");
  std::unique_ptr<Terminal> t(new Terminal());
  t->impl_ = std::make_unique<Impl>();
  Impl& im = *t->impl_;
  im.owns_slot = true;
  // From here on, an early return runs the destructor, which undoes what was done so far.

  int fds[2];
  if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return Status::IOError(Errno("pipe"));
  im.pipe_read = fds[0];
  im.pipe_write = fds[1];

  if (::tcgetattr(0, &im.saved) != 0) return Status::IOError(Errno("reading terminal modes"));
  termios raw = im.saved;
  // Raw: bytes as typed (no CR->NL, no flow control, no signals from keys), and output as
  // written (every line is placed with an explicit cursor move).
  raw.c_iflag &= ~(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF);
  raw.c_oflag &= ~OPOST;
  raw.c_lflag &= ~(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
  raw.c_cflag &= ~(CSIZE | PARENB);
  raw.c_cflag |= CS8;
  raw.c_cc[VMIN] = 1;  // read() is only called after poll() says there is a byte
  raw.c_cc[VTIME] = 0;
  if (::tcsetattr(0, TCSADRAIN, &raw) != 0) return Status::IOError(Errno("setting raw mode"));
  im.raw = true;

  g_signal_fd.store(im.pipe_write);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_handler = OnTerminalSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < kNumSignals; ++i) {
    if (::sigaction(kSignals[i], &sa, &im.old[i]) != 0) {
      // Put back the ones already replaced.
      for (int j = 0; j < i; ++j) ::sigaction(kSignals[j], &im.old[j], nullptr);
      return Status::IOError(Errno("installing signal handlers"));
    }
  }
  im.handlers = true;

  im.screen = true;  // set first: a partial write still needs undoing
  TARN_RETURN_NOT_OK(t->Write("\033[?1049h\033[?25l"));
  return t;
}

Terminal::~Terminal() {
  if (!impl_) return;
  Restore();
  Impl& im = *impl_;
  if (im.handlers) {
    for (int i = 0; i < kNumSignals; ++i) ::sigaction(kSignals[i], &im.old[i], nullptr);
    im.handlers = false;
  }
  if (g_signal_fd.load() == im.pipe_write) g_signal_fd.store(-1);
  if (im.pipe_read >= 0) ::close(im.pipe_read);
  if (im.pipe_write >= 0) ::close(im.pipe_write);
  if (im.owns_slot) g_open.store(false);
}

void Terminal::Restore() {
  if (!impl_) return;
  Impl& im = *impl_;
  if (im.screen) {
    im.screen = false;
    // Nothing better to do on the way out.
    DiscardError(Write("\033[0m\033[?25h\033[?1049l"), "restoring the terminal");
  }
  if (im.raw) {
    im.raw = false;
    ::tcsetattr(0, TCSADRAIN, &im.saved);
  }
}

TermSize Terminal::size() const {
  winsize ws{};
  if (::ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    return TermSize{ws.ws_col, ws.ws_row};
  }
  return TermSize{};
}

void Terminal::Wake() {
  if (!impl_ || impl_->pipe_write < 0) return;
  char c = 'k';
  ssize_t ignored = ::write(impl_->pipe_write, &c, 1);  // a full pipe already holds a wake-up
  (void)ignored;
}

Status Terminal::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(1, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pollfd p{1, POLLOUT, 0};
        ::poll(&p, 1, 1000);
        continue;
      }
      return Status::IOError(Errno("writing to the terminal"));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

std::vector<TermEvent> Terminal::Wait(int timeout_ms) {
  std::vector<TermEvent> events;
  if (!impl_) return {TermEvent{}};
  Impl& im = *impl_;
  // One event of each kind but keys per Wait: ten SIGWINCHes during a drag are one resize.
  bool seen[TermEvent::kTimeout + 1] = {};
  auto add = [&](TermEvent::Kind kind) {
    if (seen[kind]) return;
    seen[kind] = true;
    events.push_back(TermEvent{kind, {}});
  };
  auto drain_keys = [&](bool idle) {
    while (std::optional<Key> key = im.decoder.Next(idle)) {
      events.push_back(TermEvent{TermEvent::kKey, std::move(*key)});
    }
  };

  // poll() waits in real time, so the deadline is on the real clock.
  const Clock& clock = *Clock::Real();
  const Clock::SteadyTime deadline = clock.SteadyNow() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int wait_ms = -1;
    if (timeout_ms >= 0) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.SteadyNow());
      wait_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    pollfd fds[2] = {{0, POLLIN, 0}, {im.pipe_read, POLLIN, 0}};
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;  // a handler ran: its byte is in the pipe now
      break;
    }
    if (fds[1].revents & POLLIN) {
      char buf[64];
      ssize_t got;
      while ((got = ::read(im.pipe_read, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < got; ++i) {
          if (buf[i] == 'w') add(TermEvent::kResize);
          if (buf[i] == 't') add(TermEvent::kTerminate);
          if (buf[i] == 'k') add(TermEvent::kWake);
        }
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
      char buf[4096];
      size_t total = 0;
      for (;;) {
        ssize_t got = ::read(0, buf, sizeof(buf));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          // End of input or a hung-up terminal: nothing more will be typed.
          if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) add(TermEvent::kTerminate);
          break;
        }
        im.decoder.Feed(std::string_view(buf, static_cast<size_t>(got)));
        drain_keys(/*idle=*/false);
        total += static_cast<size_t>(got);
        if (total >= kMaxReadPerWait && !im.decoder.pending()) break;
        // More waiting (a paste)? A pending ESC or partial sequence waits a little for its rest.
        if (!Readable(0, im.decoder.pending() ? kEscapeWaitMs : 0)) break;
      }
      drain_keys(/*idle=*/true);
    }
    if (!events.empty() || n == 0) break;
    if (timeout_ms >= 0 && clock.SteadyNow() >= deadline) break;
  }
  if (events.empty()) events.push_back(TermEvent{});  // kTimeout
  return events;
}

}  // namespace tarn::tui
