// Test-only: a scripted HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for unit tests of the
// S3 client: retries, error mapping, request shapes and signatures. Included by *_test.cc only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace tarn::s3test {

struct FakeRequest {
  std::string method;
  std::string target;                                        // path and query as sent
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  std::string Header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
  std::string Path() const { return target.substr(0, target.find('?')); }
  std::string Query() const {
    size_t q = target.find('?');
    return q == std::string::npos ? "" : target.substr(q + 1);
  }
};

struct FakeResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool drop = false;  // close the connection without answering
};

class FakeServer {
 public:
  using Handler = std::function<FakeResponse(const FakeRequest&)>;

  explicit FakeServer(Handler handler) : handler_(std::move(handler)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(listen_fd_, 64);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }

  ~FakeServer() {
    stop_ = true;
    acceptor_.join();
    ::close(listen_fd_);
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(mu_);
      workers.swap(workers_);
    }
    for (auto& t : workers) t.join();
  }

  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<FakeRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.size();
  }

 private:
  // Waits until fd is readable; false when stopping.
  bool WaitReadable(int fd) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      int r = ::poll(&p, 1, 50);
      if (r > 0) return true;
    }
    return false;
  }

  void AcceptLoop() {
    while (WaitReadable(listen_fd_)) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> lock(mu_);
      workers_.emplace_back([this, fd] {
        Serve(fd);
        ::close(fd);
      });
    }
  }

  static std::string Lower(std::string s) {
    for (char& c : s) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
  }

  void Serve(int fd) {
    std::string buf;
    char chunk[65536];
    while (true) {
      size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (!WaitReadable(fd)) return;
        ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buf.append(chunk, static_cast<size_t>(n));
      }
      FakeRequest req;
      std::string head = buf.substr(0, end);
      buf.erase(0, end + 4);
      size_t line_end = head.find("\r\n");
      std::string line = head.substr(0, line_end);
      size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
      req.method = line.substr(0, sp1);
      req.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
      size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
      while (pos < head.size()) {
        size_t e = head.find("\r\n", pos);
        if (e == std::string::npos) e = head.size();
        std::string h = head.substr(pos, e - pos);
        size_t colon = h.find(':');
        if (colon != std::string::npos) {
          std::string v = h.substr(colon + 1);
          while (!v.empty() && v.front() == ' ') v.erase(0, 1);
          req.headers.emplace_back(Lower(h.substr(0, colon)), v);
        }
        pos = e + 2;
      }
      size_t length = 0;
      std::string cl = req.Header("content-length");
      if (!cl.empty()) length = std::stoul(cl);
      while (buf.size() < length) {
        if (!WaitReadable(fd)) return;
        ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
        if (n <= 0) return;
        buf.append(chunk, static_cast<size_t>(n));
      }
      req.body = buf.substr(0, length);
      buf.erase(0, length);
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req);
      }
      FakeResponse resp = handler_(req);
      if (resp.drop) return;
      std::string out = "HTTP/1.1 " + std::to_string(resp.status) + " Fake\r\n";
      bool has_length = false;
      for (const auto& [k, v] : resp.headers) {
        if (Lower(k) == "content-length") has_length = true;
        out += k + ": " + v + "\r\n";
      }
      if (!has_length) out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
      out += "\r\n";
      if (req.method != "HEAD") out += resp.body;
      size_t sent = 0;
      while (sent < out.size()) {
        ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return;
        sent += static_cast<size_t>(n);
      }
    }
  }

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<FakeRequest> requests_;
};

}  // namespace tarn::s3test
