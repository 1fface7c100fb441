// tarn._tarn's Uploads: the contract calls of the C++ upload SDK (tarn/upload.h), embedded or
// remote as the client is. Each call releases the GIL around the SDK call and returns the upload
// wire codec's JSON text (src/api/contract_wire.h, the objects of /v1/contracts); the Python layer
// (python/tarn/_upload.py) gives them the upload seed's shapes.
//
// Writes and commits run under Interruptible: Ctrl-C makes the write's ProgressFn return false,
// so the write ends kCancelled having staged nothing, and KeyboardInterrupt is raised. A Python
// progress callback is called with the GIL taken back on the SDK's thread; when it raises, the
// write is stopped the same way and its exception is raised in place of the kCancelled error.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "api/contract_wire.h"
#include "python/common.h"
#include "python/module.h"
#include "tarn/upload.h"

namespace tarn::python {
namespace {

// The ProgressFn of a write: false once Ctrl-C was seen (`cancelled`) or the Python callback
// raised (its exception kept in `error` for the caller, who holds the GIL again).
class Progress {
 public:
  // `callback` (None or a callable) is borrowed: the caller's argument outlives the write.
  Progress(py::handle callback, const std::atomic<bool>& cancelled)
      : callback_(callback), cancelled_(cancelled) {}

  bool operator()(int64_t done, int64_t total) {
    if (cancelled_) return false;
    if (callback_.is_none()) return true;
    py::gil_scoped_acquire gil;
    if (error_) return false;
    try {
      callback_(done, total);
    } catch (...) {  // py::error_already_set, or a cast error of the arguments
      error_ = std::current_exception();
      return false;
    }
    return true;
  }

  // Rethrows the callback's exception, if it raised (the GIL held).
  void RethrowCallbackError() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  py::handle callback_;
  const std::atomic<bool>& cancelled_;
  std::exception_ptr error_;
};

SchemaSource SourceOf(const std::string& kind,
                      const std::vector<std::pair<std::string, std::string>>& declared,
                      const std::string& mode) {
  WriteMode m = WriteMode::kAppend;
  if (mode == "overwrite") {
    m = WriteMode::kOverwrite;
  } else if (mode != "append") {
    Raise(Status::InvalidArgument("the write mode is append or overwrite, not '" + mode + "'"));
  }
  if (kind == "auto") return SchemaSource::Auto(m);
  if (kind == "inferred") return SchemaSource::Inferred();
  if (kind == "dataset") return SchemaSource::OfDataset(m);
  if (kind == "declared") return SchemaSource::Declared(declared);
  if (kind.empty()) return SchemaSource{};  // the service refuses: schema_source_required
  Raise(Status::InvalidArgument("a schema source is auto, inferred, dataset or declared, not '" +
                                kind + "'"));
}

class PyUploads {
 public:
  explicit PyUploads(const py::object& client) {
    std::shared_ptr<Client> c = NativeClient(client);
    u_ = Take(Unlocked([&] { return Uploads::For(c); }));
  }

  // `files` are sampled here (SampleFiles); `samples` are (name, bytes, content_type) held in
  // memory, each sampled as SampleBytes does (the whole part, or a prefix ending at a record).
  std::string negotiate(const std::string& target, const std::vector<std::string>& files,
                        const std::vector<std::tuple<std::string, py::bytes, std::string>>& samples,
                        const std::string& source,
                        const std::vector<std::pair<std::string, std::string>>& declared,
                        const std::string& mode, const std::map<std::string, std::string>& retype,
                        const std::vector<std::string>& ignore, std::optional<int64_t> ttl_s) {
    NegotiateRequest req;
    req.target = target;
    req.schema = SourceOf(source, declared, mode);
    req.retype = retype;
    req.ignore = ignore;
    req.ttl_s = ttl_s;
    std::vector<std::string_view> held;  // the bytes objects' own buffers, read without the GIL
    for (const auto& sample : samples) held.push_back(Bytes(std::get<1>(sample)));
    return Text(api::ToJson(Take(Unlocked([&]() -> Result<Contract> {
      if (!files.empty()) {
        TARN_ASSIGN_OR_RETURN(req.samples, SampleFiles(files));
      }
      for (size_t k = 0; k < samples.size(); ++k) {
        const auto& [name, bytes, type] = samples[k];
        TARN_ASSIGN_OR_RETURN(UploadSample s, SampleBytes(name, held[k], kSampleBytes, type));
        req.samples.push_back(std::move(s));
      }
      return u_->Negotiate(req);
    }))));
  }

  std::string get_contract(const std::string& id) {
    return Text(api::ToJson(Take(Unlocked([&] { return u_->GetContract(id); }))));
  }
  std::string retype(const std::string& id, const std::map<std::string, std::string>& types) {
    return Text(api::ToJson(Take(Unlocked([&] { return u_->Retype(id, types); }))));
  }
  std::string ignore(const std::string& id, const std::vector<std::string>& columns) {
    return Text(api::ToJson(Take(Unlocked([&] { return u_->Ignore(id, columns); }))));
  }
  std::string accept(const std::string& id, const std::string& fingerprint) {
    return Text(api::ToJson(Take(Unlocked([&] { return u_->Accept(id, fingerprint); }))));
  }

  // progress: None or a callable (done, total) called with the GIL.
  std::string write(const std::string& id, const std::string& path, const py::object& progress) {
    std::optional<Progress> p;
    Result<WriteResult> r = Interruptible([&](const std::atomic<bool>& cancelled) {
      p.emplace(progress, cancelled);
      ProgressFn fn = [&p](int64_t done, int64_t total) { return (*p)(done, total); };
      return u_->Write(id, path, fn);
    });
    return Finish(std::move(r), p);
  }

  std::string write_bytes(const std::string& id, const std::string& name, const py::bytes& data,
                          const std::string& content_type, const py::object& progress) {
    std::string_view bytes = Bytes(data);  // `data` is held by the caller for the whole call
    std::optional<Progress> p;
    Result<WriteResult> r = Interruptible([&](const std::atomic<bool>& cancelled) {
      p.emplace(progress, cancelled);
      ProgressFn fn = [&p](int64_t done, int64_t total) { return (*p)(done, total); };
      return u_->WriteBytes(id, name, bytes, content_type, fn);
    });
    return Finish(std::move(r), p);
  }

  // A commit is not stopped half way: Ctrl-C during it raises KeyboardInterrupt once it has
  // ended (committed or not: get_contract tells).
  std::string commit(const std::string& id, const std::string& message,
                     std::optional<std::string> key, const std::string& author) {
    CommitRequest req;
    req.message = message;
    req.idempotency_key = std::move(key);
    const char* env = std::getenv("TARN_AUTHOR");
    req.author = !author.empty() ? author : (env != nullptr && *env ? env : "");
    return Text(api::ToJson(Take(
        Interruptible([&](const std::atomic<bool>&) { return u_->CommitContract(id, req); }))));
  }

  void abandon(const std::string& id) {
    Check(Unlocked([&] { return u_->Abandon(id); }));
  }

 private:
  static std::string_view Bytes(const py::bytes& b) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0) throw py::error_already_set();
    return {data, static_cast<size_t>(size)};
  }

  // The write's result, or the callback's exception, or its error.
  static std::string Finish(Result<WriteResult> r, const std::optional<Progress>& p) {
    if (p) p->RethrowCallbackError();
    return Text(api::ToJson(Take(std::move(r))));
  }

  std::unique_ptr<Uploads> u_;
};

}  // namespace

void RegisterUploads(py::module_& m) {
  py::class_<PyUploads>(m, "Uploads")
      .def(py::init<const py::object&>(), py::arg("client"))
      .def("negotiate", &PyUploads::negotiate)
      .def("get_contract", &PyUploads::get_contract)
      .def("retype", &PyUploads::retype)
      .def("ignore", &PyUploads::ignore)
      .def("accept", &PyUploads::accept)
      .def("write", &PyUploads::write)
      .def("write_bytes", &PyUploads::write_bytes)
      .def("commit", &PyUploads::commit)
      .def("abandon", &PyUploads::abandon);
}

}  // namespace tarn::python
