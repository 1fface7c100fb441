// Client::Connect and ClientOptions: the one entry point of the SDK (include/tarn/client.h).
#include <cstdlib>

#include "catalog/catalog.h"
#include "client/remote_client.h"
#include "tarn/client.h"

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

}  // namespace tarn
