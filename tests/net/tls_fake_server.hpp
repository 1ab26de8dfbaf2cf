#pragma once
// A TLS test server on plain OpenSSL: a self-signed certificate for CN=localhost made at start-up
// (nothing on disk), one thread serving connections one at a time, each answered with a canned
// response after the request head arrives. Enough to exercise the client's TLS path.
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <string>

#include "net/fake_server.hpp"

namespace sb::test {

class TlsFakeServer {
 public:
  explicit TlsFakeServer(std::string response) : response_(std::move(response)) {
    ctx_ = SSL_CTX_new(TLS_server_method());
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509_sign(cert, key, EVP_sha256());
    SSL_CTX_use_certificate(ctx_, cert);
    SSL_CTX_use_PrivateKey(ctx_, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(listen_fd_, 16);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~TlsFakeServer() {
    stopping_ = true;
    thread_.join();
    ::close(listen_fd_);
    SSL_CTX_free(ctx_);
  }
  std::uint16_t port() const { return port_; }
  int handshakes() const { return handshakes_.load(); }

 private:
  void loop() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      timeval tv{2, 0};  // a client that rejects our certificate must not hang the server
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) == 1) {
        ++handshakes_;
        serve(ssl);
      }
      SSL_free(ssl);
      ::close(fd);
    }
  }
  void serve(SSL* ssl) {
    std::string buf;
    char tmp[4096];
    while (buf.find("\r\n\r\n") == std::string::npos) {
      const int n = SSL_read(ssl, tmp, sizeof tmp);
      if (n <= 0) return;
      buf.append(tmp, static_cast<std::size_t>(n));
    }
    SSL_write(ssl, response_.data(), static_cast<int>(response_.size()));
    SSL_shutdown(ssl);
  }

  std::string response_;
  SSL_CTX* ctx_ = nullptr;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> handshakes_{0};
  std::thread thread_;
};

}  // namespace sb::test
