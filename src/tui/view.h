// What the full-screen app shows: the main screen (FILES, ACCOUNT, TO, PLAN, a status line and a
// key line), the file browser and the key list, drawn from an AppState into a Canvas of any
// size. Pure: no terminal, no clock of its own, so every screen is unit-tested as text.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "tui/app.h"
#include "tui/canvas.h"

namespace tarn::tui {

// The smallest screen the full layout needs; below it a short notice and the status line are
// drawn instead (never a crash, whatever the size).
constexpr int kMinCols = 30;
constexpr int kMinRows = 8;

// Draws `state` onto `canvas` (cleared first). `now` drives the spinner and the write rate.
void Draw(const AppState& state, Canvas* canvas, std::chrono::steady_clock::time_point now);

// The keys the bottom line offers in the current context, e.g. {"↑↓", "column"}, {"e", "retype"}.
std::vector<std::pair<std::string, std::string>> KeyHints(const AppState& state);

// Every key, for the help screen: {key, what it does}; an empty key starts a heading.
std::vector<std::pair<std::string, std::string>> HelpLines();

// "[██████░░░░░░]" of `width` columns (at least 2) for done of total (total <= 0: empty).
std::string ProgressBar(int64_t done, int64_t total, int width);

}  // namespace tarn::tui
