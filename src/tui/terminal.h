// The terminal the full-screen app runs in: raw mode on the alternate screen, keys decoded from
// the bytes a terminal sends (xterm and VT sequences, as tmux sends them), resizes (SIGWINCH)
// and wake-ups from other threads, all waited for in one poll().
//
// tarn writes its own escape sequences rather than using curses: the palette is shared with
// the printed commands (style.h), and 24-bit colour follows $COLORTERM, which terminfo does not
// describe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/status.h"

namespace tarn::tui {

enum class KeyCode : uint8_t {
  kChar,  // a printable code point: Key::text
  kEnter,
  kEscape,
  kBackspace,
  kTab,
  kBackTab,  // shift-tab
  kUp,
  kDown,
  kLeft,
  kRight,
  kHome,
  kEnd,
  kPageUp,
  kPageDown,
  kDelete,
  kCtrl,  // a control key: Key::text is its letter, lower case ("c" for Ctrl-C, "u", "l")
};

struct Key {
  KeyCode code = KeyCode::kChar;
  std::string text;  // kChar: the code point as UTF-8; kCtrl: the letter

  static Key Char(std::string_view t) { return Key{KeyCode::kChar, std::string(t)}; }
  static Key Of(KeyCode c) { return Key{c, {}}; }
  bool Is(char c) const { return code == KeyCode::kChar && text.size() == 1 && text[0] == c; }
  bool operator==(const Key& o) const { return code == o.code && text == o.text; }
};

// A readable name for tests and the help screen: "a", "Enter", "Esc", "Up", "Ctrl-C", ...
std::string KeyName(const Key& key);

// Turns the bytes read from a terminal into keys. Understands: printable UTF-8; CR and LF
// (Enter); DEL and BS (Backspace); TAB; CSI and SS3 arrows (ESC [ A, ESC O A, with modifiers
// ESC [ 1 ; 5 A), Home/End (ESC [ H / F, ESC [ 1 ~ / 4 ~ / 7 ~ / 8 ~), PageUp/Down (ESC [ 5 ~ /
// 6 ~), Delete (ESC [ 3 ~), shift-tab (ESC [ Z); ESC followed by another key (Alt) gives that
// key; unknown sequences are dropped whole. A lone ESC is held until more bytes come or
// Next(true) is called (no more input arrived in time): then it is kEscape.
class KeyDecoder {
 public:
  void Feed(std::string_view bytes);
  // The next complete key, if any. `idle`: no more bytes are coming now, so a pending ESC (or
  // an incomplete sequence) is given as kEscape.
  std::optional<Key> Next(bool idle = false);
  bool pending() const { return !buf_.empty(); }

 private:
  std::string buf_;
};

struct TermSize {
  int cols = 80;
  int rows = 24;
};

struct TermEvent {
  enum Kind : uint8_t {
    kKey,
    kResize,     // the size changed (size() has the new one)
    kWake,       // Wake() was called
    kTerminate,  // SIGTERM, SIGHUP or SIGINT sent to the process
    kTimeout,
  };
  Kind kind = kTimeout;
  Key key;
};

class Terminal {
 public:
  // Takes stdin/stdout: kFailedPrecondition when either is not a terminal. Enters raw mode (no
  // echo, no line buffering, no signals from keys: Ctrl-C arrives as a key; no flow control),
  // the alternate screen, hides the cursor, and installs handlers for SIGWINCH, SIGTERM, SIGHUP
  // and SIGINT that only write to a self-pipe.
  static Result<std::unique_ptr<Terminal>> Open();
  // Restores everything Open changed (also safe after a partial Open).
  ~Terminal();
  Terminal(const Terminal&) = delete;
  Terminal& operator=(const Terminal&) = delete;

  // The current size (TIOCGWINSZ; 80x24 when it cannot be read).
  TermSize size() const;
  // Waits up to timeout_ms (-1: forever) for input, a resize, a wake-up or a signal and
  // returns what happened, in order (at least one event; kTimeout when nothing did). A lone
  // ESC is given as kEscape when no further byte follows within 30 ms.
  std::vector<TermEvent> Wait(int timeout_ms);
  // Makes a Wait in progress (or the next one) return kWake. Any thread; async-signal-safe.
  void Wake();
  // Writes all bytes to stdout (retrying short writes).
  Status Write(std::string_view bytes);

  // Restores the terminal (cooked mode, main screen, cursor shown) without closing: for a path
  // that ends the process with _exit.
  void Restore();

 private:
  Terminal() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tarn::tui
