// The full-screen app's loop: the terminal, the request worker and the app, redrawn on every
// key, resize, finished request and, while a request runs, ten times a second.
#pragma once

#include "tarn/status.h"
#include "tui/app.h"

namespace tarn::tui {

struct RunResult {
  std::string farewell;  // printed after the screen is restored ("" = nothing to say)
  // Left with a request still running (q pressed twice): the process must end now (std::_Exit)
  // instead of waiting in the destructor of the worker for the request.
  bool must_exit = false;
};

// Runs the app until it quits. kFailedPrecondition when stdin or stdout is not a terminal.
Result<RunResult> Run(AppOptions options);

}  // namespace tarn::tui
