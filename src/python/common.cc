#include "python/common.h"

#include <cstdlib>

namespace tarn::python {

py::object& ErrorType() {
  // Set once at import; never destroyed (a static py::object would be released after the
  // interpreter is gone).
  static py::object* type = new py::object();
  return *type;
}

void Raise(const Status& st) {
  py::dict fields;
  for (const auto& [k, v] : st.fields()) fields[py::str(k)] = py::str(v);
  const std::string code = st.code();
  PyErr_SetObject(
      ErrorType().ptr(),
      py::make_tuple(st.message(), code, std::string(ErrorKindName(st.kind())), fields).ptr());
  throw py::error_already_set();
}

CommitMeta Meta(const Client& client, const std::string& author, const std::string& message,
                const std::optional<std::string>& key) {
  CommitMeta m;
  const char* env = std::getenv("TARN_AUTHOR");
  m.author = !author.empty() ? author : (env != nullptr && *env ? env : client.actor());
  m.message = message;
  m.idempotency_key = key;
  m.receipt = Receipt{};
  return m;
}

SnapshotSelector At(const std::optional<int64_t>& snapshot, const std::optional<int64_t>& time_us,
                    const std::optional<std::string>& tag) {
  SnapshotSelector s;
  s.snapshot_id = snapshot;
  s.at_time_us = time_us;
  s.tag = tag;
  return s;
}

}  // namespace tarn::python
