// Shared by the binding files of tarn._tarn (docs/design/python.md): raising tarn's errors as
// _tarn.Error, running SDK calls without the GIL, and the commit metadata and snapshot selector
// every call builds the same way.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "api/wire.h"
#include "tarn/client.h"
#include "tarn/status.h"

namespace tarn::python {

namespace py = pybind11;

// _tarn.Error(message, code, kind, fields), made at import.
py::object& ErrorType();

// Raises _tarn.Error for a failed status (the GIL held).
[[noreturn]] void Raise(const Status& st);

inline void Check(const Status& st) {
  if (!st.ok()) Raise(st);
}

template <typename T>
T Take(Result<T> r) {
  if (!r.ok()) Raise(r.status());
  return std::move(*r);
}

// Runs `fn` without the GIL and returns what it returns (raise its error with the GIL back).
template <typename Fn>
auto Unlocked(Fn&& fn) {
  using R = decltype(fn());
  std::optional<R> out;
  {
    py::gil_scoped_release release;
    out.emplace(fn());
  }
  return std::move(*out);
}

// Runs fn(cancelled) on a worker thread while the calling thread (the GIL released between
// looks) checks every 50 ms for a signal, as Python's own loops do: Ctrl-C sets `cancelled`, which
// fn polls at its safe points (progress callbacks, batch sources: returning kCancelled there
// stops an SDK call before its commit), and once fn has returned, the signal's exception
// (KeyboardInterrupt) is raised. A call that finished its commit before it saw the flag still
// raises: the commit is whole, as every commit is. The GIL must be held on entry.
template <typename Fn>
auto Interruptible(Fn&& fn) {
  using R = decltype(fn(std::declval<const std::atomic<bool>&>()));
  std::atomic<bool> cancelled{false};
  std::packaged_task<R()> task(
      [&] { return fn(static_cast<const std::atomic<bool>&>(cancelled)); });
  std::future<R> done = task.get_future();
  std::thread worker(std::move(task));
  bool interrupted = false;
  for (;;) {
    bool ready;
    {
      py::gil_scoped_release release;
      ready = done.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
    }
    if (ready) break;
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true;  // the exception stays set until fn has stopped
      cancelled = true;
    }
  }
  worker.join();
  if (interrupted) throw py::error_already_set();
  return done.get();
}

inline std::string Text(const api::Json& j) { return api::Dump(j); }

// A commit from the SDK: the author given, else $TARN_AUTHOR, else the client's actor (as the
// CLI does); a receipt with no producer (a hand-run call, docs/design/provenance.md).
CommitMeta Meta(const Client& client, const std::string& author, const std::string& message,
                const std::optional<std::string>& key);

// `at` of the Python API, split by the Python layer: a snapshot id, a time (microseconds since
// the epoch) or a tag; none of them is the head.
SnapshotSelector At(const std::optional<int64_t>& snapshot, const std::optional<int64_t>& time_us,
                    const std::optional<std::string>& tag);

}  // namespace tarn::python
