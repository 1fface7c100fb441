// The one way to drop an error on purpose: best-effort cleanup whose failure the caller cannot
// act on (deleting staged objects, aborting an upload, a reload that keeps the old state). Each
// dropped error is counted and handed to the process's sink (the server logs it as a
// "discarded_error" line; without a sink it goes nowhere, so the CLI's output is unchanged).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "tarn/status.h"

namespace tarn {

// `what` says what was being done ("deleting the staged objects of ct_..."). OK is ignored.
void DiscardError(const Status& st, std::string_view what);
template <typename T>
void DiscardError(const Result<T>& r, std::string_view what) {
  DiscardError(r.status(), what);
}

using DiscardSink = std::function<void(const Status& st, std::string_view what)>;
// Installs the sink (an empty one removes it) and returns the previous one. Thread-safe; the
// sink is called on the thread that dropped the error and must not call DiscardError.
DiscardSink SetDiscardSink(DiscardSink sink);
// How many errors were dropped in this process.
int64_t DiscardedErrors();

}  // namespace tarn
