#include "sim/server_routes.hpp"

#include <nlohmann/json.hpp>

#include "sim/faults.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::sim {
namespace {

Reply json_reply(const nlohmann::ordered_json& j) { return {200, "application/json", j.dump()}; }

// Text of a /tokenize request: "prompt", else the joined string/text-part contents of "messages".
bool tokenize_text(const nlohmann::json& req, std::string& text) {
  if (auto p = req.find("prompt"); p != req.end() && p->is_string()) {
    text = p->get<std::string>();
    return true;
  }
  auto msgs = req.find("messages");
  if (msgs == req.end() || !msgs->is_array()) return false;
  for (const auto& m : *msgs) {
    auto c = m.find("content");
    if (c == m.end()) continue;
    if (!text.empty()) text += '\n';
    if (c->is_string()) {
      text += c->get<std::string>();
    } else if (c->is_array()) {
      for (const auto& part : *c) {
        if (auto t = part.find("text"); t != part.end() && t->is_string()) text += t->get<std::string>();
      }
    }
  }
  return true;
}

}  // namespace

Reply models_reply(const ModelInfo& m) {
  nlohmann::ordered_json model = {{"id", m.id},
                                  {"object", "model"},
                                  {"created", m.created_s},
                                  {"owned_by", "servebench-sim"},
                                  {"root", m.root.empty() ? m.id : m.root},
                                  {"parent", nullptr},
                                  {"max_model_len", m.max_model_len},
                                  {"permission", nlohmann::ordered_json::array()}};
  // Ours: a client that reads it reports modelled times instead of the K-times-shorter wall clock.
  if (m.time_scale != 1) model["servebench_time_scale"] = m.time_scale;
  return json_reply({{"object", "list"}, {"data", nlohmann::ordered_json::array({model})}});
}

Reply error_reply(int status, std::string_view message) {
  return {status, "application/json", error_body(status, message)};
}

Reply unknown_model_reply(std::string_view requested) {
  return error_reply(404, "The model `" + std::string(requested) + "` does not exist.");
}

std::optional<Reply> context_length_refusal(int prompt_tokens, int max_tokens, int max_model_len) {
  if (max_model_len <= 0 || static_cast<std::int64_t>(prompt_tokens) + max_tokens <= max_model_len) return std::nullopt;
  return error_reply(400, "This model's maximum context length is " + std::to_string(max_model_len) +
                              " tokens. However, you requested " + std::to_string(prompt_tokens + max_tokens) +
                              " tokens (" + std::to_string(prompt_tokens) + " in the prompt, " +
                              std::to_string(max_tokens) + " in the completion).");
}

Reply tokenize_reply(std::string_view body, const Tokenizer& tok, const ModelInfo& m) {
  const auto req = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (req.is_discarded() || !req.is_object()) return error_reply(400, "request body is not a JSON object");
  std::string text;
  if (!tokenize_text(req, text)) return error_reply(400, "'prompt' (string) or 'messages' is required");
  bool add_special = true;
  if (auto a = req.find("add_special_tokens"); a != req.end() && a->is_boolean()) add_special = a->get<bool>();
  const std::vector<std::int32_t> ids = tok.encode(text, add_special);
  return json_reply({{"count", ids.size()},
                     {"max_model_len", m.max_model_len},
                     {"tokens", ids},
                     {"token_strs", nullptr}});
}

Reply detokenize_reply(std::string_view body, const Tokenizer& tok) {
  const auto req = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (req.is_discarded() || !req.is_object()) return error_reply(400, "request body is not a JSON object");
  auto t = req.find("tokens");
  if (t == req.end() || !t->is_array()) return error_reply(400, "'tokens' (array of token ids) is required");
  std::vector<std::int32_t> ids;
  for (const auto& v : *t) {
    if (!v.is_number_integer()) return error_reply(400, "'tokens' must contain integers only");
    ids.push_back(v.get<std::int32_t>());
  }
  return json_reply({{"prompt", tok.decode(ids)}});
}

bool authorized(std::string_view authorization, std::string_view api_key) noexcept {
  if (api_key.empty()) return true;
  constexpr std::string_view bearer = "Bearer ";
  return authorization.size() == bearer.size() + api_key.size() &&
         authorization.substr(0, bearer.size()) == bearer && authorization.substr(bearer.size()) == api_key;
}

}  // namespace sb::sim
