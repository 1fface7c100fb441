// The remote entry points of the SDK (tarn::client): ClientOptions, Client::ConnectRemote and
// Uploads::ForRemote (include/tarn/client.h, upload.h). Client::Connect and Uploads::For, which
// also open the embedded catalog, are src/connect's.
#include <cstdlib>

#include "client/remote_client.h"
#include "client/remote_uploads.h"
#include "tarn/client.h"
#include "tarn/upload.h"

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

Result<std::unique_ptr<Client>> Client::ConnectRemote(std::string_view url, ClientOptions options) {
  TARN_ASSIGN_OR_RETURN(auto remote, client::RemoteClient::Connect(url, std::move(options)));
  return std::unique_ptr<Client>(std::move(remote));
}

Result<std::unique_ptr<Uploads>> Uploads::ForRemote(std::shared_ptr<Client> client) {
  if (client == nullptr) return Status::InvalidArgument("Uploads::ForRemote needs a client");
  auto remote = std::dynamic_pointer_cast<client::RemoteClient>(client);
  if (remote == nullptr) {
    return Status::InvalidArgument(
        "this client is not a remote client: Uploads::ForRemote serves tarn serve only");
  }
  return std::unique_ptr<Uploads>(std::make_unique<client::RemoteUploads>(std::move(remote)));
}

}  // namespace tarn
