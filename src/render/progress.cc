#include "render/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "common/clock.h"
#include "render/upload_render.h"

namespace tarn::render {

namespace {
size_t TerminalWidth() {
  struct winsize ws {};
  if (::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}
}  // namespace

ProgressLine::ProgressLine(bool allowed)
    : enabled_(allowed && ::isatty(2) == 1), start_(Clock::Real()->SteadyNow()) {}

void ProgressLine::Update(const std::string& name, int64_t done, int64_t total) {
  if (!enabled_) return;
  auto now = Clock::Real()->SteadyNow();
  bool finished = total > 0 && done >= total;
  if (drawn_ && !finished && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string text = ProgressText(name, done, total, elapsed);
  size_t width = TerminalWidth();
  if (width > 1 && text.size() > width - 1) text.resize(width - 1);
  std::string line = "\r" + text + "\033[K";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::Clear() {
  if (!enabled_ || !drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace tarn::render
