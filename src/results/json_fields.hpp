#pragma once
// Helpers the result readers share (result_reader.cpp, vllm_reader.cpp): tolerant field access and
// the block of vLLM result keys that a sweep stage and a vLLM file have in common. Internal to results/.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "results/model.hpp"

namespace sb::results::detail {

// Parses `text`; a syntax error becomes sb::UserError "WHERE:LINE: malformed JSON (...)".
nlohmann::json parse_json(std::string_view text, const std::string& where);

// A number, "inf" as +infinity, anything else (absent, null, other text) as `fallback`.
double number_or(const nlohmann::json& j, const char* key, double fallback);
std::string string_or(const nlohmann::json& j, const char* key, std::string fallback = "");

// vLLM's keys (docs/results-format.md §2): load, counts, throughputs, goodput and every
// "<stat>_<metric>_ms" latency key. Throws sb::UserError naming `where` when a required key is missing.
Stage read_vllm_keys(const nlohmann::json& j, const std::string& where);

// Replaces values of secret-looking keys in place (api_key, authorization, password, secret, headers).
void redact(nlohmann::json& j, bool inside_headers);

}  // namespace sb::results::detail
