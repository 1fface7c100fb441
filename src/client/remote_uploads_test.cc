// Uploads::For and what RemoteUploads decides without a server (the flow over HTTP is in
// src/server/server_contract_test.cc).
#include "client/remote_uploads.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "catalog/catalog.h"
#include "metastore/test_util.h"
#include "upload/contract_service.h"

namespace tarn::client {
namespace {

std::filesystem::path Dir() {
  auto dir = testing_util::ScratchDir() /
             ("tarn-remote-uploads-" + std::to_string(::getpid()) + "-" + testing_util::TestName());
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(UploadsFor, AnEmbeddedCatalogGivesItsContractServiceSharingOwnership) {
  auto dir = Dir();
  auto cat = Catalog::OpenEmbedded(dir.string());
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  ASSERT_TRUE((*cat)->CreateWorkspace("w").ok());
  ASSERT_TRUE((*cat)->CreateCollection("w.c").ok());
  std::shared_ptr<Client> client(std::move(*cat));
  std::weak_ptr<Client> weak = client;
  auto uploads = Uploads::For(client);
  ASSERT_TRUE(uploads.ok()) << uploads.status().ToString();
  EXPECT_NE(dynamic_cast<upload::ContractService*>(uploads->get()), nullptr);
  client.reset();
  EXPECT_FALSE(weak.expired());  // the service keeps the catalog alive

  NegotiateRequest req;
  req.target = "w.c.d";
  req.schema = SchemaSource::Inferred();
  req.samples = {*SampleBytes("s.csv", "a,b\n1,x\n")};
  auto c = (*uploads)->Negotiate(req);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->state, ContractState::kProposed);
  uploads->reset();
  EXPECT_TRUE(weak.expired());
  std::filesystem::remove_all(dir);
}

TEST(UploadsFor, ARemoteClientGivesRemoteUploadsAndNullIsRefused) {
  auto remote = RemoteClient::Make("http://127.0.0.1:9", {});
  ASSERT_TRUE(remote.ok());
  std::shared_ptr<Client> client(std::move(*remote));
  auto uploads = Uploads::For(client);
  ASSERT_TRUE(uploads.ok()) << uploads.status().ToString();
  EXPECT_NE(dynamic_cast<RemoteUploads*>(uploads->get()), nullptr);
  EXPECT_EQ(Uploads::For(nullptr).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(RemoteUploads, DecidesLocallyWhatNeedsNoServer) {
  // Port 9 (discard) on loopback: nothing listens, so any request would fail kUnavailable.
  auto remote = RemoteClient::Make("http://127.0.0.1:9", {});
  ASSERT_TRUE(remote.ok());
  RemoteUploads uploads(std::shared_ptr<RemoteClient>(std::move(*remote)));

  // An id that is not an identifier names no contract, as embedded.
  for (const std::string& id :
       std::vector<std::string>{"", "a/b", "has space", std::string(200, 'x')}) {
    Status st = uploads.GetContract(id).status();
    EXPECT_EQ(UploadErrorOf(st), UploadErrorCode::kContractNotFound) << id << ": " << st.ToString();
    EXPECT_EQ(st.kind(), ErrorKind::kNotFound);
    EXPECT_EQ(UploadErrorOf(uploads.Abandon(id)), UploadErrorCode::kContractNotFound);
  }
  // A part name the server would refuse as a path segment.
  for (const std::string& name :
       std::vector<std::string>{"", "..", "dir/x.csv", "a\\b.csv", std::string(256, 'n')}) {
    Status st = uploads.WriteBytes("ct_20240101000000_0123456789ab", name, "a\n1\n").status();
    EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument) << name << ": " << st.ToString();
    EXPECT_EQ(ErrorField(st, "code"), "invalid_identifier");
  }
  // A missing local file.
  EXPECT_EQ(uploads.Write("ct_20240101000000_0123456789ab", "/nonexistent/x.csv").status().kind(),
            ErrorKind::kNotFound);
  // A well-formed call does go to the (absent) server.
  Status down = uploads.GetContract("ct_20240101000000_0123456789ab").status();
  EXPECT_EQ(down.kind(), ErrorKind::kUnavailable) << down.ToString();
  EXPECT_EQ(ErrorField(down, "code"), "server_unreachable");
}

}  // namespace
}  // namespace tarn::client
