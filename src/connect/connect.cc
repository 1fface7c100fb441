// Client::Connect and Uploads::For of the whole SDK (tarn::tarn): a directory opens the
// embedded catalog and its contract service; a URL goes to the remote client (src/client).
#include "catalog/catalog.h"
#include "client/remote_client.h"
#include "tarn/client.h"
#include "tarn/upload.h"
#include "upload/contract_service.h"

namespace tarn {

Result<std::unique_ptr<Client>> Client::Connect(std::string_view target, ClientOptions options) {
  if (client::IsRemoteTarget(target)) return ConnectRemote(target, std::move(options));
  if (target.empty()) return Status::InvalidArgument("no catalog given (a directory or a URL)");
  TARN_ASSIGN_OR_RETURN(auto catalog, Catalog::OpenLocal(target));
  return std::unique_ptr<Client>(std::move(catalog));
}

Result<std::unique_ptr<Uploads>> Uploads::For(std::shared_ptr<Client> client) {
  if (client == nullptr) return Status::InvalidArgument("Uploads::For needs a client");
  if (std::dynamic_pointer_cast<client::RemoteClient>(client) != nullptr) {
    return ForRemote(std::move(client));
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
