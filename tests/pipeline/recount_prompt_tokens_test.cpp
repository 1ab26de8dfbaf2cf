// recount_prompt_tokens: a dataset built without a tokenizer gets the server's own prompt counts,
// special tokens included, as a completion request counts them.
#include <gtest/gtest.h>

#include "net/fake_server.hpp"
#include "pipeline/run_prepare.hpp"
#include "support/test_paths.hpp"
#include "target/fake_vllm_tokenize.hpp"
#include "target/server_tokenizer.hpp"

namespace sb::pipeline {
namespace {

TEST(RecountPromptTokens, SetsTheServersCountsWithSpecials) {
  SB_REQUIRE_TOKENIZER("llama2");
  test::FakeVllm vllm;
  test::FakeServer server([&](test::FakeConn& c, const test::FakeRequest& r) { return vllm.handle(c, r); });
  ServerTokenizer tok(test::tokenizer_options(server.port()));
  std::vector<RequestSpec> specs = {{"Hello world", -1, 8, "r0"}, {"the of and to in", 5, 8, "r1"}};
  recount_prompt_tokens(tok, specs);
  EXPECT_EQ(specs[0].prompt_tokens, 3);
  EXPECT_EQ(specs[1].prompt_tokens, static_cast<int>(vllm.tok->count("the of and to in", true)));
}

}  // namespace
}  // namespace sb::pipeline
