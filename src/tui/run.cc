// Run: the loop of the full-screen app (run.h).
#include "tui/run.h"

#include <cstdlib>
#include <memory>
#include <utility>

#include "common/clock.h"
#include "render/style.h"
#include "tui/canvas.h"
#include "tui/terminal.h"
#include "tui/view.h"
#include "tui/worker.h"

namespace tarn::tui {

Result<RunResult> Run(AppOptions options) {
  TARN_ASSIGN_OR_RETURN(auto term, Terminal::Open());
  const ColorDepth depth = render::DetectColorDepth(true, std::getenv("NO_COLOR"),
                                                    std::getenv("COLORTERM"), std::getenv("TERM"));
  Terminal* t = term.get();
  // Declared before the app and destroyed after it: effects hold the app's `this`.
  auto worker = std::make_unique<Worker>([t] { t->Wake(); });
  App app(std::move(options), worker.get());
  std::unique_ptr<Canvas> shown;
  for (;;) {
    app.Pump();
    const AppState& s = app.state();
    if (s.finished) break;
    TermSize size = t->size();
    auto next = std::make_unique<Canvas>(size.cols, size.rows);
    Draw(s, next.get(), Clock::Real()->SteadyNow());
    Status w = t->Write(RenderDiff(shown.get(), *next, depth));
    if (!w.ok()) {
      app.Quit();  // the terminal went away: abandon what is open and stop
    }
    shown = std::move(next);
    const bool animate = !s.busy_label.empty() || s.progress->active.load();
    for (const TermEvent& ev : t->Wait(animate ? 100 : 1000)) {
      switch (ev.kind) {
        case TermEvent::kKey:
          if (ev.key.code == KeyCode::kCtrl && ev.key.text == "l") {
            shown.reset();  // Ctrl-L: repaint everything
          } else {
            app.HandleKey(ev.key);
          }
          break;
        case TermEvent::kResize:
          shown.reset();
          break;
        case TermEvent::kTerminate:
          app.Quit();
          break;
        case TermEvent::kWake:
        case TermEvent::kTimeout:
          break;
      }
    }
  }
  RunResult result;
  result.farewell = app.state().farewell;
  result.must_exit = app.must_exit();
  term.reset();  // restores the screen before anything is printed
  if (result.must_exit) {
    // Left with a request still running (a second q): do not wait for it.
    (void)worker.release();
  }
  return result;
}

}  // namespace tarn::tui
