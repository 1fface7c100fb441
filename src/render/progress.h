// The progress line of long commands (`tarn push`, `tarn convert`): bytes, rate and ETA on one
// stderr line redrawn in place with \r, only when stderr is a terminal, cleared at the end.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tarn::render {

class ProgressLine {
 public:
  // Enabled when stderr is a terminal (and `allowed`).
  explicit ProgressLine(bool allowed = true);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // Redraws "name  done / total  rate  ETA" at most ten times a second (always when done).
  void Update(const std::string& name, int64_t done, int64_t total);
  // Erases the line (when drawn).
  void Clear();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace tarn::render
