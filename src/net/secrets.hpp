#pragma once
// Keeping credentials out of every output: servers echo the key they refused in their error texts
// (OpenAI's 401: "Incorrect API key provided: sk-..."), and those texts end up in records, the
// sweep document's error samples, the console and warnings. The load client (exec/response_sink,
// exec/worker) and the cold-path calls (net/http_call, for error replies) mask them here.
#include <string>
#include <utility>
#include <vector>

namespace sb {

// The values of the headers that carry credentials (Authorization without its "Bearer " prefix,
// x-api-key, api-key, Proxy-Authorization), for scrub_secrets().
std::vector<std::string> secret_header_values(const std::vector<std::pair<std::string, std::string>>& headers);
// Replaces every occurrence of a `secrets` value, and anything shaped like an OpenAI-style key
// (sk-[A-Za-z0-9_-]{8,}), in `text` with "sk-***": servers echo the key they refused in their
// error messages (OpenAI's 401: "Incorrect API key provided: sk-..."), which land in records.
void scrub_secrets(std::string& text, const std::vector<std::string>& secrets);

}  // namespace sb
