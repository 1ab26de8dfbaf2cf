#include "net/tls.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

namespace sb {
namespace {

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

bool tls_configure_context(SSL_CTX* ctx, bool insecure, std::string& error) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  if (insecure) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    return true;
  }
  if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
    error = "cannot load the system CA certificates (install ca-certificates)";
    return false;
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  return true;
}

bool tls_prepare_session(SSL* ssl, const std::string& host, bool insecure) {
  const bool ip = is_ip_literal(host);
  // RFC 6066: SNI carries DNS names only.
  if (!ip && SSL_set_tlsext_host_name(ssl, host.c_str()) != 1) return false;
  if (insecure) return true;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  if (ip) return X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1;
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  return SSL_set1_host(ssl, host.c_str()) == 1;
}

std::string tls_failure_text(SSL* ssl, const std::string& transport_error) {
  const long verify = ssl != nullptr ? SSL_get_verify_result(ssl) : X509_V_OK;
  if (verify != X509_V_OK) {
    return std::string("certificate verification failed: ") +
           X509_verify_cert_error_string(verify) + " (use --insecure to skip verification)";
  }
  return transport_error;
}

}  // namespace sb
