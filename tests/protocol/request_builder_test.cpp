// Request bodies must match vLLM's client key for key and in order (vllm/benchmarks/lib/endpoint_request_func.py).
#include "protocol/request_builder.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sb {
namespace {

RequestSpec spec(std::string prompt, int max_tokens) {
  RequestSpec s;
  s.prompt = std::move(prompt);
  s.max_tokens = max_tokens;
  return s;
}

TEST(RequestBuilder, CompletionsDefaultKeyOrder) {
  RequestOptions o;
  o.model = "meta-llama/Llama-3.1-8B";
  EXPECT_EQ(build_request_body(o, spec("Hello \"you\"\n", 128)),
            R"({"model":"meta-llama/Llama-3.1-8B","prompt":"Hello \"you\"\n","repetition_penalty":1.0,)"
            R"("max_tokens":128,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}})");
}

TEST(RequestBuilder, CompletionsIgnoreEosAndLogprobs) {
  RequestOptions o;
  o.model = "m";
  o.ignore_eos = true;
  o.logprobs = 5;
  EXPECT_EQ(build_request_body(o, spec("p", 3)),
            R"({"model":"m","prompt":"p","repetition_penalty":1.0,"max_tokens":3,"logprobs":5,)"
            R"("stream":true,"stream_options":{"include_usage":true},"ignore_eos":true})");
}

TEST(RequestBuilder, ChatUsesContentPartsAndMaxCompletionTokens) {
  RequestOptions o;
  o.api = Api::chat;
  o.model = "gpt";
  EXPECT_EQ(build_request_body(o, spec("Hi\t\x01", 16)),
            R"({"model":"gpt","messages":[{"role":"user","content":[{"type":"text","text":"Hi\t\u0001"}]}],)"
            R"("max_completion_tokens":16,"stream":true,"stream_options":{"include_usage":true}})");
}

TEST(RequestBuilder, SamplingThenExtraBodyMergedLastKeepingPositions) {
  RequestOptions o;
  o.model = "m";
  o.sampling_json = R"({"temperature":0.7,"top_k":20})";
  // Overrides an existing key in place (max_tokens, temperature) and appends new ones in order.
  o.extra_body_json = R"({"max_tokens": 7, "temperature": 0, "guided": {"a": [1, 2]}})";
  EXPECT_EQ(build_request_body(o, spec("p", 100)),
            R"({"model":"m","prompt":"p","repetition_penalty":1.0,"max_tokens":7,"logprobs":null,)"
            R"("stream":true,"stream_options":{"include_usage":true},"temperature":0,"top_k":20,)"
            R"("guided":{"a":[1,2]}})");
}

TEST(RequestBuilder, NonStreamingHasNoStreamOptions) {
  RequestOptions o;
  o.api = Api::chat;
  o.model = "m";
  o.stream = false;
  EXPECT_EQ(build_request_body(o, spec("x", 1)),
            R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],)"
            R"("max_completion_tokens":1,"stream":false})");
}

TEST(RequestBuilder, ExtraBodyMustBeAnObject) {
  RequestOptions o;
  o.model = "m";
  o.extra_body_json = "[1]";
  EXPECT_THROW(build_request_body(o, spec("p", 1)), UserError);
  o.extra_body_json = "{bad";
  try {
    build_request_body(o, spec("p", 1));
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--extra-body"), std::string::npos);
    EXPECT_EQ(e.code(), ExitCode::config_error);
  }
}

TEST(RequestBuilder, ValidateNamesTheFieldThatIsNotAnObject) {
  RequestOptions opt;
  EXPECT_TRUE(validate(opt).empty());
  opt.extra_body_json = "[1]";
  opt.sampling_json = R"({"temperature":0.5})";
  const Problems problems = validate(opt);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "extra_body_json");
  EXPECT_EQ(problems[0].message, "not a JSON object: [1]");
}

}  // namespace
}  // namespace sb
