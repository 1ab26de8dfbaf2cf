#include "target/tokenize_dialect.hpp"

#include <simdjson.h>

#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "protocol/json_text.hpp"

namespace sb {
namespace {

[[noreturn]] void bad_reply(std::string_view where, std::string_view what) {
  throw UserError(fmt::format("{}: {}", where, what), ExitCode::unreachable);
}

simdjson::dom::element parse_object(simdjson::dom::parser& parser, const simdjson::padded_string& padded,
                                    std::string_view where) {
  simdjson::dom::element doc;
  if (parser.parse(padded).get(doc) || !doc.is_object()) bad_reply(where, "reply is not a JSON object");
  return doc;
}

std::int32_t token_id(simdjson::dom::element v, std::string_view where) {
  std::int64_t id = 0;
  if (v.get_int64().get(id) || id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
    bad_reply(where, "\"tokens\" must hold non-negative integer ids");
  }
  return static_cast<std::int32_t>(id);
}

// Ids, or llama.cpp's {"id": n, "piece": ...} objects (with_pieces).
std::vector<std::int32_t> read_ids(simdjson::dom::array arr, std::string_view where) {
  std::vector<std::int32_t> ids;
  ids.reserve(arr.size());
  for (simdjson::dom::element v : arr) {
    simdjson::dom::element id = v;
    if (v.is_object() && v["id"].get(id)) bad_reply(where, "a token object has no \"id\"");
    ids.push_back(token_id(id, where));
  }
  return ids;
}

void append_model(std::string& out, std::string_view model) {
  if (model.empty()) return;
  out += "\"model\": ";
  append_json_string(out, model);
  out += ", ";
}

std::string llamacpp_body(std::string_view text, bool add_special_tokens) {
  std::string out = "{\"content\": ";
  append_json_string(out, text);
  out += add_special_tokens ? ", \"add_special\": true}" : ", \"add_special\": false}";
  return out;
}

std::string tgi_body(std::string_view text) {
  std::string out = "{\"inputs\": ";
  append_json_string(out, text);
  return out + "}";
}

TokenizeReply parse_llamacpp(std::string_view body, std::string_view where) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  const simdjson::dom::element doc = parse_object(parser, padded, where);
  simdjson::dom::array tokens;
  if (doc["tokens"].get_array().get(tokens)) bad_reply(where, "reply has no \"tokens\" list (is this llama.cpp?)");
  TokenizeReply out;
  out.tokens = read_ids(tokens, where);
  out.count = out.tokens.size();
  return out;
}

TokenizeReply parse_tgi(std::string_view body, bool add_special_tokens, std::string_view where) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  simdjson::dom::array arr;
  if (parser.parse(padded).get_array().get(arr)) bad_reply(where, "reply is not a list of tokens (is this TGI?)");
  TokenizeReply out;
  for (simdjson::dom::element t : arr) {
    simdjson::dom::element id;
    std::int64_t start = 0, stop = 0;
    if (!t.is_object() || t["id"].get(id)) bad_reply(where, "a token has no \"id\"");
    const bool span = !t["start"].get_int64().get(start) && !t["stop"].get_int64().get(stop);
    if (!add_special_tokens && span && start == stop) continue;  // a special token covers no text
    out.tokens.push_back(token_id(id, where));
  }
  out.count = out.tokens.size();
  return out;
}

}  // namespace

std::string tokenize_request_body(std::string_view model, std::string_view text, bool add_special_tokens) {
  std::string out = "{";
  append_model(out, model);
  out += "\"prompt\": ";
  append_json_string(out, text);
  out += add_special_tokens ? ", \"add_special_tokens\": true}" : ", \"add_special_tokens\": false}";
  return out;
}

std::string detokenize_request_body(std::string_view model, const std::vector<std::int32_t>& ids) {
  std::string out = "{";
  append_model(out, model);
  out += "\"tokens\": [";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(ids[i]);
  }
  out += "]}";
  return out;
}

TokenizeReply parse_tokenize_reply(std::string_view body, std::string_view where) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  const simdjson::dom::element doc = parse_object(parser, padded, where);
  TokenizeReply out;
  simdjson::dom::array tokens;
  const bool has_tokens = !doc["tokens"].get_array().get(tokens);
  if (has_tokens) out.tokens = read_ids(tokens, where);
  std::uint64_t count = 0;
  if (!doc["count"].get_uint64().get(count)) {
    out.count = static_cast<std::size_t>(count);
  } else if (has_tokens) {
    out.count = out.tokens.size();
  } else {
    bad_reply(where, "reply has neither \"count\" nor \"tokens\" (is this vLLM's /tokenize?)");
  }
  if (has_tokens && out.tokens.size() != out.count) {
    bad_reply(where, fmt::format("\"count\" is {} but \"tokens\" holds {} ids", out.count, out.tokens.size()));
  }
  std::int64_t max_len = 0;
  if (!doc["max_model_len"].get_int64().get(max_len) && max_len > 0 &&
      max_len <= std::numeric_limits<int>::max()) {
    out.max_model_len = static_cast<int>(max_len);
  }
  return out;
}

std::string parse_detokenize_reply(std::string_view body, std::string_view where) {
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  const simdjson::dom::element doc = parse_object(parser, padded, where);
  std::string_view prompt;
  if (doc["prompt"].get_string().get(prompt)) bad_reply(where, "reply has no string \"prompt\"");
  return std::string(prompt);
}

std::string tokenize_body_for(Engine e, std::string_view model, std::string_view text, bool add_special_tokens) {
  switch (e) {
    case Engine::llamacpp: return llamacpp_body(text, add_special_tokens);
    case Engine::tgi: return tgi_body(text);
    case Engine::vllm: case Engine::sglang: case Engine::openai: break;
  }
  return tokenize_request_body(model, text, add_special_tokens);
}

TokenizeReply parse_tokenize_reply_for(Engine e, std::string_view body, bool add_special_tokens,
                                       std::string_view where) {
  switch (e) {
    case Engine::llamacpp: return parse_llamacpp(body, where);
    case Engine::tgi: return parse_tgi(body, add_special_tokens, where);
    case Engine::vllm: case Engine::sglang: case Engine::openai: break;
  }
  return parse_tokenize_reply(body, where);
}

bool has_detokenize(Engine e) { return e != Engine::tgi; }

std::string detokenize_body_for(Engine e, std::string_view model, const std::vector<std::int32_t>& ids) {
  // llama.cpp serves one model and takes no "model" field.
  return detokenize_request_body(e == Engine::llamacpp ? std::string_view() : model, ids);
}

// vLLM answers {"prompt"}, SGLang {"text"}, llama.cpp {"content"}.
std::string parse_detokenize_reply_for(Engine e, std::string_view body, std::string_view where) {
  if (e != Engine::sglang && e != Engine::llamacpp) return parse_detokenize_reply(body, where);
  const std::string_view key = e == Engine::sglang ? "text" : "content";
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(body);
  const simdjson::dom::element doc = parse_object(parser, padded, where);
  std::string_view text;
  if (doc[key].get_string().get(text)) bad_reply(where, fmt::format("reply has no string \"{}\"", key));
  return std::string(text);
}

}  // namespace sb
