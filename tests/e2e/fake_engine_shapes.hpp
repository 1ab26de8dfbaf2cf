#pragma once
// What each engine's fake (fake_engine.hpp) answers, without I/O: the bodies of vLLM's, SGLang's,
// TGI's and llama.cpp's probe endpoints, /tokenize replies and stream chunks (docs/engines.md).
//
// Tokenization is deterministic so a test knows the right count: one token per whitespace-separated
// word, plus a BOS (id 1) where the engine adds specials (every completion prompt; /tokenize as its
// flag says). Completions stream exactly max_tokens tokens (finish_reason "length").
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sb::e2e {

enum class Dialect { vllm, sglang, tgi, llamacpp };

// The fake's tokenization: whitespace-separated words.
inline std::vector<std::string> fake_engine_words(std::string_view text) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

// Token count of a completion prompt on every dialect: the words and a BOS.
inline int fake_engine_prompt_tokens(std::string_view text) {
  return static_cast<int>(fake_engine_words(text).size()) + 1;
}

struct FakeReply {
  int status = 200;
  std::string body;
  bool foreign = false;  // a /tokenize body in another engine's shape
};

// One generation request as the fake read it.
struct FakeGeneration {
  bool chat = false, include_usage = false;
  int prompt_tokens = 0, max_tokens = 16;
};

class FakeEngineShapes {
 public:
  using Json = nlohmann::ordered_json;

  FakeEngineShapes(Dialect d, bool anonymous_models, int n_ctx) : d_(d), anonymous_(anonymous_models), n_ctx_(n_ctx) {}

  Dialect dialect() const { return d_; }
  std::string model() const { return d_ == Dialect::llamacpp ? "fake-model.gguf" : "org/fake-model"; }

  // The Server header line each engine's HTTP stack sends (vLLM and SGLang run on uvicorn; TGI's
  // axum router sends none; llama-server sets "llama.cpp" on every reply).
  std::string server_header() const {
    if (anonymous_) return "";
    if (d_ == Dialect::llamacpp) return "Server: llama.cpp\r\n";
    if (d_ == Dialect::vllm || d_ == Dialect::sglang) return "server: uvicorn\r\n";
    return "";
  }

  std::string not_found_body() const {
    return d_ == Dialect::llamacpp ? R"({"error":{"code":404,"message":"File Not Found","type":"not_found_error"}})"
                                   : R"({"detail":"Not Found"})";
  }

  // GET answers: /v1/models, /health, and the engine's own probe endpoints; status 404 otherwise.
  FakeReply get(const std::string& path) const {
    if (path == "/v1/models") return {200, Json{{"object", "list"}, {"data", Json::array({models_entry()})}}.dump()};
    if (path == "/health") return {200, d_ == Dialect::llamacpp ? R"({"status":"ok"})" : ""};
    const Json probe = probe_reply(path);
    return probe.is_null() ? FakeReply{404, not_found_body()} : FakeReply{200, probe.dump()};
  }

  FakeReply tokenize(const Json& body) const {
    const auto text_at = [&](const char* key) -> const Json* {
      return body.is_object() && body.contains(key) && body[key].is_string() ? &body[key] : nullptr;
    };
    switch (d_) {
      case Dialect::vllm:
      case Dialect::sglang: {
        const Json* prompt = text_at("prompt");
        if (!prompt) return {400, R"({"object":"error","message":"prompt: Field required","type":"BadRequestError","code":400})", true};
        const Json ids = ids_of(prompt->get<std::string>(), body.value("add_special_tokens", true));
        return {200, Json{{"tokens", ids}, {"count", ids.size()}, {"max_model_len", 4096}}.dump()};
      }
      case Dialect::llamacpp: {
        // llama-server answers a body without "content" with 200 and no tokens: the trap.
        const Json* content = text_at("content");
        if (!content) return {200, R"({"tokens":[]})", true};
        return {200, Json{{"tokens", ids_of(content->get<std::string>(), body.value("add_special", false))}}.dump()};
      }
      case Dialect::tgi: {
        const Json* inputs = text_at("inputs");
        if (!inputs) return {422, R"({"error":"missing field `inputs`","error_type":"validation"})", true};
        // BOS first, covering no text (offsets 0..0, text ""), then each word with its span.
        const std::string text = inputs->get<std::string>();
        Json out = Json::array({Json{{"id", 1}, {"text", ""}, {"start", 0}, {"stop", 0}}});
        std::size_t from = 0;
        for (const std::string& w : fake_engine_words(text)) {
          const std::size_t at = text.find(w, from);
          from = at + w.size();
          out.push_back({{"id", 100}, {"text", w}, {"start", at}, {"stop", from}});
        }
        return {200, out.dump()};
      }
    }
    return {404, not_found_body()};
  }

  FakeGeneration generation(const Json& body, bool chat) const {
    FakeGeneration g;
    g.chat = chat;
    std::string prompt;
    if (chat && body.contains("messages") && body["messages"].is_array() && !body["messages"].empty()) {
      prompt = message_text(body["messages"].back());
    } else if (!chat && body.contains("prompt") && body["prompt"].is_string()) {
      prompt = body["prompt"].get<std::string>();
    }
    g.prompt_tokens = fake_engine_prompt_tokens(prompt);
    g.max_tokens = max_tokens_of(body);
    g.include_usage = body.contains("stream_options") && body["stream_options"].value("include_usage", false);
    return g;
  }

  // llama.cpp refuses a prompt beyond the slot's context before any streaming; "" when it fits.
  std::string context_error(const FakeGeneration& g) const {
    if (d_ != Dialect::llamacpp || g.prompt_tokens + g.max_tokens <= n_ctx_) return "";
    return Json{{"error", {{"code", 400}, {"message", "the request exceeds the available context size"},
                           {"type", "exceed_context_size_error"}, {"n_prompt_tokens", g.prompt_tokens},
                           {"n_ctx", n_ctx_}}}}.dump();
  }

  // The role chunk chat streams open with (vLLM, SGLang: content ""; llama.cpp: null); TGI has none.
  std::vector<Json> role_chunks(const FakeGeneration& g) const {
    if (!g.chat || d_ == Dialect::tgi) return {};
    Json e = envelope(g);
    const Json content = d_ == Dialect::llamacpp ? Json(nullptr) : Json("");
    e["choices"] = Json::array({Json{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", content}}},
                                     {"logprobs", nullptr}, {"finish_reason", nullptr}}});
    return {e};
  }

  // Token i. The last token ends the stream, except on llama.cpp, which sends a final chunk of its own.
  Json token_chunk(const FakeGeneration& g, int i) const {
    const bool last = d_ != Dialect::llamacpp && i + 1 == g.max_tokens;
    Json e = envelope(g);
    e["choices"] = Json::array({choice(g, " w" + std::to_string(i), last)});
    if (d_ == Dialect::sglang || (d_ == Dialect::tgi && g.chat)) e["usage"] = nullptr;
    if (last && d_ == Dialect::tgi) e["usage"] = usage_of(g);  // TGI: usage with the last choice
    return e;
  }

  // After the tokens: vLLM and SGLang, with include_usage, a chunk {choices: [], usage}; llama.cpp:
  // completions end with {text: "", finish_reason, usage, timings} (usage always), chat with
  // {delta: {}, finish_reason} and, only with include_usage, {choices: [], usage, timings}.
  std::vector<Json> final_chunks(const FakeGeneration& g, const Json& timings) const {
    if (d_ == Dialect::tgi) return {};
    Json usage = envelope(g);
    usage["choices"] = Json::array();
    usage["usage"] = usage_of(g);
    if (d_ != Dialect::llamacpp) return g.include_usage ? std::vector<Json>{usage} : std::vector<Json>{};
    Json e = envelope(g);
    if (!g.chat) {
      e["choices"] = Json::array({Json{{"text", ""}, {"index", 0}, {"logprobs", nullptr}, {"finish_reason", "length"}}});
      e["usage"] = usage_of(g);
      e["timings"] = timings;
      return {e};
    }
    e["choices"] = Json::array({Json{{"finish_reason", "length"}, {"index", 0}, {"delta", Json::object()}}});
    if (!g.include_usage) {
      e["timings"] = timings;
      return {e};
    }
    usage["timings"] = timings;
    return {e, usage};
  }

  // llama.cpp's per-request timings, measured on the fake's clock: prompt_ms from the request to
  // the first token, predicted_ms from the first token to the last.
  static Json timings_of(const FakeGeneration& g, double prompt_ms, double predicted_ms) {
    const int n = g.max_tokens;
    return {{"cache_n", 0}, {"prompt_n", g.prompt_tokens}, {"prompt_ms", prompt_ms},
            {"prompt_per_token_ms", prompt_ms / g.prompt_tokens},
            {"prompt_per_second", prompt_ms > 0 ? 1e3 * g.prompt_tokens / prompt_ms : 0.0},
            {"predicted_n", n}, {"predicted_ms", predicted_ms},
            {"predicted_per_token_ms", n > 1 ? predicted_ms / (n - 1) : 0.0},
            {"predicted_per_second", predicted_ms > 0 ? 1e3 * n / predicted_ms : 0.0}};
  }

 private:
  Json models_entry() const {
    Json m = {{"id", model()}, {"object", "model"}, {"created", 1764470000}};
    if (anonymous_) return m;
    switch (d_) {
      case Dialect::vllm:
        m["owned_by"] = "vllm";
        m["root"] = model();
        m["parent"] = nullptr;
        m["max_model_len"] = 4096;
        break;
      case Dialect::sglang:
        m["owned_by"] = "sglang";
        m["root"] = model();
        m["max_model_len"] = 4096;
        break;
      case Dialect::tgi: m["owned_by"] = model(); break;  // TGI names the model as its owner
      case Dialect::llamacpp:
        m["owned_by"] = "llamacpp";
        m["meta"] = {{"vocab_type", 2}, {"n_vocab", 32000}, {"n_ctx_train", 4096}, {"n_embd", 2048},
                     {"n_params", 1100048384}, {"size", 667815936}};
        break;
    }
    return m;
  }

  // The engine's own probe endpoint, or null when it has none.
  Json probe_reply(const std::string& path) const {
    if (d_ == Dialect::llamacpp && path == "/props") {
      return {{"default_generation_settings", {{"n_ctx", n_ctx_}, {"params", {{"n_predict", -1}}}}},
              {"total_slots", 4}, {"model_path", "/models/" + model()}, {"build_info", "b6500-fake"}};
    }
    if (d_ == Dialect::sglang && path == "/get_model_info") {
      return {{"model_path", model()}, {"tokenizer_path", model()}, {"is_generation", true}};
    }
    if (d_ == Dialect::sglang && path == "/get_server_info") {
      return {{"model_path", model()}, {"tp_size", 1}, {"version", "0.5.3"}};
    }
    if (d_ == Dialect::tgi && path == "/info") {
      return {{"model_id", model()}, {"router", "text-generation-router"}, {"version", "3.3.6"},
              {"max_input_tokens", 4095}, {"max_total_tokens", 4096}};
    }
    if (d_ == Dialect::vllm && path == "/version") return {{"version", "0.11.0"}};
    return nullptr;
  }

  static Json ids_of(std::string_view text, bool bos) {
    Json ids = Json::array();
    if (bos) ids.push_back(1);
    for (const std::string& w : fake_engine_words(text)) ids.push_back(100 + static_cast<int>(std::hash<std::string>{}(w) % 30000));
    return ids;
  }

  // A chat message's content: a string, or a list of parts of which the text ones count.
  static std::string message_text(const Json& message) {
    if (!message.is_object() || !message.contains("content")) return "";
    const Json& content = message["content"];
    if (content.is_string()) return content.get<std::string>();
    std::string text;
    if (!content.is_array()) return text;
    for (const Json& part : content) {
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string()) {
        text += part["text"].get<std::string>();
      }
    }
    return text;
  }

  // Every engine takes max_tokens and (chat) max_completion_tokens; llama.cpp also n_predict.
  int max_tokens_of(const Json& body) const {
    for (const char* key : {"max_completion_tokens", "max_tokens", "n_predict"}) {
      if (key == std::string_view("n_predict") && d_ != Dialect::llamacpp) break;
      if (body.contains(key) && body[key].is_number_integer()) return body[key].get<int>();
    }
    return 16;
  }

  Json usage_of(const FakeGeneration& g) const {
    return {{"prompt_tokens", g.prompt_tokens}, {"total_tokens", g.prompt_tokens + g.max_tokens},
            {"completion_tokens", g.max_tokens}};
  }

  Json envelope(const FakeGeneration& g) const {
    const char* object = g.chat ? "chat.completion.chunk" : "text_completion";
    Json e = {{"id", d_ == Dialect::tgi ? "" : "cmpl-fake"}, {"object", object}, {"created", 1764470000}, {"model", model()}};
    if (d_ == Dialect::llamacpp) e["system_fingerprint"] = "b6500-fake";
    if (d_ == Dialect::tgi) e["system_fingerprint"] = "3.3.6-native";
    return e;
  }

  // choices[0] of a token chunk: the text (completions) or delta (chat), and finish_reason.
  Json choice(const FakeGeneration& g, const std::string& text, bool last) const {
    Json c = {{"index", 0}};
    if (g.chat) c["delta"] = d_ == Dialect::tgi ? Json{{"role", "assistant"}, {"content", text}} : Json{{"content", text}};
    else c["text"] = text;
    c["logprobs"] = nullptr;
    // TGI's completions stream says "" until the final chunk (TGI PR #2336's output).
    c["finish_reason"] = last ? Json("length") : (d_ == Dialect::tgi && !g.chat ? Json("") : Json(nullptr));
    if (d_ == Dialect::sglang) c["matched_stop"] = nullptr;
    return c;
  }

  Dialect d_;
  bool anonymous_;
  int n_ctx_;
};

}  // namespace sb::e2e
