#pragma once
// A small fake of each engine's dialect (docs/engines.md) for the end-to-end tests: a blocking
// POSIX server on 127.0.0.1:0, one thread per connection, answering like vLLM, SGLang, TGI or
// llama.cpp's llama-server would: its probe endpoints (/v1/models, /props, /get_model_info,
// /get_server_info, /info, /version, /health, the Server header), its own /tokenize shape, and
// streamed completions and chat with usage where that engine puts it.
//
// Tokenization is deterministic so a test knows the right count: one token per whitespace-separated
// word, plus a BOS (id 1) where the engine adds specials (every completion prompt; /tokenize as its
// flag says). Completions stream exactly max_tokens tokens (finish_reason "length").
// Only streaming requests are served (servebench always streams).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "e2e/loopback_listener.hpp"

namespace sb::e2e {

enum class Dialect { vllm, sglang, tgi, llamacpp };

struct FakeEngineOptions {
  // /v1/models without owned_by/meta and no Server header, so only the engine's own probe
  // endpoint (/props, /get_model_info, /info, /version) tells it apart.
  bool anonymous_models = false;
  int ttft_ms = 0;   // before the first token
  int itl_ms = 0;    // between tokens
  int n_ctx = 4096;  // llama.cpp: prompt + max_tokens beyond it -> 400 exceed_context_size_error
};

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

class FakeEngine {
 public:
  using Json = nlohmann::ordered_json;

  explicit FakeEngine(Dialect d, FakeEngineOptions opt = {}) : d_(d), opt_(opt) {
    port_ = listen_on_loopback(listen_fd_);
    if (port_ != 0) acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~FakeEngine() {
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    {
      std::lock_guard lock(mu_);
      for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : threads_) t.join();
    for (int fd : fds_) ::close(fd);
    ::close(listen_fd_);
  }
  int port() const { return port_; }
  std::string port_text() const { return std::to_string(port_); }
  std::string model() const { return d_ == Dialect::llamacpp ? "fake-model.gguf" : "org/fake-model"; }
  int tokenize_calls() const { return tokenize_calls_.load(); }
  // /tokenize bodies in another engine's shape (llama.cpp: {"prompt"} and no "content").
  int foreign_tokenize_calls() const { return foreign_tokenize_calls_.load(); }
  int generations() const { return generations_.load(); }
  // Σ prompt tokens of the generation requests received, as this engine counted them.
  long prompt_tokens_received() const { return prompt_tokens_received_.load(); }

 private:
  struct Request {
    std::string method, path, body;
  };

  void accept_loop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::lock_guard lock(mu_);
      fds_.push_back(fd);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  bool fill(int fd, std::string& buf) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char chunk[16384];
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n <= 0) return false;
      buf.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
    return false;
  }

  bool read_request(int fd, std::string& buf, Request& req) {
    std::size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!fill(fd, buf)) return false;
    }
    const std::string head = buf.substr(0, head_end + 2);
    const std::size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
    req.method = head.substr(0, sp1);
    req.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    std::size_t length = 0;
    for (std::size_t pos = head.find("\r\n"); pos != std::string::npos && pos + 2 < head.size();) {
      const std::size_t end = head.find("\r\n", pos + 2);
      const std::string line = head.substr(pos + 2, end - pos - 2);
      if (::strncasecmp(line.c_str(), "content-length:", 15) == 0) length = std::stoul(line.substr(15));
      pos = end;
    }
    while (buf.size() < head_end + 4 + length) {
      if (!fill(fd, buf)) return false;
    }
    req.body = buf.substr(head_end + 4, length);
    buf.erase(0, head_end + 4 + length);
    return true;
  }

  bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  void pause_ms(int ms) {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  void serve(int fd) {
    std::string buf;
    Request req;
    try {
      while (read_request(fd, buf, req)) {
        if (!answer(fd, req)) break;
      }
    } catch (const std::exception& e) {
      // A request this fake cannot read: say so where the test output shows it, and hang up.
      std::fprintf(stderr, "fake engine: %s\n", e.what());
    }
  }

  // The Server header each engine's HTTP stack sends (vLLM and SGLang run on uvicorn; TGI's axum
  // router sends none).
  std::string server_header() const {
    if (opt_.anonymous_models) return "";
    if (d_ == Dialect::llamacpp) return "Server: llama.cpp\r\n";
    if (d_ == Dialect::vllm || d_ == Dialect::sglang) return "server: uvicorn\r\n";
    return "";
  }

  bool reply(int fd, int status, const std::string& body) {
    const char* reason = status == 200 ? "OK" : status == 404 ? "Not Found" : status == 400 ? "Bad Request"
                                                                                             : "Unprocessable Entity";
    return send_all(fd, "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\n" + server_header() +
                            "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                            "\r\n\r\n" + body);
  }

  bool not_found(int fd) {
    if (d_ == Dialect::llamacpp) return reply(fd, 404, R"({"error":{"code":404,"message":"File Not Found","type":"not_found_error"}})");
    return reply(fd, 404, R"({"detail":"Not Found"})");
  }

  Json models_entry() const {
    Json m = {{"id", model()}, {"object", "model"}, {"created", 1764470000}};
    if (opt_.anonymous_models) return m;
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

  // The engine's own probe endpoint, or nullptr-json when it has none.
  Json probe_reply(const std::string& path) const {
    if (d_ == Dialect::llamacpp && path == "/props") {
      return {{"default_generation_settings", {{"n_ctx", opt_.n_ctx}, {"params", {{"n_predict", -1}}}}},
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

  bool answer(int fd, const Request& req) {
    if (req.method == "GET") {
      if (req.path == "/v1/models") return reply(fd, 200, Json{{"object", "list"}, {"data", Json::array({models_entry()})}}.dump());
      if (req.path == "/health") return reply(fd, 200, d_ == Dialect::llamacpp ? R"({"status":"ok"})" : "");
      const Json probe = probe_reply(req.path);
      return probe.is_null() ? not_found(fd) : reply(fd, 200, probe.dump());
    }
    const Json body = Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    if (req.path == "/tokenize") return tokenize(fd, body);
    if (req.path == "/v1/completions" || req.path == "/v1/chat/completions") {
      return generate(fd, body, req.path == "/v1/chat/completions");
    }
    return not_found(fd);
  }

  static Json ids_of(std::string_view text, bool bos) {
    Json ids = Json::array();
    if (bos) ids.push_back(1);
    for (const std::string& w : fake_engine_words(text)) ids.push_back(100 + static_cast<int>(std::hash<std::string>{}(w) % 30000));
    return ids;
  }

  bool tokenize(int fd, const Json& body) {
    ++tokenize_calls_;
    const auto text_at = [&](const char* key) -> const Json* {
      return body.is_object() && body.contains(key) && body[key].is_string() ? &body[key] : nullptr;
    };
    switch (d_) {
      case Dialect::vllm:
      case Dialect::sglang: {
        const Json* prompt = text_at("prompt");
        if (!prompt) {
          ++foreign_tokenize_calls_;
          return reply(fd, 400, R"({"object":"error","message":"prompt: Field required","type":"BadRequestError","code":400})");
        }
        const Json ids = ids_of(prompt->get<std::string>(), body.value("add_special_tokens", true));
        return reply(fd, 200, Json{{"tokens", ids}, {"count", ids.size()}, {"max_model_len", 4096}}.dump());
      }
      case Dialect::llamacpp: {
        const Json* content = text_at("content");
        if (!content) ++foreign_tokenize_calls_;  // llama-server answers 200 with no tokens: the trap
        const std::string text = content ? content->get<std::string>() : "";
        return reply(fd, 200, Json{{"tokens", content ? ids_of(text, body.value("add_special", false)) : Json::array()}}.dump());
      }
      case Dialect::tgi: {
        const Json* inputs = text_at("inputs");
        if (!inputs) {
          ++foreign_tokenize_calls_;
          return reply(fd, 422, R"({"error":"missing field `inputs`","error_type":"validation"})");
        }
        // BOS first, covering no text (offsets 0..0), then each word with its byte span.
        const std::string text = inputs->get<std::string>();
        Json out = Json::array({Json{{"id", 1}, {"text", ""}, {"start", 0}, {"stop", 0}}});
        std::size_t from = 0;
        for (const std::string& w : fake_engine_words(text)) {
          const std::size_t at = text.find(w, from);
          from = at + w.size();
          out.push_back({{"id", 100}, {"text", w}, {"start", at}, {"stop", from}});
        }
        return reply(fd, 200, out.dump());
      }
    }
    return not_found(fd);
  }

  struct Generation {
    bool chat = false, include_usage = false;
    int prompt_tokens = 0, max_tokens = 16;
  };

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
  static int max_tokens_of(const Json& body, Dialect d) {
    for (const char* key : {"max_completion_tokens", "max_tokens", "n_predict"}) {
      if (key == std::string_view("n_predict") && d != Dialect::llamacpp) break;
      if (body.contains(key) && body[key].is_number_integer()) return body[key].get<int>();
    }
    return 16;
  }

  bool generate(int fd, const Json& body, bool chat) {
    if (!body.is_object()) return reply(fd, 400, R"({"error":"body is not JSON"})");
    Generation g;
    g.chat = chat;
    std::string prompt;
    if (chat && body.contains("messages") && body["messages"].is_array() && !body["messages"].empty()) {
      prompt = message_text(body["messages"].back());
    } else if (!chat && body.contains("prompt") && body["prompt"].is_string()) {
      prompt = body["prompt"].get<std::string>();
    }
    g.prompt_tokens = fake_engine_prompt_tokens(prompt);
    g.max_tokens = max_tokens_of(body, d_);
    g.include_usage = body.contains("stream_options") && body["stream_options"].value("include_usage", false);
    ++generations_;
    prompt_tokens_received_ += g.prompt_tokens;
    if (d_ == Dialect::llamacpp && g.prompt_tokens + g.max_tokens > opt_.n_ctx) {
      return reply(fd, 400, Json{{"error", {{"code", 400}, {"message", "the request exceeds the available context size"},
                                            {"type", "exceed_context_size_error"}, {"n_prompt_tokens", g.prompt_tokens},
                                            {"n_ctx", opt_.n_ctx}}}}.dump());
    }
    return stream(fd, g);
  }

  static std::string chunk(const Json& event) {
    const std::string data = "data: " + event.dump() + "\n\n";
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
  }

  Json usage_of(const Generation& g) const {
    return {{"prompt_tokens", g.prompt_tokens}, {"total_tokens", g.prompt_tokens + g.max_tokens},
            {"completion_tokens", g.max_tokens}};
  }

  // llama.cpp's per-request timings, measured on this fake's clock: prompt_ms from the request to
  // the first token, predicted_ms from the first token to the last.
  static Json timings_of(const Generation& g, double prompt_ms, double predicted_ms) {
    const int n = g.max_tokens;
    return {{"cache_n", 0}, {"prompt_n", g.prompt_tokens}, {"prompt_ms", prompt_ms},
            {"prompt_per_token_ms", prompt_ms / g.prompt_tokens},
            {"prompt_per_second", prompt_ms > 0 ? 1e3 * g.prompt_tokens / prompt_ms : 0.0},
            {"predicted_n", n}, {"predicted_ms", predicted_ms},
            {"predicted_per_token_ms", n > 1 ? predicted_ms / (n - 1) : 0.0},
            {"predicted_per_second", predicted_ms > 0 ? 1e3 * n / predicted_ms : 0.0}};
  }

  Json envelope(const Generation& g) const {
    const char* object = g.chat ? "chat.completion.chunk" : "text_completion";
    Json e = {{"id", d_ == Dialect::tgi ? "" : "cmpl-fake"}, {"object", object}, {"created", 1764470000}, {"model", model()}};
    if (d_ == Dialect::llamacpp) e["system_fingerprint"] = "b6500-fake";
    if (d_ == Dialect::tgi) e["system_fingerprint"] = "3.3.6-native";
    return e;
  }

  // One choices[0] of a token chunk: the text (completions) or delta (chat) and finish_reason.
  Json choice(const Generation& g, const std::string& text, bool last) const {
    Json c = {{"index", 0}};
    if (g.chat) c["delta"] = d_ == Dialect::tgi ? Json{{"role", "assistant"}, {"content", text}} : Json{{"content", text}};
    else c["text"] = text;
    c["logprobs"] = nullptr;
    // TGI's completions stream says "" until the final chunk (TGI PR #2336's output).
    c["finish_reason"] = last ? Json("length") : (d_ == Dialect::tgi && !g.chat ? Json("") : Json(nullptr));
    if (d_ == Dialect::sglang) c["matched_stop"] = nullptr;
    return c;
  }

  bool stream(int fd, const Generation& g) {
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    std::string head = "HTTP/1.1 200 OK\r\n" + server_header() + "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    if (!send_all(fd, head)) return false;
    pause_ms(opt_.ttft_ms);
    const bool llama = d_ == Dialect::llamacpp;
    if (g.chat && (llama || d_ == Dialect::vllm || d_ == Dialect::sglang)) {  // the role chunk
      Json e = envelope(g);
      e["choices"] = Json::array({Json{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", llama ? Json(nullptr) : Json("")}}},
                                       {"logprobs", nullptr}, {"finish_reason", nullptr}}});
      if (!send_all(fd, chunk(e))) return false;
    }
    const double prompt_ms = ms_since(t0);
    const auto t_first = Clock::now();
    for (int i = 0; i < g.max_tokens; ++i) {
      if (i > 0) pause_ms(opt_.itl_ms);
      // The last token ends the stream here, except on llama.cpp, which sends a separate final chunk.
      const bool last = !llama && i + 1 == g.max_tokens;
      Json e = envelope(g);
      e["choices"] = Json::array({choice(g, " w" + std::to_string(i), last)});
      if (d_ == Dialect::sglang || (d_ == Dialect::tgi && g.chat)) e["usage"] = nullptr;
      if (last && d_ == Dialect::tgi) e["usage"] = usage_of(g);  // TGI: usage with the last choice
      if (!send_all(fd, chunk(e))) return false;
    }
    const Json timings = timings_of(g, prompt_ms, ms_since(t_first));
    std::string tail;
    if (llama) tail += llamacpp_final(g, timings);
    else if (d_ != Dialect::tgi && g.include_usage) tail += usage_chunk(g);
    return send_all(fd, tail + chunk_done());
  }

  // vLLM and SGLang with include_usage: its own chunk, choices [].
  std::string usage_chunk(const Generation& g) const {
    Json e = envelope(g);
    e["choices"] = Json::array();
    e["usage"] = usage_of(g);
    return chunk(e);
  }

  // llama.cpp: completions end with {text: "", finish_reason, usage, timings} (usage always); chat
  // with {delta: {}, finish_reason}, and usage only with include_usage, in a chunk of choices [].
  std::string llamacpp_final(const Generation& g, const Json& timings) const {
    Json e = envelope(g);
    if (!g.chat) {
      e["choices"] = Json::array({Json{{"text", ""}, {"index", 0}, {"logprobs", nullptr}, {"finish_reason", "length"}}});
      e["usage"] = usage_of(g);
      e["timings"] = timings;
      return chunk(e);
    }
    e["choices"] = Json::array({Json{{"finish_reason", "length"}, {"index", 0}, {"delta", Json::object()}}});
    if (!g.include_usage) {
      e["timings"] = timings;
      return chunk(e);
    }
    Json u = envelope(g);
    u["choices"] = Json::array();
    u["usage"] = usage_of(g);
    u["timings"] = timings;
    return chunk(e) + chunk(u);
  }

  static std::string chunk_done() {
    const std::string data = "data: [DONE]\n\n";
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n0\r\n\r\n";
  }

  Dialect d_;
  FakeEngineOptions opt_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> tokenize_calls_{0}, foreign_tokenize_calls_{0}, generations_{0};
  std::atomic<long> prompt_tokens_received_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> fds_;
  std::vector<std::thread> threads_;
};

}  // namespace sb::e2e
