// For tests only: a local OpenID Connect issuer on 127.0.0.1 with its own RSA and EC P-256 keys
// (made with OpenSSL at test time), serving its discovery document and JWKS over cpp-httplib
// and counting the requests it gets; and the signing of ID tokens with its keys.
#pragma once

#include <httplib.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>

#include "auth/auth_internal.h"
#include "common/clock.h"
#include "common/test_util.h"

namespace tarn::auth::testing {

using nlohmann::json;

inline int64_t NowSeconds() { return Clock::Real()->NowSeconds(); }

inline std::string B64(std::string_view bytes) { return internal::Base64UrlEncode(bytes); }

class TestIssuer {
 public:
  TestIssuer() {
    server_.Get("/.well-known/openid-configuration",
                [this](const httplib::Request&, httplib::Response& res) {
                  ++discovery_hits_;
                  std::unique_lock<std::mutex> lock(mu_);
                  // Real time on purpose (a client's transfer timeout is what is tested); it
                  // ends early when the delay is set to 0, and at the destructor.
                  if (int ms = delay_ms_.load()) {
                    undelayed_.wait_for(lock, std::chrono::milliseconds(ms),
                                        [this] { return delay_ms_.load() == 0; });
                  }
                  json doc = {{"issuer", issuer_name_}, {"jwks_uri", url_ + "/jwks"}};
                  if (!discovery_override_.empty()) {
                    res.set_content(discovery_override_, "application/json");
                  } else {
                    res.set_content(doc.dump(), "application/json");
                  }
                });
    server_.Get("/jwks", [this](const httplib::Request&, httplib::Response& res) {
      ++jwks_hits_;
      std::lock_guard<std::mutex> lock(mu_);
      json keys = json::array();
      for (const auto& [kid, k] : keys_) {
        if (k.published) keys.push_back(k.jwk);
      }
      res.set_content(json{{"keys", keys}}.dump(), "application/json");
    });
    server_.set_keep_alive_max_count(1);  // no idle connection keeps stop() waiting
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("cannot bind the test issuer");
    url_ = "http://127.0.0.1:" + std::to_string(port_);
    issuer_name_ = url_;
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    if (!testing_util::Eventually([this] { return server_.is_running(); })) {
      server_.stop();
      thread_.join();
      throw std::runtime_error("the test issuer did not start");
    }
  }
  ~TestIssuer() {
    set_delay_ms(0);
    server_.stop();
    thread_.join();
    for (auto& [kid, k] : keys_) EVP_PKEY_free(k.pkey);
  }
  TestIssuer(const TestIssuer&) = delete;
  TestIssuer& operator=(const TestIssuer&) = delete;

  // The issuer identifier (its URL, http://127.0.0.1:<port>).
  const std::string& issuer() const { return url_; }
  int discovery_hits() const { return discovery_hits_; }
  int jwks_hits() const { return jwks_hits_; }
  // What the discovery document says the issuer is (default: its URL).
  void set_issuer_name(std::string name) {
    std::lock_guard<std::mutex> lock(mu_);
    issuer_name_ = std::move(name);
  }
  // Delays each discovery answer (an issuer that accepts but does not answer).
  void set_delay_ms(int ms) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      delay_ms_ = ms;
    }
    undelayed_.notify_all();
  }
  void set_discovery_override(std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    discovery_override_ = std::move(body);
  }

  // A new published key: "RS256" (RSA 2048) or "ES256" (P-256).
  void AddKey(const std::string& kid, const std::string& alg) {
    EVP_PKEY* pkey = alg == "RS256" ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
    if (pkey == nullptr) throw std::runtime_error("key generation failed");
    Key k{pkey, alg, json::object(), true};
    if (alg == "RS256") {
      k.jwk = {{"kty", "RSA"},
               {"kid", kid},
               {"use", "sig"},
               {"alg", "RS256"},
               {"n", B64(BnParam(pkey, OSSL_PKEY_PARAM_RSA_N, 0))},
               {"e", B64(BnParam(pkey, OSSL_PKEY_PARAM_RSA_E, 0))}};
    } else {
      k.jwk = {{"kty", "EC"},
               {"kid", kid},
               {"use", "sig"},
               {"crv", "P-256"},
               {"x", B64(BnParam(pkey, OSSL_PKEY_PARAM_EC_PUB_X, 32))},
               {"y", B64(BnParam(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, 32))}};
    }
    std::lock_guard<std::mutex> lock(mu_);
    keys_[kid] = k;
  }
  // Stops publishing a key (it still signs).
  void Unpublish(const std::string& kid) {
    std::lock_guard<std::mutex> lock(mu_);
    keys_.at(kid).published = false;
  }
  json Jwk(const std::string& kid) {
    std::lock_guard<std::mutex> lock(mu_);
    return keys_.at(kid).jwk;
  }
  // The PEM of a key's public half (what an HS256 confusion attack uses as the HMAC secret).
  std::string PublicPem(const std::string& kid) {
    std::lock_guard<std::mutex> lock(mu_);
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, keys_.at(kid).pkey);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(n));
    BIO_free(bio);
    return out;
  }

  // Claims of a valid token for `subject` and `audience`, issued now for 5 minutes.
  json Claims(const std::string& subject, const std::string& audience) const {
    int64_t now = NowSeconds();
    return {{"iss", url_}, {"sub", subject}, {"aud", audience},
            {"iat", now},  {"nbf", now},     {"exp", now + 300}};
  }

  // A compact JWS of `claims` signed with key `kid` (header alg from the key unless given).
  std::string Sign(const json& claims, const std::string& kid, json header = json::object()) {
    std::lock_guard<std::mutex> lock(mu_);
    const Key& k = keys_.at(kid);
    if (!header.contains("alg")) header["alg"] = k.alg;
    if (!header.contains("kid")) header["kid"] = kid;
    if (!header.contains("typ")) header["typ"] = "JWT";
    std::string input = B64(header.dump()) + "." + B64(claims.dump());
    return input + "." + B64(SignBytes(k, input));
  }
  // Raw header and payload text (for duplicate keys), signed with `kid`.
  std::string SignRaw(const std::string& header_text, const std::string& payload_text,
                      const std::string& kid) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string input = B64(header_text) + "." + B64(payload_text);
    return input + "." + B64(SignBytes(keys_.at(kid), input));
  }

  static std::string HmacSha256(const std::string& key, const std::string& data) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
    return std::string(reinterpret_cast<char*>(out), len);
  }

 private:
  struct Key {
    EVP_PKEY* pkey = nullptr;
    std::string alg;
    json jwk;
    bool published = true;
  };

  static std::string BnParam(EVP_PKEY* pkey, const char* name, int pad) {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) throw std::runtime_error("no key param");
    int n = pad > 0 ? pad : BN_num_bytes(bn);
    std::string out(static_cast<size_t>(n), '\0');
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), n);
    BN_free(bn);
    return out;
  }

  static std::string SignBytes(const Key& k, const std::string& input) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    size_t len = 0;
    EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, k.pkey);
    EVP_DigestSign(md, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()),
                   input.size());
    std::string sig(len, '\0');
    EVP_DigestSign(md, reinterpret_cast<unsigned char*>(sig.data()), &len,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    EVP_MD_CTX_free(md);
    sig.resize(len);
    if (k.alg != "ES256") return sig;
    // DER ECDSA-Sig-Value -> JOSE r||s.
    const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string rs(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(rs.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(rs.data()) + 32, 32);
    ECDSA_SIG_free(es);
    return rs;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::string url_;
  std::mutex mu_;
  std::condition_variable undelayed_;  // delay_ms_ became 0
  std::string issuer_name_;
  std::string discovery_override_;
  std::map<std::string, Key> keys_;
  std::atomic<int> discovery_hits_{0};
  std::atomic<int> delay_ms_{0};
  std::atomic<int> jwks_hits_{0};
};

}  // namespace tarn::auth::testing
