// The remote tarn::Uploads: the contract calls of include/tarn/upload.h as requests to
// /v1/contracts of `tarn serve` (docs/design/upload.md "HTTP"), over a RemoteClient's
// connections and bearer token.
//
//   auto uploads = tarn::Uploads::For(client);   // a RemoteClient gives a RemoteUploads
//
// Errors: the server's error body comes back as the same Status (kind, message, fields:
// value_not_castable's column/row/value/declared, contract_stale's diff, ...), so a caller sees
// what the embedded service would have returned. Write streams the file (1 MiB at a time) with
// its length; its encoding is declared from the name's suffix. Thread-safe as RemoteClient.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "client/remote_client.h"
#include "tarn/upload.h"

namespace tarn::client {

class RemoteUploads final : public Uploads {
 public:
  explicit RemoteUploads(std::shared_ptr<RemoteClient> client);

  Result<Contract> Negotiate(const NegotiateRequest& request) override;
  Result<Contract> GetContract(std::string_view id) override;
  Result<Contract> Retype(std::string_view id,
                          const std::map<std::string, std::string>& types) override;
  Result<Contract> Ignore(std::string_view id, const std::vector<std::string>& columns) override;
  Result<Contract> Accept(std::string_view id, std::string_view fingerprint) override;
  Result<UploadCommitResult> CommitContract(std::string_view id,
                                            const CommitRequest& request) override;
  Status Abandon(std::string_view id) override;

 private:
  // Write and WriteBytes (tarn::Uploads states their defaults).
  // Sends the file with its length, read 1 MiB at a time; `progress` after each chunk.
  Result<WriteResult> DoWrite(std::string_view id, const std::string& path,
                              const ProgressFn& progress) override;
  Result<WriteResult> DoWriteBytes(std::string_view id, std::string_view name,
                                   std::string_view bytes, std::string content_type,
                                   const ProgressFn& progress) override;

  // PUT .../parts/{name} with a body of `length` bytes pulled from `read`.
  Result<WriteResult> Put(std::string_view id, std::string_view name, std::string content_type,
                          int64_t length, const RemoteClient::BodyReader& read,
                          const std::function<Status()>& rewind);

  std::shared_ptr<RemoteClient> client_;
};

}  // namespace tarn::client
