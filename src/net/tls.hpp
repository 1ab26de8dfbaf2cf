#pragma once
// TLS policy shared by every client connection, on plain OpenSSL handles so no header needs Boost:
// system CA store, verification on unless --insecure, SNI, and a host-name (or IP) check.
#include <openssl/ssl.h>

#include <string>

namespace sb {

// Loads the system CA store and turns peer verification on (off when `insecure`).
// Returns false (with `error` set) if the CA store cannot be loaded.
bool tls_configure_context(SSL_CTX* ctx, bool insecure, std::string& error);

// Per connection: SNI for DNS names, and the name/IP the certificate must match.
bool tls_prepare_session(SSL* ssl, const std::string& host, bool insecure);

// Why the last handshake failed, in words (certificate errors spelled out), for messages.
std::string tls_failure_text(SSL* ssl, const std::string& transport_error);

}  // namespace sb
