// Where a remote client without a client secret or bearer token gets an OpenID Connect ID token
// to exchange at POST /v1/token (docs/design/federation.md): a file named by
// TARN_OIDC_TOKEN_FILE, the token endpoint of a GitHub Actions job, or the metadata server of a
// Google Cloud VM.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tarn/status.h"

namespace tarn::client {

// Thread-safe.
class IdTokenSource {
 public:
  virtual ~IdTokenSource() = default;
  // "token-file", "github-actions" or "gcp-metadata", for messages.
  virtual std::string name() const = 0;
  // Whether this source applies where the process runs. Never touches the network and never
  // blocks: environment variables and, for GCP, one small local file.
  virtual bool is_available() const = 0;
  // A current ID token for `audience` (the token file's producer chose its audience itself).
  // kUnauthenticated (code=id_token_unavailable) when the source refuses or answers nonsense;
  // kUnavailable when it cannot be reached.
  virtual Result<std::string> Fetch(std::string_view audience) = 0;
};

// The file is read on every Fetch, so a file another process rotates keeps working.
std::unique_ptr<IdTokenSource> TokenFileSource(std::string path);
// GET `request_url`&audience=AUD with "Authorization: bearer `request_token`" answers
// {"value": "<jwt>"} (what ACTIONS_ID_TOKEN_REQUEST_URL / _TOKEN name in a job with
// `permissions: id-token: write`).
std::unique_ptr<IdTokenSource> GitHubActionsSource(std::string request_url,
                                                   std::string request_token);
// GET http://`host`/computeMetadata/v1/instance/service-accounts/default/identity with
// "Metadata-Flavor: Google". Available when GCE_METADATA_HOST is set or the machine's DMI
// product name says Google (as google-auth checks), never by probing the network.
std::unique_ptr<IdTokenSource> GcpMetadataSource(std::string host, bool on_gcp);

// The first available of: TARN_OIDC_TOKEN_FILE, GitHub Actions (both ACTIONS_ID_TOKEN_REQUEST_URL
// and ACTIONS_ID_TOKEN_REQUEST_TOKEN set), GCP (GCE_METADATA_HOST, or
// /sys/class/dmi/id/product_name starting with "Google"); nullptr when none is.
std::unique_ptr<IdTokenSource> IdTokenSourceFromEnvironment();

}  // namespace tarn::client
