// Links tarn::client alone (no embedded engine) and connects to a 127.0.0.1 port nobody listens
// on: the SDK must answer kUnavailable, not crash or hang. argv[1] is that port.
#include <tarn/client.h>
#include <tarn/upload.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: remote_app PORT\n");
    return 2;
  }
  tarn::ClientOptions options;
  options.token = "not-a-real-token";  // no token exchange, no ID token from the environment
  options.federated_sign_in = false;
  options.connect_timeout_s = 5;
  options.request_timeout_s = 5;
  auto client = tarn::Client::ConnectRemote(std::string("http://127.0.0.1:") + argv[1], options);
  tarn::Status st = client.status();
  if (client.ok()) st = (*client)->ListWorkspaces().status();  // a lazy connect fails here
  if (st.kind() != tarn::ErrorKind::kUnavailable) {
    std::fprintf(stderr, "want unavailable, got: %s\n", st.ToString().c_str());
    return 1;
  }
  // A directory is not for this library.
  auto local = tarn::Client::ConnectRemote("/tmp/some-dir", {});
  if (local.ok() || local.status().kind() != tarn::ErrorKind::kInvalidArgument) {
    std::fprintf(stderr, "a directory was not refused: %s\n", local.status().ToString().c_str());
    return 1;
  }
  std::printf("remote ok: %s\n", st.ToString().c_str());
  return 0;
}
