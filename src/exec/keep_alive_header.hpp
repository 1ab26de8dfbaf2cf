#pragma once
// The `Keep-Alive` response header (RFC 2068 19.7.1.1, still sent by llama.cpp's server and
// Apache-style servers: "timeout=5, max=100"), sans-I/O. Only `timeout` is used: the server's idle
// limit, which the pool keeps well clear of (exec/conn_pool.hpp).
#include <string_view>

namespace sb {

// The `timeout=N` parameter in seconds (parameters in any order, names in any case, spaces
// around '=' and ','), or -1 when it is absent or not a whole number from 0 to 86400.
int keep_alive_timeout_s(std::string_view value) noexcept;

}  // namespace sb
