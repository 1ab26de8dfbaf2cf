// Tests for src/target/tokenize_dialect.cpp: each engine's /tokenize and /detokenize bodies, and its
// replies read only in its own shape (llama.cpp's 200 {"tokens": []} for a vLLM body is no count).
#include "target/tokenize_dialect.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "core/error.hpp"

namespace sb {
namespace {

using Ids = std::vector<std::int32_t>;

std::string dialect_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UserError";
  return "";
}

TEST(TokenizeDialect, RequestBodiesPerEngine) {
  EXPECT_EQ(tokenize_body_for(Engine::vllm, "m", "a b", true), R"({"model": "m", "prompt": "a b", "add_special_tokens": true})");
  EXPECT_EQ(tokenize_body_for(Engine::sglang, "m", "a", false), R"({"model": "m", "prompt": "a", "add_special_tokens": false})");
  EXPECT_EQ(tokenize_body_for(Engine::openai, "", "a", true), R"({"prompt": "a", "add_special_tokens": true})");
  EXPECT_EQ(tokenize_body_for(Engine::llamacpp, "m", "say \"hi\"", true), R"({"content": "say \"hi\"", "add_special": true})");
  EXPECT_EQ(tokenize_body_for(Engine::llamacpp, "m", "x", false), R"({"content": "x", "add_special": false})");
  EXPECT_EQ(tokenize_body_for(Engine::tgi, "m", "a\nb", true), R"({"inputs": "a\nb"})");
}

TEST(TokenizeDialect, LlamaCppRepliesIdsOrPieces) {
  TokenizeReply r = parse_tokenize_reply_for(Engine::llamacpp, R"({"tokens":[1,15043,3186]})", true, "here");
  EXPECT_EQ(r.count, 3u);
  EXPECT_EQ(r.tokens, (Ids{1, 15043, 3186}));
  EXPECT_FALSE(r.max_model_len);
  r = parse_tokenize_reply_for(Engine::llamacpp, R"({"tokens":[{"id":15043,"piece":"Hello"},{"id":3186,"piece":[32,119]}]})",
                               false, "here");
  EXPECT_EQ(r.tokens, (Ids{15043, 3186}));
  EXPECT_NE(dialect_error_of([] { parse_tokenize_reply_for(Engine::llamacpp, R"({"count":3})", true, "here"); })
                .find("here: reply has no \"tokens\" list"),
            std::string::npos);
}

TEST(TokenizeDialect, TgiSpecialsAreTheTokensCoveringNoText) {
  const std::string body =
      R"([{"id":1,"text":"<s>","start":0,"stop":0},{"id":15043,"text":"Hello","start":0,"stop":5},)"
      R"({"id":3186,"text":" world","start":5,"stop":11}])";
  EXPECT_EQ(parse_tokenize_reply_for(Engine::tgi, body, true, "w").tokens, (Ids{1, 15043, 3186}));
  const TokenizeReply plain = parse_tokenize_reply_for(Engine::tgi, body, false, "w");
  EXPECT_EQ(plain.count, 2u);
  EXPECT_EQ(plain.tokens, (Ids{15043, 3186}));
  EXPECT_NE(dialect_error_of([] { parse_tokenize_reply_for(Engine::tgi, R"({"tokens":[1]})", true, "w"); })
                .find("w: reply is not a list of tokens"),
            std::string::npos);
  EXPECT_NE(dialect_error_of([] { parse_tokenize_reply_for(Engine::tgi, R"([{"text":"a"}])", true, "w"); })
                .find("a token has no \"id\""),
            std::string::npos);
}

TEST(TokenizeDialect, VllmAndSglangShareTheReply) {
  for (Engine e : {Engine::vllm, Engine::sglang, Engine::openai}) {
    const TokenizeReply r = parse_tokenize_reply_for(e, R"({"tokens":[1,2],"count":2,"max_model_len":8192})", true, "w");
    EXPECT_EQ(r.count, 2u);
    EXPECT_EQ(r.max_model_len, 8192);
  }
  // A TGI list is no vLLM reply: an error, not 0 tokens.
  EXPECT_NE(dialect_error_of([] { parse_tokenize_reply_for(Engine::vllm, R"([{"id":1}])", true, "w"); })
                .find("reply is not a JSON object"),
            std::string::npos);
}

TEST(TokenizeDialect, DetokenizePerEngine) {
  EXPECT_TRUE(has_detokenize(Engine::llamacpp));
  EXPECT_FALSE(has_detokenize(Engine::tgi));
  EXPECT_EQ(detokenize_body_for(Engine::llamacpp, "m", {1, 2}), R"({"tokens": [1, 2]})");
  EXPECT_EQ(detokenize_body_for(Engine::sglang, "m", {3}), R"({"model": "m", "tokens": [3]})");
  EXPECT_EQ(parse_detokenize_reply_for(Engine::llamacpp, R"({"content":" Hello"})", "w"), " Hello");
  EXPECT_EQ(parse_detokenize_reply_for(Engine::sglang, R"({"text":"Hi"})", "w"), "Hi");
  EXPECT_EQ(parse_detokenize_reply_for(Engine::vllm, R"({"prompt":"Hey"})", "w"), "Hey");
  EXPECT_NE(dialect_error_of([] { parse_detokenize_reply_for(Engine::sglang, R"({"prompt":"Hey"})", "w"); })
                .find("reply has no string \"text\""),
            std::string::npos);
}

}  // namespace
}  // namespace sb
