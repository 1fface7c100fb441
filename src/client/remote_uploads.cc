#include "client/remote_uploads.h"

#include <algorithm>
#include <utility>

#include "api/contract_wire.h"
#include "api/error_codes.h"
#include "common/io.h"
#include "formats/decompress.h"
#include "sdk/upload_error_codes.h"

namespace tarn::client {

namespace {

using api::Json;

bool Is2xx(int status) { return status >= 200 && status < 300; }

// What the embedded service answers for an id that names no contract.
Status ContractNotFound(std::string_view id) {
  return Status::Of(codes::kContractNotFound,
                    "contract '" + std::string(id.substr(0, 100)) + "' not found")
      .WithField("contract_id", std::string(id.substr(0, 100)));
}

// An id that is not even an identifier never reaches the server (which would refuse the path):
// it names no contract, as embedded.
Result<std::string> ContractPath(std::string_view id) {
  if (!ValidateIdentifier("contract id", id).ok()) return ContractNotFound(id);
  return "/v1/contracts/" + PercentEncode(id);
}

// A 2xx body decoded with `decode` (responses may grow fields); an error response as its
// Status; a body that does not decode is kCorruption (bad_response).
template <typename T>
Result<T> Decoded(Result<RemoteClient::RawResponse> r, Result<T> (*decode)(const Json&),
                  std::string_view what) {
  TARN_RETURN_NOT_OK(r.status());
  if (!Is2xx(r->status)) return api::StatusFromErrorBody(r->status, r->body);
  Json j = Json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  Result<T> v = Status::Corruption("not a JSON object");
  if (j.is_object()) {
    api::AllowUnknownFields lenient;
    v = decode(j);
  }
  if (!v.ok()) return BadResponse(what, v.status());
  return v;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The part name as a path segment: the server takes 1 to 255 printable bytes without '/' or
// '\\'; anything else is refused here as the server would.
Status CheckPartName(std::string_view name) {
  bool ok = !name.empty() && name.size() <= 255 && name != "." && name != "..";
  for (unsigned char ch : name) ok = ok && ch >= 0x20 && ch != 0x7f && ch != '/' && ch != '\\';
  if (ok) return Status::OK();
  return Status::Of(codes::kInvalidIdentifier,
                    "invalid part name '" + std::string(name.substr(0, 64)) +
                        "': 1 to 255 printable bytes without '/' or '\\'")
      .WithField("field", "name");
}

}  // namespace

RemoteUploads::RemoteUploads(std::shared_ptr<RemoteClient> client) : client_(std::move(client)) {}

Result<Contract> RemoteUploads::Negotiate(const NegotiateRequest& request) {
  std::string body = api::Dump(api::ToJson(request));
  return Decoded(client_->SendJson("POST", "/v1/contracts", &body, false), api::ContractFromJson,
                 "contract");
}

Result<Contract> RemoteUploads::GetContract(std::string_view id) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  return Decoded(client_->SendJson("GET", path, nullptr, true), api::ContractFromJson, "contract");
}

Result<Contract> RemoteUploads::Retype(std::string_view id,
                                       const std::map<std::string, std::string>& types) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  std::string body = api::Dump(api::RetypeBody(types));
  return Decoded(client_->SendJson("POST", path + "/retype", &body, false), api::ContractFromJson,
                 "contract");
}

Result<Contract> RemoteUploads::Ignore(std::string_view id,
                                       const std::vector<std::string>& columns) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  std::string body = api::Dump(api::IgnoreBody(columns));
  return Decoded(client_->SendJson("POST", path + "/ignore", &body, false), api::ContractFromJson,
                 "contract");
}

Result<Contract> RemoteUploads::Accept(std::string_view id, std::string_view fingerprint) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  std::string body = api::Dump(api::AcceptBody(fingerprint));
  return Decoded(client_->SendJson("POST", path + "/accept", &body, false), api::ContractFromJson,
                 "contract");
}

Result<WriteResult> RemoteUploads::Put(std::string_view id, std::string_view name,
                                       std::string content_type, int64_t length,
                                       const RemoteClient::BodyReader& read,
                                       const std::function<Status()>& rewind) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  TARN_RETURN_NOT_OK(CheckPartName(name));
  path += "/parts/" + PercentEncode(name);
  // Declared rather than sent as Content-Encoding, which the server's HTTP library would decode
  // on its own for some codecs and not for others.
  formats::InputCompression c = formats::CompressionFromSuffix(name);
  if (c != formats::InputCompression::kNone) {
    path += QueryString({{"encoding", std::string(formats::InputCompressionName(c))}});
  }
  if (content_type.empty()) content_type = "application/octet-stream";
  return Decoded(client_->SendBody("PUT", path, content_type, length, read, rewind),
                 api::WriteResultFromJson, "write result");
}

Result<WriteResult> RemoteUploads::DoWrite(std::string_view id, const std::string& path,
                                           const ProgressFn& progress) {
  TARN_RETURN_NOT_OK(ContractPath(id).status());
  TARN_ASSIGN_OR_RETURN(auto file, OpenLocalFile(path));
  const auto size = static_cast<int64_t>(file->Size());
  int64_t offset = 0;
  auto read = [&](char* out, size_t n) -> Result<size_t> {
    size_t k = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(n), size - offset));
    if (k == 0) return k;
    TARN_RETURN_NOT_OK(
        file->ReadAt(static_cast<uint64_t>(offset), k, reinterpret_cast<uint8_t*>(out)));
    offset += static_cast<int64_t>(k);
    if (!progress(offset, size)) return Status::Cancelled("the write was stopped by its caller");
    return k;
  };
  auto rewind = [&]() -> Status {
    offset = 0;
    return Status::OK();
  };
  return Put(id, BaseName(path), "", size, read, rewind);
}

Result<WriteResult> RemoteUploads::DoWriteBytes(std::string_view id, std::string_view name,
                                                std::string_view bytes, std::string content_type,
                                                const ProgressFn& progress) {
  const auto size = static_cast<int64_t>(bytes.size());
  size_t offset = 0;
  auto read = [&](char* out, size_t n) -> Result<size_t> {
    size_t k = std::min(n, bytes.size() - offset);
    std::copy_n(bytes.data() + offset, k, out);
    offset += k;
    if (k > 0 && !progress(static_cast<int64_t>(offset), size)) {
      return Status::Cancelled("the write was stopped by its caller");
    }
    return k;
  };
  auto rewind = [&]() -> Status {
    offset = 0;
    return Status::OK();
  };
  return Put(id, name, std::move(content_type), size, read, rewind);
}

Result<UploadCommitResult> RemoteUploads::CommitContract(std::string_view id,
                                                         const CommitRequest& request) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  std::string body = api::Dump(api::ToJson(request));
  return Decoded(client_->SendJson("POST", path + "/commit", &body, false),
                 api::UploadCommitResultFromJson, "commit result");
}

Status RemoteUploads::Abandon(std::string_view id) {
  TARN_ASSIGN_OR_RETURN(std::string path, ContractPath(id));
  TARN_ASSIGN_OR_RETURN(auto r, client_->SendJson("DELETE", path, nullptr, true));
  if (!Is2xx(r.status)) return api::StatusFromErrorBody(r.status, r.body);
  return Status::OK();
}

}  // namespace tarn::client
