#include "sim/request_parse.hpp"

#include <gtest/gtest.h>

namespace sb::sim {
namespace {

ParsedRequest parse_ok(std::string_view body, Api api) {
  ParsedRequest r;
  std::string err;
  EXPECT_TRUE(parse_request(body, api, r, err)) << err;
  return r;
}

std::string parse_error(std::string_view body, Api api) {
  ParsedRequest r;
  std::string err;
  EXPECT_FALSE(parse_request(body, api, r, err));
  return err;
}

TEST(RequestParse, VllmCompletionsBody) {
  // The body vLLM's benchmark client sends (vllm/benchmarks/lib/endpoint_request_func.py), keys in its order.
  const auto r = parse_ok(
      R"({"model":"sim-model","prompt":"hello world!","repetition_penalty":1.0,"max_tokens":64,)"
      R"("logprobs":null,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true})",
      Api::completions);
  EXPECT_EQ(r.model, "sim-model");
  EXPECT_EQ(r.prompt_text, "hello world!");
  EXPECT_EQ(r.max_tokens, 64);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_TRUE(r.ignore_eos);
  EXPECT_EQ(r.prompt_token_ids, -1);
  EXPECT_FALSE(r.seed.has_value());
}

TEST(RequestParse, ChatBodyWithTextPartsAndStringContent) {
  const auto r = parse_ok(
      R"({"model":"m","messages":[{"role":"system","content":"be brief"},)"
      R"({"role":"user","content":[{"type":"text","text":"hi "},{"type":"text","text":"there"}]}],)"
      R"("max_completion_tokens":7,"stream":false,"seed":42})",
      Api::chat);
  EXPECT_EQ(r.prompt_text, "be brief\nhi there");
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.include_usage);
  ASSERT_TRUE(r.seed.has_value());
  EXPECT_EQ(*r.seed, 42u);
}

TEST(RequestParse, ChatAcceptsLegacyMaxTokens) {
  EXPECT_EQ(parse_ok(R"({"messages":[],"max_tokens":3})", Api::chat).max_tokens, 3);
}

TEST(RequestParse, TokenIdPromptCountsIds) {
  const auto r = parse_ok(R"({"prompt":[1,2,3,4,5],"max_tokens":2})", Api::completions);
  EXPECT_EQ(r.prompt_token_ids, 5);
  EXPECT_TRUE(r.prompt_text.empty());
}

TEST(RequestParse, SingleStringListPrompt) {
  EXPECT_EQ(parse_ok(R"({"prompt":["abc"]})", Api::completions).prompt_text, "abc");
}

TEST(RequestParse, AbsentMaxTokensIsMinusOne) {
  EXPECT_EQ(parse_ok(R"({"prompt":"x"})", Api::completions).max_tokens, -1);
}

TEST(RequestParse, ErrorsNameTheField) {
  EXPECT_EQ(parse_error("{not json", Api::completions), "request body is not valid JSON");
  EXPECT_EQ(parse_error("[1]", Api::completions), "request body must be a JSON object");
  EXPECT_EQ(parse_error(R"({"max_tokens":5})", Api::completions), "'prompt' is required");
  EXPECT_EQ(parse_error(R"({"prompt":"x","max_tokens":0})", Api::completions),
            "'max_tokens' must be a positive integer");
  EXPECT_EQ(parse_error(R"({"prompt":"x","max_tokens":"5"})", Api::completions),
            "'max_tokens' must be a positive integer");
  EXPECT_EQ(parse_error(R"({"prompt":"x","stream":"yes"})", Api::completions), "'stream' must be a boolean");
  EXPECT_EQ(parse_error(R"({"prompt":[]})", Api::completions), "'prompt' must not be empty");
  EXPECT_NE(parse_error(R"({"prompt":["a","b"]})", Api::completions).find("batched prompts"), std::string::npos);
  EXPECT_EQ(parse_error(R"({"messages":"hi"})", Api::chat), "'messages' must be an array");
  EXPECT_EQ(parse_error(R"({"messages":[{"content":5}]})", Api::chat),
            "messages[].content must be a string or an array of parts");
}

TEST(RequestParse, ApproxPromptTokensIsCeilOfBytesOverFour) {
  EXPECT_EQ(approx_prompt_tokens(""), 1);
  EXPECT_EQ(approx_prompt_tokens("a"), 1);
  EXPECT_EQ(approx_prompt_tokens("abcd"), 1);
  EXPECT_EQ(approx_prompt_tokens("abcde"), 2);
  EXPECT_EQ(approx_prompt_tokens(std::string(400, 'x')), 100);
}

}  // namespace
}  // namespace sb::sim
