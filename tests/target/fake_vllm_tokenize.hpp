#pragma once
// A vLLM-shaped /tokenize and /detokenize server over the real llama2 tokenizer, for tests that
// need a server tokenizer (tests/target, tests/pipeline).
#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/endpoint.hpp"
#include "net/fake_server.hpp"
#include "support/test_paths.hpp"
#include "target/server_tokenizer.hpp"
#include "tokenizer/tokenizer.hpp"

namespace sb::test {

// vLLM's /tokenize and /detokenize over a real tokenizer. Prompts containing "boom" get HTTP 500
// with the prompt in the body, so tests can see which call failed.
struct FakeVllm {
  std::shared_ptr<const Tokenizer> tok = Tokenizer::load(test_files::tokenizer_dir("llama2"));
  int delay_ms = 0;
  std::atomic<int> calls_with_auth{0};

  bool handle(FakeConn& c, const FakeRequest& r) {
    if (r.head.find("Authorization: Bearer sk-test") != std::string::npos) ++calls_with_auth;
    if (delay_ms > 0) c.sleep_ms(delay_ms);
    const auto body = nlohmann::json::parse(r.body);
    if (r.head.rfind("POST /tokenize ", 0) == 0) {
      const std::string prompt = body.at("prompt").get<std::string>();
      if (prompt.find("boom") != std::string::npos) {
        return c.send(test::json_response(500, "Internal Server Error", R"({"detail": ")" + prompt + "\"}"));
      }
      const std::vector<std::int32_t> ids = tok->encode(prompt, body.value("add_special_tokens", true));
      const nlohmann::json reply = {{"count", ids.size()}, {"max_model_len", 4096}, {"tokens", ids}};
      return c.send(test::json_response(200, "OK", reply.dump()));
    }
    const nlohmann::json reply = {{"prompt", tok->decode(body.at("tokens").get<std::vector<std::int32_t>>())}};
    return c.send(test::json_response(200, "OK", reply.dump()));
  }
};

inline ServerTokenizerOptions tokenizer_options(std::uint16_t port) {
  ServerTokenizerOptions opt;
  opt.endpoint = parse_base_url("http://127.0.0.1:" + std::to_string(port));
  opt.headers = {{"Authorization", "Bearer sk-test"}};
  opt.model = "llama2-test";
  opt.timeout_s = 5;
  return opt;
}

}  // namespace sb::test
