#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "common/utf8.h"
#include "render/style.h"

namespace tarn::cli {

namespace {
std::atomic<bool> g_interrupted{false};
extern "C" void OnInterrupt(int) { g_interrupted.store(true); }
}  // namespace

InterruptGuard::InterruptGuard() { previous_ = std::signal(SIGINT, OnInterrupt); }
InterruptGuard::~InterruptGuard() { std::signal(SIGINT, previous_); }
const std::atomic<bool>& InterruptGuard::Flag() { return g_interrupted; }

sigset_t BlockStopSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}
void InterruptGuard::Reset() { g_interrupted.store(false); }

void PrintError(const Status& status, bool json) {
  if (json) {
    nlohmann::json body = {{"code", std::string(ErrorKindName(status.kind()))},
                           {"message", status.message()}};
    for (const auto& [k, v] : status.fields()) body[k] = v;
    std::cerr << nlohmann::json{{"error", body}}.dump(-1, ' ', false,
                                                      nlohmann::json::error_handler_t::replace)
              << "\n";
    return;
  }
  render::Style st = render::Style::ForFd(2);
  std::string fields;
  for (const auto& [k, v] : status.fields()) fields += "\n  " + st.dim(k + ":") + " " + v;
  std::cerr << st.error("tarn: error") << "[" << ErrorKindName(status.kind())
            << "]: " << status.message() << fields << "\n";
}

bool UseColor() { return render::DepthFor(1) != render::ColorDepth::kNone; }

// Widths count code points: good enough for alignment of names.
Status WriteStdout(std::string_view s) {
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) {
    return Status::IOError("writing to stdout failed");
  }
  return Status::OK();
}

void PrintTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(header.size());
  for (size_t i = 0; i < header.size(); ++i) widths[i] = Utf8CodePointCount(header[i]);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], std::min<size_t>(Utf8CodePointCount(r[i]), 60));
    }
  }
  bool color = UseColor();
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells, bool bold) {
    if (bold && color) out += "\033[1m";
    for (size_t i = 0; i < cells.size(); ++i) {
      std::string cell = cells[i];
      if (Utf8CodePointCount(cell) > 60) {
        // Cut at a code point boundary and mark the cut.
        cell = cell.substr(0, Utf8PrefixBytes(cell, 59, /*first_byte_starts=*/true)) + "…";
      }
      out += cell;
      if (i + 1 < cells.size()) out.append(widths[i] - Utf8CodePointCount(cell) + 2, ' ');
    }
    if (bold && color) out += "\033[0m";
    out += '\n';
  };
  emit(header, true);
  for (const auto& r : rows) emit(r, false);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace tarn::cli
