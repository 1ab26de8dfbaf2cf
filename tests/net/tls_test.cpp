#include "net/tls.hpp"

#include <gtest/gtest.h>
#include <openssl/x509v3.h>

namespace sb {
namespace {

struct Ssl {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  ~Ssl() {
    SSL_free(ssl);
    SSL_CTX_free(ctx);
  }
};

TEST(Tls, VerificationIsOnByDefaultAndOffWhenInsecure) {
  Ssl s;
  std::string err;
  ASSERT_TRUE(tls_configure_context(s.ctx, false, err)) << err;
  EXPECT_EQ(SSL_CTX_get_verify_mode(s.ctx), SSL_VERIFY_PEER);
  ASSERT_TRUE(tls_configure_context(s.ctx, true, err));
  EXPECT_EQ(SSL_CTX_get_verify_mode(s.ctx), SSL_VERIFY_NONE);
}

TEST(Tls, DnsNamesGetSniAndAHostCheck) {
  Ssl s;
  ASSERT_TRUE(tls_prepare_session(s.ssl, "gateway.example", false));
  EXPECT_STREQ(SSL_get_servername(s.ssl, TLSEXT_NAMETYPE_host_name), "gateway.example");
  EXPECT_STREQ(X509_VERIFY_PARAM_get0_host(SSL_get0_param(s.ssl), 0), "gateway.example");
}

TEST(Tls, IpLiteralsGetNoSniButAnIpCheck) {
  Ssl s;
  ASSERT_TRUE(tls_prepare_session(s.ssl, "127.0.0.1", false));
  EXPECT_EQ(SSL_get_servername(s.ssl, TLSEXT_NAMETYPE_host_name), nullptr);
  EXPECT_EQ(X509_VERIFY_PARAM_get0_host(SSL_get0_param(s.ssl), 0), nullptr);
}

TEST(Tls, FailureTextFallsBackToTheTransportError) {
  EXPECT_EQ(tls_failure_text(nullptr, "handshake: wrong version number"), "handshake: wrong version number");
}

}  // namespace
}  // namespace sb
