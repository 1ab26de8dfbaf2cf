#include "protocol/request_builder.hpp"

#include <simdjson.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "protocol/json_text.hpp"

namespace sb {

namespace {

// Top-level members in insertion order, values as JSON text: merging keeps the position of a key
// that already exists and appends new ones, exactly like Python's dict.update() in vLLM.
using Members = std::vector<std::pair<std::string, std::string>>;

void set_member(Members& m, std::string_view key, std::string value) {
  for (auto& [k, v] : m) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  m.emplace_back(std::string(key), std::move(value));
}

void merge_object(Members& m, const std::string& json, const char* what) {
  if (json.empty()) return;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json).get_object().get(obj))
    throw UserError(std::string(what) + ": not a JSON object: " + json);
  for (auto [key, value] : obj) set_member(m, key, simdjson::minify(value));
}

std::string json_quoted(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

Members base_members(const RequestOptions& opt, const RequestSpec& spec) {
  Members m;
  m.emplace_back("model", json_quoted(opt.model));
  if (opt.api == Api::completions) {
    m.emplace_back("prompt", json_quoted(spec.prompt));
    m.emplace_back("repetition_penalty", "1.0");
    m.emplace_back("max_tokens", std::to_string(spec.max_tokens));
    m.emplace_back("logprobs", opt.logprobs ? std::to_string(*opt.logprobs) : "null");
  } else {
    std::string messages = R"([{"role":"user","content":[{"type":"text","text":)";
    append_json_string(messages, spec.prompt);
    messages += "}]}]";
    m.emplace_back("messages", std::move(messages));
    m.emplace_back("max_completion_tokens", std::to_string(spec.max_tokens));
  }
  m.emplace_back("stream", opt.stream ? "true" : "false");
  if (opt.stream) m.emplace_back("stream_options", R"({"include_usage":true})");
  if (opt.ignore_eos) m.emplace_back("ignore_eos", "true");
  return m;
}

}  // namespace

Problems validate(const RequestOptions& opt) {
  Problems out;
  for (auto [field, text] : {std::pair<const char*, const std::string*>{"sampling_json", &opt.sampling_json},
                             {"extra_body_json", &opt.extra_body_json}}) {
    if (text->empty()) continue;
    simdjson::dom::parser parser;
    simdjson::dom::object obj;
    if (parser.parse(*text).get_object().get(obj)) out.push_back({field, "not a JSON object: " + *text});
  }
  return out;
}

std::string build_request_body(const RequestOptions& opt, const RequestSpec& spec) {
  Members m = base_members(opt, spec);
  merge_object(m, opt.sampling_json, "sampling flags");
  merge_object(m, opt.extra_body_json, "--extra-body");
  std::size_t size = 2;
  for (const auto& [k, v] : m) size += k.size() + v.size() + 4;
  std::string body;
  body.reserve(size);
  body.push_back('{');
  for (const auto& [k, v] : m) {
    if (body.size() > 1) body.push_back(',');
    append_json_string(body, k);
    body.push_back(':');
    body += v;
  }
  body.push_back('}');
  return body;
}

}  // namespace sb
