#include "sim/request_parse.hpp"

#include <simdjson.h>

namespace sb::sim {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// One chat message's content: a string or a list of {"type":"text","text":...} parts.
bool append_content(element content, std::string& text, std::string& error) {
  std::string_view s;
  if (content.get(s) == simdjson::SUCCESS) {
    text += s;
    return true;
  }
  if (content.is_null()) return true;
  simdjson::dom::array parts;
  if (content.get(parts) != simdjson::SUCCESS) {
    error = "messages[].content must be a string or an array of parts";
    return false;
  }
  for (element part : parts) {
    std::string_view t;
    if (part["text"].get(t) == simdjson::SUCCESS) text += t;
  }
  return true;
}

bool parse_messages(element root, ParsedRequest& out, std::string& error) {
  simdjson::dom::array msgs;
  if (root["messages"].get(msgs) != simdjson::SUCCESS) {
    error = "'messages' must be an array";
    return false;
  }
  for (element m : msgs) {
    element content;
    if (m["content"].get(content) != simdjson::SUCCESS) continue;
    if (!out.prompt_text.empty()) out.prompt_text += '\n';
    if (!append_content(content, out.prompt_text, error)) return false;
  }
  return true;
}

bool parse_prompt(element root, ParsedRequest& out, std::string& error) {
  element p;
  if (root["prompt"].get(p) != simdjson::SUCCESS) {
    error = "'prompt' is required";
    return false;
  }
  std::string_view text;
  if (p.get(text) == simdjson::SUCCESS) {
    out.prompt_text = text;
    return true;
  }
  simdjson::dom::array arr;
  if (p.get(arr) != simdjson::SUCCESS) {
    error = "'prompt' must be a string, a list of strings or a list of token ids";
    return false;
  }
  element first;
  if (arr.at(0).get(first) != simdjson::SUCCESS) {
    error = "'prompt' must not be empty";
    return false;
  }
  if (first.is_int64() || first.is_uint64()) {
    out.prompt_token_ids = static_cast<int>(arr.size());
    return true;
  }
  if (first.get(text) == simdjson::SUCCESS && arr.size() == 1) {
    out.prompt_text = text;
    return true;
  }
  error = "batched prompts (several prompts in one request) are not supported by the simulator";
  return false;
}

bool get_bool(element root, const char* key, bool& out, std::string& error) {
  element v;
  if (root[key].get(v) != simdjson::SUCCESS || v.is_null()) return true;
  if (!v.is_bool()) {
    error = std::string("'") + key + "' must be a boolean";
    return false;
  }
  out = v.get_bool().value_unsafe();
  return true;
}

bool get_max_tokens(element root, const char* key, int& out, std::string& error) {
  element v;
  if (root[key].get(v) != simdjson::SUCCESS || v.is_null()) return true;
  std::int64_t n = 0;
  if (v.get(n) != simdjson::SUCCESS || n < 1 || n > 100'000'000) {
    error = std::string("'") + key + "' must be a positive integer";
    return false;
  }
  out = static_cast<int>(n);
  return true;
}

bool parse_fields(element root, Api api, ParsedRequest& out, std::string& error) {
  std::string_view model;
  if (root["model"].get(model) == simdjson::SUCCESS) out.model = model;
  if (!get_bool(root, "stream", out.stream, error)) return false;
  if (!get_bool(root, "ignore_eos", out.ignore_eos, error)) return false;
  element opts;
  if (root["stream_options"].get(opts) == simdjson::SUCCESS && opts.is_object()) {
    if (!get_bool(opts, "include_usage", out.include_usage, error)) return false;
  }
  if (!get_max_tokens(root, "max_tokens", out.max_tokens, error)) return false;
  if (api == Api::chat && !get_max_tokens(root, "max_completion_tokens", out.max_tokens, error)) return false;
  std::uint64_t seed = 0;
  if (root["seed"].get(seed) == simdjson::SUCCESS) out.seed = seed;
  return api == Api::chat ? parse_messages(root, out, error) : parse_prompt(root, out, error);
}

}  // namespace

bool parse_request(std::string_view body, Api api, ParsedRequest& out, std::string& error) {
  thread_local simdjson::dom::parser parser;
  element root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
    error = "request body is not valid JSON";
    return false;
  }
  if (!root.is_object()) {
    error = "request body must be a JSON object";
    return false;
  }
  return parse_fields(root, api, out, error);
}

int approx_prompt_tokens(std::string_view text) noexcept {
  const std::size_t n = (text.size() + 3) / 4;
  return n == 0 ? 1 : static_cast<int>(n > 1'000'000'000 ? 1'000'000'000 : n);
}

}  // namespace sb::sim
