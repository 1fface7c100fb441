// Client::Connect and ClientOptions: the one entry point of the SDK (include/tarn/client.h), and
// Uploads::For, the upload service of a client (include/tarn/upload.h).
#include <cstdlib>

#include "catalog/catalog.h"
#include "client/remote_client.h"
#include "client/remote_uploads.h"
#include "tarn/client.h"
#include "tarn/upload.h"
#include "upload/contract_service.h"

namespace tarn {

void ClientOptions::FillFromEnvironment() {
  auto fill = [](std::string* field, const char* var) {
    if (!field->empty()) return;
    const char* v = std::getenv(var);
    if (v != nullptr) *field = v;
  };
  fill(&client_id, "TARN_CLIENT_ID");
  fill(&client_secret, "TARN_CLIENT_SECRET");
  fill(&token, "TARN_TOKEN");
  fill(&oidc_audience, "TARN_OIDC_AUDIENCE");
}

Result<std::unique_ptr<Client>> Client::Connect(std::string_view target, ClientOptions options) {
  if (client::IsRemoteTarget(target)) {
    TARN_ASSIGN_OR_RETURN(auto remote, client::RemoteClient::Connect(target, std::move(options)));
    return std::unique_ptr<Client>(std::move(remote));
  }
  if (target.empty()) return Status::InvalidArgument("no catalog given (a directory or a URL)");
  TARN_ASSIGN_OR_RETURN(auto catalog, Catalog::OpenEmbedded(target));
  return std::unique_ptr<Client>(std::move(catalog));
}

Result<std::unique_ptr<Uploads>> Uploads::For(std::shared_ptr<Client> client) {
  if (client == nullptr) return Status::InvalidArgument("Uploads::For needs a client");
  if (auto remote = std::dynamic_pointer_cast<client::RemoteClient>(client)) {
    return std::unique_ptr<Uploads>(std::make_unique<client::RemoteUploads>(std::move(remote)));
  }
  if (auto* embedded = dynamic_cast<Catalog*>(client.get())) {
    // The service keeps the client (and so the catalog) alive.
    std::shared_ptr<Catalog> catalog(client, embedded);
    return std::unique_ptr<Uploads>(std::make_unique<upload::ContractService>(std::move(catalog)));
  }
  return Status::InvalidArgument(
      "this client is neither a catalog nor a remote client: no uploads");
}

}  // namespace tarn
